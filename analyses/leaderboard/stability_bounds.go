package leaderboard

import (
	"fmt"
	"slices"

	"github.com/evalbook/evalbook/analyses"
)

// Why this file exists: the work of a stability analysis is the number of
// perturbed matrices times the cost of scoring one. curve_points and
// similar_methods keep the number of matrices independent of the data
// past 50 datasets or methods; this file counts them before anything is
// computed, refuses work beyond the limits with an error that says how
// to ask for less, and keeps the parts whose cost grows with the square
// of the methods (Copeland, Minimax, DM-LBO and the Pareto check on every
// perturbed matrix) within analyses.MaxStabilityPairwise.

// StabilityMatrices counts the matrices a stability analysis with options
// o scores on nd complete datasets and nm methods: the full data, every
// perturbed matrix, and both subsets of each subset_pairs pair. It counts
// what the analysis plans (TestStabilityMatricesCounted checks it against
// the plan), so a limit can be applied before any work.
func StabilityMatrices(o StabilityOptions, nd, nm int) int {
	o.Defaults()
	total := 1 // the full data
	for _, p := range stabUnique(o.Perturbations) {
		switch p {
		case PerturbDropDatasets:
			total += stabSubsetsCount(nd, stabCurveSizes(nd-2, o.CurvePoints), o.Repeats)
		case PerturbDropMethods:
			total += stabSubsetsCount(nm, stabCurveSizes(nm-3, o.CurvePoints), o.Repeats)
		case PerturbSimilarMethod:
			total += len(stabSortedUnique(o.AlphaSimilar)) * min(nm, o.SimilarMethods)
		case PerturbBestMethod:
			total += len(stabSortedUnique(o.AlphaBest))
		case PerturbBeta:
			if slices.Contains(o.Rules, RuleDMAUC) || slices.Contains(o.Rules, RuleDMLBO) {
				total += len(stabSortedUnique(o.Betas))
			}
		case PerturbSubsetPairs:
			for _, s := range stabUnique(o.SubsetSizes) {
				if 2*s <= nd {
					total += 2 * stabPairsCount(nd, s, o.Repeats)
				}
			}
		}
	}
	return total
}

// stabSubsetsCount is Σ min(C(n, k), repeats) over the sizes k.
func stabSubsetsCount(n int, sizes []int, repeats int) int {
	total := 0
	for _, k := range sizes {
		if stabBinomAtMost(n, k, repeats) {
			total += int(stabBinom(n, k))
		} else {
			total += repeats
		}
	}
	return total
}

// stabPairsCount is min(C(n, s)·C(n−s, s)/2, repeats).
func stabPairsCount(n, s, repeats int) int {
	if stabPairsAtMost(n, s, repeats) {
		return int(stabBinom(n, s) * stabBinom(n-s, s) / 2)
	}
	return repeats
}

// isQuadraticRule reports whether a rule's work on one matrix grows with
// the square of the methods: Copeland and Minimax compare every pair,
// DM-LBO recomputes every remaining method's profile after each winner
// leaves.
func isQuadraticRule(rule string) bool { return isMajorityRule(rule) || rule == RuleDMLBO }

// stabilityPairwise decides the rules and the scope of the Pareto check
// for a stability analysis of matrices matrices of nd × nm. Within
// analyses.MaxStabilityPairwise comparisons of two methods on a dataset,
// everything runs. Past it, the quadratic rules leave the default rules
// with a warning (and a rules list that names one is an error at the
// rules line), and the Pareto check runs on the full data only, or not at
// all past analyses.MaxMajorityComparisons on the full data.
//
// bound is analyses.MaxStabilityPairwise but in tests.
func stabilityPairwise(asked []string, matrices, nd, nm int, bound float64, w *analyses.Warnings) (rules []string, scope string, err error) {
	perMatrix := float64(nd) * float64(nm) * float64(nm-1) / 2
	total := float64(matrices) * perMatrix
	if total <= bound {
		return asked, "all", nil
	}
	limit := fmt.Sprintf("%d perturbed matrices of %d datasets × %d methods are %.3g comparisons of two methods on a dataset, more than the limit of %.0e", matrices, nd, nm, total, bound)
	rules = asked
	if slices.Equal(asked, AllRules) {
		rules = slices.DeleteFunc(slices.Clone(AllRules), isQuadraticRule)
		w.Warnf("copeland, minimax and dm_lbo left out of the default rules: their work grows with the square of the methods, and %s (name the other rules in rules = [...] to keep this warning away, or compare fewer methods with methods = [...])", limit)
	} else if i := slices.IndexFunc(asked, isQuadraticRule); i >= 0 {
		return nil, "", analyses.OptionErrorf("rules", "%s: its work grows with the square of the methods, and %s; leave copeland, minimax and dm_lbo out of rules, lower repeats or curve_points, or compare fewer methods with methods = [...]", asked[i], limit)
	}
	if perMatrix > analyses.MaxMajorityComparisons {
		w.Warnf("the Pareto check is left out: it compares every pair of methods, and %d datasets × %d methods are %.3g comparisons, more than the limit of %.0e", nd, nm, perMatrix, float64(analyses.MaxMajorityComparisons))
		return rules, "none", nil
	}
	w.Warnf("the Pareto check runs on the full data only: on every perturbed matrix, %s", limit)
	return rules, "full", nil
}
