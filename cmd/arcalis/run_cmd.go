package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/fatih/color"
	"github.com/urfave/cli/v2"

	"arcalis/golden"
	"arcalis/tb"
	"arcalis/vectors"
)

// runCommand runs vector files through the Verilated RTL and the reference.
func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run vector files through the simulated accelerator and the Go reference",
		ArgsUsage: "VECTORS...",
		Description: "Every record is placed in simulated memory, handed to the engine with\n" +
			"CMD_SEND_NET_BUF / CMD_SEND_NET_LEN, and its App.Recv image, status and reply\n" +
			"are compared byte for byte with the reference (golden). Exits non-zero when any\n" +
			"vector's RTL and reference disagree.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per vector instead of the summary"},
			&cli.IntFlag{Name: "mem-latency", Value: 4, Usage: "memory latency in `CYCLES`"},
			&cli.IntFlag{Name: "offset", Value: -1, DefaultText: "record index mod 64", Usage: "start offset of each message within its line (0..63)"},
			&cli.IntFlag{Name: "cap-lines", Value: tb.DefaultCapLines, Usage: "App.Recv capacity in 64-byte `LINES` (5..65535)"},
			&cli.IntFlag{Name: "record", Value: -1, DefaultText: "all", Usage: "run only record `N` of each file"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the memory model's random choices"},
			&cli.StringFlag{Name: "wave", Usage: "write an FST waveform of each failing vector into `DIR`", TakesFile: true},
			&cli.StringFlag{Name: "model", Usage: "Verilated model library (default: build/model/libvmodel.so of this checkout)", TakesFile: true},
		},
		Action: runVectors,
	}
}

// vectorResult is one vector's line of `arcalis run --json`.
type vectorResult struct {
	Index       int      `json:"index"`
	File        string   `json:"file"`
	Record      int      `json:"record"`
	Source      string   `json:"source"`
	Status      string   `json:"status"`
	Match       bool     `json:"match"`
	Expected    string   `json:"expected"` // the reference's status
	Method      string   `json:"method"`
	SeqID       int32    `json:"seqid"`
	ReqID       int64    `json:"req_id"`
	KeyHex      string   `json:"key_hex"`
	ValueLen    uint32   `json:"value_len"`
	ValueSHA256 string   `json:"value_sha256"`
	Flags       int32    `json:"flags"`
	Exptime     int32    `json:"exptime"`
	Cycles      uint64   `json:"cycles"`
	Offset      int      `json:"start_offset"`
	Diffs       []string `json:"diffs,omitempty"`
	Wave        string   `json:"wave,omitempty"`
	Replay      string   `json:"replay,omitempty"`
}

type runOptions struct {
	tb.RunOptions
	latency int
	seed    int64
	record  int
	model   string
}

func runVectors(c *cli.Context) error {
	files, err := positional(c)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("run: no vector files given (usage: arcalis run [flags] VECTORS...)")
	}
	opt := runOptions{
		RunOptions: tb.RunOptions{Offset: c.Int("offset"), CapLines: c.Int("cap-lines"), WaveDir: c.String("wave")},
		latency:    c.Int("mem-latency"),
		seed:       c.Int64("seed"),
		record:     c.Int("record"),
		model:      c.String("model"),
	}
	switch {
	case opt.Offset < -1 || opt.Offset > 63:
		return fmt.Errorf("run: --offset %d: want 0..63", opt.Offset)
	case opt.CapLines < golden.MinCapacity/tb.LineSize || opt.CapLines > 0xFFFF:
		return fmt.Errorf("run: --cap-lines %d: want %d..65535", opt.CapLines, golden.MinCapacity/tb.LineSize)
	case opt.latency < 0 || opt.latency > 1_000_000:
		return fmt.Errorf("run: --mem-latency %d: want 0..1000000", opt.latency)
	}
	if opt.model == "" {
		opt.model = tb.FindModel()
	}

	// Read everything first: a damaged file stops the run before any simulation.
	type job struct {
		file string
		rec  vectors.Record
	}
	var jobs []job
	for _, f := range files {
		recs, err := vectors.ReadFile(f)
		if err != nil {
			return err
		}
		if opt.record >= len(recs) {
			return fmt.Errorf("%s: --record %d: the file has %d records", f, opt.record, len(recs))
		}
		for _, r := range recs {
			if opt.record < 0 || r.Index == opt.record {
				jobs = append(jobs, job{f, r})
			}
		}
	}

	acc, err := tb.Open(opt.model, tb.MemConfig{Latency: opt.latency, Seed: opt.seed})
	if err != nil {
		return err
	}
	defer acc.Close()
	if err := acc.Configure(tb.WindowBase, tb.WindowSize); err != nil {
		return err
	}

	out := c.App.Writer
	progress := newProgress(c.App.ErrWriter, len(jobs))
	var results []vectorResult
	for i, j := range jobs {
		r := acc.RunVector(i, j.rec.Source, j.rec.Msg, opt.RunOptions)
		res := describe(i, j.file, j.rec.Index, r, opt)
		results = append(results, res)
		if c.Bool("json") {
			b, _ := json.Marshal(res)
			fmt.Fprintln(out, string(b))
		} else if !res.Match {
			printFailure(c.App.ErrWriter, res)
		}
		progress.tick(i + 1)
	}
	failed := summarize(c.App.ErrWriter, results, acc.Cycle(), progress.elapsed())
	if failed > 0 {
		return fmt.Errorf("%d of %d vectors: RTL and reference disagree", failed, len(results))
	}
	return nil
}

// describe turns a run into its JSON line: the RTL's own outputs, and whether
// they match the reference.
func describe(index int, file string, record int, r tb.Run, opt runOptions) vectorResult {
	res := vectorResult{
		Index: index, File: file, Record: record, Source: r.Source, Match: r.OK(),
		Offset: r.Offset, Cycles: r.Outcome.Cycles, Diffs: r.Verdict.Diffs, Wave: r.Wave,
	}
	if r.Err != nil {
		res.Status = "HANG"
		res.Diffs = append([]string{r.Err.Error()}, res.Diffs...)
	} else {
		res.Status = statusName(golden.Code(r.Outcome.Status.Result()))
	}
	res.Expected = statusName(r.Verdict.Ref.Code)
	h := r.Verdict.RTL
	res.Method = map[uint8]string{golden.MethodSet: "Set", golden.MethodGet: "Get"}[h.Method]
	res.SeqID, res.ReqID, res.Flags, res.Exptime, res.ValueLen = h.SeqID, h.ReqID, h.Flags, h.Exptime, h.ValueLen
	img := r.Outcome.Image
	if k := int(h.KeyLen); k <= golden.KeyMax && golden.KeyOffset+k <= len(img) {
		res.KeyHex = hex.EncodeToString(img[golden.KeyOffset : golden.KeyOffset+k])
	}
	if v := int(h.ValueLen); golden.ValueOffset+v <= len(img) {
		sum := sha256.Sum256(img[golden.ValueOffset : golden.ValueOffset+v])
		res.ValueSHA256 = hex.EncodeToString(sum[:])
	}
	if !res.Match {
		res.Replay = fmt.Sprintf("arcalis run --record %d --offset %d --mem-latency %d --cap-lines %d --seed %d --wave waves %s",
			record, r.Offset, opt.latency, capOr(opt.CapLines), opt.seed, file)
	}
	return res
}

func capOr(n int) int {
	if n == 0 {
		return tb.DefaultCapLines
	}
	return n
}

// statusName is "ok" for OK and the ABI's name for every other code.
func statusName(c golden.Code) string {
	if c == golden.CodeOK {
		return "ok"
	}
	return c.String()
}

func printFailure(w io.Writer, r vectorResult) {
	red := color.New(color.FgRed, color.Bold)
	red.Fprintf(w, "MISMATCH")
	fmt.Fprintf(w, " %s record %d (%s): RTL %s, reference %s\n", r.File, r.Record, r.Source, r.Status, r.Expected)
	for _, d := range r.Diffs {
		fmt.Fprintf(w, "    %s\n", d)
	}
	if r.Wave != "" {
		fmt.Fprintf(w, "    waveform: %s\n", r.Wave)
	}
	fmt.Fprintf(w, "    replay:   %s\n", r.Replay)
}

// summarize prints the coloured totals and returns how many vectors failed.
func summarize(w io.Writer, results []vectorResult, cycles uint64, elapsed time.Duration) int {
	byStatus := map[string]int{}
	failed := 0
	for _, r := range results {
		byStatus[r.Status]++
		if !r.Match {
			failed++
		}
	}
	names := make([]string, 0, len(byStatus))
	for s := range byStatus {
		names = append(names, s)
	}
	sort.Strings(names)
	fmt.Fprintf(w, "%d vectors, %d simulated cycles in %s (%.0f vectors/s, %.2f Mcycles/s)\n",
		len(results), cycles, elapsed.Round(time.Millisecond),
		float64(len(results))/elapsed.Seconds(), float64(cycles)/elapsed.Seconds()/1e6)
	for _, s := range names {
		fmt.Fprintf(w, "  %-20s %d\n", s, byStatus[s])
	}
	if failed == 0 {
		color.New(color.FgGreen, color.Bold).Fprintf(w, "PASS")
		fmt.Fprintf(w, " RTL matches the reference on all %d vectors\n", len(results))
	} else {
		color.New(color.FgRed, color.Bold).Fprintf(w, "FAIL")
		fmt.Fprintf(w, " %d of %d vectors disagree\n", failed, len(results))
	}
	return failed
}

// progress prints a line to stderr every two seconds on long runs.
type progress struct {
	w           io.Writer
	total       int
	start, last time.Time
}

func newProgress(w io.Writer, total int) *progress {
	now := time.Now()
	return &progress{w: w, total: total, start: now, last: now}
}

func (p *progress) tick(n int) {
	if now := time.Now(); now.Sub(p.last) >= 2*time.Second {
		p.last = now
		fmt.Fprintf(p.w, "... %d/%d vectors (%s)\n", n, p.total, now.Sub(p.start).Round(time.Second))
	}
}

func (p *progress) elapsed() time.Duration { return time.Since(p.start) }
