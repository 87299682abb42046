package explore

import (
	"testing"
)

// BenchmarkCompute30x11 is one view of 30 datasets × 11 methods with
// both analyses (the Bayesian signed-rank test with 20,000 draws), as
// the page's module computes it, natively.
func BenchmarkCompute30x11(b *testing.B) {
	for _, bayes := range []bool{false, true} {
		d := study(30, 11)
		d.CriticalDifference.Options.Bayesian = bayes
		d.CriticalDifference.Options.Samples = 20000
		name := "frequentist"
		if bayes {
			name = "bayesian"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Compute(d, d.Published); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
