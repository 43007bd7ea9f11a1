package report

import (
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// palette colours the segments of the stacked bars, one per block.
var palette = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff},
	{0x59, 0xa1, 0x4f, 0xff}, {0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff},
	{0x9c, 0x75, 0x5f, 0xff}, {0xba, 0xb0, 0xac, 0xff},
}

// stacked is one panel's bars: each category (drawn bottom up) has one
// value per segment name.
type stacked struct {
	categories []string
	names      []string
	values     map[string][]float64
}

func (s *stacked) add(cat int, name string, v float64) {
	if _, ok := s.values[name]; !ok {
		s.names = append(s.names, name)
		s.values[name] = make([]float64, len(s.categories))
	}
	s.values[name][cat] = v
}

func (s *stacked) total(cat int) float64 {
	t := 0.0
	for _, n := range s.names {
		t += s.values[n][cat]
	}
	return t
}

// WriteSVG draws the per-block breakdown in the shape of the paper's
// Figure 19: (a) resource utilization, stacked LUT and FF bars, and (b)
// dynamic power, a stacked bar in mW, each split into the top's children
// (and the top's own logic, and the model's fixed term for power).
func (r *Report) WriteSVG(w io.Writer) error {
	top := r.Top()
	glue := top.Label + ": top-level glue"
	res := &stacked{categories: []string{"FFs", "LUTs"}, values: map[string][]float64{}}
	var power *stacked
	ps := r.PowerSummary
	if ps != nil && top.Power != nil {
		power = &stacked{categories: []string{"mW"}, values: map[string][]float64{}}
	}
	for _, b := range r.Blocks {
		if b.Depth != 1 {
			continue
		}
		res.add(0, b.Label, float64(b.Total.FFs))
		res.add(1, b.Label, float64(b.Total.TotalLUTs()))
		if power != nil {
			power.add(0, b.Label, b.Power.TotalW*1000)
		}
	}
	res.add(0, glue, float64(top.Own.FFs))
	res.add(1, glue, float64(top.Own.TotalLUTs()))
	powerTitle := ""
	if power != nil {
		power.add(0, glue, top.Power.OwnW*1000)
		if ps.FixedW > 0 {
			power.add(0, "fixed clocking term (model)", ps.FixedW*1000)
		}
		powerTitle = "(b) Dynamic power (mW), ESTIMATE"
		if ps.Kind == "vivado" {
			powerTitle = "(b) Dynamic power (mW), Vivado report_power"
		}
	}

	// One colour per segment name, in bar order, shared by both panels.
	colour := map[string]color.Color{}
	legend := plot.NewLegend()
	legend.TextStyle.Font.Size = 10
	legend.Top, legend.Left = true, true
	legend.Padding = vg.Points(4)
	var entries []string
	addNames := func(s *stacked) {
		for _, n := range s.names {
			if _, ok := colour[n]; !ok {
				colour[n] = palette[len(entries)%len(palette)]
				entries = append(entries, n)
			}
		}
	}
	addNames(res)
	if power != nil {
		addNames(power)
	}

	resMax := max(res.total(0), res.total(1), float64(r.Part.LUTs))
	pa, thumbs, err := barPanel("(a) Resource utilization", res, colour, resMax, "%.0f")
	if err != nil {
		return err
	}
	if r.Part.LUTs > 0 {
		// The part's LUT count as a dashed line across the LUT bar.
		x := float64(r.Part.LUTs)
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0.55}, {X: x, Y: 1.45}})
		if err != nil {
			return err
		}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		lb, err := plotter.NewLabels(plotter.XYLabels{
			XYs: plotter.XYs{{X: x, Y: 1.45}}, Labels: []string{fmt.Sprintf("%s: %d LUTs", r.Part.Name, r.Part.LUTs)}})
		if err != nil {
			return err
		}
		lb.TextStyle[0].Font.Size = 9
		lb.TextStyle[0].XAlign = draw.XCenter
		pa.Add(l, lb)
	}
	var pb *plot.Plot
	if power != nil {
		var pt map[string]plot.Thumbnailer
		if pb, pt, err = barPanel(powerTitle, power, colour, power.total(0), "%.1f"); err != nil {
			return err
		}
		for n, t := range pt {
			if _, ok := thumbs[n]; !ok {
				thumbs[n] = t
			}
		}
	}
	// The legend in two columns under the panels.
	half := (len(entries) + 1) / 2
	left, right := legend, legend
	for i, n := range entries {
		if i < half {
			left.Add(n, thumbs[n])
		} else {
			right.Add(n, thumbs[n])
		}
	}

	const (
		width  = 9 * vg.Inch
		header = 44
		panelA = 170
		panelB = 120
		margin = 12
	)
	legendH := vg.Length(half)*vg.Points(16) + margin
	height := vg.Points(header+panelA+margin) + legendH
	if pb != nil {
		height += vg.Points(panelB)
	}
	c := vgsvg.New(width, height)
	dc := draw.New(c)
	c.SetColor(color.White)
	c.Fill(dc.Rectangle.Path())

	ts := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 15), Handler: plot.DefaultTextHandler, YAlign: draw.YTop}
	dc.FillText(ts, vg.Point{X: margin, Y: height - 8}, r.Title)
	ts.Font.Size, ts.Color = 11, color.Gray{0x55}
	dc.FillText(ts, vg.Point{X: margin, Y: height - 28},
		fmt.Sprintf("%s, %s, %s MHz", r.Source, r.Part.Name, fmtFloat(r.FreqMHz)))

	y := height - header
	pa.Draw(draw.Crop(dc, margin, -margin, y-panelA, y-height))
	y -= panelA
	if pb != nil {
		pb.Draw(draw.Crop(dc, margin, -margin, y-panelB, y-height-10))
		y -= panelB
	}
	legendArea := draw.Crop(dc, margin, -margin, margin, y-height)
	left.Draw(draw.Crop(legendArea, 0, -width/2, 0, 0))
	right.Draw(draw.Crop(legendArea, width/2-margin, 0, 0, 0))

	_, err = c.WriteTo(w)
	return err
}

// barPanel is one panel of horizontal stacked bars with each segment's value
// inside it (when it fits) and the bar's total after it; it also returns the
// legend thumbnail of each segment name.
func barPanel(title string, s *stacked, colour map[string]color.Color, xmax float64, format string) (*plot.Plot, map[string]plot.Thumbnailer, error) {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = 12
	p.Title.TextStyle.XAlign = draw.XLeft
	p.Title.Padding = vg.Points(4)
	p.X.Min, p.X.Max = 0, xmax*1.12
	p.Y.Min, p.Y.Max = -0.6, float64(len(s.categories))-0.4
	p.NominalY(s.categories...)
	thumbs := map[string]plot.Thumbnailer{}
	var below *plotter.BarChart
	var inXY plotter.XYs
	var inText []string
	start := make([]float64, len(s.categories))
	for _, n := range s.names {
		vals := s.values[n]
		bc, err := plotter.NewBarChart(plotter.Values(vals), vg.Points(24))
		if err != nil {
			return nil, nil, fmt.Errorf("chart %q, segment %q: %w", title, n, err)
		}
		bc.Horizontal = true
		bc.Color = colour[n]
		bc.LineStyle.Color = color.White
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		p.Add(bc)
		thumbs[n] = bc
		for i, v := range vals {
			if xmax > 0 && v/xmax > 0.05 {
				inXY = append(inXY, plotter.XY{X: start[i] + v/2, Y: float64(i)})
				inText = append(inText, fmt.Sprintf(format, v))
			}
			start[i] += v
		}
	}
	var totXY plotter.XYs
	var totText []string
	for i := range s.categories {
		totXY = append(totXY, plotter.XY{X: start[i], Y: float64(i)})
		totText = append(totText, "total "+fmt.Sprintf(format, start[i]))
	}
	for _, l := range []struct {
		xys   plotter.XYs
		texts []string
		white bool
	}{{inXY, inText, true}, {totXY, totText, false}} {
		if len(l.xys) == 0 {
			continue
		}
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: l.xys, Labels: l.texts})
		if err != nil {
			return nil, nil, fmt.Errorf("chart %q: %w", title, err)
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].Font.Size = 9
			lb.TextStyle[i].YAlign = draw.YCenter
			if l.white {
				lb.TextStyle[i].XAlign = draw.XCenter
				lb.TextStyle[i].Color = color.White
			}
		}
		if !l.white {
			lb.Offset = vg.Point{X: vg.Points(4)}
		}
		p.Add(lb)
	}
	return p, thumbs, nil
}
