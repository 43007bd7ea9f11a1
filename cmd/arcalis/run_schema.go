package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"arcalis/golden/schemagold"
	"arcalis/regress"
	"arcalis/serve/schemasvc"
	"arcalis/tb"
	"arcalis/tb/schemacase"
	"arcalis/tb/schemarx"
	"arcalis/thriftidl"
	"arcalis/thriftidl/schema"
)

// schemaRefused are run's flags that --service refuses, and why: the
// generic recvFunction runs alone, without the FLR's memory and Net.Recv.
var schemaRefused = []struct{ flag, why string }{
	{"mem-latency", "recv_header and recv_schema run without the memory model"},
	{"seed", "recv_header and recv_schema run without the memory model"},
	{"offset", "recv_header and recv_schema run without Net.Recv's lines"},
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
	HdrCycles  int             `json:"header_cycles"`
	Diffs      []string        `json:"diffs,omitempty"`
	Wave       string          `json:"wave,omitempty"`
	Replay     string          `json:"replay,omitempty"`
	Total      int             `json:"total"`
	Config     string          `json:"config"`
	Shard      string          `json:"shard,omitempty"`
}

// schemaSetup is what a `run --service` engine opens with, in this process
// or, as its setup line, in a worker of --jobs.
type schemaSetup struct {
	Service  string
	Root     string // the checkout, whose idl/ holds the service's IDL
	Lib      string // the service's schema_pair model
	Capacity int    // App.Recv's, in bytes
	CapSet   bool   // --cap-lines was given: the replay line repeats it
	WaveDir  string
	RunID    string
	Model    string // --model, for the replay line; "" the checkout's
	Total    int
	Config   string
	Shard    string
}

// schemaRun is one `run --service`: its setup, the service's tables and,
// in the process that checks vectors, its model and images.
type schemaRun struct {
	schemaSetup
	sc       schemarx.Case
	js       *schemagold.JSONSchema
	table    *schema.Table
	rx       *schemarx.RecvModel // schema_rx: recv_header, then recv_schema
	rtl, ref []byte              // App.Recv images, the capacity long
}

// serviceKind is the kind of run of `run --service` as its workers know
// it: runSchemaVectors adds the coordinator's part.
var serviceKind = regress.Kind{Name: "service", Open: openSchemaRun}

// runSchemaVectors is `arcalis run --service NAME`: each record received
// by rtl/generic/schema_rx.sv in schema_pair's model (the header checked
// by recv_header, then the args walked by the generic recvFunction,
// recv_schema) and compared with schemagold.CheckHeader and Deserialize
// (schemarx.CheckMessage), in this process or in --jobs workers.
func runSchemaVectors(c *cli.Context, files []string) error {
	name := c.String("service")
	sc, err := schemasvc.PairCase(name)
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
	pool, err := runPool(c)
	if err != nil {
		return err
	}
	opt := regress.Options{Record: c.Int("record"), RunOptions: tb.RunOptions{CapLines: capacity / 64}}
	if opt.Shard, opt.Shards, err = runShard(c); err != nil {
		return err
	}
	// The vector files first: a damaged one is an input error before any build.
	plan, err := regress.Load(files, opt)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	root, _, err := schemaTables("run", sc)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte("service=" + name + " " + plan.Config))
	s := schemaSetup{
		Service: name, Root: root, Capacity: capacity, CapSet: c.IsSet("cap-lines"),
		WaveDir: c.String("wave"), RunID: c.String("run-id"), Model: c.String("model"),
		Total: plan.Total, Config: hex.EncodeToString(sum[:])[:16], Shard: plan.Shard,
	}
	if s.RunID == "" {
		s.RunID = regress.NewRunID() // one for every worker's waveforms
	}
	// The coordinator's run, without a model: it describes lost vectors.
	run, err := loadSchemaRun(s)
	if err != nil {
		return fmt.Errorf("run --service %s: %w", name, err)
	}
	if s.Lib, err = schemaModel(c, "run", sc, root); err != nil {
		return err
	}
	k := serviceKind
	k.Setup, k.Lost = s, run.lost
	return printRun(c, "run --service "+name, len(plan.Vectors), func(emit func(regress.Result, []byte)) (regress.Stats, error) {
		return regress.RunKind(c.Context, plan, k, pool, emit)
	})
}

// loadSchemaRun reads what s's run needs besides the model: the service's
// tables and JSON schema, from the checkout's IDL.
func loadSchemaRun(s schemaSetup) (*schemaRun, error) {
	sc, err := schemasvc.Lookup(s.Service)
	if err != nil {
		return nil, err
	}
	table, err := sc.Table(s.Root)
	if err != nil {
		return nil, err
	}
	prog, err := thriftidl.Load(filepath.Join(s.Root, sc.IDL))
	if err != nil {
		return nil, err
	}
	js, err := schemagold.NewJSONSchema(prog, s.Service, table)
	if err != nil {
		return nil, err
	}
	return &schemaRun{schemaSetup: s, sc: sc, js: js, table: table}, nil
}

// openSchemaRun is serviceKind's Open: the run of the setup with its
// model open and reset.
func openSchemaRun(setup []byte) (regress.Engine, error) {
	var s schemaSetup
	if err := json.Unmarshal(setup, &s); err != nil {
		return nil, fmt.Errorf("the run's setup: %w", err)
	}
	run, err := loadSchemaRun(s)
	if err != nil {
		return nil, err
	}
	// The model belongs to this goroutine's OS thread (vpi.Open locks it):
	// the supervisor checks and closes on it.
	sim, err := schemacase.Open(s.Lib, schemacase.PairTop+"clk_i", run.sc.Width)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", s.Lib, err)
	}
	run.rx, err = schemarx.OnSimRecv(sim, schemacase.PairTop, schemacase.PairRx)
	if err == nil {
		err = run.rx.Reset()
	}
	if err != nil {
		sim.Close()
		return nil, fmt.Errorf("model %s: %w", s.Lib, err)
	}
	run.rtl, run.ref = make([]byte, s.Capacity), make([]byte, s.Capacity)
	return run, nil
}

// Check is the Engine's: v's line and the Result it reads as.
func (s *schemaRun) Check(v regress.Vector) (regress.Checked, error) {
	l, err := s.check(v)
	if err != nil {
		return regress.Checked{}, err
	}
	return l.checked()
}

func (s *schemaRun) Close() { s.rx.Close() }

// lost is serviceKind's Lost: v's line when its worker crashed or hung,
// with the reference's code and the line that replays it in one process.
func (s *schemaRun) lost(v regress.Vector, status string, diffs []string) (regress.Checked, error) {
	l := s.line(v)
	l.Status, l.Diffs, l.Replay = status, diffs, s.replay(v)
	ref := schemagold.Deserialize(s.table, v.Rec.Msg, make([]byte, s.Capacity))
	l.Expected, l.Expect = statusOf(ref.Code), ref.Offset
	return l.checked()
}

// line is v's line before it runs: what names it and the run's stamps.
func (s *schemaRun) line(v regress.Vector) schemaLine {
	return schemaLine{Index: v.Index, File: v.File, Record: v.Rec.Index, Source: v.Rec.Source, Service: s.Service,
		Total: s.Total, Config: s.Config, Shard: s.Shard}
}

// checked is l as the run's outcome: the line, and the Result it reads
// as, which is what the coordinator reads of a worker's line.
func (l schemaLine) checked() (regress.Checked, error) {
	b, err := json.Marshal(l)
	if err != nil {
		return regress.Checked{}, err
	}
	r, err := regress.ParseResult(b)
	if err != nil {
		return regress.Checked{}, err
	}
	return regress.Checked{Result: r, Line: b, Cycles: uint64(l.Cycles)}, nil
}

// check runs one vector and describes it. Its error is the simulator's or
// the reference's: the run cannot go on.
func (s *schemaRun) check(v regress.Vector) (schemaLine, error) {
	l := s.line(v)
	ck := schemarx.CheckMessage(s.rx, s.table, v.Rec.Msg, s.rtl, s.ref)
	if ck.Err != nil && !schemarx.IsMismatch(ck.Err) {
		return l, ck.Err
	}
	l.Expected, l.Expect = statusOf(ck.Ref.Code), ck.Ref.Offset
	hdr, dr := ck.Header, ck.Driven
	// The line's result is the last unit's that ran: recv_schema's if it
	// walked the args (Head is past the header, at least 12 bytes), else
	// recv_header's. Its cycles run from schema_rx's start_i to its done_o
	// (recv_header's done_o when the header was refused).
	walked := dr.Head != 0
	got, ended := hdr.Result, hdr.Cycles > 0
	l.HdrCycles, l.Cycles = hdr.Cycles, hdr.Cycles
	if walked {
		got, ended = dr.Result, dr.Result != (schemagold.Result{})
		l.Cycles = dr.Cycles
	}
	l.HeaderOnly = ck.HeaderOnly
	l.Method, l.SeqID, l.Offset = s.methodName(got.Method), got.SeqID, got.Offset
	l.Match = ck.Err == nil
	switch {
	case ck.Err == nil || ended:
		l.Status = statusOf(got.Code)
	case strings.Contains(ck.Err.Error(), "hang: "):
		l.Status = "HANG"
	default:
		l.Status = "PROTOCOL_VIOLATION" // a take or store the module must not make
	}
	if walked && ended && got.Code == schemagold.CodeOK {
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
	// The units may be mid-message: reset them, and replay the vector
	// traced for its waveform.
	if err := s.rx.Reset(); err != nil {
		return l, err
	}
	if s.WaveDir != "" {
		path := filepath.Join(s.WaveDir, regress.WaveName(v.File, v.Rec.Index, v.Index, s.RunID))
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
	if err := s.rx.TraceOn(path); err != nil {
		return err
	}
	if err := s.rx.Reset(); err != nil { // in the trace too
		return err
	}
	ck := schemarx.CheckMessage(s.rx, s.table, v.Rec.Msg, s.rtl, s.ref)
	if err := s.rx.TraceOff(); err != nil {
		return err
	}
	if ck.Err != nil && !schemarx.IsMismatch(ck.Err) {
		return ck.Err
	}
	return s.rx.Reset()
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
	fmt.Fprintf(&b, "arcalis run --service %s --record %d", s.Service, v.Rec.Index)
	if s.CapSet {
		fmt.Fprintf(&b, " --cap-lines %d", s.Capacity/64)
	}
	if s.Model != "" {
		b.WriteString(" --model " + quoteArg(s.Model))
	}
	wave := s.WaveDir
	if wave == "" {
		wave = "waves"
	}
	fmt.Fprintf(&b, " --wave %s %s", quoteArg(wave), quoteArg(v.File))
	return b.String()
}

// diffLines splits a comparison's message into run's difference lines: one
// per port of recv_header's result or field of the header line that
// differs.
func diffLines(msg string) []string {
	for _, p := range []struct{ prefix, line string }{
		{"header line differs: ", "header line "},
		{"recv_header: ", "recv_header "},
	} {
		if rest, ok := strings.CutPrefix(msg, p.prefix); ok {
			var out []string
			for _, f := range strings.Split(rest, "; ") {
				out = append(out, p.line+f)
			}
			return out
		}
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
