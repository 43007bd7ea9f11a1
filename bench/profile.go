package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"arcalis/tb"
)

// timeSplit is where the Go harness's time goes, from a CPU profile.
type timeSplit struct {
	Total                    time.Duration
	Eval, Crossing           time.Duration // in C (model eval, port copies); cgo entry and exit
	Score, Snapshot, Harness time.Duration // scoreboard and reference; App.Recv snapshots; the rest of tb
	Runtime                  time.Duration // GC and other runtime work outside the harness
	Requests                 int
	Cycles                   uint64
}

// callSplit is a pass of the workload through Receive alone with the
// simulator calls timed: the wall time inside them against the whole, both
// less the clock reads the timing itself made (Clock each, two per call,
// measured beforehand).
type callSplit struct {
	Workload      string
	Cycles, Calls uint64
	Wall, InSim   time.Duration
	Clock         time.Duration
}

func (c callSplit) nsPerCycle(d time.Duration) float64 {
	return float64(d.Nanoseconds()) / float64(c.Cycles)
}

// timeCalls runs the workload through Receive passes times with the
// simulator calls timed.
func timeCalls(a *tb.Accel, w harnessWorkload, passes int) (callSplit, error) {
	const reads = 1 << 20
	t0 := time.Now()
	for i := 0; i < reads; i++ {
		_ = time.Now()
	}
	clock := time.Since(t0) / reads
	c0, k0 := a.Cycle(), a.SimCalls()
	a.TimeSim(true)
	defer a.TimeSim(false)
	t, _, err := runGo(a, w, false, passes)
	if err != nil {
		return callSplit{}, err
	}
	s := callSplit{Workload: w.Name, Cycles: a.Cycle() - c0, Calls: a.SimCalls() - k0, Clock: clock}
	timing := 2 * clock * time.Duration(s.Calls)
	s.Wall, s.InSim = time.Duration(t.Seconds*1e9)-timing, a.SimTime()-timing
	return s, nil
}

// profileHarness runs the workload through RunVector passes times under
// the CPU profiler and splits the samples.
func profileHarness(a *tb.Accel, w harnessWorkload, passes int, path string) (timeSplit, error) {
	var s timeSplit
	f, err := os.Create(path)
	if err != nil {
		return s, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return s, err
	}
	c0 := a.Cycle()
	for p := 0; p < passes; p++ {
		if _, _, err := runGo(a, w, true, 1); err != nil {
			pprof.StopCPUProfile()
			f.Close()
			return s, err
		}
		s.Requests += len(w.Jobs)
	}
	pprof.StopCPUProfile()
	s.Cycles = a.Cycle() - c0
	if err := f.Close(); err != nil {
		return s, err
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", "-cum", "-nodecount=100000", path).CombinedOutput()
	if err != nil {
		return s, fmt.Errorf("go tool pprof %s: %w\n%s", path, err, out)
	}
	return s, s.parse(string(out))
}

var (
	totalRE = regexp.MustCompile(`Total samples = ([0-9.]+[a-zµ]*s)`)
	lineRE  = regexp.MustCompile(`^\s*([0-9.]+(?:[a-zµ]*s)?)\s+[0-9.]+%\s+[0-9.]+%\s+([0-9.]+(?:[a-zµ]*s)?)\s+[0-9.]+%\s+(.+)$`)
)

func (s *timeSplit) parse(top string) error {
	m := totalRE.FindStringSubmatch(top)
	if m == nil {
		return fmt.Errorf("pprof output has no total:\n%s", top)
	}
	s.Total = dur(m[1])
	flat, cum := map[string]time.Duration{}, map[string]time.Duration{}
	for _, line := range strings.Split(top, "\n") {
		if m := lineRE.FindStringSubmatch(line); m != nil {
			flat[m[3]], cum[m[3]] = dur(m[1]), dur(m[2])
		}
	}
	sim := cum["arcalis/vpi.(*Sim).Cycle"] + cum["arcalis/vpi.(*Sim).RunUntilAny"] + cum["arcalis/vpi.(*LineMem).Run"]
	s.Eval = flat["runtime.cgocall"]
	s.Crossing = sim - s.Eval
	s.Score = cum["arcalis/tb.Score"]
	s.Snapshot = cum["arcalis/tb.(*Memory).snapshot"]
	s.Harness = cum["arcalis/tb.(*Accel).RunVector"] - sim - s.Score - s.Snapshot
	s.Runtime = s.Total - cum["arcalis/tb.(*Accel).RunVector"]
	return nil
}

// dur parses pprof's durations: "10ms", "1.23s", "450µs".
func dur(v string) time.Duration {
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"ms", 1e6}, {"µs", 1e3}, {"us", 1e3}, {"ns", 1}, {"s", 1e9}} {
		if strings.HasSuffix(v, u.suffix) {
			x, _ := strconv.ParseFloat(strings.TrimSuffix(v, u.suffix), 64)
			return time.Duration(x * u.scale)
		}
	}
	return 0
}
