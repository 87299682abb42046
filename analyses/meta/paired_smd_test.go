package meta

import (
	"math"
	"testing"
)

// TestPairedSummarySMDFormula pins the paired smd and hedges_g to
// Borenstein et al. (2009, eqs. 4.27–4.28 and 4.22), which is neither of
// metafor's escalc measures for matched pairs. A paired summary row
// n = 10, mean_diff = 0.5, sd_diff = 1, r = 0.8, by hand:
//
//	S_within = sd_diff/√(2(1 − r)) = 1/√0.4
//	d        = mean_diff/S_within = 0.5·√0.4 ≈ 0.316228
//	V_d      = (1/n + d²/(2n))·2(1 − r) = (0.1 + 0.1/20)·0.4 = 0.042
//	J        = 1 − 3/(4(n − 1) − 1) = 32/35
//	g        = J·d ≈ 0.289123,  V_g = J²·V_d = (32/35)²·0.042 ≈ 0.035109
//
// escalc's "SMCR" (with sd1i = S_within) would give the variance
// 2(1 − r)/n + g²/(2n) ≈ 0.04418, and "SMCC" standardises by sd_diff
// itself: 0.5·c(9) with variance 1/n + g²/(2n); both differ.
func TestPairedSummarySMDFormula(t *testing.T) {
	t.Parallel()
	s := Study{Dataset: "d", N: 10, MeanDiff: 0.5, SDDiff: 1, R: 0.8}
	d := 0.5 * math.Sqrt(0.4)
	j := 32.0 / 35
	for _, c := range []struct {
		effect string
		y, v   float64
	}{
		{"smd", d, 0.042},
		{"hedges_g", j * d, j * j * 0.042},
	} {
		o := Options{Effect: c.effect, Treatment: "T", Control: "C"}
		row := metaEffect(s, o, 1.96)
		if !row.Included || math.Abs(row.Effect-c.y) > 1e-14 || math.Abs(row.Variance-c.v) > 1e-14 {
			t.Errorf("%s: effect %.15g variance %.15g (%s), want %.15g and %.15g", c.effect, row.Effect, row.Variance, row.Reason, c.y, c.v)
		}
		// Not escalc "SMCR" with vtype "LS": 2(1 − r)/n + yi²/(2n).
		if smcr := 2*0.2/10 + c.y*c.y/20; math.Abs(row.Variance-smcr) < 1e-3 {
			t.Errorf("%s: variance %.6g is SMCR's %.6g", c.effect, row.Variance, smcr)
		}
	}
}
