package figures

// Forest is the gonum/plot plotter of a forest plot's graphical column
// (Sertkan et al. 2023, Fig. 1; Lewis & Clarke 2001; metafor's forest() as the model):
// per study a square whose area grows with its weight and its CI whiskers,
// per summary a diamond spanning its CI with the prediction interval as a
// dashed line, and a dotted line at zero. The text columns beside it are
// drawn by Meta, aligned on the same data coordinates.

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ForestRow is one drawn row: Y is its data coordinate.
type ForestRow struct {
	Y                 float64
	Summary           bool
	Effect, Low, High float64
	// Weight scales a study's square (its area is Weight/max Weight of the
	// squares); ignored for summaries.
	Weight        float64
	PILow, PIHigh float64 // summaries only; NaN when there is none
	Colour        color.Color
	DiamondHeight vg.Length // summaries; 0 means MaxSide·0.9
}

// Forest draws ForestRows. Rows with a non-finite effect are skipped.
type Forest struct {
	Rows     []ForestRow
	MaxSide  vg.Length // side of the heaviest square
	MinSide  vg.Length // side below which a square is not shrunk
	Line     draw.LineStyle
	ZeroLine draw.LineStyle
	PILine   draw.LineStyle
	// XMin, XMax are the x range the plotter asks for (CIs, PIs and zero).
	XMin, XMax float64
}

// NewForest returns a Forest with evalbook's styles.
func NewForest(rows []ForestRow) *Forest {
	f := &Forest{Rows: rows, MaxSide: vg.Points(11), MinSide: vg.Points(3),
		Line:     draw.LineStyle{Color: color.Black, Width: vg.Points(0.9)},
		ZeroLine: draw.LineStyle{Color: color.Gray{0x55}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1), vg.Points(2.5)}},
		PILine:   draw.LineStyle{Color: color.Black, Width: vg.Points(0.9), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}},
	}
	f.XMin, f.XMax = 0, 0
	for _, r := range rows {
		for _, x := range []float64{r.Low, r.High, r.PILow, r.PIHigh, r.Effect} {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				f.XMin = math.Min(f.XMin, x)
				f.XMax = math.Max(f.XMax, x)
			}
		}
	}
	return f
}

// Plot implements plot.Plotter.
func (f *Forest) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	x0 := tx(0)
	c.StrokeLine2(f.ZeroLine, x0, c.Min.Y, x0, c.Max.Y)
	maxW := 0.0
	for _, r := range f.Rows {
		if !r.Summary && r.Weight > maxW {
			maxW = r.Weight
		}
	}
	tick := vg.Points(2.5)
	for _, r := range f.Rows {
		if math.IsNaN(r.Effect) || math.IsInf(r.Effect, 0) {
			continue
		}
		y := ty(r.Y)
		col := r.Colour
		if col == nil {
			col = color.Black
		}
		if r.Summary {
			h := r.DiamondHeight
			if h == 0 {
				h = f.MaxSide * 0.9
			}
			if !math.IsNaN(r.PILow) && !math.IsNaN(r.PIHigh) {
				l, hi := tx(r.PILow), tx(r.PIHigh)
				c.StrokeLine2(f.PILine, l, y, hi, y)
				c.StrokeLine2(f.Line, l, y-tick, l, y+tick)
				c.StrokeLine2(f.Line, hi, y-tick, hi, y+tick)
			}
			var d vg.Path
			d.Move(vg.Point{X: tx(r.Low), Y: y})
			d.Line(vg.Point{X: tx(r.Effect), Y: y + h/2})
			d.Line(vg.Point{X: tx(r.High), Y: y})
			d.Line(vg.Point{X: tx(r.Effect), Y: y - h/2})
			d.Close()
			c.SetColor(col)
			c.Fill(d)
			c.SetLineStyle(f.Line)
			c.Stroke(d)
			continue
		}
		l, hi := tx(r.Low), tx(r.High)
		c.StrokeLine2(f.Line, l, y, hi, y)
		c.StrokeLine2(f.Line, l, y-tick, l, y+tick)
		c.StrokeLine2(f.Line, hi, y-tick, hi, y+tick)
		side := f.MinSide
		if maxW > 0 && r.Weight > 0 {
			side = vg.Length(math.Max(float64(f.MinSide), float64(f.MaxSide)*math.Sqrt(r.Weight/maxW)))
		}
		x := tx(r.Effect)
		sq := vg.Rectangle{Min: vg.Point{X: x - side/2, Y: y - side/2}, Max: vg.Point{X: x + side/2, Y: y + side/2}}
		c.SetColor(col)
		c.Fill(sq.Path())
	}
}

// DataRange implements plot.DataRanger: x from the intervals and zero, y
// from the rows (half a row of margin).
func (f *Forest) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, r := range f.Rows {
		ymin = math.Min(ymin, r.Y)
		ymax = math.Max(ymax, r.Y)
	}
	if len(f.Rows) == 0 {
		ymin, ymax = 0, 1
	}
	pad := (f.XMax - f.XMin) * 0.04
	if pad == 0 {
		pad = 1
	}
	return f.XMin - pad, f.XMax + pad, ymin - 0.6, ymax + 0.6
}
