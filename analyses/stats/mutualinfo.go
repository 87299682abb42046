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
// not finite. The neighbour search walks outward from each point in the
// order of x (or of y, when y has more distinct values) and stops where
// that variable alone is farther than the k-th distance found (miKth): about n·√(kn) distances on continuous data rather than
// n², and the same ε bit for bit, since ε is the k-th smallest of a set of
// distances whatever order they are visited in.
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
	// Walk along the variable with more distinct values: along a tied
	// one (a dataset feature pooled over every method) nothing prunes.
	wa, wb := miWalkAxes(xs, ys, sx, sy)
	order, pos := miOrder(wa)
	kth := make([]float64, k) // the k smallest distances so far, ascending
	var sumX, sumY float64
	for i := range n {
		eps, _ := miKth(wa, wb, order, pos, i, kth)
		r := math.Nextafter(eps, 0)
		nx := miWithin(sx, xs[i], r) - 1
		ny := miWithin(sy, ys[i], r) - 1
		sumX += mathext.Digamma(float64(nx + 1))
		sumY += mathext.Digamma(float64(ny + 1))
	}
	mi := mathext.Digamma(float64(n)) + mathext.Digamma(float64(k)) - sumX/float64(n) - sumY/float64(n)
	return math.Max(0, mi)
}

// miWalkAxes returns xs, ys, or ys, xs when ys has more distinct values
// (sx and sy are their sorted copies). The max norm is symmetric, so
// either order finds the same distances.
func miWalkAxes(xs, ys, sx, sy []float64) (walk, other []float64) {
	if miDistinct(sy) > miDistinct(sx) {
		return ys, xs
	}
	return xs, ys
}

// miDistinct counts the distinct values of sorted s.
func miDistinct(s []float64) int {
	n := 0
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			n++
		}
	}
	return n
}

// miOrder returns the indices of xs sorted by value (ties by index) and
// each index's place in that order.
func miOrder(xs []float64) (order, pos []int) {
	order = make([]int, len(xs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case xs[a] < xs[b]:
			return -1
		case xs[a] > xs[b]:
			return 1
		}
		return 0
	})
	pos = make([]int, len(xs))
	for p, i := range order {
		pos[i] = p
	}
	return order, pos
}

// miKth returns the distance (max norm over x and y) from point i to its
// k-th nearest other point, k = len(kth), and how many distances it
// computed. It visits the other points outward from i in the order of x,
// the nearer in x first, and stops once both sides are at least the k-th
// smallest distance so far away in x alone: every point beyond is at least
// that far, and only a strictly smaller distance changes the k smallest.
func miKth(xs, ys []float64, order, pos []int, i int, kth []float64) (float64, int) {
	k := len(kth)
	m, visited := 0, 0
	lo, hi := pos[i]-1, pos[i]+1
	for lo >= 0 || hi < len(order) {
		var j int
		switch {
		case lo < 0:
			j = order[hi]
			hi++
		case hi >= len(order):
			j = order[lo]
			lo--
		case math.Abs(xs[i]-xs[order[lo]]) <= math.Abs(xs[i]-xs[order[hi]]):
			j = order[lo]
			lo--
		default:
			j = order[hi]
			hi++
		}
		dx := math.Abs(xs[i] - xs[j])
		if m == k && dx >= kth[k-1] {
			// j is the nearer side in x: the farther side and all
			// beyond are at least dx away too.
			break
		}
		visited++
		d := math.Max(dx, math.Abs(ys[i]-ys[j]))
		if m < k {
			kth[m] = d
			m++
			for p := m - 1; p > 0 && kth[p] < kth[p-1]; p-- {
				kth[p], kth[p-1] = kth[p-1], kth[p]
			}
			continue
		}
		if d < kth[k-1] {
			kth[k-1] = d
			for p := k - 1; p > 0 && kth[p] < kth[p-1]; p-- {
				kth[p], kth[p-1] = kth[p-1], kth[p]
			}
		}
	}
	return kth[k-1], visited
}

// miWithin counts the values v of sorted s with |v − c| ≤ r, computing the
// distance exactly as the KD-tree does (|v − c|, not c ± r bounds, which
// round differently).
func miWithin(s []float64, c, r float64) int {
	// Start a little below c − r (its rounding must not drop a point) and
	// test each candidate exactly.
	lo, _ := slices.BinarySearch(s, c-r-(math.Abs(c)+r)*1e-12)
	cnt := 0
	for j := lo; j < len(s); j++ {
		d := math.Abs(s[j] - c)
		if d <= r {
			cnt++
		} else if s[j] > c {
			break
		}
	}
	return cnt
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
