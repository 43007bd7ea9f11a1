package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fatih/color"
	"github.com/urfave/cli/v2"
	"golang.org/x/sync/errgroup"

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
			"vector's RTL and reference disagree.\n\n" +
			"--jobs N runs the vectors in N worker processes (one Verilated model each) and\n" +
			"prints the results in input order, identical to --jobs 1; a worker that crashes\n" +
			"or hangs is reported with its vector and replaced. --shard i/n runs every n-th\n" +
			"vector from the i-th (1 <= i <= n): `arcalis merge` combines the --json outputs\n" +
			"of the n shards into the unsharded result.",
		Flags: append(simFlags(),
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per vector instead of the summary"},
			&cli.IntFlag{Name: "record", Value: -1, DefaultText: "all", Usage: "run only record `N` of each file"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: 1, Usage: "run in `N` simulator processes (1: in this process)"},
			&cli.StringFlag{Name: "shard", Usage: "run only shard `i/n`: the vectors whose index mod n is i-1"},
			&cli.StringFlag{Name: "junit", Usage: "write JUnit XML results to `FILE`", TakesFile: true},
			&cli.DurationFlag{Name: "timeout", Value: 2 * time.Minute, Usage: "with --jobs above 1: a worker with no result for one vector for this long is killed and the vector reported as TIMEOUT"},
		),
		Action: runVectors,
	}
}

// simFlags are the flags that shape a simulation, shared with the hidden
// worker command.
func simFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "mem-latency", Value: 4, Usage: "memory latency in `CYCLES`"},
		&cli.IntFlag{Name: "offset", Value: -1, DefaultText: "record index mod 64", Usage: "start offset of each message within its line (0..63)"},
		&cli.IntFlag{Name: "cap-lines", DefaultText: "just enough for each message's value", Usage: "App.Recv capacity in 64-byte `LINES` (5..65535)"},
		&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the memory model's random choices"},
		&cli.StringFlag{Name: "wave", Value: "waves", Usage: "write an FST waveform of each failing vector into `DIR` (\"\": none)", TakesFile: true},
		&cli.StringFlag{Name: "model", Usage: "Verilated model library (default: build/model/libvmodel.so of this checkout)", TakesFile: true},
		&cli.BoolFlag{Name: "sim-thread", Usage: "evaluate the model on a thread of its own while the testbench runs on another (two cores per simulator; the memory then answered in Go, which has made it slower than the default one thread in every run measured)"},
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
	Total       int      `json:"total"`           // vectors in the whole (unsharded) run
	Config      string   `json:"config"`          // the run's fingerprint: options and vector files
	Shard       string   `json:"shard,omitempty"` // i/n, if this run was a shard

	seconds float64 // wall time of the vector (JUnit only: not reproducible)
}

type runOptions struct {
	tb.RunOptions
	latency int
	seed    int64
	record  int
	model   string
	pipe    bool // --sim-thread: tb.Accel.UsePipe

	// Stamped on every result: see vectorResult.
	total  int
	config string
	shard  string
}

// simOptions reads and checks the simulation flags.
func simOptions(c *cli.Context) (runOptions, error) {
	opt := runOptions{
		RunOptions: tb.RunOptions{Offset: c.Int("offset"), CapLines: c.Int("cap-lines"), WaveDir: c.String("wave")},
		latency:    c.Int("mem-latency"),
		seed:       c.Int64("seed"),
		record:     -1,
		model:      c.String("model"),
		pipe:       c.Bool("sim-thread"),
	}
	switch {
	case opt.Offset < -1 || opt.Offset > 63:
		return opt, fmt.Errorf("%s: --offset %d: want 0..63", commandName(c), opt.Offset)
	case opt.CapLines != 0 && (opt.CapLines < golden.MinCapacity/tb.LineSize || opt.CapLines > 0xFFFF):
		return opt, fmt.Errorf("%s: --cap-lines %d: want %d..65535", commandName(c), opt.CapLines, golden.MinCapacity/tb.LineSize)
	case opt.latency < 0 || opt.latency > 1_000_000:
		return opt, fmt.Errorf("%s: --mem-latency %d: want 0..1000000", commandName(c), opt.latency)
	}
	if opt.model == "" {
		opt.model = tb.FindModel()
	}
	opt.total, opt.config, opt.shard = c.Int("total"), c.String("config"), c.String("shard")
	return opt, nil
}

// job is one vector of the run: its index in the whole run and its record.
type job struct {
	index int
	file  string
	rec   vectors.Record
}

func runVectors(c *cli.Context) error {
	files, err := positional(c)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("run: no vector files given (usage: arcalis run [flags] VECTORS...)")
	}
	opt, err := simOptions(c)
	if err != nil {
		return err
	}
	opt.record = c.Int("record")
	workers := c.Int("jobs")
	if workers < 1 || workers > 1024 {
		return fmt.Errorf("run: --jobs %d: want 1..1024", workers)
	}
	shard, nshards, err := parseShard(c.String("shard"))
	if err != nil {
		return err
	}
	opt.shard = fmt.Sprintf("%d/%d", shard, nshards)

	// Read everything first: a damaged file stops the run before any simulation.
	var all []job
	sum := sha256.New()
	fmt.Fprintf(sum, "mem-latency=%d seed=%d cap-lines=%d offset=%d record=%d\n", opt.latency, opt.seed, opt.CapLines, opt.Offset, opt.record)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("run: %w", err)
		}
		fmt.Fprintf(sum, "%s %x\n", f, sha256.Sum256(data))
		recs, err := vectors.ReadFile(f)
		if err != nil {
			return err
		}
		if opt.record >= len(recs) {
			return fmt.Errorf("%s: --record %d: the file has %d records", f, opt.record, len(recs))
		}
		for _, r := range recs {
			if opt.record < 0 || r.Index == opt.record {
				all = append(all, job{len(all), f, r})
			}
		}
	}
	opt.total, opt.config = len(all), hex.EncodeToString(sum.Sum(nil))[:16]
	if nshards == 1 {
		opt.shard = ""
	}
	var sel []job
	for _, j := range all {
		if j.index%nshards == shard-1 {
			sel = append(sel, j)
		}
	}

	out := c.App.Writer
	progress := newTicker(c.App.ErrWriter, "run")
	results := make([]vectorResult, len(sel))
	printed := 0
	done := make([]bool, len(sel))
	// emit takes the result of sel[pos] and prints every result now complete
	// in input order.
	// A worker's result comes with its JSON line, printed as it is.
	lines := make([][]byte, len(sel))
	emit := func(pos int, res vectorResult, line []byte) {
		results[pos], done[pos], lines[pos] = res, true, line
		for printed < len(sel) && done[printed] {
			r := results[printed]
			if c.Bool("json") {
				if lines[printed] == nil {
					lines[printed], _ = json.Marshal(r)
				}
				out.Write(append(bytes.TrimRight(lines[printed], "\n"), '\n'))
				lines[printed] = nil
			} else if !r.Match {
				printFailure(c.App.ErrWriter, r)
			}
			printed++
		}
		progress.maybe("%d/%d vectors", printed, len(sel))
	}

	var cycles uint64
	if workers == 1 {
		cycles, err = runHere(sel, opt, emit)
	} else {
		cycles, err = runWorkers(c.Context, sel, opt, workers, c.Duration("timeout"), c.String("junit") != "", emit)
	}
	if err != nil {
		return err
	}
	failed := summarize(c.App.ErrWriter, results, cycles, time.Since(progress.start))
	if f := c.String("junit"); f != "" {
		if err := writeJUnit(f, results); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d vectors: RTL and reference disagree", failed, len(results))
	}
	return nil
}

// parseShard reads "i/n" (1 <= i <= n); "" is the whole run, 1/1.
func parseShard(s string) (i, n int, err error) {
	if s == "" {
		return 1, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("run: --shard %q: want i/n with 1 <= i <= n, e.g. 2/4", s)
	}
	return i, n, nil
}

// openAccel opens the model and programs the command window, as the
// options say.
func openAccel(opt runOptions) (*tb.Accel, error) {
	acc, err := tb.Open(opt.model, tb.MemConfig{Latency: opt.latency, Seed: opt.seed})
	if err != nil {
		return nil, err
	}
	err = acc.Configure(tb.WindowBase, tb.WindowSize)
	if err == nil && opt.pipe {
		err = acc.UsePipe(true)
	}
	if err != nil {
		acc.Close()
		return nil, err
	}
	return acc, nil
}

// runHere runs the jobs on a model in this process and returns the
// simulated cycles.
func runHere(sel []job, opt runOptions, emit func(int, vectorResult, []byte)) (uint64, error) {
	acc, err := openAccel(opt)
	if err != nil {
		return 0, err
	}
	defer acc.Close()
	var cycles uint64
	for pos, j := range sel {
		start, cyc := time.Now(), acc.Cycle()
		r := acc.RunVector(j.index, j.rec.Source, j.rec.Msg, opt.RunOptions)
		res := describe(j.index, j.file, j.rec.Index, r, opt)
		res.seconds = time.Since(start).Seconds()
		cycles += acc.Cycle() - cyc
		emit(pos, res, nil)
	}
	return cycles, nil
}

// ---- Worker processes ----

// workerJob is one vector sent to a worker, with the record's message: a
// worker that read the files itself would repeat, in each process, the
// coordinator's reading of every record.
type workerJob struct {
	Index, Record int
	File, Source  string
	Msg           []byte
}

// appendJob appends j's frame on a worker's stdin: a little-endian uint32
// of the length of what follows, then uint32 Index and Record, then File,
// Source and Msg, each after its uint32 length. (JSON took longer to read
// than a small vector takes to simulate.)
func appendJob(b []byte, j workerJob) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(frameLen(j)))
	b = le.AppendUint32(b, uint32(j.Index))
	b = le.AppendUint32(b, uint32(j.Record))
	for _, f := range [][]byte{[]byte(j.File), []byte(j.Source), j.Msg} {
		b = le.AppendUint32(b, uint32(len(f)))
		b = append(b, f...)
	}
	return b
}

// frameLen is the length of j's frame after its own length.
func frameLen(j workerJob) int { return 5*4 + len(j.File) + len(j.Source) + len(j.Msg) }

// maxFrame bounds a job's frame: a longer one is corrupt input, not a
// reason to allocate gigabytes.
const maxFrame = 1 << 30

// readJob reads the next frame appendJob wrote; io.EOF at the end of the
// input.
func readJob(r *bufio.Reader) (workerJob, error) {
	var j workerJob
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return j, errors.New("worker: input ends inside a job's length")
		}
		return j, err
	}
	n := binary.LittleEndian.Uint32(head[:])
	if n > maxFrame {
		return j, fmt.Errorf("worker: a job of %d bytes, more than the %d a job may have", n, maxFrame)
	}
	frame := make([]byte, n)
	if _, err := io.ReadFull(r, frame); err != nil {
		return j, fmt.Errorf("worker: input ends inside a job of %d bytes", len(frame))
	}
	le := binary.LittleEndian
	bad := fmt.Errorf("worker: malformed job of %d bytes", len(frame))
	if len(frame) < 8 {
		return j, bad
	}
	j.Index, j.Record = int(le.Uint32(frame)), int(le.Uint32(frame[4:]))
	rest := frame[8:]
	var fields [3][]byte
	for i := range fields {
		if len(rest) < 4 || uint64(le.Uint32(rest)) > uint64(len(rest)-4) {
			return j, bad
		}
		n := le.Uint32(rest)
		fields[i], rest = rest[4:4+n], rest[4+n:]
	}
	if len(rest) != 0 {
		return j, bad
	}
	j.File, j.Source, j.Msg = string(fields[0]), string(fields[1]), fields[2]
	return j, nil
}

// workerReply is a worker's answer to one job: a line "R INDEX MATCH
// CYCLES SECONDS JSON" on its stdout, JSON being the vector's line of
// arcalis run --json, MATCH 1 or 0 as its "match", and CYCLES the cycles
// simulated for it, commands included. Before any, a worker writes "READY"
// once its model is open.
type workerReply struct {
	Result  *vectorResult
	Line    []byte // JSON, as the worker wrote it
	Cycles  uint64
	Seconds float64
}

// parseReply reads a reply line. The JSON is decoded only if full or the
// vector failed: the summary needs nothing else of a vector that passed.
func parseReply(line []byte, full bool) (workerReply, error) {
	var rep workerReply
	f := bytes.SplitN(bytes.TrimRight(line, "\n"), []byte(" "), 6)
	if len(f) != 6 || string(f[0]) != "R" {
		return rep, errors.New("not a result line")
	}
	index, err1 := strconv.Atoi(string(f[1]))
	match := string(f[2]) == "1"
	var err2, err3 error
	rep.Cycles, err2 = strconv.ParseUint(string(f[3]), 10, 64)
	rep.Seconds, err3 = strconv.ParseFloat(string(f[4]), 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return rep, errors.New("bad index, cycles or seconds")
	}
	rep.Line = f[5]
	res := &vectorResult{Index: index, Match: match, Status: "ok"}
	if full || !match {
		if err := json.Unmarshal(rep.Line, res); err != nil {
			return rep, err
		}
	} else if i := bytes.Index(rep.Line, []byte(`"status":"`)); i >= 0 {
		st := rep.Line[i+10:]
		if j := bytes.IndexByte(st, '"'); j >= 0 {
			res.Status = string(st[:j])
		}
	}
	rep.Result = res
	return rep, nil
}

// workerCommand is the hidden `arcalis worker`: the process that runs
// vectors for `arcalis run --jobs N`, one model per process.
func workerCommand() *cli.Command {
	return &cli.Command{
		Name:   "worker",
		Hidden: true,
		Usage:  "run vectors sent as job frames on stdin (started by arcalis run --jobs)",
		Flags: append(simFlags(),
			&cli.IntFlag{Name: "total"}, &cli.StringFlag{Name: "config"}, &cli.StringFlag{Name: "shard"}),
		Action: runWorker,
	}
}

func runWorker(c *cli.Context) error {
	opt, err := simOptions(c)
	if err != nil {
		return err
	}
	acc, err := openAccel(opt)
	if err != nil {
		return err
	}
	defer acc.Close()
	// Results go out every workerWindow/4 and whenever no job is waiting:
	// the coordinator tops the queue up as it sees them, before it runs dry.
	out := bufio.NewWriterSize(c.App.Writer, 1<<16)
	if _, err := out.WriteString("READY\n"); err != nil {
		return err
	}
	fault := os.Getenv("ARCALIS_WORKER_FAULT") // "crash:N" or "hang:N": test the supervisor
	in := bufio.NewReaderSize(c.App.Reader, 1<<20)
	for pending := 0; ; pending++ {
		if pending == workerWindow/4 || in.Buffered() == 0 {
			if err := out.Flush(); err != nil {
				return err
			}
			pending = 0
		}
		j, err := readJob(in)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch fault {
		case fmt.Sprintf("crash:%d", j.Index):
			out.Flush()
			fmt.Fprintf(c.App.ErrWriter, "worker: crashing on vector %d as ARCALIS_WORKER_FAULT asks\n", j.Index)
			os.Exit(3)
		case fmt.Sprintf("hang:%d", j.Index):
			out.Flush()
			select {}
		}
		start, cyc := time.Now(), acc.Cycle()
		r := acc.RunVector(j.Index, j.Source, j.Msg, opt.RunOptions)
		res := describe(j.Index, j.File, j.Record, r, opt)
		js, _ := json.Marshal(res)
		fmt.Fprintf(out, "R %d %d %d %g ", j.Index, b2i(res.Match), acc.Cycle()-cyc, time.Since(start).Seconds())
		out.Write(js)
		if err := out.WriteByte('\n'); err != nil {
			return err
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// worker is a running `arcalis worker` process.
type worker struct {
	cmd    *exec.Cmd
	in     io.WriteCloser // its stdin, written by feedJobs only
	feed   chan []byte    // what send queued for feedJobs
	closed sync.Once      // closes feed
	pipe   *os.File       // its stdout
	out    *bufio.Reader  // reads pipe
	stderr *tailBuffer
}

// startWorker starts a worker and waits until its model is open.
func startWorker(ctx context.Context, opt runOptions) (*worker, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("run: finding the arcalis executable for the workers: %w", err)
	}
	args := []string{"worker", "--mem-latency", strconv.Itoa(opt.latency), "--seed", strconv.FormatInt(opt.seed, 10),
		"--cap-lines", strconv.Itoa(opt.CapLines), "--offset", strconv.Itoa(opt.Offset), "--wave", opt.WaveDir, "--model", opt.model,
		"--sim-thread=" + strconv.FormatBool(opt.pipe), "--total", strconv.Itoa(opt.total), "--config", opt.config, "--shard", opt.shard}
	w := &worker{cmd: exec.Command(exe, args...), stderr: &tailBuffer{max: 4096}}
	w.cmd.Stderr = w.stderr
	if w.in, err = w.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	// A pipe of our own: its read end takes deadlines (the per-vector timeout).
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	w.cmd.Stdout = pw
	err = w.cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, fmt.Errorf("run: starting a worker (%s): %w", exe, err)
	}
	w.pipe, w.out = pr, bufio.NewReaderSize(pr, 1<<20)
	w.feed = make(chan []byte, workerWindow)
	go w.feedJobs()
	stop := context.AfterFunc(ctx, func() { pr.SetReadDeadline(time.Now()) })
	defer stop()
	pr.SetReadDeadline(time.Now().Add(time.Minute))
	line, err := w.out.ReadBytes('\n')
	switch {
	case err == nil && string(line) == "READY\n":
		return w, nil
	case ctx.Err() != nil:
		w.kill()
		return nil, ctx.Err()
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.kill()
		return nil, fmt.Errorf("run: a worker did not open its model within a minute: %s", w.stderr.last())
	}
	w.kill()
	return nil, fmt.Errorf("run: a worker failed to start: %s", w.stderr.last())
}

// finish closes the worker's input so that it exits once it has run what
// it was sent, and kills it if it has not within a few seconds.
func (w *worker) finish() {
	w.endFeed()
	t := time.AfterFunc(5*time.Second, func() { w.cmd.Process.Kill() })
	w.cmd.Wait()
	t.Stop()
	w.pipe.Close()
}

// kill ends the worker and waits for it.
func (w *worker) kill() {
	w.cmd.Process.Kill()
	w.endFeed()
	w.cmd.Wait()
	w.pipe.Close()
}

// send queues jobs for the worker's stdin. It does not wait for the worker
// to read them: a worker may stop reading, because it hangs or because
// its results wait for its supervisor, which must then be reading them.
func (w *worker) send(jobs []workerJob) {
	n := 0
	for _, j := range jobs {
		n += 4 + frameLen(j)
	}
	b := make([]byte, 0, n)
	for _, j := range jobs {
		b = appendJob(b, j)
	}
	w.feed <- b // never full: a worker has at most workerWindow jobs queued
}

// feedJobs writes what send queues to the worker's stdin, which it closes
// once the feed ends. Once a write fails (the worker is gone) it drops the
// rest.
func (w *worker) feedJobs() {
	defer w.in.Close()
	for b := range w.feed {
		if _, err := w.in.Write(b); err != nil {
			for range w.feed {
			}
		}
	}
}

func (w *worker) endFeed() { w.closed.Do(func() { close(w.feed) }) }

// next waits up to timeout for the worker's next result. A worker that dies
// or times out is killed; the error says what happened to it.
func (w *worker) next(ctx context.Context, timeout time.Duration, full bool) (workerReply, error) {
	stop := context.AfterFunc(ctx, func() { w.pipe.SetReadDeadline(time.Now()) })
	defer stop()
	w.pipe.SetReadDeadline(time.Now().Add(timeout))
	line, err := w.out.ReadBytes('\n')
	switch {
	case ctx.Err() != nil:
		w.kill()
		return workerReply{}, ctx.Err()
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.kill()
		return workerReply{}, fmt.Errorf("TIMEOUT: no result within %s; worker killed", timeout)
	case err != nil:
		return w.died()
	}
	rep, err := parseReply(line, full)
	if err != nil {
		w.kill()
		return rep, fmt.Errorf("CRASH: worker sent %.120q instead of a result (%v)", line, err)
	}
	return rep, nil
}

func (w *worker) died() (workerReply, error) {
	w.endFeed()
	err := w.cmd.Wait()
	w.pipe.Close()
	if err == nil {
		err = errors.New("exit status 0")
	}
	return workerReply{}, fmt.Errorf("CRASH: worker process ended (%v)", err)
}

// workerWindow is how many vectors a worker has queued at once, so that
// it never waits for the next one and the pipes carry them in large
// writes: a small request simulates in about as long as a pipe's write and
// wake-up take.
const workerWindow = 256

// dispenser hands out the positions of the jobs still to run, first those
// handed back by a worker that died.
type dispenser struct {
	mu    sync.Mutex
	next  int
	n     int
	retry []int
}

func (d *dispenser) take() (int, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.retry) > 0 {
		pos := d.retry[0]
		d.retry = d.retry[1:]
		return pos, true
	}
	if d.next < d.n {
		d.next++
		return d.next - 1, true
	}
	return 0, false
}

func (d *dispenser) giveBack(pos []int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.retry = append(d.retry, pos...)
}

// runWorkers runs the jobs in n worker processes supervised by an errgroup
// and returns the simulated cycles. Each worker has up to workerWindow
// vectors queued and answers them in order. When a worker crashes or gives
// no result for timeout, the vector it was running is reported as CRASH or
// TIMEOUT, the ones queued behind it go back to the others, and a new worker
// takes over; a worker that cannot start at all stops the run.
func runWorkers(ctx context.Context, sel []job, opt runOptions, n int, timeout time.Duration, full bool, emit func(int, vectorResult, []byte)) (uint64, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if abs, err := filepath.Abs(opt.model); err == nil {
		opt.model = abs
	}
	var mu sync.Mutex // emit and cycles
	var cycles uint64
	report := func(pos int, res vectorResult, line []byte, cyc uint64) {
		mu.Lock()
		defer mu.Unlock()
		cycles += cyc
		emit(pos, res, line)
	}
	jobs := &dispenser{n: len(sel)}
	g, ctx := errgroup.WithContext(ctx)
	for range min(n, len(sel)) {
		g.Go(func() error {
			var w *worker
			var queued []int // positions sent to w, oldest first
			defer func() {
				if w != nil {
					w.finish()
				}
			}()
			for {
				// Top the worker up to workerWindow once half its queue is
				// done, in one write: topping it up a job at a time would
				// cost a write and a wake-up on each side for every vector.
				var batch []workerJob
				for low := len(queued) <= workerWindow/2; low && len(queued) < workerWindow; {
					pos, ok := jobs.take()
					if !ok {
						break
					}
					j := sel[pos]
					batch = append(batch, workerJob{j.index, j.rec.Index, j.file, j.rec.Source, j.rec.Msg})
					queued = append(queued, pos)
				}
				if len(batch) > 0 {
					if w == nil {
						var err error
						if w, err = startWorker(ctx, opt); err != nil {
							return err
						}
					}
					w.send(batch) // if the worker died, next reports it
				}
				if len(queued) == 0 {
					return nil
				}
				rep, err := w.next(ctx, timeout, full)
				if ctx.Err() != nil {
					return ctx.Err()
				}
				pos := queued[0]
				if err != nil {
					report(pos, lostVector(sel[pos], opt, err, w.stderr.last()), nil, 0)
					jobs.giveBack(queued[1:])
					w, queued = nil, nil // killed; a new worker takes the rest
					continue
				}
				if rep.Result.Index != sel[pos].index {
					return fmt.Errorf("run: a worker answered vector %d for vector %d", rep.Result.Index, sel[pos].index)
				}
				rep.Result.seconds = rep.Seconds
				report(pos, *rep.Result, rep.Line, rep.Cycles)
				queued = queued[1:]
			}
		})
	}
	err := g.Wait()
	return cycles, err
}

// lostVector is the result of a vector whose worker crashed or hung.
func lostVector(j job, opt runOptions, err error, stderr string) vectorResult {
	status, _, _ := strings.Cut(err.Error(), ":")
	if status != "CRASH" && status != "TIMEOUT" {
		status = "CRASH"
	}
	img := make([]byte, capFor(opt.CapLines, j.rec.Msg)*tb.LineSize)
	ref := golden.Deserialize(j.rec.Msg, img)
	res := vectorResult{
		Index: j.index, File: j.file, Record: j.rec.Index, Source: j.rec.Source, Status: status,
		Expected: statusName(ref.Code), Offset: opt.Offset, Diffs: []string{err.Error()},
		Total: opt.total, Config: opt.config, Shard: opt.shard,
	}
	if res.Offset < 0 {
		res.Offset = j.index % tb.LineSize
	}
	if stderr != "" {
		res.Diffs = append(res.Diffs, "worker stderr: "+stderr)
	}
	res.Replay = replayLine(j.rec.Index, res.Offset, j.index, j.file, opt)
	return res
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// last is the buffer's last few lines on one line.
func (t *tailBuffer) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}

// ---- Results ----

// describe turns a run into its JSON line: the RTL's own outputs, and whether
// they match the reference.
func describe(index int, file string, record int, r tb.Run, opt runOptions) vectorResult {
	res := vectorResult{
		Index: index, File: file, Record: record, Source: r.Source, Match: r.OK(),
		Offset: r.Offset, Cycles: r.Outcome.Cycles, Diffs: r.Verdict.Diffs, Wave: r.Wave,
		Total: opt.total, Config: opt.config, Shard: opt.shard,
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
		res.Replay = replayLine(record, r.Offset, index, file, opt)
	}
	return res
}

// replayLine is the command that runs one vector alone exactly as it ran:
// same start offset, memory, capacity, and the memory seed RunVector derived
// from the run's seed and the vector's index.
func replayLine(record, offset, index int, file string, opt runOptions) string {
	wave := opt.WaveDir
	if wave == "" {
		wave = "waves"
	}
	capLines := ""
	if opt.CapLines != 0 {
		capLines = fmt.Sprintf(" --cap-lines %d", opt.CapLines)
	}
	return fmt.Sprintf("arcalis run --record %d --offset %d --mem-latency %d%s --seed %d --wave %s %s",
		record, offset, opt.latency, capLines, opt.seed+int64(index), wave, file)
}

// capFor is the App.Recv capacity a message ran with: --cap-lines, or by
// default just enough for its value (tb.TightCapLines).
func capFor(capLines int, msg []byte) int {
	if capLines == 0 {
		return tb.TightCapLines(len(msg))
	}
	return capLines
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
	if elapsed > 0 {
		fmt.Fprintf(w, "%d vectors, %d simulated cycles in %s (%.0f vectors/s, %.2f Mcycles/s)\n",
			len(results), cycles, elapsed.Round(time.Millisecond),
			float64(len(results))/elapsed.Seconds(), float64(cycles)/elapsed.Seconds()/1e6)
	} else {
		fmt.Fprintf(w, "%d vectors\n", len(results))
	}
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
