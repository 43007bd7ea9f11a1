// Command bench runs the benchmarks of issue 5 (`make bench`): the RTL against
// line rate, the Go harness against native Verilator, golden against Apache.
//
// It writes reports/bench.md and the SVG plots beside it. Every ratio in the
// report comes from measurements taken in this one run.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"arcalis/internal/machine"
	"arcalis/tb"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// options are the command line.
type options struct {
	native, out, vectors, model string
	reps, sweepN, largeN        int
	latency, cpu                int // a -child process: the memory latency, the CPU of its thread
	skipBuild, harnessOnly      bool
	child                       string // a -child process: its workload
	width                       int    // the model's datapath width (bytes per cycle), for the report
	timing                      string // that width's timing report (estimated Fmax), or ""
	pareto                      string // widths for pareto.{md,svg}: WIDTH=MODEL@REPORTDIR ...
	paretoOnly, paretoChild     bool
}

func run() error {
	var o options
	flag.StringVar(&o.native, "native", "build/bench/native/arcalis-native", "the native testbench (`make bench-native`)")
	flag.StringVar(&o.out, "out", "reports", "directory for bench.md and the SVG plots")
	flag.StringVar(&o.vectors, "vectors", "vectors/default.vec", "the default vectors")
	flag.StringVar(&o.model, "model", "", "Verilated model library (default: build/model/libvmodel.so)")
	flag.IntVar(&o.reps, "reps", 25, "repetitions of each harness measurement (medians are reported)")
	flag.IntVar(&o.sweepN, "sweep-requests", 200, "requests per point of the latency sweep")
	flag.IntVar(&o.largeN, "large-requests", 48, "requests of the large-value workload")
	flag.BoolVar(&o.skipBuild, "skip-build", false, "skip section 5 (build and test times)")
	flag.BoolVar(&o.harnessOnly, "harness-only", false, "run section 3 alone (Go harness vs native), for quick comparisons")
	flag.IntVar(&o.width, "width", 16, "the model's datapath width in bytes per cycle (`make bench` passes WIDTH)")
	flag.StringVar(&o.timing, "timing", "", "the timing report (timing.json) of the model's width: its estimated Fmax turns cycles into ns (`make bench` passes it)")
	flag.StringVar(&o.pareto, "pareto", "", "also write pareto.{md,svg} for these widths: `WIDTH=MODEL@REPORTDIR ...` (`make bench` and `make pareto` pass every width)")
	flag.BoolVar(&o.paretoOnly, "pareto-only", false, "write pareto.{md,svg} alone (with -pareto)")
	flag.BoolVar(&o.paretoChild, "pareto-child", false, "internal: measure the Pareto report's workloads on -model and print them as JSON")
	flag.StringVar(&o.child, "child", "", "internal: time one Go harness run of this workload (default or large) and print it as JSON")
	flag.IntVar(&o.latency, "latency", 4, "with -child: the memory latency")
	flag.IntVar(&o.cpu, "cpu", -1, "with -child: the CPU of the thread that runs the harness (-1: any)")
	passes := flag.Int("passes", 1, "with -child: timed passes")
	score := flag.Bool("score", false, "with -child: through RunVector (the scoreboard), not Receive alone")
	flag.Parse()
	if o.model == "" {
		o.model = tb.FindModel()
	}
	if o.child != "" {
		return childMain(o, *passes, *score)
	}
	if o.paretoChild {
		return paretoChildMain(o)
	}
	var widths []widthSpec
	if o.pareto != "" || o.paretoOnly {
		var err error
		if widths, err = parseWidthSpecs(o.pareto); err != nil {
			return err
		}
	}
	if o.paretoOnly {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return err
		}
		return runPareto(widths, o.sweepN, o.out, machine.Describe())
	}
	if _, err := os.Stat(o.native); err != nil {
		return fmt.Errorf("native testbench: %w (build it with `make bench-native`)", err)
	}
	work := filepath.Join("build", "bench")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	start := time.Now()
	r := &report{Date: start.UTC(), Machine: machine.Describe(), Out: o.out, Width: o.width}
	if o.timing != "" {
		c, err := readClock(o.timing)
		if err != nil {
			return fmt.Errorf("%w (make timing WIDTH=%d writes it)", err, o.width)
		}
		r.Clock, r.Stale = &c, staleness(c, rtlTime())
	}
	var done func()
	step := func(what string) func() {
		fmt.Fprintf(os.Stderr, "bench: %s ...\n", what)
		t0 := time.Now()
		return func() { fmt.Fprintf(os.Stderr, "bench: %s done in %s\n", what, time.Since(t0).Round(time.Millisecond)) }
	}

	// Build and test times first: compiling would disturb the other timings.
	if o.harnessOnly {
		o.skipBuild = true
	}
	if !o.skipBuild {
		done := step("build and test times")
		top, sources := os.Getenv("BENCH_VPI_TOP"), os.Getenv("BENCH_VPI_SOURCES")
		if top == "" || sources == "" {
			return fmt.Errorf("BENCH_VPI_TOP or BENCH_VPI_SOURCES is empty: run through `make bench`, which passes the model's settings (or -skip-build)")
		}
		vars := []string{"VPI_TOP=" + top, "VPI_SOURCES=" + sources, "VPI_FLAGS=" + os.Getenv("BENCH_VPI_FLAGS")}
		c, err := measureBuild("make", "go", filepath.Join(work, "scratch-model"), vars)
		if err != nil {
			return err
		}
		r.Build = &c
		done()
	}

	if !o.harnessOnly {
		for _, g := range []struct {
			what, pkg, pattern string
			into               *map[string]goBench
		}{
			{"golden vs Apache Thrift (go test -bench)", "./golden", "^BenchmarkDecode$", &r.Decode},
			{"cgo crossing (vpi BenchmarkCycle)", "./vpi", "^BenchmarkCycle$", &r.Crossing},
		} {
			done = step(g.what)
			res, err := runGoBench("go", g.pkg, g.pattern, 5, "")
			if err != nil {
				return err
			}
			*g.into = res
			done()
		}
	}

	a, err := tb.OpenWindowed(o.model, tb.MemConfig{})
	if err != nil {
		return err
	}
	defer a.Close()

	if !o.harnessOnly {
		done = step("line rate (every size x every start offset)")
		offsets := make([]int, 64)
		for i := range offsets {
			offsets[i] = i
		}
		pts, err := runLineRate(a, lineRateSizes(), offsets, 0)
		if err != nil {
			return err
		}
		r.LinePoints = pts
		r.Sizes = summarizeSizes(pts, o.width)
		if r.Rates, err = runRates(a, []int{0, 1, 2, 4, 8, 16, 24, 30, 31, 32, 33}); err != nil {
			return err
		}
		if r.Tiny, err = memcTiny(a, o.width); err != nil {
			return err
		}
		done()

		done = step("latency sweep (Figure 15 shape)")
		if r.Sweep, err = runSweep(a, o.sweepN); err != nil {
			return err
		}
		done()
	}

	done = step("Go harness vs native testbench")
	dv, err := defaultVectors(o.vectors)
	if err != nil {
		return err
	}
	lv, err := largeValues(o.largeN)
	if err != nil {
		return err
	}
	for _, w := range []harnessWorkload{dv, lv} {
		h, err := compareHarness(o.native, work, o, w, o.reps)
		if err != nil {
			return err
		}
		r.Harness = append(r.Harness, h)
	}
	done()

	done = step("Go harness vs native testbench at longer memory latencies")
	if r.Latencies, err = compareLatencies(o.native, work, o, dv, []int{4, 12, 40}, o.reps/2|1); err != nil {
		return err
	}
	done()

	done = step("profile of the Go harness")
	for _, w := range []harnessWorkload{dv, lv} {
		// About three seconds of each: at pprof's 100 samples a second,
		// fewer leave each share a few samples wide.
		passes := max(1, 240000/len(w.Jobs)/max(1, int(r.meanCycles(w.Name))/40))
		s, err := profileHarness(a, w, passes, filepath.Join(work, strings.ReplaceAll(w.Name, " ", "-")+".pprof"))
		if err != nil {
			return err
		}
		r.Profiles = append(r.Profiles, namedSplit{w.Name, s})
		c, err := timeCalls(a, w, passes)
		if err != nil {
			return err
		}
		r.Calls = append(r.Calls, c)
	}
	done()

	r.Elapsed = time.Since(start)
	if o.harnessOnly {
		var b strings.Builder
		r.harnessSection(func(format string, args ...any) { fmt.Fprintf(&b, format, args...) })
		return os.WriteFile(filepath.Join(o.out, "bench-harness.md"), []byte(b.String()), 0o644)
	}
	if err := plotLineRate(r.Sizes, filepath.Join(o.out, "bench-linerate.svg")); err != nil {
		return err
	}
	if err := plotSweep(r.Sweep, filepath.Join(o.out, "bench-fig15.svg"), filepath.Join(o.out, "bench-fig15-normalized.svg")); err != nil {
		return err
	}
	md := r.markdown()
	path := filepath.Join(o.out, "bench.md")
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: wrote %s and %s/bench-*.svg in %s\n", path, o.out, r.Elapsed.Round(time.Second))
	if len(widths) > 0 {
		return runPareto(widths, o.sweepN, o.out, r.Machine)
	}
	return nil
}
