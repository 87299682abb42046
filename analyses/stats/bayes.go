package stats

// The Bayesian signed-rank test of Benavoli, Corani, Demšar & Zaffalon
// (2017, §5.2; "Time for a change", JMLR 18(77)), the dashed bars of
// Shevchenko et al. 2024, Fig. 4. It follows baycomp's SignedRankTest: a
// Dirichlet process posterior over the differences with a
// pseudo-observation at 0 of weight `prior` (0.5), and for every posterior
// draw w the probabilities
//
//	θ_right = Σ_ij w_i w_j H(z_i + z_j − 2r),  θ_left = Σ_ij w_i w_j H(−z_i − z_j − 2r),
//
// H(0) = ½. baycomp builds the (n+1)² matrix per draw; here the pairs are
// sorted once so each draw costs O(n) (for a fixed i the j with
// z_i + z_j above the threshold are a suffix of the sorted z), which makes
// 50,000 draws for every pair of 11 methods cheap. The Monte Carlo stream
// is seeded by the caller, so the same seed gives the same probabilities.

import (
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// BayesSignedRank holds the posterior probabilities that the first method
// is better (Left, baycomp's p_left), that the two are practically
// equivalent (Rope) and that the second is better (Right).
type BayesSignedRank struct {
	Left, Rope, Right float64
}

// BayesianSignedRank runs the test on paired scores a, b (oriented so
// that higher is better) with a region of practical equivalence ±rope,
// drawing `samples` posterior samples from src. With rope = 0 it returns
// baycomp's two-way answer (Rope = 0).
func BayesianSignedRank(a, b []float64, rope float64, samples int, prior float64, src rand.Source) BayesSignedRank {
	if len(a) != len(b) {
		panic("stats: BayesianSignedRank length mismatch")
	}
	n := len(a) + 1
	t := bsrCrossings(a, b, rope)
	order, aGT, aEQ, bLT, bEQ := t.order, t.aGT, t.aEQ, t.bLT, t.bEQ
	rng := rand.New(src)
	gamma := distuv.Gamma{Alpha: prior, Beta: 1, Src: src}
	draw0 := gamma.Rand
	if prior == 0.5 {
		// Gamma(½, 1) is χ²₁/2: one normal draw instead of a rejection loop.
		draw0 = func() float64 { z := rng.NormFloat64(); return z * z / 2 }
	}
	w := make([]float64, n)
	cum := make([]float64, n+1) // prefix sums of w in sorted order
	var left, rp, right int
	for s := 0; s < samples; s++ {
		// Dirichlet(prior, 1, …, 1) as normalised Gamma draws; the sums
		// below are quadratic in w, so they are divided by tot² once.
		w[0] = draw0()
		tot := w[0]
		for i := 1; i < n; i++ {
			w[i] = rng.ExpFloat64()
			tot += w[i]
		}
		for k, i := range order {
			cum[k+1] = cum[k] + w[i]
		}
		var above, below float64
		for i := 0; i < n; i++ {
			above += w[i] * ((cum[n] - cum[aGT[i]]) + 0.5*(cum[aGT[i]]-cum[aEQ[i]]))
			below += w[i] * (cum[bLT[i]] + 0.5*(cum[bEQ[i]]-cum[bLT[i]]))
		}
		t2 := tot * tot
		above /= t2
		below /= t2
		if rope > 0 {
			mid := 1 - below - above
			switch { // numpy argmax: first maximum wins
			case below >= mid && below >= above:
				left++
			case mid >= above:
				rp++
			default:
				right++
			}
		} else if 1-above > above {
			left++
		} else {
			right++
		}
	}
	f := float64(samples)
	return BayesSignedRank{Left: float64(left) / f, Rope: float64(rp) / f, Right: float64(right) / f}
}

// bsrPositions are, for each difference z_i (z_0 = 0 the prior
// pseudo-observation), the sorted positions where z_i + z_j crosses the
// thresholds: above, s > 2·rope on [aGT, n) and s == 2·rope on [aEQ, aGT);
// below, −s > 2·rope on [0, bLT) and −s == 2·rope on [bLT, bEQ). order
// sorts the differences.
type bsrPositions struct {
	order, aGT, aEQ, bLT, bEQ []int
}

// bsrCrossings computes the differences b − a (baycomp's y − x) and their
// threshold positions.
func bsrCrossings(a, b []float64, rope float64) bsrPositions {
	n := len(a) + 1
	z := make([]float64, n) // z[0] = 0 is the prior pseudo-observation
	for i := range a {
		z[i+1] = b[i] - a[i] // baycomp: diff = y − x
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return z[order[x]] < z[order[y]] })
	sz := make([]float64, n)
	for k, i := range order {
		sz[k] = z[i]
	}
	thr := 2 * rope
	t := bsrPositions{order: order, aGT: make([]int, n), aEQ: make([]int, n), bLT: make([]int, n), bEQ: make([]int, n)}
	for i := 0; i < n; i++ {
		zi := z[i]
		t.aGT[i] = sort.Search(n, func(k int) bool { return zi+sz[k] > thr })
		t.aEQ[i] = sort.Search(n, func(k int) bool { return zi+sz[k] >= thr })
		t.bLT[i] = sort.Search(n, func(k int) bool { return !(-(zi + sz[k]) > thr) })
		t.bEQ[i] = sort.Search(n, func(k int) bool { return !(-(zi + sz[k]) >= thr) })
	}
	return t
}
