package figures

import (
	"fmt"
	"sort"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/evalbook/evalbook/analyses/leaderboard"
)

// Aggregate draws the Dolan–Moré performance profiles of an aggregate
// result (seed 001 Fig. 3): one step-free line per method, AUC in the
// legend, methods ordered by AUC.
func Aggregate(id, title string, r *leaderboard.AggregateResult) ([]Figure, error) {
	if r.Profile == nil {
		return nil, nil
	}
	p := r.Profile
	order := make([]int, len(r.Methods))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p.AUC[order[a]] > p.AUC[order[b]] })
	order, dropped := topSeries(order, "methods (by AUC)")

	plt := NewPlot("", "β (ratio to the best value)", "share of datasets ρ(β)")
	plt.Y.Min, plt.Y.Max = 0, 1
	plt.Legend.Top = false
	plt.Legend.Left = false
	plt.Legend.YOffs = vg.Points(10)
	plt.Legend.TextStyle.Font.Size = vg.Points(8)
	plt.Add(plotter.NewGrid())
	for k, m := range order {
		xy := make(plotter.XYs, len(p.Beta))
		for i, b := range p.Beta {
			xy[i].X, xy[i].Y = b, p.Rho[m][i]
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("profile of %s: %w", r.Methods[m], err)
		}
		l.Color = Colour(k)
		l.Width = vg.Points(1.5)
		l.Dashes = Dashes(k)
		plt.Add(l)
		plt.Legend.Add(fmt.Sprintf("%s (AUC %.3f)", r.Naming.Method(r.Methods[m]), p.AUC[m]), l)
	}
	drw := PlotDrawing(plt, 7*vg.Inch, 4.5*vg.Inch)
	svg, err := drw.SVG()
	if err != nil {
		return nil, err
	}

	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Bottom: "0"}),
		charts.WithXAxisOpts(opts.XAxis{Name: "β", Type: "value", Min: 1}),
		charts.WithYAxisOpts(opts.YAxis{Name: "ρ(β)", Type: "value", Min: 0, Max: 1}),
		charts.WithGridOpts(opts.Grid{Bottom: "70"}),
	)
	for k, m := range order {
		data := make([]opts.LineData, len(p.Beta))
		for i, b := range p.Beta {
			data[i] = opts.LineData{Value: []any{b, p.Rho[m][i]}}
		}
		line.AddSeries(fmt.Sprintf("%s (AUC %.3f)", r.Naming.Method(r.Methods[m]), p.AUC[m]), data,
			charts.WithLineStyleOpts(opts.LineStyle{Color: Hex(k), Width: 2, Type: LineType(k)}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: Hex(k)}),
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
		)
	}
	chart, err := EChartsJSON(line)
	if err != nil {
		return nil, err
	}
	return []Figure{{
		ID:      id,
		Title:   "Performance profiles",
		Caption: fmt.Sprintf("Dolan–Moré performance profiles of %s over %d datasets: the share of datasets on which each method is within a factor β of the best. AUC (normalised to sum to 1) in the legend.", r.Naming.Metric(r.Metric), len(r.Datasets)) + dropped,
		SVG:     svg, Drawing: &drw,
		Chart:  chart,
		Height: 460,
	}}, nil
}

// EChartsJSON returns a go-echarts chart's option as deterministic JSON.
func EChartsJSON(c interface {
	Validate()
	JSON() map[string]any
}) ([]byte, error) {
	c.Validate()
	m := c.JSON()
	return ChartJSON(m)
}
