package stats_test

import (
	"fmt"

	"github.com/evalbook/evalbook/analyses/stats"
)

// Holm's step-down adjustment, worked by hand: sorted, the p-values are
// multiplied by 4, 3, 2 and 1 (0.04, 0.09, 0.08, 0.20), then made monotone
// by a running maximum (0.08 becomes 0.09) and put back in input order.
func ExampleHolm() {
	fmt.Printf("%.2f\n", stats.Holm([]float64{0.01, 0.04, 0.03, 0.20}))
	// Output:
	// [0.04 0.09 0.09 0.20]
}

// The signed-rank test on six differences. By hand: the absolute values
// rank 2, 4, 1, 3, 6, 5; the one negative difference has rank 1, so
// R− = 1 and R+ = 20. Exactly two of the 2⁶ sign patterns give a rank sum
// ≤ 1 (none and {1}), so the exact two-sided p is 2·2/64 = 0.0625.
func ExampleWilcoxon() {
	d := []float64{0.5, 1.2, -0.3, 0.8, 2.0, 1.5}
	w, err := stats.Wilcoxon(d, stats.ZeroPratt, stats.WilcoxonAuto, false)
	if err != nil {
		panic(err)
	}
	fmt.Printf("T = %g (R+ %g, R− %g), p = %.4f, %s\n", w.Statistic, w.RPlus, w.RMinus, w.P, w.Method)
	// Output:
	// T = 1 (R+ 20, R− 1), p = 0.0625, exact
}

// Mann–Whitney U of two completely separated samples of three: U = 0 and,
// of the C(6,3) = 20 equally likely splits, one is as extreme on each
// side, so the exact two-sided p is 2/20.
func ExampleMannWhitneyU() {
	res, exact := stats.MannWhitneyU([]float64{1, 2, 3}, []float64{4, 5, 6})
	fmt.Printf("U = %g, p = %.2f, exact: %v\n", res.Statistic, res.P, exact)
	// Output:
	// U = 0, p = 0.10, exact: true
}

// RankData gives tied values their average rank, 1 = smallest.
func ExampleRankData() {
	fmt.Println(stats.RankData([]float64{10, 20, 10, 30}))
	// Output:
	// [1.5 3 1.5 4]
}

// Quantile interpolates linearly, as numpy's default: the 0.25 quantile of
// 1, 2, 3, 4 sits at position 0.25·3 = 0.75, between 1 and 2.
func ExampleQuantile() {
	fmt.Println(stats.Quantile([]float64{1, 2, 3, 4}, 0.25))
	// Output:
	// 1.75
}
