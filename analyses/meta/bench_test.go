package meta

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// metaBenchStudies returns k generic studies with heterogeneity.
func metaBenchStudies(k int) []Study {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]Study, k)
	for i := range out {
		v := math.Exp(math.Log(1e-3) + rng.Float64()*math.Log(1e3))
		out[i] = Study{Dataset: fmt.Sprintf("study-%05d", i), Form: Generic,
			Yi: 0.2 + rng.NormFloat64()*math.Sqrt(v+0.05), Vi: v}
	}
	return out
}

// BenchmarkMetaSensitivity10k: a random-effects (DL) meta-analysis of
// 10,000 studies with sensitivity = true (leave-one-out, influence and
// Egger's test), the computation behind `make bench`'s summary study.
func BenchmarkMetaSensitivity10k(b *testing.B) {
	for _, c := range []struct{ tau2, test string }{{"DL", "z"}, {"DL", "knha"}, {"HE", "z"}} {
		b.Run(c.tau2+"/"+c.test, func(b *testing.B) {
			studies := metaBenchStudies(10000)
			var o Options
			o.Defaults()
			o.Treatment, o.Control, o.Tau2, o.Test, o.Sensitivity = "new", "old", Tau2Option(c.tau2), c.test, true
			o.Summary.Path = "bench.csv"
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := Analyze(Input{Studies: studies}, o)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.LeaveOneOut) != 10000 {
					b.Fatal("no leave-one-out fits")
				}
			}
		})
	}
}
