package analyses

// Why this file exists: every option that sizes work or memory has an
// upper bound, so that a typo (repeats = 1000000000, beta_max = 1e7) is a
// clear error at its manifest line instead of an out-of-memory crash, and
// every float option must be finite (TOML accepts nan and inf). The
// Validate methods of the options check through these helpers so that
// every kind words its limits the same way; the limits are listed in the
// README's manifest reference.

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Limits of the options. Each is generous for real studies (usually 100×
// the default or more) while the worst case stays within a few GB and
// minutes.
const (
	// MaxBetaMax bounds β̂ of the Dolan–Moré rules: the grid 1, 1.1, …, β̂
	// then has at most 9 991 points.
	MaxBetaMax = 1000
	// MaxRepeats bounds stability's random subsets per size.
	MaxRepeats = 10_000
	// MaxGridValues bounds stability's alpha_similar, alpha_best and betas
	// lists (each value is one more set of perturbed matrices).
	MaxGridValues = 1000
	// MaxCurvePoints bounds stability's curve_points (the sizes of the
	// drop_datasets and drop_methods curves).
	MaxCurvePoints = 10_000
	// MaxGridFactor bounds the factors of alpha_similar and alpha_best.
	MaxGridFactor = 1000
	// MaxSubsetSizes bounds stability's subset_sizes list and each size.
	MaxSubsetSizes = 100
	MaxSubsetSize  = 10_000
	// MaxSamples bounds the Monte Carlo draws of the Bayesian signed-rank
	// test (per pair of methods).
	MaxSamples = 1_000_000
	// MaxSimulations bounds dataset_selection's simulations and MaxSelect
	// its size.
	MaxSimulations = 50_000
	MaxSelect      = 1000
	// MaxComponents bounds PCA components (clusters, dataset_selection).
	MaxComponents = 1000
	// MaxTrees bounds the Isolation Forest.
	MaxTrees = 10_000
	// MaxK bounds k and k_range of the clusters analysis.
	MaxK = 1000
	// MaxInits and MaxIter bound the k-means starts and Lloyd iterations.
	MaxInits = 1000
	MaxIter  = 10_000
	// MaxNeighbors bounds k of the Kraskov mutual-information estimator.
	MaxNeighbors = 100
	// MaxCutoff bounds each offline_metrics cutoff k, MaxCutoffs their
	// number.
	MaxCutoff  = 1 << 20
	MaxCutoffs = 100
	// MaxObjectives bounds multi_objective's objectives (one figure and
	// one front each) and MaxCompare its compare list.
	MaxObjectives = 100
	MaxCompare    = 100
	// MaxCorrelationMetrics bounds the metrics of one correlation matrix
	// (every ordered pair is a row of its table).
	MaxCorrelationMetrics = 1000
	// MaxMethods and MaxDatasets bound the methods and datasets one
	// analysis compares (its results matrix): every analysis costs at
	// most n log n in each up to them; a million methods would make
	// tables and figures nobody can read, in gigabytes.
	MaxMethods  = 10_000
	MaxDatasets = 10_000
	// MaxPairwiseMethods bounds the methods of an analysis that compares
	// every pair (critical_difference, paired_tests): 200 methods are
	// 19 900 pairs, each a row of its tables and a test of its own.
	MaxPairwiseMethods = 200
	// MaxResultsMethods and MaxResultsDatasets bound the names the
	// results may hold, for analyses that each choose up to MaxMethods
	// and MaxDatasets of them: reading stops at the first name past the
	// limit (a million methods took 88 s and 1.2 GB to be refused).
	MaxResultsMethods  = 100_000
	MaxResultsDatasets = 100_000
	// MaxMajorityComparisons bounds the Copeland and Minimax rules, which
	// compare every pair of methods on every dataset (datasets ×
	// methods·(methods−1)/2 comparisons, about 2 s at the limit): the
	// only rules whose work grows with the square of the methods. Past
	// it, the default rules leave them out with a warning, and rules that
	// name them are an error (10 datasets allow 4 472 methods).
	MaxMajorityComparisons = 100_000_000
	// MaxStabilityPairwise bounds the comparisons of two methods on a
	// dataset that a stability analysis makes over all its perturbed
	// matrices (matrices × datasets × methods·(methods−1)/2) for the
	// rules whose work grows with the square of the methods and for the
	// Pareto check on every matrix (10 datasets × 300 methods, 2 268
	// matrices, are 10⁹ comparisons and took 12 s of CPU). Past it,
	// those rules leave the default rules with a warning, and the Pareto
	// check runs on the full data only.
	MaxStabilityPairwise = 3_000_000_000
)

// CheckMatrixSize reports more methods or datasets than one analysis
// compares (MaxMethods, MaxDatasets; MaxPairwiseMethods when pairwise),
// as an OptionError on "methods" or "datasets", the keys that choose
// fewer.
func CheckMatrixSize(datasets, methods int, pairwise bool) error {
	maxM, per := MaxMethods, ""
	if pairwise {
		maxM, per = MaxPairwiseMethods, ", as every pair is compared"
	}
	if methods > maxM {
		return OptionErrorf("methods", "%d methods, above the limit of %d for one analysis%s; list the ones to compare in `methods = [...]`", methods, maxM, per)
	}
	if datasets > MaxDatasets {
		return OptionErrorf("datasets", "%d datasets, above the limit of %d for one analysis; list the ones to compare in `datasets = [...]`", datasets, MaxDatasets)
	}
	return nil
}

// OptionError is a problem with one key of an analysis's options. Key is
// the key's dotted path inside the [[analyses]] table ("repeats",
// "evalrs2022.groups.fairness.weight"), so that the manifest reader can
// point at the line that holds it.
type OptionError struct {
	Key string
	Msg string
}

// Error is "key: message".
func (e *OptionError) Error() string { return e.Key + ": " + e.Msg }

// OptionErrorf returns an *OptionError for key.
func OptionErrorf(key, format string, args ...any) error {
	return &OptionError{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// CheckInt reports an int option outside [lo, hi].
func CheckInt(key string, v, lo, hi int) error {
	switch {
	case v > hi:
		return OptionErrorf(key, "%d is above the limit of %d", v, hi)
	case v < lo:
		return OptionErrorf(key, "%d is below the minimum of %d", v, lo)
	}
	return nil
}

// CheckFloat reports a float option that is NaN, infinite or outside
// [lo, hi].
func CheckFloat(key string, v, lo, hi float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return OptionErrorf(key, "%g is not a finite number", v)
	case v > hi:
		return OptionErrorf(key, "%g is above the limit of %g", v, hi)
	case v < lo:
		return OptionErrorf(key, "%g is below the minimum of %g", v, lo)
	}
	return nil
}

// CheckPositive reports a float option that is not finite, not above 0,
// or above hi.
func CheckPositive(key string, v, hi float64) error {
	if err := CheckFloat(key, v, math.Inf(-1), hi); err != nil {
		return err
	}
	if !(v > 0) {
		return OptionErrorf(key, "must be positive, got %g", v)
	}
	return nil
}

// CheckFloats checks every value of a float list with checkFloat, its
// length against maxLen and that no value repeats.
func CheckFloats(key string, list []float64, lo, hi float64, maxLen int) error {
	if err := CheckLen(key, len(list), maxLen); err != nil {
		return err
	}
	for _, v := range list {
		if err := CheckFloat(key, v, lo, hi); err != nil {
			return err
		}
	}
	return CheckDistinct(key, list)
}

// CheckLen reports a list longer than max.
func CheckLen(key string, n, max int) error {
	if n > max {
		return OptionErrorf(key, "%d values is above the limit of %d", n, max)
	}
	return nil
}

// CheckDistinct reports the first value listed twice: a repeated rule,
// metric or method would give duplicate table columns and JSON keys.
func CheckDistinct[T comparable](key string, list []T) error {
	seen := make(map[T]bool, len(list))
	for _, v := range list {
		if seen[v] {
			if s, ok := any(v).(string); ok {
				return OptionErrorf(key, "%q is listed twice", s)
			}
			return OptionErrorf(key, "%v is listed twice", v)
		}
		seen[v] = true
	}
	return nil
}

// FirstError returns the first non-nil error.
func FirstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// OneOf checks an enumerated option: v must be one of allowed, else the
// error names the closest allowed value and lists them all.
func OneOf(key, v string, allowed ...string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return OptionErrorf(key, "unknown value %q%s (one of %s)", v, DidYouMean(v, allowed), strings.Join(allowed, ", "))
}
