package figures

// Figures of the dataset_selection analysis (seed 001 Table 4): how close
// each strategy's ranking on a few datasets comes to the ranking on all,
// and which datasets each strategy keeps choosing.

import (
	"fmt"
	"math"
	"sort"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/evalbook/evalbook/analyses/datasets"
)

// rhoPoints are mean ρ values with asymmetric whiskers (5% and 95%
// quantiles), for plotter.NewYErrorBars.
type rhoPoints struct {
	plotter.XYs
	plotter.YErrors
}

// Selection draws mean ρ by strategy and metric (id) and how often each
// dataset was chosen (id-chosen).
func Selection(id, title string, r *datasets.SelectionResult) ([]Figure, error) {
	f1, err := selectionRho(id, r)
	if err != nil {
		return nil, err
	}
	f2, err := selectionChosen(id+"-chosen", r)
	if err != nil {
		return nil, err
	}
	return []Figure{f1, f2}, nil
}

// selectionRho is the agreement (Spearman ρ) of each strategy's ranking
// on a few datasets with the ranking on all, per metric.
func selectionRho(id string, r *datasets.SelectionResult) (Figure, error) {
	sum := map[[2]string]datasets.SelectionSummary{}
	for _, s := range r.Summary {
		sum[[2]string{s.Strategy, s.Metric}] = s
	}
	plt := NewPlot("", "", "ρ with the ranking on all datasets")
	plt.Add(plotter.NewGrid())
	var legend []LegendEntry
	plt.X.Tick.Marker = clustersNameTicks(labelled(r.Metrics, r.Naming.Metric))
	// Interactive: a box per strategy and metric (5%, 25%, 50%, 75%, 95%
	// quantiles of ρ), so the spread is visible and no bar has to start
	// at an arbitrary baseline.
	bar := charts.NewBoxPlot()
	bar.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Bottom: "0"}),
		charts.WithYAxisOpts(opts.YAxis{Name: "ρ", Type: "value", Max: 1, Min: selectionAxisMin(r)}),
		charts.WithGridOpts(opts.Grid{Bottom: "60"}),
	)
	bar.SetXAxis(labelled(r.Metrics, r.Naming.Metric))
	for j, strat := range r.Strategies {
		if err := selectionStrategy(plt, bar, r, sum, j, strat); err != nil {
			return Figure{}, err
		}
		legend = append(legend, LegendEntry{Name: r.Naming.Strategy(strat), Kinds: []MarkKind{MarkPoints, MarkInterval}, Style: selectionStyle(j)})
	}
	selectionRhoRange(plt, r)
	// the legend beside the plot, never over the whiskers
	drw := plotsDrawing([]*plot.Plot{plt}, vg.Point{}, legend, LegendRight, 6.5*vg.Inch, 4*vg.Inch)
	svg, err := drw.SVG()
	if err != nil {
		return Figure{}, err
	}
	chart, err := EChartsJSON(bar)
	if err != nil {
		return Figure{}, err
	}
	return Figure{
		ID:    id,
		Title: "Agreement of the ranking on a few datasets with the ranking on all",
		Caption: fmt.Sprintf("Spearman's ρ between the %s ranking of %d methods on %d chosen datasets and on all %d, over %d simulations per strategy (Shevchenko et al. 2024, Table 4): the mean with whiskers from the 5%% to the 95%% quantile (interactive: boxes of the 25%%–75%% quantiles around the median, whiskers 5%%–95%%).",
			r.Naming.Rule(r.Rule), len(r.Methods), r.Size, len(r.Datasets), r.Simulations),
		SVG: svg, Drawing: &drw,
		Chart:  chart,
		Height: 400,
	}, nil
}

// selectionStrategy adds strategy j's mean ρ with its 5%–95% whiskers
// per metric to the static plot and its boxes to the interactive chart.
func selectionStrategy(plt *plot.Plot, bar *charts.BoxPlot, r *datasets.SelectionResult, sum map[[2]string]datasets.SelectionSummary, j int, strat string) error {
	ns := len(r.Strategies)
	width := 0.7
	var pts rhoPoints
	data := make([]opts.BoxPlotData, len(r.Metrics))
	for k, m := range r.Metrics {
		s := sum[[2]string{strat, m}]
		data[k] = opts.BoxPlotData{Name: r.Naming.Metric(m), Value: []any{}}
		if s.Mean == nil {
			continue
		}
		data[k] = opts.BoxPlotData{Name: r.Naming.Metric(m), Value: []any{*s.Q05, *s.Q25, *s.Median, *s.Q75, *s.Q95}}
		x := float64(k) - width/2 + width*(float64(j)+0.5)/float64(ns)
		pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: *s.Mean})
		lo, hi := *s.Mean, *s.Mean
		if s.Q05 != nil {
			lo, hi = *s.Q05, *s.Q95
		}
		pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{*s.Mean - lo, hi - *s.Mean})
	}
	c := Colour(j)
	bar.AddSeries(r.Naming.Strategy(strat), data, charts.WithItemStyleOpts(opts.ItemStyle{
		Color: fmt.Sprintf("rgba(%d,%d,%d,0.35)", c.R, c.G, c.B), BorderColor: Hex(j), BorderWidth: 1.5}))
	if len(pts.XYs) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(pts.XYs)
	if err != nil {
		return err
	}
	st := selectionStyle(j)
	sc.GlyphStyle.Color = st.Colour
	sc.GlyphStyle.Radius = vg.Points(4)
	sc.GlyphStyle.Shape = glyphOf(st.Symbol)
	eb, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return err
	}
	eb.Color = Colour(j)
	eb.Width = vg.Points(1.2)
	plt.Add(eb, sc)
	return nil
}

// selectionStyle is strategy j's colour and marker.
func selectionStyle(j int) Style {
	st := StyleAt(j)
	st.Dash = Solid
	return st
}

// selectionRhoRange sets the axes' ranges: ρ ≤ 1 with a little room.
func selectionRhoRange(plt *plot.Plot, r *datasets.SelectionResult) {
	plt.X.Min, plt.X.Max = -0.6, float64(len(r.Metrics))-0.4
	ymin := 1.0
	for _, s := range r.Summary {
		if s.Q05 != nil {
			ymin = math.Min(ymin, *s.Q05)
		}
	}
	ymin -= 0.05 * (1 - ymin + 1e-3)
	plt.Y.Min, plt.Y.Max = ymin, 1+0.05*(1-ymin)
}

func selectionChosen(id string, r *datasets.SelectionResult) (Figure, error) {
	nd := len(r.Datasets)
	total := make([]int, nd)
	for _, strat := range r.Strategies {
		for d, n := range r.ChosenCounts[strat] {
			total[d] += n
		}
	}
	order := make([]int, nd)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		if total[order[a]] != total[order[b]] {
			return total[order[a]] > total[order[b]]
		}
		return r.Datasets[order[a]] < r.Datasets[order[b]]
	})
	rows := make([]string, nd)
	values := make([][]float64, nd)
	text := make([][]string, nd)
	var cells []any
	for ri := 0; ri < nd; ri++ {
		d := order[nd-1-ri] // most chosen on top
		rows[ri] = r.Naming.Dataset(r.Datasets[d])
		values[ri] = make([]float64, len(r.Strategies))
		text[ri] = make([]string, len(r.Strategies))
		for j, strat := range r.Strategies {
			share := float64(r.ChosenCounts[strat][d]) / float64(r.Simulations)
			values[ri][j] = share
			text[ri][j] = fmt.Sprintf("%.0f%%", 100*share)
			cells = append(cells, map[string]any{"value": []any{j, ri, share}, "label": map[string]any{"formatter": text[ri][j]}})
		}
	}
	hm := &clustersHeatmap{Values: values, Text: text, Low: 0, High: 1, FontSize: vg.Points(7)}
	plt := NewPlot("", "", "")
	plt.Add(hm)
	plt.X.Tick.Marker = clustersNameTicks(labelled(r.Strategies, r.Naming.Strategy))
	plt.Y.Tick.Marker = clustersNameTicks(rows)
	plt.X.Tick.Label.Font.Size = vg.Points(8)
	plt.Y.Tick.Label.Font.Size = vg.Points(7)
	w := vg.Length(2+1.0*float64(len(r.Strategies))) * vg.Inch
	h := vg.Length(0.8+0.2*float64(nd)) * vg.Inch
	drw := PlotDrawing(plt, w, h)
	svg, err := drw.SVG()
	if err != nil {
		return Figure{}, err
	}
	chart, err := ChartJSON(map[string]any{
		"tooltip":   map[string]any{"show": true, "trigger": "item"},
		"grid":      map[string]any{"left": 150, "bottom": 40, "top": 10, "right": 20},
		"xAxis":     map[string]any{"type": "category", "data": labelled(r.Strategies, r.Naming.Strategy), "splitArea": map[string]any{"show": true}},
		"yAxis":     map[string]any{"type": "category", "data": rows, "splitArea": map[string]any{"show": true}},
		"visualMap": map[string]any{"min": 0, "max": 1, "show": false, "inRange": map[string]any{"color": []string{"#f7fbff", "#08306b"}}},
		"series": []any{map[string]any{"type": "heatmap", "name": "share of simulations", "data": cells,
			"label": map[string]any{"show": true, "fontSize": 9}}},
	})
	if err != nil {
		return Figure{}, err
	}
	return Figure{
		ID:      id,
		Title:   "How often each dataset was chosen",
		Caption: fmt.Sprintf("Share of the %d simulations in which each strategy chose each dataset (%d of %d datasets per simulation); datasets ordered by how often any strategy chose them.", r.Simulations, r.Size, nd),
		SVG:     svg, Drawing: &drw,
		Chart:  chart,
		Height: 60 + 18*nd,
	}, nil
}

// selectionAxisMin is a round lower bound (a multiple of 0.05) below
// every 5% quantile of ρ.
func selectionAxisMin(r *datasets.SelectionResult) float64 {
	lo := 1.0
	for _, s := range r.Summary {
		if s.Q05 != nil {
			lo = math.Min(lo, *s.Q05)
		}
	}
	return math.Floor(lo*20-1e-9) / 20
}
