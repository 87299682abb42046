package model

// The figure specs of a stability analysis. Shevchenko et al. (2024) show
// stability as one panel per perturbation (Figs 5, 6, 9a–c): mean
// Spearman ρ against the reference ranking, one line per aggregation rule
// with its confidence band. The interactive version lets a reader toggle
// rules, which matters with eleven overlapping lines.

import (
	"fmt"
	"image/color"
	"math"
	"strings"

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

// StabilityTitle is a perturbation's figure title ("Removing datasets").
func StabilityTitle(pert string) string { return stabilityAxis[pert][0] }

// StabilityFigureID is the id of a perturbation's figure of analysis id.
func StabilityFigureID(id, pert string) string { return id + "-" + strings.ReplaceAll(pert, "_", "-") }

// StabilityChartHeight is a stability figure's chart height in CSS
// pixels (before its legend's rows).
const StabilityChartHeight = 440

// StabilityCurves are the curves a perturbation's figure draws: each
// rule's, in the result's order of rules, that has a point; none when no
// rule has one (the figure is left out).
func StabilityCurves(r *leaderboard.StabilityResult, pert string) []*leaderboard.StabilityCurve {
	var curves []*leaderboard.StabilityCurve
	for _, rule := range r.Rules {
		if c := r.Curve(pert, rule); c != nil && len(c.Points) > 0 {
			curves = append(curves, c)
		}
	}
	return curves
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

// StabilitySpec is one perturbation's figure: per rule (in the rule's
// study-wide style) its mean ρ as a line, with points where there are
// few sizes or a run of one, and its band.
func StabilitySpec(r *leaderboard.StabilityResult, pert string, curves []*leaderboard.StabilityCurve) *Spec {
	styles := StylesOf(r.Naming)
	few := len(curves[0].Points) <= 12
	ylabel := "Spearman ρ with the reference ranking"
	if pert == leaderboard.PerturbSubsetPairs {
		ylabel = "Spearman ρ between the two subsets' rankings"
	}
	pn := Panel{X: NewAxis(stabilityAxis[pert][1]), Y: NewAxis(ylabel)}
	if pert == leaderboard.PerturbSubsetPairs {
		for _, p := range curves[0].Points {
			pn.X.Ticks = append(pn.X.Ticks, p.Size)
		}
	}
	ymin := 1.0
	var bands []Mark
	for _, c := range curves {
		st := styles.Rule(c.Rule)
		name := r.Naming.Rule(c.Rule)
		n := len(c.Points)
		line := Mark{Kind: MarkLine, Series: name, Style: st, X: make([]float64, n), Y: make([]float64, n), WithPoints: few}
		band := Mark{Kind: MarkArea, Series: name, Style: st, X: make([]float64, n), Y: make([]float64, n), Y2: make([]float64, n)}
		hasBand := false
		for i, p := range c.Points {
			line.X[i], band.X[i] = p.Size, p.Size
			line.Y[i] = math.NaN()
			if m := float64(p.Mean); analyses.Finite(m) {
				line.Y[i] = m
				ymin = math.Min(ymin, m)
			}
			band.Y[i], band.Y2[i] = math.NaN(), math.NaN()
			if lo, hi, ok := stabilityBand(p); ok {
				band.Y[i], band.Y2[i] = lo, hi
				ymin = math.Min(ymin, lo)
				hasBand = true
			}
		}
		if !few && stabilityHasLonePoint(line.Y) {
			line.WithPoints = true
		}
		pn.Marks = append(pn.Marks, line)
		if hasBand {
			bands = append(bands, band)
		}
	}
	// bands first, under every line
	pn.Marks = append(bands, pn.Marks...)
	// a round lower bound a little under the lowest value, and 1 on top
	lo := math.Max(-1, math.Floor((ymin-0.02)*10)/10)
	if ymin >= 1 {
		lo = 0.9
	}
	pn.Y = pn.Y.Fixed(lo, 1)
	if pert == leaderboard.PerturbBeta {
		pn.Marks = append(pn.Marks, Mark{Kind: MarkRefLine, Style: Style{Colour: color.NRGBA{0x55, 0x55, 0x55, 0xFF}, Dash: Dotted}, Size: 1,
			X: []float64{r.BetaMax, r.BetaMax}, Y: []float64{lo, 1}})
	}
	return &Spec{Panels: []Panel{pn}, Legend: LegendRight, Width: 7, Height: 4.5,
		Subject: fmt.Sprintf("stability of %d aggregation rules: %s", len(curves), strings.ToLower(stabilityAxis[pert][0])),
		Caption: stabilityCaptionFor(r, pert, len(bands) > 0)}
}

// stabilityCaptionFor is the caption, without the bands' sentence when
// no rule has a band.
func stabilityCaptionFor(r *leaderboard.StabilityResult, pert string, bands bool) string {
	c := stabilityCaption(r, pert)
	if !bands {
		c = strings.Replace(c, stabilityBandNote, "", 1)
	}
	return c
}

// stabilityBandNote is the captions' sentence on the bands.
const stabilityBandNote = " Bands: mean ± 1.96·sd/√count."

// stabilityHasLonePoint reports whether a defined mean stands between
// two undefined ones (or the ends): a line cannot show it, a point must.
func stabilityHasLonePoint(y []float64) bool {
	for i, v := range y {
		if math.IsNaN(v) {
			continue
		}
		prev := i == 0 || math.IsNaN(y[i-1])
		next := i == len(y)-1 || math.IsNaN(y[i+1])
		if prev && next {
			return true
		}
	}
	return false
}

func stabilityCaption(r *leaderboard.StabilityResult, pert string) string {
	band := stabilityBandNote
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
		return "Spearman ρ with the reference ranking after adding a method that scores α times the best value on every dataset (capped at the metric's maximum), dropped before comparing, after Shevchenko et al. (2024, Fig. 9b). One comparison per α, so no interval around the mean; missing points: the rule gives every original method the same score (ρ undefined)."
	case leaderboard.PerturbBeta:
		return fmt.Sprintf("Spearman ρ between the DM rankings with β̂ on the x axis and with β̂ = %g (dotted line), after Shevchenko et al. (2024, Fig. 9c).", r.BetaMax)
	case leaderboard.PerturbSubsetPairs:
		return fmt.Sprintf("Mean Spearman ρ between the rankings of two disjoint random subsets of datasets (%d pairs, or all of them when fewer), the reliability rows of Table 3 of Shevchenko et al. (2024).%s", r.Repeats, band)
	}
	return ""
}
