package figures

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/evalbook/evalbook/analyses/meta"
)

// TestLayoutProblemsFinds: the recording canvas sees what it must: two
// texts drawn over each other, two on one line without a gap, a text
// past the canvas's edge (also a turned one, by the canvas's rotation),
// a stroke past it, and a data area too small; and nothing in a drawing
// that has none of these.
func TestLayoutProblemsFinds(t *testing.T) {
	t.Parallel()
	sty := draw.TextStyle{Font: Font(9), Handler: plot.DefaultTextHandler}
	line := draw.LineStyle{Width: 1}
	w9 := sty.Width("label")
	cases := []struct {
		name string
		draw func(c draw.Canvas)
		want string
	}{
		{"apart", func(c draw.Canvas) {
			c.FillText(sty, vg.Point{X: 10, Y: 10}, "label")
			c.FillText(sty, vg.Point{X: 10, Y: 30}, "label")
			c.FillText(sty, vg.Point{X: 14 + w9, Y: 10}, "label")
		}, ""},
		{"over", func(c draw.Canvas) {
			c.FillText(sty, vg.Point{X: 10, Y: 10}, "label")
			c.FillText(sty, vg.Point{X: 14, Y: 13}, "label")
		}, "overlap"},
		{"run together", func(c draw.Canvas) {
			c.FillText(sty, vg.Point{X: 10, Y: 10}, "label")
			c.FillText(sty, vg.Point{X: 10.5 + w9, Y: 10}, "label")
		}, "run together"},
		{"past the edge", func(c draw.Canvas) { c.FillText(sty, vg.Point{X: 100 - w9/2, Y: 10}, "label") }, "leaves"},
		{"turned past the edge", func(c draw.Canvas) {
			turned := sty
			turned.Rotation = math.Pi / 2
			c.FillText(turned, vg.Point{X: 20, Y: 90}, "label")
		}, "leaves"},
		{"stroke past the edge", func(c draw.Canvas) { c.StrokeLine2(line, -10, 10, 50, 10) }, "stroke"},
	}
	for _, tc := range cases {
		d := Drawing{Width: 100, Height: 100, Draw: tc.draw}
		got := strings.Join(d.LayoutProblems(), "\n")
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: problems %q, want %q", tc.name, got, tc.want)
		}
	}
	p, _ := samplePlot(t)
	d := PlotDrawing(p, 7*vg.Inch, 4.5*vg.Inch)
	if ps := d.LayoutProblems(); len(ps) != 0 {
		t.Errorf("a sample plot at 7×4.5 in: %q", ps)
	}
	d.Width, d.Height = 1.5*vg.Inch, 1.2*vg.Inch
	if got := strings.Join(d.LayoutProblems(), "\n"); !strings.Contains(got, "data area is") {
		t.Errorf("a sample plot at 1.5×1.2 in: %q, want a data area too small", got)
	}
}

// forestOf is the forest plot of k datasets named like the demo's.
func forestOf(t *testing.T, k int) Figure {
	t.Helper()
	var studies []meta.Study
	for i := 0; i < k; i++ {
		studies = append(studies, meta.Study{Dataset: fmt.Sprintf("amazon-digital-music-%02d", i), N: 150 + 13*i, MeanDiff: 0.01 * float64(i%7-3), SDDiff: 0.2 + 0.01*float64(i%5), R: 0.5})
	}
	_, figs := metaFigures(t, "f", "LightGCN", "Most popular", "nDCG@10", studies)
	return figs[0]
}

// TestAtWidthForest: a forest plot of 35 datasets laid out at one
// column, at 7 in and as it is keeps its rows 17 pt apart and its text
// columns whole (LayoutProblems finds nothing), and is laid out wider
// than the column rather than cut; the plot's drawing at its natural size
// is the SVG.
func TestAtWidthForest(t *testing.T) {
	t.Parallel()
	f := forestOf(t, 35)
	for _, w := range []vg.Length{ColumnWidth, 7 * vg.Inch, 0} {
		d := f.Drawing.AtWidth(w)
		if ps := d.LayoutProblems(); len(ps) > 0 {
			t.Errorf("at %.2f in (%.2f×%.2f in): %d problems, first %s", w/vg.Inch, d.Width/vg.Inch, d.Height/vg.Inch, len(ps), ps[0])
		}
		if d.Height < vg.Points(17)*37 {
			t.Errorf("at %.2f in: %.2f in high, less than 37 rows of 17 pt", w/vg.Inch, d.Height/vg.Inch)
		}
		if w > 0 && d.Width < w {
			t.Errorf("laid out at %.2f in, asked for %.2f in", d.Width/vg.Inch, w/vg.Inch)
		}
	}
	if d := f.Drawing.AtWidth(7 * vg.Inch); d.Width != 7*vg.Inch {
		t.Errorf("at 7 in the forest plot is %.2f in wide, want 7 in (its text fits)", d.Width/vg.Inch)
	}
	svg, err := f.Drawing.SVG()
	if err != nil || string(svg) != string(f.SVG) {
		t.Errorf("the drawing's SVG is not the figure's (%v)", err)
	}
}

// TestAtWidthPanels: the EvalRS 2022 comparison's panels stay side by
// side where they fit and wrap into rows where they do not, every
// panel with room for its labels.
func TestAtWidthPanels(t *testing.T) {
	t.Parallel()
	var plots []*plot.Plot
	for k := 0; k < 3; k++ {
		p, _ := samplePlot(t)
		p.Title.Text = fmt.Sprintf("λ = %d", k)
		plots = append(plots, p)
	}
	m := newPanelGrid(plots)
	d := Drawing{Width: 3 * m.pw, Height: m.ph, Draw: m.draw, dataAreas: m.dataAreas, minSize: m.minSize}
	for _, c := range []struct {
		w    vg.Length
		rows int
	}{{ColumnWidth, 3}, {2*m.pw + 16, 2}, {3*m.pw + 24, 1}} {
		a := d.AtWidth(c.w)
		if grid, _ := m.grid(a.Width); len(grid) != c.rows {
			t.Errorf("at %.2f in: %d rows, want %d", c.w/vg.Inch, len(grid), c.rows)
		}
		if ps := a.LayoutProblems(); len(ps) > 0 {
			t.Errorf("at %.2f in (%.2f×%.2f in): %s", c.w/vg.Inch, a.Width/vg.Inch, a.Height/vg.Inch, ps[0])
		}
	}
}
