package significance

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/analyses/internal/testutil"
	"github.com/evalbook/evalbook/analyses/stats"
)

func pairedInput(units []string, methods []string, vals ...[]float64) PairedTestsInput {
	return PairedTestsInput{Metric: analyses.Metric{Name: "rmse", Better: analyses.LowerIsBetter}, Over: "folds", Units: units, Methods: methods, Values: vals}
}

func folds(n int) []string {
	u := make([]string, n)
	for i := range u {
		u[i] = "f" + string(rune('a'+i))
	}
	return u
}

// TestPairedTestsAgreeWithScipy runs the whole analysis on a fixture pair
// and checks every column against the scipy/statsmodels values the unit
// functions are tested against, so the wiring (which sample is a, which
// p goes where, Holm over the recommended p) is covered too.
func TestPairedTestsAgreeWithScipy(t *testing.T) {
	t.Parallel()
	c := loadSigCases(t)
	var tc = c.TwoSample[4] // 10 vs 10, continuous
	if len(tc.A) != len(tc.B) || tc.PairedT == nil {
		t.Fatal("fixture 4 is not paired")
	}
	n := len(tc.A)
	r, err := PairedTests(pairedInput(folds(n), []string{"A", "B"}, tc.A, tc.B), PairedTestsOptions{Metric: "rmse"})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Pairs[0]
	checks := []struct {
		name      string
		got, want float64
	}{
		{"p_paired_t", *p.PPairedT, *tc.PairedP},
		{"p_welch", *p.PWelch, tc.WelchP},
		{"p_mannwhitney", *p.PMannWhitney, tc.UP},
		{"p_sign", *p.PSign, *tc.SignP},
	}
	for _, ch := range checks {
		if !testutil.Close(ch.got, ch.want, 1e-9) {
			t.Errorf("%s = %.12g, scipy %.12g", ch.name, ch.got, ch.want)
		}
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = tc.A[i] - tc.B[i]
	}
	w, _ := stats.Wilcoxon(d, stats.ZeroWilcox, stats.WilcoxonAuto, false)
	sw, sp, _ := stats.ShapiroWilk(d)
	if *p.PWilcoxon != w.P || *p.PShapiro != sp || *p.ShapiroW != sw {
		t.Errorf("wilcoxon/shapiro wiring: %v %v", *p.PWilcoxon, *p.PShapiro)
	}
	want := "wilcoxon"
	if sp >= 0.05 {
		want = "paired_t"
	}
	if p.Recommended != want {
		t.Errorf("recommended %q, want %q (shapiro p %v)", p.Recommended, want, sp)
	}
	if !testutil.Close(*p.PHolm, map[string]float64{"paired_t": *tc.PairedP, "wilcoxon": w.P}[want], 1e-9) {
		t.Errorf("p_holm with one pair must equal the recommended p, got %v", *p.PHolm)
	}
	if !testutil.Close(*p.PowerPaired, stats.TTestPower(stats.CohenDz(d), n, 0.05), 1e-12) {
		t.Error("power_paired wiring")
	}
	noNaNCells(t, r.Tables())
}

// TestPairedBeatsIndependent is the point of Košir et al. 2013: with a
// large fold-to-fold spread and a small consistent gain, the paired tests
// reject and the independent ones do not.
func TestPairedBeatsIndependent(t *testing.T) {
	t.Parallel()
	level := []float64{0.95, 1.02, 0.88, 0.99, 0.91, 1.05, 0.86, 0.97, 0.93, 1.01}
	jit := []float64{0.002, -0.001, 0.003, -0.002, 0.001, 0.000, -0.003, 0.002, -0.001, 0.001}
	a := make([]float64, 10)
	b := make([]float64, 10)
	for i := range a {
		a[i] = level[i] - 0.012 + jit[i]
		b[i] = level[i]
	}
	r, err := PairedTests(pairedInput(folds(10), []string{"ctx", "base"}, a, b), PairedTestsOptions{Metric: "rmse"})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Pairs[0]
	if *p.PPairedT > 0.001 || *p.PWilcoxon > 0.01 || *p.PWelch < 0.3 || *p.PMannWhitney < 0.3 {
		t.Errorf("paired t %v, wilcoxon %v, welch %v, mwu %v", *p.PPairedT, *p.PWilcoxon, *p.PWelch, *p.PMannWhitney)
	}
	if !(*p.PowerPaired > 0.99 && *p.PowerIndep < 0.2) {
		t.Errorf("power paired %v, independent %v", *p.PowerPaired, *p.PowerIndep)
	}
	if !p.Significant {
		t.Error("not significant")
	}
}

func TestPairedTestsEdgeCases(t *testing.T) {
	t.Parallel()
	t.Run("three folds", func(t *testing.T) {
		r, err := PairedTests(pairedInput(folds(3), []string{"A", "B"}, []float64{1, 2, 3}, []float64{1.5, 2.1, 3.3}), PairedTestsOptions{Metric: "rmse"})
		if err != nil {
			t.Fatal(err)
		}
		noNaNCells(t, r.Tables())
		if !warned(r.List, "with 3 pairs the smallest two-sided Wilcoxon p-value is 0.25") {
			t.Errorf("warnings %q", r.List)
		}
		if r.Pairs[0].PShapiro == nil || r.Pairs[0].PPairedT == nil {
			t.Error("3 pairs: shapiro and t must be defined")
		}
	})
	t.Run("identical methods", func(t *testing.T) {
		x := []float64{0.9, 1.0, 0.95, 0.97}
		r, err := PairedTests(pairedInput(folds(4), []string{"A", "A2"}, x, x), PairedTestsOptions{Metric: "rmse"})
		if err != nil {
			t.Fatal(err)
		}
		noNaNCells(t, r.Tables())
		p := r.Pairs[0]
		if p.PPairedT != nil || p.PWilcoxon != nil || p.PSign != nil || p.PShapiro != nil || p.PHolm != nil || p.Recommended != "none" {
			t.Errorf("identical: %+v", p)
		}
		if !warned(r.List, "every difference is zero") {
			t.Errorf("warnings %q", r.List)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Error(err)
		}
	})
	t.Run("constant difference", func(t *testing.T) {
		r, _ := PairedTests(pairedInput(folds(5), []string{"A", "B"}, []float64{1, 2, 3, 4, 5}, []float64{0.5, 1.5, 2.5, 3.5, 4.5}), PairedTestsOptions{Metric: "rmse"})
		noNaNCells(t, r.Tables())
		if !warned(r.List, "paired t undefined: the differences are all equal") || r.Pairs[0].Recommended != "wilcoxon" {
			t.Errorf("warnings %q, recommended %q", r.List, r.Pairs[0].Recommended)
		}
	})
	t.Run("missing unit", func(t *testing.T) {
		nan := math.NaN()
		in := pairedInput(folds(6), []string{"A", "B", "C"},
			[]float64{1, 2, 3, 4, 5, 6}, []float64{1.1, nan, 3.2, 4.4, 5.1, 6.3}, []float64{nan, nan, nan, nan, nan, nan})
		// an error by default (issue 31: pairs silently lost units)
		_, err := PairedTests(in, PairedTestsOptions{Metric: "rmse"})
		if want := `metric "rmse": no value of method "C" for "fa" (one of the folds); 6 of the 6 lack a value for some method: leave the method out with methods = [...], or declare missing = "drop"`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
		r, err := PairedTests(in, PairedTestsOptions{Metric: "rmse", Missing: "drop"})
		if err != nil {
			t.Fatal(err)
		}
		noNaNCells(t, r.Tables())
		if r.Pairs[0].N != 5 || !warned(r.List, "A vs B: 1 of the folds has no RMSE value (0 for A only, 1 for B only, 0 for both) and is left out of this pair") {
			t.Errorf("n %d, warnings %q", r.Pairs[0].N, r.List)
		}
		if r.Pairs[1].N != 0 || !warned(r.List, "A vs C over 0 folds: no shared values") {
			t.Errorf("warnings %q", r.List)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Error(err)
		}
	})
	t.Run("options", func(t *testing.T) {
		for _, o := range []PairedTestsOptions{
			{Metric: "m", Methods: []string{"A"}},
			{Metric: "m", Methods: []string{"A", "A"}},
			{Metric: "m", Alpha: 1.5},
			{Metric: "m", ZeroMethod: "zsplt"},
			{},
		} {
			o.Defaults()
			if err := o.Validate(); err == nil {
				t.Errorf("%+v: want an error", o)
			} else if strings.Contains(err.Error(), "zero_method") && !strings.Contains(err.Error(), "zsplit") {
				t.Errorf("no hint: %v", err)
			}
		}
	})
}
