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

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/figures/model"
)

// MetaFunnel draws the funnel plot, or returns false when the result has
// no sensitivity analysis.
func MetaFunnel(id, title string, r *meta.Result) (Figure, bool, error) {
	if !r.Sensitivity || r.Funnel == nil {
		return Figure{}, false, nil
	}
	s := FunnelSpec(r)
	if s == nil {
		return Figure{}, false, nil
	}
	f, err := FigureOf(s, id+"-funnel", "Funnel plot: "+title, 460)
	return f, err == nil, err
}

// FunnelSpec is the funnel plot's spec (nil when no dataset has a
// standard error): the standard error grows downwards from 0 at the top.
func FunnelSpec(r *meta.Result) *Spec {
	plain, flagged, names, seMin, seMax := funnelPoints(r)
	if seMax == 0 {
		return nil
	}
	// a little room under the largest SE, ending at a round number (the
	// axis's last label reads 0.06, not 0.0560505)
	if tf := trimFilled(r); tf != nil {
		for _, v := range tf.FilledVi {
			seMax = math.Max(seMax, math.Sqrt(v))
		}
	}
	_, top := model.RoundRange(0, seMax*1.08)
	ref, crit := r.Funnel.Ref, r.Funnel.Crit
	lvl := strconv.FormatFloat(100*(1-r.Alpha), 'f', -1, 64)
	region := lvl + "% pseudo-confidence region"
	grey := Style{Colour: color.NRGBA{0x55, 0x55, 0x55, 0xFF}, Dash: Dashed}
	rx := []float64{ref - crit*top, ref, ref + crit*top}
	pn := Panel{X: NewAxis(effectAxis(r)), Y: NewAxis("standard error").Fixed(0, top)}
	pn.Y.Inverse = true
	pn.Marks = []Mark{
		{Kind: MarkArea, Series: region, Style: Style{Colour: color.NRGBA{0x80, 0x80, 0x80, 0xFF}}, Opacity: 0.15, X: rx, Y: []float64{top, 0, top}, Y2: []float64{top, top, top}},
		{Kind: MarkLine, Series: region, Style: grey, X: rx, Y: []float64{top, 0, top}, Size: 0.9},
		{Kind: MarkRefLine, Series: "summary effect", Style: Style{Colour: color.NRGBA{0, 0, 0, 0xFF}, Dash: Solid}, X: []float64{ref, ref}, Y: []float64{0, top}},
	}
	xlo, xhi := rx[0], rx[2]
	for _, x := range append(append([]float64(nil), plain.X...), flagged.X...) {
		xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
	}
	noEffect := xlo < 0 && xhi > 0
	if noEffect {
		pn.Marks = append(pn.Marks, Mark{Kind: MarkRefLine, Series: "no effect", Style: noEffectStyle, X: []float64{0, 0}, Y: []float64{0, top}, Size: 0.8})
	}
	hasEgger := false
	if e := r.Egger; e != nil && e.Limit != nil && e.Slope != nil && e.P != nil {
		hasEgger = true
		ex := []float64{*e.Limit + *e.Slope*seMin, *e.Limit + *e.Slope*seMax}
		xlo, xhi = math.Min(xlo, math.Min(ex[0], ex[1])), math.Max(xhi, math.Max(ex[0], ex[1]))
		pn.Marks = append(pn.Marks, Mark{Kind: MarkLine, Series: "Egger's regression", Style: Style{Colour: Palette[5], Dash: Dashed},
			X: ex, Y: []float64{seMin, seMax}, Size: 1.3})
	}
	filled := funnelFilled(r, top)
	for _, m := range filled {
		for _, x := range m.X {
			xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
		}
	}
	pn.Marks = append(pn.Marks, filled...)
	if len(plain.X) > 0 {
		pn.Marks = append(pn.Marks, plain)
	}
	if len(flagged.X) > 0 {
		pn.Marks = append(pn.Marks, flagged)
	}
	// every point inside the frame (the backends label only round
	// ticks, never these ends)
	pad := 0.04 * (xhi - xlo)
	pn.X = pn.X.Fixed(xlo-pad, xhi+pad)
	return &Spec{Panels: []Panel{pn}, Legend: LegendBelow, Width: 6.5, Height: 4.6,
		Subject: fmt.Sprintf("funnel plot of %d datasets", r.Summary.K),
		Caption: funnelCaption(r, crit, lvl, hasEgger, noEffect, names)}
}

// funnelPoints are the funnel's datasets, plain and (flagged) influential
// with the names of the latter, and the least and largest standard error.
func funnelPoints(r *meta.Result) (plain, flagged Mark, names []string, seMin, seMax float64) {
	infl := map[string]bool{}
	for _, m := range r.Influence {
		infl[m.Dataset] = m.Influential
	}
	plain = Mark{Kind: MarkPoints, Series: "datasets", Style: Style{Colour: Palette[4], Symbol: Circle}, Size: 2.6}
	flagged = Mark{Kind: MarkPoints, Series: "influential", Style: Style{Colour: Palette[5], Symbol: Triangle}, Size: 3.4}
	seMin, seMax = math.Inf(1), 0.0
	d := r.Decimals() // as the tables and the forest plot print them
	for _, row := range r.Rows {
		if !row.Included {
			continue
		}
		seMax = math.Max(seMax, row.SE)
		seMin = math.Min(seMin, row.SE)
		m := &plain
		if infl[row.Dataset] {
			m = &flagged
			names = append(names, r.Naming.Dataset(row.Dataset))
		}
		m.X = append(m.X, row.Effect)
		m.Y = append(m.Y, row.SE)
		m.Names = append(m.Names, fmt.Sprintf("%s: effect %s, SE %s, weight %.*f%%", r.Naming.Dataset(row.Dataset), fmtSigned(row.Effect, d), fmtSigned(row.SE, d), analyses.PercentDecimals, 100*row.Weight))
	}
	return plain, flagged, names, seMin, seMax
}

// trimFilled is the result's trim and fill when it filled studies.
func trimFilled(r *meta.Result) *meta.TrimFillSummary {
	if r.PubBias == nil || r.PubBias.TrimFill == nil || r.PubBias.TrimFill.K0 == 0 {
		return nil
	}
	return r.PubBias.TrimFill
}

// funnelFilled are the funnel's marks of trim and fill (metafor's
// funnel(trimfill(…))): the filled studies as hollow rings at (yᵢ, √vᵢ)
// and the adjusted summary as a dashed vertical line; none when trim and
// fill filled no study.
func funnelFilled(r *meta.Result, top float64) []Mark {
	tf := trimFilled(r)
	if tf == nil {
		return nil
	}
	pts := Mark{Kind: MarkPoints, Series: "filled (trim and fill)", Style: Style{Colour: Palette[1], Symbol: Ring}, Size: 3}
	for i, y := range tf.FilledYi {
		se := math.Sqrt(tf.FilledVi[i])
		pts.X, pts.Y = append(pts.X, y), append(pts.Y, se)
		pts.Names = append(pts.Names, fmt.Sprintf("filled study %d of %d: effect %s, SE %s", i+1, len(tf.FilledYi), fmtSigned(y, r.Decimals()), fmtSigned(se, r.Decimals())))
	}
	ref := Mark{Kind: MarkRefLine, Series: "trim-and-fill summary", Style: Style{Colour: Palette[1], Dash: Dashed}, X: []float64{tf.Effect, tf.Effect}, Y: []float64{0, top}, Size: 1}
	return []Mark{ref, pts}
}

// funnelCaption is the funnel plot's caption.
func funnelCaption(r *meta.Result, crit float64, lvl string, hasEgger, noEffect bool, names []string) string {
	model := "random-effects model (" + r.Tau2Method + ")"
	if r.Model == "fixed" {
		model = "fixed-effect model"
	}
	caption := fmt.Sprintf("Funnel plot: the %s of each of %d datasets against its standard error (0 at the top); the vertical line is the summary effect of the %s, the shaded region bounded by dashed lines its %s%% pseudo-confidence region summary ± %.2f·SE (metafor's funnel()).",
		r.EffectLabel(), r.Summary.K, model, lvl, crit)
	if noEffect {
		caption = strings.TrimSuffix(caption, ".") + "; the dotted line marks no effect."
	}
	if hasEgger {
		e := r.Egger
		stat := "z"
		if r.Test == "knha" {
			stat = fmt.Sprintf("t(%d)", e.DF)
		}
		// the statistic and p as the publication-bias table prints them
		caption += fmt.Sprintf(" The coloured dashed line is Egger's regression of the effect on its standard error (%s = %s, %s", stat, analyses.ValueText(*e.Z), pClause(*e.P))
		if *e.P < meta.EggerThreshold {
			caption += fmt.Sprintf(": asymmetry at p < %g", meta.EggerThreshold)
		}
		caption += ")."
	}
	if tf := trimFilled(r); tf != nil {
		caption += fmt.Sprintf(" Hollow rings are the %d studies trim and fill (L0) adds on the %s side, the coloured dashed vertical line its adjusted summary %s.", tf.K0, tf.Side, r.Interval(tf.Effect, tf.CILow, tf.CIHigh))
	}
	if len(names) > 0 {
		caption += fmt.Sprintf(" Ochre triangles mark the %s by metafor's criteria (%s).", analyses.Count(len(names), "influential dataset", "influential datasets"), strings.Join(names, ", "))
	}
	return caption
}
