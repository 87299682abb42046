package meta

import (
	"fmt"
	"math"
	"slices"

	"github.com/evalbook/evalbook/analyses"
)

// Why this file exists: a meta_analysis whose summary file holds the
// numbers papers print (2×2 tables, proportions, correlations, incidence
// rates) names an escalc measure (measure = "OR", …); the summary reader
// turns each row into a generic effect (yi, vi) with Escalc*, and the
// result carries the measure, its label and the summary back-transformed
// to the natural scale (odds ratio, proportion, …) where metafor gives it.

// Measures lists the escalc measures a summary may name, in metafor's
// order.
var Measures = []string{MeasureOR, MeasureRR, MeasureRD, MeasurePR, MeasurePLO, MeasurePAS, MeasurePFT, MeasureCOR, MeasureZCOR, MeasureIR, MeasureIRLN}

// MeasureLabels name each measure's scale for axes, captions and tables.
var MeasureLabels = map[string]string{
	MeasureOR: "log odds ratio", MeasureRR: "log risk ratio", MeasureRD: "risk difference",
	MeasurePR: "proportion", MeasurePLO: "logit of the proportion", MeasurePAS: "arcsine square-root proportion",
	MeasurePFT: "Freeman–Tukey double arcsine proportion", MeasureCOR: "correlation", MeasureZCOR: "Fisher's z of the correlation",
	MeasureIR: "incidence rate", MeasureIRLN: "log incidence rate",
}

// NaturalLabels name the scale a measure's summary is back-transformed
// to (only the measures metafor back-transforms).
var NaturalLabels = map[string]string{
	MeasureOR: "odds ratio", MeasureRR: "risk ratio", MeasurePLO: "proportion", MeasurePAS: "proportion",
	MeasurePFT: "proportion", MeasureZCOR: "correlation", MeasureIRLN: "incidence rate",
}

// MeasureColumns are the summary columns of a measure, by escalc's names:
// a 2×2 table as ai, bi, ci, di (or, with groups, ai, n1i, ci, n2i),
// events and sizes xi, ni, correlations ri, ni, events and person-time
// xi, ti. groups picks the ai, n1i, ci, n2i form of a 2×2 table.
func MeasureColumns(measure string, groups bool) []string {
	switch measure {
	case MeasureOR, MeasureRR, MeasureRD:
		if groups {
			return []string{"ai", "n1i", "ci", "n2i"}
		}
		return []string{"ai", "bi", "ci", "di"}
	case MeasurePR, MeasurePLO, MeasurePAS, MeasurePFT:
		return []string{"xi", "ni"}
	case MeasureCOR, MeasureZCOR:
		return []string{"ri", "ni"}
	case MeasureIR, MeasureIRLN:
		return []string{"xi", "ti"}
	}
	return nil
}

// Escalc computes a measure's effects from its columns (cols[c][i]: the
// value of column c of MeasureColumns in row i) with the zero-cell
// handling z (ignored by COR and ZCOR).
func Escalc(measure string, groups bool, cols map[string][]float64, z ZeroCells) (EffectSizes, error) {
	switch measure {
	case MeasureOR, MeasureRR, MeasureRD:
		var tabs []Table2x2
		if groups {
			var err error
			if tabs, err = TablesFromGroups(cols["ai"], cols["n1i"], cols["ci"], cols["n2i"]); err != nil {
				return EffectSizes{}, err
			}
		} else {
			for i := range cols["ai"] {
				tabs = append(tabs, Table2x2{AI: cols["ai"][i], BI: cols["bi"][i], CI: cols["ci"][i], DI: cols["di"][i]})
			}
		}
		return EscalcTables(measure, tabs, z)
	case MeasurePR, MeasurePLO, MeasurePAS, MeasurePFT:
		return EscalcProportions(measure, cols["xi"], cols["ni"], z)
	case MeasureCOR, MeasureZCOR:
		return EscalcCorrelations(measure, cols["ri"], cols["ni"])
	case MeasureIR, MeasureIRLN:
		return EscalcRates(measure, cols["xi"], cols["ti"], z)
	}
	return EffectSizes{}, fmt.Errorf("unknown measure %q", measure)
}

// Natural is a summary back-transformed to its measure's natural scale
// (an odds ratio, a proportion, …); the interval bounds stay in order.
type Natural struct {
	Scale  string   `json:"scale"`
	Effect float64  `json:"effect"`
	CILow  float64  `json:"ci_low"`
	CIHigh float64  `json:"ci_high"`
	PILow  *float64 `json:"pi_low,omitempty"`
	PIHigh *float64 `json:"pi_high,omitempty"`
}

// SetNatural back-transforms the summary of a measure's meta-analysis
// (ni: the included studies' sizes, which PFT needs) into r.Natural;
// nothing for a measure metafor does not back-transform.
func (r *Result) SetNatural(ni []float64) error {
	scale, ok := NaturalLabels[r.Measure]
	s := r.Summary
	if !ok || s.Effect == nil || s.CILow == nil || s.CIHigh == nil {
		return nil
	}
	pl, ph := math.NaN(), math.NaN()
	if s.PILow != nil && s.PIHigh != nil {
		pl, ph = *s.PILow, *s.PIHigh
	}
	bt, err := BackTransformSummary(r.Measure, *s.Effect, *s.CILow, *s.CIHigh, pl, ph, ni)
	if err != nil {
		return err
	}
	r.Natural = &Natural{Scale: scale, Effect: bt.Effect, CILow: bt.CILow, CIHigh: bt.CIHigh}
	if !math.IsNaN(bt.PILow) && !math.IsNaN(bt.PIHigh) {
		r.Natural.PILow, r.Natural.PIHigh = &bt.PILow, &bt.PIHigh
	}
	return nil
}

// naturalTable is the summary on the natural scale, when there is one.
func (r *Result) naturalTable() []analyses.Table {
	n := r.Natural
	if n == nil {
		return nil
	}
	t := analyses.Table{Name: "natural", Title: "Summary effect back-transformed to the " + n.Scale, Columns: []string{"quantity", "value"},
		Rows: [][]any{{"effect", n.Effect}, {"ci_low", n.CILow}, {"ci_high", n.CIHigh}}}
	if n.PILow != nil {
		t.Rows = append(t.Rows, []any{"pi_low", *n.PILow}, []any{"pi_high", *n.PIHigh})
	}
	return []analyses.Table{t}
}

// checkMeasure checks measure and its zero-cell keys.
func (o *Options) checkMeasure() error {
	if o.Measure == "" {
		for key, set := range map[string]bool{"add": o.Add != nil, "to": o.To != "", "drop00": o.Drop00} {
			if set {
				return analyses.OptionErrorf(key, "applies to the counts of a summary with measure = \"…\" (OR, RR, RD, PR, PLO, PAS, PFT, IR, IRLN)")
			}
		}
		return nil
	}
	canon := canonical(o.Measure, Measures)
	if canon == "" {
		return analyses.OptionErrorf("measure", "unknown measure %q%s", o.Measure, analyses.NameHint(o.Measure, Measures))
	}
	o.Measure = canon
	if o.Summary.Path == "" {
		return analyses.OptionErrorf("measure", "applies to a summary file of counts, proportions, correlations or rates: add summary = \"…\"")
	}
	z := o.ZeroCells()
	if err := z.check(); err != nil {
		key := "to"
		if o.Add != nil && !(z.Add >= 0 && !math.IsInf(z.Add, 1)) {
			key = "add"
		}
		return analyses.OptionErrorf(key, "%v", err)
	}
	if (o.Measure == MeasureCOR || o.Measure == MeasureZCOR) && (o.Add != nil || o.To != "" || o.Drop00) {
		return analyses.OptionErrorf("add", "a correlation has no zero cells: leave add, to and drop00 out")
	}
	if o.Drop00 && !slices.Contains([]string{MeasureOR, MeasureRR, MeasureRD}, o.Measure) {
		return analyses.OptionErrorf("drop00", "applies to 2×2 tables (OR, RR, RD)")
	}
	return nil
}

// ZeroCells is the zero-cell handling the options ask for, escalc's
// defaults for the measure where they are silent.
func (o *Options) ZeroCells() ZeroCells {
	z := DefaultZeroCellsFor(o.Measure)
	if o.Add != nil {
		z.Add = *o.Add
	}
	if o.To != "" {
		z.To = o.To
	}
	z.Drop00 = o.Drop00
	return z
}
