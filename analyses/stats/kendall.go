package stats

import (
	"math"
	"sort"
)

// KendallTest is R's cor.test(x, y, method = "kendall", exact = exact)
// with the two-sided alternative: tau is Kendall's tau-b; without ties
// and with exact set, p is from the exact null distribution of the
// number of concordant pairs (the Mahonian numbers, as R's pkendall),
// its upper tail taken by symmetry so that a small p keeps its relative
// precision (R computes 1 − P(T ≤ q − 1)); with ties, or exact unset,
// p is the normal approximation with the tie-corrected variance of
// S = C − D and no continuity correction. NaN for fewer than two pairs or
// a constant side.
func KendallTest(x, y []float64, exact bool) (tau, p float64) {
	n := len(x)
	if n != len(y) {
		panic("stats: KendallTest length mismatch")
	}
	tau = KendallTauB(x, y)
	if math.IsNaN(tau) {
		return tau, math.NaN()
	}
	xt, yt := tieGroups(x), tieGroups(y)
	if exact && len(xt) == 0 && len(yt) == 0 {
		nn := n * (n - 1) / 2
		// q = round((r + 1)·n(n − 1)/4): the concordant pairs.
		q := int(math.RoundToEven((tau + 1) * float64(n) * float64(n-1) / 4))
		dist := kendallDist(n)
		var tail float64
		if 2*q > nn {
			// P(T ≥ q) = P(T ≤ nn − q).
			for k := 0; k <= nn-q; k++ {
				tail += dist[k]
			}
		} else {
			for k := 0; k <= q; k++ {
				tail += dist[k]
			}
		}
		return tau, math.Min(1, 2*tail)
	}
	nf := float64(n)
	t0 := nf * (nf - 1) / 2
	var t1, t2, vt, vu, v1x, v1y, v2x, v2y float64
	for _, t := range xt {
		t1 += t * (t - 1) / 2
		vt += t * (t - 1) * (2*t + 5)
		v1x += t * (t - 1)
		v2x += t * (t - 1) * (t - 2)
	}
	for _, t := range yt {
		t2 += t * (t - 1) / 2
		vu += t * (t - 1) * (2*t + 5)
		v1y += t * (t - 1)
		v2y += t * (t - 1) * (t - 2)
	}
	s := tau * math.Sqrt((t0-t1)*(t0-t2))
	v0 := nf * (nf - 1) * (2*nf + 5)
	varS := (v0-vt-vu)/18 + v1x*v1y/(2*nf*(nf-1)) + v2x*v2y/(9*nf*(nf-1)*(nf-2))
	return tau, NormalTwoSidedP(s / math.Sqrt(varS))
}

// tieGroups returns the sizes of the groups of equal values of x that
// have more than one member.
func tieGroups(x []float64) []float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	var g []float64
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if j-i > 1 {
			g = append(g, float64(j-i))
		}
		i = j
	}
	return g
}

// kendallDist is the null distribution of the number of concordant
// pairs among n (equivalently of inversions of a random permutation):
// P(T = k), k = 0 … n(n − 1)/2, built one element at a time,
// P_m(k) = (1/m) Σ_{j=0}^{m−1} P_{m−1}(k − j). Only the lower half is
// summed, with a running window, and the upper half is its mirror image:
// the term leaving the window is then the window's smallest, so even the
// far tail keeps its relative precision; O(n³).
func kendallDist(n int) []float64 {
	d := []float64{1}
	for m := 2; m <= n; m++ {
		nn := len(d) + m - 2 // largest k of P_m
		next := make([]float64, nn+1)
		var win float64
		for k := 0; 2*k <= nn; k++ {
			if k < len(d) {
				win += d[k]
			}
			if k-m >= 0 {
				win -= d[k-m]
			}
			next[k] = win / float64(m)
			next[nn-k] = next[k]
		}
		d = next
	}
	return d
}
