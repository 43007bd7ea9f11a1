package timing

import (
	"regexp"
	"sort"
)

// Report is what `arcalis report timing` writes: the estimate at one
// target frequency.
type Report struct {
	Date      string  `json:"date"`
	Host      string  `json:"host"`
	Yosys     string  `json:"yosys"`
	Netlist   string  `json:"netlist"`
	Top       string  `json:"top"`
	TargetMHz float64 `json:"target_mhz"`
	PeriodNS  float64 `json:"period_ns"`
	// FmaxMHz and WorstSlackNS count register and port paths alike, but
	// not input-to-output paths, which are listed apart and fail the gate.
	FmaxMHz      float64 `json:"fmax_mhz"`
	WorstNS      float64 `json:"worst_ns"`
	WorstSlackNS float64 `json:"worst_slack_ns"`
	Cells        int     `json:"cells"`
	Nets         int     `json:"nets"`
	Endpoints    int     `json:"endpoints"`
	// OverMargin counts the endpoints whose longest path is above the
	// margin's period (PeriodNS / (1 + Margin)), in all and per top-level
	// block: what is left to do before the margin is met.
	OverMargin        int            `json:"over_margin"`
	OverMarginByBlock map[string]int `json:"over_margin_by_block"`
	// OverMarginGroups are those endpoints grouped by their longest path's
	// start and end register (bits merged), worst first, each with that
	// worst path (without its steps).
	OverMarginGroups []MarginGroup `json:"over_margin_groups"`
	// Worst are the longest paths, one per endpoint, worst first.
	Worst []Path `json:"worst"`
	// PerKind is the longest path of each kind (reg->reg, in->reg, ...).
	PerKind map[string]*Path `json:"per_kind"`
	// PerBlock is the longest path into each top-level block.
	PerBlock []Path `json:"per_block"`
	// InToOut lists every output bit a top-level input reaches through
	// logic alone, with its longest such path.
	InToOut []Path  `json:"in_to_out"`
	Model   *Delays `json:"model"`
}

// MarginGroup is the endpoints above the margin's period whose longest
// paths run between the same two registers (any bits).
type MarginGroup struct {
	Start     string `json:"start"`
	End       string `json:"end"`
	Endpoints int    `json:"endpoints"`
	Worst     Path   `json:"worst"`
}

// bitIndex is a net's bit select, merged when paths are grouped.
var bitIndex = regexp.MustCompile(`\[\d+\]`)

// Build finds the longest paths of the analysed design at the target
// frequency; nWorst paths are kept in Worst.
func (a *Analysis) Build(targetMHz float64, nWorst int) *Report {
	r := &Report{
		Yosys: a.D.Creator, Netlist: a.D.File, Top: a.D.Top,
		TargetMHz: targetMHz, PeriodNS: 1000 / targetMHz,
		Cells: len(a.D.Cells), Nets: len(a.D.Nets),
		PerKind: map[string]*Path{}, Model: a.M, OverMarginByBlock: map[string]int{},
	}
	eps := a.endpoints()
	r.Endpoints = len(eps)
	type cand struct {
		e endpoint
		k int
		t float64
	}
	var all []cand
	perBlock := map[string]cand{}
	type group struct {
		n     int
		worst Path
	}
	groups := map[[2]string]*group{}
	perKind := map[string]cand{}
	kindOf := func(k int, e endpoint) string {
		switch {
		case k == fromReg && e.pin != nil:
			return RegToReg
		case k == fromReg:
			return RegToOut
		case e.pin != nil:
			return InToReg
		}
		return InToOut
	}
	for _, e := range eps {
		best := cand{e: e, t: negInf}
		for k := range a.arr {
			t := a.arrivalAt(k, e)
			if t == negInf {
				continue
			}
			kind := kindOf(k, e)
			if pk, ok := perKind[kind]; !ok || t > pk.t {
				perKind[kind] = cand{e, k, t}
			}
			if kind == InToOut {
				p := a.path(k, e)
				p.From = a.inputsReaching(e.net)
				r.InToOut = append(r.InToOut, p)
				continue
			}
			if t > best.t {
				best = cand{e, k, t}
			}
		}
		if best.t == negInf {
			continue
		}
		all = append(all, best)
		blk := "(top)"
		if e.pin != nil {
			blk = e.pin.Cell.Block
		}
		if pb, ok := perBlock[blk]; !ok || best.t > pb.t {
			perBlock[blk] = best
		}
		if best.t > r.PeriodNS/(1+Margin) {
			r.OverMargin++
			r.OverMarginByBlock[blk]++
			p := a.path(best.k, best.e)
			p.Steps = nil
			key := [2]string{bitIndex.ReplaceAllString(p.Start, ""), bitIndex.ReplaceAllString(p.End, "")}
			g := groups[key]
			if g == nil {
				g = &group{worst: p}
				groups[key] = g
			}
			g.n++
			if p.TotalNS > g.worst.TotalNS {
				g.worst = p
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].t > all[j].t })
	for i := 0; i < len(all) && i < nWorst; i++ {
		r.Worst = append(r.Worst, a.path(all[i].k, all[i].e))
	}
	if len(all) > 0 {
		r.WorstNS = all[0].t
		r.FmaxMHz = 1000 / r.WorstNS
		r.WorstSlackNS = r.PeriodNS - r.WorstNS
	}
	for kind, c := range perKind {
		p := a.path(c.k, c.e)
		r.PerKind[kind] = &p
	}
	for _, c := range perBlock {
		r.PerBlock = append(r.PerBlock, a.path(c.k, c.e))
	}
	sort.Slice(r.PerBlock, func(i, j int) bool { return r.PerBlock[i].TotalNS > r.PerBlock[j].TotalNS })
	for key, g := range groups {
		r.OverMarginGroups = append(r.OverMarginGroups, MarginGroup{Start: key[0], End: key[1], Endpoints: g.n, Worst: g.worst})
	}
	sort.Slice(r.OverMarginGroups, func(i, j int) bool {
		gi, gj := r.OverMarginGroups[i], r.OverMarginGroups[j]
		if gi.Worst.TotalNS != gj.Worst.TotalNS {
			return gi.Worst.TotalNS > gj.Worst.TotalNS
		}
		return gi.Start+gi.End < gj.Start+gj.End
	})
	sort.SliceStable(r.InToOut, func(i, j int) bool { return r.InToOut[i].TotalNS > r.InToOut[j].TotalNS })
	return r
}

// Meets reports whether the estimate closes the target with no
// input-to-output path.
func (r *Report) Meets() bool {
	return len(r.InToOut) == 0 && r.FmaxMHz >= r.TargetMHz
}
