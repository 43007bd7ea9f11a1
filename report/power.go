package report

import (
	"errors"
	"fmt"
)

// Activity is a block's measured switching: the signal bits declared in the
// block's own scope of the waveform and how often they changed.
type Activity struct {
	Bits    int     `json:"bits"`
	Toggles uint64  `json:"toggles"`
	Cycles  uint64  `json:"cycles"`
	Rate    float64 `json:"toggle_rate"` // toggles per bit per clock cycle
}

// NewActivity computes the rate of toggles over bits and cycles.
func NewActivity(bits int, toggles, cycles uint64) Activity {
	a := Activity{Bits: bits, Toggles: toggles, Cycles: cycles}
	if bits > 0 && cycles > 0 {
		a.Rate = float64(toggles) / (float64(bits) * float64(cycles))
	}
	return a
}

// Power is a block's estimated (or reported) dynamic power in watts.
type Power struct {
	OwnW   float64 `json:"own_w"`
	TotalW float64 `json:"total_w"` // with sub-instances
}

// CalPoint is one published measurement the model is calibrated on.
type CalPoint struct {
	Name     string  `json:"name"`
	LUTs     int     `json:"luts"`
	FFs      int     `json:"ffs"`
	DynamicW float64 `json:"dynamic_w"`
	Source   string  `json:"source"`
}

// Figure19 are the Arcalís paper's two quoted RLR results (section VI-F1,
// Figure 19): Vivado place-and-route at 280 MHz on xa7a12t-cpg238-2I.
var Figure19 = []CalPoint{
	{Name: "UniqueId", LUTs: 631, FFs: 1182, DynamicW: 0.041, Source: "Arcalís paper, Figure 19 / section VI-F1"},
	{Name: "PostStorage", LUTs: 9115, FFs: 8760, DynamicW: 0.128, Source: "Arcalís paper, Figure 19 / section VI-F1"},
}

// Figure19FreqMHz is the clock of Figure 19's designs (and the project's
// target): the model's reference frequency.
const Figure19FreqMHz = 280

// Figure19Model is the model fitted to Figure 19 at its clock, the
// switching taken to be Vivado's vectorless default: make report's, and
// make bench-services' for the services' units.
func Figure19Model() (Model, error) {
	return Calibrate(Figure19, Figure19FreqMHz, VivadoDefaultToggleRate)
}

// Model is the dynamic power estimate
//
//	P = f/fRef * ( FixedW + Σ_blocks PerElementW * (LUTs + FFs) * rate/RefActivity )
//
// where a block's LUTs count logic and memory LUTs, rate is its measured
// toggles per bit per cycle, and FixedW is the part of a design's dynamic
// power that does not grow with its logic (clock buffer and clock spine).
// Both coefficients are fitted to two published designs (Calibrate), whose
// switching is taken to be Vivado's vectorless default (RefActivity).
type Model struct {
	RefFreqMHz  float64    `json:"ref_freq_mhz"`
	RefActivity float64    `json:"ref_activity"`
	PerElementW float64    `json:"per_element_w"`
	FixedW      float64    `json:"fixed_w"`
	Calibration []CalPoint `json:"calibration"`
}

// VivadoDefaultToggleRate is the toggle rate Vivado's report_power assumes
// for nets it has no activity for (12.5 %, i.e. 0.125 toggles per cycle).
const VivadoDefaultToggleRate = 0.125

// Calibrate fits the two coefficients to exactly two points measured at
// refFreqMHz with switching refActivity: P_i = FixedW + PerElementW*(LUT_i+FF_i).
func Calibrate(points []CalPoint, refFreqMHz, refActivity float64) (Model, error) {
	if len(points) != 2 {
		return Model{}, fmt.Errorf("calibration needs exactly two points, got %d", len(points))
	}
	if refFreqMHz <= 0 || refActivity <= 0 {
		return Model{}, errors.New("calibration: reference frequency and activity must be positive")
	}
	e0 := float64(points[0].LUTs + points[0].FFs)
	e1 := float64(points[1].LUTs + points[1].FFs)
	if e0 == e1 {
		return Model{}, fmt.Errorf("calibration points %s and %s have the same size", points[0].Name, points[1].Name)
	}
	k := (points[1].DynamicW - points[0].DynamicW) / (e1 - e0)
	p0 := points[0].DynamicW - k*e0
	if k <= 0 || p0 < 0 {
		return Model{}, fmt.Errorf("calibration gives per-element %.3g W and fixed %.3g W: not a physical model", k, p0)
	}
	return Model{RefFreqMHz: refFreqMHz, RefActivity: refActivity, PerElementW: k, FixedW: p0,
		Calibration: append([]CalPoint(nil), points...)}, nil
}

// Elements are the resources the model charges per toggle: LUTs and FFs.
func Elements(r Resources) int { return r.LUTs + r.LUTRAM + r.FFs }

// BlockW is the dynamic power of resources r switching at rate, at freqMHz.
func (m Model) BlockW(r Resources, rate, freqMHz float64) float64 {
	return freqMHz / m.RefFreqMHz * m.PerElementW * float64(Elements(r)) * rate / m.RefActivity
}

// FixedAt is the fixed term at freqMHz.
func (m Model) FixedAt(freqMHz float64) float64 { return freqMHz / m.RefFreqMHz * m.FixedW }

// PowerSummary is the design's power: estimated (Kind "estimate") from the
// model and measured activity, or read from Vivado (Kind "vivado").
type PowerSummary struct {
	Kind     string  `json:"kind"`
	Model    *Model  `json:"model,omitempty"`
	Workload string  `json:"workload,omitempty"`
	Cycles   uint64  `json:"cycles,omitempty"`
	FixedW   float64 `json:"fixed_w,omitempty"`
	DynamicW float64 `json:"dynamic_w"`
	StaticW  float64 `json:"static_w,omitempty"` // Vivado only
	TotalW   float64 `json:"total_on_chip_w,omitempty"`
	SAIF     string  `json:"saif,omitempty"`
}

// Estimate fills each block's Activity and Power from act (keyed by block
// path) with model m at the report's frequency, and sets the summary.
// Every block must have activity: a block missing from the waveform is an
// error, not a zero.
func (r *Report) Estimate(m Model, act map[string]Activity, workload string) error {
	if len(r.Blocks) == 0 {
		return errors.New("estimate: the report has no blocks")
	}
	var cycles uint64
	for i := range r.Blocks {
		b := &r.Blocks[i]
		a, ok := act[b.Path]
		if !ok {
			return fmt.Errorf("estimate: no activity for block %s in the waveform", b.Path)
		}
		b.Activity = &a
		b.Power = &Power{OwnW: m.BlockW(b.Own, a.Rate, r.FreqMHz)}
		cycles = a.Cycles
	}
	// Totals bottom-up: a block's subtree follows it in pre-order.
	for i := len(r.Blocks) - 1; i >= 0; i-- {
		b := &r.Blocks[i]
		b.Power.TotalW = b.Power.OwnW
		for j := i + 1; j < len(r.Blocks) && r.Blocks[j].Depth > b.Depth; j++ {
			if r.Blocks[j].Depth == b.Depth+1 {
				b.Power.TotalW += r.Blocks[j].Power.TotalW
			}
		}
	}
	fixed := m.FixedAt(r.FreqMHz)
	r.PowerSummary = &PowerSummary{
		Kind: "estimate", Model: &m, Workload: workload, Cycles: cycles,
		FixedW: fixed, DynamicW: fixed + r.Blocks[0].Power.TotalW,
	}
	return nil
}
