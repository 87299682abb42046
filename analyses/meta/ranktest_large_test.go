package meta

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evalbook/evalbook/analyses/stats"
)

// Past RankTestExactMax studies the rank test's p is the normal
// approximation: the exact distribution costs k³ (19 s at 2 000 studies,
// which made a meta_analysis with sensitivity over thousands of
// datasets crawl); up to it, the exact p as metafor.
func TestRankTestLargeIsApproximate(t *testing.T) {
	for _, k := range []int{RankTestExactMax, RankTestExactMax + 1} {
		rng := rand.New(rand.NewPCG(7, uint64(k)))
		y, v := make([]float64, k), make([]float64, k)
		for i := range y {
			y[i], v[i] = rng.NormFloat64(), 0.01+rng.Float64()
		}
		r, err := RankTest(y, v)
		if err != nil {
			t.Fatal(err)
		}
		var sw, swy float64
		for i := range y {
			sw += 1 / v[i]
			swy += y[i] / v[i]
		}
		ys := make([]float64, k)
		for i := range y {
			ys[i] = (y[i] - swy/sw) / math.Sqrt(v[i]-1/sw)
		}
		_, want := stats.KendallTest(ys, v, k <= RankTestExactMax)
		_, other := stats.KendallTest(ys, v, k > RankTestExactMax)
		if r.P != want || r.P == other {
			t.Errorf("k = %d: p %v, want %v (exact = %v), not %v", k, r.P, want, k <= RankTestExactMax, other)
		}
	}
}
