package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"arcalis/golden/schemagold"
	"arcalis/regress"
	"arcalis/serve/schemasvc"
	"arcalis/tb"
	"arcalis/tb/schemarx"
	"arcalis/thriftidl"
	"arcalis/thriftidl/schema"
)

// schemaRefused are run's flags that --service refuses, and why: the
// generic recvFunction runs alone, without the FLR's memory and Net.Recv,
// and in this one process.
var schemaRefused = []struct{ flag, why string }{
	{"mem-latency", "recv_schema runs without the memory model"},
	{"seed", "recv_schema runs without the memory model"},
	{"offset", "recv_schema runs without Net.Recv's lines"},
	{"jobs", "a --service run is one process with one model"},
	{"shard", "a --service run is one process with one model"},
	{"timeout", "it is for the workers of --jobs"},
}

// schemaLine is the --json line of one vector of `run --service`: the
// fields of a Memcached run's line that apply (regress.Result), with the
// generic recvFunction's values, and its own.
type schemaLine struct {
	Index      int             `json:"index"`
	File       string          `json:"file"`
	Record     int             `json:"record"`
	Source     string          `json:"source"`
	Service    string          `json:"service"`
	Status     string          `json:"status"`
	Match      bool            `json:"match"`
	Expected   string          `json:"expected"`
	HeaderOnly bool            `json:"header_only,omitempty"`
	Method     string          `json:"method"`
	SeqID      int32           `json:"seqid"`
	Offset     uint32          `json:"offset"`
	Expect     uint32          `json:"expected_offset"`
	Args       json.RawMessage `json:"args,omitempty"`
	ArgsError  string          `json:"args_error,omitempty"`
	Cycles     int             `json:"cycles"`
	Diffs      []string        `json:"diffs,omitempty"`
	Wave       string          `json:"wave,omitempty"`
	Replay     string          `json:"replay,omitempty"`
	Total      int             `json:"total"`
	Config     string          `json:"config"`
}

// schemaRun is one `run --service`: the service, its model and images.
type schemaRun struct {
	name     string
	js       *schemagold.JSONSchema
	dut      schemarx.DUT
	sc       schemarx.Case
	table    *schema.Table
	rtl, ref []byte // App.Recv images, the capacity long
	capSet   bool   // --cap-lines was given: the replay line repeats it
	waveDir  string
	runID    string
	model    string // --model, for the replay line; "" the checkout's
	total    int
	config   string
}

// runSchemaVectors is `arcalis run --service NAME`: each record's args
// walked by the generic recvFunction (rtl/generic/recv_schema.sv) with
// schemarx.Drive and compared with schemagold.Deserialize
// (schemarx.CheckDrive).
func runSchemaVectors(c *cli.Context, files []string) error {
	name := c.String("service")
	sc, err := schemasvc.Lookup(name)
	if err != nil {
		return fmt.Errorf("run: --service: %v", err)
	}
	for _, r := range schemaRefused {
		if c.IsSet(r.flag) {
			return fmt.Errorf("run: --%s does not apply with --service %s: %s", r.flag, name, r.why)
		}
	}
	capacity := schemarx.MaxCap
	if c.IsSet("cap-lines") {
		n, most := c.Int("cap-lines"), schemarx.MaxCap/64
		if n < schemagold.MinCapacity/64 || n > most {
			return fmt.Errorf("run: --cap-lines %d: want %d..%d with --service", n, schemagold.MinCapacity/64, most)
		}
		capacity = n * 64
	}
	// The vector files first: a damaged one is an input error before any build.
	plan, err := regress.Load(files, regress.Options{Record: c.Int("record"), RunOptions: tb.RunOptions{CapLines: capacity / 64}})
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	root, table, err := schemaTables("run", sc)
	if err != nil {
		return err
	}
	prog, err := thriftidl.Load(filepath.Join(root, sc.IDL))
	if err != nil {
		return fmt.Errorf("run --service %s: %w", name, err)
	}
	js, err := schemagold.NewJSONSchema(prog, name, table)
	if err != nil {
		return fmt.Errorf("run --service %s: %w", name, err)
	}
	lib, err := schemaModel(c, "run", sc, root)
	if err != nil {
		return err
	}
	// The model belongs to this goroutine's OS thread (vpi.Open locks it).
	model, err := schemarx.OpenModel(lib, sc.Width)
	if err != nil {
		return fmt.Errorf("run --service %s: model %s: %w", name, lib, err)
	}
	defer model.Close()
	if err := model.Reset(); err != nil {
		return fmt.Errorf("run --service %s: %w", name, err)
	}
	sum := sha256.Sum256([]byte("service=" + name + " " + plan.Config))
	s := &schemaRun{
		name: name, js: js, table: table, dut: model, sc: sc, rtl: make([]byte, capacity), ref: make([]byte, capacity),
		capSet: c.IsSet("cap-lines"), waveDir: c.String("wave"), runID: c.String("run-id"), model: c.String("model"),
		total: plan.Total, config: hex.EncodeToString(sum[:])[:16],
	}
	if s.runID == "" {
		s.runID = regress.NewRunID()
	}

	asJSON := c.Bool("json")
	out, diag := c.App.Writer, c.App.ErrWriter
	progress := newTicker(diag, "run")
	results := make([]regress.Result, 0, len(plan.Vectors))
	var cycles uint64
	for i, v := range plan.Vectors {
		line, err := s.check(v)
		if err != nil {
			return fmt.Errorf("run --service %s: %s record %d: %w", name, v.File, v.Rec.Index, err)
		}
		cycles += uint64(line.Cycles)
		res := regress.Result{Index: line.Index, File: line.File, Record: line.Record, Source: line.Source,
			Status: line.Status, Match: line.Match, Expected: line.Expected, Diffs: line.Diffs, Wave: line.Wave, Replay: line.Replay}
		results = append(results, res)
		if asJSON {
			b, err := json.Marshal(line)
			if err != nil {
				return fmt.Errorf("run: %w", err)
			}
			out.Write(append(b, '\n'))
		} else if !line.Match {
			printFailure(out, res)
		}
		progress.maybe("%d/%d vectors", i+1, len(plan.Vectors))
	}
	summary := out
	if asJSON {
		summary = diag // stdout holds JSON lines only
	}
	failed := summarize(summary, results, cycles, time.Since(progress.start))
	if f := c.String("junit"); f != "" {
		if err := regress.WriteJUnit(f, results); err != nil {
			return fmt.Errorf("run: %w", err)
		}
	}
	if failed > 0 {
		return findingsf("%d of %d vectors: RTL and reference disagree", failed, len(results))
	}
	return nil
}

// check runs one vector and describes it. Its error is the simulator's or
// the reference's: the run cannot go on.
func (s *schemaRun) check(v regress.Vector) (schemaLine, error) {
	l := schemaLine{Index: v.Index, File: v.File, Record: v.Rec.Index, Source: v.Rec.Source, Service: s.name,
		Total: s.total, Config: s.config}
	ck := schemarx.CheckDrive(s.dut, s.table, v.Rec.Msg, s.rtl, s.ref)
	if ck.Err != nil && !schemarx.IsMismatch(ck.Err) {
		return l, ck.Err
	}
	l.Expected, l.Expect = statusOf(ck.Ref.Code), ck.Ref.Offset
	if ck.HeaderOnly {
		// The header step is software's, the reference's: the RTL has
		// nothing to walk, so its code is the result.
		l.HeaderOnly, l.Match, l.Status, l.Offset, l.SeqID = true, true, l.Expected, ck.Ref.Offset, ck.Ref.SeqID
		l.Method = s.methodName(ck.Ref.Method)
		return l, nil
	}
	got := ck.Driven.Result
	l.Method, l.SeqID, l.Offset, l.Cycles = s.methodName(got.Method), got.SeqID, got.Offset, ck.Driven.Cycles
	l.Match = ck.Err == nil
	switch {
	case ck.Err == nil || ck.Driven.Result != (schemagold.Result{}):
		l.Status = statusOf(got.Code)
	case strings.HasPrefix(ck.Err.Error(), "hang:"):
		l.Status = "HANG"
	default:
		l.Status = "PROTOCOL_VIOLATION" // a take or store the module must not make
	}
	if ck.Driven.Result != (schemagold.Result{}) && got.Code == schemagold.CodeOK {
		// The args as the RTL's image holds them, not as the message does.
		if a, err := s.js.ArgsJSON(s.rtl); err != nil {
			l.ArgsError = err.Error()
		} else {
			l.Args = json.RawMessage(a)
		}
	}
	if l.Match {
		return l, nil
	}
	l.Diffs = diffLines(ck.Err.Error())
	if strings.HasPrefix(ck.Err.Error(), "image byte ") {
		// Name the argument behind the byte.
		if d := schemarx.ArgsDiff(s.table, s.rtl, s.ref); d != "" {
			l.Diffs = append(l.Diffs, "read back: "+d)
		}
	}
	l.Replay = s.replay(v)
	// The module may be mid-message: reset it, and replay the vector
	// traced for its waveform.
	if err := s.dut.Reset(); err != nil {
		return l, err
	}
	if s.waveDir != "" {
		path := filepath.Join(s.waveDir, regress.WaveName(v.File, v.Rec.Index, v.Index, s.runID))
		if err := s.traced(v, path); err != nil {
			return l, err
		}
		l.Wave = path
	}
	return l, nil
}

// traced runs v again from reset with an FST trace into path, then resets
// the model.
func (s *schemaRun) traced(v regress.Vector, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := s.dut.TraceOn(path); err != nil {
		return err
	}
	if err := s.dut.Reset(); err != nil { // in the trace too
		return err
	}
	ck := schemarx.CheckDrive(s.dut, s.table, v.Rec.Msg, s.rtl, s.ref)
	if err := s.dut.TraceOff(); err != nil {
		return err
	}
	if ck.Err != nil && !schemarx.IsMismatch(ck.Err) {
		return ck.Err
	}
	return s.dut.Reset()
}

// methodName is the name of the method the header's method byte names.
func (s *schemaRun) methodName(m uint8) string {
	if m == 0 || int(m) > len(s.table.Methods) {
		return ""
	}
	return s.table.Methods[m-1].Name
}

// replay is the command that runs v alone as it ran.
func (s *schemaRun) replay(v regress.Vector) string {
	var b strings.Builder
	fmt.Fprintf(&b, "arcalis run --service %s --record %d", s.name, v.Rec.Index)
	if s.capSet {
		fmt.Fprintf(&b, " --cap-lines %d", len(s.rtl)/64)
	}
	if s.model != "" {
		b.WriteString(" --model " + quoteArg(s.model))
	}
	wave := s.waveDir
	if wave == "" {
		wave = "waves"
	}
	fmt.Fprintf(&b, " --wave %s %s", quoteArg(wave), quoteArg(v.File))
	return b.String()
}

// diffLines splits a comparison's message into run's difference lines: one
// per field of the header line that differs.
func diffLines(msg string) []string {
	const hdr = "header line differs: "
	if rest, ok := strings.CutPrefix(msg, hdr); ok {
		var out []string
		for _, f := range strings.Split(rest, "; ") {
			out = append(out, "header line "+f)
		}
		return out
	}
	return []string{msg}
}

// statusOf names a code as run does: "ok" for OK, else the code's name.
func statusOf(c schemagold.Code) string {
	if c == schemagold.CodeOK {
		return "ok"
	}
	return c.String()
}

// quoteArg quotes s for a POSIX shell if it needs it.
func quoteArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:+,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
