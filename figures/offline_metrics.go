package figures

// The figures of offline_metrics show how a metric grows with the cutoff
// k, one line per method, averaged over datasets: the picture seed 002
// draws in words ("with increasing k, position matters less"), and the
// quickest check that a run file was read the right way round.

import (
	"fmt"
	"math"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/evalbook/evalbook/analyses/offline"
)

// OfflineMetrics draws nDCG@k (figure id) and Coverage@k (id-coverage)
// against k, one line per method, each point the mean over the datasets
// the method has a value on.
func OfflineMetrics(id, title string, r *offline.Result) ([]Figure, error) {
	var out []Figure
	for _, spec := range []struct{ metric, suffix, label string }{
		{"ndcg", "", "nDCG@k"},
		{"coverage", "-coverage", "Coverage@k"},
	} {
		f, err := offlineCurve(id+spec.suffix, spec.metric, spec.label, r)
		if err != nil {
			return nil, err
		}
		if f != nil {
			out = append(out, *f)
		}
	}
	return out, nil
}

func offlineCurve(id, metric, label string, r *offline.Result) (*Figure, error) {
	var methods []string
	seen := map[string]bool{}
	datasets := map[string]bool{}
	for _, run := range r.Runs {
		if !seen[run.Method] {
			seen[run.Method] = true
			methods = append(methods, run.Method)
		}
		datasets[run.Dataset] = true
	}
	// mean[m][ki] over datasets with a value.
	mean := make([][]float64, len(methods))
	hasValue := false
	for mi, m := range methods {
		mean[mi] = make([]float64, len(r.K))
		for ki, k := range r.K {
			var s float64
			n := 0
			for _, run := range r.Runs {
				if run.Method != m {
					continue
				}
				if v := run.Values[fmt.Sprintf("%s@%d", metric, k)]; v != nil {
					s += *v
					n++
				}
			}
			mean[mi][ki] = math.NaN()
			if n > 0 {
				mean[mi][ki] = s / float64(n)
				hasValue = true
			}
		}
	}
	if !hasValue {
		return nil, nil
	}
	plt := NewPlot("", "cutoff k", label)
	plt.Legend.Top = true
	plt.Legend.Left = true
	plt.Legend.TextStyle.Font.Size = vg.Points(8)
	plt.Add(plotter.NewGrid())
	for mi, m := range methods {
		var xy plotter.XYs
		for ki, k := range r.K {
			if !math.IsNaN(mean[mi][ki]) {
				xy = append(xy, plotter.XY{X: float64(k), Y: mean[mi][ki]})
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, p, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %w", label, m, err)
		}
		l.Color, p.Color = Colour(mi), Colour(mi)
		l.Width = vg.Points(1.5)
		l.Dashes = Dashes(mi)
		p.Radius = vg.Points(2.5)
		plt.Add(l, p)
		plt.Legend.Add(m, l, p)
	}
	svg, err := SVG(plt, 7*vg.Inch, 4*vg.Inch)
	if err != nil {
		return nil, err
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Bottom: "0"}),
		charts.WithXAxisOpts(opts.XAxis{Name: "k", Type: "value"}),
		charts.WithYAxisOpts(opts.YAxis{Name: label, Type: "value"}),
		charts.WithGridOpts(opts.Grid{Bottom: "70"}),
	)
	for mi, m := range methods {
		data := make([]opts.LineData, len(r.K))
		for ki, k := range r.K {
			data[ki] = opts.LineData{Value: []any{k, JSONFloat(mean[mi][ki])}}
		}
		line.AddSeries(m, data,
			charts.WithLineStyleOpts(opts.LineStyle{Color: Hex(mi), Width: 2}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: Hex(mi)}),
		)
	}
	chart, err := EChartsJSON(line)
	if err != nil {
		return nil, err
	}
	over := "on the dataset"
	if len(datasets) > 1 {
		over = fmt.Sprintf("averaged over the %d datasets on which the method has a value", len(datasets))
	}
	return &Figure{
		ID:      id,
		Title:   label + " against the cutoff",
		Caption: fmt.Sprintf("%s of each method at every cutoff k, %s.", label, over),
		SVG:     svg,
		Chart:   chart,
		Height:  420,
	}, nil
}
