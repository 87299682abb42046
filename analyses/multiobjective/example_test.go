package multiobjective_test

import (
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/multiobjective"
)

// Four models, a base metric (hit rate) and one objective (coverage), both
// higher is better. Worked by hand: A, B and C trade hit rate for coverage
// and none dominates another (front 1); D is dominated by B (front 2). The
// trade-off line through the front's points (coverage, hit) = (0.10, 0.30),
// (0.20, 0.25), (0.30, 0.20) is exact: hit = 0.35 − 0.5·coverage, R² = 1.
func ExampleAnalyze() {
	hi := analyses.Metric{Better: analyses.HigherIsBetter, Max: math.Inf(1)}
	in := multiobjective.Input{
		Models:  []string{"A", "B", "C", "D"},
		Metrics: map[string]analyses.Metric{"hit": hi, "coverage": hi},
		Values: map[string][]float64{
			"hit":      {0.30, 0.25, 0.20, 0.15},
			"coverage": {0.10, 0.20, 0.30, 0.15},
		},
	}
	o := multiobjective.Options{Base: "hit", Objectives: []string{"coverage"}}
	o.Defaults()
	if err := o.Validate(); err != nil {
		panic(err)
	}
	res, err := multiobjective.Analyze(in, o)
	if err != nil {
		panic(err)
	}
	for i, m := range res.Models {
		fmt.Printf("%s front %d\n", m, res.Front[i])
	}
	f := res.Fits[0]
	fmt.Printf("%s: Pareto rows %v, hit = %.2f %+.2f·%s, R² = %.2f\n", f.Objective, f.ParetoRows, *f.Intercept, *f.Slope, f.Objective, *f.R2)
	// Output:
	// A front 1
	// B front 1
	// C front 1
	// D front 2
	// coverage: Pareto rows [0 1 2], hit = 0.35 -0.50·coverage, R² = 1.00
}
