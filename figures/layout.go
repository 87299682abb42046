package figures

import (
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The least size of a drawing whose text keeps its point size: each
// plotter states what its text needs (a plot's axis labels, tick labels
// and legend; a forest plot's rows and text columns; a CD diagram's
// label columns), and AtWidth never lays a drawing out smaller.

// minPlotData is the least data area of a plot laid out again.
var minPlotData = vg.Point{X: 1.2 * vg.Inch, Y: 0.9 * vg.Inch}

// tickGap is the least space between two tick labels.
const tickGap = vg.Length(3)

// plotMinSize is the least canvas at which p's text fits: the title and
// the x label as wide as the canvas (the x label beside the y axis), the
// y label as long as the canvas is high beside the x axis, the legend
// inside the axes, and every two neighbouring tick labels apart.
func plotMinSize(p *plot.Plot) (w, h vg.Length) {
	return plotMinSizeData(p, vg.Point{})
}

// plotMinSizeData is plotMinSize with a data area of at least data (a
// heatmap's cells as wide as their numbers).
func plotMinSizeData(p *plot.Plot, data vg.Point) (w, h vg.Length) {
	const big = 100 * vg.Inch
	c := draw.New(&layoutRecorder{w: big, h: big, m: identity})
	da := p.DataCanvas(c).Size()
	ovX, ovY := big-da.X, big-da.Y
	leg := p.Legend.Rectangle(c).Size()
	dataW := max(minPlotData.X, data.X, leg.X+vg.Points(6), tickSpan(p.X, false))
	dataH := max(minPlotData.Y, data.Y, leg.Y+vg.Points(6), tickSpan(p.Y, true))
	w = ovX + max(dataW, labelWidth(p.X))
	h = ovY + max(dataH, labelWidth(p.Y))
	if p.Title.Text != "" {
		w = max(w, p.Title.TextStyle.Width(p.Title.Text))
	}
	return w, h
}

// labelWidth is the width of an axis's label, a little padded.
func labelWidth(a plot.Axis) vg.Length {
	if a.Label.Text == "" {
		return 0
	}
	return a.Label.TextStyle.Width(a.Label.Text) + vg.Points(4)
}

// tickSpan is the least length of an axis at which no two neighbouring
// tick labels overlap: along a horizontal axis their widths (by their
// alignment), along a vertical one their heights, and for labels
// rotated by θ their height over sin θ (rotated labels are parallel).
func tickSpan(a plot.Axis, vertical bool) vg.Length {
	type tk struct {
		pos        float64
		before, at vg.Length // extent before and after the tick along the axis
	}
	sty := a.Tick.Label
	var ts []tk
	for _, t := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if t.Label == "" || t.Value < a.Min || t.Value > a.Max {
			continue
		}
		n := a.Norm(t.Value)
		if math.IsNaN(n) {
			continue
		}
		ext := sty.Width(t.Label)
		align := vg.Length(sty.XAlign)
		if vertical {
			ext = sty.Height(t.Label)
			align = vg.Length(sty.YAlign)
		}
		if s := math.Abs(math.Sin(sty.Rotation)); s > 0.1 && !vertical {
			ext = sty.Height(t.Label) / vg.Length(s)
			align = -0.5
		}
		ts = append(ts, tk{pos: n, before: -align * ext, at: (1 + align) * ext})
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].pos < ts[j].pos })
	var span vg.Length
	for i := 1; i < len(ts); i++ {
		d := ts[i].pos - ts[i-1].pos
		if d <= 0 {
			continue
		}
		span = max(span, (ts[i-1].at+ts[i].before+tickGap)/vg.Length(d))
	}
	return span
}

// AtWidth lays the drawing out again at width w, keeping its aspect
// ratio (text keeps its point size, as matplotlib's figsize does), but
// never smaller than its text needs (minSize: a figure whose text
// columns are wider than w is laid out wider) nor lower than 1.5 in;
// w <= 0 leaves it as it is.
func (d Drawing) AtWidth(w vg.Length) Drawing {
	if w <= 0 || d.Width <= 0 {
		return d
	}
	var mh vg.Length
	if d.minSize != nil {
		var mw vg.Length
		if mw, mh = d.minSize(w); mw > w {
			w = mw
			_, mh = d.minSize(w)
		}
	}
	d.Width, d.Height = w, max(d.Height*w/d.Width, minExportHeight, mh)
	return d
}
