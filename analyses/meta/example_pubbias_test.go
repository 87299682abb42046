package meta_test

import (
	"fmt"

	"github.com/evalbook/evalbook/analyses/meta"
)

// bcg returns the log risk ratios and variances of the 13 BCG vaccine
// trials (Colditz et al. 1994, metafor's dat.bcg) and their years.
func bcg() (yi, vi, year []float64) {
	tpos := []float64{4, 6, 3, 62, 33, 180, 8, 505, 29, 17, 186, 5, 27}
	tneg := []float64{119, 300, 228, 13536, 5036, 1361, 2537, 87886, 7470, 1699, 50448, 2493, 16886}
	cpos := []float64{11, 29, 11, 248, 47, 372, 10, 499, 45, 65, 141, 3, 29}
	cneg := []float64{128, 274, 209, 12619, 5761, 1079, 619, 87892, 7232, 1600, 27197, 2338, 17825}
	year = []float64{1948, 1949, 1960, 1977, 1973, 1953, 1973, 1980, 1968, 1961, 1974, 1969, 1976}
	tabs := make([]meta.Table2x2, len(tpos))
	for i := range tabs {
		tabs[i] = meta.Table2x2{AI: tpos[i], BI: tneg[i], CI: cpos[i], DI: cneg[i]}
	}
	es, err := meta.EscalcTables(meta.MeasureRR, tabs, meta.DefaultZeroCellsFor(meta.MeasureRR))
	if err != nil {
		panic(err)
	}
	return es.Yi, es.Vi, year
}

// Publication bias in the BCG trials: trim and fill (L0, the side chosen
// as metafor chooses it), the rank correlation test and the fail-safe N.
// R prints the same: trimfill(rma(yi, vi, method = "DL")),
// ranktest(yi, vi), fsn(yi, vi) and fsn(yi, vi, type = "Rosenberg").
func ExampleTrimFill() {
	yi, vi, _ := bcg()
	tf, err := meta.TrimFill(yi, vi, meta.RegOptions{Method: "DL", Test: "z", Alpha: 0.05}, "", meta.EstimatorL0)
	if err != nil {
		panic(err)
	}
	c := tf.Fit.Coefs[0]
	fmt.Printf("%d studies filled on the %s side (se %.4f)\n", tf.K0, tf.Side, tf.SEK0)
	fmt.Printf("adjusted estimate %.4f [%.4f, %.4f], tau² %.4f\n", c.Est, c.CILow, c.CIHigh, tf.Fit.Tau2)
	rt, _ := meta.RankTest(yi, vi)
	fmt.Printf("rank test: tau = %.4f, p = %.4f\n", rt.Tau, rt.P)
	for _, typ := range []string{meta.FSNRosenthal, meta.FSNRosenberg} {
		f, _ := meta.FailSafeN(yi, vi, typ, 0.05, 0, false)
		fmt.Printf("fail-safe N (%s): %v\n", typ, f.N)
	}
	// Output:
	// 1 studies filled on the right side (se 2.4528)
	// adjusted estimate -0.6561 [-0.9961, -0.3161], tau² 0.3081
	// rank test: tau = 0.0256, p = 0.9524
	// fail-safe N (Rosenthal): 598
	// fail-safe N (Rosenberg): 370
}

// A cumulative meta-analysis of the BCG trials in order of publication
// (the two trials of 1973 in the order given), as R's
// cumul(rma(yi, vi, method = "DL"), order = year) prints it.
func ExampleCumulative() {
	yi, vi, year := bcg()
	steps, err := meta.Cumulative(yi, vi, year, false, meta.RegOptions{Method: "DL", Test: "z", Alpha: 0.05})
	if err != nil {
		panic(err)
	}
	for _, s := range steps {
		fmt.Printf("%.0f  k=%2d  %7.4f [%7.4f, %7.4f]  tau² %.4f\n", year[s.Study], s.K, s.Est, s.CILow, s.CIHigh, s.Tau2)
	}
	// Output:
	// 1948  k= 1  -0.8893 [-2.0077,  0.2290]  tau² 0.0000
	// 1949  k= 2  -1.3250 [-2.0090, -0.6410]  tau² 0.0000
	// 1953  k= 3  -0.9615 [-1.4192, -0.5039]  tau² 0.0754
	// 1960  k= 4  -0.9524 [-1.3143, -0.5905]  tau² 0.0426
	// 1961  k= 5  -1.0993 [-1.4870, -0.7116]  tau² 0.0832
	// 1968  k= 6  -0.9540 [-1.2826, -0.6254]  tau² 0.0723
	// 1969  k= 7  -0.8977 [-1.2472, -0.5482]  tau² 0.0965
	// 1973  k= 8  -0.7819 [-1.1229, -0.4410]  tau² 0.1220
	// 1973  k= 9  -0.8531 [-1.1905, -0.5157]  tau² 0.1351
	// 1974  k=10  -0.7645 [-1.0667, -0.4622]  tau² 0.1279
	// 1976  k=11  -0.6881 [-0.9814, -0.3949]  tau² 0.1382
	// 1977  k=12  -0.7901 [-1.1097, -0.4704]  tau² 0.2109
	// 1980  k=13  -0.7141 [-1.0644, -0.3638]  tau² 0.3088
}
