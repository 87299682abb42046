package stats

// Mutual information for the characteristics analysis (Shevchenko et al.
// 2024, §4.3, Fig. 7 — "Mutual information, a nonlinear alternative" to the
// correlations). The paper's numbers come from scikit-learn, so the
// estimator is scikit-learn's mutual_info_regression for one continuous
// feature and a continuous target: Kraskov, Stögbauer & Grassberger (2004),
// estimator 1.

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"
)

// MutualInfoKSG estimates the mutual information (in nats) between x and y
// with the Kraskov k-nearest-neighbour estimator, as scikit-learn 1.2's
// mutual_info_regression(x[:, None], y, n_neighbors=k):
//
//   - x and y are each divided by their population standard deviation
//     (sklearn.preprocessing.scale(with_mean=False); a zero sd counts as 1);
//   - for each point, ε is the distance to its k-th neighbour in the max
//     norm over (x, y); n_x and n_y count the other points strictly closer
//     than ε in x and in y (sklearn queries the radius nextafter(ε, 0));
//   - MI = ψ(n) + ψ(k) − ⟨ψ(n_x + 1)⟩ − ⟨ψ(n_y + 1)⟩, floored at 0.
//
// scikit-learn also adds noise of relative size 1e-10 to both variables
// (its random_state); this function does not. On continuous data without
// ties the noise never changes a neighbour count, so the results agree;
// on tied data this is sklearn's noise-free _compute_mi_cc on the scaled
// values, which is deterministic. It returns NaN when n ≤ k or a value is
// not finite. The neighbour search is a 2-d tree (miTree): about n log n
// work rather than the n² of a scan of every point, and the same ε bit for
// bit, since ε is the k-th smallest of a set of distances whatever order
// they are visited in.
func MutualInfoKSG(x, y []float64, k int) float64 {
	if len(x) != len(y) {
		panic("stats: MutualInfoKSG length mismatch")
	}
	if k < 1 {
		panic("stats: MutualInfoKSG needs k ≥ 1")
	}
	n := len(x)
	if n <= k {
		return math.NaN()
	}
	for i := range x {
		if !finite(x[i]) || !finite(y[i]) {
			return math.NaN()
		}
	}
	xs, ys := miScale(x), miScale(y)
	sx, sy := slices.Clone(xs), slices.Clone(ys)
	slices.Sort(sx)
	slices.Sort(sy)
	tree := newMiTree(xs, ys)
	kth := make([]float64, k) // the k smallest distances so far, ascending
	var sumX, sumY float64
	for i := range n {
		eps, _ := tree.kth(i, kth)
		r := math.Nextafter(eps, 0)
		nx := miWithin(sx, xs[i], r) - 1
		ny := miWithin(sy, ys[i], r) - 1
		sumX += mathext.Digamma(float64(nx + 1))
		sumY += mathext.Digamma(float64(ny + 1))
	}
	mi := mathext.Digamma(float64(n)) + mathext.Digamma(float64(k)) - sumX/float64(n) - sumY/float64(n)
	return math.Max(0, mi)
}

// miScale divides x by its population standard deviation computed as
// numpy's nanstd does (pairwise sums: the mean, then the mean of squared
// deviations), so that tied data scale to the same bits as in sklearn and
// ties of distances fall the same way; a standard deviation below 10·eps
// counts as 1, as in sklearn's _handle_zeros_in_scale.
func miScale(x []float64) []float64 {
	n := float64(len(x))
	mean := npPairwiseSum(x) / n
	dev := make([]float64, len(x))
	for i, v := range x {
		d := v - mean
		dev[i] = d * d
	}
	sd := math.Sqrt(npPairwiseSum(dev) / n)
	if sd < 10*2.220446049250313e-16 {
		sd = 1
	}
	out := dev // reuse
	for i, v := range x {
		out[i] = v / sd
	}
	return out
}

// npPairwiseSum is numpy's pairwise summation of float64 (the inner loop
// of np.add.reduce on contiguous data): blocks of up to 128 values summed
// with eight accumulators, larger arrays split in two at a multiple of 8.
func npPairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		res := 0.0
		for _, v := range a {
			res += v
		}
		return res
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += a[i+j]
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return npPairwiseSum(a[:n2]) + npPairwiseSum(a[n2:])
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
