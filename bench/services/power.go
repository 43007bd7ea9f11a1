package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	rpt "arcalis/report"
	"arcalis/report/activity"
	"arcalis/report/flow"
	"arcalis/tb/schemacase"
)

// The power estimate of a service's units: make report's model for the
// engine (report.Figure19Model) over the three units, each its LUTs and
// FFs switching at the rate measured in a traced run of the service's
// default vectors, plus the model's fixed clocking term once, at Figure
// 19's clock.

// activityLatency is the memory latency of the traced run: make report's
// for the engine's workload.
const activityLatency = 4

// rxScope is schema_rx's scope in the waveform of schema_pair; its units
// are the instances u_hd and u_rx (rtl/generic/schema_pair.sv,
// schema_rx.sv; its own 6 LUTs and 12 FFs of sequencing are left out).
// resp_schema runs in a model of its own, the make schematx-model the
// cycles are measured on.
var rxScope = strings.TrimSuffix(schemacase.PairTop, ".") + ".u_rx"

// units names the three units in the order of serviceReport.Activity and
// of readUnits.
var units = [3]string{"recv_header", "recv_schema", "resp_schema"}

// traceActivity runs unit's child (service's, at = its stem and width
// suffix) again at activityLatency with an FST
// trace of the whole run, reset included, and sets act[i] to the own
// switching of scopes[i] (toggles per bit per cycle of the first scope's
// model's clock). The run is checked as the measuring one: a request that
// differs from the reference is an error. The VCD fst2vcd makes is
// removed after; the FST stays in build/bench-services/.
func traceActivity(exe, root, unit, service, at, lib string, width int, scopes []string, act []*rpt.Activity) error {
	dir := filepath.Join(root, "build", "bench-services")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(dir, at+"-"+unit)
	fst, vcd := base+".fst", base+".vcd"
	ur, err := runChild(exe, root, unit, service, lib, width, []int{activityLatency}, fst)
	if err != nil {
		return err
	}
	for _, r := range ur.Requests {
		if r.Err != "" {
			return fmt.Errorf("the traced run: record %d: %s", r.Index, r.Err)
		}
	}
	if err := flow.FSTToVCD(context.Background(), fst, vcd); err != nil {
		return err
	}
	defer os.Remove(vcd)
	dump, err := activity.ReadFile(vcd)
	if err != nil {
		return err
	}
	top, _, _ := strings.Cut(scopes[0], ".")
	cycles, err := dump.RisingEdges(top + ".clk_i")
	if err != nil {
		return fmt.Errorf("%s: %w", fst, err)
	}
	for i, name := range scopes {
		sc := dump.Scope(name)
		if sc == nil {
			return fmt.Errorf("%s: no scope %s in the waveform", fst, name)
		}
		bits, toggles := sc.Own()
		*act[i] = rpt.NewActivity(bits, toggles, cycles)
	}
	return nil
}

// power is a service's estimate: each unit's share and the total with
// the fixed term, in watts.
type power struct {
	Units  [3]float64
	FixedW float64
	TotalW float64
}

// estimate is the service's power from its units' figures and rates.
func estimate(u [3]unitFigures, rate [3]float64) (power, error) {
	m, err := rpt.Figure19Model()
	if err != nil {
		return power{}, err
	}
	var p power
	p.FixedW = m.FixedAt(rpt.Figure19FreqMHz)
	p.TotalW = p.FixedW
	for i := range u {
		p.Units[i] = m.BlockW(rpt.Resources{LUTs: u[i].luts, FFs: u[i].ffs}, rate[i], rpt.Figure19FreqMHz)
		p.TotalW += p.Units[i]
	}
	return p, nil
}
