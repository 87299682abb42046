package model

// The figure spec of a critical_difference analysis: the CD diagram of
// Demšar (2006) as Shevchenko et al. (2024, Fig. 4) draw it, in rank
// units; package figures draws it static (CDDiagram, the same geometry).

import (
	"fmt"
	"image/color"
	"math"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/significance"
	"github.com/evalbook/evalbook/analyses/stats"
)

// CDRuns are the diagram's groups as index runs into r.Methods (first,
// last): the Wilcoxon–Holm cliques, and the Bayesian ones drawn dashed.
func CDRuns(r *significance.CriticalDifferenceResult) (cliques, dashed [][2]int) {
	pos := map[string]int{}
	for i, m := range r.Methods {
		pos[m] = i
	}
	runs := func(cl [][]string) [][2]int {
		out := make([][2]int, 0, len(cl))
		for _, c := range cl {
			out = append(out, [2]int{pos[c[0]], pos[c[len(c)-1]]})
		}
		return out
	}
	return runs(r.Cliques), runs(r.BayesianCliques)
}

// CDLabel is the critical difference's label above the axis.
func CDLabel(r *significance.CriticalDifferenceResult) string {
	return fmt.Sprintf("CD = %s (Nemenyi, α = %g)", r.CDText(), r.Alpha)
}

// CDHeight is the static diagram's height in points for k methods and
// the number of group lines (Wilcoxon–Holm and Bayesian): the axis, a
// line per group, a row per method of the larger half.
func CDHeight(k, groups int) float64 {
	left := (k + 1) / 2
	rows := max(left, k-left)
	return 62 + 5*float64(groups) + 15*float64(rows)
}

// CDChartHeight is the interactive diagram's height in CSS pixels, on
// the analysis page and the Explore page alike.
func CDChartHeight(k, groups int) int { return int(CDHeight(k, groups)*1.3) + 40 }

// CDSpec is the CD diagram of r: the published page draws it as static
// SVG (the figures package's CDDiagram, the same geometry), the Explore
// page as the spec's ECharts option.
func CDSpec(r *significance.CriticalDifferenceResult) *Spec {
	cliques, dashed := CDRuns(r)
	caption := fmt.Sprintf("Critical-difference diagram of %s over %d datasets: mean rank of each method (1 = best). "+
		"Thick lines join methods whose pairwise Wilcoxon signed-rank tests (%s, Holm-corrected at α = %g) are not significant",
		r.Naming.Metric(r.Metric), len(r.Datasets), zeroMethodWords(r.ZeroMethod), r.Alpha)
	if r.Bayesian && len(dashed) > 0 {
		caption += fmt.Sprintf("; dashed lines join methods the Bayesian signed-rank test (rope %g) cannot tell apart with probability %g", r.Rope, 1-r.Alpha)
	}
	caption += fmt.Sprintf(". The vermillion line above the axis is the Nemenyi critical difference (%s).", r.CDText())
	return cdSpec(r, cliques, dashed, caption)
}

// zeroMethodWords says in a caption how the Wilcoxon tests treat a zero
// difference (scipy's zero_method, an id a reader does not know).
func zeroMethodWords(m string) string {
	switch m {
	case stats.ZeroPratt:
		return "zero differences ranked, then left out, as Pratt (1959) proposed"
	case stats.ZeroWilcox:
		return "zero differences left out"
	case stats.ZeroZsplit:
		return "zero differences' ranks split between the signs"
	}
	return "zero_method " + m
}

// cdSpec is the diagram in rank units, as the static CDDiagram lays it
// out: x is the mean rank (the axis on top), y grows downwards — the
// critical difference above the axis, the groups' lines under it, then
// each method's connector to its name, the better half on the left.
func cdSpec(r *significance.CriticalDifferenceResult, cliques, dashed [][2]int, caption string) *Spec {
	k := len(r.Methods)
	methods := Labelled(r.Methods, r.Naming.Method)
	left := (k + 1) / 2
	hi := float64(max(2, k))
	black := color.NRGBA{0, 0, 0, 0xFF}
	seg := func(m *Mark, pts ...[2]float64) {
		for _, p := range pts {
			m.X, m.Y = append(m.X, p[0]), append(m.Y, p[1])
		}
		m.X, m.Y = append(m.X, math.NaN()), append(m.Y, math.NaN())
	}
	groups := Mark{Kind: MarkLine, Series: "not significantly different (Wilcoxon–Holm)", Style: Style{Colour: black, Dash: Solid}, Size: 3}
	bayes := Mark{Kind: MarkLine, Series: "not distinguishable (Bayesian signed-rank)", Style: Style{Colour: color.NRGBA{0x77, 0x77, 0x77, 0xFF}, Dash: Dashed}, Size: 1.8}
	y := 0.6
	for _, cl := range cliques {
		seg(&groups, [2]float64{r.MeanRanks[cl[0]] - 0.03, y}, [2]float64{r.MeanRanks[cl[1]] + 0.03, y})
		y += 0.3
	}
	for _, cl := range dashed {
		seg(&bayes, [2]float64{r.MeanRanks[cl[0]] - 0.03, y}, [2]float64{r.MeanRanks[cl[1]] + 0.03, y})
		y += 0.3
	}
	y += 0.5
	conn := Mark{Kind: MarkLine, Style: Style{Colour: black, Dash: Solid}, Size: 0.8}
	lt := Mark{Kind: MarkText, Series: "methods (better half)", NoLegend: true, LeftOf: true, Style: Style{Colour: black}}
	rt := Mark{Kind: MarkText, Series: "methods", NoLegend: true, Style: Style{Colour: black}}
	for i := 0; i < k; i++ {
		row, edge, m := i, 1-0.05*hi, &lt
		if i >= left {
			row, edge, m = k-1-i, hi+0.05*hi, &rt
		}
		yy := y + float64(row)*0.8
		seg(&conn, [2]float64{r.MeanRanks[i], 0}, [2]float64{r.MeanRanks[i], yy}, [2]float64{edge, yy})
		m.X, m.Y = append(m.X, edge), append(m.Y, yy)
		m.Labels = append(m.Labels, CDMethodLabel(methods[i], r.MeanRanks[i], r.MeanRanks))
	}
	rows := max(left, k-left)
	ymax := y + float64(rows)*0.8
	pn := Panel{X: NewAxis("mean rank").Fixed(0, hi+1), Y: NewAxis("").Fixed(-1.5, ymax+0.3)}
	// ranks run from 1 to k: the axis is marked there only, as the
	// static diagram's (the range past them is room for the names)
	for v := 1.0; v <= hi; v++ {
		pn.X.Ticks = append(pn.X.Ticks, v)
	}
	pn.X.Top = true
	pn.Y.Hidden, pn.Y.Inverse = true, true
	if cd := r.CriticalDifference; cd > 0 && analyses.Finite(cd) {
		pn.Marks = append(pn.Marks,
			Mark{Kind: MarkLine, Series: "critical difference", Style: Style{Colour: Palette[1], Dash: Solid}, Size: 3, X: []float64{1, math.Min(1+cd, hi)}, Y: []float64{-0.6, -0.6}},
			Mark{Kind: MarkText, Series: "critical difference", NoLegend: true, Style: Style{Colour: black}, X: []float64{math.Min(1+cd, hi)}, Y: []float64{-0.6},
				Labels: []string{CDLabel(r)}})
	}
	for _, m := range []Mark{groups, bayes, conn, lt, rt} {
		if len(m.X) > 0 {
			pn.Marks = append(pn.Marks, m)
		}
	}
	return &Spec{Panels: []Panel{pn}, Caption: caption,
		Subject: fmt.Sprintf("critical-difference diagram of %d methods", k)}
}

// CDMethodLabel is a method's label in a critical-difference diagram,
// static or interactive: its name and its mean rank as the table of mean
// ranks prints it (ranks, all the diagram's mean ranks), "EASE (3.688)".
func CDMethodLabel(method string, rank float64, ranks []float64) string {
	return method + " (" + analyses.ColumnText(rank, ranks) + ")"
}
