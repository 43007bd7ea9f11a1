package report

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// palette colours the segments of the stacked bars, one per block.
var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// segment is one block's share of a bar.
type segment struct {
	label string
	value float64
}

// WriteSVG draws the per-block breakdown in the shape of the paper's
// Figure 19: (a) resource utilization, stacked LUT and FF bars, and (b)
// dynamic power, a stacked bar in mW, each split into the top's children
// (and the top's own logic, and the model's fixed term for power).
func (r *Report) WriteSVG(w io.Writer) error {
	top := r.Top()
	var parts []Block
	for _, b := range r.Blocks {
		if b.Depth == 1 {
			parts = append(parts, b)
		}
	}
	luts := make([]segment, 0, len(parts)+1)
	ffs := make([]segment, 0, len(parts)+1)
	for _, b := range parts {
		luts = append(luts, segment{b.Label, float64(b.Total.TotalLUTs())})
		ffs = append(ffs, segment{b.Label, float64(b.Total.FFs)})
	}
	glue := top.Label + ": top-level glue"
	luts = append(luts, segment{glue, float64(top.Own.TotalLUTs())})
	ffs = append(ffs, segment{glue, float64(top.Own.FFs)})

	var power []segment
	if ps := r.PowerSummary; ps != nil && top.Power != nil {
		for _, b := range parts {
			power = append(power, segment{b.Label, b.Power.TotalW * 1000})
		}
		power = append(power, segment{glue, top.Power.OwnW * 1000})
		if ps.FixedW > 0 {
			power = append(power, segment{"fixed clocking term (model)", ps.FixedW * 1000})
		}
	}

	// One colour per segment name, in bar order.
	var names []string
	colour := map[string]string{}
	for _, s := range append(append([]segment{}, luts...), power...) {
		if _, ok := colour[s.label]; !ok {
			colour[s.label] = palette[len(names)%len(palette)]
			names = append(names, s.label)
		}
	}

	const (
		width, left, barH, gap = 900.0, 70.0, 34.0, 18.0
		plotW                  = width - left - 30
	)
	var b strings.Builder
	height := 420.0
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%g" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", left, esc(r.Title))
	fmt.Fprintf(&b, `<text x="%g" y="40" fill="#555">%s, %s, %s MHz</text>`+"\n", left, esc(r.Source), esc(r.Part.Name), fmtFloat(r.FreqMHz))

	y := 70.0
	maxRes := math.Max(math.Max(sum(luts), sum(ffs)), float64(r.Part.LUTs))
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-weight="bold">(a) Resource utilization</text>`+"\n", left, y)
	y += 10
	for _, bar := range []struct {
		name string
		segs []segment
	}{{"LUTs", luts}, {"FFs", ffs}} {
		drawBar(&b, bar.name, bar.segs, colour, left, y, plotW, barH, maxRes, "%.0f")
		if bar.name == "LUTs" && r.Part.LUTs > 0 {
			x := left + plotW*float64(r.Part.LUTs)/maxRes
			fmt.Fprintf(&b, `<line x1="%.2f" y1="%g" x2="%.2f" y2="%g" stroke="black" stroke-dasharray="4 3"/>`+"\n", x, y-4, x, y+barH+4)
			fmt.Fprintf(&b, `<text x="%.2f" y="%g" text-anchor="middle" font-size="11">%s: %d LUTs</text>`+"\n", x, y-6, esc(r.Part.Name), r.Part.LUTs)
		}
		y += barH + gap
	}
	if power != nil {
		y += 10
		label := "(b) Dynamic power (mW), ESTIMATE"
		if r.PowerSummary.Kind == "vivado" {
			label = "(b) Dynamic power (mW), Vivado report_power"
		}
		fmt.Fprintf(&b, `<text x="%g" y="%g" font-weight="bold">%s</text>`+"\n", left, y, label)
		y += 10
		drawBar(&b, "mW", power, colour, left, y, plotW, barH, sum(power), "%.1f")
		y += barH + gap
	}
	// Legend, in bar order.
	y += 6
	x := left
	for _, n := range names {
		wText := 14 + 7*float64(len([]rune(n)))
		if x+wText > width-20 {
			x, y = left, y+20
		}
		fmt.Fprintf(&b, `<rect x="%g" y="%g" width="10" height="10" fill="%s"/>`, x, y, colour[n])
		fmt.Fprintf(&b, `<text x="%g" y="%g">%s</text>`+"\n", x+14, y+9, esc(n))
		x += wText + 14
	}
	out := strings.Replace(b.String(), fmt.Sprintf(`height="%g" viewBox="0 0 %g %g"`, height, width, height),
		fmt.Sprintf(`height="%g" viewBox="0 0 %g %g"`, y+30, width, y+30), 1)
	out += "</svg>\n"
	_, err := io.WriteString(w, out)
	return err
}

func drawBar(b *strings.Builder, name string, segs []segment, colour map[string]string, left, y, plotW, h, max float64, format string) {
	fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="end">%s</text>`+"\n", left-8, y+h/2+4, esc(name))
	x := left
	for _, s := range segs {
		if s.value <= 0 || max <= 0 {
			continue
		}
		w := plotW * s.value / max
		fmt.Fprintf(b, `<rect x="%.2f" y="%g" width="%.2f" height="%g" fill="%s" stroke="white"><title>%s: %s</title></rect>`+"\n",
			x, y, w, h, colour[s.label], esc(s.label), fmt.Sprintf(format, s.value))
		if w > 38 {
			fmt.Fprintf(b, `<text x="%.2f" y="%g" text-anchor="middle" fill="white" font-size="11">%s</text>`+"\n", x+w/2, y+h/2+4, fmt.Sprintf(format, s.value))
		}
		x += w
	}
	fmt.Fprintf(b, `<text x="%.2f" y="%g" fill="#333">%s</text>`+"\n", math.Min(x+6, left+plotW-40), y+h+13, "total "+fmt.Sprintf(format, sum(segs)))
}

func sum(s []segment) float64 {
	t := 0.0
	for _, x := range s {
		t += x.value
	}
	return t
}

func esc(s string) string { return html.EscapeString(s) }
