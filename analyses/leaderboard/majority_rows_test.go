package leaderboard

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// TestMajorityByRowsIdentical: Copeland and Minimax computed one method
// at a time are bit for bit those of the pairwise-wins matrix, on seeded
// matrices with many ties, both directions.
func TestMajorityByRowsIdentical(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 1))
	for _, shape := range [][2]int{{1, 5}, {3, 40}, {10, 61}, {25, 7}} {
		nd, nm := shape[0], shape[1]
		q := make(analyses.Matrix, nd)
		for d := range q {
			q[d] = make([]float64, nm)
			for m := range q[d] {
				q[d][m] = float64(rng.IntN(6)) / 4 // ties on purpose
			}
		}
		for _, higher := range []bool{true, false} {
			c, m := majorityByRows(q, higher)
			w := pairwiseWins(q, higher)
			for rule, got := range map[string][]float64{RuleCopeland: c, RuleMinimax: m} {
				want := majority(rule, w)
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%d×%d, higher %v, %s of method %d: %v, from the wins matrix %v", nd, nm, higher, rule, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestMajorityMemory: above majorityStoreMax methods, Copeland and
// Minimax no longer allocate the methods × methods wins matrix (72 MB for
// 3 000 methods; 800 MB for the 10 000 an aggregate allows).
func TestMajorityMemory(t *testing.T) {
	const nd, nm = 2, 3000
	rng := rand.New(rand.NewPCG(7, 31))
	q := make(analyses.Matrix, nd)
	for d := range q {
		q[d] = make([]float64, nm)
		for m := range q[d] {
			q[d][m] = rng.Float64()
		}
	}
	s := NewScorer(q, true)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, rule := range []string{RuleCopeland, RuleMinimax} {
		if _, err := s.Scores(rule, 3); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("Copeland and Minimax of %d methods allocated %d bytes (the wins matrix: %d)", nm, alloc, 8*nm*nm)
	if alloc > 1<<20 {
		t.Fatalf("Copeland and Minimax of %d methods allocated %d bytes, above 1 MiB", nm, alloc)
	}
}
