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

	"github.com/evalbook/evalbook/analyses/internal/parallel"
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
	out, err := BayesianSignedRanks([]BayesPair{{A: a, B: b}}, rope, samples, prior, src, 1)
	if err != nil {
		panic(err)
	}
	return out[0]
}

// BayesPair is one pair's paired scores, oriented so that higher is
// better.
type BayesPair struct{ A, B []float64 }

// bsrBlock is how many weights (8 bytes each) BayesianSignedRanks draws
// at a time: every pair reads them from the processor's cache.
var bsrBlock = 1 << 15

// BayesianSignedRanks runs the test on every pair, all of the same
// length, with the same posterior draws: the Dirichlet weights depend on
// the number of differences alone, not on their values, so one stream
// from src serves every pair. Each pair's probabilities are those of a
// run of its own (pair i's equal BayesianSignedRank on it with the same
// src); only their Monte Carlo errors are correlated across pairs. The
// weights are drawn once, where drawing them per pair cost more than the
// test itself, and the pairs are run on jobs goroutines; the result does
// not depend on jobs.
func BayesianSignedRanks(pairs []BayesPair, rope float64, samples int, prior float64, src rand.Source, jobs int) ([]BayesSignedRank, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	m := len(pairs[0].A)
	pos := make([]bsrPositions, len(pairs))
	for i, p := range pairs {
		if len(p.A) != m || len(p.B) != m {
			panic("stats: BayesianSignedRanks length mismatch")
		}
		pos[i] = bsrCrossings(p.A, p.B, rope)
	}
	n := m + 1
	draw := newBSRDraws(prior, src)
	block := min(max(1, bsrBlock/n), max(samples, 1))
	w, t2 := make([]float64, block*n), make([]float64, block)
	counts := make([]bsrCounts, len(pairs))
	for done := 0; done < samples; done += block {
		b := min(block, samples-done)
		for s := 0; s < b; s++ {
			t2[s] = draw.weights(w[s*n : (s+1)*n])
		}
		err := parallel.For(len(pairs), jobs, func(pi int) {
			pos[pi].count(&counts[pi], w[:b*n], t2[:b], rope)
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]BayesSignedRank, len(pairs))
	f := float64(samples)
	for i, c := range counts {
		out[i] = BayesSignedRank{Left: float64(c.left) / f, Rope: float64(c.rope) / f, Right: float64(c.right) / f}
	}
	return out, nil
}

// bsrDraws draws the posterior's Dirichlet(prior, 1, …, 1) weights as
// Gamma draws.
type bsrDraws struct {
	rng   *rand.Rand
	draw0 func() float64
}

func newBSRDraws(prior float64, src rand.Source) *bsrDraws {
	rng := rand.New(src)
	gamma := distuv.Gamma{Alpha: prior, Beta: 1, Src: src}
	d := &bsrDraws{rng: rng, draw0: gamma.Rand}
	if prior == 0.5 {
		// Gamma(½, 1) is χ²₁/2: one normal draw instead of a rejection loop.
		d.draw0 = func() float64 { z := rng.NormFloat64(); return z * z / 2 }
	}
	return d
}

// weights fills w with one draw, unnormalised, and returns the square of
// its sum: the sums count uses are quadratic in w, so they are divided by
// it once.
func (d *bsrDraws) weights(w []float64) float64 {
	w[0] = d.draw0()
	tot := w[0]
	for i := 1; i < len(w); i++ {
		w[i] = d.rng.ExpFloat64()
		tot += w[i]
	}
	return tot * tot
}

// bsrCounts counts the draws in which each of the three is the most
// probable.
type bsrCounts struct{ left, rope, right int }

// count adds to c the draws w (len(t2) of them, one after the other) of
// the pair whose crossings t holds: for each, θ_right (above) and θ_left
// (below) from the prefix sums of the weights in sorted order. Two
// draws go through each loop side by side: a prefix sum is a chain of
// additions, each waiting for the one before, and two chains overlap.
// Each draw's sums are the same additions in the same order as alone.
func (t *bsrPositions) count(c *bsrCounts, w, t2 []float64, rope float64) {
	if rope == 0 {
		t.countAbove(c, w, t2)
		return
	}
	t.countBoth(c, w, t2, rope)
}

// countBoth is count with θ_left summed too (a rope reads it).
func (t *bsrPositions) countBoth(c *bsrCounts, w, t2 []float64, rope float64) {
	n := len(t.order)
	aGT, aEQ, bLT, bEQ := t.aGT[:n], t.aEQ[:n], t.bLT[:n], t.bEQ[:n]
	cum1, cum2 := make([]float64, n+1), make([]float64, n+1)
	for s := 0; s < len(t2); s += 2 {
		w1, w2, s2 := t.prefixPair(w, s, len(t2), cum1, cum2)
		var above1, below1, above2, below2 float64
		for i := 0; i < n; i++ {
			gt, eq, lt, le := aGT[i], aEQ[i], bLT[i], bEQ[i]
			above1 += w1[i] * ((cum1[n] - cum1[gt]) + 0.5*(cum1[gt]-cum1[eq]))
			below1 += w1[i] * (cum1[lt] + 0.5*(cum1[le]-cum1[lt]))
			above2 += w2[i] * ((cum2[n] - cum2[gt]) + 0.5*(cum2[gt]-cum2[eq]))
			below2 += w2[i] * (cum2[lt] + 0.5*(cum2[le]-cum2[lt]))
		}
		c.add(above1/t2[s], below1/t2[s], rope)
		if s2 != s {
			c.add(above2/t2[s2], below2/t2[s2], rope)
		}
	}
}

// countAbove is count without a region of practical equivalence:
// there a draw is counted by θ_right alone (add with rope 0 reads
// nothing else), so θ_left is not summed. Each θ_right is the same
// additions in the same order as count's.
func (t *bsrPositions) countAbove(c *bsrCounts, w, t2 []float64) {
	n := len(t.order)
	aGT, aEQ := t.aGT[:n], t.aEQ[:n]
	cum1, cum2 := make([]float64, n+1), make([]float64, n+1)
	for s := 0; s < len(t2); s += 2 {
		w1, w2, s2 := t.prefixPair(w, s, len(t2), cum1, cum2)
		var above1, above2 float64
		for i := 0; i < n; i++ {
			gt, eq := aGT[i], aEQ[i]
			above1 += w1[i] * ((cum1[n] - cum1[gt]) + 0.5*(cum1[gt]-cum1[eq]))
			above2 += w2[i] * ((cum2[n] - cum2[gt]) + 0.5*(cum2[gt]-cum2[eq]))
		}
		c.add(above1/t2[s], 0, 0)
		if s2 != s {
			c.add(above2/t2[s2], 0, 0)
		}
	}
}

// prefixPair takes draws s and s2 = s+1 of the draws (of draws in all;
// an odd last draw goes with itself, counted once) and fills cum1 and
// cum2 with the prefix sums of their weights in sorted order.
func (t *bsrPositions) prefixPair(w []float64, s, draws int, cum1, cum2 []float64) (w1, w2 []float64, s2 int) {
	n := len(t.order)
	s2 = min(s+1, draws-1)
	w1, w2 = w[s*n:(s+1)*n], w[s2*n:(s2+1)*n]
	for k, i := range t.order {
		cum1[k+1] = cum1[k] + w1[i]
		cum2[k+1] = cum2[k] + w2[i]
	}
	return w1, w2, s2
}

// add counts one draw by its θ_right (above) and θ_left (below).
func (c *bsrCounts) add(above, below, rope float64) {
	if rope > 0 {
		mid := 1 - below - above
		switch { // numpy argmax: first maximum wins
		case below >= mid && below >= above:
			c.left++
		case mid >= above:
			c.rope++
		default:
			c.right++
		}
	} else if 1-above > above {
		c.left++
	} else {
		c.right++
	}
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
