package tb

import (
	"fmt"
	"os"
	"testing"
)

// dut is the one Verilated model of this test binary (VPI allows one per
// process). It lives on the main goroutine's OS thread; tests hand their
// bodies to that goroutine through jobs (see on).
var (
	dut  *Accel
	jobs = make(chan func())
)

// T is a *testing.T whose Fatal ends only the job running on the model's
// thread, not that thread: on() turns it into FailNow on the test goroutine.
type T struct{ *testing.T }

type fatal struct{}

func (t *T) Fatalf(format string, args ...any) {
	t.T.Helper()
	t.Errorf(format, args...)
	panic(fatal{})
}
func (t *T) Fatal(args ...any) { t.T.Helper(); t.Error(args...); panic(fatal{}) }

// runOn runs f as the subtest name of t, on the model's thread.
func runOn(t *testing.T, name string, f func(t *T)) bool {
	t.Helper()
	return t.Run(name, func(t *testing.T) { on(t, f) })
}

// Run runs f as the subtest name, on the model's thread like its caller (a
// job): while the subtest waits for its own job, this thread serves it.
// Cases run in order and share the model's state, as in a plain loop, but
// each can fail, or be run (-run 'TestX/case'), alone.
func (t *T) Run(name string, f func(t *T)) bool {
	t.T.Helper()
	done := make(chan bool)
	go func() { done <- t.T.Run(name, func(st *testing.T) { on(st, f) }) }()
	for {
		select {
		case job := <-jobs:
			job()
		case ok := <-done:
			return ok
		}
	}
}

// restartAfterFailure restarts the engine after a failed case, which may
// have left it mid-request, so that the next case starts clean.
func restartAfterFailure(t *T) {
	t.Helper()
	if err := dut.Restart(); err != nil {
		t.Fatal(err)
	}
}

// memName names a memory behaviour for a subtest: the fields that are set.
func memName(c MemConfig) string {
	s := fmt.Sprint("latency ", c.Latency)
	if c.MaxStall > 0 {
		s += fmt.Sprint(", stalls ", c.MaxStall)
	}
	if c.Backpressure > 0 {
		s += fmt.Sprint(", backpressure ", c.Backpressure)
	}
	if c.Reorder {
		s += ", reorder"
	}
	if c.LoadFault > 0 {
		s += fmt.Sprint(", load faults ", c.LoadFault)
	}
	if c.MaxInFlight > 0 {
		s += fmt.Sprint(", ", c.MaxInFlight, " in flight")
	}
	if c.FaultLine != nil {
		s += ", a faulted line"
	}
	if c.HoldLoads {
		s += ", loads held"
	}
	if c.Seed != 0 {
		s += fmt.Sprint(", seed ", c.Seed)
	}
	return s
}

// on runs f on the model's thread and waits for it.
func on(t *testing.T, f func(t *T)) {
	t.Helper()
	failed := make(chan bool)
	jobs <- func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(fatal); !ok {
					panic(r)
				}
				failed <- true
			}
		}()
		f(&T{t})
		failed <- false
	}
	if <-failed {
		t.FailNow()
	}
}

func TestMain(m *testing.M) {
	lib := FindModel()
	a, err := Open(lib, MemConfig{Latency: 2, Seed: 1})
	if err != nil {
		fmt.Fprintf(os.Stderr, "tb: cannot open the Verilated model: %v\n"+
			"tb: build it first with `make verilate` (from the repository root)\n", err)
		os.Exit(1)
	}
	dut = a
	if err := a.Configure(WindowBase, WindowSize); err != nil {
		fmt.Fprintln(os.Stderr, "tb: configuring the command window:", err)
		os.Exit(1)
	}
	done := make(chan int)
	go func() { done <- m.Run() }()
	code := 0
	for serving := true; serving; {
		select {
		case f := <-jobs:
			f()
		case code = <-done:
			serving = false
		}
	}
	if code == 0 {
		fmt.Println("functional coverage:", a.Cov)
	}
	a.Close()
	os.Exit(code)
}

// withMem runs f with the memory behaving as cfg, then restores it.
func withMem(t *T, cfg MemConfig, f func()) {
	t.Helper()
	old := dut.Mem.cfg
	dut.Mem.cfg = cfg
	defer func() { dut.Mem.cfg = old }()
	f()
}

// expect runs msg through the engine at the given start offset and fails the
// test on any disagreement with the reference. It returns the run.
func expect(t *T, name string, msg []byte, opt RunOptions) Run {
	t.Helper()
	r := dut.RunVector(0, name, msg, opt)
	if r.Err != nil {
		t.Fatalf("%s: %v", name, r.Err)
	}
	if !r.Verdict.Match {
		t.Errorf("%s (offset %d, %d bytes): RTL and reference disagree:", name, r.Offset, len(msg))
		for _, d := range r.Verdict.Diffs {
			t.Errorf("  %s", d)
		}
	}
	return r
}

// TestModelFile looks at the model library from inside m.Run, where go test
// records the files and variables a test reads: a rebuilt model or another
// $ARCALIS_MODEL then invalidates cached results.
func TestModelFile(t *testing.T) {
	lib := FindModel()
	fi, err := os.Stat(lib)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() == 0 {
		t.Fatalf("%s is empty", lib)
	}
}
