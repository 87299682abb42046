package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBayesianSignedRanksShareDraws: every pair run together gets the
// probabilities of a run of its own from the same stream, whatever the
// number of goroutines and wherever the blocks of draws end; ties on
// the thresholds (scores in tenths, a rope of 0.05 and 0.1) included.
func TestBayesianSignedRanksShareDraws(t *testing.T) {
	defer func(b int) { bsrBlock = b }(bsrBlock)
	r := rand.New(rand.NewPCG(7, 11))
	for c := 0; c < 40; c++ {
		m := 1 + r.IntN(30)
		pairs := make([]BayesPair, 1+r.IntN(8))
		for i := range pairs {
			a, b := make([]float64, m), make([]float64, m)
			for j := range a {
				a[j], b[j] = float64(r.IntN(5))/10, float64(r.IntN(5))/10
				if c%2 == 1 {
					a[j] += r.NormFloat64() / 10
				}
			}
			pairs[i] = BayesPair{A: a, B: b}
		}
		rope, prior, samples := []float64{0, 0.05, 0.1}[c%3], []float64{0.5, 1}[c%2], 1+r.IntN(2000)
		bsrBlock = 1 + r.IntN(200) // blocks of a few draws, and one of a single weight
		var first []BayesSignedRank
		for _, jobs := range []int{1, 3} {
			got, err := BayesianSignedRanks(pairs, rope, samples, prior, rand.NewPCG(uint64(c), 5), jobs)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = got
			}
			for i, p := range pairs {
				if want := BayesianSignedRank(p.A, p.B, rope, samples, prior, rand.NewPCG(uint64(c), 5)); got[i] != want {
					t.Fatalf("case %d, %d jobs, pair %d: %+v together, %+v alone", c, jobs, i, got[i], want)
				}
				if s := got[i].Left + got[i].Rope + got[i].Right; math.Abs(s-1) > 1e-12 {
					t.Fatalf("case %d, pair %d: %d draws, probabilities sum to %g", c, i, samples, s)
				}
				if got[i] != first[i] {
					t.Fatalf("case %d, pair %d: %+v with 3 jobs, %+v with 1", c, i, got[i], first[i])
				}
			}
		}
	}
}

// TestBayesAboveAloneAtRopeZero: without a rope a draw is counted by
// θ_right alone, and countAbove, which sums nothing else, counts as
// countBoth does on the same draws: random pairs, tied scores, odd
// numbers of draws.
func TestBayesAboveAloneAtRopeZero(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 9))
	for c := 0; c < 300; c++ {
		m := 2 + r.IntN(40)
		a, b := make([]float64, m), make([]float64, m)
		for i := range a {
			a[i], b[i] = float64(r.IntN(10))/10, float64(r.IntN(10))/10
			if c%2 == 0 {
				a[i], b[i] = r.Float64(), r.Float64()
			}
		}
		pos := bsrCrossings(a, b, 0)
		draws := 1 + r.IntN(400)
		n := m + 1
		d := newBSRDraws([]float64{0.5, 1}[c%2], rand.NewPCG(uint64(c), 5))
		w, t2 := make([]float64, draws*n), make([]float64, draws)
		for s := range t2 {
			t2[s] = d.weights(w[s*n : (s+1)*n])
		}
		var above, both bsrCounts
		pos.countAbove(&above, w, t2)
		pos.countBoth(&both, w, t2, 0)
		if above != both || above.left+above.right != draws {
			t.Fatalf("case %d (%d differences, %d draws): %+v, with θ_left summed %+v", c, m, draws, above, both)
		}
	}
}
