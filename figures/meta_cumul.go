package figures

// The cumulative forest plot of a meta-analysis with cumulative = …, as
// metafor's forest(cumul(…)) lays it out: one line per step, the summary
// with its confidence interval after adding that line's dataset, in the
// order of the cumulative key, with the forest plot's columns and styles.

import (
	"fmt"
	"strconv"

	"github.com/evalbook/evalbook/analyses/meta"
)

// MetaCumulative draws the cumulative forest plot <id>-cumulative, or
// returns false when the result has no cumulative meta-analysis.
func MetaCumulative(id, title string, r *meta.Result) (Figure, bool, error) {
	spec, static := CumulativeSpec(r)
	if spec == nil {
		return Figure{}, false, nil
	}
	f, err := FigureDrawn(spec, static, id+"-cumulative", "Cumulative meta-analysis: "+title, 80+26*len(r.Cumulative))
	if err != nil {
		return Figure{}, false, err
	}
	f.PreferStatic = true
	return f, true, nil
}

// CumulativeSpec is the cumulative forest plot's spec (nil without a
// cumulative meta-analysis): the forest plot's marks, one square and
// interval per step, top to bottom in the order of the steps, with a
// static drawing whose columns are the dataset added, its value of the
// order, the summary so far and the number of datasets it combines.
func CumulativeSpec(r *meta.Result) (*Spec, func() (Drawing, error)) {
	if len(r.Cumulative) == 0 {
		return nil, nil
	}
	b := newForestBuilder(r)
	lines := cumulLines(r, b)
	nl := len(lines)
	var rows []ForestRow
	for i := range lines {
		lines[i].row.Y = float64(nl - i)
		rows = append(rows, *lines[i].row)
	}
	spec := forestSpec(r, lines, b.lvl, cumulCaption(r, b.lvl))
	spec.Subject = fmt.Sprintf("cumulative forest plot of %s over %d datasets ordered by %s", r.EffectLabel(), nl, r.CumulativeBy)
	heads := [4]string{"Added", r.CumulativeBy, "Summary [" + b.lvl + "% CI]", "k"}
	static := func() (Drawing, error) { return forestDrawingHeads(r, lines, rows, b.lvl, heads), nil }
	return spec, static
}

// cumulLines are the cumulative forest plot's lines: per step the dataset
// added, its value of the order, the summary so far with its interval and
// the number of datasets it combines. The squares are all of one size
// (each line is a summary of its own, not a weighted study).
func cumulLines(r *meta.Result, b *forestBuilder) []forestLine {
	lines := make([]forestLine, 0, len(r.Cumulative))
	for _, c := range r.Cumulative {
		name := r.Naming.Dataset(c.Dataset)
		l := forestLine{label: "+ " + name, n: strconv.FormatFloat(c.Order, 'f', -1, 64), weight: strconv.Itoa(c.K),
			effect: b.ci(c.Effect, c.CILow, c.CIHigh)}
		l.row = &ForestRow{Effect: c.Effect, Low: c.CILow, High: c.CIHigh, Weight: 1, Colour: Colour(4)}
		l.tooltip = fmt.Sprintf("+ %s (%s %s): k = %d, summary %s, %s", name, r.CumulativeBy, l.n, c.K, l.effect, pClause(c.P))
		if r.Model == "random" {
			l.tooltip += "; τ² = " + r.CumulText("tau2", c.Tau2) + ", I² = " + r.CumulText("I2", c.I2) + "%"
		}
		lines = append(lines, l)
	}
	return lines
}

// cumulCaption is the cumulative forest plot's caption.
func cumulCaption(r *meta.Result, lvl string) string {
	return fmt.Sprintf("Cumulative forest plot: the summary %s of %s, %s (treatment) − %s (control), of the %s as the datasets are added in order of %s (ties in the order of the rows; metafor's cumul()); each line is the summary of the datasets up to and including it, with its %s%% confidence interval; the last line is the summary of all %d. The dotted line marks no effect.",
		r.EffectLabel(), metricName(r), r.Treatment, r.Control, lowerFirst(forestModel(r)), r.CumulativeBy, lvl, len(r.Cumulative))
}
