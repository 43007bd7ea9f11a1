package main

import (
	"fmt"
	"image/color"
	"os"
	"sort"

	rpt "arcalis/report"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

var mixColors = map[string]color.Color{
	"memc-tiny":  color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	"memc-small": color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	"etc":        color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
}

// addLine adds a line with points to p under the legend name.
func addLine(p *plot.Plot, name string, xys plotter.XYs, c color.Color, dashed bool) error {
	l, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	l.Color, s.Color = c, c
	s.Shape = draw.CircleGlyph{}
	s.Radius = vg.Points(2)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		s.Shape = draw.BoxGlyph{}
	}
	p.Add(l, s)
	p.Legend.Add(name, l, s)
	return nil
}

// plotSweep draws the Figure-15-shaped sweep: end-to-end cycles per request
// against memory latency, and the same normalized to the 5-cycle point.
func plotSweep(pts []sweepPoint, absPath, normPath string) error {
	for _, norm := range []bool{false, true} {
		p := plot.New()
		p.X.Label.Text = "memory latency (cycles; 1 GHz: ns)"
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		if norm {
			p.Title.Text = "End-to-end time per request, relative to 5-cycle latency"
			p.Y.Label.Text = "time / time at 5 cycles"
		} else {
			p.Title.Text = "End-to-end cycles per request vs memory latency"
			p.Y.Label.Text = "cycles per request"
			p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		}
		p.Legend.Top, p.Legend.Left = true, true
		for _, mix := range []string{"memc-tiny", "memc-small", "etc"} {
			for _, inflight := range []int{0, 1} {
				var xys plotter.XYs
				base := 0.0
				for _, q := range pts {
					if q.Mix != mix || q.InFlight != inflight {
						continue
					}
					if base == 0 {
						base = q.PerReq
					}
					y := q.PerReq
					if norm {
						y /= base
					}
					xys = append(xys, plotter.XY{X: float64(q.Latency), Y: y})
				}
				sort.Slice(xys, func(i, j int) bool { return xys[i].X < xys[j].X })
				name := fmt.Sprintf("%s, %d in flight", mix, InFlight)
				if inflight == 1 {
					name = mix + ", 1 in flight"
				}
				if err := addLine(p, name, xys, mixColors[mix], inflight == 1); err != nil {
					return err
				}
			}
		}
		path := absPath
		if norm {
			path = normPath
		}
		if err := p.Save(7*vg.Inch, 4.5*vg.Inch, path); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}

// plotLineRate draws cycles against message size at zero latency beside the
// schedule, worst start offset of each size.
func plotLineRate(sums []sizeSummary, path string) error {
	p := plot.New()
	p.Title.Text = "Set: CMD_SEND_NET_LEN to ready at zero memory latency (worst start offset)"
	p.X.Label.Text = "message size (bytes)"
	p.Y.Label.Text = "cycles"
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	var got, sched plotter.XYs
	for _, s := range sums {
		x := float64(s.Size)
		got = append(got, plotter.XY{X: x, Y: float64(s.MaxCycles)})
		sched = append(sched, plotter.XY{X: x, Y: float64(s.MaxSched)})
	}
	for _, l := range []struct {
		name   string
		xys    plotter.XYs
		c      color.Color
		dashed bool
	}{
		{"measured (max over offsets)", got, mixColors["memc-tiny"], false},
		{"schedule (docs/abi.md section 10, max over offsets)", sched, mixColors["memc-small"], true},
	} {
		if err := addLine(p, l.name, l.xys, l.c, l.dashed); err != nil {
			return err
		}
	}
	if err := p.Save(7*vg.Inch, 4.5*vg.Inch, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// paperColor marks the paper's figures in the Pareto plot.
var paperColor = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}

// plotPareto draws each width as a point: (a) LUTs against requests per
// second at the estimated Fmax (memc-small and ETC), with the paper's
// Memcached throughput and Figure 19 LUTs as lines; (b) LUTs against the
// estimated Fmax, with the paper's two Figure 19 designs at 280 MHz.
func plotPareto(rows []paretoRow, path string) error {
	xmax, kmax, fmax := 0.0, paperMemcachedKRPS[1], float64(paperFigure19MHz)
	for _, c := range rpt.Figure19 {
		xmax = max(xmax, float64(c.LUTs))
	}
	for _, r := range rows {
		xmax = max(xmax, float64(r.Area.TotalLUTs()))
		fmax = max(fmax, r.Clock.MHz)
		for _, m := range paretoMixes {
			kmax = max(kmax, r.Clock.PerSecond(r.mix(m).PerReq)/1000)
		}
	}
	xmax *= 1.1

	a := plot.New()
	a.Title.Text = "(a) LUTs against requests/s at the estimated Fmax"
	a.X.Label.Text = "LUTs (ours: whole receive path, Yosys)"
	a.Y.Label.Text = fmt.Sprintf("kRPS (ours: memory latency %d cycles)", paretoLatency)
	a.X.Min, a.X.Max, a.Y.Min, a.Y.Max = 0, xmax, 0, kmax*1.2
	a.Legend.Top, a.Legend.Left = false, false // the bottom right is empty
	a.Legend.TextStyle.Font.Size = 9
	for _, m := range paretoMixes {
		var xys plotter.XYs
		var names []string
		for _, r := range rows {
			xys = append(xys, plotter.XY{X: float64(r.Area.TotalLUTs()), Y: r.Clock.PerSecond(r.mix(m).PerReq) / 1000})
			names = append(names, fmt.Sprintf("%d B", r.Width))
		}
		if err := addLine(a, "ours, "+m, xys, mixColors[m], false); err != nil {
			return err
		}
		if m == paretoMixes[0] { // the widths once: both mixes' points share their x
			if _, err := addLabels(a, xys, names, mixColors[m]); err != nil {
				return err
			}
		}
	}
	for i, k := range paperMemcachedKRPS {
		name := ""
		if i == 0 {
			name = "paper: Memcached, whole service, gem5 at 1 GHz (Fig. 13)"
		}
		if err := addRule(a, name, plotter.XYs{{X: 0, Y: k}, {X: xmax, Y: k}}, fmt.Sprintf("%s kRPS", rpt.Thousands(int(k)))); err != nil {
			return err
		}
	}
	for _, c := range rpt.Figure19 {
		if err := addRule(a, "", plotter.XYs{{X: float64(c.LUTs), Y: 0}, {X: float64(c.LUTs), Y: kmax * 1.2}},
			fmt.Sprintf("paper %s: %s LUTs", c.Name, rpt.Thousands(c.LUTs))); err != nil {
			return err
		}
	}

	b := plot.New()
	b.Title.Text = "(b) LUTs against Fmax"
	b.X.Label.Text = "LUTs"
	b.Y.Label.Text = "MHz"
	b.X.Min, b.X.Max, b.Y.Min, b.Y.Max = 0, xmax, 0, fmax*1.25
	b.Legend.Top, b.Legend.Left = false, false
	b.Legend.TextStyle.Font.Size = 9
	var ours plotter.XYs
	var names []string
	for _, r := range rows {
		ours = append(ours, plotter.XY{X: float64(r.Area.TotalLUTs()), Y: r.Clock.MHz})
		names = append(names, fmt.Sprintf("%d B", r.Width))
	}
	if err := addLine(b, "ours: estimated Fmax (Yosys netlist, static model)", ours, mixColors["memc-tiny"], false); err != nil {
		return err
	}
	if _, err := addLabels(b, ours, names, mixColors["memc-tiny"]); err != nil {
		return err
	}
	if err := addRule(b, "the paper's clock, make timing's target", plotter.XYs{{X: 0, Y: paperFigure19MHz}, {X: xmax, Y: paperFigure19MHz}},
		fmt.Sprintf("%d MHz", paperFigure19MHz)); err != nil {
		return err
	}
	var paper plotter.XYs
	var pnames []string
	for _, c := range rpt.Figure19 {
		paper = append(paper, plotter.XY{X: float64(c.LUTs), Y: paperFigure19MHz})
		pnames = append(pnames, c.Name)
	}
	s, err := plotter.NewScatter(paper)
	if err != nil {
		return err
	}
	s.Color, s.Shape, s.Radius = paperColor, draw.BoxGlyph{}, vg.Points(3)
	b.Add(s)
	b.Legend.Add("paper: Vivado place and route at 280 MHz (Fig. 19)", s)
	pl, err := addLabels(b, paper, pnames, paperColor)
	if err != nil {
		return err
	}
	pl.Offset.Y = -vg.Points(12) // under the points, clear of the 280 MHz line's text
	for i := range pl.TextStyle {
		pl.TextStyle[i].XAlign = draw.XCenter
	}
	pl.Offset.X = 0

	const w, h = 12 * vg.Inch, 4.8 * vg.Inch
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	c.SetColor(color.White)
	c.Fill(dc.Rectangle.Path())
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Points(16), PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(10)}
	cells := plot.Align([][]*plot.Plot{{a, b}}, tiles, dc)
	a.Draw(cells[0][0])
	b.Draw(cells[0][1])
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

// addLabels writes names beside the points xys and returns them.
func addLabels(p *plot.Plot, xys plotter.XYs, names []string, c color.Color) (*plotter.Labels, error) {
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: names})
	if err != nil {
		return nil, err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = 9
		l.TextStyle[i].Color = c
	}
	l.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(3)}
	p.Add(l)
	return l, nil
}

// addRule draws a dashed grey line of the paper's, in the legend under
// name when it has one, with text at its end (left of it for a vertical
// line in the right half of the plot).
func addRule(p *plot.Plot, name string, xys plotter.XYs, text string) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.Color, l.Dashes = paperColor, []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	if name != "" {
		p.Legend.Add(name, l)
	}
	end := xys[len(xys)-1]
	lb, err := addLabels(p, plotter.XYs{end}, []string{text}, paperColor)
	if err != nil {
		return err
	}
	if xys[0].X == end.X && end.X > p.X.Max/2 {
		lb.TextStyle[0].XAlign = draw.XRight
		lb.Offset.X = -lb.Offset.X
	}
	return nil
}
