package report

// Registration of critical_difference (SPEC §5.2): the results matrix of
// one metric, paired by dataset name (Results.Matrix looks every cell up
// by name, never by row order), handed to analyses.CriticalDifference
// with this analysis's own Monte Carlo seed.

import (
	"fmt"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures"
)

func criticalDifferenceKind() Kind {
	return NewKind("critical_difference",
		"Friedman, Iman–Davenport and Nemenyi tests, pairwise Wilcoxon–Holm and Bayesian signed-rank tests, and the CD diagram (seed 001 Fig. 4; Demšar 2006)",
		runCriticalDifference)
}

func runCriticalDifference(ctx *Context, o *analyses.CriticalDifferenceOptions) (*Output, error) {
	res, err := ctx.Results()
	if err != nil {
		return nil, err
	}
	in, err := matrixInput(res, ctx.Metric(o.Metric), o.Datasets, o.Methods)
	if err != nil {
		return nil, err
	}
	ctx.Progress().Step("critical_difference: "+ctx.ID, 0, 1)
	r, err := analyses.CriticalDifference(analyses.CriticalDifferenceInput{AggregateInput: in, Seed: ctx.Seed, Jobs: ctx.Jobs}, *o)
	if err != nil {
		return nil, err
	}
	ctx.Progress().Step("critical_difference: "+ctx.ID, 1, 1)
	figs, err := figures.CriticalDifference(ctx.ID, ctx.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: criticalDifferenceMethod(r)}, nil
}

func criticalDifferenceMethod(r *analyses.CriticalDifferenceResult) string {
	s := fmt.Sprintf(`Methods are ranked on each dataset (1 = best, ties share the average rank) and the ranks averaged, exactly as the aggregate analysis's mean_rank.

**Friedman's test** (with scipy's tie correction) asks whether the mean ranks differ more than chance allows; the **Iman–Davenport F** is its less conservative form (Demšar 2006, eq. 1–2).

The **Nemenyi critical difference** CD = q_α·√(k(k+1)/(6N)) uses the studentized range quantile q_α = qtukey(1 − α, k, ∞)/√2, computed by integrating the distribution of the range of k normal values (not read from a table), here q_α = %.4f for k = %d.

Following seed 001 Fig. 4 (and Benavoli et al. 2016), the bars of the diagram come from **pairwise Wilcoxon signed-rank tests** over the datasets, paired by dataset name, with zero_method = %q (the seed's code uses scipy's "pratt"), an exact p-value when there are at most 50 datasets and no zero or tied differences and otherwise scipy's normal approximation with tie correction (no continuity correction; with tied but non-zero differences scipy 1.10's "auto" would still use the exact table on a truncated rank sum, which SPEC §5.2 and later scipy releases avoid), and **Holm's correction** over all %d pairs. A pair is significant when its Holm-adjusted p ≤ α = %g. A clique is a maximal run of methods, in mean-rank order, with no significant pair inside; the diagram joins each with a thick bar.`,
		r.NemenyiQ, len(r.Methods), r.ZeroMethod, len(r.Pairs), r.Alpha)
	if r.Bayesian {
		s += fmt.Sprintf(`

The **Bayesian signed-rank test** (Benavoli et al. 2017, as baycomp's SignedRankTest: Dirichlet-process posterior with a pseudo-observation of weight 0.5 at zero, %d Monte Carlo draws from this analysis's seed) gives p_left = P(a better), p_rope = P(|difference| within the rope ±%g) and p_right = P(b better), with a the better-ranked method of the pair. Dashed bars join runs of methods where no pair has P(one is better) ≥ %g.`,
			r.Samples, r.Rope, 1-r.Alpha)
	}
	var sig []string
	for _, p := range r.Pairs {
		if p.Significant {
			sig = append(sig, p.A+" vs "+p.B)
		}
	}
	if len(sig) == 0 {
		s += "\n\n**Result:** no pair of methods differs significantly after Holm's correction."
	} else {
		s += fmt.Sprintf("\n\n**Result:** %d of %d pairs differ significantly after Holm's correction: %s.", len(sig), len(r.Pairs), joinList(sig))
	}
	return s
}

func joinList(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += "; "
		}
		out += v
	}
	return out
}
