package significance

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

func benchMatrix(d, m int) CriticalDifferenceInput {
	rng := rand.New(rand.NewPCG(1, 2))
	q := make([][]float64, d)
	for i := range q {
		q[i] = make([]float64, m)
		for j := range q[i] {
			q[i][j] = 0.3 - 0.01*float64(j) + 0.03*rng.NormFloat64()
		}
	}
	methods := make([]string, m)
	for j := range methods {
		methods[j] = string(rune('A' + j))
	}
	in := cdInput(q, methods...)
	in.Jobs = 1
	return in
}

// BenchmarkCriticalDifference: 30 datasets × 11 methods as Shevchenko et
// al. 2024, with the Bayesian test at the default 50,000 draws for each of
// the 55 pairs.
func BenchmarkCriticalDifference(b *testing.B) {
	in := benchMatrix(30, 11)
	for _, bayes := range []bool{false, true} {
		name := "wilcoxon"
		if bayes {
			name = "bayesian-50000"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := CriticalDifference(in, CriticalDifferenceOptions{Metric: "m", Bayesian: bayes}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPairedTests: one pair over 100,000 users.
func BenchmarkPairedTests(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 100000
	in := PairedTestsInput{Metric: analyses.Metric{Name: "m"}, Over: "users", Methods: []string{"A", "B"}, Values: [][]float64{make([]float64, n), make([]float64, n)}}
	for u := 0; u < n; u++ {
		in.Units = append(in.Units, "u")
		e := rng.NormFloat64()
		in.Values[0][u] = math.Max(0, 0.3+0.1*e+0.05*rng.NormFloat64())
		in.Values[1][u] = math.Max(0, 0.29+0.1*e+0.05*rng.NormFloat64())
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := PairedTests(in, PairedTestsOptions{Metric: "m"}); err != nil {
			b.Fatal(err)
		}
	}
}
