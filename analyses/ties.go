package analyses

import (
	"math"
	"sort"
)

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

// RankScores ranks scores so that 1 = best (the largest when
// higherBetter, else the smallest); scores that are Tied share the
// average of the ranks they occupy, as scipy's rankdata "average" does
// for equal values. A group is the run of sorted scores tied with its
// first, so a tie never chains across more than TieTolerance. NaN gets
// NaN. Every ranking of scores (aggregation rules, mean ranks, "ranks
// first" in findings) goes through it or CompareScores.
func RankScores(x []float64, higherBetter bool) []float64 {
	idx := make([]int, 0, len(x))
	r := make([]float64, len(x))
	for i, v := range x {
		if math.IsNaN(v) {
			r[i] = math.NaN()
			continue
		}
		idx = append(idx, i)
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if higherBetter {
			return x[idx[a]] > x[idx[b]]
		}
		return x[idx[a]] < x[idx[b]]
	})
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && Tied(x[idx[j]], x[idx[i]]) {
			j++
		}
		avg := float64(i+j+1) / 2 // ranks i+1 … j
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		i = j
	}
	return r
}

// Leaders returns the indices of the best-ranked entries of ranks (all
// that share the smallest rank), in index order.
func Leaders(ranks []float64) []int {
	best := math.Inf(1)
	for _, r := range ranks {
		if r < best {
			best = r
		}
	}
	var out []int
	for i, r := range ranks {
		if r == best {
			out = append(out, i)
		}
	}
	return out
}
