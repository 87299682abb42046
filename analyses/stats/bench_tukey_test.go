package stats

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkTukeyHSD20 times Tukey's HSD of 20 methods on 30 datasets
// (190 pairs, each p-value a double integral).
func BenchmarkTukeyHSD20(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	groups := make([][]float64, 20)
	for i := range groups {
		groups[i] = make([]float64, 30)
		for j := range groups[i] {
			groups[i][j] = rng.NormFloat64() + 0.05*float64(i)
		}
	}
	for i := 0; i < b.N; i++ {
		if _, err := TukeyHSD(groups, 0.05); err != nil {
			b.Fatal(err)
		}
	}
}
