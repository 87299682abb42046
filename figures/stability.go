package figures

// Why this file exists: seed 001 shows stability as one panel per
// perturbation (Figs 5, 6, 9a–c): mean Spearman ρ against the reference
// ranking, one line per aggregation rule with its confidence band. The
// interactive version lets a reader toggle rules, which matters with
// eleven overlapping lines.

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
)

// stabilityAxis gives each perturbation's title and x-axis label.
var stabilityAxis = map[string][2]string{
	leaderboard.PerturbDropDatasets:  {"Removing datasets", "datasets removed"},
	leaderboard.PerturbDropMethods:   {"Removing methods", "methods removed"},
	leaderboard.PerturbSimilarMethod: {"Adding a near-copy of a method", "α (the copy scores α × the method)"},
	leaderboard.PerturbBestMethod:    {"Adding a new best method", "α (the new method scores α × the best)"},
	leaderboard.PerturbBeta:          {"Changing β̂ of the DM rules", "β̂"},
	leaderboard.PerturbSubsetPairs:   {"Rankings on two disjoint subsets of datasets", "datasets per subset"},
}

// Stability draws one figure per perturbation of a stability result: mean ρ
// per rule against the perturbation size, with a ±1.96·sd/√count band
// where a point has at least two values.
func Stability(id, title string, r *leaderboard.StabilityResult) ([]Figure, error) {
	var figs []Figure
	for _, pert := range r.Perturbations {
		var curves []*leaderboard.StabilityCurve
		for _, rule := range r.Rules {
			if c := r.Curve(pert, rule); c != nil && len(c.Points) > 0 {
				curves = append(curves, c)
			}
		}
		if len(curves) == 0 {
			continue
		}
		f, err := stabilityFigure(id, r, pert, curves)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pert, err)
		}
		figs = append(figs, f)
	}
	return figs, nil
}

// stabilityBand returns the band around a point, ok = false when it has
// none (fewer than two values).
func stabilityBand(p leaderboard.StabilityPoint) (lo, hi float64, ok bool) {
	m, sd := float64(p.Mean), float64(p.SD)
	if !analyses.Finite(m) || !analyses.Finite(sd) || p.Count < 2 {
		return 0, 0, false
	}
	h := 1.96 * sd / math.Sqrt(float64(p.Count))
	return m - h, m + h, true
}

func stabilityFigure(id string, r *leaderboard.StabilityResult, pert string, curves []*leaderboard.StabilityCurve) (Figure, error) {
	// Rules keep their colour across the figures of one analysis.
	colourOf := map[string]int{}
	for i, rule := range r.Rules {
		colourOf[rule] = i
	}
	few := len(curves[0].Points) <= 12
	plt, err := stabilityPlot(r, pert, curves, colourOf, few)
	if err != nil {
		return Figure{}, err
	}
	drw := PlotDrawing(plt, 7*vg.Inch, 4.5*vg.Inch)
	svg, err := drw.SVG()
	if err != nil {
		return Figure{}, err
	}
	chart, err := stabilityChart(r, pert, curves, colourOf, few, plt.Y.Min)
	if err != nil {
		return Figure{}, err
	}
	return Figure{
		ID:      id + "-" + strings.ReplaceAll(pert, "_", "-"),
		Title:   stabilityAxis[pert][0],
		Caption: stabilityCaption(r, pert),
		SVG:     svg, Drawing: &drw,
		Chart:  chart,
		Height: 440,
	}, nil
}

// stabilityPlot draws the static version of one perturbation's figure.
func stabilityPlot(r *leaderboard.StabilityResult, pert string, curves []*leaderboard.StabilityCurve, colourOf map[string]int, few bool) (*plot.Plot, error) {
	axis := stabilityAxis[pert]
	ylabel := "Spearman ρ with the reference ranking"
	if pert == leaderboard.PerturbSubsetPairs {
		ylabel = "Spearman ρ between the two subsets' rankings"
	}
	plt := NewPlot("", axis[1], ylabel)
	if pert == leaderboard.PerturbSubsetPairs {
		var ticks []plot.Tick
		for _, p := range curves[0].Points {
			ticks = append(ticks, plot.Tick{Value: p.Size, Label: fmt.Sprint(p.Size)})
		}
		plt.X.Tick.Marker = plot.ConstantTicks(ticks)
		plt.X.Padding = vg.Points(20)
	}
	plt.Legend.Top = false
	plt.Legend.Left = true
	plt.Legend.TextStyle.Font.Size = vg.Points(8)
	plt.Add(plotter.NewGrid())
	ymin := 1.0
	for _, c := range curves {
		k := colourOf[c.Rule]
		ymin = math.Min(ymin, stabilityBands(plt, c, Colour(k)))
		lo, err := stabilityLines(plt, c, r.Naming.Rule(c.Rule), k, few)
		if err != nil {
			return nil, err
		}
		ymin = math.Min(ymin, lo)
	}
	plt.Y.Max = 1.02
	plt.Y.Min = math.Max(-1, math.Floor(ymin*10)/10-0.02)
	if pert == leaderboard.PerturbBeta {
		ref, err := plotter.NewLine(plotter.XYs{{X: r.BetaMax, Y: plt.Y.Min}, {X: r.BetaMax, Y: 1.02}})
		if err == nil {
			ref.Color = color.NRGBA{0x55, 0x55, 0x55, 0xFF}
			ref.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
			plt.Add(ref)
		}
	}
	return plt, nil
}

// stabilityBands draws a rule's band, one polygon per run of points
// that have one, and returns the lowest lower bound (1 without a band).
func stabilityBands(plt *plot.Plot, c *leaderboard.StabilityCurve, col color.NRGBA) float64 {
	ymin := 1.0
	var upper, lower plotter.XYs
	flush := func() {
		if len(upper) >= 2 {
			poly := append(append(plotter.XYs{}, upper...), reverseXYs(lower)...)
			pg, err := plotter.NewPolygon(poly)
			if err == nil {
				pg.Color = color.NRGBA{col.R, col.G, col.B, 0x30}
				pg.LineStyle.Width = 0
				plt.Add(pg)
			}
		}
		upper, lower = nil, nil
	}
	for _, p := range c.Points {
		lo, hi, ok := stabilityBand(p)
		if !ok {
			flush()
			continue
		}
		upper = append(upper, plotter.XY{X: p.Size, Y: hi})
		lower = append(lower, plotter.XY{X: p.Size, Y: lo})
		ymin = math.Min(ymin, lo)
	}
	flush()
	return ymin
}

// stabilityLines draws a rule's mean, one segment per run of defined
// means (with points when few or alone), adds its legend entry (name), and
// returns the lowest mean (1 without one).
func stabilityLines(plt *plot.Plot, c *leaderboard.StabilityCurve, name string, k int, few bool) (float64, error) {
	col := Colour(k)
	ymin := 1.0
	var seg plotter.XYs
	var legend stabilityLegend
	emit := func() error {
		if len(seg) == 0 {
			return nil
		}
		l, sc, err := plotter.NewLinePoints(seg)
		if err != nil {
			return err
		}
		l.Color = col
		l.Width = vg.Points(1.5)
		l.Dashes = Dashes(k)
		plt.Add(l)
		if few || len(seg) == 1 {
			sc.GlyphStyle.Color = col
			sc.GlyphStyle.Radius = vg.Points(2.5)
			sc.GlyphStyle.Shape = draw.CircleGlyph{}
			plt.Add(sc)
			legend.scatter = sc
		}
		legend.line = l
		seg = nil
		return nil
	}
	for _, p := range c.Points {
		m := float64(p.Mean)
		if !analyses.Finite(m) {
			if err := emit(); err != nil {
				return 0, err
			}
			continue
		}
		seg = append(seg, plotter.XY{X: p.Size, Y: m})
		ymin = math.Min(ymin, m)
	}
	if err := emit(); err != nil {
		return 0, err
	}
	if legend.line != nil {
		if legend.scatter != nil {
			plt.Legend.Add(name, legend.line, legend.scatter)
		} else {
			plt.Legend.Add(name, legend.line)
		}
	}
	return ymin, nil
}

// stabilityLegend remembers what a rule's legend entry shows.
type stabilityLegend struct {
	line    *plotter.Line
	scatter *plotter.Scatter
}

func reverseXYs(x plotter.XYs) plotter.XYs {
	out := make(plotter.XYs, len(x))
	for i, p := range x {
		out[len(x)-1-i] = p
	}
	return out
}

func stabilityCaption(r *leaderboard.StabilityResult, pert string) string {
	band := " Bands: mean ± 1.96·sd/√count."
	switch pert {
	case leaderboard.PerturbDropDatasets:
		return fmt.Sprintf("Spearman ρ between each rule's ranking on all %d datasets and its ranking after removing datasets (every subset when there are at most %d, else %d drawn at random), after Shevchenko et al. (2024, Fig. 5).%s",
			len(r.Datasets), r.Repeats, r.Repeats, band)
	case leaderboard.PerturbDropMethods:
		return fmt.Sprintf("Spearman ρ between each rule's ranking of the kept methods on all data and its ranking after removing methods (every subset when there are at most %d, else %d drawn at random), after Shevchenko et al. (2024, Fig. 6).%s",
			r.Repeats, r.Repeats, band)
	case leaderboard.PerturbSimilarMethod:
		return "Spearman ρ with the reference ranking after adding a copy of one method scaled by α (capped at the metric's maximum) and dropping it before comparing; mean over the method copied, after Shevchenko et al. (2024, Fig. 9a)." + band
	case leaderboard.PerturbBestMethod:
		return "Spearman ρ with the reference ranking after adding a method that scores α times the best value on every dataset (capped at the metric's maximum), dropped before comparing, after Shevchenko et al. (2024, Fig. 9b). One comparison per α, so no band; missing points: the rule gives every original method the same score (ρ undefined)."
	case leaderboard.PerturbBeta:
		return fmt.Sprintf("Spearman ρ between the DM rankings with β̂ on the x axis and with β̂ = %g (dotted line), after Shevchenko et al. (2024, Fig. 9c).", r.BetaMax)
	case leaderboard.PerturbSubsetPairs:
		return fmt.Sprintf("Mean Spearman ρ between the rankings of two disjoint random subsets of datasets (%d pairs, or all of them when fewer), the reliability rows of Table 3 of Shevchenko et al. (2024).%s", r.Repeats, band)
	}
	return ""
}

// stabilityChart is the interactive version: a line per rule, and its band
// drawn as two stacked series of the same name, so clicking the rule in
// the legend hides both.
func stabilityChart(r *leaderboard.StabilityResult, pert string, curves []*leaderboard.StabilityCurve, colourOf map[string]int, few bool, ymin float64) ([]byte, error) {
	var series []any
	var legend []string
	for _, c := range curves {
		hex := Hex(colourOf[c.Rule])
		name := r.Naming.Rule(c.Rule)
		legend = append(legend, name)
		line := make([]any, len(c.Points))
		lo := make([]any, len(c.Points))
		width := make([]any, len(c.Points))
		hasBand := false
		for i, p := range c.Points {
			line[i] = map[string]any{
				"value": []any{p.Size, JSONFloat(float64(p.Mean))},
				"sd":    JSONFloat(float64(p.SD)), "count": p.Count, "undefined": p.Undefined,
			}
			l, h, ok := stabilityBand(p)
			if ok {
				hasBand = true
				lo[i] = []any{p.Size, l}
				width[i] = []any{p.Size, h - l}
			} else {
				lo[i] = []any{p.Size, nil}
				width[i] = []any{p.Size, nil}
			}
		}
		if hasBand {
			stack := "band-" + c.Rule
			series = append(series,
				map[string]any{"name": name, "type": "line", "data": lo, "stack": stack, "symbol": "none",
					"lineStyle": map[string]any{"opacity": 0}, "silent": true, "tooltip": map[string]any{"show": false},
					"itemStyle": map[string]any{"color": hex}},
				map[string]any{"name": name, "type": "line", "data": width, "stack": stack, "symbol": "none",
					"lineStyle": map[string]any{"opacity": 0}, "silent": true, "tooltip": map[string]any{"show": false},
					"areaStyle": map[string]any{"color": hex, "opacity": 0.18}, "itemStyle": map[string]any{"color": hex}},
			)
		}
		series = append(series, map[string]any{
			"name": name, "type": "line", "data": line, "showSymbol": few, "symbolSize": 5,
			"lineStyle": map[string]any{"color": hex, "width": 2, "type": LineType(colourOf[c.Rule])}, "itemStyle": map[string]any{"color": hex},
		})
	}
	xAxis := map[string]any{"type": "value", "name": stabilityAxis[pert][1], "nameLocation": "middle", "nameGap": 28, "scale": true}
	option := map[string]any{
		"tooltip": map[string]any{"trigger": "axis"},
		"legend":  map[string]any{"data": legend, "type": "scroll", "bottom": 0},
		"grid":    map[string]any{"bottom": 80, "left": 60, "right": 30},
		"xAxis":   xAxis,
		"yAxis":   map[string]any{"type": "value", "name": "Spearman ρ", "min": ymin, "max": 1},
		"series":  series,
	}
	if pert == leaderboard.PerturbBeta {
		// A dotted mark at the reference β̂, on the last line series.
		last := series[len(series)-1].(map[string]any)
		last["markLine"] = map[string]any{"silent": true, "symbol": "none",
			"lineStyle": map[string]any{"type": "dotted", "color": "#555555"},
			"data":      []any{map[string]any{"xAxis": r.BetaMax}}}
	}
	return ChartJSON(option)
}
