package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rpt "arcalis/report"
)

func near(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }

// TestClock checks the conversions from cycles against hand-computed values.
func TestClock(t *testing.T) {
	c := clock{MHz: 250}
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"NS(1) at 250 MHz", c.NS(1), 4},
		{"NS(350) at 250 MHz", c.NS(350), 1400},
		{"PerSecond(350) at 250 MHz", c.PerSecond(350), 250e6 / 350}, // 714,285.71...
		{"PerSecond(250) at 250 MHz", c.PerSecond(250), 1e6},
		{"GBPerSec(12.8) at 250 MHz", c.GBPerSec(12.8), 3.2},
		{"GBPerSec(64) at 250 MHz", c.GBPerSec(64), 16},
		{"NS(100) at 200 MHz", clock{MHz: 200}.NS(100), 500},
	} {
		if !near(tc.got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestBytesPerCycle(t *testing.T) {
	q := rateResult{Small: linePoint{Size: 32768, Cycles: 2656}, Big: linePoint{Size: 65536, Cycles: 5216}}
	if got := q.BytesPerCycle(); !near(got, 12.8) { // 32768 / 2560
		t.Errorf("BytesPerCycle = %v, want 12.8", got)
	}
	if got := (rateResult{}).BytesPerCycle(); got != 0 {
		t.Errorf("BytesPerCycle of no measurement = %v, want 0", got)
	}
}

func TestReadClock(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "timing.json")
	if err := os.WriteFile(good, []byte(`{"date": "2026-12-02T04:13:47Z", "host": "vm", "fmax_mhz": 239.5, "worst": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := readClock(good)
	if err != nil {
		t.Fatal(err)
	}
	if c.MHz != 239.5 || c.Date != "2026-12-02T04:13:47Z" || c.Host != "vm" || c.Path != good {
		t.Errorf("readClock = %+v", c)
	}
	bad := filepath.Join(dir, "none.json")
	if err := os.WriteFile(bad, []byte(`{"fmax_mhz": 0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readClock(bad); err == nil || !strings.Contains(err.Error(), "no estimated Fmax") {
		t.Errorf("readClock without an Fmax: err = %v", err)
	}
	if _, err := readClock(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("readClock of a missing file succeeded")
	}
}

func TestParseWidthSpecs(t *testing.T) {
	got, err := parseWidthSpecs("8=build/model-w8/libvmodel.so@reports/w8 16=build/model/libvmodel.so@reports,")
	if err != nil {
		t.Fatal(err)
	}
	want := []widthSpec{{8, "build/model-w8/libvmodel.so", "reports/w8"}, {16, "build/model/libvmodel.so", "reports"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("parseWidthSpecs = %+v, want %+v", got, want)
	}
	for _, bad := range []string{"", "8", "8=model", "x=m@r", "0=m@r", "8=@r", "8=m@"} {
		if _, err := parseWidthSpecs(bad); err == nil {
			t.Errorf("parseWidthSpecs(%q) succeeded", bad)
		}
	}
}

func TestReadArea(t *testing.T) {
	dir := t.TempDir()
	doc := `{"freq_mhz": 280, "power_summary": {"kind": "estimate", "dynamic_w": 0.0418},
	 "blocks": [
	  {"path": "arcalis_top", "module": "arcalis_top", "depth": 0, "total": {"luts": 3000, "lutram": 1000, "ffs": 4500}},
	  {"path": "arcalis_top.u_rx_engine", "module": "rx_engine", "depth": 1, "total": {"luts": 1900, "lutram": 10, "ffs": 1700}},
	  {"path": "arcalis_top.u_rx_engine.u_line_buffer", "module": "line_buffer", "depth": 2, "total": {"luts": 500, "ffs": 600}},
	  {"path": "arcalis_top.u_tx_engine", "module": "tx_engine", "depth": 1, "total": {"luts": 8, "ffs": 40}},
	  {"path": "arcalis_top.u_output_buffer", "module": "output_buffer", "depth": 1, "total": {"luts": 70, "ffs": 600}},
	  {"path": "arcalis_top.u_load_queue", "module": "load_queue", "depth": 1, "total": {"luts": 1500, "ffs": 1600}}]}`
	if err := os.WriteFile(filepath.Join(dir, "yosys.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	var r paretoRow
	if err := r.readArea(dir); err != nil {
		t.Fatal(err)
	}
	if r.Area.TotalLUTs() != 4000 || r.Area.FFs != 4500 {
		t.Errorf("area %d LUTs, %d FFs; want 4000, 4500", r.Area.TotalLUTs(), r.Area.FFs)
	}
	if r.Reconf.TotalLUTs() != 2500 || r.Reconf.FFs != 2900 { // the top's 4000, 4500 less the load queue (FLR)
		t.Errorf("reconfigurable region %d LUTs, %d FFs; want 2500, 2900", r.Reconf.TotalLUTs(), r.Reconf.FFs)
	}
	if !near(r.PowerMW, 41.8) || r.PowerMHz != 280 {
		t.Errorf("power %v mW at %v MHz, want 41.8 at 280", r.PowerMW, r.PowerMHz)
	}
	if err := os.WriteFile(filepath.Join(dir, "yosys.json"), []byte(`{"blocks": [{"path": "arcalis_top", "depth": 0}]}`), 0o644); err == nil {
		if err := new(paretoRow).readArea(dir); err == nil || !strings.Contains(err.Error(), "no rx_engine block") {
			t.Errorf("readArea without the engine blocks: err = %v", err)
		}
	}
}

func TestStaleness(t *testing.T) {
	rtl := time.Date(2026, 12, 2, 4, 12, 42, 0, time.UTC)
	if s := staleness(clock{Date: "2026-12-02T04:13:47Z"}, rtl); s != "" {
		t.Errorf("report after the RTL: staleness %q", s)
	}
	want := "timing report dated 2026-12-02 03:56, before rtl/ last changed (2026-12-02 04:12 UTC)"
	if s := staleness(clock{Date: "2026-12-02T03:56:36Z"}, rtl); s != want {
		t.Errorf("report before the RTL: staleness %q, want %q", s, want)
	}
	for _, c := range []struct {
		date string
		rtl  time.Time
	}{{"2026-12-02T03:56:36Z", time.Time{}}, {"", rtl}, {"yesterday", rtl}} {
		if s := staleness(clock{Date: c.date}, c.rtl); s != "" {
			t.Errorf("date %q, RTL time %v: staleness %q, want none", c.date, c.rtl, s)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 631: "631", 1182: "1,182", 9115: "9,115", 1234567: "1,234,567", -4437: "-4,437"} {
		if got := rpt.Thousands(n); got != want {
			t.Errorf("rpt.Thousands(%d) = %q, want %q", n, got, want)
		}
	}
	if got := kilo(714285.7); got != "714" {
		t.Errorf("kilo(714285.7) = %q, want 714", got)
	}
}

// TestParetoMarkdown renders two hand-made widths and checks the numbers
// the tables derive from them.
func TestParetoMarkdown(t *testing.T) {
	rows := []paretoRow{
		{
			Width: 16, Reports: "reports", PowerMW: 41.8, PowerMHz: 280,
			Area:   rpt.Resources{LUTs: 3321, LUTRAM: 1116, FFs: 4625},
			Reconf: rpt.Resources{LUTs: 1995, FFs: 2464},
			Clock:  clock{MHz: 250, Path: "reports/timing.json", Date: "2026-12-02T04:13:47Z", Host: "vm"},
			Run: widthRun{
				Mixes: []sweepPoint{{Mix: "memc-small", PerReq: 350}, {Mix: "etc", PerReq: 500}},
				Rates: []rateResult{
					{Latency: 0, Small: linePoint{Size: 32768, Cycles: 2656}, Big: linePoint{Size: 65536, Cycles: 5216}},
					{Latency: 100, Small: linePoint{Size: 32768, Cycles: 3000}, Big: linePoint{Size: 65536, Cycles: 6200}},
				},
			},
		},
		{
			Width: 64, Reports: "reports/w64",
			Area:  rpt.Resources{LUTs: 6000, LUTRAM: 68, FFs: 6101},
			Clock: clock{MHz: 200, Path: "reports/w64/timing.json", Date: "2026-12-02T03:56:36Z", Host: "vm"},
			Run: widthRun{
				Mixes: []sweepPoint{{Mix: "memc-small", PerReq: 400}, {Mix: "etc", PerReq: 250}},
				Rates: []rateResult{{Latency: 0, Small: linePoint{Size: 32768, Cycles: 1000}, Big: linePoint{Size: 65536, Cycles: 1512}}},
			},
			Stale: "timing report dated 2026-12-02 03:56, before rtl/ last changed (2026-12-02 04:12 UTC)",
		},
	}
	rep := paretoReport{Date: time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC), Machine: "test machine", Elapsed: 42 * time.Second, Requests: 200, Rows: rows}
	md := rep.markdown("reports")
	for _, want := range []string{
		"on 2026-12-02 05:00 UTC in 42s",
		"Machine: test machine.",
		// Side by side: 250 MHz / 350 cycles = 714 kRPS, / 500 = 500 kRPS; 200 MHz / 400 = 500, / 250 = 800.
		"| ours: Yosys estimate | receive path, 16 B/cycle, all blocks | 4,437 | 4,625 | 250.0 (estimate) | 41.8 at 280 MHz (estimate) | 714 | 500 |",
		"| ours: Yosys estimate | receive path, 64 B/cycle, all blocks | 6,068 | 6,101 | 200.0 (estimate) | – | 500 | 800 |",
		"| paper: Vivado place and route | UniqueId, reconfigurable region (Figure 19) | 631 | 1,182 | 280 | 41 | – | – |",
		"| paper: Vivado place and route | PostStorage, reconfigurable region (Figure 19) | 9,115 | 8,760 | 280 | 128 | – | – |",
		"Memcached, whole service (Figure 13) | – | – | 1,000 (simulated engine clock) | – | 762–1,237",
		// Area and clock: one cycle 4 ns at 250 MHz, 5 ns at 200 MHz; links relative to reports/.
		"| 16 | 4,437 | 4,625 | 1,995 / 2,464 | 250.0 | 4.000 | [yosys.md](yosys.md), [timing.md](timing.md) (timing of 2026-12-02T04:13:47Z on vm) |",
		"| 64 | 6,068 | 6,101 | 0 / 0 | 200.0 | 5.000 | [w64/yosys.md](w64/yosys.md)",
		// Streaming: 32768/2560 = 12.8 B/cycle = 3.2 GB/s at 250 MHz; 32768/3200 = 10.24 = 2.56 GB/s;
		// 32768/512 = 64 B/cycle = 12.8 GB/s at 200 MHz; no latency-100 point: 0.
		"| 16 | 12.80 | 3.20 | 10.24 | 2.56 |",
		"| 64 | 64.00 | 12.80 | 0.00 | 0.00 |",
		// Requests: 350 cycles = 1400 ns at 250 MHz, 500 = 2000 ns; latency 100 = 400 ns, 500 ns at 200 MHz.
		"| 16 | 350.0 | 1400 | 714 | 500.0 | 2000 | 500 | 400 |",
		"| 64 | 400.0 | 2000 | 500 | 250.0 | 1250 | 800 | 500 |",
		"**Width 64: the reports may be of older RTL than the model simulated:** timing report dated 2026-12-02 03:56",
		"requests/s = estimated Fmax / cycles per request",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("pareto.md lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("pareto.md:\n%s", md)
	}
}

// TestPlotPareto draws the hand-made rows and checks the SVG names the
// paper's figures.
func TestPlotPareto(t *testing.T) {
	rows := []paretoRow{{
		Width: 16, Area: rpt.Resources{LUTs: 4437, FFs: 4625}, Clock: clock{MHz: 250},
		Run: widthRun{Mixes: []sweepPoint{{Mix: "memc-small", PerReq: 350}, {Mix: "etc", PerReq: 500}}},
	}}
	path := filepath.Join(t.TempDir(), "pareto.svg")
	if err := plotPareto(rows, path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "16 B", "UniqueId", "PostStorage", "1,237 kRPS"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("pareto.svg lacks %q", want)
		}
	}
}

// TestBenchNanoseconds checks bench.md's nanoseconds and GB/s beside its
// cycles, at a hand-picked clock.
func TestBenchNanoseconds(t *testing.T) {
	r := &report{
		Out: "reports", Width: 16,
		Clock: &clock{MHz: 250, Path: "reports/timing.json", Date: "2026-12-02T04:13:47Z", Host: "vm"},
		Tiny:  tinyResult{Size: 71, Min: 100, Max: 102},
		Sweep: []sweepPoint{{Mix: "memc-tiny", Latency: 5, PerReq: 100}, {Mix: "memc-tiny", Latency: 10, PerReq: 125}},
		Sizes: []sizeSummary{{Size: 64, MinCycles: 20, MaxCycles: 25, MinSched: 20, MaxSched: 26, WorstOver: -1, BestOver: -2, WorstOffset: 3}},
		Rates: []rateResult{{Latency: 0, Small: linePoint{Size: 32768, Cycles: 2656}, Big: linePoint{Size: 65536, Cycles: 5216},
			Marginal: 0.2, Overall: 0.196, LittleBound: 1}},
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	r.clockNote(p)
	r.summary(p)
	r.lineRate(p)
	r.sweepNS(p)
	md := b.String()
	for _, want := range []string{
		"**Nanoseconds are cycles at this width's estimated Fmax,\n250.0 MHz** (4.000 ns per cycle), read from reports/timing.json ([timing.md](timing.md), written 2026-12-02T04:13:47Z on vm)",
		"100..102 cycles (400..408 ns at the estimated Fmax)",
		"| 64 | 20..26 | 20..25 | 80..100 | -2..-1 | 3 |",     // 20 and 25 cycles at 4 ns
		"| 0 | 5216 | 0.200 | 0.196 | 1.000 | 12.80 | 3.20 |", // 32768 B / 2560 cycles x 250 MHz
		"| memc-tiny | 32 | 400 | 500 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("bench.md lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("bench.md parts:\n%s", md)
	}
	b.Reset()
	r.Stale = "timing report dated 2026-12-02 04:13, before rtl/ last changed (2026-12-02 05:20 UTC)"
	r.clockNote(p)
	if want := "**The timing report may be of older RTL than the model simulated here:** timing report dated 2026-12-02 04:13"; !strings.Contains(b.String(), want) {
		t.Errorf("bench.md with a stale timing report lacks %q:\n%s", want, b.String())
	}
	b.Reset()
	r.Clock = nil
	r.clockNote(p)
	r.lineRate(p)
	if md := b.String(); strings.Contains(md, " ns") || strings.Contains(md, "GB/s") {
		t.Errorf("without a clock, bench.md has nanoseconds or GB/s:\n%s", md)
	}
}
