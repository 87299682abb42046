package figures

// Figures of a paired_tests analysis (SPEC §5.3): one per pair, after
// seed 003 Fig. 2 — each unit (fold) on the x axis with both methods'
// values joined by a line, so the reader sees the difference kept in
// every fold that pooling the values as two independent groups hides.
// With more units than a chart can show one by one (users), the figure
// plots the sorted differences instead, at most 200 evenly spaced ones.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/evalbook/evalbook/analyses/significance"
)

// pairedUnitsMax is the largest number of units drawn one by one.
const pairedUnitsMax = 40

// PairedTests draws one figure per pair of r.
func PairedTests(id, title string, r *significance.PairedTestsResult) ([]Figure, error) {
	var figs []Figure
	rl := *r
	rl.Metric = r.Naming.Metric(r.Metric)
	drawn, dropped := topPairs(len(r.Pairs))
	for i, p := range r.Pairs[:drawn] {
		if p.N == 0 {
			continue
		}
		fid := fmt.Sprintf("%s-%d", id, i+1)
		p = pairedLabelled(r, p)
		var f Figure
		var err error
		if p.N <= pairedUnitsMax {
			f, err = pairedUnitsFigure(&rl, p)
		} else {
			f, err = pairedSortedFigure(&rl, p)
		}
		if err != nil {
			return nil, fmt.Errorf("%s vs %s: %w", p.A, p.B, err)
		}
		f.ID = fid
		figs = append(figs, f)
	}
	if dropped != "" && len(figs) > 0 {
		figs[len(figs)-1].Caption += dropped
	}
	return figs, nil
}

// pairedLabelled is comparison p with its methods, and its units when
// they are datasets, named by their labels.
func pairedLabelled(r *significance.PairedTestsResult, p significance.PairedComparison) significance.PairedComparison {
	p.A, p.B = r.Naming.Method(p.A), r.Naming.Method(p.B)
	if r.Over == "datasets" {
		p.Units = labelled(p.Units, r.Naming.Dataset)
	}
	return p
}

func pairedVerdict(r *significance.PairedTestsResult, p significance.PairedComparison) string {
	f := func(x *float64) string {
		if x == nil {
			return "undefined"
		}
		return fmt.Sprintf("%.3g", *x)
	}
	return fmt.Sprintf("paired t p = %s, Wilcoxon p = %s; Welch t p = %s, Mann–Whitney p = %s; recommended: %s",
		f(p.PPairedT), f(p.PWilcoxon), f(p.PWelch), f(p.PMannWhitney), p.Recommended)
}

func pairedUnitsFigure(r *significance.PairedTestsResult, p significance.PairedComparison) (Figure, error) {
	plt := NewPlot("", r.Over, r.Metric)
	plt.Add(plotter.NewGrid())
	n := p.N
	for u := 0; u < n; u++ {
		l, err := plotter.NewLine(plotter.XYs{{X: float64(u+1) - 0.08, Y: p.ValueA[u]}, {X: float64(u+1) + 0.08, Y: p.ValueB[u]}})
		if err != nil {
			return Figure{}, err
		}
		l.Color = Palette[7]
		l.Width = vg.Points(1)
		plt.Add(l)
	}
	for k, vals := range [][]float64{p.ValueA, p.ValueB} {
		xy := make(plotter.XYs, n)
		for u := range vals {
			xy[u].X = float64(u+1) + []float64{-0.08, 0.08}[k]
			xy[u].Y = vals[u]
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return Figure{}, err
		}
		s.GlyphStyle.Color = Colour(k)
		s.GlyphStyle.Radius = vg.Points(3.5)
		if k == 1 {
			s.GlyphStyle.Shape = draw.BoxGlyph{}
		} else {
			s.GlyphStyle.Shape = draw.CircleGlyph{}
		}
		plt.Add(s)
		plt.Legend.Add([]string{p.A, p.B}[k], s)
	}
	plt.Legend.Top = true
	lo, hi := math.Inf(1), math.Inf(-1)
	for u := 0; u < n; u++ {
		lo = math.Min(lo, math.Min(p.ValueA[u], p.ValueB[u]))
		hi = math.Max(hi, math.Max(p.ValueA[u], p.ValueB[u]))
	}
	span := math.Max(hi-lo, 1e-9)
	plt.Y.Min, plt.Y.Max = lo-0.06*span, hi+0.22*span // room for the legend
	ticks := make([]plot.Tick, 0, n)
	for u := 0; u < n; u++ {
		ticks = append(ticks, plot.Tick{Value: float64(u + 1), Label: p.Units[u]})
	}
	plt.X.Tick.Marker = fixedTicks(ticks)
	plt.X.Min, plt.X.Max = 0.5, float64(n)+0.5
	drw := turningDrawing(plt, 7*vg.Inch, 3.6*vg.Inch)
	svg, err := drw.SVG()
	if err != nil {
		return Figure{}, err
	}

	chart, err := ChartJSON(pairedUnitsChart(r, p))
	if err != nil {
		return Figure{}, err
	}
	return Figure{
		Title: fmt.Sprintf("%s vs %s, unit by unit", p.A, p.B),
		Caption: fmt.Sprintf("%s of %s and %s on each of the %d %s (lines join the same unit, as in Košir et al. 2013, Fig. 2); mean difference %s. %s.",
			r.Metric, p.A, p.B, n, r.Over, fmtOpt(p.MeanDiff), pairedVerdict(r, p)),
		SVG: svg, Drawing: &drw, Chart: chart, Height: 380,
	}, nil
}

func pairedSortedFigure(r *significance.PairedTestsResult, p significance.PairedComparison) (Figure, error) {
	d := make([]float64, p.N)
	for u := range d {
		d[u] = p.ValueA[u] - p.ValueB[u]
	}
	sort.Float64s(d)
	m := min(200, len(d))
	xy := make(plotter.XYs, m)
	for i := range xy {
		j := i * (len(d) - 1) / max(1, m-1)
		xy[i].X = float64(j+1) / float64(len(d))
		xy[i].Y = d[j]
	}
	plt := NewPlot("", "share of units", fmt.Sprintf("%s: %s − %s", r.Metric, p.A, p.B))
	plt.Add(plotter.NewGrid())
	zero, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
	zero.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	zero.Color = Palette[7]
	plt.Add(zero)
	l, err := plotter.NewLine(xy)
	if err != nil {
		return Figure{}, err
	}
	l.Color = Colour(4)
	l.Width = vg.Points(1.5)
	plt.Add(l)
	drw := PlotDrawing(plt, 7*vg.Inch, 3.6*vg.Inch)
	svg, err := drw.SVG()
	if err != nil {
		return Figure{}, err
	}
	ln := charts.NewLine()
	ln.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithXAxisOpts(opts.XAxis{Name: "share of units", Type: "value", Min: 0, Max: 1}),
		charts.WithYAxisOpts(opts.YAxis{Name: p.A + " − " + p.B, Type: "value"}),
	)
	data := make([]opts.LineData, m)
	for i, pt := range xy {
		data[i] = opts.LineData{Value: []any{pt.X, JSONFloat(pt.Y)}}
	}
	ln.AddSeries("difference", data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
		charts.WithLineStyleOpts(opts.LineStyle{Color: Hex(4), Width: 2}))
	chart, err := EChartsJSON(ln)
	if err != nil {
		return Figure{}, err
	}
	return Figure{
		Title: fmt.Sprintf("%s vs %s: sorted differences", p.A, p.B),
		Caption: fmt.Sprintf("The %d per-unit differences %s − %s in %s, sorted (the share of units below each value); mean difference %s. %s.",
			p.N, p.A, p.B, r.Metric, fmtOpt(p.MeanDiff), pairedVerdict(r, p)),
		SVG: svg, Drawing: &drw, Chart: chart, Height: 380,
	}, nil
}

func fmtOpt(x *float64) string {
	if x == nil {
		return "undefined"
	}
	return fmt.Sprintf("%.4g", *x)
}

// fixedTicks marks exactly the given ticks.
type fixedTicks []plot.Tick

func (t fixedTicks) Ticks(_, _ float64) []plot.Tick { return t }

// pairedUnitsChart is the interactive version of the unit-by-unit figure:
// the units by name on a category axis (go-echarts's scatter drops the
// names: the option is written here), A as circles, B as squares, and a
// line joining each unit's two values, as the static figure draws them.
func pairedUnitsChart(r *significance.PairedTestsResult, p significance.PairedComparison) map[string]any {
	var joins []any
	points := [2][]any{}
	for u := 0; u < p.N; u++ {
		a, b := JSONFloat(p.ValueA[u]), JSONFloat(p.ValueB[u])
		points[0] = append(points[0], []any{p.Units[u], a})
		points[1] = append(points[1], []any{p.Units[u], b})
		if a != nil && b != nil {
			joins = append(joins, map[string]any{"coords": []any{[]any{p.Units[u], a}, []any{p.Units[u], b}}})
		}
	}
	series := []any{map[string]any{
		"type": "lines", "name": "same " + strings.TrimSuffix(r.Over, "s"), "coordinateSystem": "cartesian2d",
		"data": joins, "silent": true, "lineStyle": map[string]any{"color": Hex(7), "width": 1, "opacity": 0.8},
	}}
	for k, name := range []string{p.A, p.B} {
		series = append(series, map[string]any{
			"type": "scatter", "name": name, "data": points[k], "symbolSize": 9,
			"symbol":    []string{"circle", "rect"}[k],
			"itemStyle": map[string]any{"color": Hex(k)},
		})
	}
	return map[string]any{
		"tooltip": map[string]any{"trigger": "item"},
		"legend":  map[string]any{"show": true, "top": 0},
		"grid":    map[string]any{"left": 60, "right": 20, "top": 40, "bottom": 30, "containLabel": true},
		// the axis's title under its (turned) labels, not past its end,
		// where a phone cuts it
		"xAxis": map[string]any{"type": "category", "name": r.Over, "nameLocation": "middle", "nameGap": 60,
			"data": p.Units, "axisLabel": map[string]any{"rotate": 60, "interval": 0, "fontSize": 10}},
		"yAxis":  map[string]any{"type": "value", "name": r.Metric, "scale": true},
		"series": series,
	}
}
