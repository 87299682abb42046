package figures

// Figures of a paired_tests analysis: one per pair, after Košir, Odić
// and Tkalčič (2013), Fig. 2 — each unit (fold) on the x axis with both
// methods' values joined by a segment, so the reader sees the difference kept in
// every fold that pooling the values as two independent groups hides.
// With more units than a chart can show one by one (users), the figure
// plots the sorted differences instead, at most 200 evenly spaced ones.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/significance"
	"github.com/evalbook/evalbook/figures/model"
)

// pairedUnitsMax is the largest number of units drawn one by one.
const pairedUnitsMax = 40

// PairedTests draws one figure per pair of r.
func PairedTests(id, title string, r *significance.PairedTestsResult) ([]Figure, error) {
	var figs []Figure
	rl := *r
	rl.Metric = r.Naming.Metric(r.Metric)
	drawn, dropped := topPairs(len(r.Pairs))
	styles := StylesOf(r.Naming)
	for i, p := range r.Pairs[:drawn] {
		if p.N == 0 {
			continue
		}
		fid := fmt.Sprintf("%s-%d", id, i+1)
		a, b := p.A, p.B
		p = pairedLabelled(r, p)
		var s *Spec
		title := fmt.Sprintf("%s vs %s, unit by unit", p.A, p.B)
		if p.N <= pairedUnitsMax {
			s = pairedUnitsSpec(&rl, p, &styles, a, b)
		} else {
			s = pairedSortedSpec(&rl, p)
			title = fmt.Sprintf("%s vs %s: sorted differences", p.A, p.B)
		}
		f, err := FigureOf(s, fid, title, 380)
		if err != nil {
			return nil, fmt.Errorf("%s vs %s: %w", p.A, p.B, err)
		}
		figs = append(figs, f)
	}
	if dropped != "" && len(figs) > 0 {
		figs[len(figs)-1].Caption += dropped
	}
	return figs, nil
}

// pairedLabelled is comparison p with its methods, and its units when
// they are datasets, named by their labels.
func pairedLabelled(r *significance.PairedTestsResult, p significance.PairedComparison) significance.PairedComparison {
	p.A, p.B = r.Naming.Method(p.A), r.Naming.Method(p.B)
	if r.Over == "datasets" {
		p.Units = labelled(p.Units, r.Naming.Dataset)
	}
	return p
}

// pairedVerdict is the sentence of a pair's figure caption with its
// p-values and recommended test, labelled and written as the pairs table
// beside the figure labels and writes them ("p (paired t) = 6.6e-06",
// "recommended test: paired t").
func pairedVerdict(r *significance.PairedTestsResult, p significance.PairedComparison) string {
	ps := []struct {
		col string
		v   *float64
	}{{"p_paired_t", p.PPairedT}, {"p_wilcoxon", p.PWilcoxon}, {"p_welch", p.PWelch}, {"p_mannwhitney", p.PMannWhitney}}
	parts := make([]string, len(ps))
	for i, x := range ps {
		// "p = 0.0020", "p < 1e-300", "p undefined" after its label
		parts[i] = model.ColumnLabel(x.col, r.Naming) + strings.TrimPrefix(pClause(val(x.v)), "p")
	}
	return fmt.Sprintf("%s; %s: %s", strings.Join(parts, ", "), lowerFirst(model.ColumnLabel("recommended", r.Naming)),
		model.CellLabel("recommended", p.Recommended, r.Naming))
}

// pairedUnitsSpec is the unit-by-unit figure: each unit on the x axis
// with A's and B's values in their methods' styles and a segment joining
// them.
func pairedUnitsSpec(r *significance.PairedTestsResult, p significance.PairedComparison, styles *Styles, a, b string) *Spec {
	n := p.N
	x := make([]float64, n)
	lo, hi := make([]float64, n), make([]float64, n)
	for u := 0; u < n; u++ {
		x[u] = float64(u)
		lo[u], hi[u] = math.Min(p.ValueA[u], p.ValueB[u]), math.Max(p.ValueA[u], p.ValueB[u])
	}
	join := Style{Colour: Palette[7], Dash: Solid}
	pn := Panel{X: Axis{Title: pairedOver(r.Over), Categories: append([]string(nil), p.Units...), Min: Auto, Max: Auto}, Y: NewAxis(r.Metric)}
	pn.Marks = []Mark{
		{Kind: MarkInterval, Style: join, X: x, Y: lo, Y2: hi, Size: 1},
		{Kind: MarkPoints, Series: p.A, Style: styles.Method(a), X: x, Y: append([]float64(nil), p.ValueA[:n]...), Names: p.Units[:n], Size: 3.5},
		{Kind: MarkPoints, Series: p.B, Style: styles.Method(b), X: x, Y: append([]float64(nil), p.ValueB[:n]...), Names: p.Units[:n], Size: 3.5},
	}
	return &Spec{Panels: []Panel{pn}, Legend: LegendRight, Width: 7, Height: 3.6,
		Subject: fmt.Sprintf("%s of %s and %s on each of %d %s", r.Metric, p.A, p.B, n, r.Over),
		Caption: fmt.Sprintf("%s of %s and %s on each of the %d %s, a segment joining each unit's two values (as in Košir et al. 2013, Fig. 2). Mean difference %s; %s.",
			r.Metric, p.A, p.B, n, r.Over, meanDiffText(r, p.MeanDiff), pairedVerdict(r, p))}
}

// pairedOver is the units' axis title: "fold", "dataset", "user".
func pairedOver(over string) string {
	return model.UpperFirst(strings.TrimSuffix(over, "s"))
}

// pairedSortedSpec is the figure for many units: the per-unit
// differences A − B, sorted, at most 200 evenly spaced ones.
func pairedSortedSpec(r *significance.PairedTestsResult, p significance.PairedComparison) *Spec {
	d := make([]float64, p.N)
	for u := range d {
		d[u] = p.ValueA[u] - p.ValueB[u]
	}
	sort.Float64s(d)
	m := min(200, len(d))
	x, y := make([]float64, m), make([]float64, m)
	for i := range x {
		j := i * (len(d) - 1) / max(1, m-1)
		x[i] = float64(j+1) / float64(len(d))
		y[i] = d[j]
	}
	pn := Panel{X: NewAxis("share of units").Fixed(0, 1), Y: NewAxis(fmt.Sprintf("%s: %s − %s", r.Metric, p.A, p.B))}
	pn.Marks = []Mark{
		{Kind: MarkRefLine, Style: Style{Colour: Palette[7], Dash: Dashed}, X: []float64{0, 1}, Y: []float64{0, 0}},
		{Kind: MarkLine, Series: "difference", NoLegend: true, Style: Style{Colour: Palette[4], Dash: Solid}, X: x, Y: y, Size: 1.5},
	}
	return &Spec{Panels: []Panel{pn}, Width: 7, Height: 3.6,
		Subject: fmt.Sprintf("the %d sorted per-unit differences %s − %s", p.N, p.A, p.B),
		Caption: fmt.Sprintf("The %d per-unit differences %s − %s in %s, sorted (the share of units below each value; dashed: no difference). Mean difference %s; %s.",
			p.N, p.A, p.B, r.Metric, meanDiffText(r, p.MeanDiff), pairedVerdict(r, p))}
}

// meanDiffText writes a pair's mean difference as the pairs table
// prints its column ("undefined" for none).
func meanDiffText(r *significance.PairedTestsResult, x *float64) string {
	if x == nil {
		return "undefined"
	}
	var col []float64
	for _, p := range r.Pairs {
		if p.MeanDiff != nil && analyses.Finite(*p.MeanDiff) {
			col = append(col, *p.MeanDiff)
		}
	}
	return analyses.ColumnText(*x, col)
}
