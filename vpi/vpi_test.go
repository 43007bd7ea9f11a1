package vpi

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The test design, built by build.mk into build/vpi-test/ under the module
// root and kept there: make rebuilds it only when something changed.
var testSources = []string{
	"vpi/testdata/counter.vlt",
	"vpi/testdata/counter_acc.sv",
	"vpi/testdata/counter.sv",
}

type builtLib struct {
	once sync.Once
	path string
	err  error
}

var (
	plainLib    builtLib
	coverageLib builtLib
)

// buildLib builds the counter design with extra verilator flags into
// build/vpi-test/<variant> and returns the library path.
func buildLib(t testing.TB, b *builtLib, variant, flags string) string {
	t.Helper()
	return buildDesign(t, b, variant, "counter", testSources, flags)
}

// buildDesign builds the design top from sources (paths from the module
// root) with extra verilator flags into build/vpi-test/<variant> and
// returns the library path.
func buildDesign(t testing.TB, b *builtLib, variant, top string, sources []string, flags string) string {
	t.Helper()
	b.once.Do(func() {
		if _, err := exec.LookPath("verilator"); err != nil {
			b.err = err
			return
		}
		root, err := filepath.Abs("..")
		if err != nil {
			b.err = err
			return
		}
		out := filepath.Join("build", "vpi-test", variant)
		cmd := exec.Command("make", "-f", "vpi/build.mk", "--no-print-directory",
			"VPI_TOP="+top,
			"VPI_SOURCES="+strings.Join(sources, " "),
			"VPI_OUT="+out,
			"VPI_FLAGS="+flags,
			"vpi-model")
		cmd.Dir = root
		if log, err := cmd.CombinedOutput(); err != nil {
			b.err = errors.New(string(log) + err.Error())
			return
		}
		b.path = filepath.Join(root, out, "libvmodel.so")
	})
	if b.err != nil {
		t.Fatalf("building the test model (%s): %v", variant, b.err)
	}
	return b.path
}

// openCounter opens the plain test model, closed when the test ends. The
// returned Sim belongs to the calling goroutine.
func openCounter(t testing.TB) *Sim {
	t.Helper()
	s, err := Open(buildLib(t, &plainLib, "plain", ""), Options{Clock: "counter.clk_i"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func TestOpenMissingLibrary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "libvmodel.so")
	_, err := Open(path, Options{Clock: "clk"})
	if err == nil {
		t.Fatal("Open of a missing library succeeded")
	}
	for _, want := range []string{path, "make verilate"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestOpenBadClock(t *testing.T) {
	lib := buildLib(t, &plainLib, "plain", "")
	for _, tc := range []struct {
		clock, want string
	}{
		{"counter.nope", `clock "counter.nope": not found`},
		{"counter.count_o", `clock "counter.count_o": not a writable 1-bit signal`},
	} {
		_, err := Open(lib, Options{Clock: tc.clock})
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("Open with clock %q: got %v, want ...%s", tc.clock, err, tc.want)
		}
	}
	// A failed Open leaves the library free for the next one.
	openCounter(t)
}

func TestOneSimPerLibrary(t *testing.T) {
	openCounter(t)
	_, err := Open(buildLib(t, &plainLib, "plain", ""), Options{Clock: "counter.clk_i"})
	if !errors.Is(err, ErrOpen) {
		t.Fatalf("second Open: got %v, want ErrOpen", err)
	}
}

func TestSignalLookup(t *testing.T) {
	s := openCounter(t)
	for _, tc := range []struct {
		name     string
		width    int
		writable bool
		dir      Direction
	}{
		{"counter.clk_i", 1, true, Input},
		{"clk_i", 1, true, Input},
		{"TOP.step_i", 32, true, Input},
		// Verilator 5.006 looks a one-dot name up among the top ports
		// first, whatever the first part says.
		{"nope.step_i", 32, true, Input},
		{"counter.tag_i", 12, true, Input},
		{"counter.line_i", 512, true, Input},
		{"counter.count_o", 32, true, Output},
		{"counter.cycles_o", 48, true, Output},
		{"counter.line_q", 512, true, NoDirection},
		{"counter.u_acc.acc_q", 32, true, NoDirection},
		{"counter.u_acc.acc_o", 32, false, NoDirection},
	} {
		// No t.Run: a subtest is another goroutine, hence another thread.
		g, err := s.Signal(tc.name)
		if err != nil {
			t.Error(err)
			continue
		}
		if g.Width() != tc.width || g.Writable() != tc.writable || g.Direction() != tc.dir {
			t.Errorf("%s: got width %d writable %v %v, want %d %v %v", tc.name,
				g.Width(), g.Writable(), g.Direction(), tc.width, tc.writable, tc.dir)
		}
	}
	for _, tc := range []struct{ name, want string }{
		{"counter.foo", `vpi: signal "counter.foo": not found`},
		{"counter.u_acc.acc_d", `vpi: signal "counter.u_acc.acc_d": not found`}, // not public
		{"nope.x.clk_i", `vpi: signal "nope.x.clk_i": not found`},
		{"counter.u_acc", `vpi: signal "counter.u_acc": is a vpiModule, not a signal`},
	} {
		_, err := s.Signal(tc.name)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Signal(%q): got %v, want %s", tc.name, err, tc.want)
		}
	}
	if _, err := s.Signal("counter.foo"); !errors.Is(err, ErrNotFound) {
		t.Errorf("errors.Is(%v, ErrNotFound) is false", err)
	}
}

func mustSignal(t testing.TB, s *Sim, name string) Signal {
	t.Helper()
	g, err := s.Signal(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustPut(t testing.TB, g Signal, v uint64) {
	t.Helper()
	if err := g.PutU64(v); err != nil {
		t.Fatal(err)
	}
}

func mustGet(t testing.TB, g Signal) uint64 {
	t.Helper()
	v, err := g.GetU64()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func randomLine(r *rand.Rand) []byte {
	b := make([]byte, 64)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestSlowPath(t *testing.T) {
	s := openCounter(t)
	rst, en, step := mustSignal(t, s, "counter.rst_ni"), mustSignal(t, s, "counter.en_i"), mustSignal(t, s, "counter.step_i")
	load, lineIn, lineOut := mustSignal(t, s, "counter.load_i"), mustSignal(t, s, "counter.line_i"), mustSignal(t, s, "counter.line_o")
	count, acc := mustSignal(t, s, "counter.count_o"), mustSignal(t, s, "counter.u_acc.acc_q")

	// Scalars: put, read back, and see the design respond.
	mustPut(t, rst, 1)
	mustPut(t, en, 1)
	mustPut(t, step, 7)
	if got := mustGet(t, step); got != 7 {
		t.Fatalf("step_i reads back %d, want 7", got)
	}
	if err := s.Cycle(3); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, count); got != 21 {
		t.Errorf("count_o after 3 cycles of +7 = %d, want 21", got)
	}
	// An internal register, written through VPI, holds until the next edge.
	mustPut(t, acc, 100)
	if err := s.Cycle(1); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, count); got != 107 {
		t.Errorf("count_o after forcing acc_q to 100 and one cycle = %d, want 107", got)
	}

	// A 512-bit vector: put, read back, load into the line register.
	line := randomLine(rand.New(rand.NewPCG(1, 2)))
	if err := lineIn.Put(line); err != nil {
		t.Fatal(err)
	}
	got, err := lineIn.Get()
	if err != nil || !bytes.Equal(got, line) {
		t.Fatalf("line_i reads back %x, %v; want %x", got, err, line)
	}
	mustPut(t, load, 1)
	if err := s.Cycle(1); err != nil {
		t.Fatal(err)
	}
	if got, _ := lineOut.Get(); !bytes.Equal(got, line) {
		t.Errorf("line_o = %x, want %x", got, line)
	}

	// Widths: a short put zero-extends, a long one is refused.
	if err := lineIn.Put([]byte{0xaa}); err != nil {
		t.Fatal(err)
	}
	if got, _ := lineIn.Get(); got[0] != 0xaa || !bytes.Equal(got[1:], make([]byte, 63)) {
		t.Errorf("short put of line_i reads back %x", got)
	}
	if err := step.Put(make([]byte, 5)); !errors.Is(err, ErrInvalid) {
		t.Errorf("5-byte put to step_i: got %v, want ErrInvalid", err)
	}
	ro := mustSignal(t, s, "counter.u_acc.acc_o")
	if err := ro.PutU64(1); !errors.Is(err, ErrReadOnly) || err.Error() != `vpi: put "counter.u_acc.acc_o": not writable` {
		t.Errorf("put to a public_flat_rd signal: got %v", err)
	}
}

// model is the Go reference for counter: its state before an edge and the
// pre-edge sample the shim should report.
type model struct {
	acc    uint32
	line   []byte
	tag    uint16
	cycles uint64
}

type stimulus struct {
	rst, en, load bool
	step, limit   uint32
	line          []byte
	tag           uint16
}

type sample struct {
	count  uint32
	hit    bool
	line   []byte
	tag    uint16
	cycles uint64
}

// cycle applies in for one cycle and returns the pre-edge sample.
func (m *model) cycle(in stimulus) sample {
	if m.line == nil {
		m.line = make([]byte, 64)
	}
	if !in.rst { // asynchronous reset: visible before the edge
		*m = model{line: make([]byte, 64)}
	}
	out := sample{count: m.acc, hit: m.acc >= in.limit, line: bytes.Clone(m.line), tag: m.tag, cycles: m.cycles}
	if in.rst {
		if in.en {
			m.acc += in.step
		}
		if in.load {
			m.line = bytes.Clone(in.line)
		}
		m.tag = in.tag
		m.cycles = (m.cycles + 1) & (1<<48 - 1)
	}
	return out
}

type counterPorts struct {
	rst, en, step, limit, load, line, tag *Port
	count, hit, lineOut, tagOut, cycles   *Port
}

func registerPorts(t testing.TB, s *Sim) counterPorts {
	t.Helper()
	in := func(name string) *Port {
		p, err := s.Input("counter." + name)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := func(name string) *Port {
		p, err := s.Output("counter." + name)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Interleaved on purpose: registering moves the buffers.
	return counterPorts{
		rst: in("rst_ni"), count: out("count_o"), en: in("en_i"), step: in("step_i"),
		hit: out("hit_o"), limit: in("limit_i"), load: in("load_i"), line: in("line_i"),
		lineOut: out("line_o"), tag: in("tag_i"), tagOut: out("tag_o"), cycles: out("cycles_o"),
	}
}

func (p counterPorts) apply(in stimulus) {
	b := func(v bool) uint64 {
		if v {
			return 1
		}
		return 0
	}
	p.rst.Set(b(in.rst))
	p.en.Set(b(in.en))
	p.step.Set(uint64(in.step))
	p.limit.Set(uint64(in.limit))
	p.load.Set(b(in.load))
	p.line.SetBytes(in.line)
	p.tag.Set(uint64(in.tag) | 0xf000) // bits above the 12-bit width are dropped
}

func (p counterPorts) check(t *testing.T, cycle int, want sample) {
	t.Helper()
	if got := uint32(p.count.U64()); got != want.count {
		t.Fatalf("cycle %d: count_o = %d, want %d", cycle, got, want.count)
	}
	if got := p.hit.Bit(); got != want.hit {
		t.Fatalf("cycle %d: hit_o = %v, want %v", cycle, got, want.hit)
	}
	if got := p.lineOut.Bytes(); !bytes.Equal(got, want.line) {
		t.Fatalf("cycle %d: line_o = %x, want %x", cycle, got, want.line)
	}
	if got := uint16(p.tagOut.U64()); got != want.tag {
		t.Fatalf("cycle %d: tag_o = %#x, want %#x", cycle, got, want.tag)
	}
	if got := p.cycles.U64(); got != want.cycles {
		t.Fatalf("cycle %d: cycles_o = %d, want %d", cycle, got, want.cycles)
	}
}

func TestFastPortsMatchModel(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	if got := p.line.Width(); got != 512 {
		t.Fatalf("line_i width %d", got)
	}
	countSig := mustSignal(t, s, "counter.count_o")
	r := rand.New(rand.NewPCG(3, 4))
	var m model
	const cycles = 20000
	for i := 0; i < cycles; i++ {
		in := stimulus{
			rst:   i > 0 && r.IntN(500) != 0,
			en:    r.IntN(4) != 0,
			load:  r.IntN(8) == 0,
			step:  r.Uint32() >> r.IntN(32),
			limit: r.Uint32(),
			line:  randomLine(r)[:r.IntN(65)], // SetBytes zero-extends
			tag:   uint16(r.IntN(1 << 12)),
		}
		p.apply(in)
		in.line = append(bytes.Clone(in.line), make([]byte, 64-len(in.line))...)
		want := m.cycle(in)
		if err := s.Cycle(1); err != nil {
			t.Fatal(err)
		}
		p.check(t, i, want)
		// Cross-check the fast path against VPI now and then: after the
		// edge, count_o holds the model's next state.
		if i%997 == 0 {
			if got := mustGet(t, countSig); got != uint64(m.acc) {
				t.Fatalf("cycle %d: count_o through VPI = %d, model %d", i, got, m.acc)
			}
		}
	}
	if s.Cycles() != cycles {
		t.Errorf("Cycles() = %d, want %d", s.Cycles(), cycles)
	}

	// Many cycles in one call, inputs held.
	in := stimulus{rst: true, en: true, step: 3, limit: 1 << 31, line: make([]byte, 64), tag: 5}
	p.apply(in)
	var want sample
	for range 1000 {
		want = m.cycle(in)
	}
	if err := s.Cycle(1000); err != nil {
		t.Fatal(err)
	}
	p.check(t, cycles+999, want)
	if s.Cycles() != cycles+1000 {
		t.Errorf("Cycles() = %d, want %d", s.Cycles(), cycles+1000)
	}
}

func TestPutKeepsRegisteredInput(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	p.apply(stimulus{rst: true, en: true, step: 1, line: nil})
	if err := s.Cycle(1); err != nil {
		t.Fatal(err)
	}
	// A slow-path put to a registered input updates the port's slot too.
	mustPut(t, mustSignal(t, s, "counter.step_i"), 10)
	if err := s.Cycle(2); err != nil {
		t.Fatal(err)
	}
	if got := p.count.U64(); got != 11 {
		t.Errorf("count_o = %d, want 1 + 10 (the put step held)", got)
	}
}

func TestPortMisuse(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", what)
			}
		}()
		f()
	}
	mustPanic("Set on an output", func() { p.count.Set(1) })
	mustPanic("U64 on an input", func() { p.step.U64() })
	mustPanic("SetBytes too long", func() { p.step.SetBytes(make([]byte, 5)) })
	if _, err := s.Input("counter.u_acc.acc_o"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Input on a read-only signal: got %v", err)
	}
	if _, _, err := s.RunUntil(p.step, 1, 1, 10); !errors.Is(err, ErrInvalid) {
		t.Errorf("RunUntil on an input port: got %v", err)
	}
	again, err := s.Input("counter.step_i")
	if err != nil || again.index != p.step.index || again.off != p.step.off {
		t.Errorf("registering step_i twice: %+v, %v; first %+v", again, err, p.step)
	}
}

func TestRunUntil(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	p.apply(stimulus{rst: true, en: true, step: 3, limit: 100})
	// count_o before the k-th edge (k from 1) is 3(k-1): it first reaches
	// 100 at k = 35 (count 102).
	n, ok, err := s.RunUntil(p.hit, 1, 1, 1000)
	if err != nil || !ok || n != 35 {
		t.Fatalf("RunUntil(hit_o) = %d, %v, %v; want 35, true", n, ok, err)
	}
	if got := p.count.U64(); got != 102 {
		t.Errorf("count_o sample at the match = %d, want 102", got)
	}
	// A budget that runs out. count_o's low byte never equals 1 from here
	// (multiples of 3 past 105 reach ...01 at 513 = 171*3, 137 cycles on).
	n, ok, err = s.RunUntil(p.count, 0xff, 0x01, 50)
	if err != nil || ok || n != 50 {
		t.Errorf("RunUntil with a short budget = %d, %v, %v; want 50, false", n, ok, err)
	}
	if n, ok, err := s.RunUntil(p.count, 0, 0, 0); n != 0 || ok || err != nil {
		t.Errorf("RunUntil with no budget = %d, %v, %v", n, ok, err)
	}
	if s.Cycles() != 85 {
		t.Errorf("Cycles() = %d, want 85", s.Cycles())
	}
}

func TestTrace(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	p.apply(stimulus{rst: true, en: true, step: 1})
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a.fst"), filepath.Join(dir, "b.fst")
	if err := s.TraceOn(first); err != nil {
		t.Fatal(err)
	}
	if err := s.Cycle(100); err != nil {
		t.Fatal(err)
	}
	if err := s.TraceOff(); err != nil {
		t.Fatal(err)
	}
	if err := s.Cycle(10); err != nil {
		t.Fatal(err)
	}
	// A second trace in the same run; left open, Close flushes it.
	if err := s.TraceOn(second); err != nil {
		t.Fatal(err)
	}
	if err := s.Cycle(10); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{first, second} {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Fatalf("trace %s: %v", f, err)
		}
	}
	// Each cycle is 10 time units, rising edge at 5: the first trace spans
	// cycles 0-99, the second starts at cycle 110.
	checkVCD(t, first, "#0\n", "#995\n", "count_o")
	checkVCD(t, second, "#1100\n", "#1195\n", "u_acc")
	bad := filepath.Join(dir, "no", "such", "dir.fst")
	s = openCounter(t)
	if err := s.TraceOn(bad); !errors.Is(err, ErrIO) || !strings.Contains(err.Error(), bad) {
		t.Errorf("TraceOn in a missing directory: got %v", err)
	}
}

// checkVCD converts an FST file with fst2vcd, when installed (gtkwave), and
// looks for each of want in the text.
func checkVCD(t *testing.T, fst string, want ...string) {
	t.Helper()
	if _, err := exec.LookPath("fst2vcd"); err != nil {
		t.Fatalf("fst2vcd (Debian package gtkwave, installed by scripts/setup.sh) is needed to decode %s: %v", fst, err)
	}
	vcd, err := exec.Command("fst2vcd", fst).Output()
	if err != nil {
		t.Fatalf("fst2vcd %s: %v", fst, err)
	}
	for _, w := range want {
		if !bytes.Contains(vcd, []byte(w)) {
			t.Errorf("%s: no %q in\n%.400s", fst, w, vcd)
		}
	}
}

func TestCoverage(t *testing.T) {
	t.Run("without", func(t *testing.T) {
		s := openCounter(t)
		err := s.WriteCoverage(filepath.Join(t.TempDir(), "coverage.dat"))
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "--coverage") {
			t.Errorf("WriteCoverage on a model without coverage: got %v", err)
		}
	})
	t.Run("with", func(t *testing.T) {
		lib := buildLib(t, &coverageLib, "coverage", "--coverage")
		s, err := Open(lib, Options{Clock: "counter.clk_i"})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		p := registerPorts(t, s)
		p.apply(stimulus{rst: true, en: true, step: 1, load: true})
		if err := s.Cycle(20); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "coverage.dat")
		if err := s.WriteCoverage(path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("# SystemC::Coverage")) || !bytes.Contains(data, []byte("counter.sv")) {
			t.Errorf("coverage file does not look like one:\n%.300s", data)
		}
	})
}

func TestWrongThread(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	errs := make(chan error, 3)
	go func() {
		// This goroutine cannot run on s's thread: Open locked it.
		errs <- s.Cycle(1)
		_, err := s.Signal("counter.count_o")
		errs <- err
		_, _, err = s.RunUntil(p.hit, 1, 1, 5)
		errs <- err
	}()
	for range 3 {
		if err := <-errs; !errors.Is(err, ErrWrongThread) {
			t.Errorf("call from another thread: got %v, want ErrWrongThread", err)
		}
	}
	if s.Cycles() != 0 {
		t.Errorf("refused calls ran %d cycles", s.Cycles())
	}
	// The owner still works.
	if err := s.Cycle(1); err != nil {
		t.Fatal(err)
	}
}

func TestFinish(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	p.apply(stimulus{rst: true})
	if err := s.Cycle(3); err != nil {
		t.Fatal(err)
	}
	halt, err := s.Input("counter.halt_i")
	if err != nil {
		t.Fatal(err)
	}
	halt.Set(1)
	err = s.Cycle(10)
	if !errors.Is(err, ErrFinished) {
		t.Fatalf("Cycle after $finish: got %v, want ErrFinished", err)
	}
	if s.Cycles() != 4 {
		t.Errorf("Cycles() = %d, want 4 (the $finish cycle completes)", s.Cycles())
	}
	if _, _, err := s.RunUntil(p.hit, 1, 1, 10); !errors.Is(err, ErrFinished) {
		t.Errorf("RunUntil after $finish: got %v", err)
	}
	// Values stay readable.
	if got := mustGet(t, mustSignal(t, s, "counter.cycles_o")); got != 4 {
		t.Errorf("cycles_o = %d, want 4", got)
	}
}

func TestClosed(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := s.Cycle(1); !errors.Is(err, ErrClosed) {
		t.Errorf("Cycle after Close: got %v", err)
	}
	if _, err := s.Signal("counter.clk_i"); !errors.Is(err, ErrClosed) {
		t.Errorf("Signal after Close: got %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Port.Set after Close did not panic")
		}
	}()
	p.step.Set(1)
}
