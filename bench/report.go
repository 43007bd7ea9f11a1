package main

import (
	"fmt"
	"math"
	"strings"
	"time"
)

type namedSplit struct {
	Workload string
	Split    timeSplit
}

// report is everything one run measured.
type report struct {
	Date       time.Time
	Machine    string
	Out        string // the directory the report is written to (for links)
	Width      int    // the model's datapath width, bytes per cycle
	Clock      *clock // that width's estimated Fmax; nil: no nanoseconds
	Stale      string // why the timing report may be of older RTL than the model, or ""
	Elapsed    time.Duration
	Build      *buildCost
	Decode     map[string]goBench
	Crossing   map[string]goBench
	LinePoints []linePoint
	Sizes      []sizeSummary
	Rates      []rateResult
	Tiny       tinyResult
	Sweep      []sweepPoint
	Harness    []harnessResult
	Latencies  []latencyPoint
	Profiles   []namedSplit
	Calls      []callSplit
}

// meanCycles is the mean simulated cycles per request of a harness workload.
func (r *report) meanCycles(name string) float64 {
	for _, h := range r.Harness {
		if h.Workload.Name == name {
			return float64(h.Nat.Cycles) / float64(h.Nat.Requests)
		}
	}
	return 0
}

// rateSpan is the slowest and fastest of runs in simulated Mcycles/s.
func rateSpan(ts []throughput) string {
	lo, hi := math.Inf(1), 0.0
	for _, t := range ts {
		lo, hi = min(lo, t.CyclesPerSec()/1e6), max(hi, t.CyclesPerSec()/1e6)
	}
	return fmt.Sprintf("%.2f..%.2f", lo, hi)
}

// ratios is rs as "59% on CPU 0, 74% on CPU 1"; ok if each is at least
// floor.
func ratios(rs []cpuRatio, floor float64) (text string, ok bool) {
	var parts []string
	ok = true
	for _, r := range rs {
		where := fmt.Sprintf("on CPU %d", r.CPU)
		if r.CPU < 0 {
			where = "unpinned"
		}
		parts = append(parts, fmt.Sprintf("%.0f%% %s", 100*r.Ratio, where))
		ok = ok && r.Ratio >= floor
	}
	return strings.Join(parts, ", "), ok
}

// placementSpread compares the native testbench's runs: within is the
// largest difference between the two runs of one copy, across that between
// the slowest and the fastest copy on one CPU (each the mean of its two
// runs), both relative to the faster.
func placementSpread(h harnessResult) (within, across float64) {
	lo, hi := map[int]float64{}, map[int]float64{}
	for i, a := range h.Native {
		b, cpu := h.NativeAgain[i], h.CPUs[i]
		within = max(within, math.Abs(a.Seconds-b.Seconds)/min(a.Seconds, b.Seconds))
		m := (a.Seconds + b.Seconds) / 2
		if l, ok := lo[cpu]; !ok || m < l {
			lo[cpu] = m
		}
		hi[cpu] = max(hi[cpu], m)
	}
	for cpu := range lo {
		across = max(across, hi[cpu]/lo[cpu]-1)
	}
	return within, across
}

func passFail(ok bool) string {
	if ok {
		return "**met**"
	}
	return "**not met**"
}

func (r *report) markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Benchmarks\n\n")
	p("Written by `make bench` (`go run ./bench`) on %s UTC in %s.\n\n", r.Date.Format("2006-01-02 15:04"), r.Elapsed.Round(time.Second))
	p("Machine: %s.\n\n", r.Machine)
	r.clockNote(p)
	p("The machine is shared and noisy: every comparison below is a ratio of measurements taken\n" +
		"side by side in this run (interleaved repetitions, medians), never a number from another run.\n\n")

	r.summary(p)
	r.lineRate(p)
	r.sweepSection(p)
	r.harnessSection(p)
	r.decodeSection(p)
	r.buildSection(p)
	return b.String()
}

type printer func(format string, args ...any)

// clockNote says which clock the report's nanoseconds are at.
func (r *report) clockNote(p printer) {
	if r.Clock == nil {
		p("Datapath width %d bytes per cycle. No timing report was given (`-timing`), so the times are\n"+
			"in cycles only.\n\n", r.Width)
		return
	}
	c := r.Clock
	md := linkTo(r.Out, strings.TrimSuffix(c.Path, ".json")+".md")
	p("Datapath width %d bytes per cycle. **Nanoseconds are cycles at this width's estimated Fmax,\n"+
		"%.1f MHz** (%.3f ns per cycle), read from %s ([%s](%s), written %s on %s): a static timing\n"+
		"estimate of the Yosys netlist of the same width, not a place-and-route result, so every ns\n"+
		"below is an estimate too. Every width side by side, with the paper's figures:\n"+
		"[pareto.md](pareto.md).\n\n", r.Width, c.MHz, c.NS(1), c.Path, md, md, c.Date, c.Host)
	if r.Stale != "" {
		p("**The timing report may be of older RTL than the model simulated here:** %s; `make timing`\n"+
			"(after `make report`) brings it up to date.\n\n", r.Stale)
	}
}

// targets lists the targets and whether this run met them.
func (r *report) targets() [][3]string {
	var rows [][3]string
	t := r.Tiny
	rows = append(rows, [3]string{fmt.Sprintf("memc-tiny Set within its schedule, %s cycles over the 64 start offsets at %d B/cycle (section 1), zero latency",
		span(t.MinSched, t.MaxSched), r.Width),
		fmt.Sprintf("%s cycles%s; %s against the schedule", span(t.Min, t.Max), r.nsSpan(t.Min, t.Max), overSpan(t.BestOver, t.WorstOver)),
		passFail(t.WorstOver <= 0)})
	worst, best, at := -1<<30, 1<<30, 0
	for _, s := range r.Sizes {
		if s.WorstOver > worst {
			worst, at = s.WorstOver, s.Size
		}
		best = min(best, s.BestOver)
	}
	rows = append(rows, [3]string{"no size and start offset above its schedule (section 1), zero latency",
		fmt.Sprintf("%s against the schedule (worst at %d B)", overSpan(best, worst), at), passFail(worst <= 0)})
	// Re-derived for the registered datapath (issue 14): 95 % of its own
	// streaming bound, where issue 5's pipeline had 0.95 lines per cycle.
	bound := streamBound(r.Width)
	okTo, rateAtMax, failed := -1, 0.0, false
	for _, q := range r.Rates { // in rising latency
		if failed = failed || q.Marginal < 0.95*bound; !failed {
			okTo = q.Latency
		}
		if q.Latency == InFlight {
			rateAtMax = q.Marginal
		}
	}
	rows = append(rows, [3]string{fmt.Sprintf("large requests sustain >= 95%% of the datapath's streaming bound, %d/(64+%d) = %.3f lines/cycle, up to latency %d (the loads allowed in flight)",
		r.Width, r.Width, bound, InFlight),
		fmt.Sprintf(">= %.3f up to latency %d; %.3f at %d (Little's law with %d in flight: %.3f)",
			0.95*bound, okTo, rateAtMax, InFlight, InFlight, float64(InFlight)/float64(InFlight+1)),
		passFail(okTo >= InFlight)})
	for _, h := range r.Harness {
		full, ok := ratios(h.byCPU(h.Full), 0.8)
		sim, _ := ratios(h.byCPU(h.Sim), 0.8)
		rows = append(rows, [3]string{"Go harness >= 80% of native throughput: " + h.Workload.Name,
			fmt.Sprintf("%s with the scoreboard; %s simulation and models alone", full, sim), passFail(ok)})
	}
	minSpeed, maxAlloc := 1e9, 0.0
	for _, mix := range []string{"memc-tiny", "memc-small", "etc"} {
		g, a := r.Decode["BenchmarkDecode/"+mix+"/golden"], r.Decode["BenchmarkDecode/"+mix+"/apache"]
		if g.NsPerOp > 0 {
			minSpeed = min(minSpeed, a.NsPerOp/g.NsPerOp)
		}
		maxAlloc = max(maxAlloc, g.AllocsPerOp)
	}
	rows = append(rows, [3]string{"golden >= 5x faster than Apache Thrift, 0 allocations per request",
		fmt.Sprintf("%.1fx at least, %.0f allocations", minSpeed, maxAlloc), passFail(minSpeed >= 5 && maxAlloc == 0)})
	rows = append(rows, [3]string{"`make bench` under 15 minutes", r.Elapsed.Round(time.Second).String() + " (the benchmark program; the native build is before it)", passFail(r.Elapsed < 15*time.Minute)})
	return rows
}

// span is "a..b", or "a" when they are equal.
func span(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d..%d", lo, hi)
}

// overSpan is cycles - schedule from lo to hi, signed.
func overSpan(lo, hi int) string {
	if lo == hi {
		return fmt.Sprintf("%+d", lo)
	}
	return fmt.Sprintf("%+d..%+d", lo, hi)
}

// nsSpan is " (a..b ns at the estimated Fmax)", or "" without a clock.
func (r *report) nsSpan(lo, hi int) string {
	if r.Clock == nil {
		return ""
	}
	return fmt.Sprintf(" (%.0f..%.0f ns at the estimated Fmax)", r.Clock.NS(float64(lo)), r.Clock.NS(float64(hi)))
}

func (r *report) summary(p printer) {
	p("## Targets\n\n| target (issues 5 and 14) | this run | |\n|---|---|---|\n")
	for _, row := range r.targets() {
		p("| %s | %s | %s |\n", row[0], row[1], row[2])
	}
	p("\n")
}

func (r *report) lineRate(p printer) {
	p("## 1. The RTL against its schedule and line rate\n\n")
	p("Cycles from the edge that takes `CMD_SEND_NET_LEN` to the edge whose status load sees ready\n" +
		"(`Outcome.Cycles`), for a Set CALL with an 8-byte key whose value fills the message to each\n" +
		"size, at every start offset 0..63, memory latency 0 (an answer on the edge after the request),\n" +
		"every request checked against the reference.\n\n")
	p("**The schedule.** Every parser decision is a register, so each step of a request is a fixed\n"+
		"run of states (docs/abi.md section 10). Their costs, added up over the message, are the\n"+
		"cycles the RTL should take; the targets above hold it to them, so a cycle lost anywhere\n"+
		"shows. At %d bytes per cycle:\n\n", r.Width)
	p("| step | cycles |\n|---|---:|\n")
	for _, c := range scheduleSteps(r.Width) {
		p("| %s | %s |\n", c[0], c[1])
	}
	p("\nA Set of this sweep costs the first three rows, four header items, req_id (header, i64), key and\n" +
		"value (header, length, body, the item after it), flags and exptime (header, i32 each), STOP\n" +
		"and the last row.\n\n")
	p("![cycles against size](bench-linerate.svg)\n\n")
	nsCol, nsSep := "", ""
	if r.Clock != nil {
		nsCol, nsSep = " ns at the estimated Fmax (min..max) |", "---:|"
	}
	p("| size (B) | schedule (min..max over offsets) | cycles (min..max over offsets) |%s cycles - schedule (min..max) | worst offset |\n|---:|---:|---:|%s---:|---:|\n", nsCol, nsSep)
	for _, s := range r.Sizes {
		ns := ""
		if r.Clock != nil {
			ns = fmt.Sprintf(" %.0f..%.0f |", r.Clock.NS(float64(s.MinCycles)), r.Clock.NS(float64(s.MaxCycles)))
		}
		p("| %d | %s | %s |%s %s | %d |\n", s.Size, span(s.MinSched, s.MaxSched), span(s.MinCycles, s.MaxCycles), ns,
			overSpan(s.BestOver, s.WorstOver), s.WorstOffset)
	}
	p("\n")
	p("**Sustained rate.** Lines per cycle between a 32 KiB and a 64 KiB Set at offset 0 (marginal:\n"+
		"fixed costs cancel) and overall for the 64 KiB Set. With %d loads in flight and an answer\n"+
		"latency+1 cycles after its request, Little's law caps the rate at %d/(latency+1).\n\n", InFlight, InFlight)
	gbCol, gbSep := "", ""
	if r.Clock != nil {
		gbCol, gbSep = " GB/s at the estimated Fmax |", "---:|"
	}
	p("| memory latency | 64 KiB Set cycles | marginal lines/cycle | overall lines/cycle | %d/(latency+1) | marginal bytes/cycle |%s\n|---:|---:|---:|---:|---:|---:|%s\n", InFlight, gbCol, gbSep)
	for _, q := range r.Rates {
		gb := ""
		if r.Clock != nil {
			gb = fmt.Sprintf(" %.2f |", r.Clock.GBPerSec(q.BytesPerCycle()))
		}
		p("| %d | %d | %.3f | %.3f | %.3f | %.2f |%s\n", q.Latency, q.Big.Cycles, q.Marginal, q.Overall, q.LittleBound, q.BytesPerCycle(), gb)
	}
	if r.Clock != nil {
		p("\nMarginal bytes/cycle are the message bytes the 64 KiB Set has over the 32 KiB one by the cycles it\n" +
			"takes over it; GB/s (10^9 bytes) is that measured rate times the estimated Fmax, not the nominal width.\n")
	}
	p("\nA load slot and a store credit each turn around in latency+1 cycles (an answer arriving in a\n"+
		"cycle frees its slot for that cycle's request), so memory holds the rate at one line per cycle\n"+
		"up to latency %d and bounds it by the loads in flight from %d on; below that the datapath's own\n"+
		"bound, %d/(64+%d) = %.3f lines per cycle at this width, is the limit.\n\n", InFlight-1, InFlight, r.Width, r.Width, streamBound(r.Width))
}

func (r *report) sweepSection(p printer) {
	p("## 2. End-to-end cycles against memory latency (the shape of Figure 15)\n\n")
	n := 0
	if len(r.Sweep) > 0 {
		n = r.Sweep[0].Requests
	}
	p("%d requests per point of each mix (half Set, half Get: the paper's mid write intensity),\n"+
		"from the first command of a request to the status that ends it (for a Set CALL, the\n"+
		"reply's), at memory latencies of 5 to 900 cycles (1 GHz: 5 ns to 900 ns). \"%d in flight\" is the\n"+
		"RTL's own limit (arcalis_top's LdqDepth, StqDepth); \"1 in flight\" lets the interconnect hold one load and one\n"+
		"store at a time (`MemConfig.MaxInFlight`). Every request was checked against the reference.\n\n", InFlight, n)
	p("![cycles per request against latency](bench-fig15.svg)\n\n![normalized](bench-fig15-normalized.svg)\n\n")
	r.sweepTable(p, " 900 vs 5 | round trips per request |", "---:|---:|", func(pts []sweepPoint) string {
		if len(pts) == 0 {
			return ""
		}
		var b strings.Builder
		var at500 float64
		for _, q := range pts {
			if q.Latency == 500 {
				at500 = q.PerReq
			}
			fmt.Fprintf(&b, " %.0f |", q.PerReq)
		}
		first, last := pts[0].PerReq, pts[len(pts)-1].PerReq
		fmt.Fprintf(&b, " %.1fx | %.2f |", last/first, (last-at500)/400)
		return b.String()
	})
	p("\n\"Round trips per request\" is the slope between 500 and 900 cycles: how many memory latencies\n" +
		"each request waits for in series. With the RTL's own limit a Set waits for its loads (issued together),\n" +
		"then for the acknowledgement of its stores, then for its reply's (three); a Get for its load and\n" +
		"for its header line's acknowledgement (two): 2.5 on average for every mix. With one at a time every line\n" +
		"is a round trip of its own, so the cost grows with the lines per request (etc's values average\n" +
		"about 330 bytes).\n\n" +
		"Against the paper's Figure 15: the shape is the same (cost rising with latency, the small\n" +
		"Memcached requests the most exposed because nothing else hides the latency), but the\n" +
		"magnitude is not comparable. The paper measures whole-system execution time, in which the\n" +
		"business logic and the network stack do not depend on this latency, so Memcached degrades by\n" +
		"up to 114%%; here only the accelerator's own cycles are counted, so at 900 cycles they are\n" +
		"almost all latency. The paper sweeps the core-to-accelerator (command) interconnect; the\n" +
		"harness's UC accesses are answered in one cycle by the ABI, so the sweep applies the latency to\n" +
		"the accelerator's memory port.\n\n")
	r.sweepNS(p)
}

// sweepNS is the sweep's table again in nanoseconds per request at the
// estimated Fmax (the memory latency stays in cycles).
func (r *report) sweepNS(p printer) {
	if r.Clock == nil {
		return
	}
	p("The sweep's cycles per request in **nanoseconds at the estimated Fmax** (%.1f MHz; the memory latency\n"+
		"stays in engine cycles, %.1f ns each):\n\n", r.Clock.MHz, r.Clock.NS(1))
	r.sweepTable(p, "", "", func(pts []sweepPoint) string {
		var b strings.Builder
		for _, q := range pts {
			fmt.Fprintf(&b, " %.0f |", r.Clock.NS(q.PerReq))
		}
		return b.String()
	})
}

// sweepTable prints a table of the sweep: a row per mix and in-flight limit,
// a column per latency and then extra columns; row gives a row's cells from
// its points in rising latency.
func (r *report) sweepTable(p printer, extra, extraSep string, row func([]sweepPoint) string) {
	p("| mix | in flight |")
	for _, l := range sweepLatencies {
		p(" %d |", l)
	}
	p("%s\n|---|---|", extra)
	for range sweepLatencies {
		p("---:|")
	}
	p("%s\n", extraSep)
	for _, mix := range []string{"memc-tiny", "memc-small", "etc"} {
		for _, inflight := range []int{0, 1} {
			name := fmt.Sprint(InFlight)
			if inflight == 1 {
				name = "1"
			}
			var pts []sweepPoint
			for _, q := range r.Sweep {
				if q.Mix == mix && q.InFlight == inflight {
					pts = append(pts, q)
				}
			}
			p("| %s | %s |%s\n", mix, name, row(pts))
		}
	}
	p("\n")
}

func (r *report) harnessSection(p printer) {
	p("## 3. The Go harness against a native Verilator testbench\n\n")
	p("The native testbench (`bench/native/tb.cpp`, `make bench-native`) drives the same RTL, Verilated\n"+
		"with the model's flags (`--cc --vpi --trace-fst --assert`, the same public ports) and compiled -O2,\n"+
		"through the same request sequence with the same memory behaviour (fixed latency, in order),\n"+
		"by direct port member access: no VPI, no Go, no checking. The Go harness runs the same requests\n"+
		"through `tb.Accel.RunVector` (simulation, memory and core models, scoreboard against the\n"+
		"reference) and through `tb.Accel.Receive` alone (simulation and models, what the native\n"+
		"testbench does), both as `arcalis run` does by default: the memory's traffic answered inside\n"+
		"the shim by its line memory (`vpi.LineMem`, for a plain memory like this one), and a request's\n"+
		"commands, poll and status read in one call. The line memory is mechanism only (an answer\n"+
		"queue, page access and a log); `tb.Memory` judges every call's log in Go. Memory latency 4\n"+
		"(`arcalis run`'s default). Each repetition runs the three\n"+
		"one after the other, each in a process of its own (the Go runs after one untimed pass) and\n"+
		"over enough passes of the workload for the native run to take about 150 ms; throughputs\n"+
		"are medians of %d repetitions, and \"vs native\" is the median of the repetitions' ratios\n"+
		"(native time / Go time).\n\n"+
		"Each repetition runs from fresh copies of the native testbench, the Go program and the model\n"+
		"library, and each of its runners with the thread that simulates on one CPU, the\n"+
		"first CPU in odd repetitions and the second in even ones (`taskset` for the native testbench,\n"+
		"`sched_setaffinity` on the Go harness's simulating thread only, so that the Go runtime's other\n"+
		"threads run where they would). Both guard against this kind of virtual machine: one of its two\n"+
		"CPUs can run the same program much slower than the other for minutes on end, and\n"+
		"byte-identical copies of one program, on one CPU, run at different speeds, each keeping\n"+
		"its speed from run to run (the page placement of its file). Unpinned, with one set of files,\n"+
		"a whole run drew both once for each side, and the ratio moved from run to run with them\n"+
		"(65%% to 96%% in the runs recorded before). The notes under the table give this run's\n"+
		"spread by CPU, and two runs of one copy against the copies.\n\n", len(r.Harness[0].Full))
	p("| workload | runner | requests/s | simulated Mcycles/s | vs native, by CPU |\n|---|---|---:|---:|---|\n")
	for _, h := range r.Harness {
		for _, row := range []struct {
			name string
			t    throughput
			runs []throughput
		}{{"native C++", h.Nat, h.Native}, {"Go: RunVector (with scoreboard)", h.MedFull, h.Full}, {"Go: Receive (simulation and models)", h.MedSim, h.Sim}} {
			vs, _ := ratios(h.byCPU(row.runs), 0)
			p("| %s (%s) | %s | %.0f | %.2f | %s |\n", h.Workload.Name, h.Workload.What, row.name,
				row.t.RequestsPerSec(), row.t.CyclesPerSec()/1e6, vs)
		}
	}
	p("\n")
	for _, h := range r.Harness {
		same := "every request took the same number of cycles and reported the same status word in all three"
		if !h.SameCycles {
			same = "**the runners disagree on some request's cycles or status: the comparison is not sound**"
		}
		var speeds []string
		for _, c := range h.byCPU(h.Full) {
			speeds = append(speeds, fmt.Sprintf("%.2f on CPU %d (%d repetitions)", c.Native.CyclesPerSec()/1e6, c.CPU, c.Reps))
		}
		within, across := placementSpread(h)
		p("- %s: %d requests and %d simulated cycles per pass, %d passes per run; %s. The native testbench ran %s Mcycles/s (medians), %s over all repetitions, and RunVector %s; two runs of one copy of the native testbench were at most %.0f%% apart, its copies on one CPU (the mean of their two runs) up to %.0f%%.\n",
			h.Workload.Name, h.Requests, h.Nat.Cycles/uint64(h.Passes), h.Passes, same, strings.Join(speeds, ", "),
			rateSpan(h.Native), rateSpan(h.Full), 100*within, 100*across)
	}
	r.latencySection(p)
	p("\n### Where the Go harness's time goes\n\n")
	p("CPU profile (`runtime/pprof`) of `RunVector` over each workload. \"Simulator\" is the time inside the\n" +
		"C shim (model evaluation and port copies); \"cgo crossings\" the cgo entry and exit around it;\n" +
		"\"scoreboard\" `tb.Score` (the reference and the comparison of the whole App.Recv image);\n" +
		"\"snapshots\" the App.Recv copies; \"bus models\" the rest of the testbench (memory, cores,\n" +
		"coverage); \"runtime\" garbage collection and the scheduler outside them.\n\n")
	p("| workload | samples | simulator | cgo crossings | scoreboard | snapshots | bus models | runtime | per request | per cycle |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, ns := range r.Profiles {
		s := ns.Split
		pc := func(d time.Duration) string { return fmt.Sprintf("%.0f%%", 100*float64(d)/float64(s.Total)) }
		p("| %s | %s | %s | %s | %s | %s | %s | %s | %.1f µs | %.0f ns |\n", ns.Workload, s.Total, pc(s.Eval), pc(s.Crossing),
			pc(s.Score), pc(s.Snapshot), pc(s.Harness), pc(s.Runtime),
			float64(s.Total.Microseconds())/float64(s.Requests), float64(s.Total.Nanoseconds())/float64(s.Cycles))
	}
	p("\nThe simulator's share is the same model evaluation the native testbench does, plus the\n" +
		"line memory's work (the plain memory model, answered inside the shim) and the copies of each\n" +
		"call's input frames and samples, in a -fPIC library (built -fno-semantic-interposition:\n" +
		"without it the model ran about a third slower). The other shares are what the harness adds.\n" +
		"The cgo share is small because a request is one call (its commands as input frames, the\n" +
		"poll until ready, then the status read as a tail of frames: `vpi.LineMem.Run`) and a reply\n" +
		"another. The scoreboard's share is `tb.Score`: the reference and a comparison of App.Recv,\n" +
		"which `tb.Receive` offers just large enough for each message's value.\n")
	r.callsSection(p)
	c1, cN := r.Crossing["BenchmarkCycle/ports/Cycle(1)"], r.Crossing["BenchmarkCycle/ports/Cycle(1000)"]
	if c1.NsPerOp > 0 && cN.NsPerOp > 0 {
		p("\nOne cgo crossing, from `go test -bench BenchmarkCycle ./vpi` (a small counter design) in this run:\n"+
			"%.1f ns per cycle with one call per cycle, %.1f ns per cycle with one call per 1000 cycles:\n"+
			"**%.1f ns per crossing**.\n", c1.NsPerOp, cN.NsPerOp, c1.NsPerOp-cN.NsPerOp)
	}
	p("\n")
}

// latencySection shows RunVector against native as the memory latency,
// and with it the cycles each call into the shim may run, grows.
func (r *report) latencySection(p printer) {
	if len(r.Latencies) == 0 {
		return
	}
	p("\n### Against the memory latency\n\n")
	p("The default vectors once more through the native testbench and `RunVector`, at longer memory\n"+
		"latencies (medians of %d repetitions, fresh copies and one CPU each, as above). With the line\n"+
		"memory a request is one call whatever the latency, so a longer latency spreads a request's own\n"+
		"costs (the placement of its message, the scoreboard, its calls) over more cycles.\n\n",
		r.Latencies[0].Reps)
	p("| memory latency | cycles per request | native Mcycles/s | RunVector Mcycles/s | vs native |\n|---:|---:|---:|---:|---:|\n")
	for _, l := range r.Latencies {
		p("| %d | %.1f | %.2f | %.2f | %.0f%% |\n", l.Latency, l.CyclesPerRequest, l.Native.CyclesPerSec()/1e6, l.Full.CyclesPerSec()/1e6, 100*l.Ratio)
	}
}

// callsSection splits the harness's wall time between the simulator calls
// and Go, against the native testbench's whole cycle.
func (r *report) callsSection(p printer) {
	if len(r.Calls) == 0 {
		return
	}
	p("\nThe profile's samples blur where C ends and Go begins, so a pass of `Receive` alone also\n"+
		"times every simulator call by the wall clock (`vpi.Sim.TimeCalls`), against the native\n"+
		"testbench's whole cycle from the comparison above. The timing's own two clock reads per call\n"+
		"(%.0f ns each here, measured just before) are taken off the times below.\n\n", float64(r.Calls[0].Clock.Nanoseconds()))
	p("| workload | cycles per simulator call | Go harness, ns per cycle | inside the simulator calls | outside them (Go) | native testbench, ns per cycle | simulator calls against native |\n|---|---:|---:|---:|---:|---:|---:|\n")
	lo, hi := 1e9, 0.0
	for _, c := range r.Calls {
		native := 0.0
		for _, h := range r.Harness {
			if h.Workload.Name == c.Workload {
				native = h.Nat.NsPerCycle()
			}
		}
		in, all := c.nsPerCycle(c.InSim), c.nsPerCycle(c.Wall)
		lo, hi = min(lo, in/native), max(hi, in/native)
		p("| %s | %.2f | %.0f | %.0f | %.0f | %.0f | %.0f%% |\n", c.Workload, float64(c.Cycles)/float64(c.Calls),
			all, in, all-in, native, 100*in/native)
	}
	p("\nThe simulator calls alone take %.0f%% to %.0f%% of the native testbench's whole cycle, its\n"+
		"memory model included: the model's evaluation is the same, the line memory does the native\n"+
		"memory model's work, and the shim adds the copies of a call's frames and samples, cgo's entry\n"+
		"and exit, and a model that runs with caches the Go side has used between calls. The Go side's\n"+
		"time comes on top (placing each message, the scoreboard, setting up each call), so no Go\n"+
		"harness on this shim can pass native time / time inside the calls (the last column's inverse).\n", 100*lo, 100*hi)
}

func (r *report) decodeSection(p printer) {
	p("## 4. The reference against Apache Thrift\n\n")
	p("`go test -bench BenchmarkDecode ./golden` (`golden/apache_bench_test.go`), medians of 5 runs. The\n" +
		"same Set messages of each mix (2,000 generated, their Sets decoded in turn): `golden.Deserialize`\n" +
		"into an App.Recv image, against Apache Thrift 0.17.0's generated Go code (`ReadMessageBegin`,\n" +
		"`MemcachedServiceSetArgs.Read`, `ReadMessageEnd`) over the binary protocol reading the bytes in\n" +
		"place (a transport over the slice; protocol and struct reused). Gets are left out: the\n" +
		"reference hands them to software after the header.\n\n")
	p("| mix | golden ns/request | golden MB/s | golden allocs | Apache ns/request | Apache MB/s | Apache allocs (B) | speed-up |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, mix := range []string{"memc-tiny", "memc-small", "etc"} {
		g, a := r.Decode["BenchmarkDecode/"+mix+"/golden"], r.Decode["BenchmarkDecode/"+mix+"/apache"]
		p("| %s | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f (%.0f) | %.1fx |\n", mix, g.NsPerOp, g.MBPerSec, g.AllocsPerOp,
			a.NsPerOp, a.MBPerSec, a.AllocsPerOp, a.BytesPerOp, a.NsPerOp/g.NsPerOp)
	}
	p("\n")
}

func (r *report) buildSection(p printer) {
	p("## 5. Build and test cost\n\n")
	if r.Build == nil {
		p("Skipped in this run (`-skip-build`).\n")
		return
	}
	c := r.Build
	suite := "passed"
	if !c.SuiteOK {
		suite = "**failed**"
	}
	p("| what | wall time |\n|---|---:|\n")
	p("| `make verilate` from scratch (vpi/build.mk into an empty directory, 2 compile jobs) | %s |\n", c.Scratch.Round(10*time.Millisecond))
	p("| `make verilate` with nothing changed | %s |\n", c.NoChange.Round(time.Millisecond))
	p("| `go test -count=1 ./...` (the whole suite; %s) | %s |\n\n", suite, c.Suite.Round(100*time.Millisecond))
	if !c.SuiteOK {
		p("Last lines of the failing suite:\n\n```\n%s\n```\n\n", c.SuiteTail)
	}
}
