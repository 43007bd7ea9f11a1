package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12+1e-9*math.Abs(b) }

// The two Figure 19 designs give two equations
// 41 mW = P0 + k*(631+1182) and 128 mW = P0 + k*(9115+8760),
// so k = 87 mW / 16062 and P0 = 41 mW - 1813 k.
func TestCalibrateFigure19(t *testing.T) {
	m, err := Calibrate(Figure19, 280, VivadoDefaultToggleRate)
	if err != nil {
		t.Fatal(err)
	}
	k := 0.087 / 16062
	if !near(m.PerElementW, k) || !near(m.FixedW, 0.041-1813*k) {
		t.Errorf("k = %g W, P0 = %g W; want %g and %g", m.PerElementW, m.FixedW, k, 0.041-1813*k)
	}
	// Back at the calibration conditions the model gives the published numbers.
	for _, c := range Figure19 {
		r := Resources{LUTs: c.LUTs, FFs: c.FFs}
		if got := m.FixedAt(280) + m.BlockW(r, VivadoDefaultToggleRate, 280); !near(got, c.DynamicW) {
			t.Errorf("%s: %g W, want %g", c.Name, got, c.DynamicW)
		}
	}
	// Linear in frequency and activity: half of each is a quarter of the block term.
	r := Resources{LUTs: 1000, LUTRAM: 100, FFs: 900}
	if got, want := m.BlockW(r, VivadoDefaultToggleRate/2, 140), 2000*k/4; !near(got, want) {
		t.Errorf("2000 elements at half rate and half clock: %g W, want %g", got, want)
	}
}

func TestCalibrateRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		pts  []CalPoint
	}{
		{"one point", Figure19[:1]},
		{"same size", []CalPoint{{Name: "a", LUTs: 10, FFs: 10, DynamicW: 1}, {Name: "b", LUTs: 5, FFs: 15, DynamicW: 2}}},
		{"power falls with size", []CalPoint{{Name: "a", LUTs: 10, FFs: 10, DynamicW: 0.002}, {Name: "b", LUTs: 2000, FFs: 0, DynamicW: 0.001}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Calibrate(c.pts, 280, 0.125); err == nil {
				t.Errorf("Calibrate(%v) accepted", c.pts)
			}
		})
	}
}

// sample is a three-level report: top (own 100 LUTs) > a (own 200 LUTs,
// 100 FFs) > b (own 50 FFs), plus c (nothing) beside a.
func sample() *Report {
	return &Report{
		Title: "t", Source: "hand", Part: XA7A12T, FreqMHz: 280,
		Blocks: []Block{
			{Path: "top", Module: "top", Label: "Top", Depth: 0, Own: Resources{LUTs: 100}, Total: Resources{LUTs: 300, FFs: 150, LCs: -1}},
			{Path: "top.u_a", Module: "a", Label: "A", Depth: 1, Own: Resources{LUTs: 200, FFs: 100}, Total: Resources{LUTs: 200, FFs: 150, LCs: -1}},
			{Path: "top.u_a.u_b", Module: "b", Label: "B", Depth: 2, Own: Resources{FFs: 50}, Total: Resources{FFs: 50, LCs: -1}},
			{Path: "top.u_c", Module: "c", Label: "C", Depth: 1, Total: Resources{LCs: -1}},
		},
	}
}

func TestEstimate(t *testing.T) {
	m := Model{RefFreqMHz: 280, RefActivity: 0.125, PerElementW: 1e-6, FixedW: 0.01}
	r := sample()
	act := map[string]Activity{
		"top":         NewActivity(10, 250, 100), // rate 0.25
		"top.u_a":     NewActivity(20, 250, 100), // 0.125
		"top.u_a.u_b": NewActivity(4, 25, 100),   // 0.0625
		"top.u_c":     NewActivity(1, 0, 100),
	}
	if err := r.Estimate(m, act, "hand"); err != nil {
		t.Fatal(err)
	}
	// own: top 100 el * 1 uW * 2 = 200 uW; a 300 * 1 = 300 uW; b 50 * 0.5 = 25 uW.
	want := map[string][2]float64{"top": {200e-6, 525e-6}, "top.u_a": {300e-6, 325e-6}, "top.u_a.u_b": {25e-6, 25e-6}, "top.u_c": {0, 0}}
	for _, b := range r.Blocks {
		w := want[b.Path]
		if !near(b.Power.OwnW, w[0]) || !near(b.Power.TotalW, w[1]) {
			t.Errorf("%s: own %g total %g, want %g %g", b.Path, b.Power.OwnW, b.Power.TotalW, w[0], w[1])
		}
	}
	if ps := r.PowerSummary; !near(ps.DynamicW, 0.01+525e-6) || ps.Cycles != 100 || ps.Kind != "estimate" {
		t.Errorf("summary %+v", ps)
	}
	delete(act, "top.u_c")
	if err := sample().Estimate(m, act, "hand"); err == nil || !strings.Contains(err.Error(), "top.u_c") {
		t.Errorf("a block without activity: %v", err)
	}
}

func TestFitsAndOutputs(t *testing.T) {
	r := sample()
	r.Blocks[0].Total = Resources{LUTs: 7900, LUTRAM: 200, FFs: 100, BRAM: 2.5, LCs: -1}
	fits := r.Fits()
	if fits[0].Used != 8100 || fits[0].Available != 8000 || fits[0].Fits {
		t.Errorf("LUT row %+v: 7900 + 200 > 8000 must not fit", fits[0])
	}
	for _, f := range fits[1:] {
		if !f.Fits {
			t.Errorf("%+v should fit", f)
		}
	}
	if err := r.Estimate(Model{RefFreqMHz: 280, RefActivity: 0.125, PerElementW: 1e-6, FixedW: 0.01},
		map[string]Activity{"top": {}, "top.u_a": {}, "top.u_a.u_b": {}, "top.u_c": {}}, "none"); err != nil {
		t.Fatal(err)
	}

	var md, js, cs, sv bytes.Buffer
	for _, w := range []func() error{
		func() error { return r.WriteMarkdown(&md) }, func() error { return r.WriteJSON(&js) },
		func() error { return r.WriteCSV(&cs) }, func() error { return r.WriteSVG(&sv) },
	} {
		if err := w(); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{"does **not** fit", "| 8100 | 8000 | 101.2 % | **no** |", "ESTIMATE", "&emsp;&emsp;B | `u_b`"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("markdown lacks %q:\n%s", s, md.String())
		}
	}
	var doc struct {
		Blocks []Block `json:"blocks"`
		Fit    []Fit   `json:"fit"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || len(doc.Blocks) != 4 || doc.Fit[0].Fits {
		t.Errorf("json: %v, %+v", err, doc)
	}
	rows, err := csv.NewReader(&cs).ReadAll()
	if err != nil || len(rows) != 5 || len(rows[1]) != len(CSVHeader) || rows[1][4] != "7900" || rows[3][0] != "top.u_a.u_b" {
		t.Errorf("csv: %v %v", err, rows)
	}
	s := sv.String()
	if !strings.HasPrefix(s, "<?xml") || !strings.HasSuffix(s, "</svg>\n") {
		t.Errorf("svg is not one whole document:\n%s", s)
	}
	// The part's line, both panels, and the bars' totals: the top's own
	// logic and its children's totals (A 200 LUTs and 150 FFs, C none, the
	// top's own 100 LUTs), not the top's Total set above.
	for _, want := range []string{"xa7a12t-cpg238-2I: 8000 LUTs", "(a) Resource utilization", "(b) Dynamic power (mW), ESTIMATE", "total 300", "total 150"} {
		if !strings.Contains(s, ">"+want+"<") {
			t.Errorf("svg lacks the text %q:\n%s", want, s)
		}
	}
	for _, b := range r.Blocks {
		if b.Depth == 1 && !strings.Contains(s, ">"+b.Label+"<") {
			t.Errorf("svg legend lacks block %q", b.Label)
		}
	}
	if !strings.Contains(s, ">"+r.Top().Label+": top-level glue<") {
		t.Errorf("svg legend lacks the top's own logic")
	}
}

func TestRegions(t *testing.T) {
	r := &Report{Blocks: []Block{
		{Path: "top", Module: "arcalis_top", Total: Resources{LUTs: 1000, LUTRAM: 100, FFs: 500, LCs: -1}},
		{Path: "top.u_lq", Module: "load_queue", Depth: 1, Total: Resources{LUTs: 300, LUTRAM: 100, FFs: 200, LCs: -1}},
		{Path: "top.u_fsm", Module: "ctrl_fsm", Depth: 1, Total: Resources{LUTs: 50, FFs: 40, LCs: -1}},
		{Path: "top.u_rx", Module: "rx_engine", Depth: 1, Total: Resources{LUTs: 600, FFs: 250, LCs: -1}},
	}}
	g := r.Regions()
	// FLR: 300 + 50 logic, 100 memory; the rest (rx_engine and the top's own 50) is reconfigurable.
	if len(g) != 2 || g[0].Total.TotalLUTs() != 450 || g[0].Total.FFs != 240 ||
		g[1].Total.TotalLUTs() != 650 || g[1].Total.FFs != 260 || g[1].Total.LCs != -1 {
		t.Errorf("regions %+v", g)
	}
}
