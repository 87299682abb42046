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

// maxStabilityCells bounds the cells (datasets × methods) of all the
// matrices one stability analysis scores: scoring a matrix under every
// rule costs about 300 ns a cell (10 datasets × 1 000 methods, 2 268
// matrices: 2.3·10⁷ cells, 7 s of CPU), so the limit is a few minutes.
// The number of matrices no longer grows with the data past curve_points
// and similar_methods (50 each by default), and the work that grows with
// the square of the methods has its own bound in the analysis
// (analyses.MaxStabilityPairwise).
const maxStabilityCells = 500_000_000

// CheckStabilityWork counts the matrices a stability analysis would score
// on nd datasets and nm methods (leaderboard.StabilityMatrices) and
// refuses more than maxStabilityMatrices, or more than maxStabilityCells
// cells in all.
func CheckStabilityWork(o *leaderboard.StabilityOptions, nd, nm int) error {
	r := o.Repeats
	total := leaderboard.StabilityMatrices(*o, nd, nm)
	if total > maxStabilityMatrices {
		return fmt.Errorf("stability on %d datasets and %d methods with repeats = %d needs %d perturbed matrices, above the limit of %d; lower repeats or list fewer perturbations",
			nd, nm, r, total, maxStabilityMatrices)
	}
	if cells := float64(total) * float64(nd) * float64(nm); cells > maxStabilityCells {
		return fmt.Errorf("stability on %d datasets and %d methods with repeats = %d needs %d perturbed matrices of up to %d × %d, %.2g cells to score, above the limit of %.0e; lower repeats or curve_points, list fewer perturbations, or compare fewer methods (methods = [...]) or datasets",
			nd, nm, r, total, nd, nm, cells, float64(maxStabilityCells))
	}
	return nil
}
