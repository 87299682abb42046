package figures

// The bubble plot of a meta-regression on one numeric moderator, laid out
// as metafor's regplot(): each dataset's effect against its moderator
// value, the point's area growing with its weight in the model, the
// fitted line with its confidence band, and the line of no effect.

import (
	"fmt"
	"math"
	"strconv"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/meta"
)

// MetaBubble draws the bubble plot <id>-bubble, or returns false when the
// result has no meta-regression on a single numeric moderator.
func MetaBubble(id, title string, r *meta.Result) (Figure, bool, error) {
	s := BubbleSpec(r)
	if s == nil {
		return Figure{}, false, nil
	}
	f, err := FigureOf(s, id+"-bubble", "Bubble plot: "+title, 460)
	return f, err == nil, err
}

// BubbleSpec is the bubble plot's spec (nil without a single numeric
// moderator): the confidence band, the fitted line and the datasets'
// points (radius ∝ √weight, so the area grows with the weight).
func BubbleSpec(r *meta.Result) *Spec {
	if r.Moderators == nil || r.Moderators.Bubble == nil {
		return nil
	}
	b := r.Moderators.Bubble
	lvl := strconv.FormatFloat(100*(1-r.Alpha), 'f', -1, 64)
	band := Mark{Kind: MarkArea, Series: lvl + "% confidence band", Style: Style{Colour: Palette[0]}, Opacity: 0.2}
	line := Mark{Kind: MarkLine, Series: "fitted", Style: Style{Colour: Palette[0], Dash: Solid}, Size: 1.4}
	for _, f := range b.Line {
		band.X, band.Y, band.Y2 = append(band.X, f.X), append(band.Y, f.CILow), append(band.Y2, f.CIHigh)
		line.X, line.Y = append(line.X, f.X), append(line.Y, f.Pred)
	}
	pts := Mark{Kind: MarkPoints, Series: "datasets", Style: Style{Colour: Palette[4], Symbol: Circle}}
	maxW := 0.0
	for _, p := range b.Points {
		maxW = math.Max(maxW, p.Weight)
	}
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, p := range b.Points {
		pts.X, pts.Y = append(pts.X, p.X), append(pts.Y, p.Y)
		pts.Sizes = append(pts.Sizes, math.Max(2, 9*math.Sqrt(p.Weight/maxW)))
		pts.Names = append(pts.Names, fmt.Sprintf("%s: %s %g, effect %s, weight %.*f%%", r.Naming.Dataset(p.Dataset), b.Moderator, p.X, fmtSigned(p.Y, r.Decimals()), analyses.PercentDecimals, 100*p.Weight))
		ylo, yhi = math.Min(ylo, p.Y), math.Max(yhi, p.Y)
	}
	for i := range band.X {
		ylo, yhi = math.Min(ylo, band.Y[i]), math.Max(yhi, band.Y2[i])
	}
	// every point inside the frame, its bubble whole
	xlo, xhi := b.Line[0].X, b.Line[len(b.Line)-1].X
	xpad, ypad := 0.05*(xhi-xlo), 0.05*(yhi-ylo)
	pn := Panel{X: NewAxis(b.Moderator).Fixed(xlo-xpad, xhi+xpad), Y: NewAxis(effectAxis(r)).Fixed(ylo-ypad, yhi+ypad)}
	pn.Marks = []Mark{band, line}
	if ylo < 0 && yhi > 0 {
		xs := []float64{b.Line[0].X, b.Line[len(b.Line)-1].X}
		pn.Marks = append(pn.Marks, Mark{Kind: MarkRefLine, Series: "no effect", Style: noEffectStyle, X: xs, Y: []float64{0, 0}, Size: 0.8})
	}
	pn.Marks = append(pn.Marks, pts)
	return &Spec{Panels: []Panel{pn}, Legend: LegendBelow, Width: 6.5, Height: 4.6,
		Subject: fmt.Sprintf("bubble plot of %s against %s over %d datasets", r.EffectLabel(), b.Moderator, len(b.Points)),
		Caption: bubbleCaption(r, lvl)}
}

// bubbleCaption is the bubble plot's caption, with the slope and its test.
func bubbleCaption(r *meta.Result, lvl string) string {
	m := r.Moderators
	b := m.Bubble
	caption := fmt.Sprintf("Bubble plot: the %s of each of %d datasets against %s, the area of a point growing with its weight in the meta-regression; the line is the fitted %s with its %s%% confidence band (metafor's regplot()).",
		r.EffectLabel(), len(b.Points), b.Moderator, lowerFirst(forestModel(r)), lvl)
	if len(m.Terms) == 2 {
		s := m.Terms[1]
		caption += fmt.Sprintf(" Slope %s, %s.", analyses.FormatInterval(s.Estimate, s.CILow, s.CIHigh, m.Decimals()), pClause(s.P))
	}
	if r.Model == "random" {
		caption += " Residual τ² = " + analyses.ValueText(m.Tau2) + "." // as the moderator tests' table
	}
	return caption
}
