package timing

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The documented figures (docs/timing.md), written out here so that the
// expected delays do not come from the code under test.
const (
	tcko     = 0.456 // FDRE clock to Q
	tilo     = 0.124 // LUT
	f7data   = 0.223 // MUXF7 I0/I1 -> O
	f7sel    = 0.296 // MUXF7 S -> O
	f8data   = 0.104 // MUXF8 I0/I1 -> O
	f8sel    = 0.273 // MUXF8 S -> O
	c4S0CO3  = 0.508 // CARRY4 S0 -> CO3
	c4CIO3   = 0.313 // CARRY4 CI -> O3
	ramCkQ   = 1.188 // RAM32M WCLK -> DO
	ramRead  = 0.124 // RAM32M ADDR -> DO
	ramDI    = 0.461 // RAM32M DI setup
	ramWE    = 0.654 // RAM32M WE setup
	portIn   = 0.456 // an input port is driven by an outside register
	routeB   = 0.60  // route: base
	routeFO  = 0.03  // route: per log2(fanout)
	tolerate = 1e-9
)

func route(fanout int) float64 { return routeB + routeFO*math.Log2(float64(fanout)) }

func analyse(t *testing.T, file string) *Report {
	t.Helper()
	d, err := Load(filepath.Join("testdata", file), "")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(d, Default())
	if err != nil {
		t.Fatal(err)
	}
	return a.Build(280, 10)
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > tolerate {
		t.Errorf("%s = %.6f ns, want %.6f ns", what, got, want)
	}
}

func TestLUTChain(t *testing.T) {
	r := analyse(t, "lut_chain.json")
	// a_reg -> LUT1 -> LUT2 -> LUT3 -> b_reg: four single-load nets.
	want := tcko + 4*route(1) + 3*tilo
	rr := r.PerKind[RegToReg]
	if rr == nil {
		t.Fatal("no reg->reg path")
	}
	near(t, "reg->reg", rr.TotalNS, want)
	if rr.LUTs != 3 || rr.MUXFs != 0 || rr.Carry4s != 0 {
		t.Errorf("levels %s, want 3 LUT", rr.Levels())
	}
	near(t, "logic", rr.LogicNS, tcko+3*tilo)
	near(t, "route", rr.RouteNS, 4*route(1))
	if rr.Start != "a_q (FDRE.Q)" || rr.End != "u_logic/b_q (FDRE.D)" || rr.EndBlock != "u_logic" {
		t.Errorf("path %q -> %q in %q, want a_q (FDRE.Q) -> u_logic/b_q (FDRE.D) in u_logic", rr.Start, rr.End, rr.EndBlock)
	}
	near(t, "Fmax", r.FmaxMHz, 1000/want)
	near(t, "slack", r.WorstSlackNS, 1000.0/280-want)
	// d_i -> a_reg.D and b_q -> q_o: one net each after a clock-to-out.
	near(t, "in->reg", r.PerKind[InToReg].TotalNS, portIn+route(1))
	near(t, "reg->out", r.PerKind[RegToOut].TotalNS, tcko+route(1))
	if len(r.InToOut) != 0 {
		t.Errorf("in->out paths %v, want none", r.InToOut)
	}
	if len(r.PerBlock) != 2 || r.PerBlock[0].EndBlock != "u_logic" {
		t.Errorf("per block %+v, want u_logic first, then (top)", r.PerBlock)
	}
	// Only b_reg's path is above the margin's period (1000/280/1.2 ns).
	if want > 1000.0/280/1.2 && (r.OverMargin != 1 || r.OverMarginByBlock["u_logic"] != 1) {
		t.Errorf("over the margin: %d %v, want 1 in u_logic", r.OverMargin, r.OverMarginByBlock)
	}
	if g := r.OverMarginGroups; len(g) != 1 || g[0].Start != "a_q (FDRE.Q)" || g[0].End != "u_logic/b_q (FDRE.D)" || g[0].Endpoints != 1 {
		t.Errorf("over the margin by register pair: %+v, want a_q -> u_logic/b_q, one endpoint", g)
	}
}

func TestCarryChain(t *testing.T) {
	r := analyse(t, "carry.json")
	// The LUT's single load is the CARRY4 of its slice and CO3 -> CI is
	// the carry chain: neither net is routed.
	want := tcko + route(1) + tilo + c4S0CO3 + c4CIO3 + route(1)
	rr := r.PerKind[RegToReg]
	near(t, "reg->reg", rr.TotalNS, want)
	if rr.LUTs != 1 || rr.Carry4s != 2 {
		t.Errorf("levels %s, want 1 LUT + 2 CARRY4", rr.Levels())
	}
}

// TestCarryChainINV: an INV (Yosys's cell for a LUT1 inverter) into the
// chain is packed like a LUT: no route on its single load.
func TestCarryChainINV(t *testing.T) {
	r := analyse(t, "carry_inv.json")
	want := tcko + route(1) + tilo + c4S0CO3 + c4CIO3 + route(1)
	near(t, "reg->reg", r.PerKind[RegToReg].TotalNS, want)
}

func TestMUXFTree(t *testing.T) {
	r := analyse(t, "muxf.json")
	// Through a LUT (a_q has four loads) and both muxes' data inputs; LUT
	// into MUXF7 and MUXF7 into MUXF8 are dedicated wires.
	data := tcko + route(4) + tilo + f7data + f8data + route(1)
	// s_q has three loads: the two MUXF7 selects and the MUXF8 select.
	sel7 := tcko + route(3) + f7sel + f8data + route(1)
	sel8 := tcko + route(3) + f8sel + route(1)
	want := math.Max(data, math.Max(sel7, sel8))
	if want != data {
		t.Fatalf("test arithmetic: the data path should be the longest")
	}
	rr := r.PerKind[RegToReg]
	near(t, "reg->reg", rr.TotalNS, want)
	if rr.LUTs != 1 || rr.MUXFs != 2 {
		t.Errorf("levels %s, want 1 LUT + 2 MUXF", rr.Levels())
	}
}

func TestRAM32M(t *testing.T) {
	r := analyse(t, "ram32m.json")
	// Into q_reg: the write clock's clock-to-out beats the address read.
	launch := ramCkQ + route(1)
	read := tcko + route(1) + ramRead + route(1)
	if launch <= read {
		t.Fatalf("test arithmetic: the RAM launch should be the longest")
	}
	var q, we *Path
	for i, p := range r.Worst {
		switch p.End {
		case "q_o (FDRE.D)":
			q = &r.Worst[i]
		case "doa[0] (RAM32M.WE)":
			we = &r.Worst[i]
		}
	}
	if q == nil || we == nil {
		t.Fatalf("missing q_reg.D or RAM WE endpoint in %+v", r.Worst)
	}
	near(t, "RAM -> q_reg", q.TotalNS, launch)
	near(t, "we_reg -> RAM.WE", we.TotalNS, tcko+route(1)+ramWE)
	near(t, "di_i -> RAM.DIA", r.PerKind[InToReg].TotalNS, portIn+route(1)+ramDI)
	if len(r.InToOut) != 0 {
		t.Errorf("the RAM's data input reaches no output combinationally; got %v", r.InToOut)
	}
}

func TestInputToOutput(t *testing.T) {
	r := analyse(t, "in_out.json")
	if len(r.InToOut) != 1 {
		t.Fatalf("in->out paths %d, want 1", len(r.InToOut))
	}
	p := r.InToOut[0]
	// a_i has two loads (the LUT, q_reg.D).
	near(t, "in->out", p.TotalNS, portIn+route(2)+tilo+route(1))
	if p.Start != "a_i (input)" || p.End != "y_o (output)" || strings.Join(p.From, ",") != "a_i" {
		t.Errorf("in->out %q -> %q from %v", p.Start, p.End, p.From)
	}
	if r.Meets() {
		t.Error("Meets() with an input-to-output path")
	}
}

func TestLoopIsAnError(t *testing.T) {
	d, err := Load(filepath.Join("testdata", "loop.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Analyze(d, Default())
	if err == nil || !strings.Contains(err.Error(), "combinational loop") || !strings.Contains(err.Error(), "l0 (LUT2)") {
		t.Fatalf("err = %v, want a combinational loop naming l0 (LUT2)", err)
	}
}

func TestUnknownPrimitiveIsAnError(t *testing.T) {
	f := filepath.Join(t.TempDir(), "dsp.json")
	js := `{"modules":{"top":{"attributes":{"top":"00000000000000000000000000000001"},"ports":{"a":{"direction":"input","bits":[2]}},
	"cells":{"m":{"type":"DSP48E1","port_directions":{"A":"input"},"connections":{"A":[2]}}},"netnames":{}}}}`
	if err := os.WriteFile(f, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Load(f, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Analyze(d, Default())
	if err == nil || !strings.Contains(err.Error(), "dsp.json") || !strings.Contains(err.Error(), "cell m: primitive DSP48E1") {
		t.Fatalf("err = %v, want the file, cell and primitive named", err)
	}
}

func TestWriteFiles(t *testing.T) {
	r := analyse(t, "in_out.json")
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "timing.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"estimate with a model", "`y_o (output)`", "must not exist"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("timing.md lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "timing.json")); err != nil {
		t.Error(err)
	}
}

func TestDocsLink(t *testing.T) {
	for dir, want := range map[string]string{"reports": "../docs/timing.md", "reports/w64": "../../docs/timing.md"} {
		if got := docsLink(dir); got != want {
			t.Errorf("docsLink(%q) = %q, want %q", dir, got, want)
		}
	}
}
