package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteJSON writes the report with its fit table as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	doc := struct {
		*Report
		Fit []Fit `json:"fit"`
	}{r, r.Fits()}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// CSVHeader are the columns of WriteCSV.
var CSVHeader = []string{
	"path", "module", "label", "depth",
	"luts", "lutram", "ffs", "carry", "muxf7f8", "bram_tiles", "dsp", "yosys_lcs", "inverters",
	"own_luts", "own_lutram", "own_ffs",
	"signal_bits", "toggles", "cycles", "toggle_rate", "dynamic_mw", "own_dynamic_mw",
}

// WriteCSV writes one row per block: total resources, own LUTs/FFs, activity
// and estimated power (empty when there is no estimate).
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, b := range r.Blocks {
		t := b.Total
		row := []string{
			b.Path, b.Module, b.Label, strconv.Itoa(b.Depth),
			strconv.Itoa(t.LUTs), strconv.Itoa(t.LUTRAM), strconv.Itoa(t.FFs), strconv.Itoa(t.Carry),
			strconv.Itoa(t.MuxF7F8), fmtFloat(t.BRAM), strconv.Itoa(t.DSP), lcs(t.LCs), strconv.Itoa(t.Inverters),
			strconv.Itoa(b.Own.LUTs), strconv.Itoa(b.Own.LUTRAM), strconv.Itoa(b.Own.FFs),
		}
		if a := b.Activity; a != nil {
			row = append(row, strconv.Itoa(a.Bits), strconv.FormatUint(a.Toggles, 10), strconv.FormatUint(a.Cycles, 10),
				strconv.FormatFloat(a.Rate, 'f', 5, 64))
		} else {
			row = append(row, "", "", "", "")
		}
		if p := b.Power; p != nil {
			row = append(row, strconv.FormatFloat(p.TotalW*1000, 'f', 3, 64), strconv.FormatFloat(p.OwnW*1000, 'f', 3, 64))
		} else {
			row = append(row, "", "")
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Thousands formats n with commas: 12,345.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func lcs(n int) string {
	if n < 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// mw formats watts as milliwatts with one decimal.
func mw(w float64) string { return strconv.FormatFloat(w*1000, 'f', 1, 64) }

func pct(used, avail float64) string {
	if avail == 0 {
		return "–"
	}
	return strconv.FormatFloat(100*used/avail, 'f', 1, 64) + " %"
}

// WriteMarkdown writes the tables for people: per-block resources, the fit
// against the part, and the power estimate with its model.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.Title)
	fmt.Fprintf(&b, "Source: %s. Part: %s at %s MHz.\n\n", r.Source, r.Part.Name, fmtFloat(r.FreqMHz))
	b.WriteString("## Resources per block\n\n")
	b.WriteString("Totals include sub-instances. LUTs are logic LUTs; LUTRAM are LUTs used as memory.\n\n")
	hasLC := r.Top().Total.LCs >= 0
	hdr := "| Block | Instance | LUTs | LUTRAM | FFs | Carry | F7/F8 | BRAM | DSP |"
	sep := "|---|---|---:|---:|---:|---:|---:|---:|---:|"
	if hasLC {
		hdr += " Yosys LCs | INV |"
		sep += "---:|---:|"
	}
	b.WriteString(hdr + "\n" + sep + "\n")
	for _, blk := range r.Blocks {
		t := blk.Total
		fmt.Fprintf(&b, "| %s%s | `%s` | %d | %d | %d | %d | %d | %s | %d |",
			strings.Repeat("&emsp;", blk.Depth), blk.Label, blk.Name(), t.LUTs, t.LUTRAM, t.FFs, t.Carry, t.MuxF7F8, fmtFloat(t.BRAM), t.DSP)
		if hasLC {
			fmt.Fprintf(&b, " %d | %d |", t.LCs, t.Inverters)
		}
		b.WriteString("\n")
	}

	b.WriteString("\n## Regions\n\n| Region | LUTs (logic + memory) | FFs |\n|---|---:|---:|\n")
	for _, g := range r.Regions() {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", g.Name, g.Total.TotalLUTs(), g.Total.FFs)
	}

	fmt.Fprintf(&b, "\n## Against the part (%s)\n\n", r.Part.Name)
	b.WriteString("| Resource | Used | Available | Utilization | Fits |\n|---|---:|---:|---:|---|\n")
	all := true
	for _, f := range r.Fits() {
		yes := "yes"
		if !f.Fits {
			yes, all = "**no**", false
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", f.Resource, fmtFloat(f.Used), fmtFloat(f.Available), pct(f.Used, f.Available), yes)
	}
	if all {
		fmt.Fprintf(&b, "\nThe design fits the %s.", r.Part.Name)
	} else {
		fmt.Fprintf(&b, "\nThe design does **not** fit the %s.", r.Part.Name)
	}
	fmt.Fprintf(&b, " Capacity: %s.\n", r.Part.Source)

	if t := r.Timing; t != nil {
		b.WriteString("\n## Timing\n\n")
		fmt.Fprintf(&b, "WNS %s ns, TNS %s ns (%d failing endpoints), WHS %s ns, THS %s ns",
			ns(t.WNS), ns(t.TNS), t.FailingEndpoints, ns(t.WHS), ns(t.THS))
		if t.ClockPeriodNS > 0 {
			fmt.Fprintf(&b, "; clock period %s ns", fmtFloat(t.ClockPeriodNS))
		}
		b.WriteString(".\n")
	}

	if ps := r.PowerSummary; ps != nil {
		r.writePowerMarkdown(&b, ps)
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n## How these numbers were made\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func ns(x float64) string {
	if math.IsNaN(x) {
		return "NA"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

func (r *Report) writePowerMarkdown(b *strings.Builder, ps *PowerSummary) {
	if ps.Kind == "vivado" {
		b.WriteString("\n## Power (Vivado report_power)\n\n")
		fmt.Fprintf(b, "Total on-chip %s mW: dynamic %s mW, device static %s mW.\n\n", mw(ps.TotalW), mw(ps.DynamicW), mw(ps.StaticW))
		b.WriteString("| Block | Instance | Power (mW) |\n|---|---|---:|\n")
		for _, blk := range r.Blocks {
			if blk.Power != nil {
				fmt.Fprintf(b, "| %s%s | `%s` | %s |\n", strings.Repeat("&emsp;", blk.Depth), blk.Label, blk.Name(), mw(blk.Power.TotalW))
			}
		}
		return
	}
	m := ps.Model
	fmt.Fprintf(b, "\n## Dynamic power: ESTIMATE at %s MHz\n\n", fmtFloat(r.FreqMHz))
	fmt.Fprintf(b, "**This is a model estimate, not a measurement or a Vivado result.** "+
		"Activity: %s, %d clock cycles. Estimated dynamic power %s mW "+
		"(%s mW fixed clocking term + %s mW in the blocks).\n\n",
		ps.Workload, ps.Cycles, mw(ps.DynamicW), mw(ps.FixedW), mw(ps.DynamicW-ps.FixedW))
	b.WriteString("| Block | Instance | Signal bits | Toggle rate | Own LUTs+FFs | Est. dynamic (mW) |\n|---|---|---:|---:|---:|---:|\n")
	for _, blk := range r.Blocks {
		if blk.Activity == nil || blk.Power == nil {
			continue
		}
		fmt.Fprintf(b, "| %s%s | `%s` | %d | %.4f | %d | %s |\n", strings.Repeat("&emsp;", blk.Depth), blk.Label, blk.Name(),
			blk.Activity.Bits, blk.Activity.Rate, Elements(blk.Own), mw(blk.Power.TotalW))
	}
	fmt.Fprintf(b, "\nModel: P = f/%s MHz × (%.2f mW + Σ %.3f µW × (LUTs + FFs) × rate / %.3f), "+
		"both coefficients fitted to the paper's Figure 19 designs:", fmtFloat(m.RefFreqMHz), m.FixedW*1000, m.PerElementW*1e6, m.RefActivity)
	for _, c := range m.Calibration {
		fmt.Fprintf(b, " %s %d LUTs + %d FFs = %s mW;", c.Name, c.LUTs, c.FFs, mw(c.DynamicW))
	}
	b.WriteString(" their switching is assumed to be Vivado's vectorless default toggle rate. See docs/reports.md for the derivation and its limits.\n")
	if ps.SAIF != "" {
		fmt.Fprintf(b, "\nThe same activity is in `%s` (SAIF 2.0) for Vivado's `read_saif`.\n", ps.SAIF)
	}
}
