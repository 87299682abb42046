package meta_test

import (
	"fmt"

	"github.com/evalbook/evalbook/analyses/meta"
)

// Log odds ratios from the 2×2 tables a paper prints (the first four BCG
// vaccine trials of Colditz et al. 1994, as metafor's dat.bcg, and a
// trial with no case in the vaccinated group, which gets escalc's 1/2 in
// every cell), then back-transformed to an odds ratio. The numbers are
// those of R: escalc("OR", ai, n1i, ci, n2i) prints the same yi and vi
// and exp(yi) the same odds ratio.
func ExampleEscalcTables() {
	tabs, err := meta.TablesFromGroups(
		[]float64{4, 6, 3, 62, 0}, []float64{123, 306, 231, 13598, 40},
		[]float64{11, 29, 11, 248, 4}, []float64{139, 303, 220, 12867, 38})
	if err != nil {
		panic(err)
	}
	es, err := meta.EscalcTables(meta.MeasureOR, tabs, meta.DefaultZeroCellsFor(meta.MeasureOR))
	if err != nil {
		panic(err)
	}
	for i := range es.Yi {
		fmt.Printf("study %d: log OR %.4f, variance %.4f\n", i+1, es.Yi[i], es.Vi[i])
	}
	or, _ := meta.BackTransform(meta.MeasureOR, es.Yi[0], nil)
	fmt.Printf("study 1: OR %.4f\n", or)
	// Output:
	// study 1: log OR -0.9387, variance 0.3571
	// study 2: log OR -1.6662, variance 0.2081
	// study 3: log OR -1.3863, variance 0.4334
	// study 4: log OR -1.4564, variance 0.0203
	// study 5: log OR -2.3576, variance 2.2759
	// study 1: OR 0.3911
}

// A pooled proportion from the counts papers print (metafor's
// dat.pritz1997: xi of ni patients): Freeman–Tukey double arcsine
// effects, a REML random-effects model, and the summary, its confidence
// and prediction intervals back-transformed with Miller's inverse at the
// harmonic mean of the ni. R prints the same with
// predict(rma(yi, vi, method = "REML", control = list(threshold = 1e-12)),
// transf = transf.ipft.hm, targs = list(ni = ni)).
func ExampleEscalcProportions() {
	xi := []float64{16, 10, 4, 43, 10, 25, 13, 12, 22, 4, 5, 18, 58, 6}
	ni := []float64{17, 12, 8, 58, 10, 42, 14, 12, 41, 5, 6, 23, 68, 10}
	es, err := meta.EscalcProportions(meta.MeasurePFT, xi, ni, meta.DefaultZeroCellsFor(meta.MeasurePFT))
	if err != nil {
		panic(err)
	}
	d, _ := meta.NewDesign(len(xi), nil)
	r, err := meta.MetaRegression(es.Yi, es.Vi, d, meta.RegOptions{Method: "REML", Test: "z", Alpha: 0.05})
	if err != nil {
		panic(err)
	}
	c := r.Coefs[0]
	piLow, piHigh := r.PredictionInterval(0.05)
	p, err := meta.BackTransformSummary(meta.MeasurePFT, c.Est, c.CILow, c.CIHigh, piLow, piHigh, ni)
	if err != nil {
		panic(err)
	}
	fmt.Printf("double arcsine %.6f [%.6f, %.6f]\n", c.Est, c.CILow, c.CIHigh)
	fmt.Printf("proportion %.6f, CI [%.6f, %.6f], PI [%.6f, %.6f]\n", p.Effect, p.CILow, p.CIHigh, p.PILow, p.PIHigh)
	// Output:
	// double arcsine 1.084679 [0.978047, 1.191311]
	// proportion 0.802900, CI [0.702206, 0.889347], PI [0.464630, 0.998942]
}
