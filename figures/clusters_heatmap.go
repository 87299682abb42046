package figures

// A labelled heatmap for small tables (methods × clusters in seed 001
// Fig. 8, datasets × strategies for dataset_selection): every cell shows
// its number, so the colour only guides the eye and the figure reads in
// grey print too. gonum/plot's HeatMap has no cell text and needs a
// GridXYZ; this plotter is a few rectangles and labels.

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// clustersHeatmap draws Values[r][c] as cells centred on (c, r): column c
// at x = c, row r at y = r (row 0 at the bottom; callers reverse rows to
// read from the top). NaN cells are light grey and unlabelled.
type clustersHeatmap struct {
	Values [][]float64
	Text   [][]string
	// Low and High are the values mapped to the lightest and darkest
	// colour; Reverse makes low values dark (ranks: 1 = best = dark).
	Low, High float64
	Reverse   bool
	FontSize  vg.Length
}

// clustersBlues is ColorBrewer's single-hue Blues scale (colour-blind
// safe), from light to dark.
var clustersBlues = []color.NRGBA{
	{0xf7, 0xfb, 0xff, 0xff}, {0xde, 0xeb, 0xf7, 0xff}, {0xc6, 0xdb, 0xef, 0xff}, {0x9e, 0xca, 0xe1, 0xff},
	{0x6b, 0xae, 0xd6, 0xff}, {0x42, 0x92, 0xc6, 0xff}, {0x21, 0x71, 0xb5, 0xff}, {0x08, 0x51, 0x9c, 0xff}, {0x08, 0x30, 0x6b, 0xff},
}

// clustersShade maps t in [0, 1] to the Blues scale by linear
// interpolation; it also reports whether the colour is dark (white text).
func clustersShade(t float64) (color.NRGBA, bool) {
	t = math.Max(0, math.Min(1, t))
	f := t * float64(len(clustersBlues)-1)
	i := int(math.Floor(f))
	if i >= len(clustersBlues)-1 {
		return clustersBlues[len(clustersBlues)-1], true
	}
	a, b := clustersBlues[i], clustersBlues[i+1]
	w := f - float64(i)
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + w*(float64(y)-float64(x)))) }
	return color.NRGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}, t > 0.55
}

// shadeOf returns the scale position of v.
func (h *clustersHeatmap) shadeOf(v float64) float64 {
	t := 0.5
	if h.High > h.Low {
		t = (v - h.Low) / (h.High - h.Low)
	}
	if h.Reverse {
		t = 1 - t
	}
	return t
}

// Plot implements plot.Plotter.
func (h *clustersHeatmap) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := p.X.Tick.Label
	sty.Font.Size = h.FontSize
	if sty.Font.Size == 0 {
		sty.Font.Size = vg.Points(8)
	}
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	sty.Rotation = 0
	for r, row := range h.Values {
		for col, v := range row {
			x0, x1 := trX(float64(col)-0.5), trX(float64(col)+0.5)
			y0, y1 := trY(float64(r)-0.5), trY(float64(r)+0.5)
			fill := color.Color(color.NRGBA{0xee, 0xee, 0xee, 0xff})
			dark := false
			if !math.IsNaN(v) {
				fill, dark = clustersShade(h.shadeOf(v))
			}
			c.FillPolygon(fill, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			if math.IsNaN(v) || h.Text == nil || h.Text[r][col] == "" {
				continue
			}
			sty.Color = color.Black
			if dark {
				sty.Color = color.White
			}
			c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, h.Text[r][col])
		}
	}
}

// DataRange implements plot.DataRanger.
func (h *clustersHeatmap) DataRange() (xmin, xmax, ymin, ymax float64) {
	cols := 0
	if len(h.Values) > 0 {
		cols = len(h.Values[0])
	}
	return -0.5, float64(cols) - 0.5, -0.5, float64(len(h.Values)) - 0.5
}

// clustersNameTicks labels integer positions with names.
func clustersNameTicks(names []string) plot.ConstantTicks {
	t := make(plot.ConstantTicks, len(names))
	for i, n := range names {
		t[i] = plot.Tick{Value: float64(i), Label: n}
	}
	return t
}
