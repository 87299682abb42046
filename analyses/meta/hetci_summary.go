package meta

import (
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses"
)

// Why this file exists: the heterogeneity table gives τ², I² and H² with
// their Q-profile confidence intervals, as metafor's confint(rma) does
// (Viechtbauer 2007), for the whole model and each subgroup.

// metaHetCIs sets the Q-profile intervals of every random-effects
// summary of res: over the included rows, and per subgroup.
func metaHetCIs(res *Result, idx []int, o Options) {
	if o.Model != "random" {
		return
	}
	outside := []func([]float64){metaHetCI(res, &res.Summary, idx, o, "")}
	if res.Within == nil { // else one common τ²: the subgroups have no τ² of their own
		for _, g := range res.SubgroupOrder {
			var m []int
			for _, i := range idx {
				if res.Rows[i].Group == g {
					m = append(m, i)
				}
			}
			s := res.Subgroups[g]
			outside = append(outside, metaHetCI(res, &s, m, o, "subgroup "+g+": "))
			res.Subgroups[g] = s
		}
	}
	// the heterogeneity table prints the τ² and the τ² intervals of all
	// its rows in one format, and the notes quote them so
	var vals []float64
	for _, s := range append([]Summary{res.Summary}, subgroupSummaries(res)...) {
		for _, x := range []*float64{s.Tau2, s.Tau2CILow, s.Tau2CIHigh} {
			if x != nil {
				vals = append(vals, *x)
			}
		}
	}
	for _, f := range outside {
		if f != nil {
			f(vals)
		}
	}
}

// subgroupSummaries are res's subgroup summaries in their order.
func subgroupSummaries(res *Result) []Summary {
	var out []Summary
	for _, g := range res.SubgroupOrder {
		out = append(out, res.Subgroups[g])
	}
	return out
}

// metaHetCI sets one summary's intervals from its rows m; where they are
// undefined (fewer than 2 studies) they stay null, and a bound outside
// the searched range is said in a note, as metafor's confint says it.
// It returns the note on a τ² outside its interval, to be written (with
// the values the table formats τ² by) once every summary has its own.
func metaHetCI(res *Result, s *Summary, m []int, o Options, what string) func([]float64) {
	if len(m) < 2 {
		return nil
	}
	var outside func([]float64)
	yi, vi := make([]float64, len(m)), make([]float64, len(m))
	for j, i := range m {
		yi[j], vi[j] = res.Rows[i].Effect, res.Rows[i].Variance
	}
	d, err := NewDesign(len(m), nil)
	if err == nil {
		var reg *Regression
		if reg, err = MetaRegression(yi, vi, d, o.regOptions()); err == nil {
			if s.Tau2 != nil && math.Abs(reg.Tau2-*s.Tau2) > 1e-8*math.Max(1, *s.Tau2) {
				err = fmt.Errorf("τ² %v of the interval's fit differs from the summary's %v", reg.Tau2, *s.Tau2)
			} else {
				var ci HetCI
				if ci, err = QProfileCI(yi, vi, d, reg, o.Alpha); err == nil {
					setHetCI(res, s, ci, what)
					sum := *s
					outside = func(vals []float64) { tau2Outside(res, &sum, vi, o, what, vals) }
				}
			}
		}
	}
	if err != nil {
		res.Warnf("%sno Q-profile interval of τ²: %v", what, err)
	}
	return outside
}

// setHetCI copies an interval into the summary: a lower bound below the
// searched range is 0 (with a note), an upper one above it is left out
// (with a note: it is only known to exceed the range's end).
func setHetCI(res *Result, s *Summary, ci HetCI, what string) {
	f := func(x float64) *float64 { return &x }
	s.Tau2CILow, s.I2CILow, s.H2CILow = f(ci.Tau2Low), f(ci.I2Low), f(ci.H2Low)
	if ci.HighSign == ">" {
		res.Warnf("%sthe upper bound of τ²'s Q-profile interval lies above %g, the end of the range searched (metafor prints \">%g\"); it is left out", what, ci.Tau2Max, ci.Tau2Max)
	} else {
		s.Tau2CIHigh, s.I2CIHigh, s.H2CIHigh = f(ci.Tau2High), f(ci.I2High), f(ci.H2High)
	}
	switch {
	case ci.Empty:
		res.Warnf("%sτ²'s Q-profile interval is the null set: Q at τ² = 0 is below the lower χ² quantile (less heterogeneity than chance gives); both bounds are shown as 0, as metafor", what)
	case ci.LowSign == "<":
		res.Warnf("%sthe lower bound of τ²'s Q-profile interval is below 0 and shown as 0, as metafor", what)
	}
}

// tau2Outside says so when τ²'s estimate lies outside its Q-profile
// interval. The interval inverts the generalised Q statistic, whose own
// estimate is Paule–Mandel's (Viechtbauer 2007); another estimator,
// DerSimonian–Laird's most often, can fall outside it when the datasets'
// sampling variances differ by orders of magnitude. metafor prints the
// same numbers without a word; beside them a reader would suspect one.
func tau2Outside(res *Result, s *Summary, vi []float64, o Options, what string, vals []float64) {
	if s.Tau2 == nil || s.Tau2CILow == nil {
		return
	}
	t, side := *s.Tau2, ""
	switch {
	case t < *s.Tau2CILow*(1-1e-9):
		side = "below"
	case s.Tau2CIHigh != nil && t > *s.Tau2CIHigh*(1+1e-9):
		side = "above"
	default:
		return
	}
	lo, hi := math.Inf(1), 0.0
	for _, v := range vi {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	// τ² and its interval as the heterogeneity table prints them: one
	// format for its τ² columns, from their values (vals)
	high := "…"
	if s.Tau2CIHigh != nil {
		high = analyses.ColumnText(*s.Tau2CIHigh, vals)
	}
	res.Warnf("%sτ² = %s (%s) lies %s its %g%% Q-profile interval [%s, %s], and so do I² and H² with theirs: the interval inverts the generalised Q statistic (Viechtbauer 2007), whose own estimate is Paule–Mandel's, and %s's can fall outside it when the datasets' sampling variances differ widely (here from %.3g to %.3g); tau2 = \"PM\" gives the estimate the interval belongs to",
		what, analyses.ColumnText(t, vals), o.Tau2, side, 100*(1-o.Alpha), analyses.ColumnText(*s.Tau2CILow, vals), high, o.Tau2, lo, hi)
}
