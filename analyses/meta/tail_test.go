package meta

import (
	"math"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// TestMetaPValuesKeepTheirTail: a study whose effect is 12 standard
// errors from 0 has p = erfc(12/√2) ≈ 4e-33 (metafor's 2·pnorm(−|z|));
// 2·Normal.Survival(|z|) is 1 − erf(|z|/√2), which cancels to exactly 0
// for |z| above about 8.3, so such p-values were published as 0 in
// data/*.json and *.csv. Every per-study, summary and leave-one-out p is
// now the upper tail itself, checked against erfc of its own z.
func TestMetaPValuesKeepTheirTail(t *testing.T) {
	t.Parallel()
	y := []float64{1.2, 1.5, 1.0, 1.1, 1.4}
	v := []float64{0.01, 0.0225, 0.0081, 0.01, 0.0196}
	for _, model := range []string{"fixed", "random"} {
		var opt Options
		opt.Defaults()
		opt.Treatment, opt.Control, opt.Metric, opt.Model = "T", "C", "m", model
		opt.Sensitivity = true
		res, err := Analyze(Input{Metric: analyses.Metric{Name: "m"}, Studies: metaStudiesFor(y, v)}, opt)
		if err != nil {
			t.Fatal(err)
		}
		// want is the oracle: the normal upper tail of |z|, twice.
		check := func(what string, p, effect, se float64) {
			t.Helper()
			want := math.Erfc(math.Abs(effect/se) / math.Sqrt2)
			if !(want > 0 && want < 1e-16) {
				t.Fatalf("%s: the case is not in the far tail (p = %g)", what, want)
			}
			if p == 0 || math.Abs(p-want) > 1e-12*want {
				t.Errorf("%s %s: p = %g, want %g (erfc of |z| = %g)", model, what, p, want, math.Abs(effect/se))
			}
		}
		for _, r := range res.Rows {
			check("study "+r.Dataset, r.P, r.Effect, r.SE)
		}
		s := res.Summary
		check("summary", *s.P, *s.Effect, *s.SE)
		if res.LeaveOneOut == nil {
			t.Fatal("no leave-one-out fits")
		}
		for _, l := range res.LeaveOneOut {
			check("without "+l.Dataset, l.P, l.Effect, l.SE)
		}
	}
}
