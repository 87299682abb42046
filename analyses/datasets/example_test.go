package datasets_test

import (
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/datasets"
)

// dataset_selection asks how well a small subset of datasets, chosen by
// each strategy, reproduces the leaderboard of them all (Spearman's ρ
// between the two rankings). Here every dataset orders the three methods
// the same way, so every subset reproduces the full ranking and ρ is 1 in
// every simulation of every strategy — the value is known without
// running anything, whatever datasets the random draws pick.
func ExampleSelection() {
	in := datasets.SelectionInput{
		Datasets: []string{"d1", "d2", "d3", "d4", "d5"},
		Features: []string{"density", "users"},
		X: [][]float64{
			{0.01, 1000}, {0.05, 5000}, {0.02, 800}, {0.10, 20000}, {0.03, 3000},
		},
		Methods: []string{"A", "B", "C"},
		Metrics: []analyses.Metric{{Name: "ndcg", Better: analyses.HigherIsBetter, Max: math.Inf(1)}},
		Q: []analyses.Matrix{{
			{0.30, 0.20, 0.10},
			{0.35, 0.25, 0.15},
			{0.50, 0.45, 0.40},
			{0.20, 0.15, 0.05},
			{0.40, 0.30, 0.25},
		}},
		Seed: 1,
		Jobs: 1,
	}
	opts := datasets.SelectionOptions{
		Metrics:     []string{"ndcg"},
		Size:        3,
		Strategies:  []string{datasets.StrategyRandom, datasets.StrategyDOptimal},
		Simulations: 20,
	}
	opts.Defaults()
	if err := opts.Validate(); err != nil {
		panic(err)
	}
	res, err := datasets.Selection(in, opts)
	if err != nil {
		panic(err)
	}
	for _, s := range res.Summary {
		fmt.Printf("%-9s %s: mean ρ %.2f over %d simulations\n", s.Strategy, s.Metric, *s.Mean, s.Defined)
	}
	// Output:
	// random    ndcg: mean ρ 1.00 over 20 simulations
	// d_optimal ndcg: mean ρ 1.00 over 20 simulations
}
