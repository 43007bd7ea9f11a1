package main

import (
	"fmt"
	"image/color"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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

// plotLineRate draws cycles against message size at zero latency, with the
// issue's bound and the streaming bound, worst start offset of each size.
func plotLineRate(sums []sizeSummary, path string) error {
	p := plot.New()
	p.Title.Text = "Set: CMD_SEND_NET_LEN to ready at zero memory latency (worst start offset)"
	p.X.Label.Text = "message size (bytes)"
	p.Y.Label.Text = "cycles"
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	var got, sum, stream plotter.XYs
	for _, s := range sums {
		x := float64(s.Size)
		got = append(got, plotter.XY{X: x, Y: float64(s.MaxCycles)})
		sum = append(sum, plotter.XY{X: x, Y: float64(s.Touched + s.Written + PipelineDepth)})
		stream = append(stream, plotter.XY{X: x, Y: float64(max(s.Touched, s.Written) + PipelineDepth)})
	}
	for _, l := range []struct {
		name   string
		xys    plotter.XYs
		c      color.Color
		dashed bool
	}{
		{"measured (max over offsets)", got, mixColors["memc-tiny"], false},
		{"bound: touched + written + 8", sum, mixColors["memc-small"], true},
		{"streaming bound: max(touched, written) + 8", stream, mixColors["etc"], true},
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
