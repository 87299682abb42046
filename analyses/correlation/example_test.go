package correlation_test

import (
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/correlation"
)

// Two metrics, nDCG (higher is better) and RMSE (lower is better), of three
// methods on two datasets. RMSE is negated first, so a positive coefficient
// means the metrics agree. Worked by hand: on d1 both order the methods
// A, B, C (rho = 1); on d2 the ranks are nDCG 1,3,2 and −RMSE 2,3,1, so
// Σd² = 2 and rho = 1 − 6·2/(3·8) = 0.5; the mean over datasets is 0.75.
func ExampleAnalyze() {
	in := correlation.Input{
		Metrics: []analyses.Metric{
			{Name: "ndcg", Better: analyses.HigherIsBetter, Max: math.Inf(1)},
			{Name: "rmse", Better: analyses.LowerIsBetter, Max: math.Inf(1)},
		},
		Datasets: []string{"d1", "d2"},
		Methods:  []string{"A", "B", "C"},
		Values: [][][]float64{
			{{0.3, 0.2, 0.1}, {0.1, 0.3, 0.2}}, // ndcg[d][m]
			{{0.9, 1.0, 1.1}, {1.0, 0.8, 1.2}}, // rmse[d][m]
		},
	}
	opts := correlation.Options{}
	opts.Defaults()
	res, err := correlation.Analyze(in, opts)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s of %s and %s: %.2f over %d datasets\n",
		res.Method, res.Metrics[0], res.Metrics[1], res.Rho[0][1], res.Count[0][1])
	// Output:
	// spearman of ndcg and rmse: 0.75 over 2 datasets
}

// Correlate computes one coefficient. Kendall's tau-b of (1,2,3,4) and
// (1,3,2,4): five concordant pairs and one discordant, (5 − 1)/6 = 2/3.
func ExampleCorrelate() {
	x := []float64{1, 2, 3, 4}
	y := []float64{1, 3, 2, 4}
	fmt.Printf("%.4f\n", correlation.Correlate(correlation.Kendall, x, y))
	fmt.Printf("%.4f\n", correlation.Correlate(correlation.Spearman, x, y))
	// Output:
	// 0.6667
	// 0.8000
}
