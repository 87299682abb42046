package figures

// The contour-enhanced funnel plot (Peters et al. 2008) of a
// meta-analysis with sensitivity = true, as metafor's funnel(res, level =
// c(90, 95, 99), shade = …, refline = 0): the funnel's points over shaded
// regions of statistical significance around no effect, so that missing
// studies in the regions of non-significance point to publication bias
// rather than to another cause of asymmetry.

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/figures/model"
)

// contourShades are the fills of the regions between the contours, from
// the outermost (p between 0.01 and 0.05) inwards; the innermost (p above
// the largest contour's) is left white, as metafor's example shades it.
var contourShades = []color.NRGBA{{0xBF, 0xBF, 0xBF, 0xFF}, {0x8C, 0x8C, 0x8C, 0xFF}, {0xFF, 0xFF, 0xFF, 0xFF}}

// MetaFunnelContour draws the contour-enhanced funnel plot
// <id>-funnel-contour, or returns false without a sensitivity analysis.
func MetaFunnelContour(id, title string, r *meta.Result) (Figure, bool, error) {
	s := ContourFunnelSpec(r)
	if s == nil {
		return Figure{}, false, nil
	}
	f, err := FigureOf(s, id+"-funnel-contour", "Contour-enhanced funnel plot: "+title, 460)
	return f, err == nil, err
}

// ContourFunnelSpec is the contour-enhanced funnel's spec (nil without a
// funnel): per contour, from the widest (smallest p) inwards, the region
// |effect| ≤ Z·SE filled, each inner one over the outer, so that each band
// between two contours shows its range of p; the datasets' points over
// them and the line of no effect.
func ContourFunnelSpec(r *meta.Result) *Spec {
	if !r.Sensitivity || r.Funnel == nil || len(r.Funnel.Contours) != len(contourShades) {
		return nil
	}
	plain, flagged, _, _, seMax := funnelPoints(r)
	if seMax == 0 {
		return nil
	}
	_, top := model.RoundRange(0, seMax*1.08)
	cs := r.Funnel.Contours
	pn := Panel{X: NewAxis(effectAxis(r)), Y: NewAxis("standard error").Fixed(0, top)}
	pn.Y.Inverse = true
	for i := len(cs) - 1; i >= 0; i-- {
		x := cs[i].Z * top
		pn.Marks = append(pn.Marks, Mark{Kind: MarkArea, Series: contourSeries(cs, i), Style: Style{Colour: contourShades[len(cs)-1-i]}, Opacity: 1,
			X: []float64{-x, 0, x}, Y: []float64{top, 0, top}, Y2: []float64{top, top, top}})
	}
	pn.Marks = append(pn.Marks, Mark{Kind: MarkRefLine, Series: "no effect", Style: noEffectStyle, X: []float64{0, 0}, Y: []float64{0, top}, Size: 0.8})
	xlo, xhi := -cs[len(cs)-1].Z*top, cs[len(cs)-1].Z*top
	for _, m := range []Mark{plain, flagged} {
		if len(m.X) > 0 {
			pn.Marks = append(pn.Marks, m)
		}
		for _, x := range m.X {
			xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
		}
	}
	pad := 0.04 * (xhi - xlo)
	pn.X = pn.X.Fixed(xlo-pad, xhi+pad)
	return &Spec{Panels: []Panel{pn}, Legend: LegendBelow, Width: 6.5, Height: 4.6,
		Subject: fmt.Sprintf("contour-enhanced funnel plot of %d datasets", r.Summary.K),
		Caption: fmt.Sprintf("Contour-enhanced funnel plot (Peters et al. 2008): the %s of each of %d datasets against its standard error (0 at the top), over the regions where a two-sided z-test of the effect alone has p > %s (white), %s to %s (dark grey) and %s to %s (light grey); outside them p < %s. The dotted line marks no effect (metafor's funnel(level = c(90, 95, 99), refline = 0)).",
			r.EffectLabel(), r.Summary.K, fmtLevel(cs[0].P), fmtLevel(cs[1].P), fmtLevel(cs[0].P), fmtLevel(cs[2].P), fmtLevel(cs[1].P), fmtLevel(cs[2].P))}
}

// contourSeries names the band inside contour i and outside contour i + 1
// (the innermost: p above contour 0's).
func contourSeries(cs []meta.FunnelContour, i int) string {
	if i == 0 {
		return "p > " + fmtLevel(cs[0].P)
	}
	return fmtLevel(cs[i].P) + " < p ≤ " + fmtLevel(cs[i-1].P)
}

// fmtLevel prints a p level as written (0.1, 0.05, 0.01).
func fmtLevel(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }
