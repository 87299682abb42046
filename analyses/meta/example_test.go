package meta_test

import (
	"fmt"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/meta"
)

// A random-effects meta-analysis (DerSimonian and Laird 1986) of three
// datasets given as effects yi with sampling variances vi (the generic
// form of a summary file). Checked with a dozen lines of Python (standard
// library only, the DerSimonian–Laird formulas as written here): the fixed weights 1/vi are 100, 25, 50, the fixed estimate 32.5/175, so
// Q = 3.2143 on 2 degrees of freedom and I² = (Q − 2)/Q = 37.8 %;
// τ² = (Q − 2)/(175 − 13125/175) = 0.012143; the random weights
// 1/(vi + τ²) give the estimate 0.2130 with standard error 0.1024, and the
// z-test's 95 % interval is 0.2130 ± 1.96·0.1024, p = erfc(|z|/√2).
func ExampleAnalyze() {
	in := meta.Input{
		Metric: analyses.Metric{Name: "ndcg", Better: analyses.HigherIsBetter},
		Studies: []meta.Study{
			{Dataset: "d1", Form: meta.Generic, Yi: 0.1, Vi: 0.01},
			{Dataset: "d2", Form: meta.Generic, Yi: 0.5, Vi: 0.04},
			{Dataset: "d3", Form: meta.Generic, Yi: 0.2, Vi: 0.02},
		},
	}
	var o meta.Options
	o.Defaults()
	o.Treatment, o.Control, o.Metric = "new", "old", "ndcg"
	o.Model, o.Tau2, o.Test = "random", "DL", "z"
	if err := o.Validate(); err != nil {
		panic(err)
	}
	res, err := meta.Analyze(in, o)
	if err != nil {
		panic(err)
	}
	s := res.Summary
	fmt.Printf("k = %d, Q = %.4f (df %d), I² = %.1f %%, tau² = %.6f\n", s.K, *s.Q, s.DF, *s.I2, *s.Tau2)
	fmt.Printf("effect %.4f, se %.4f, 95%% CI [%.4f, %.4f], p = %.4f\n", *s.Effect, *s.SE, *s.CILow, *s.CIHigh, *s.P)
	for _, r := range res.Rows {
		fmt.Printf("%s weight %.3f\n", r.Dataset, r.Weight)
	}
	// Output:
	// k = 3, Q = 3.2143 (df 2), I² = 37.8 %, tau² = 0.012143
	// effect 0.2130, se 0.1024, 95% CI [0.0123, 0.4136], p = 0.0375
	// d1 weight 0.473
	// d2 weight 0.201
	// d3 weight 0.326
}
