package report

// Why this file exists: it registers the `stability` analysis (SPEC §5.4)
// and gathers its matrix from the study's results, exactly as `aggregate`
// does, so that a stability page studies the same leaderboard.

import (
	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures"
)

func stabilityKind() Kind {
	return NewKind("stability", "how each aggregation rule's ranking reacts to removing datasets or methods, adding a near-copy or a new best method, and changing β̂ (seed 001 §4.2.3, Figs 5, 6, 9, Table 3)", runStability)
}

func runStability(ctx *Context, o *analyses.StabilityOptions) (*Output, error) {
	res, err := ctx.Results()
	if err != nil {
		return nil, err
	}
	m, err := matrixInput(res, ctx.Metric(o.Metric), o.Datasets, o.Methods)
	if err != nil {
		return nil, err
	}
	if err := checkStabilityWork(o, len(m.Datasets), len(m.Methods)); err != nil {
		return nil, err
	}
	in := analyses.StabilityInput{Metric: m.Metric, Datasets: m.Datasets, Methods: m.Methods, Q: m.Q,
		Seed: ctx.Seed, Jobs: ctx.Jobs}
	if p := ctx.Progress(); p != nil {
		in.Progress = p.Step
	}
	r, err := analyses.Stability(in, *o)
	if err != nil {
		return nil, err
	}
	figs, err := figures.Stability(ctx.ID, ctx.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: stabilityMethod}, nil
}

const stabilityMethod = `For every aggregation rule of the ` + "`aggregate`" + ` analysis, the **reference ranking** is its score vector on all datasets and methods (DM rules at β̂ = ` + "`beta_max`" + `, default 3). Each perturbation changes the matrix of metric values, recomputes the rule, and measures the similarity with the reference as **Spearman's ρ between the score vectors** (Pearson's r of their average ranks, as scipy.stats.spearmanr), after seed 001 §4.2.3 and Appendix B.

- **drop_datasets** (seed 001 Fig. 5): remove i = 1 … D−2 datasets. **drop_methods** (Fig. 6): remove i = 1 … M−3 methods and compare the rankings of the kept methods. Every subset is used when there are at most ` + "`repeats`" + ` of them; otherwise ` + "`repeats`" + ` distinct subsets are drawn uniformly at random.
- **similar_method** (Fig. 9a): for each method m and each α of ` + "`alpha_similar`" + `, add a method scoring min(α·q, max) on every dataset, recompute, drop the copy and compare; the point is the mean over m.
- **best_method** (Fig. 9b): add a method scoring min(α·best, max) on every dataset (best/α for a lower-is-better metric), drop it and compare; one comparison per α, so no band.
- **beta** (Fig. 9c): DM-AUC and DM-LBO with β̂ on the grid ` + "`betas`" + ` against β̂ = ` + "`beta_max`" + `.
- **subset_pairs** (SPEC §5.4): for each size in ` + "`subset_sizes`" + ` (5 and 10), ` + "`repeats`" + ` pairs of disjoint random subsets of datasets (all pairs when fewer); ρ between the two rankings.
- **Pareto efficacy**: on the full matrix and on every perturbed one, a rule fails when it ranks a method strictly above another that is at least as good on every dataset and better on one.

Curves show the mean ρ with a ±1.96·sd/√count band (sample sd). The summary's ` + "`<perturbation>_area`" + ` is the trapezoid area under the curve divided by its x range (the curve's mean height; 1 = never changes).

**Undefined ρ.** When a rule gives every method the same score on a perturbed matrix (for example plurality when the only winner is removed, or DM-AUC once a new method is more than β̂ times better than all others, so every other area is 0), ρ is undefined: that matrix is left out of the mean and counted in the ` + "`undefined`" + ` column, and a note says how many.

**Table 3 of seed 001.** The seed describes its last two rows as ρ between 100 random pairs of 5 (10) datasets, but on its own data the printed values match ρ between the ranking on 5 (10) random datasets and the ranking on all 30 (within sampling error), not between two disjoint subsets, which is lower. We report both: ` + "`rho_subsets_<n>`" + ` (SPEC's disjoint pairs) and ` + "`rho_vs_all_<n>`" + ` (the drop_datasets point at D − n, the seed's reading). Borda is an affine function of the mean rank, so their curves coincide.

Randomness: each (perturbation, size) draws from its own PCG stream seeded with the analysis seed, and the perturbed matrices are evaluated in parallel into fixed slots, so the numbers do not depend on ` + "`--jobs`" + `.`
