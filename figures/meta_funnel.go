package figures

// The funnel plot of a meta-analysis with sensitivity = true, laid out as
// metafor's funnel(): each dataset's effect against its standard error
// (0 at the top), the summary effect as a vertical line and the
// pseudo-confidence region summary ± z·SE as a shaded triangle; with
// Egger's regression test the fitted line effect = b0 + b1·SE, and the
// datasets metafor's influence() flags as influential are marked.

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/evalbook/evalbook/analyses/meta"
)

// funnelTicks labels a negated axis with absolute values, so that the
// standard error grows downwards as in metafor's funnel().
type funnelTicks struct{}

func (funnelTicks) Ticks(min, max float64) []plot.Tick {
	t := plot.DefaultTicks{}.Ticks(min, max)
	for i := range t {
		if t[i].Label != "" {
			t[i].Label = strconv.FormatFloat(math.Abs(t[i].Value), 'g', 4, 64)
		}
	}
	return t
}

// MetaFunnel draws the funnel plot, or returns false when the result has
// no sensitivity analysis.
func MetaFunnel(id, title string, r *meta.Result) (Figure, bool, error) {
	if !r.Sensitivity || r.Funnel == nil {
		return Figure{}, false, nil
	}
	infl := map[string]bool{}
	for _, m := range r.Influence {
		infl[m.Dataset] = m.Influential
	}
	pts := funnelCollect(r, infl)
	if pts.seMax == 0 {
		return Figure{}, false, nil
	}
	// a little room under the largest SE, ending at a round number (the
	// axis's last label reads 0.06, not 0.0560505)
	_, pts.seMax = roundRange(0, pts.seMax*1.08)
	ref, crit := r.Funnel.Ref, r.Funnel.Crit
	lvl := strconv.FormatFloat(100*(1-r.Alpha), 'f', -1, 64)

	p, line, err := funnelPlot(r, pts)
	if err != nil {
		return Figure{}, false, err
	}
	drw := PlotDrawing(p, 6.5*vg.Inch, 4.6*vg.Inch)
	svg, err := drw.SVG()
	if err != nil {
		return Figure{}, false, err
	}
	chart, err := funnelChart(r, ref, crit, pts.seMax, infl, line, lvl)
	if err != nil {
		return Figure{}, false, err
	}
	caption := funnelCaption(r, crit, lvl, line != nil, pts.names)
	return Figure{ID: id + "-funnel", Title: "Funnel plot: " + title, Caption: caption, SVG: svg, Drawing: &drw, Chart: chart, Height: 460}, true, nil
}

// funnelPoints are the funnel's datasets: effect against −SE, the
// influential ones apart, with the range of the standard errors.
type funnelPoints struct {
	pts, flagged plotter.XYs
	names        []string
	seMin, seMax float64
}

// funnelCollect gathers the included datasets of the funnel.
func funnelCollect(r *meta.Result, infl map[string]bool) funnelPoints {
	fp := funnelPoints{seMin: math.Inf(1)}
	for _, row := range r.Rows {
		if !row.Included {
			continue
		}
		fp.seMax = math.Max(fp.seMax, row.SE)
		fp.seMin = math.Min(fp.seMin, row.SE)
		xy := plotter.XY{X: row.Effect, Y: -row.SE}
		if infl[row.Dataset] {
			fp.flagged = append(fp.flagged, xy)
			fp.names = append(fp.names, r.Naming.Dataset(row.Dataset))
		} else {
			fp.pts = append(fp.pts, xy)
		}
	}
	return fp
}

// funnelPlot is the static funnel: the pseudo-confidence region, the
// summary and no-effect lines, Egger's line (returned, nil without one)
// and the datasets.
func funnelPlot(r *meta.Result, fp funnelPoints) (*plot.Plot, plotter.XYs, error) {
	seMax := fp.seMax
	ref, crit := r.Funnel.Ref, r.Funnel.Crit
	p := NewPlot("", effectAxis(r), "standard error")
	p.Y.Tick.Marker = funnelTicks{}
	p.Y.Min, p.Y.Max = -seMax, 0
	// No legend, as metafor's funnel(): the points near the top spread
	// widely under heterogeneity and a legend would hide them; the
	// caption names every element.
	region := plotter.XYs{{X: ref - crit*seMax, Y: -seMax}, {X: ref, Y: 0}, {X: ref + crit*seMax, Y: -seMax}}
	poly, err := plotter.NewPolygon(region)
	if err != nil {
		return nil, nil, fmt.Errorf("funnel: %w", err)
	}
	poly.Color = color.Gray{0xEC}
	poly.LineStyle.Width = 0
	p.Add(poly)
	dashed := []vg.Length{vg.Points(4), vg.Points(3)}
	if err := funnelLine(p, region, color.Gray{0x55}, dashed, 0.9); err != nil {
		return nil, nil, err
	}
	if err := funnelLine(p, plotter.XYs{{X: ref, Y: 0}, {X: ref, Y: -seMax}}, color.Black, nil, 1); err != nil {
		return nil, nil, err
	}
	xlo, xhi := ref-crit*seMax, ref+crit*seMax
	for _, xy := range append(append(plotter.XYs{}, fp.pts...), fp.flagged...) {
		xlo, xhi = math.Min(xlo, xy.X), math.Max(xhi, xy.X)
	}
	if xlo < 0 && xhi > 0 {
		if err := funnelLine(p, plotter.XYs{{X: 0, Y: 0}, {X: 0, Y: -seMax}}, color.Gray{0x88}, []vg.Length{vg.Points(1), vg.Points(2.5)}, 0.8); err != nil {
			return nil, nil, err
		}
	}
	line := funnelEggerLine(r, fp)
	if line != nil {
		for _, xy := range line {
			xlo, xhi = math.Min(xlo, xy.X), math.Max(xhi, xy.X)
		}
		if err := funnelLine(p, line, Colour(5), []vg.Length{vg.Points(6), vg.Points(2)}, 1.3); err != nil {
			return nil, nil, err
		}
	}
	if err := funnelScatter(p, fp.pts, draw.GlyphStyle{Color: Colour(4), Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}); err != nil {
		return nil, nil, err
	}
	if err := funnelScatter(p, fp.flagged, draw.GlyphStyle{Color: Colour(5), Radius: vg.Points(3.4), Shape: draw.PyramidGlyph{}}); err != nil {
		return nil, nil, err
	}
	pad := 0.04 * (xhi - xlo)
	p.X.Min, p.X.Max = xlo-pad, xhi+pad
	return p, line, nil
}

// funnelEggerLine is Egger's fitted line over the observed standard
// errors, nil when the result has no Egger test.
func funnelEggerLine(r *meta.Result, fp funnelPoints) plotter.XYs {
	e := r.Egger
	if e == nil || e.Limit == nil || e.Slope == nil || e.P == nil {
		return nil
	}
	seMin, seMax := fp.seMin, fp.seMax
	return plotter.XYs{{X: *e.Limit + *e.Slope*seMin, Y: -seMin}, {X: *e.Limit + *e.Slope*seMax/1.08, Y: -seMax / 1.08}}
}

// funnelLine adds a line of the given colour, dashes and width.
func funnelLine(p *plot.Plot, xy plotter.XYs, col color.Color, dashes []vg.Length, width float64) error {
	l, err := plotter.NewLine(xy)
	if err != nil {
		return fmt.Errorf("funnel: %w", err)
	}
	l.Color, l.Dashes, l.Width = col, dashes, vg.Points(width)
	p.Add(l)
	return nil
}

// funnelScatter adds points in a glyph style (nothing when there are
// none).
func funnelScatter(p *plot.Plot, xy plotter.XYs, g draw.GlyphStyle) error {
	if len(xy) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(xy)
	if err != nil {
		return fmt.Errorf("funnel: %w", err)
	}
	s.GlyphStyle = g
	p.Add(s)
	return nil
}

// funnelCaption is the funnel plot's caption.
func funnelCaption(r *meta.Result, crit float64, lvl string, hasEgger bool, names []string) string {
	model := "random-effects model (" + r.Tau2Method + ")"
	if r.Model == "fixed" {
		model = "fixed-effect model"
	}
	caption := fmt.Sprintf("Funnel plot: the %s of each of %d datasets against its standard error (0 at the top); the vertical line is the summary effect of the %s, the shaded triangle bounded by dashed lines its %s%% pseudo-confidence region summary ± %.2f·SE (metafor's funnel()); the dotted line marks no effect.",
		r.EffectLabel(), r.Summary.K, model, lvl, crit)
	if hasEgger {
		e := r.Egger
		stat := "z"
		if r.Test == "knha" {
			stat = fmt.Sprintf("t(%d)", e.DF)
		}
		caption += fmt.Sprintf(" The coloured dashed line is Egger's regression of the effect on its standard error (%s = %.2f, %s", stat, *e.Z, pClause(*e.P))
		if *e.P < meta.EggerThreshold {
			caption += fmt.Sprintf(": asymmetry at p < %g", meta.EggerThreshold)
		}
		caption += ")."
	}
	if len(names) > 0 {
		caption += fmt.Sprintf(" Ochre triangles mark the %d influential dataset(s) by metafor's criteria (%s).", len(names), strings.Join(names, ", "))
	}
	return caption
}

// funnelChart is the interactive funnel: the y axis (standard error) runs
// downwards, tooltips name each dataset with its effect, SE and weight.
func funnelChart(r *meta.Result, ref, crit, seMax float64, infl map[string]bool, egger plotter.XYs, lvl string) ([]byte, error) {
	var plain, flagged []any
	for _, row := range r.Rows {
		if !row.Included {
			continue
		}
		tip := fmt.Sprintf("%s: effect %.4g, SE %.4g, weight %.1f%%", r.Naming.Dataset(row.Dataset), row.Effect, row.SE, 100*row.Weight)
		d := map[string]any{"name": tip, "value": []any{JSONFloat(row.Effect), JSONFloat(row.SE)}}
		if infl[row.Dataset] {
			flagged = append(flagged, d)
		} else {
			plain = append(plain, d)
		}
	}
	pt := func(x, y float64) []any { return []any{JSONFloat(x), JSONFloat(y)} }
	series := []any{
		map[string]any{"type": "line", "name": lvl + "% pseudo-confidence region", "silent": true, "symbol": "none",
			"data":      []any{pt(ref-crit*seMax, seMax), pt(ref, 0), pt(ref+crit*seMax, seMax)},
			"lineStyle": map[string]any{"color": "#555555", "type": "dashed", "width": 1},
			"areaStyle": map[string]any{"color": "rgba(128,128,128,0.12)", "origin": "end"}},
		map[string]any{"type": "line", "name": "summary effect", "silent": true, "symbol": "none",
			"data": []any{pt(ref, 0), pt(ref, seMax)}, "lineStyle": map[string]any{"color": "#000000", "width": 1.2}},
		map[string]any{"type": "scatter", "name": "datasets", "data": plain, "symbolSize": 7, "itemStyle": map[string]any{"color": Hex(4)}},
	}
	if len(flagged) > 0 {
		series = append(series, map[string]any{"type": "scatter", "name": "influential", "data": flagged, "symbol": "triangle",
			"symbolSize": 10, "itemStyle": map[string]any{"color": Hex(5)}})
	}
	if egger != nil {
		series = append(series, map[string]any{"type": "line", "name": "Egger's regression", "silent": true, "symbol": "none",
			"data":      []any{pt(egger[0].X, -egger[0].Y), pt(egger[1].X, -egger[1].Y)},
			"lineStyle": map[string]any{"color": Hex(5), "type": "dashed", "width": 1.5}})
	}
	option := map[string]any{
		"tooltip": map[string]any{"show": true, "trigger": "item", "formatter": "{b}"},
		"legend":  map[string]any{"show": true, "bottom": 0},
		"grid":    map[string]any{"left": 70, "right": 30, "top": 20, "bottom": 80},
		"xAxis":   map[string]any{"type": "value", "scale": true, "name": r.EffectLabel(), "nameLocation": "middle", "nameGap": 28},
		"yAxis": map[string]any{"type": "value", "inverse": true, "min": 0, "max": JSONFloat(seMax), "name": "standard error",
			"nameLocation": "middle", "nameGap": 50},
		"series": series,
	}
	return ChartJSON(option)
}
