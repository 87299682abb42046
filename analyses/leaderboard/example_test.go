package leaderboard_test

import (
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
)

// Three methods on three datasets, nDCG (higher is better). The expected
// values are worked by hand: the per-dataset ranks are A 1,2,1; B 2,1,2;
// C 3,3,3, so the mean ranks are 4/3, 5/3 and 3; the means are 1.2/3,
// 1.12/3 and 0.96/3; A beats B on two datasets of three and C on all,
// B beats C on all, so Copeland (pairwise wins minus losses) gives
// +2, 0, −2.
func ExampleAggregate() {
	in := leaderboard.AggregateInput{
		Metric:   analyses.Metric{Name: "ndcg", Better: analyses.HigherIsBetter, Max: math.Inf(1)},
		Datasets: []string{"d1", "d2", "d3"},
		Methods:  []string{"A", "B", "C"},
		Q: analyses.Matrix{
			{0.30, 0.25, 0.20},
			{0.40, 0.45, 0.35},
			{0.50, 0.42, 0.41},
		},
	}
	opts := leaderboard.AggregateOptions{
		Metric: "ndcg",
		Rules:  []string{leaderboard.RuleMeanRank, leaderboard.RuleMean, leaderboard.RuleCopeland},
	}
	opts.Defaults()
	if err := opts.Validate(); err != nil {
		panic(err)
	}
	res, err := leaderboard.Aggregate(in, opts)
	if err != nil {
		panic(err)
	}
	for _, rule := range res.Rules {
		fmt.Printf("%-9s", rule)
		for m, name := range res.Methods {
			fmt.Printf("  %s %.4f (#%g)", name, res.Scores[rule][m], res.Ranks[rule][m])
		}
		fmt.Println()
	}
	// Output:
	// mean_rank  A 1.3333 (#1)  B 1.6667 (#2)  C 3.0000 (#3)
	// mean       A 0.4000 (#1)  B 0.3733 (#2)  C 0.3200 (#3)
	// copeland   A 2.0000 (#1)  B 0.0000 (#2)  C -2.0000 (#3)
}

// RuleScores scores one rule on a complete matrix, without the checks and
// tables of Aggregate. Borda gives each method, per dataset, the number of
// methods ranked below it (M − rank): A 2+1+2, B 1+2+1, C 0.
func ExampleRuleScores() {
	q := analyses.Matrix{
		{0.30, 0.25, 0.20},
		{0.40, 0.45, 0.35},
		{0.50, 0.42, 0.41},
	}
	scores, err := leaderboard.RuleScores(leaderboard.RuleBorda, q, true, 3)
	if err != nil {
		panic(err)
	}
	fmt.Println(scores)
	// Output:
	// [5 4 0]
}
