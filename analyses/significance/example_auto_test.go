package significance_test

import (
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/analyses/significance"
)

// Three methods on six datasets; C has one outlying dataset, so
// Shapiro–Wilk rejects its normality at 0.05/3 and the procedure takes
// Friedman's test with Nemenyi's critical difference. Checked with scipy
// 1.10: shapiro gives p = 0.91872, 0.36420 and 7.65e-05;
// friedmanchisquare χ² = 7, p = 0.0302; the critical difference is
// studentized_range.ppf(0.95, 3, inf)/√2 · √(3·4/(6·6)) = 1.3531; Akinshin's
// γ of A against B and C (MADs scaled by 1.4826) is 0.8047 and 2.7301.
// With six datasets no order-statistic interval of a median reaches
// 98.33%: the widest covers 1 − 2/2⁶ = 96.875%, and a note says so.
func ExampleAuto() {
	in := leaderboard.AggregateInput{
		Metric:   analyses.Metric{Name: "ndcg", Better: analyses.HigherIsBetter, Max: math.Inf(1)},
		Datasets: []string{"d1", "d2", "d3", "d4", "d5", "d6"},
		Methods:  []string{"A", "B", "C"},
		Q: analyses.Matrix{
			{0.31, 0.29, 0.20},
			{0.42, 0.40, 0.21},
			{0.35, 0.30, 0.22},
			{0.50, 0.45, 0.21},
			{0.28, 0.27, 0.20},
			{0.39, 0.33, 0.60},
		},
	}
	res, err := significance.Auto(in, significance.AutoOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Branch, res.Methods)
	for _, nm := range res.Normality {
		fmt.Printf("Shapiro–Wilk %s: p = %.5f, normal %v\n", nm.Method, *nm.P, nm.Normal)
	}
	fmt.Printf("Friedman χ² = %.3f, p = %.4f; CD = %.3f\n", *res.OmnibusStatistic, *res.OmnibusP, *res.CriticalDifference)
	for _, s := range res.Report()[3:] {
		fmt.Println(s)
	}
	fmt.Println(res.Notes())
	// Output:
	// friedman_nemenyi [A B C]
	// Shapiro–Wilk A: p = 0.91872, normal true
	// Shapiro–Wilk B: p = 0.36420, normal true
	// Shapiro–Wilk C: p = 0.00008, normal false
	// Friedman χ² = 7.000, p = 0.0302; CD = 1.353
	// Because not all methods are normal, Friedman's test checked for differences in central tendency, with Nemenyi's test as post hoc test: two methods differ significantly when their mean ranks (MR) are more than the critical difference CD = 1.353 apart; each method is reported with the median (MD), the median absolute deviation (MAD) and the 98.33% confidence interval of the median.
	// Friedman's test (χ²(2) = 7.000, p = 0.030) rejects that A (MD = 0.3700, 98.33% CI [0.2800, 0.5000], MAD = 0.0550, MR = 1.17), B (MD = 0.3150, 98.33% CI [0.2700, 0.4500], MAD = 0.0350, MR = 2.17) and C (MD = 0.2100, 98.33% CI [0.2000, 0.6000], MAD = 0.0100, MR = 2.67) perform the same: there are significant differences between the methods.
	// Nemenyi's test finds no significant difference within these groups: A and B; B and C; all other pairs differ significantly.
	// Against the best-ranked A, the effect sizes (Akinshin's γ) are B 0.805 (large) and C 2.730 (large).
	// [only 6 datasets: Friedman's χ² approximation is rough below 10 (Demšar 2006 §3.2.2) with 6 datasets the widest interval of a median, from the smallest to the largest value, covers only 0.9688, below the level 0.9833]
}
