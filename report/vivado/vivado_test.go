package vivado

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"arcalis/report"
)

// want is what each fixture directory holds, read off the fixture text.
type want struct {
	dir          string
	family       string // the wording of the LUT row
	luts, ffs    int    // top's Total LUTs and FFs
	lutram       int
	bram         float64
	dsp          int
	availLUTs    int
	availFFs     int
	blocks       []string // paths in pre-order
	ownTopLUTs   int
	loadQueueMod string
	totalW, dynW float64
	staticW      float64
	rxPowerW     float64
	wns, tns     float64
	failing      int
	periodNS     float64
	activity     string
	hasDeepChild bool
}

var fixtures = []want{
	{
		dir: "v2017.4-xc7a12t", family: "Slice LUTs", luts: 1500, ffs: 1800, lutram: 64, bram: 1, dsp: 2,
		availLUTs: 8000, availFFs: 16000,
		blocks: []string{"arcalis_top", "arcalis_top.u_cmd_interface", "arcalis_top.u_ctrl_fsm", "arcalis_top.u_load_queue",
			"arcalis_top.u_rx_engine", "arcalis_top.u_rx_engine.u_recv_set", "arcalis_top.u_store_queue"},
		ownTopLUTs: 10, loadQueueMod: "load_queue",
		totalW: 0.101, dynW: 0.031, staticW: 0.070, rxPowerW: 0.021,
		wns: 0.412, tns: 0, failing: 0, periodNS: 3.571, activity: "",
	},
	{
		dir: "v2020.2-xa7a12t", family: "Slice LUTs", luts: 2897, ffs: 2166, lutram: 144, bram: 0.5, dsp: 0,
		availLUTs: 8000, availFFs: 16000,
		blocks: []string{"arcalis_top", "arcalis_top.u_cmd_interface", "arcalis_top.u_ctrl_fsm", "arcalis_top.u_load_queue",
			"arcalis_top.u_rx_engine", "arcalis_top.u_rx_engine.u_line_buffer", "arcalis_top.u_rx_engine.u_recv_set",
			"arcalis_top.u_rx_engine.u_recv_set.u_schema_table", "arcalis_top.u_store_queue"},
		ownTopLUTs: 30, loadQueueMod: "load_queue",
		totalW: 0.118, dynW: 0.046, staticW: 0.072, rxPowerW: 0.028,
		wns: -0.214, tns: -3.871, failing: 41, periodNS: 3.571, activity: "activity.saif", hasDeepChild: true,
	},
	{
		dir: "v2022.2-xczu3eg", family: "CLB LUTs", luts: 2620, ffs: 2100, lutram: 120, bram: 1, dsp: 0,
		availLUTs: 70560, availFFs: 141120,
		blocks: []string{"arcalis_top", "arcalis_top.u_cmd_interface", "arcalis_top.u_load_queue",
			"arcalis_top.u_rx_engine", "arcalis_top.u_store_queue"},
		ownTopLUTs: 0, loadQueueMod: "load_queue",
		totalW: 0.402, dynW: 0.098, staticW: 0.304, rxPowerW: 0.071,
		wns: 1.103, tns: 0, failing: 0, periodNS: 3.571, activity: "",
	},
}

func TestUtilizationFormats(t *testing.T) {
	for _, w := range fixtures {
		t.Run(w.dir, func(t *testing.T) {
			flat, err := ReadUtilizationFile(filepath.Join("testdata", w.dir, "utilization.rpt"))
			if err != nil {
				t.Fatal(err)
			}
			luts, ok := flat.LUTs()
			if !ok || int(luts.Used) != w.luts || int(luts.Available) != w.availLUTs {
				t.Errorf("LUTs = %+v (found %v), want used %d of %d", luts, ok, w.luts, w.availLUTs)
			}
			if _, ok := flat.Sites[w.family]; !ok {
				t.Errorf("no %q row: sites %v", w.family, keys(flat.Sites))
			}
			regs, ok := flat.Registers()
			if !ok || int(regs.Used) != w.ffs || int(regs.Available) != w.availFFs {
				t.Errorf("registers = %+v (found %v), want used %d of %d", regs, ok, w.ffs, w.availFFs)
			}
			if flat.Blocks != nil {
				t.Errorf("flat report gave %d hierarchy blocks", len(flat.Blocks))
			}

			hier, err := ReadUtilizationFile(filepath.Join("testdata", w.dir, "utilization_hier.rpt"))
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, b := range hier.Blocks {
				paths = append(paths, b.Path)
			}
			if strings.Join(paths, " ") != strings.Join(w.blocks, " ") {
				t.Errorf("blocks\n got %v\nwant %v", paths, w.blocks)
			}
			top := hier.Blocks[0]
			if top.Total.TotalLUTs() != w.luts || top.Total.FFs != w.ffs || top.Total.LUTRAM != w.lutram ||
				top.Total.BRAM != w.bram || top.Total.DSP != w.dsp {
				t.Errorf("top total = %+v, want LUTs %d FFs %d LUTRAM %d BRAM %g DSP %d", top.Total, w.luts, w.ffs, w.lutram, w.bram, w.dsp)
			}
			if top.Module != "arcalis_top" || top.Own.TotalLUTs() != w.ownTopLUTs {
				t.Errorf("top module %q own LUTs %d, want arcalis_top and %d", top.Module, top.Own.TotalLUTs(), w.ownTopLUTs)
			}
			for _, b := range hier.Blocks {
				if b.Name() == "u_load_queue" && (b.Module != w.loadQueueMod || b.Label != report.Label("load_queue")) {
					t.Errorf("u_load_queue module %q label %q", b.Module, b.Label)
				}
				if b.Own.LUTs < 0 || b.Own.FFs < 0 {
					t.Errorf("%s: negative own resources %+v", b.Path, b.Own)
				}
			}
		})
	}
}

func TestPowerAndTimingFormats(t *testing.T) {
	for _, w := range fixtures {
		t.Run(w.dir, func(t *testing.T) {
			p, err := ReadPowerFile(filepath.Join("testdata", w.dir, "power.rpt"))
			if err != nil {
				t.Fatal(err)
			}
			if p.TotalW != w.totalW || p.DynamicW != w.dynW || p.StaticW != w.staticW {
				t.Errorf("power = %g / %g / %g, want %g / %g / %g", p.TotalW, p.DynamicW, p.StaticW, w.totalW, w.dynW, w.staticW)
			}
			if got := p.Hierarchy["arcalis_top.u_rx_engine"]; got != w.rxPowerW {
				t.Errorf("u_rx_engine power %g, want %g (hierarchy %v)", got, w.rxPowerW, p.Hierarchy)
			}
			if p.Hierarchy["arcalis_top"] != w.dynW {
				t.Errorf("top's hierarchy power %g, want the dynamic %g", p.Hierarchy["arcalis_top"], w.dynW)
			}
			wantAct := w.activity
			if wantAct == "" {
				wantAct = "---"
			}
			if p.Activity != wantAct {
				t.Errorf("activity file %q, want %q", p.Activity, wantAct)
			}
			if w.hasDeepChild {
				if v, ok := p.Hierarchy["arcalis_top.u_rx_engine.u_recv_set.u_schema_table"]; !ok || v != 0 {
					t.Errorf("u_schema_table (<0.001) = %v, %v", v, ok)
				}
			}

			tm, err := ReadTimingFile(filepath.Join("testdata", w.dir, "timing_summary.rpt"))
			if err != nil {
				t.Fatal(err)
			}
			if tm.WNS != w.wns || tm.TNS != w.tns || tm.FailingEndpoints != w.failing || tm.ClockPeriodNS != w.periodNS {
				t.Errorf("timing = %+v, want WNS %g TNS %g failing %d period %g", tm, w.wns, w.tns, w.failing, w.periodNS)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := filepath.Join("testdata", "v2020.2-xa7a12t")
	rep, err := Load(Files{
		Utilization:  filepath.Join(dir, "utilization.rpt"),
		Hierarchical: filepath.Join(dir, "utilization_hier.rpt"),
		Power:        filepath.Join(dir, "power.rpt"),
		Timing:       filepath.Join(dir, "timing_summary.rpt"),
	}, report.XA7A12T, 280)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Part.LUTs != 8000 || rep.Part.FFs != 16000 || rep.Part.BRAM36 != 20 || rep.Part.DSP != 40 {
		t.Errorf("part from the report = %+v", rep.Part)
	}
	for _, n := range rep.Notes {
		if strings.Contains(n, "part table") {
			t.Errorf("the fixture's capacity agrees with the part table, yet: %s", n)
		}
	}
	if ps := rep.PowerSummary; ps == nil || ps.Kind != "vivado" || ps.DynamicW != 0.046 {
		t.Errorf("power summary %+v", ps)
	}
	if rep.Timing == nil || rep.Timing.WNS != -0.214 {
		t.Errorf("timing %+v", rep.Timing)
	}
	var sb strings.Builder
	if err := rep.WriteMarkdown(&sb); err != nil {
		t.Fatal(err)
	}
	md := sb.String()
	for _, s := range []string{"FLR load queue + ROB", "WNS -0.214 ns", "dynamic 46.0 mW", "| 2753 | 144 | 2166 |"} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q:\n%s", s, md)
		}
	}
}

// A report the parser cannot read is an error naming the file and the line.
func TestMalformed(t *testing.T) {
	cases := []struct {
		file  string
		parse func(string) error
		want  []string
	}{
		{"hier_not_a_number.rpt", util, []string{"hier_not_a_number.rpt:27:", "u_ctrl_fsm", "Total LUTs", `"8x5"`}},
		{"hier_extra_cell.rpt", util, []string{"hier_extra_cell.rpt:30:", "11 cells", "has 10"}},
		{"hier_truncated.rpt", util, []string{"hier_truncated.rpt:28:", "ends inside the table starting at line 22"}},
		{"not_a_report.rpt", util, []string{"not_a_report.rpt:", "no utilization table"}},
		{"power_no_dynamic.rpt", power, []string{"power_no_dynamic.rpt:", `"Dynamic (W)"`}},
		{"power_static_word.rpt", power, []string{"power_static_word.rpt:35:", "Device Static (W)", `"n/a"`}},
		{"not_a_report.rpt", power, []string{"not_a_report.rpt:", "Total On-Chip Power"}},
		{"timing_short.rpt", timing, []string{"timing_short.rpt:30:", "1 values"}},
		{"not_a_report.rpt", timing, []string{"not_a_report.rpt:", "no design timing summary"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			err := c.parse(filepath.Join("testdata", "bad", c.file))
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range c.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}

func util(p string) error   { _, err := ReadUtilizationFile(p); return err }
func power(p string) error  { _, err := ReadPowerFile(p); return err }
func timing(p string) error { _, err := ReadTimingFile(p); return err }

func TestNumber(t *testing.T) {
	for _, c := range []struct {
		in   string
		na   bool
		want float64
		ok   bool
	}{
		{"1234", false, 1234, true}, {"0.041", false, 0.041, true}, {"<0.001", false, 0, true},
		{"1,182", false, 1182, true}, {"NA", true, math.NaN(), true}, {"NA", false, 0, false}, {"x", false, 0, false},
	} {
		got, err := number(c.in, c.na)
		if (err == nil) != c.ok || (c.ok && !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want))) {
			t.Errorf("number(%q, %v) = %v, %v", c.in, c.na, got, err)
		}
	}
}

func keys(m map[string]Site) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
