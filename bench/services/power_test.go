package main

import (
	"math"
	"testing"
)

// TestEstimateFigure19 checks the services' estimate against the paper's
// two designs: units whose LUTs and FFs add up to UniqueId's (631 + 1,182)
// or PostStorage's (9,115 + 8,760), switching at Vivado's vectorless
// default (0.125), cost Figure 19's 41 mW and 128 mW, the fixed term
// counted once however the design is split into units.
func TestEstimateFigure19(t *testing.T) {
	rate := [3]float64{0.125, 0.125, 0.125}
	for _, c := range []struct {
		name string
		u    [3]unitFigures
		mW   float64
	}{
		{"UniqueId", [3]unitFigures{{luts: 100, ffs: 200}, {luts: 400, ffs: 900}, {luts: 131, ffs: 82}}, 41},
		{"PostStorage", [3]unitFigures{{luts: 9115, ffs: 8760}, {}, {}}, 128},
	} {
		p, err := estimate(c.u, rate)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p.TotalW*1000-c.mW) > 1e-6 {
			t.Errorf("%s: %.6f mW, want Figure 19's %g mW", c.name, p.TotalW*1000, c.mW)
		}
		if sum := p.FixedW + p.Units[0] + p.Units[1] + p.Units[2]; math.Abs(sum-p.TotalW) > 1e-12 {
			t.Errorf("%s: the units' shares and the fixed term add to %g W, the total is %g W", c.name, sum, p.TotalW)
		}
	}
	// Idle units cost the fixed term only: 41 mW less UniqueId's 1,813
	// elements' share, 1,813 * 87 mW / 16,062 (docs/reports.md).
	p, err := estimate([3]unitFigures{{luts: 631, ffs: 1182}}, [3]float64{})
	if err != nil {
		t.Fatal(err)
	}
	if want := 41 - 1813*87.0/16062; math.Abs(p.TotalW*1000-want) > 1e-6 {
		t.Errorf("idle: %.6f mW, want the fixed term %.6f mW", p.TotalW*1000, want)
	}
}
