package analyses

import "math"

// TieTolerance is the relative tolerance under which two scores are the
// same score: |a−b| ≤ TieTolerance·max(|a|,|b|). A mean over datasets
// computed in two orders differs in the last bits (0.08490566037735849
// against …585); a ranking must not turn that noise into a win. 1e-9 is
// far below any difference a benchmark reports (four to six significant
// digits) and far above float64 rounding (about 1e-16 per operation).
const TieTolerance = 1e-9

// Tied reports whether a and b are the same score within TieTolerance.
// NaN ties with nothing; equal infinities tie.
func Tied(a, b float64) bool {
	if a == b {
		return true
	}
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return false
	}
	return math.Abs(a-b) <= TieTolerance*math.Max(math.Abs(a), math.Abs(b))
}

// CompareScores returns -1, 0 or +1 as a is below, tied with or above b
// (Tied decides 0). NaN sorts below every number.
func CompareScores(a, b float64) int {
	switch {
	case Tied(a, b):
		return 0
	case math.IsNaN(a):
		return -1
	case math.IsNaN(b):
		return 1
	case a < b:
		return -1
	default:
		return 1
	}
}
