package meta

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// Why this file exists: cumulative = "year" on a meta_analysis adds
// metafor's cumul(rma(…), order = year) over the included datasets
// (Cumulative in cumul.go), as the table <id>-cumulative and the
// cumulative forest plot.

// CumulRow is the model fitted to the datasets up to and including
// Dataset in the cumulative order (Order its value of the ordering column).
type CumulRow struct {
	Dataset         string
	Order           float64
	K               int
	Effect, SE, P   float64
	CILow, CIHigh   float64
	Q, PQ, Tau2, I2 float64
	H2              float64
}

// metaCumulative fits the cumulative meta-analysis of the included rows
// idx ordered by in.Order (ascending, ties in the rows' order).
func metaCumulative(res *Result, in Input, idx []int, o Options) error {
	if o.Cumulative == "" {
		return nil
	}
	yi, vi, by := make([]float64, len(idx)), make([]float64, len(idx)), make([]float64, len(idx))
	for j, i := range idx {
		d := res.Rows[i].Dataset
		text, ok := in.Order[d]
		text = strings.TrimSpace(text)
		if !ok || text == "" {
			return analyses.OptionErrorf("cumulative", "dataset %s has no value of %q (give it in the summary's column %q or as the dataset's attribute)", in.Naming.Dataset(d), o.Cumulative, o.Cumulative)
		}
		x, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return analyses.OptionErrorf("cumulative", "%q of dataset %s is %q, not a number: the order is numeric (a year, or a date written as 20190301)", o.Cumulative, in.Naming.Dataset(d), text)
		}
		yi[j], vi[j], by[j] = res.Rows[i].Effect, res.Rows[i].Variance, x
	}
	steps, err := Cumulative(yi, vi, by, false, o.regOptions())
	if err != nil {
		return fmt.Errorf("cumulative: %w", err)
	}
	seen := map[string]bool{}
	for _, s := range steps {
		if o.Model == "fixed" {
			s.Tau2 = math.NaN() // a fixed-effect model has no τ² (metafor's cumul gives none)
		}
		res.Cumulative = append(res.Cumulative, CumulRow{Dataset: res.Rows[idx[s.Study]].Dataset, Order: by[s.Study], K: s.K,
			Effect: s.Est, SE: s.SE, P: s.P, CILow: s.CILow, CIHigh: s.CIHigh, Q: s.Q, PQ: s.Qp, Tau2: s.Tau2, I2: s.I2, H2: s.H2})
		for _, w := range s.Warnings {
			if !seen[w] {
				seen[w] = true
				res.Warnf("cumulative (from %d datasets): %s", s.K, w)
			}
		}
	}
	res.CumulativeBy = o.Cumulative
	return nil
}

// cumulativeTable is <id>-cumulative: one row per step, the fit after
// adding that row's dataset.
func (r *Result) cumulativeTable() []analyses.Table {
	if len(r.Cumulative) == 0 {
		return nil
	}
	t := analyses.Table{Name: "cumulative", Title: "Cumulative meta-analysis, datasets added by " + r.CumulativeBy,
		Columns: []string{"dataset", "effect", "se", "ci_low", "ci_high", "p", "Q", "p_Q", "tau2", "I2", "H2"}}
	for _, c := range r.Cumulative {
		t.Rows = append(t.Rows, []any{c.Dataset, analyses.CellValue(c.Effect), analyses.CellValue(c.SE), analyses.CellValue(c.CILow), analyses.CellValue(c.CIHigh),
			analyses.CellValue(c.P), analyses.CellValue(c.Q), analyses.CellValue(c.PQ), analyses.CellValue(c.Tau2), analyses.CellValue(c.I2), analyses.CellValue(c.H2)})
	}
	return []analyses.Table{t}
}
