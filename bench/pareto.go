package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"arcalis/bench/workload"
	rpt "arcalis/report"
	"arcalis/report/timing"
	"arcalis/tb"
)

// paretoLatency is the memory latency, in engine cycles, of the Pareto
// report's requests per second and its second streaming rate.
const paretoLatency = 100

// paretoMixes are the workloads of the Pareto report's requests per second.
var paretoMixes = []string{"memc-small", "etc"}

// paperMemcachedKRPS is the Arcalís paper's Memcached throughput (section
// VI-A, Figure 13): whole-system requests per second in gem5 full-system
// simulation with the engine at 1 GHz, from low to high write intensity.
var paperMemcachedKRPS = [2]float64{762, 1237}

// paperFigure19MHz is the clock of the paper's Figure 19 results: Vivado
// place and route on the xa7a12t-cpg238-2I (section VI-F1).
const paperFigure19MHz = 280

// clock is one width's estimated Fmax, from its timing report.
type clock struct {
	MHz  float64
	Path string // the timing report (JSON)
	Date string // when the report was written, as it says
	Host string
}

// NS is the time of cycles at the clock, in nanoseconds.
func (c clock) NS(cycles float64) float64 { return cycles * 1000 / c.MHz }

// PerSecond is how many requests a model that takes cycles for each, one
// after another, serves in a second at the clock.
func (c clock) PerSecond(cycles float64) float64 { return c.MHz * 1e6 / cycles }

// GBPerSec is a rate of bytes per cycle at the clock, in GB/s (10^9 bytes).
func (c clock) GBPerSec(bytesPerCycle float64) float64 { return bytesPerCycle * c.MHz / 1000 }

// readClock reads the estimated Fmax from a timing report (`make timing`'s
// timing.json).
func readClock(path string) (clock, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return clock{}, err
	}
	var t timing.Report
	if err := json.Unmarshal(b, &t); err != nil {
		return clock{}, fmt.Errorf("%s: %w", path, err)
	}
	if t.FmaxMHz <= 0 {
		return clock{}, fmt.Errorf("%s: no estimated Fmax (fmax_mhz %v)", path, t.FmaxMHz)
	}
	return clock{MHz: t.FmaxMHz, Path: path, Date: t.Date, Host: t.Host}, nil
}

// widthSpec is one datapath width's model and report directory.
type widthSpec struct {
	Width   int
	Model   string // the Verilated model library of that width
	Reports string // the directory with its yosys.json and timing.json
}

// parseWidthSpecs reads "8=build/model-w8/libvmodel.so@reports/w8 16=..."
// (items separated by spaces or commas).
func parseWidthSpecs(s string) ([]widthSpec, error) {
	var out []widthSpec
	for _, item := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\n' || r == '\t' }) {
		w, rest, ok1 := strings.Cut(item, "=")
		model, dir, ok2 := strings.Cut(rest, "@")
		n, err := strconv.Atoi(w)
		if !ok1 || !ok2 || err != nil || n <= 0 || model == "" || dir == "" {
			return nil, fmt.Errorf("-pareto %q: want WIDTH=MODEL@REPORTDIR", item)
		}
		out = append(out, widthSpec{Width: n, Model: model, Reports: dir})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-pareto %q: no widths", s)
	}
	return out, nil
}

// widthRun is what the Pareto report measures by simulating one width's
// model (a -pareto-child process).
type widthRun struct {
	Mixes []sweepPoint // paretoMixes at paretoLatency, the RTL's own limit in flight
	Rates []rateResult // large Sets at latency 0 and paretoLatency
	Sched []linePoint  // scheduleSizes at every start offset, latency 0
}

// scheduleSizes are the Sets the Pareto report holds to the schedule at
// every width: memc-tiny, one line, around a line, and several lines.
var scheduleSizes = []int{workload.MinSetSize, workload.MinSetSize + 8, 64, 127, 128, 129, 1000, 4096}

// measureWidth runs the Pareto report's workloads on the model in a.
func measureWidth(a *tb.Accel, requests int) (widthRun, error) {
	var w widthRun
	for _, name := range paretoMixes {
		mix, err := workload.MixByName(name)
		if err != nil {
			return w, err
		}
		reqs, err := mix.Generate(requests, sweepSeed)
		if err != nil {
			return w, err
		}
		p, err := runMix(a, name, reqs, paretoLatency, 0)
		if err != nil {
			return w, err
		}
		w.Mixes = append(w.Mixes, p)
	}
	offsets := make([]int, tb.LineSize)
	for i := range offsets {
		offsets[i] = i
	}
	var err error
	if w.Sched, err = runLineRate(a, scheduleSizes, offsets, 0); err != nil {
		return w, err
	}
	w.Rates, err = runRates(a, []int{0, paretoLatency})
	return w, err
}

// paretoChildMain is the -pareto-child process: measureWidth on o.model,
// the result as JSON on stdout. A process per width: one process holds
// one model.
func paretoChildMain(o options) error {
	a, err := tb.OpenWindowed(o.model, tb.MemConfig{})
	if err != nil {
		return err
	}
	defer a.Close()
	w, err := measureWidth(a, o.sweepN)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(w)
}

// runParetoChild measures one width's model in a new process of exe.
func runParetoChild(exe string, spec widthSpec, requests int) (widthRun, error) {
	cmd := exec.Command(exe, "-pareto-child", "-model", spec.Model, "-sweep-requests", strconv.Itoa(requests))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return widthRun{}, fmt.Errorf("width %d (%s): %w: %s", spec.Width, spec.Model, err, strings.TrimSpace(stderr.String()))
	}
	var w widthRun
	if err := json.Unmarshal(out, &w); err != nil {
		return widthRun{}, fmt.Errorf("width %d: -pareto-child output %.200q: %w", spec.Width, out, err)
	}
	return w, nil
}

// paretoRow is one width: its area and clock from its reports, and what
// this run measured on its model.
type paretoRow struct {
	Width    int
	Reports  string        // directory of its yosys.json and timing.json
	Area     rpt.Resources // the whole design (top's totals)
	Reconf   rpt.Resources // the reconfigurable region, as make report's Regions table counts it
	PowerMW  float64       // estimated dynamic power, 0 when the report has none
	PowerMHz float64       // the clock the power is estimated at
	Clock    clock
	Run      widthRun
	Stale    string // why the reports may be of other RTL than the model, or ""
}

// mix is the row's measurement of the named mix (zero if absent).
func (r paretoRow) mix(name string) sweepPoint {
	for _, m := range r.Run.Mixes {
		if m.Mix == name {
			return m
		}
	}
	return sweepPoint{}
}

// rate is the row's streaming rate at the memory latency (zero if absent).
func (r paretoRow) rate(latency int) rateResult {
	for _, q := range r.Run.Rates {
		if q.Latency == latency {
			return q
		}
	}
	return rateResult{}
}

// readArea fills the row's area and power from dir/yosys.json.
func (r *paretoRow) readArea(dir string) error {
	path := filepath.Join(dir, "yosys.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var rep rpt.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(rep.Blocks) == 0 {
		return fmt.Errorf("%s: no blocks", path)
	}
	r.Area = rep.Top().Total
	if !slices.ContainsFunc(rep.Blocks, func(b rpt.Block) bool { return b.Depth == 1 && b.Module == "rx_engine" }) {
		return fmt.Errorf("%s: no rx_engine block under the top: not a report of this design", path)
	}
	r.Reconf = rep.Regions()[1].Total
	if ps := rep.PowerSummary; ps != nil {
		r.PowerMW, r.PowerMHz = ps.DynamicW*1000, rep.FreqMHz
	}
	return nil
}

// rtlTime is when rtl/ last changed: its last commit, or the newest file
// time of an uncommitted change to it. Zero when git cannot tell.
func rtlTime() time.Time {
	var t time.Time
	if out, err := exec.Command("git", "log", "-1", "--format=%cI", "--", "rtl").Output(); err == nil {
		t, _ = time.Parse(time.RFC3339, strings.TrimSpace(string(out)))
	}
	if out, err := exec.Command("git", "status", "--porcelain", "--", "rtl").Output(); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			if len(line) < 4 {
				continue
			}
			if fi, err := os.Stat(strings.TrimSpace(line[3:])); err == nil && fi.ModTime().After(t) {
				t = fi.ModTime()
			}
		}
	}
	return t.UTC()
}

// staleness says why a timing report (and the synthesis it times, which
// make timing runs after) may be of older RTL than rtl/, which the model
// was built from, or "". A file's time says nothing in a fresh clone, so
// only the date the report carries is compared.
func staleness(c clock, rtl time.Time) string {
	d, err := time.Parse(time.RFC3339, c.Date)
	if rtl.IsZero() || err != nil || !d.Before(rtl) {
		return ""
	}
	return "timing report dated " + d.Format("2006-01-02 15:04") + ", before rtl/ last changed (" + rtl.Format("2006-01-02 15:04") + " UTC)"
}

// paretoReport is the per-width comparison `make pareto` writes.
type paretoReport struct {
	Date     time.Time
	Machine  string
	Elapsed  time.Duration
	Requests int // per mix and width
	Rows     []paretoRow
}

// runPareto reads every width's reports, simulates every width's model in
// a process of its own and writes pareto.md and pareto.svg into out.
func runPareto(specs []widthSpec, requests int, out, machine string) error {
	start := time.Now()
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	rep := paretoReport{Date: start.UTC(), Machine: machine, Requests: requests}
	rtl := rtlTime()
	for _, s := range specs {
		t0 := time.Now()
		fmt.Fprintf(os.Stderr, "bench: pareto: width %d (%s, %s) ...\n", s.Width, s.Model, s.Reports)
		row := paretoRow{Width: s.Width, Reports: s.Reports}
		if err := row.readArea(s.Reports); err != nil {
			return fmt.Errorf("width %d: %w (make report WIDTH=%d writes it)", s.Width, err, s.Width)
		}
		if row.Clock, err = readClock(filepath.Join(s.Reports, "timing.json")); err != nil {
			return fmt.Errorf("width %d: %w (make timing WIDTH=%d writes it)", s.Width, err, s.Width)
		}
		if row.Run, err = runParetoChild(exe, s, requests); err != nil {
			return err
		}
		row.Stale = staleness(row.Clock, rtl)
		if row.Stale != "" {
			fmt.Fprintf(os.Stderr, "bench: pareto: width %d: %s\n", s.Width, row.Stale)
		}
		rep.Rows = append(rep.Rows, row)
		fmt.Fprintf(os.Stderr, "bench: pareto: width %d done in %s\n", s.Width, time.Since(t0).Round(time.Millisecond))
	}
	rep.Elapsed = time.Since(start)
	md := filepath.Join(out, "pareto.md")
	if err := os.WriteFile(md, []byte(rep.markdown(out)), 0o644); err != nil {
		return err
	}
	svg := filepath.Join(out, "pareto.svg")
	if err := plotPareto(rep.Rows, svg); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: wrote %s and %s in %s\n", md, svg, rep.Elapsed.Round(time.Second))
	return nil
}

// kilo formats a rate per second in thousands, no decimals: 683.
func kilo(perSec float64) string { return rpt.Thousands(int(perSec/1000 + 0.5)) }

// linkTo is path relative to the directory the report is written to.
func linkTo(out, path string) string {
	if rel, err := filepath.Rel(out, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(path)
}

// markdown is pareto.md; out is the directory it is written to (for links).
func (rep paretoReport) markdown(out string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Area, clock and throughput per datapath width\n\n")
	p("Written by `make pareto` (`go run ./bench -pareto-only`; `make bench` writes it too) on %s UTC in %s.\n\n",
		rep.Date.Format("2006-01-02 15:04"), rep.Elapsed.Round(time.Second))
	p("Machine: %s.\n\n", rep.Machine)
	p("**Ours are estimates from Yosys, not from an FPGA build.** Per width: LUTs (logic + memory) and\n" +
		"flip-flops from `make report` (Yosys 0.23 `synth_xilinx`, its `yosys.json`); the clock is the\n" +
		"**estimated** Fmax of that same netlist from `make timing` (its `timing.json`: a static timing\n" +
		"model with no placement or routing, docs/timing.md; Vivado's place and route may land lower,\n" +
		"the timing report says by how much to allow). Every nanosecond, GB/s and request per second\n" +
		"below is a cycle count measured in this run by simulating that width's RTL, converted at that\n" +
		"width's own estimated Fmax. **The paper's figures** are Vivado place and route at 280 MHz on the\n" +
		"xa7a12t-cpg238-2I (Figure 19, the reconfigurable region alone) and whole-system Memcached\n" +
		"throughput from gem5 full-system simulation with the engine at 1 GHz (Figure 13).\n\n")
	for _, r := range rep.Rows {
		if r.Stale != "" {
			p("**Width %d: the reports may be of older RTL than the model simulated:** %s. `make pareto PARETO_REFRESH=1` rebuilds them.\n\n", r.Width, r.Stale)
		}
	}
	p("![LUTs against requests per second and estimated Fmax](pareto.svg)\n\n")

	p("## Side by side\n\n")
	p("| source | design | LUTs | FFs | Fmax (MHz) | dynamic power (mW) | memc-small kRPS | ETC kRPS |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rep.Rows {
		power := "–"
		if r.PowerMW > 0 {
			power = fmt.Sprintf("%.1f at %s MHz (estimate)", r.PowerMW, strconv.FormatFloat(r.PowerMHz, 'f', -1, 64))
		}
		p("| ours: Yosys estimate | receive path, %d B/cycle, all blocks | %s | %s | %.1f (estimate) | %s | %s | %s |\n",
			r.Width, rpt.Thousands(r.Area.TotalLUTs()), rpt.Thousands(r.Area.FFs), r.Clock.MHz, power,
			kilo(r.Clock.PerSecond(r.mix("memc-small").PerReq)), kilo(r.Clock.PerSecond(r.mix("etc").PerReq)))
	}
	for _, c := range rpt.Figure19 {
		p("| paper: Vivado place and route | %s, reconfigurable region (Figure 19) | %s | %s | %d | %.0f | – | – |\n",
			c.Name, rpt.Thousands(c.LUTs), rpt.Thousands(c.FFs), paperFigure19MHz, c.DynamicW*1000)
	}
	p("| paper: gem5 full-system simulation | Memcached, whole service (Figure 13) | – | – | 1,000 (simulated engine clock) | – | %s–%s (low to high write intensity) | – |\n\n",
		rpt.Thousands(int(paperMemcachedKRPS[0])), rpt.Thousands(int(paperMemcachedKRPS[1])))
	p("Ours count every block of the receive path (the Fixed Logic Region too); the paper's Figure 19\n" +
		"counts one service's reconfigurable region. The table below also gives our reconfigurable region\n" +
		"(RxEngine, TxEngine, output buffer and their glue: `make report`'s Regions table). Our\n" +
		"power is the model of `make report` (docs/reports.md), whose two coefficients were fitted to the\n" +
		"paper's two Figure 19 designs, at its clock, not at the estimated Fmax. Our requests per second\n" +
		"are the receive path alone at a fixed memory latency; the paper's are a whole Memcached service\n" +
		"(network stack, business logic, the RPC work) in a simulated system: not like for like.\n\n")

	p("## Area and clock\n\n")
	p("| width (B/cycle) | LUTs | FFs | reconfigurable region: LUTs / FFs | estimated Fmax (MHz) | one cycle (ns) | reports |\n|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range rep.Rows {
		p("| %d | %s | %s | %s / %s | %.1f | %.3f | [%s](%s), [%s](%s) (timing of %s on %s) |\n", r.Width,
			rpt.Thousands(r.Area.TotalLUTs()), rpt.Thousands(r.Area.FFs), rpt.Thousands(r.Reconf.TotalLUTs()), rpt.Thousands(r.Reconf.FFs),
			r.Clock.MHz, r.Clock.NS(1),
			linkTo(out, filepath.Join(r.Reports, "yosys.md")), linkTo(out, filepath.Join(r.Reports, "yosys.md")),
			linkTo(out, filepath.Join(r.Reports, "timing.md")), linkTo(out, filepath.Join(r.Reports, "timing.md")),
			r.Clock.Date, r.Clock.Host)
	}
	p("\n")

	p("## Throughput at the estimated Fmax\n\n")
	p("**Streaming.** Message bytes per cycle between a 32 KiB and a 64 KiB Set at start offset 0 (the\n"+
		"bytes the larger has over the smaller, by the cycles it takes over it: fixed costs cancel), as\n"+
		"`make bench`'s sustained rate, at memory latency 0 and %d cycles; GB/s (10^9 bytes) is that\n"+
		"rate times the estimated Fmax, not the nominal width.\n\n", paretoLatency)
	p("| width (B/cycle) | B/cycle, latency 0 | GB/s at Fmax, latency 0 | B/cycle, latency %d | GB/s at Fmax, latency %d |\n|---:|---:|---:|---:|---:|\n",
		paretoLatency, paretoLatency)
	for _, r := range rep.Rows {
		q0, q1 := r.rate(0), r.rate(paretoLatency)
		p("| %d | %.2f | %.2f | %.2f | %.2f |\n", r.Width, q0.BytesPerCycle(), r.Clock.GBPerSec(q0.BytesPerCycle()),
			q1.BytesPerCycle(), r.Clock.GBPerSec(q1.BytesPerCycle()))
	}
	p("\n**Against the schedule.** The cycles docs/abi.md section 10's step costs add up to\n"+
		"(`bench/schedule.go`), and what the RTL took: Sets of %s bytes at every start offset 0..63,\n"+
		"memory latency 0, every request checked against the reference. A positive difference is a\n"+
		"cycle lost somewhere.\n\n", strings.Trim(strings.Join(strings.Fields(fmt.Sprint(scheduleSizes)), ", "), "[]"))
	p("| width (B/cycle) | requests | cycles - schedule (min..max) | |\n|---:|---:|---:|---|\n")
	for _, r := range rep.Rows {
		lo, hi := 1<<30, -1<<30
		for _, s := range summarizeSizes(r.Run.Sched, r.Width) {
			lo, hi = min(lo, s.BestOver), max(hi, s.WorstOver)
		}
		if len(r.Run.Sched) == 0 {
			p("| %d | 0 | | not measured |\n", r.Width)
			continue
		}
		p("| %d | %d | %s | %s |\n", r.Width, len(r.Run.Sched), overSpan(lo, hi), passFail(hi <= 0))
	}
	p("\n**Requests.** %d requests of each mix (half Set, half Get: the same requests as `make bench`'s\n"+
		"latency sweep), memory latency %d engine cycles, the RTL's own limit on loads in flight, every\n"+
		"request checked against the reference. Cycles per request run from a request's first command to\n"+
		"the status that ends it (for a Set, its reply's). One model serves the requests one after\n"+
		"another, so **requests/s = estimated Fmax / cycles per request**. The latency is in cycles, so\n"+
		"in nanoseconds it differs per width (the last column).\n\n", rep.Requests, paretoLatency)
	p("| width (B/cycle) | memc-small cycles/request | ns/request | kRPS | ETC cycles/request | ns/request | kRPS | latency %d cycles (ns) |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n", paretoLatency)
	for _, r := range rep.Rows {
		m, e := r.mix("memc-small"), r.mix("etc")
		p("| %d | %.1f | %.0f | %s | %.1f | %.0f | %s | %.0f |\n", r.Width,
			m.PerReq, r.Clock.NS(m.PerReq), kilo(r.Clock.PerSecond(m.PerReq)),
			e.PerReq, r.Clock.NS(e.PerReq), kilo(r.Clock.PerSecond(e.PerReq)), r.Clock.NS(paretoLatency))
	}
	p("\n")
	return b.String()
}
