package significance_test

import (
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/analyses/significance"
)

// Two methods on five datasets. Checked independently (Python, standard
// library only): the differences are 0.02, 0.07, −0.01, 0.09, 0.08, mean
// 0.05, sd 0.0430, t = 2.5994 on 4 degrees of freedom, whose two-sided p
// (Simpson's rule on Student's density) is 0.0601. The Wilcoxon statistic
// is the smaller rank sum, 1 (the −0.01), and exactly 2 of the 32 sign
// patterns reach it on each side: p = 4/32. The sign test: 4 of 5
// positive, p = 2·6/32 = 0.375.
func ExamplePairedTests() {
	in := significance.PairedTestsInput{
		Metric:  analyses.Metric{Name: "ndcg", Better: analyses.HigherIsBetter, Max: math.Inf(1)},
		Over:    "datasets",
		Units:   []string{"d1", "d2", "d3", "d4", "d5"},
		Methods: []string{"A", "B"},
		Values: [][]float64{
			{0.30, 0.42, 0.25, 0.50, 0.38},
			{0.28, 0.35, 0.26, 0.41, 0.30},
		},
	}
	opts := significance.PairedTestsOptions{Metric: "ndcg"}
	opts.Defaults()
	res, err := significance.PairedTests(in, opts)
	if err != nil {
		panic(err)
	}
	p := res.Pairs[0]
	fmt.Printf("%s − %s over %d %s: mean difference %.3f\n", p.A, p.B, p.N, res.Over, *p.MeanDiff)
	fmt.Printf("paired t = %.4f, p = %.4f\n", *p.PairedT, *p.PPairedT)
	fmt.Printf("Wilcoxon T = %g, p = %.4f (%s)\n", *p.WilcoxonT, *p.PWilcoxon, p.WilcoxonMode)
	fmt.Printf("sign test: %g of %d positive, p = %.4f\n", *p.SignK, p.N, *p.PSign)
	// Output:
	// A − B over 5 datasets: mean difference 0.050
	// paired t = 2.5994, p = 0.0601
	// Wilcoxon T = 1, p = 0.1250 (exact)
	// sign test: 4 of 5 positive, p = 0.3750
}

// Three methods on four datasets. Worked by hand (Demšar 2006): the
// per-dataset ranks sum to 5, 7 and 12 (mean ranks 1.25, 1.75, 3);
// Friedman's chi² = 12/(4·3·4)·(25 + 49 + 144) − 3·4·4 = 6.5 on 2 degrees of
// freedom, p = exp(−6.5/2) = 0.0388; Nemenyi's q(0.05, 3) is the
// studentized range quantile of 3 means over √2, 3.3145/√2 = 2.3437
// (Demšar's Table 5a truncates it to 2.343), and the critical difference
// is q·√(3·4/(6·4)) = 1.6572.
func ExampleCriticalDifference() {
	in := significance.CriticalDifferenceInput{
		AggregateInput: leaderboard.AggregateInput{
			Metric:   analyses.Metric{Name: "ndcg", Better: analyses.HigherIsBetter, Max: math.Inf(1)},
			Datasets: []string{"d1", "d2", "d3", "d4"},
			Methods:  []string{"A", "B", "C"},
			Q: analyses.Matrix{
				{0.30, 0.25, 0.20},
				{0.40, 0.45, 0.35},
				{0.50, 0.42, 0.41},
				{0.33, 0.31, 0.29},
			},
		},
		Jobs: 1,
	}
	opts := significance.CriticalDifferenceOptions{Metric: "ndcg"}
	opts.Defaults()
	res, err := significance.CriticalDifference(in, opts)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Methods, res.MeanRanks)
	fmt.Printf("Friedman chi² = %.4f, p = %.4f\n", *res.FriedmanStatistic, *res.FriedmanP)
	fmt.Printf("Nemenyi q = %.4f, critical difference = %.4f\n", res.NemenyiQ, res.CriticalDifference)
	// Output:
	// [A B C] [1.25 1.75 3]
	// Friedman chi² = 6.5000, p = 0.0388
	// Nemenyi q = 2.3437, critical difference = 1.6572
}
