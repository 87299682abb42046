package meta_test

import (
	"fmt"

	"github.com/evalbook/evalbook/analyses/meta"
)

// A meta-regression of the BCG vaccine trials (Colditz et al. 1994, as
// metafor's dat.bcg): log risk ratios from the printed 2×2 tables,
// regressed on the trial's absolute latitude with REML, and the
// Q-profile interval of the residual τ². R prints the same numbers with
// REML run to convergence: rma(yi, vi, mods = ~ ablat, data = escalc("RR",
// …), control = list(threshold = 1e-12)) and confint(…, control =
// list(tol = 1e-12)) (with metafor's defaults, which stop at a change of
// 1e-5 in τ², τ² is 0.0764 and QM 16.3571).
func ExampleMetaRegression() {
	tpos := []float64{4, 6, 3, 62, 33, 180, 8, 505, 29, 17, 186, 5, 27}
	tneg := []float64{119, 300, 228, 13536, 5036, 1361, 2537, 87886, 7470, 1699, 50448, 2493, 16886}
	cpos := []float64{11, 29, 11, 248, 47, 372, 10, 499, 45, 65, 141, 3, 29}
	cneg := []float64{128, 274, 209, 12619, 5761, 1079, 619, 87892, 7232, 1600, 27197, 2338, 17825}
	ablat := []float64{44, 55, 42, 52, 13, 44, 19, 13, 27, 42, 18, 33, 33}
	tabs := make([]meta.Table2x2, len(tpos))
	for i := range tabs {
		tabs[i] = meta.Table2x2{AI: tpos[i], BI: tneg[i], CI: cpos[i], DI: cneg[i]}
	}
	es, err := meta.EscalcTables(meta.MeasureRR, tabs, meta.DefaultZeroCellsFor(meta.MeasureRR))
	if err != nil {
		panic(err)
	}
	d, err := meta.NewDesign(len(tabs), []meta.Moderator{{Name: "ablat", Numeric: ablat}})
	if err != nil {
		panic(err)
	}
	r, err := meta.MetaRegression(es.Yi, es.Vi, d, meta.RegOptions{Method: "REML", Test: "z", Alpha: 0.05})
	if err != nil {
		panic(err)
	}
	fmt.Printf("tau² %.4f, I² %.2f%%, H² %.2f, R² %.2f%%\n", r.Tau2, r.I2, r.H2, r.R2)
	fmt.Printf("QE(df = %d) = %.4f, p = %.4f; QM(df = %d) = %.4f, p = %.2e\n", r.QEdf, r.QE, r.QEp, r.QMdf[0], r.QM, r.QMp)
	for _, c := range r.Coefs {
		fmt.Printf("%-7s %8.4f %7.4f %8.4f %.4f [%.4f, %.4f]\n", c.Name, c.Est, c.SE, c.Stat, c.P, c.CILow, c.CIHigh)
	}
	ci, err := meta.QProfileCI(es.Yi, es.Vi, d, r, 0.05)
	if err != nil {
		panic(err)
	}
	fmt.Printf("tau² 95%% CI [%.4f, %.4f], I² [%.4f, %.4f]\n", ci.Tau2Low, ci.Tau2High, ci.I2Low, ci.I2High)
	// Output:
	// tau² 0.0763, I² 68.39%, H² 3.16, R² 75.63%
	// QE(df = 11) = 30.7331, p = 0.0012; QM(df = 1) = 16.3582, p = 5.24e-05
	// intrcpt   0.2515  0.2491   1.0095 0.3127 [-0.2367, 0.7397]
	// ablat    -0.0291  0.0072  -4.0445 0.0001 [-0.0432, -0.0150]
	// tau² 95% CI [0.0167, 0.7848], I² [32.0979, 95.6974]
}
