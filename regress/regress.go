// Package regress runs vector files through the Verilated accelerator and the
// Go reference, in this process or in worker processes, and merges shards.
package regress

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/golden"
	"arcalis/internal/memcached"
	"arcalis/tb"
	"arcalis/vectors"
)

// Options say how a regression runs. The zero value of every field but
// Model is usable; Offset -1 places each vector at its index mod 64.
type Options struct {
	tb.RunOptions        // start offset, App.Recv capacity, waveform directory
	Latency       int    // memory latency in cycles
	Seed          int64  // seed of the memory model's random choices
	Record        int    // run only this record of each file; -1: all
	Model         string // the Verilated model library

	Pool // worker processes

	Shard, Shards int // run shard Shard of Shards (1-based); 0/0: the whole run

	// RunID names this run in waveform file names (see WaveName); "" picks
	// one from the time and a random number.
	RunID string
	// ReplayModel, if set, is passed as --model in replay commands: the
	// model named explicitly, which a replay would not find by default.
	ReplayModel string
}

// Result is one vector's line of `arcalis run --json`.
type Result struct {
	Index       int    `json:"index"`
	File        string `json:"file"`
	Record      int    `json:"record"`
	Source      string `json:"source"`
	Service     string `json:"service,omitempty"` // another engine's line (run --service): its service
	Status      string `json:"status"`
	Match       bool   `json:"match"`
	Expected    string `json:"expected"` // the reference's status
	Method      string `json:"method"`
	SeqID       int32  `json:"seqid"`
	ReqID       int64  `json:"req_id"`
	KeyHex      string `json:"key_hex"`
	ValueLen    uint32 `json:"value_len"`
	ValueSHA256 string `json:"value_sha256"`
	Flags       int32  `json:"flags"`
	Exptime     int32  `json:"exptime"`
	// Args is the argument struct read back from the App.Recv image the RTL
	// wrote, as Apache Thrift's TSimpleJSONProtocol writes it (field names
	// as keys, binary as base64); absent unless the result is OK.
	Args        json.RawMessage `json:"args,omitempty"`
	ReplySHA256 string          `json:"reply_sha256,omitempty"` // the TxEngine's reply, if the engine replied
	ReplyMatch  *bool           `json:"reply_match,omitempty"`  // it is the recorded reply, or without one the reference's
	Cycles      uint64          `json:"cycles"`
	Offset      int             `json:"start_offset"`
	Diffs       []string        `json:"diffs,omitempty"`
	Wave        string          `json:"wave,omitempty"`
	Replay      string          `json:"replay,omitempty"`
	Total       int             `json:"total"`           // vectors in the whole (unsharded) run
	Config      string          `json:"config"`          // the run's fingerprint: options and vector files
	Shard       string          `json:"shard,omitempty"` // i/n, if this run was a shard

	seconds float64 // wall time of the vector (JUnit only: not reproducible)
	// line is the --json line ReadResults read, if it is another engine's
	// (it has a "service"): the result is that line, not Result's own.
	line []byte
}

// Vector is one vector of a run: its index in the whole run and its record.
type Vector struct {
	Index int
	File  string
	Rec   vectors.Record
	Reply []byte // the record's recorded reply hash (vectors.MetaReplySHA256), or nil
	// The recorded reply itself (vectors.MetaReply), or nil: the
	// application answers as the server did.
	ReplyMsg []byte
}

// Plan is a run read from its vector files: the vectors of this shard and
// what every result is stamped with.
type Plan struct {
	Vectors []Vector
	Total   int    // vectors in the whole run, all shards
	Config  string // fingerprint of the options and the files' contents
	Shard   string // "i/n", or "" for the whole run
}

// Load reads every vector file (a damaged one stops the run before any
// simulation) and selects the shard's vectors. Its errors are the input's.
func Load(files []string, opt Options) (*Plan, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no vector files")
	}
	shard, nshards := opt.Shard, opt.Shards
	if nshards == 0 && shard == 0 {
		shard, nshards = 1, 1
	}
	if nshards < 1 || shard < 1 || shard > nshards {
		return nil, fmt.Errorf("shard %d/%d: want i/n with 1 <= i <= n", shard, nshards)
	}
	var all []Vector
	sum := sha256.New()
	fmt.Fprintf(sum, "mem-latency=%d seed=%d cap-lines=%d offset=%d record=%d\n", opt.Latency, opt.Seed, opt.CapLines, opt.Offset, opt.Record)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(sum, "%s %x\n", f, sha256.Sum256(data))
		recs, err := vectors.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if opt.Record >= len(recs) {
			return nil, fmt.Errorf("%s: --record %d: the file has %d records", f, opt.Record, len(recs))
		}
		for _, r := range recs {
			if opt.Record < 0 || r.Index == opt.Record {
				sum, ok, err := r.ReplySHA256()
				if err != nil {
					return nil, fmt.Errorf("%s: %w", f, err)
				}
				msg, hasMsg, err := r.Reply()
				if err != nil {
					return nil, fmt.Errorf("%s: %w", f, err)
				}
				v := Vector{Index: len(all), File: f, Rec: r}
				if ok {
					v.Reply = sum[:]
				}
				if hasMsg {
					v.ReplyMsg = msg
				}
				all = append(all, v)
			}
		}
	}
	p := &Plan{Total: len(all), Config: hex.EncodeToString(sum.Sum(nil))[:16]}
	if nshards > 1 {
		p.Shard = fmt.Sprintf("%d/%d", shard, nshards)
	}
	for _, v := range all {
		if v.Index%nshards == shard-1 {
			p.Vectors = append(p.Vectors, v)
		}
	}
	return p, nil
}

// ParseShard reads "i/n" (1 <= i <= n); "" is the whole run, 1/1.
func ParseShard(s string) (i, n int, err error) {
	if s == "" {
		return 1, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n with 1 <= i <= n, e.g. 2/4", s)
	}
	return i, n, nil
}

// NewRunID is a run's name for its waveform files: the UTC time to the
// second and a random suffix, so that runs started together differ.
func NewRunID() string {
	var b [3]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// WaveName is the file name of a failing vector's waveform:
// <vector file base>-r<record>-v<index in the run>-<run id>.fst. The index
// tells apart the same file given twice; the run id, two runs.
func WaveName(file string, record, index int, runID string) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	return fmt.Sprintf("%s-r%d-v%d-%s.fst", base, record, index, runID)
}

// Stats is what a run leaves besides the results it emitted.
type Stats struct {
	Results []Result // in input order
	Cycles  uint64   // simulated, commands included
}

// setup is what running a vector and describing its result need besides
// the vector: the options and the run's stamps. The engine opens with it,
// in a worker as the first line of its input.
type setup struct {
	Offset      int
	CapLines    int
	WaveDir     string
	Latency     int
	Seed        int64
	Model       string
	RunID       string
	ReplayModel string
	Total       int
	Config      string
	Shard       string
}

func (s *setup) runOptions() tb.RunOptions {
	return tb.RunOptions{Offset: s.Offset, CapLines: s.CapLines, WaveDir: s.WaveDir}
}

// memcachedKind is the Memcached engine's kind of run, as a worker knows
// it; Run adds the coordinator's part.
var memcachedKind = Kind{Name: "memcached", Open: openEngine}

// Run runs the plan's vectors through the Memcached engine (RunKind).
// A vector that disagrees is a result, not an error: errors say the run
// itself could not be made (model, workers).
func Run(ctx context.Context, p *Plan, opt Options, emit func(r Result, line []byte)) (Stats, error) {
	if opt.RunID == "" {
		opt.RunID = NewRunID()
	}
	s := &setup{
		Offset: opt.Offset, CapLines: opt.CapLines, WaveDir: opt.WaveDir, Latency: opt.Latency, Seed: opt.Seed,
		Model: opt.Model, RunID: opt.RunID, ReplayModel: opt.ReplayModel,
		Total: p.Total, Config: p.Config, Shard: p.Shard,
	}
	// A worker's working directory is ours, but a path that does not
	// depend on it is one thing less to get wrong.
	if abs, err := filepath.Abs(s.Model); err == nil && s.Model != "" {
		s.Model = abs
	}
	k := memcachedKind
	k.Setup, k.Lost = s, s.lost
	return RunKind(ctx, p, k, opt.Pool, emit)
}

// testMemory, set only by this package's tests, changes the memory model's
// configuration (a faulty memory makes vectors fail, for their waveforms).
var testMemory func(*tb.MemConfig)

// accelEngine is the Memcached engine's Engine: the accelerator's model
// with its command window programmed.
type accelEngine struct {
	acc *tb.Accel
	s   setup
}

func openEngine(b []byte) (Engine, error) {
	e := &accelEngine{}
	if err := json.Unmarshal(b, &e.s); err != nil {
		return nil, fmt.Errorf("the run's setup: %w", err)
	}
	mem := tb.MemConfig{Latency: e.s.Latency, Seed: e.s.Seed}
	if testMemory != nil {
		testMemory(&mem)
	}
	var err error
	if e.acc, err = tb.OpenWindowed(e.s.Model, mem); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *accelEngine) Check(v Vector) (Checked, error) {
	cyc := e.acc.Cycle()
	res := runVector(e.acc, v, &e.s)
	return Checked{Result: res, Cycles: e.acc.Cycle() - cyc}, nil
}

func (e *accelEngine) Close() { e.acc.Close() }

// runVector runs one vector on acc and describes it; its recorded reply
// hash (vectors.MetaReplySHA256), if any, is checked, and its recorded
// reply (vectors.MetaReply), if any, is what the application answers.
func runVector(acc *tb.Accel, v Vector, s *setup) Result {
	ro := s.runOptions()
	ro.WaveName = WaveName(v.File, v.Rec.Index, v.Index, s.RunID)
	ro.RecordedReply = v.Reply
	if v.ReplyMsg != nil {
		ro.App = tb.ReplayApp(v.ReplyMsg)
	}
	r := acc.RunVector(v.Index, v.Rec.Source, v.Rec.Msg, ro)
	res := describe(v.Index, v.File, v.Rec.Index, r, s)
	res.replyFields(r)
	return res
}

// replyFields sets the reply fields of a vector the engine replied to, as
// the scoreboard judged the reply (tb.Verdict).
func (res *Result) replyFields(r tb.Run) {
	if r.Err != nil || r.Outcome.WrittenReply() == nil {
		return
	}
	res.ReplySHA256 = hex.EncodeToString(r.Verdict.ReplySHA256[:])
	match := r.Verdict.ReplyMatch
	res.ReplyMatch = &match
}

// lost is the result of a vector whose worker crashed or hung: the
// reference's status, and a replay line that runs it in one process.
func (s *setup) lost(v Vector, status string, diffs []string) (Checked, error) {
	img := make([]byte, capFor(s.CapLines, v.Rec.Msg)*tb.LineSize)
	ref := golden.Deserialize(v.Rec.Msg, img)
	res := Result{
		Index: v.Index, File: v.File, Record: v.Rec.Index, Source: v.Rec.Source, Status: status,
		Expected: statusName(ref.Code), Offset: s.Offset, Diffs: diffs,
		Total: s.Total, Config: s.Config, Shard: s.Shard,
	}
	if res.Offset < 0 {
		res.Offset = v.Index % tb.LineSize
	}
	res.Replay = replayLine(v.Rec.Index, res.Offset, v.Index, v.File, s)
	return Checked{Result: res}, nil
}

// describe turns a run into its JSON line: the RTL's own outputs, and whether
// they match the reference.
func describe(index int, file string, record int, r tb.Run, s *setup) Result {
	res := Result{
		Index: index, File: file, Record: record, Source: r.Source, Match: r.OK(),
		Offset: r.Offset, Cycles: r.Outcome.Cycles, Diffs: r.Verdict.Diffs, Wave: r.Wave,
		Total: s.Total, Config: s.Config, Shard: s.Shard,
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
	if r.Err == nil && golden.Code(r.Outcome.Status.Result()) == golden.CodeOK {
		res.Args = argsJSON(h, img)
	}
	if !res.Match {
		res.Replay = replayLine(record, r.Offset, index, file, s)
	}
	return res
}

// argsJSON is the method's argument struct as the application reads it
// from the App.Recv image (docs/abi.md section 6), written by Apache's
// TSimpleJSONProtocol; nil if the image does not hold one.
func argsJSON(h golden.Result, img []byte) json.RawMessage {
	k, v := int(h.KeyLen), int(h.ValueLen)
	if k > golden.KeyMax || golden.KeyOffset+k > len(img) || golden.ValueOffset+v > len(img) {
		return nil
	}
	key := img[golden.KeyOffset : golden.KeyOffset+k]
	var args thrift.TStruct
	switch h.Method {
	case golden.MethodSet:
		args = &memcached.MemcachedServiceSetArgs{ReqID: h.ReqID, Key: key,
			Value: img[golden.ValueOffset : golden.ValueOffset+v], Flags: h.Flags, Exptime: h.Exptime}
	case golden.MethodGet:
		args = &memcached.MemcachedServiceGetArgs{ReqID: h.ReqID, Key: key}
	default:
		return nil
	}
	buf := thrift.NewTMemoryBuffer()
	p := thrift.NewTSimpleJSONProtocolConf(buf, nil)
	if err := errors.Join(args.Write(context.Background(), p), p.Flush(context.Background())); err != nil {
		return nil
	}
	return json.RawMessage(bytes.Clone(buf.Bytes()))
}

// replayLine is the command that runs one vector alone exactly as it ran:
// same start offset, memory, capacity, model, and the memory seed RunVector
// derived from the run's seed and the vector's index.
func replayLine(record, offset, index int, file string, s *setup) string {
	wave := s.WaveDir
	if wave == "" {
		wave = "waves"
	}
	extra := ""
	if s.CapLines != 0 {
		extra = fmt.Sprintf(" --cap-lines %d", s.CapLines)
	}
	if s.ReplayModel != "" {
		extra += " --model " + shellQuote(s.ReplayModel)
	}
	return fmt.Sprintf("arcalis run --record %d --offset %d --mem-latency %d%s --seed %d --wave %s %s",
		record, offset, s.Latency, extra, s.Seed+int64(index), shellQuote(wave), shellQuote(file))
}

// shellQuote quotes s for a POSIX shell if it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:+,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// capFor is the App.Recv capacity a message ran with: capLines, or by
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

// Tally counts the results by status, sorted by name, and the failures.
func Tally(results []Result) (statuses []StatusCount, failed int) {
	by := map[string]int{}
	for _, r := range results {
		by[r.Status]++
		if !r.Match {
			failed++
		}
	}
	for s, n := range by {
		statuses = append(statuses, StatusCount{s, n})
	}
	sort.Slice(statuses, func(i, j int) bool { return statuses[i].Status < statuses[j].Status })
	return statuses, failed
}

// StatusCount is how many results had one status.
type StatusCount struct {
	Status string
	N      int
}

// MarshalLine is r's JSON line, without the newline.
func (r Result) MarshalLine() []byte {
	if r.line != nil {
		return r.line
	}
	b, _ := json.Marshal(r)
	return b
}

// ReplayLine is the command that runs record of file alone exactly as the
// index-th vector of a run with opt ran it (replayLine): for a caller that
// runs vectors itself, as `arcalis serve --check` does.
func ReplayLine(record, offset, index int, file string, opt Options) string {
	return replayLine(record, offset, index, file, optionsSetup(opt))
}

// Describe is run's result line as Run would emit it for the index-th vector,
// record of file, of a run with opt (describe), with a replay line if it
// failed.
func Describe(index int, file string, record int, run tb.Run, opt Options) Result {
	return describe(index, file, record, run, optionsSetup(opt))
}

// optionsSetup is the setup of a run with opt outside Run: no stamps.
func optionsSetup(opt Options) *setup {
	return &setup{Offset: opt.Offset, CapLines: opt.CapLines, WaveDir: opt.WaveDir, Latency: opt.Latency,
		Seed: opt.Seed, Model: opt.Model, RunID: opt.RunID, ReplayModel: opt.ReplayModel}
}
