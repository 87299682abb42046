package figures

// The figures of seed 004 make its argument visible: Fig. 2 shows why a
// trade-off line is learned from the Pareto front rather than from two
// hand-picked models, Fig. 3 shows how the new score reorders the 2022
// leaderboard as the importance λ grows, and a parallel-coordinates view
// shows what the models of the first front trade against each other.

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/evalbook/evalbook/analyses/multiobjective"
)

// MultiObjective draws, for each objective, base against objective with
// the Pareto front and its fitted line (id <id>-tradeoff-<objective>); the new
// score against the EvalRS 2022 score at each compared λ (id
// <id>-evalrs2022, when the 2022 score was computed); and the first
// front in parallel coordinates (id <id>-front).
func MultiObjective(id, title string, r *multiobjective.Result) ([]Figure, error) {
	var out []Figure
	for j := range r.Objectives {
		f, err := moTradeOff(id, r, j)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	if r.Scored && len(r.Compare) > 0 {
		f, err := moCompare(id, r)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	f, ok, err := moFront(id, r)
	if err != nil {
		return nil, err
	}
	if ok {
		out = append(out, f)
	}
	return out, nil
}

// moSlug makes a metric name usable in a figure id.
func moSlug(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// moTradeOff is seed 004 Fig. 2 for one objective.
func moTradeOff(id string, r *multiobjective.Result, j int) (Figure, error) {
	m := r.Objectives[j]
	fit := r.Fits[j]
	onFront := map[int]bool{}
	for _, i := range fit.ParetoRows {
		onFront[i] = true
	}
	plt, lineXY, err := moTradeOffPlot(r, j, onFront)
	if err != nil {
		return Figure{}, fmt.Errorf("trade-off %s: %w", m, err)
	}
	drw := PlotDrawing(plt, 6*vg.Inch, 4.2*vg.Inch)
	svg, err := drw.SVG()
	if err != nil {
		return Figure{}, err
	}
	chart, err := moTradeOffChart(r, m, onFront, lineXY)
	if err != nil {
		return Figure{}, err
	}
	caption := fmt.Sprintf("%s against %s for every model (after Chia et al. 2023, Fig. 2); the %d distinct Pareto non-dominated models of the pair are highlighted", r.Base, m, len(fit.ParetoRows))
	if fit.Slope != nil {
		caption += fmt.Sprintf(" and the least-squares line fitted to them (%s = %.4g·%s %+.4g", r.Base, *fit.Slope, m, *fit.Intercept)
		if fit.R2 != nil {
			caption += fmt.Sprintf(", R² = %.3f", *fit.R2)
		}
		caption += ")"
	}
	caption += ". Both axes are oriented so that higher is better."
	return Figure{ID: id + "-tradeoff-" + moSlug(m), Title: fmt.Sprintf("Trade-off: %s against %s", r.Base, m), Caption: caption, SVG: svg, Drawing: &drw, Chart: chart, Height: 420}, nil
}

// moTradeOffPlot is the static trade-off of objective j: the models, the
// Pareto front and the line fitted to it (returned, nil without a fit).
func moTradeOffPlot(r *multiobjective.Result, j int, onFront map[int]bool) (*plot.Plot, plotter.XYs, error) {
	m := r.Objectives[j]
	fit := r.Fits[j]
	base, obj := r.Oriented[r.Base], r.Oriented[m]
	var all, front plotter.XYs
	for i := range r.Models {
		if math.IsNaN(base[i]) || math.IsNaN(obj[i]) {
			continue
		}
		if onFront[i] {
			continue
		}
		all = append(all, plotter.XY{X: obj[i], Y: base[i]})
	}
	for _, i := range fit.ParetoRows {
		front = append(front, plotter.XY{X: obj[i], Y: base[i]})
	}
	sort.SliceStable(front, func(a, b int) bool { return front[a].X < front[b].X })

	plt := NewPlot("", m+" (higher is better)", r.Base+" (higher is better)")
	plt.Add(plotter.NewGrid())
	// The front runs along the upper right; the lower left, worst on
	// both metrics, is the emptiest corner.
	plt.Legend.Top, plt.Legend.Left = false, true
	plt.Legend.TextStyle.Font.Size = vg.Points(8)
	if len(all) > 0 {
		s, err := plotter.NewScatter(all)
		if err != nil {
			return nil, nil, err
		}
		s.GlyphStyle.Color = Colour(7)
		s.GlyphStyle.Radius = vg.Points(2)
		plt.Add(s)
		plt.Legend.Add("models", s)
	}
	s, err := plotter.NewScatter(front)
	if err != nil {
		return nil, nil, err
	}
	s.GlyphStyle.Color = Colour(5)
	s.GlyphStyle.Radius = vg.Points(3)
	s.GlyphStyle.Shape = draw.PyramidGlyph{}
	plt.Add(s)
	plt.Legend.Add("Pareto front", s)
	if fit.Slope == nil {
		return plt, nil, nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range front {
		lo, hi = math.Min(lo, p.X), math.Max(hi, p.X)
	}
	lineXY := plotter.XYs{{X: lo, Y: *fit.Intercept + *fit.Slope*lo}, {X: hi, Y: *fit.Intercept + *fit.Slope*hi}}
	l, err := plotter.NewLine(lineXY)
	if err != nil {
		return nil, nil, err
	}
	l.Color = Colour(4)
	l.Width = vg.Points(1.5)
	l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	plt.Add(l)
	plt.Legend.Add(fmt.Sprintf("fit β = %.3g", *fit.Slope), l)
	return plt, lineXY, nil
}

// moTradeOffChart is the interactive trade-off of objective m.
func moTradeOffChart(r *multiobjective.Result, m string, onFront map[int]bool, lineXY plotter.XYs) ([]byte, error) {
	base, obj := r.Oriented[r.Base], r.Oriented[m]
	sc := charts.NewScatter()
	sc.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Bottom: "0"}),
		charts.WithXAxisOpts(opts.XAxis{Name: m, Type: "value", Scale: opts.Bool(true)}),
		charts.WithYAxisOpts(opts.YAxis{Name: r.Base, Type: "value", Scale: opts.Bool(true)}),
		charts.WithGridOpts(opts.Grid{Bottom: "60"}),
	)
	var dAll, dFront []opts.ScatterData
	for i, model := range r.Models {
		if math.IsNaN(base[i]) || math.IsNaN(obj[i]) {
			continue
		}
		d := opts.ScatterData{Name: model, Value: []any{obj[i], base[i]}}
		if onFront[i] {
			dFront = append(dFront, d)
		} else {
			dAll = append(dAll, d)
		}
	}
	sc.AddSeries("models", dAll, charts.WithItemStyleOpts(opts.ItemStyle{Color: Hex(7)}))
	sc.AddSeries("Pareto front", dFront, charts.WithItemStyleOpts(opts.ItemStyle{Color: Hex(5)}))
	if lineXY != nil {
		ln := charts.NewLine()
		ln.AddSeries("fitted trade-off", []opts.LineData{{Value: []any{lineXY[0].X, lineXY[0].Y}}, {Value: []any{lineXY[1].X, lineXY[1].Y}}},
			charts.WithLineStyleOpts(opts.LineStyle{Color: Hex(4), Width: 2, Type: "dashed"}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: Hex(4)}),
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
		sc.Overlap(ln)
	}
	return EChartsJSON(sc)
}

// moNormalise maps the finite values to [0, 1] by min-max; NaN stays.
func moNormalise(v []float64) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if !math.IsNaN(x) {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	out := make([]float64, len(v))
	for i, x := range v {
		switch {
		case math.IsNaN(x):
			out[i] = math.NaN()
		case hi > lo:
			out[i] = (x - lo) / (hi - lo)
		default:
			out[i] = 0.5
		}
	}
	return out
}

// moCompare is seed 004 Fig. 3: the new score (normalised to [0, 1])
// against the EvalRS 2022 score (normalised over the models above the
// threshold; the penalised models sit at 0), one panel per λ.
func moCompare(id string, r *multiobjective.Result) (Figure, error) {
	panels := moPanels(r)
	plots := make([]*plot.Plot, len(panels))
	for k, p := range panels {
		plt, err := moPanelPlot(p, k)
		if err != nil {
			return Figure{}, err
		}
		plots[k] = plt
	}
	w, h := vg.Length(len(panels))*3.2*vg.Inch, 3.4*vg.Inch
	mp := newPanelGrid(plots)
	drw := Drawing{Width: w, Height: h, Draw: mp.draw, dataAreas: mp.dataAreas, minSize: mp.minSize}
	svg, err := drw.SVG()
	if err != nil {
		return Figure{}, err
	}
	chart, err := moCompareChart(panels)
	if err != nil {
		return Figure{}, err
	}
	npen := 0
	for _, p := range r.Penalised {
		if p {
			npen++
		}
	}
	caption := fmt.Sprintf("The new score (Σ Δ_i, the same λ for every objective) against the EvalRS 2022 score, both min-max normalised to [0, 1], for λ = %s (after Chia et al. 2023, Fig. 3). Points below the dashed diagonal are ranked higher by the 2022 score than by the new one.", moJoin(r.Compare))
	if npen > 0 {
		caption += fmt.Sprintf(" The %d models below the 2022 threshold (scored %s) are drawn as crosses at 0.", npen, "−100")
	}
	return Figure{ID: id + "-evalrs2022", Title: "New score against the EvalRS 2022 score", Caption: caption, SVG: svg, Drawing: &drw, Chart: chart, Height: 420}, nil
}

// moPanel is one λ's panel of the comparison with the EvalRS 2022 score.
type moPanel struct {
	lambda    float64
	kept, pen plotter.XYs
	dKept     []opts.ScatterData
}

// moPanels normalises the EvalRS 2022 score and each λ's new score and
// pairs them, one panel per λ.
func moPanels(r *multiobjective.Result) []moPanel {
	n := len(r.Models)
	old := make([]float64, n)
	for i := range old {
		old[i] = math.NaN()
		if r.EvalRS2022[i] != nil && !r.Penalised[i] {
			old[i] = *r.EvalRS2022[i]
		}
	}
	oldN := moNormalise(old)
	for i := range oldN {
		if r.Penalised[i] {
			oldN[i] = 0
		}
	}
	var panels []moPanel
	for _, c := range r.Compare {
		s := make([]float64, n)
		for i := range s {
			s[i] = math.NaN()
			if c.Scores[i] != nil {
				s[i] = *c.Scores[i]
			}
		}
		sn := moNormalise(s)
		p := moPanel{lambda: c.Importance}
		for i := range sn {
			if math.IsNaN(sn[i]) || math.IsNaN(oldN[i]) {
				continue
			}
			xy := plotter.XY{X: oldN[i], Y: sn[i]}
			if r.Penalised[i] {
				p.pen = append(p.pen, xy)
			} else {
				p.kept = append(p.kept, xy)
			}
			p.dKept = append(p.dKept, opts.ScatterData{Name: r.Models[i], Value: []any{oldN[i], sn[i]}})
		}
		panels = append(panels, p)
	}
	return panels
}

// moPanelPlot is the static plot of panel k (the first carries the
// legend).
func moPanelPlot(p moPanel, k int) (*plot.Plot, error) {
	plt := NewPlot(fmt.Sprintf("λ = %g", p.lambda), "EvalRS 2022 score (normalised)", "new score (normalised)")
	plt.X.Min, plt.X.Max, plt.Y.Min, plt.Y.Max = -0.03, 1.03, -0.03, 1.03
	plt.Add(plotter.NewGrid())
	diag, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	diag.Color = Colour(5)
	diag.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	plt.Add(diag)
	if len(p.kept) > 0 {
		s, err := plotter.NewScatter(p.kept)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Color = Colour(4)
		s.GlyphStyle.Radius = vg.Points(1.8)
		plt.Add(s)
		if k == 0 {
			plt.Legend.Add("submissions", s)
		}
	}
	if len(p.pen) > 0 {
		s, err := plotter.NewScatter(p.pen)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Color = Colour(0)
		s.GlyphStyle.Radius = vg.Points(1.8)
		s.GlyphStyle.Shape = draw.CrossGlyph{}
		plt.Add(s)
		if k == 0 {
			plt.Legend.Add("below threshold", s)
		}
	}
	plt.Legend.Top = true
	plt.Legend.Left = true
	plt.Legend.TextStyle.Font.Size = vg.Points(7)
	return plt, nil
}

// moTiles are the tiles of panels in rows and cols.
func moTiles(rows, cols int) draw.Tiles {
	return draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(8), PadY: vg.Points(4), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
}

// panelGrid lays panels out side by side, in as many columns as fit
// width w at their least size, in rows of those columns.
type panelGrid struct {
	plots  []*plot.Plot
	pw, ph vg.Length // a panel's least size
}

func newPanelGrid(plots []*plot.Plot) panelGrid {
	m := panelGrid{plots: plots}
	for _, p := range plots {
		w, h := plotMinSize(p)
		m.pw, m.ph = max(m.pw, w), max(m.ph, h)
	}
	return m
}

// grid returns the panels in rows on a canvas w wide, and their tiles.
func (m panelGrid) grid(w vg.Length) ([][]*plot.Plot, draw.Tiles) {
	n := len(m.plots)
	t := moTiles(1, n)
	cols := int((w - t.PadLeft - t.PadRight + t.PadX) / (m.pw + t.PadX))
	cols = min(max(cols, 1), n)
	rows := (n + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range grid[r] {
			if k := r*cols + c; k < n {
				grid[r][c] = m.plots[k]
			}
		}
	}
	return grid, moTiles(rows, cols)
}

func (m panelGrid) draw(dc draw.Canvas) {
	grid, t := m.grid(dc.Size().X)
	canvases := plot.Align(grid, t, dc)
	for r, row := range grid {
		for c, p := range row {
			if p != nil {
				p.Draw(canvases[r][c])
			}
		}
	}
}

// dataAreas returns the panels' data areas.
func (m panelGrid) dataAreas(dc draw.Canvas) []vg.Rectangle {
	var out []vg.Rectangle
	grid, t := m.grid(dc.Size().X)
	canvases := plot.Align(grid, t, dc)
	for r, row := range grid {
		for c, p := range row {
			if p != nil {
				out = append(out, p.DataCanvas(canvases[r][c]).Rectangle)
			}
		}
	}
	return out
}

// minSize is one panel's least width, and at width w as many rows of
// panels at their least height as the columns that fit need.
func (m panelGrid) minSize(w vg.Length) (vg.Length, vg.Length) {
	t := moTiles(1, 1)
	grid, _ := m.grid(w)
	rows := vg.Length(len(grid))
	return m.pw + t.PadLeft + t.PadRight, rows*m.ph + (rows-1)*t.PadY + t.PadTop + t.PadBottom
}

// moCompareChart is the interactive comparison: every λ in one plane.
func moCompareChart(panels []moPanel) ([]byte, error) {
	sc := charts.NewScatter()
	sc.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Bottom: "0"}),
		charts.WithXAxisOpts(opts.XAxis{Name: "EvalRS 2022 (normalised)", Type: "value", Min: 0, Max: 1}),
		charts.WithYAxisOpts(opts.YAxis{Name: "new score (normalised)", Type: "value", Min: 0, Max: 1}),
		charts.WithGridOpts(opts.Grid{Bottom: "60"}),
	)
	for k, p := range panels {
		sc.AddSeries(fmt.Sprintf("λ = %g", p.lambda), p.dKept, charts.WithItemStyleOpts(opts.ItemStyle{Color: Hex(k + 4)}))
	}
	ln := charts.NewLine()
	ln.AddSeries("y = x", []opts.LineData{{Value: []any{0, 0}}, {Value: []any{1, 1}}},
		charts.WithLineStyleOpts(opts.LineStyle{Color: Hex(5), Type: "dashed"}),
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	sc.Overlap(ln)
	return EChartsJSON(sc)
}

func moJoin(c []multiobjective.Compare) string {
	var s []string
	for _, x := range c {
		s = append(s, fmt.Sprintf("%g", x.Importance))
	}
	return strings.Join(s, ", ")
}

// moFront draws the models of the first front in parallel coordinates,
// each metric min-max scaled over all models (higher is better, up).
func moFront(id string, r *multiobjective.Result) (Figure, bool, error) {
	metrics := append([]string{r.Base}, r.Objectives...)
	var rows []int
	for i, f := range r.Front {
		if f == 1 {
			rows = append(rows, i)
		}
	}
	if len(rows) == 0 {
		return Figure{}, false, nil
	}
	scaled := make([][]float64, len(metrics))
	for k, m := range metrics {
		scaled[k] = moNormalise(r.Oriented[m])
	}
	plt := NewPlot("", "", "scaled value (0 = worst model, 1 = best)")
	plt.Y.Min, plt.Y.Max = 0, 1
	plt.Add(plotter.NewGrid())
	names := make([]string, len(metrics))
	copy(names, metrics)
	plt.NominalX(names...)
	for k, i := range rows {
		xy := make(plotter.XYs, len(metrics))
		for a := range metrics {
			xy[a] = plotter.XY{X: float64(a), Y: scaled[a][i]}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return Figure{}, false, fmt.Errorf("front: %s: %w", r.Models[i], err)
		}
		c := Colour(k)
		c.A = 0xB0
		l.Color = color.NRGBA(c)
		l.Width = vg.Points(1)
		plt.Add(l)
	}
	plt.X.Tick.Label.Rotation = math.Pi / 6
	plt.X.Tick.Label.XAlign = draw.XRight
	drw := PlotDrawing(plt, vg.Length(max(6, len(metrics)))*0.9*vg.Inch, 4.4*vg.Inch)
	svg, err := drw.SVG()
	if err != nil {
		return Figure{}, false, err
	}

	pc := charts.NewParallel()
	axes := make([]opts.ParallelAxis, len(metrics))
	for a, m := range metrics {
		axes[a] = opts.ParallelAxis{Dim: a, Name: m}
	}
	pc.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true)}),
		charts.WithParallelAxisList(axes),
	)
	data := make([]opts.ParallelData, len(rows))
	for k, i := range rows {
		v := make([]any, len(metrics))
		for a, m := range metrics {
			v[a] = JSONFloat(r.Oriented[m][i])
		}
		data[k] = opts.ParallelData{Name: r.Models[i], Value: v}
	}
	pc.AddSeries("front 1", data, charts.WithLineStyleOpts(opts.LineStyle{Color: Hex(4), Width: 1, Opacity: opts.Float(0.6)}))
	chart, err := EChartsJSON(pc)
	if err != nil {
		return Figure{}, false, err
	}
	caption := fmt.Sprintf("The %d models of the first front of the non-dominated sorting over %s and the %d objectives, in parallel coordinates: each line is a model, each axis a metric min-max scaled over all models (higher is better). No model of this front is beaten on every axis by another model.", len(rows), r.Base, len(r.Objectives))
	return Figure{ID: id + "-front", Title: "First Pareto front", Caption: caption, SVG: svg, Drawing: &drw, Chart: chart, Height: 420}, true, nil
}
