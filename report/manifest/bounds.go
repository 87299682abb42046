package manifest

// Why this file exists: an analysis's options are checked by their
// Validate method (analyses/bounds.go holds the limits), which names the
// key it rejects in an *analyses.OptionError. BurntSushi/toml keeps no
// positions, so this file finds the line of that key inside the
// analysis's [[analyses]] table, nested tables such as
// [analyses.evalrs2022] included, and reports the error there instead of
// at the table's header.

import (
	"errors"
	"fmt"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
)

// optionErrors turns the error of an analysis's Validate or Check into
// manifest errors, each at the line of the key it names (the analysis's
// header line when it names none or the key is not written out).
func (s *Study) optionErrors(file string, a AnalysisSpec, err error) []error {
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	out := make([]error, 0, len(list))
	for _, e := range list {
		line := a.Line
		var oe *analyses.OptionError
		if errors.As(e, &oe) && a.Key != "" {
			line = s.Line(a.Key + "." + oe.Key) // the key's line, else its closest parent's
		}
		out = append(out, &ManifestError{File: file, Line: line, Msg: fmt.Sprintf("analyses (%s): %v", a.ID, e)})
	}
	return out
}

// maxStabilityMatrices bounds the perturbed matrices one stability
// analysis plans. Its options are bounded on their own, but the number of
// matrices also grows with the datasets and methods of the data: each
// costs about 2.4 KB while planned and evaluated (measured on 30 datasets
// × 11 methods with repeats = 10000: 261 459 matrices, 610 MB, 33 s on 2
// cores), so the limit keeps the worst case near 2.5 GB.
const maxStabilityMatrices = 1_000_000

// maxStabilityWork bounds the comparisons of pairs of methods one
// stability analysis makes: every perturbed matrix is scored by rules
// that compare every pair of its methods on every dataset (the pairwise
// rules and the Pareto check), so a matrix costs datasets × methods², and
// the matrices themselves grow with the datasets (drop_datasets) and the
// methods (drop_methods, similar_method): the work grows with the cube
// of the methods. The 261 459 matrices of 30 datasets × 11 methods above
// are 9.5·10⁸ comparisons (33 s); 100 methods × 10 datasets with
// repeats = 10 are 4.4·10⁸, 1 000 methods 4·10¹¹ (hours).
const maxStabilityWork = 2_000_000_000

// CheckStabilityWork counts the matrices a stability analysis would plan
// on nd datasets and nm methods (as leaderboard.Stability plans them: every
// subset of a size when there are at most repeats, else repeats of them)
// and refuses more than maxStabilityMatrices.
func CheckStabilityWork(o *leaderboard.StabilityOptions, nd, nm int) error {
	r := o.Repeats
	subsets := func(n, k int) int { // min(C(n, k), r)
		c := 1.0
		for j := 1; j <= k; j++ {
			c = c * float64(n-k+j) / float64(j)
			if c > float64(r) {
				return r
			}
		}
		return int(c)
	}
	distinct := func(list []float64) int {
		seen := map[float64]bool{}
		for _, v := range list {
			seen[v] = true
		}
		return len(seen)
	}
	total := 1 // the full data
	for _, p := range o.Perturbations {
		switch p {
		case leaderboard.PerturbDropDatasets:
			for i := 1; i <= nd-2; i++ {
				total += subsets(nd, i)
			}
		case leaderboard.PerturbDropMethods:
			for i := 1; i <= nm-3; i++ {
				total += subsets(nm, i)
			}
		case leaderboard.PerturbSimilarMethod:
			total += distinct(o.AlphaSimilar) * nm
		case leaderboard.PerturbBestMethod:
			total += distinct(o.AlphaBest)
		case leaderboard.PerturbBeta:
			total += distinct(o.Betas)
		case leaderboard.PerturbSubsetPairs:
			for _, s := range o.SubsetSizes {
				if 2*s <= nd {
					total += r
				}
			}
		}
	}
	if total > maxStabilityMatrices {
		return fmt.Errorf("stability on %d datasets and %d methods with repeats = %d needs %d perturbed matrices, above the limit of %d; lower repeats or list fewer perturbations",
			nd, nm, r, total, maxStabilityMatrices)
	}
	if work := float64(total) * float64(nd) * float64(nm) * float64(nm); work > maxStabilityWork {
		return fmt.Errorf("stability on %d datasets and %d methods with repeats = %d needs %d perturbed matrices of up to %d × %d, %.2g comparisons of two methods on a dataset, above the limit of %.0e; list fewer methods (methods = [...]) or datasets, lower repeats or list fewer perturbations",
			nd, nm, r, total, nd, nm, work, float64(maxStabilityWork))
	}
	return nil
}
