package figures

// Figures of the clusters analysis (seed 001 §4.4, Fig. 8): where the
// datasets lie in the plane of the first two principal components and
// which cluster each joined, how the choice of k was made, and how the
// leaderboard differs from cluster to cluster.

import (
	"fmt"
	"math"
	"sort"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/evalbook/evalbook/analyses/datasets"
)

// Clusters draws the PCA scatter (id), silhouette and Davies–Bouldin
// against k (id-k) and, when the result has one, the per-cluster
// leaderboard heatmap (id-leaderboard).
func Clusters(id, title string, r *datasets.ClustersResult) ([]Figure, error) {
	var figs []Figure
	f, err := clustersScatter(id, r)
	if err != nil {
		return nil, err
	}
	figs = append(figs, f)
	if len(r.KScan) > 0 {
		f, err := clustersKScan(id+"-k", r)
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	if len(r.Leaderboard) > 0 {
		f, err := clustersBoard(id+"-leaderboard", r)
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	return figs, nil
}

func pcLabel(r *datasets.ClustersResult, c int) string {
	if c >= len(r.ExplainedVarianceRatio) {
		return ""
	}
	return fmt.Sprintf("PC%d (%.1f%% of variance)", c+1, 100*r.ExplainedVarianceRatio[c])
}

// pcXY returns the first two principal scores of dataset i (0 when the
// analysis kept a single component).
func pcXY(r *datasets.ClustersResult, i int) (float64, float64) {
	s := r.Scores[i]
	if len(s) < 2 {
		return s[0], 0
	}
	return s[0], s[1]
}

// clustersScatter is the PCA scatter of the datasets, coloured by
// cluster, static and interactive.
func clustersScatter(id string, r *datasets.ClustersResult) (Figure, error) {
	isRep := map[string]bool{}
	for _, d := range r.Representatives {
		isRep[d] = true
	}
	plt, err := clustersScatterPlot(r, isRep)
	if err != nil {
		return Figure{}, err
	}
	drw := PlotDrawing(plt, 7*vg.Inch, 5*vg.Inch)
	svg, err := drw.SVG()
	if err != nil {
		return Figure{}, err
	}
	chart, err := clustersScatterChart(r, isRep)
	if err != nil {
		return Figure{}, err
	}
	return Figure{
		ID:    id,
		Title: "Datasets in the plane of the first two principal components",
		Caption: fmt.Sprintf("The %d datasets on the first two principal components of their z-scored characteristics (%.0f%% of the variance), coloured by cluster (k = %d). Triangles mark Isolation Forest outliers, which joined the nearest centroid; rings mark each cluster's representative, the dataset nearest its centroid.",
			len(r.Datasets), 100*sumFirst(r.ExplainedVarianceRatio, 2), r.K),
		SVG: svg, Drawing: &drw,
		Chart:  chart,
		Height: 480,
	}, nil
}

// clustersScatterPlot is the static PCA scatter: each cluster's points,
// the representatives' names, and room around the points for the legend.
func clustersScatterPlot(r *datasets.ClustersResult, isRep map[string]bool) (*plot.Plot, error) {
	plt := NewPlot("", pcLabel(r, 0), pcLabel(r, 1))
	plt.Add(plotter.NewGrid())
	plt.Legend.Top = true
	plt.Legend.TextStyle.Font.Size = vg.Points(8)
	k := len(r.Representatives)
	var repLabels plotter.XYLabels
	for c := 1; c <= k; c++ {
		if err := clustersAddCluster(plt, r, c, isRep, &repLabels); err != nil {
			return nil, err
		}
	}
	if len(repLabels.XYs) > 0 {
		l, err := plotter.NewLabels(repLabels)
		if err != nil {
			return nil, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].Font.Size = vg.Points(7)
			l.TextStyle[i].XAlign = draw.XLeft
		}
		l.Offset = vg.Point{X: vg.Points(8), Y: vg.Points(-3)}
		plt.Add(l)
	}
	clustersScatterRange(plt, r, k)
	return plt, nil
}

// clustersAddCluster adds cluster c's points to the scatter (circles,
// outlier triangles, representative rings) with its legend entry, and
// collects the representatives' names in repLabels.
func clustersAddCluster(plt *plot.Plot, r *datasets.ClustersResult, c int, isRep map[string]bool, repLabels *plotter.XYLabels) error {
	var in, out, rep plotter.XYs
	for i, d := range r.Datasets {
		if r.Cluster[i] != c {
			continue
		}
		x, y := pcXY(r, i)
		if r.Outlier[i] {
			out = append(out, plotter.XY{X: x, Y: y})
		} else {
			in = append(in, plotter.XY{X: x, Y: y})
		}
		if isRep[d] {
			rep = append(rep, plotter.XY{X: x, Y: y})
			repLabels.XYs = append(repLabels.XYs, plotter.XY{X: x, Y: y})
			repLabels.Labels = append(repLabels.Labels, r.Naming.Dataset(d))
		}
	}
	var first *plotter.Scatter
	for j, pts := range []plotter.XYs{in, out, rep} {
		if len(pts) == 0 {
			continue
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return fmt.Errorf("cluster %d: %w", c, err)
		}
		s.GlyphStyle.Color = Colour(c - 1)
		s.GlyphStyle.Radius = vg.Points(4)
		switch j {
		case 0:
			s.GlyphStyle.Shape = draw.CircleGlyph{}
		case 1:
			s.GlyphStyle.Shape = draw.TriangleGlyph{}
			s.GlyphStyle.Radius = vg.Points(5)
		case 2:
			s.GlyphStyle.Shape = draw.RingGlyph{}
			s.GlyphStyle.Color = Colour(9)
			s.GlyphStyle.Radius = vg.Points(7)
		}
		plt.Add(s)
		if first == nil && j < 2 {
			first = s
		}
	}
	if first != nil {
		plt.Legend.Add(fmt.Sprintf("cluster %d", c), first)
	}
	return nil
}

// clustersScatterRange leaves room around the points, and above them
// for the legend of k clusters.
func clustersScatterRange(plt *plot.Plot, r *datasets.ClustersResult, k int) {
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range r.Datasets {
		x, y := pcXY(r, i)
		xlo, xhi, ylo, yhi = math.Min(xlo, x), math.Max(xhi, x), math.Min(ylo, y), math.Max(yhi, y)
	}
	if !math.IsInf(xlo, 0) {
		dx, dy := math.Max(xhi-xlo, 1e-9), math.Max(yhi-ylo, 1e-9)
		plt.X.Min, plt.X.Max = xlo-0.08*dx, xhi+0.15*dx
		plt.Y.Min, plt.Y.Max = ylo-0.08*dy, yhi+0.08*dy+0.045*dy*float64(k)
	}
}

// clustersScatterChart is the interactive PCA scatter, one series per
// cluster, outliers and representatives named in the tooltip.
func clustersScatterChart(r *datasets.ClustersResult, isRep map[string]bool) ([]byte, error) {
	k := len(r.Representatives)
	sc := charts.NewScatter()
	sc.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Bottom: "0"}),
		charts.WithXAxisOpts(opts.XAxis{Name: pcLabel(r, 0), Type: "value", NameLocation: "middle", NameGap: 25}),
		charts.WithYAxisOpts(opts.YAxis{Name: pcLabel(r, 1), Type: "value", NameLocation: "middle", NameGap: 35}),
		charts.WithGridOpts(opts.Grid{Bottom: "70"}),
	)
	for c := 1; c <= k; c++ {
		var data []opts.ScatterData
		for i, d := range r.Datasets {
			if r.Cluster[i] != c {
				continue
			}
			x, y := pcXY(r, i)
			pt := opts.ScatterData{Name: r.Naming.Dataset(d), Value: []any{x, y}, Symbol: "circle", SymbolSize: 10}
			if r.Outlier[i] {
				pt.Name += " (outlier)"
				pt.Symbol = "triangle"
				pt.SymbolSize = 13
			}
			if isRep[d] {
				pt.Name += " (representative)"
				pt.Symbol = "emptyCircle" // a ring, as in the static figure
				pt.SymbolSize = 16
			}
			data = append(data, pt)
		}
		sc.AddSeries(fmt.Sprintf("cluster %d", c), data,
			charts.WithItemStyleOpts(opts.ItemStyle{Color: Hex(c - 1)}))
	}
	return EChartsJSON(sc)
}

func sumFirst(v []float64, n int) float64 {
	var s float64
	for i := 0; i < n && i < len(v); i++ {
		s += v[i]
	}
	return s
}

// clustersKScan is silhouette and Davies–Bouldin against k, the chosen
// k marked, static and interactive.
func clustersKScan(id string, r *datasets.ClustersResult) (Figure, error) {
	plt := NewPlot("", "number of clusters k", "score")
	plt.Add(plotter.NewGrid())
	plt.Legend.Top = true
	plt.Legend.TextStyle.Font.Size = vg.Points(8)
	line := clustersKScanChart(r)
	for j, s := range clustersKSeries {
		if err := clustersKScanSeries(plt, line, r, j, s.name, s.get); err != nil {
			return Figure{}, err
		}
	}
	if err := clustersKRule(plt, r); err != nil {
		return Figure{}, err
	}
	drw := PlotDrawing(plt, 6*vg.Inch, 3.5*vg.Inch)
	svg, err := drw.SVG()
	if err != nil {
		return Figure{}, err
	}
	chart, err := EChartsJSON(line)
	if err != nil {
		return Figure{}, err
	}
	how := "chosen by the highest silhouette"
	if r.KFixed {
		how = "fixed in the manifest"
	}
	return Figure{
		ID:      id,
		Title:   "Choice of the number of clusters",
		Caption: fmt.Sprintf("Silhouette (higher is better) and Davies–Bouldin index (lower is better) of k-means on the %d non-outlier datasets for each k; k = %d was %s (dotted rule).", countFalse(r.Outlier), r.K, how),
		SVG:     svg, Drawing: &drw,
		Chart:  chart,
		Height: 360,
	}, nil
}

// clustersKSeries are the two scores of the k scan.
var clustersKSeries = []struct {
	name string
	get  func(datasets.ClustersK) *float64
}{
	{"silhouette (higher is better)", func(k datasets.ClustersK) *float64 { return k.Silhouette }},
	{"Davies–Bouldin (lower is better)", func(k datasets.ClustersK) *float64 { return k.DaviesBouldin }},
}

// clustersKScanChart is the interactive k scan's line chart, without its
// series.
func clustersKScanChart(r *datasets.ClustersResult) *charts.Line {
	ks := make([]string, len(r.KScan))
	for i, k := range r.KScan {
		ks[i] = fmt.Sprint(k.K)
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Bottom: "0"}),
		charts.WithXAxisOpts(opts.XAxis{Name: "k", Type: "category"}),
		charts.WithYAxisOpts(opts.YAxis{Name: "score", Type: "value"}),
		charts.WithGridOpts(opts.Grid{Bottom: "60"}),
	)
	line.SetXAxis(ks)
	return line
}

// clustersKScanSeries adds score j of the k scan to the static plot and
// to the interactive chart (the first with the chosen k marked).
func clustersKScanSeries(plt *plot.Plot, line *charts.Line, r *datasets.ClustersResult, j int, name string, get func(datasets.ClustersK) *float64) error {
	var xy plotter.XYs
	data := make([]opts.LineData, len(r.KScan))
	for i, k := range r.KScan {
		v := get(k)
		if v != nil {
			xy = append(xy, plotter.XY{X: float64(k.K), Y: *v})
			data[i] = opts.LineData{Value: *v}
		} else {
			data[i] = opts.LineData{Value: nil}
		}
	}
	if len(xy) > 0 {
		l, p, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		l.Color, p.Color = Colour(j), Colour(j)
		l.Width = vg.Points(1.5)
		l.Dashes = []vg.Length{}
		if j == 1 {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			p.Shape = draw.SquareGlyph{}
		}
		plt.Add(l, p)
		plt.Legend.Add(name, l, p)
	}
	opt := []charts.SeriesOpts{
		charts.WithLineStyleOpts(opts.LineStyle{Color: Hex(j), Width: 2}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: Hex(j)}),
	}
	if j == 0 {
		opt = append(opt, charts.WithMarkLineNameXAxisItemOpts(opts.MarkLineNameXAxisItem{Name: "chosen k", XAxis: fmt.Sprint(r.K)}))
	}
	line.AddSeries(name, data, opt...)
	return nil
}

// clustersKRule draws the chosen k as a vertical rule and sets the
// axes' ranges of the k scan.
func clustersKRule(plt *plot.Plot, r *datasets.ClustersResult) error {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, k := range r.KScan {
		for _, v := range []*float64{k.Silhouette, k.DaviesBouldin} {
			if v != nil {
				lo, hi = math.Min(lo, *v), math.Max(hi, *v)
			}
		}
	}
	if !math.IsInf(lo, 0) {
		rule, err := plotter.NewLine(plotter.XYs{{X: float64(r.K), Y: math.Min(0, lo)}, {X: float64(r.K), Y: hi}})
		if err != nil {
			return err
		}
		rule.Color = Colour(7)
		rule.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
		plt.Add(rule)
	}
	plt.X.Tick.Marker = clustersIntTicks{}
	plt.X.Min, plt.X.Max = float64(r.KScan[0].K)-0.3, float64(r.KScan[len(r.KScan)-1].K)+0.3
	if !math.IsInf(hi, 0) {
		plt.Y.Min, plt.Y.Max = math.Min(0, lo), hi+0.3*(hi-math.Min(0, lo))
	}
	return nil
}

func countFalse(b []bool) int {
	n := 0
	for _, v := range b {
		if !v {
			n++
		}
	}
	return n
}

// clustersBoard is seed 001 Fig. 8: methods × clusters, mean rank in the
// cell with the geometric mean in brackets.
func clustersBoard(id string, r *datasets.ClustersResult) (Figure, error) {
	nm := len(r.Methods)
	// Methods ordered by their average over clusters of the mean rank.
	avg := make([]float64, nm)
	for _, b := range r.Leaderboard {
		for m := range avg {
			avg[m] += b.MeanRank[m] / float64(len(r.Leaderboard))
		}
	}
	order := make([]int, nm)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return avg[order[a]] < avg[order[b]] })
	cols := make([]string, len(r.Leaderboard))
	for j, b := range r.Leaderboard {
		cols[j] = fmt.Sprintf("cluster %d (%d)", b.Cluster, len(b.Datasets))
	}
	// Row 0 at the bottom: put the best method on top.
	rows := make([]string, nm)
	values := make([][]float64, nm)
	text := make([][]string, nm)
	var cells []any
	for ri := 0; ri < nm; ri++ {
		m := order[nm-1-ri]
		rows[ri] = r.Naming.Method(r.Methods[m])
		values[ri] = make([]float64, len(r.Leaderboard))
		text[ri] = make([]string, len(r.Leaderboard))
		for j, b := range r.Leaderboard {
			values[ri][j] = b.MeanRank[m]
			t := fmt.Sprintf("%.2f", b.MeanRank[m])
			if g := b.GeometricMean[m]; g != nil {
				t += fmt.Sprintf(" (%.4f)", *g)
			}
			text[ri][j] = t
			cells = append(cells, map[string]any{"value": []any{j, ri, JSONFloat(b.MeanRank[m])},
				"label": map[string]any{"formatter": t}})
		}
	}
	hm := &clustersHeatmap{Values: values, Text: text, Low: 1, High: float64(nm), Reverse: true, FontSize: vg.Points(7)}
	plt := NewPlot("", "", "")
	plt.Add(hm)
	plt.X.Tick.Marker = clustersNameTicks(cols)
	plt.Y.Tick.Marker = clustersNameTicks(rows)
	plt.X.Tick.Label.Font.Size = vg.Points(8)
	plt.Y.Tick.Label.Font.Size = vg.Points(8)
	w := vg.Length(1.8+1.1*float64(len(cols))) * vg.Inch
	h := vg.Length(0.8+0.3*float64(nm)) * vg.Inch
	drw := PlotDrawing(plt, w, h)
	svg, err := drw.SVG()
	if err != nil {
		return Figure{}, err
	}
	chart, err := ChartJSON(map[string]any{
		"tooltip":   map[string]any{"show": true, "trigger": "item"},
		"grid":      map[string]any{"left": 140, "bottom": 40, "top": 10, "right": 20},
		"xAxis":     map[string]any{"type": "category", "data": cols, "splitArea": map[string]any{"show": true}},
		"yAxis":     map[string]any{"type": "category", "data": rows, "splitArea": map[string]any{"show": true}},
		"visualMap": map[string]any{"min": 1, "max": nm, "calculable": false, "show": false, "inRange": map[string]any{"color": []string{"#08306b", "#f7fbff"}}},
		"series": []any{map[string]any{"type": "heatmap", "name": "mean rank of " + r.Naming.Metric(r.Metric), "data": cells,
			"label": map[string]any{"show": true, "fontSize": 10}}},
	})
	if err != nil {
		return Figure{}, err
	}
	return Figure{
		ID:      id,
		Title:   "Leaderboard within each cluster",
		Caption: fmt.Sprintf("Mean rank of each method on the datasets of each cluster (1 = best; darker is better), with the geometric mean of %s in brackets, after Shevchenko et al. (2024, Fig. 8). Methods are ordered by their average over clusters; the number of datasets is in each column's title.", r.Naming.Metric(r.Metric)),
		SVG:     svg, Drawing: &drw,
		Chart:  chart,
		Height: 60 + 28*nm,
	}, nil
}

// clustersIntTicks marks every integer in the axis range.
type clustersIntTicks struct{}

func (clustersIntTicks) Ticks(min, max float64) []plot.Tick {
	var t []plot.Tick
	for v := math.Ceil(min); v <= max; v++ {
		t = append(t, plot.Tick{Value: v, Label: fmt.Sprint(v)})
	}
	return t
}
