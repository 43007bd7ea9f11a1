package tb

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"arcalis/golden"
	"arcalis/vectors"
)

// FuzzRTL is the differential fuzz target of issue 6: every input runs
// through the Verilated RTL and the reference, and fails on any difference
// in status, result detail, any byte of App.Recv or the reply, on a hang
// (the cycle budget of Poll), on a load outside the message or a store
// outside App.Recv (the memory model's checks), or on a reference panic.
//
// Arguments: data is the message itself when mode bit 0 is clear, else a
// recipe from which genMessage builds a structured one (valid Set messages
// with lengths near their limits, fields in any order, swapped types,
// truncations, nested and unknown fields, damaged headers). Mode bits 1-2
// pick the memory's timing (fixed latency; random stalls; backpressure with
// reordering; all three), bit 3 adds random load faults checked by the
// LOAD_FAULT rule of fault_test.go, bits 4-7 seed the memory. offset%64 is
// the start offset in the line; 5 + lines%64 is the App.Recv capacity in
// lines, so values meet the end of small value regions.
//
// Plain go test runs only the seeds below and the corpus committed in
// testdata/fuzz/FuzzRTL (every crasher found is kept there); `make fuzz`
// fuzzes. With $ARCALIS_FUZZ_TALLY set, each process counts its inputs into
// a file in that directory; with $ARCALIS_COVERAGE set (make coverage), the
// target's cleanup, which go test runs after every test, writes the model's
// coverage counters and the functional coverage there.
func FuzzRTL(f *testing.F) {
	for i, m := range faultMessages() {
		f.Add(m.msg, uint8(i<<4&0xF0), uint8(i*11), uint8(60))
		f.Add(m.msg, uint8(8|i<<4&0xF0|2*(i%4)), uint8(i*13+50), uint8(59))
	}
	recs, err := vectors.ReadFile("../vectors/default.vec")
	if err != nil {
		f.Fatal(err)
	}
	for _, rec := range recs {
		f.Add(rec.Msg, uint8(rec.Index%4*2), uint8(rec.Index), uint8(rec.Index*7))
	}
	for i, r := range []string{"", "\x00", "\x07\x01\x01\x01\x01\x02", "\x0f\x08\x01\x00\x02\x01\x03\x02\x04\x05\x00",
		"\x0f\x08\x02\x01\x00\x00\x01\x00\x00", "\x0f\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12"} {
		for mode := uint8(1); mode < 16; mode += 2 {
			f.Add([]byte(r), mode|uint8(i<<4), uint8(i*9+int(mode)), uint8(i*5))
		}
	}
	f.Cleanup(tally.flush)
	if dir := os.Getenv("ARCALIS_COVERAGE"); dir != "" {
		f.Cleanup(func() { writeCoverage(f, dir) })
	}
	f.Fuzz(func(t *testing.T, data []byte, mode, offset, lines uint8) {
		capLines := golden.MinCapacity/LineSize + int(lines%64)
		msg := data
		if mode&1 == 1 {
			msg = genMessage(data, capLines*LineSize-golden.ValueOffset)
		}
		on(t, func(t *T) {
			fuzzOne(t, Request{Msg: msg, Offset: int(offset % LineSize), CapLines: capLines}, fuzzMem(mode), mode&1 == 1)
		})
	})
}

// fuzzMem is the memory behaviour a fuzz input's mode selects.
func fuzzMem(mode uint8) MemConfig {
	cfg := MemConfig{Latency: 2, Seed: int64(mode >> 4)}
	switch mode >> 1 & 3 {
	case 1:
		cfg.Latency, cfg.MaxStall = 0, 17
	case 2:
		cfg.Latency, cfg.Backpressure, cfg.Reorder = 6, 0.5, true
	case 3:
		cfg.Latency, cfg.MaxStall, cfg.Backpressure, cfg.Reorder = 1, 30, 0.3, true
	}
	if mode&8 != 0 {
		cfg.LoadFault = 0.1
	}
	return cfg
}

// fuzzOne runs one input and, after a request that met a load fault, a
// clean request that must be taken normally.
func fuzzOne(t *T, req Request, cfg MemConfig, structured bool) {
	t.Helper()
	// A reference panic fails the input with the message, the model intact.
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("reference panicked on % x (capacity %d lines): %v", req.Msg, req.CapLines, p)
			}
		}()
		golden.Deserialize(req.Msg, make([]byte, req.CapLines*LineSize))
	}()
	o, class := runFaulty(t, "fuzz input", req, cfg)
	tally.count(o, class, structured)
	cleanAfter(t, class, cfg.Latency)
}

// cleanAfter runs, after a request of class other than faultClean, a clean
// request that must be taken normally.
func cleanAfter(t *T, class faultClass, latency int) {
	t.Helper()
	if class != faultClean {
		runFaulty(t, "clean request after a faulted one", Request{Msg: setMsg(1, []byte("k"), pattern(40, 3)), Offset: 9, CapLines: 6},
			MemConfig{Latency: latency})
	}
}

// ---- Structure-aware messages ----

// recipe hands out a fuzz input's bytes as decisions; past its end every
// decision is 0.
type recipe struct{ b []byte }

func (r *recipe) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *recipe) intn(n int) int { return int(r.u16()) % n }
func (r *recipe) u16() uint16    { return uint16(r.byte())<<8 | uint16(r.byte()) }
func (r *recipe) u32() uint32    { return uint32(r.u16())<<16 | uint32(r.u16()) }
func (r *recipe) u64() uint64    { return uint64(r.u32())<<32 | uint64(r.u32()) }
func (r *recipe) pick(n int) int { return int(r.byte()) % n }

// id is a field id: mostly one of the schema's or a neighbour, sometimes any.
func (r *recipe) id() int16 {
	if r.pick(4) == 0 {
		return int16(r.u16())
	}
	return int16(r.pick(9) - 1)
}

// near is a length near limit: a little below, at, or just past it.
func (r *recipe) near(limit int) int { return max(0, limit-2+r.pick(5)) }

var (
	fixedTypes   = []byte{2, 3, 4, 6, 8, 10, 16}
	invalidTypes = []byte{1, 5, 7, 9, 17, 18, 0x7F, 0x80, 0xFF}
	methodNames  = []string{"", "S", "Se", "Sets", "set", "SET", "Del", "Get", "Sex", "Set\x00"}
	interesting  = []byte{0, 1, 2, 3, 4, 8, 10, 11, 12, 15, 16, 17, 0x7F, 0x80, 0xFE, 0xFF}
)

// genMessage builds a message from a recipe: a header (usually a strict Set
// CALL, sometimes ONEWAY, Get, another type, another name, a damaged or
// non-strict version word), up to 8 fields in any order (the five of the
// schema with keys and values near their limits for a value region of vcap
// bytes; unknown fixed, binary and UUID fields; nested, invalid and swapped
// types; negative and over-long lengths; early STOPs and stray bytes), a
// STOP (usually), then up to three mutations: a cut, a bit flip, a byte set
// to a type id or sign boundary, or bytes after the end.
func genMessage(data []byte, vcap int) []byte {
	r := &recipe{data}
	seq := r.u32()
	var w wire
	switch r.pick(16) {
	case 0:
		w = header("Set", 4, seq)
	case 1:
		w = header("Get", []byte{1, 4}[r.pick(2)], seq)
	case 2:
		w = header("Set", byte(r.pick(8)), seq)
	case 3:
		w = header(methodNames[r.pick(len(methodNames))], 1, seq)
	case 4:
		w = header("Set", 1, seq)
		w[r.pick(4)] ^= 1 << r.pick(8)
	case 5:
		w = binary.BigEndian.AppendUint32(append(wire{0, 0, 0, 3}, "Set\x01"...), seq)
	case 6:
		w = header("Set", 1, seq)
		binary.BigEndian.PutUint32(w[4:], 0x80000000|r.u32())
	default:
		w = header("Set", 1, seq)
	}
	for n := r.pick(9); n > 0; n-- {
		switch r.pick(16) {
		case 0:
			w = w.i64(1, r.u64())
		case 1:
			n := []int{r.pick(24), r.near(golden.KeyMax), 0, r.intn(300)}[r.pick(4)]
			w = w.bin(2, pattern(n, r.byte()))
		case 2:
			n := []int{r.pick(80), r.near(vcap), 0, r.intn(vcap + 65)}[r.pick(4)]
			w = w.bin(3, pattern(n, r.byte()))
		case 3:
			w = w.i32(4, r.u32())
		case 4:
			w = w.i32(5, r.u32())
		case 5:
			t := fixedTypes[r.pick(len(fixedTypes))]
			w = w.field(t, r.id(), pattern(fixedSizes[t], r.byte())...)
		case 6:
			id := r.id()
			if id == 2 || id == 3 {
				id += 4
			}
			w = w.bin(id, pattern(r.pick(200), r.byte()))
		case 7:
			w = w.field(byte(12+r.pick(4)), r.id(), pattern(r.pick(12), r.byte())...) // nested, with a little payload
		case 8:
			w = w.field(invalidTypes[r.pick(len(invalidTypes))], r.id(), pattern(r.pick(8), r.byte())...)
		case 9: // a schema id with the wrong type
			ids := []int16{1, 2, 3, 4, 5}
			t := []byte{2, 3, 4, 6, 8, 10, 11, 16}[r.pick(8)]
			if t == 11 {
				w = w.bin(ids[r.pick(5)], pattern(r.pick(20), 1))
			} else {
				w = w.field(t, ids[r.pick(5)], pattern(fixedSizes[t], r.byte())...)
			}
		case 10: // a negative length
			w = w.field(11, r.id(), byte(0x80|r.byte()), r.byte(), r.byte(), r.byte())
		case 11: // a length past the end, or at the int32 limit
			l := []uint32{0x7FFFFFFF, uint32(r.pick(64) + 1), uint32(vcap + 1), 0x10000}[r.pick(4)]
			w = w.field(11, r.id(), binary.BigEndian.AppendUint32(nil, l)...)
		case 12:
			w = w.i32(int16(r.u16()), r.u32())
		case 13:
			w = w.stop()
		case 14:
			w = append(w, pattern(r.pick(8), r.byte())...)
		default:
			w = w.bin(3, pattern(r.pick(70), r.byte())).bin(2, pattern(r.pick(30), r.byte()))
		}
	}
	if r.pick(8) != 0 {
		w = w.stop()
	}
	for k := r.pick(4); k > 0 && len(w) > 0; k-- {
		i := r.intn(len(w))
		switch r.pick(4) {
		case 0:
			w = w[:i]
		case 1:
			w[i] ^= 1 << r.pick(8)
		case 2:
			w[i] = interesting[r.pick(len(interesting))]
		default:
			w = append(w, pattern(r.pick(70), r.byte())...)
		}
	}
	return w
}

// ---- Counting and coverage output ----

// fuzzTally counts the inputs one process ran, for reports/fuzz.md. It is
// touched only on the model's thread.
type fuzzTally struct {
	name    string // the tally file's prefix
	counts  map[string]int
	flushed time.Time
}

var (
	tally      = fuzzTally{name: "rtl", counts: map[string]int{}}
	replyTally = fuzzTally{name: "reply", counts: map[string]int{}}
)

// add counts one input, and one under each key; the tally file is rewritten
// at most once a second.
func (ft *fuzzTally) add(keys ...string) {
	ft.counts["inputs"]++
	for _, k := range keys {
		ft.counts[k]++
	}
	if time.Since(ft.flushed) >= time.Second {
		ft.flushed = time.Now()
		ft.flush()
	}
}

func (ft *fuzzTally) flush() { writeTally(ft.name, ft.counts) }

func (ft *fuzzTally) count(o Outcome, class faultClass, structured bool) {
	keys := []string{"result " + golden.Code(o.Status.Result()).String(), "fault " + class.String()}
	if structured {
		keys = append(keys, "structured")
	}
	ft.add(keys...)
}

// writeTally replaces $ARCALIS_FUZZ_TALLY/NAME-PID.txt with one "key<TAB>count"
// line per counter, if that variable is set.
func writeTally(name string, counts map[string]int) {
	dir := os.Getenv("ARCALIS_FUZZ_TALLY")
	if dir == "" {
		return
	}
	var b strings.Builder
	for k, n := range counts {
		fmt.Fprintf(&b, "%s\t%d\n", k, n)
	}
	file := fmt.Sprintf("%s-%d.txt", name, os.Getpid())
	tmp := filepath.Join(dir, "."+file)
	if os.WriteFile(tmp, []byte(b.String()), 0o644) == nil {
		os.Rename(tmp, filepath.Join(dir, file))
	}
}

// writeCoverage writes the model's coverage counters (a --coverage build)
// to dir/rtl.dat and the testbench's functional coverage, every bin with its
// count and the list of bins never hit, to dir/functional.txt, from the
// model's thread.
func writeCoverage(f *testing.F, dir string) {
	done := make(chan error)
	jobs <- func() {
		err := dut.WriteCoverage(filepath.Join(dir, "rtl.dat"))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "functional.txt"), []byte(functionalReport(dut.Cov)), 0o644)
		}
		done <- err
	}
	if err := <-done; err != nil {
		f.Errorf("writing coverage into %s: %v", dir, err)
	}
}

// functionalReport lists c's bins with their counts, then the bins never hit.
func functionalReport(c *Coverage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "summary: %s\n", c)
	for s := uint64(0); s < uint64(len(StateNames)); s++ {
		fmt.Fprintf(&b, "state %s: %d cycles\n", StateNames[s], c.States[s])
	}
	var trans []string
	for from, row := range c.Transitions {
		for to, n := range row {
			if n == 0 {
				continue
			}
			doc := " (not in docs/abi.md section 3: a reset)"
			for _, d := range FSMTransitions {
				if d == [2]uint64{uint64(from), uint64(to)} {
					doc = ""
				}
			}
			trans = append(trans, fmt.Sprintf("transition %s->%s: %d%s", StateNames[uint64(from)], StateNames[uint64(to)], n, doc))
		}
	}
	sort.Strings(trans)
	for _, t := range trans {
		fmt.Fprintln(&b, t)
	}
	for op := uint8(0); op < 16; op++ {
		fmt.Fprintf(&b, "opcode %d: %d\n", op, c.Opcodes[op])
	}
	for _, code := range golden.AllCodes() {
		fmt.Fprintf(&b, "result %s: %d\n", code, c.Results[uint8(code)])
	}
	for code := uint8(0); code < uint8(len(cmdErrNames)); code++ {
		fmt.Fprintf(&b, "command error %s: %d\n", cmdErrNames[code], c.CmdErrs[code])
	}
	for _, t := range FieldTypes {
		hit := 0
		for pos := 0; pos < LineSize; pos++ {
			if c.FieldCount(t, pos) > 0 {
				hit++
			}
		}
		fmt.Fprintf(&b, "field type %s: %d/64 line positions\n", typeName(t), hit)
	}
	miss := c.Missing()
	fmt.Fprintf(&b, "missing: %d\n", len(miss))
	for _, m := range miss {
		fmt.Fprintf(&b, "  %s\n", m)
	}
	return b.String()
}

// TestFieldTypeEveryPosition puts a field of every type id (the twelve
// Thrift types, STOP and invalid ids) at every byte position of a line: an
// unknown binary field in front shifts it there.
func TestFieldTypeEveryPosition(t *testing.T) {
	on(t, func(t *T) {
		for ti, ty := range FieldTypes {
			t.Run("type "+typeName(ty), func(t *T) {
				for q := 0; q < LineSize; q++ {
					off := (q*5 + ti) % LineSize
					pad := ((q-off-22)%LineSize + LineSize) % LineSize // field at 15 + 7 + pad
					w := header("Set", 1, uint32(q)).bin(9, pattern(pad, byte(q)))
					want := golden.CodeOK
					switch {
					case ty == 0:
					case ty == 11:
						w = w.bin(2, pattern(q, 3))
					case ty >= 12 && ty <= 15:
						w, want = w.field(ty, 7, 8, 0, 0, 0, 1), golden.CodeNestedUnsupported
					case ty == FieldInvalid:
						w, want = w.field(invalidTypes[q%len(invalidTypes)], 2, 0, 0, 0, 0), golden.CodeBadType
					default:
						w = w.field(ty, 7, pattern(fixedSizes[ty], 1)...)
					}
					name := fmt.Sprintf("type %s at line position %d", typeName(ty), q)
					req := Request{Msg: w.stop(), Offset: off, CapLines: 6}
					if got := Fields(req.Msg, LineSize)[1]; (off+got.Pos)%LineSize != q {
						t.Fatalf("%s: the field is at line position %d", name, (off+got.Pos)%LineSize)
					}
					o, _ := runFaulty(t, name, req, MemConfig{Latency: 2})
					if got := golden.Code(o.Status.Result()); got != want {
						t.Errorf("%s: result %s, want %s", name, got, want)
					}
				}
			})
		}
	})
}

// TestGenMessage checks the generator against the reference: across many
// recipes it reaches every result code the RxEngine can give without a load
// fault (MSG_TOO_LARGE needs a 16 MB message: TestFieldErrors has it) and
// every field type.
func TestGenMessage(t *testing.T) {
	const vcap = 640
	codes := map[golden.Code]int{}
	types := map[byte]int{}
	img := make([]byte, golden.ValueOffset+vcap)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		m := genMessage(randomRecipe(rng), vcap)
		codes[golden.Deserialize(m, img).Code]++
		for _, f := range Fields(m, vcap) {
			types[f.Type]++
		}
	}
	for _, c := range golden.AllCodes() {
		switch c {
		case golden.CodeNone, golden.CodeRespOK, golden.CodeLoadFault, golden.CodeMsgTooLarge,
			golden.CodeRespBadImage, golden.CodeRespTooLarge, golden.CodeRespLoadFault: // (replies)
			continue
		}
		if codes[c] == 0 {
			t.Errorf("no generated message gives %s (%v)", c, codes)
		}
	}
	for _, ty := range []byte{0, 2, 3, 4, 6, 8, 10, 11, 12, 13, 14, 15, 16, 1, 0xFF} {
		if types[ty] == 0 {
			t.Errorf("no generated message has a field of type %d", ty)
		}
	}
	t.Logf("results %v", codes)
}
