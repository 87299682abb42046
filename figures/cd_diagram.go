package figures

// CDDiagram is the critical-difference diagram of Demšar (2006, Fig. 1)
// in the form Shevchenko et al. (2024, Fig. 4) use: a mean-rank axis, the better half of
// the methods labelled on the left and the rest on the right, each with
// its mean rank, thick bars joining groups that are not significantly
// different, dashed bars for the Bayesian test, and the critical
// difference drawn above the axis. gonum/plot has no such plotter, so
// this one draws in canvas coordinates (the text widths decide the
// layout) and the figure hides the plot's own axes.

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/evalbook/evalbook/figures/model"
)

// cdLabelSlack is the room beside the widest name: its connector's
// 13 pt and a margin for a reader's font a little wider than the one
// measured (a viewer without Liberation Sans).
const cdLabelSlack = vg.Length(13 + 14)

// CDDiagram draws one critical-difference diagram.
type CDDiagram struct {
	Methods   []string  // best first
	MeanRanks []float64 // same order, ascending
	// CD is the critical difference in mean-rank units; ≤ 0 or NaN hides it.
	CD      float64
	CDLabel string
	// Cliques and Dashed hold index runs into Methods (first, last).
	Cliques [][2]int
	Dashed  [][2]int

	TextStyle   draw.TextStyle
	LineStyle   draw.LineStyle // axis, ticks and method connectors
	CliqueStyle draw.LineStyle
	DashedStyle draw.LineStyle
}

// NewCDDiagram returns a diagram with evalbook's default styles.
func NewCDDiagram(methods []string, ranks []float64, cd float64, cliques, dashed [][2]int) *CDDiagram {
	black := color.NRGBA{0, 0, 0, 255}
	return &CDDiagram{
		Methods: methods, MeanRanks: ranks, CD: cd, Cliques: cliques, Dashed: dashed,
		CDLabel:     fmt.Sprintf("CD = %.3f", cd),
		TextStyle:   draw.TextStyle{Color: black, Font: Font(9), Handler: plot.DefaultTextHandler},
		LineStyle:   draw.LineStyle{Color: black, Width: vg.Points(0.8)},
		CliqueStyle: draw.LineStyle{Color: black, Width: vg.Points(3)},
		DashedStyle: draw.LineStyle{Color: color.NRGBA{0x77, 0x77, 0x77, 255}, Width: vg.Points(1.8),
			Dashes: []vg.Length{vg.Points(4), vg.Points(2.5)}},
	}
}

// Height returns the canvas height the diagram needs.
func (d *CDDiagram) Height() vg.Length {
	return vg.Points(model.CDHeight(len(d.Methods), len(d.Cliques)+len(d.Dashed)))
}

// MinWidth returns the least canvas width at which the diagram's text
// fits at its point size: the label columns on both sides, the axis's
// integer labels apart and the critical difference's label beside its
// bar.
func (d *CDDiagram) MinWidth() vg.Length {
	k := len(d.Methods)
	var labelW, tickW vg.Length
	for i := range d.Methods {
		labelW = max(labelW, d.TextStyle.Width(d.label(i)))
	}
	hi := math.Max(2, float64(k))
	for r := 1; r <= int(hi); r++ {
		tickW = max(tickW, d.TextStyle.Width(fmt.Sprintf("%d", r)))
	}
	pad := labelW + cdLabelSlack
	axis := max(1.2*vg.Inch, vg.Length(hi-1)*(tickW+vg.Points(4)))
	if d.CD > 0 && d.CD < hi-1 {
		// the label starts 6 pt right of xr(1+CD) and may use the right pad
		need := (vg.Points(6) + d.TextStyle.Width(d.CDLabel) - pad) / vg.Length(1-d.CD/(hi-1))
		axis = max(axis, need)
	}
	return 2*pad + axis
}

func (d *CDDiagram) label(i int) string {
	return model.CDMethodLabel(d.Methods[i], d.MeanRanks[i], d.MeanRanks)
}

// Plot implements plot.Plotter.
func (d *CDDiagram) Plot(c draw.Canvas, _ *plot.Plot) {
	k := len(d.Methods)
	if k == 0 {
		return
	}
	left := (k + 1) / 2
	var labelW vg.Length
	for i := range d.Methods {
		labelW = max(labelW, d.TextStyle.Width(d.label(i)))
	}
	pad := labelW + cdLabelSlack
	x0, x1 := c.Min.X+pad, c.Max.X-pad
	lo, hi := 1.0, math.Max(2, float64(k))
	xr := func(r float64) vg.Length { return x0 + vg.Length((r-lo)/(hi-lo))*(x1-x0) }
	top := c.Max.Y - vg.Points(34) // the axis
	d.axis(c, x0, x1, top, lo, hi, xr)
	// Critical difference above the axis, starting at rank 1.
	if d.CD > 0 && !math.IsNaN(d.CD) && !math.IsInf(d.CD, 0) {
		y := top + vg.Points(24)
		end := xr(math.Min(lo+d.CD, hi))
		cds := d.CliqueStyle
		cds.Color = Palette[1] // the scale, apart from the groups
		c.StrokeLine2(cds, xr(lo), y, end, y)
		c.StrokeLine2(d.LineStyle, xr(lo), y-vg.Points(3), xr(lo), y+vg.Points(3))
		c.StrokeLine2(d.LineStyle, end, y-vg.Points(3), end, y+vg.Points(3))
		lab := d.TextStyle
		lab.XAlign, lab.YAlign = draw.XLeft, draw.YCenter
		c.FillText(lab, vg.Point{X: end + vg.Points(6), Y: y}, d.CDLabel)
	}
	// Bars: cliques first, then the Bayesian ones, stacked under the axis.
	y := top - vg.Points(8)
	bar := func(run [2]int, sty draw.LineStyle) {
		ext := vg.Points(3)
		c.StrokeLine2(sty, xr(d.MeanRanks[run[0]])-ext, y, xr(d.MeanRanks[run[1]])+ext, y)
		y -= vg.Points(5)
	}
	for _, r := range d.Cliques {
		bar(r, d.CliqueStyle)
	}
	for _, r := range d.Dashed {
		bar(r, d.DashedStyle)
	}
	// Method connectors: left half to the left edge, right half to the
	// right edge, one row each, the outermost ranks lowest.
	y -= vg.Points(8)
	txt := d.TextStyle
	txt.YAlign = draw.YCenter
	for i := 0; i < k; i++ {
		var row int
		var edge vg.Length
		if i < left {
			row = i
			edge = x0 - vg.Points(10)
		} else {
			row = k - 1 - i
			edge = x1 + vg.Points(10)
		}
		yy := y - vg.Length(row)*vg.Points(15)
		x := xr(d.MeanRanks[i])
		c.StrokeLines(d.LineStyle, []vg.Point{{X: x, Y: top}, {X: x, Y: yy}, {X: edge, Y: yy}})
		if i < left {
			txt.XAlign = draw.XRight
			c.FillText(txt, vg.Point{X: edge - vg.Points(3), Y: yy}, d.label(i))
		} else {
			txt.XAlign = draw.XLeft
			c.FillText(txt, vg.Point{X: edge + vg.Points(3), Y: yy}, d.label(i))
		}
	}
}

// axis draws the mean-rank axis from x0 to x1 at height top: ticks at
// integers and halves, labels above, its title left of it.
func (d *CDDiagram) axis(c draw.Canvas, x0, x1, top vg.Length, lo, hi float64, xr func(float64) vg.Length) {
	// Axis with ticks at integers and halves, labels above.
	c.StrokeLine2(d.LineStyle, x0, top, x1, top)
	tick := d.TextStyle
	tick.XAlign, tick.YAlign = draw.XCenter, draw.YBottom
	for r := lo; r <= hi+1e-9; r += 0.5 {
		h := vg.Points(3)
		if r == math.Trunc(r) {
			h = vg.Points(6)
			c.FillText(tick, vg.Point{X: xr(r), Y: top + h + vg.Points(1)}, fmt.Sprintf("%d", int(r)))
		}
		c.StrokeLine2(d.LineStyle, xr(r), top, xr(r), top+h)
	}
	// the axis's title left of it, level with its labels
	title := d.TextStyle
	title.XAlign, title.YAlign = draw.XRight, draw.YBottom
	c.FillText(title, vg.Point{X: x0 - vg.Points(14), Y: top + vg.Points(7)}, "mean rank")
}
