package significance

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/internal/testutil"
	"github.com/evalbook/evalbook/analyses/leaderboard"
)

// autoCase is one table of stats/testdata/oracle/autorank/cases.json,
// written by gen.py from scipy 1.10 and statsmodels 0.13 following
// autorank's rules.
type autoCase struct {
	Name              string      `json:"name"`
	Higher            bool        `json:"higher"`
	Alpha             float64     `json:"alpha"`
	Q                 [][]float64 `json:"q"`
	Methods           []string    `json:"methods"`
	Order             []string    `json:"order"`
	MeanRanks         []float64   `json:"mean_ranks"`
	ShapiroW          []float64   `json:"shapiro_w"`
	ShapiroP          []float64   `json:"shapiro_p"`
	AllNormal         bool        `json:"all_normal"`
	VarianceTest      string      `json:"variance_test"`
	VarianceStatistic float64     `json:"variance_statistic"`
	VarianceP         float64     `json:"variance_p"`
	Homoscedastic     bool        `json:"homoscedastic"`
	Branch            string      `json:"branch"`
	Effect            string      `json:"effect"`
	Omnibus           struct {
		Statistic   float64  `json:"statistic"`
		DF1         *float64 `json:"df1"`
		DF2         *float64 `json:"df2"`
		P           float64  `json:"p"`
		Significant bool     `json:"significant"`
	} `json:"omnibus"`
	TukeyQ             *float64 `json:"tukey_q"`
	TukeyMSE           *float64 `json:"tukey_mse"`
	TukeyDF            *float64 `json:"tukey_df"`
	NemenyiQ           *float64 `json:"nemenyi_q"`
	CriticalDifference *float64 `json:"critical_difference"`
	CI                 string   `json:"ci"`
	CILevel            float64  `json:"ci_level"`
	Central            []struct {
		Value, Spread, Lower, Upper float64
		Coverage                    *float64
	} `json:"central"`
	Pairs []struct {
		A, B            string
		Effect          *float64 `json:"effect"`
		Magnitude       string   `json:"magnitude"`
		CliffsDelta     float64  `json:"cliffs_delta"`
		CliffsMagnitude string   `json:"cliffs_magnitude"`
		Difference      *float64 `json:"difference"`
		CILower         *float64 `json:"ci_lower"`
		CIUpper         *float64 `json:"ci_upper"`
		Statistic       *float64 `json:"statistic"`
		P               *float64 `json:"p"`
		Significant     bool     `json:"significant"`
	} `json:"pairs"`
}

func loadAutoCases(t *testing.T) map[string]autoCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testutil.Dir(), "stats", "testdata", "oracle", "autorank", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []autoCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	out := map[string]autoCase{}
	for _, c := range f.Cases {
		out[c.Name] = c
	}
	return out
}

func (c autoCase) input() leaderboard.AggregateInput {
	better := analyses.HigherIsBetter
	if !c.Higher {
		better = analyses.LowerIsBetter
	}
	in := leaderboard.AggregateInput{Metric: analyses.Metric{Name: "score", Better: better, Max: math.Inf(1)}, Methods: c.Methods}
	for d, row := range c.Q {
		in.Datasets = append(in.Datasets, fmt.Sprintf("d%d", d))
		in.Q = append(in.Q, append([]float64(nil), row...))
	}
	return in
}

// closeOpt compares an optional number with the oracle's (nil = null).
func closeOpt(got, want *float64, tol float64) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	return testutil.Close(*got, *want, tol)
}

// checkAuto compares every number of Auto's result with the oracle case.
func checkAuto(t *testing.T, c autoCase) *AutoResult {
	t.Helper()
	res, err := Auto(c.input(), AutoOptions{Alpha: c.Alpha})
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	if len(res.Pairs) != len(c.Pairs) || len(res.Central) != len(c.Central) || len(res.Normality) != len(c.ShapiroP) {
		t.Fatalf("%s: %d pairs, %d centres, %d normality tests; want %d, %d, %d", c.Name, len(res.Pairs), len(res.Central), len(res.Normality),
			len(c.Pairs), len(c.Central), len(c.ShapiroP))
	}
	if fmt.Sprint(res.Methods) != fmt.Sprint(c.Order) {
		t.Fatalf("%s: methods in order %v, want %v", c.Name, res.Methods, c.Order)
	}
	for i := range res.MeanRanks {
		if !testutil.Close(res.MeanRanks[i], c.MeanRanks[i], 1e-12) {
			t.Errorf("%s: mean rank of %s = %v, want %v", c.Name, res.Methods[i], res.MeanRanks[i], c.MeanRanks[i])
		}
	}
	// scipy's Shapiro–Wilk is single precision: 1e-6 as TestShapiroScipy
	for i, nm := range res.Normality {
		if !closeOpt(nm.W, &c.ShapiroW[i], 1e-6) || !closeOpt(nm.P, &c.ShapiroP[i], 1e-6) || nm.Normal != (c.ShapiroP[i] >= c.Alpha/float64(len(c.Methods))) {
			t.Errorf("%s: Shapiro–Wilk of %s = %+v, scipy W %v p %v", c.Name, nm.Method, nm, c.ShapiroW[i], c.ShapiroP[i])
		}
	}
	if res.AllNormal != c.AllNormal || res.VarianceTest != c.VarianceTest || res.Homoscedastic != c.Homoscedastic || res.Branch != c.Branch || res.Effect != c.Effect {
		t.Errorf("%s: all normal %v, %s, homoscedastic %v, branch %s, effect %s; want %v, %s, %v, %s, %s", c.Name,
			res.AllNormal, res.VarianceTest, res.Homoscedastic, res.Branch, res.Effect, c.AllNormal, c.VarianceTest, c.Homoscedastic, c.Branch, c.Effect)
	}
	if !closeOpt(res.VarianceStatistic, &c.VarianceStatistic, 1e-9) || !closeOpt(res.VarianceP, &c.VarianceP, 1e-9) {
		t.Errorf("%s: %s = %v, p = %v; scipy %v, %v", c.Name, res.VarianceTest, *res.VarianceStatistic, *res.VarianceP, c.VarianceStatistic, c.VarianceP)
	}
	o := c.Omnibus
	if !closeOpt(res.OmnibusStatistic, &o.Statistic, 1e-9) || !closeOpt(res.OmnibusP, &o.P, 1e-9) || !closeOpt(res.OmnibusDF1, o.DF1, 0) ||
		!closeOpt(res.OmnibusDF2, o.DF2, 0) || res.OmnibusSignificant != o.Significant {
		t.Errorf("%s: omnibus %v (df %v, %v) p %v significant %v; want %+v", c.Name, num(res.OmnibusStatistic), num(res.OmnibusDF1), num(res.OmnibusDF2),
			num(res.OmnibusP), res.OmnibusSignificant, o)
	}
	if !closeOpt(res.TukeyQ, c.TukeyQ, 1e-9) || !closeOpt(res.TukeyMSE, c.TukeyMSE, 1e-9) || !closeOpt(res.TukeyDF, c.TukeyDF, 0) ||
		!closeOpt(res.NemenyiQ, c.NemenyiQ, 1e-9) || !closeOpt(res.CriticalDifference, c.CriticalDifference, 1e-9) {
		t.Errorf("%s: Tukey q %v MSE %v df %v, Nemenyi q %v CD %v; want %v %v %v, %v %v", c.Name, num(res.TukeyQ), num(res.TukeyMSE), num(res.TukeyDF),
			num(res.NemenyiQ), num(res.CriticalDifference), num(c.TukeyQ), num(c.TukeyMSE), num(c.TukeyDF), num(c.NemenyiQ), num(c.CriticalDifference))
	}
	if res.CI != c.CI || !testutil.Close(res.CILevel, c.CILevel, 1e-15) {
		t.Errorf("%s: CI %s at %v, want %s at %v", c.Name, res.CI, res.CILevel, c.CI, c.CILevel)
	}
	for i, ce := range res.Central {
		w := c.Central[i]
		cov := 0.0
		if w.Coverage != nil {
			cov = *w.Coverage
		}
		if !testutil.Close(ce.Value, w.Value, 1e-12) || !testutil.Close(ce.Spread, w.Spread, 1e-12) || !testutil.Close(ce.Lower, w.Lower, 1e-9) ||
			!testutil.Close(ce.Upper, w.Upper, 1e-9) || !testutil.Close(ce.Coverage, cov, 1e-12) {
			t.Errorf("%s: %s central %+v, want %+v (coverage %v)", c.Name, ce.Method, ce, w, cov)
		}
	}
	for i, p := range res.Pairs {
		w := c.Pairs[i]
		if p.A != w.A || p.B != w.B || !closeOpt(p.Effect, w.Effect, 1e-9) || p.EffectMagnitude != w.Magnitude ||
			!closeOpt(p.CliffsDelta, &w.CliffsDelta, 1e-12) || p.CliffsMagnitude != w.CliffsMagnitude ||
			!closeOpt(p.Difference, w.Difference, 1e-9) || !closeOpt(p.Lower, w.CILower, 1e-9) || !closeOpt(p.Upper, w.CIUpper, 1e-9) ||
			!closeOpt(p.Statistic, w.Statistic, 1e-9) || !closeOpt(p.P, w.P, 1e-9) || p.Significant != w.Significant {
			t.Errorf("%s: pair %s–%s: effect %v %s, δ %v %s, diff %v [%v, %v], stat %v, p %v, significant %v;\n want %+v", c.Name, p.A, p.B,
				num(p.Effect), p.EffectMagnitude, num(p.CliffsDelta), p.CliffsMagnitude, num(p.Difference), num(p.Lower), num(p.Upper),
				num(p.Statistic), num(p.P), p.Significant, w)
		}
	}
	return res
}

// The four branches of autorank's procedure, each on a table the oracle
// puts on it, and every number it reports against scipy / statsmodels.
func TestAutoNormalTable(t *testing.T) {
	res := checkAuto(t, loadAutoCases(t)["normal"])
	if res.Branch != AutoANOVATukey {
		t.Fatalf("branch %s, want %s", res.Branch, AutoANOVATukey)
	}
}

func TestAutoNonNormalTable(t *testing.T) {
	res := checkAuto(t, loadAutoCases(t)["nonnormal"])
	if res.Branch != AutoFriedmanNemenyi || res.AllNormal {
		t.Fatalf("branch %s (all normal %v), want %s with a non-normal method", res.Branch, res.AllNormal, AutoFriedmanNemenyi)
	}
}

// All normal but unequal variances (and lower is better): Friedman and
// Nemenyi, with means, t intervals and Cohen's d.
func TestAutoHeteroscedasticLowerIsBetter(t *testing.T) {
	res := checkAuto(t, loadAutoCases(t)["heteroscedastic"])
	if res.Branch != AutoFriedmanNemenyi || !res.AllNormal || res.Homoscedastic || res.Effect != EffectCohenD || res.CI != CIMeanT {
		t.Fatalf("branch %s, all normal %v, homoscedastic %v, effect %s, CI %s", res.Branch, res.AllNormal, res.Homoscedastic, res.Effect, res.CI)
	}
}

func TestAutoNormalLowerIsBetterAlpha(t *testing.T) {
	checkAuto(t, loadAutoCases(t)["normal_lower"])
}

func TestAutoTwoNormal(t *testing.T) {
	res := checkAuto(t, loadAutoCases(t)["normal2"])
	if res.Branch != AutoPairedT {
		t.Fatalf("branch %s, want %s", res.Branch, AutoPairedT)
	}
}

func TestAutoTwoNonNormal(t *testing.T) {
	res := checkAuto(t, loadAutoCases(t)["nonnormal2"])
	if res.Branch != AutoWilcoxon || res.WilcoxonMethod == "" {
		t.Fatalf("branch %s (%s), want %s", res.Branch, res.WilcoxonMethod, AutoWilcoxon)
	}
}

// A lower-is-better metric is the same table with the sign flipped: the
// same order, branch, p-values and effect sizes, and every reported
// centre is the negation.
func TestAutoOrientation(t *testing.T) {
	for name, c := range loadAutoCases(t) {
		a, err := Auto(c.input(), AutoOptions{Alpha: c.Alpha})
		if err != nil {
			t.Fatal(err)
		}
		in := c.input()
		in.Metric.Better = analyses.LowerIsBetter
		if !c.Higher {
			in.Metric.Better = analyses.HigherIsBetter
		}
		for _, row := range in.Q {
			for j := range row {
				row[j] = -row[j]
			}
		}
		b, err := Auto(in, AutoOptions{Alpha: c.Alpha})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(a.Methods) != fmt.Sprint(b.Methods) || a.Branch != b.Branch || !closeOpt(a.OmnibusP, b.OmnibusP, 1e-9) {
			t.Errorf("%s: flipped table gives %v %s p %v, want %v %s p %v", name, b.Methods, b.Branch, num(b.OmnibusP), a.Methods, a.Branch, num(a.OmnibusP))
		}
		for i := range a.Pairs {
			if !closeOpt(a.Pairs[i].Effect, b.Pairs[i].Effect, 1e-9) || !closeOpt(a.Pairs[i].P, b.Pairs[i].P, 1e-9) {
				t.Errorf("%s: pair %d flipped %+v, want %+v", name, i, b.Pairs[i], a.Pairs[i])
			}
		}
		for i := range a.Central {
			if !testutil.Close(a.Central[i].Value, -b.Central[i].Value, 1e-12) || !testutil.Close(a.Central[i].Lower, -b.Central[i].Upper, 1e-9) {
				t.Errorf("%s: central %+v flipped %+v", name, a.Central[i], b.Central[i])
			}
		}
	}
}

func TestAutoErrors(t *testing.T) {
	c := loadAutoCases(t)["normal"]
	in := c.input()
	in.Q = in.Q[:4]
	in.Datasets = in.Datasets[:4]
	if _, err := Auto(in, AutoOptions{}); err == nil || !strings.Contains(err.Error(), `metric "score"`) || !strings.Contains(err.Error(), "at least 5 datasets") {
		t.Errorf("4 datasets: err = %v", err)
	}
	in = c.input()
	in.Q[3][2] = math.NaN()
	if _, err := Auto(in, AutoOptions{}); err == nil || !strings.Contains(err.Error(), "d3") {
		t.Errorf("missing cell: err = %v, want it named", err)
	}
	res, err := Auto(in, AutoOptions{Missing: "drop"})
	if err != nil || fmt.Sprint(res.DroppedDatasets) != "[d3]" || len(res.Datasets) != len(c.Q)-1 {
		t.Errorf("drop: %v, %v", res, err)
	}
	if _, err := Auto(c.input(), AutoOptions{Alpha: 1.5}); err == nil || !strings.Contains(err.Error(), "alpha") {
		t.Errorf("alpha 1.5: err = %v", err)
	}
}

// A method with the same value on every dataset cannot be tested for
// normality; it is not normal (scipy would call it normal with p = 1),
// so the nonparametric branch runs, and the report says why.
func TestAutoConstantMethodIsNotNormal(t *testing.T) {
	c := loadAutoCases(t)["normal"]
	in := c.input()
	for _, row := range in.Q {
		row[0] = 0.5
	}
	res, err := Auto(in, AutoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.AllNormal || res.Branch != AutoFriedmanNemenyi {
		t.Fatalf("all normal %v, branch %s", res.AllNormal, res.Branch)
	}
	found := false
	for _, nm := range res.Normality {
		if nm.Method == "m0" {
			found = nm.P == nil && !nm.Normal
		}
	}
	if !found || len(res.Notes()) == 0 || !strings.Contains(strings.Join(res.Report(), " "), "could not be run for m0 (every value the same)") {
		t.Errorf("normality %+v, notes %v, report %q", res.Normality, res.Notes(), res.Report())
	}
}

// dyadicTable has base values (exact in binary) plus a constant shift per
// method, so every dataset shows exactly the same differences.
func dyadicTable(k int, lowerBetter bool) leaderboard.AggregateInput {
	base := []float64{0.375, 0.5, 0.4375, 0.5625, 0.46875, 0.40625, 0.53125, 0.484375}
	in := leaderboard.AggregateInput{Metric: analyses.Metric{Name: "ndcg", Better: analyses.HigherIsBetter, Max: math.Inf(1)}}
	if lowerBetter {
		in.Metric.Better = analyses.LowerIsBetter
	}
	for j := 0; j < k; j++ {
		in.Methods = append(in.Methods, fmt.Sprintf("m%d", j))
	}
	for d, b := range base {
		in.Datasets = append(in.Datasets, fmt.Sprintf("d%d", d))
		row := make([]float64, k)
		for j := range row {
			row[j] = b + 0.25*float64(j)
		}
		in.Q = append(in.Q, row)
	}
	return in
}

// Exactly the same differences on every dataset: the ANOVA's F is
// infinite with p = 0 (statsmodels' limit), a significant result that the
// report states with "∞" rather than calling the test undefined or the
// methods equal.
func TestAutoInfiniteF(t *testing.T) {
	res, err := Auto(dyadicTable(4, false), AutoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Branch != AutoANOVATukey || res.OmnibusStatistic != nil || res.OmnibusP == nil || *res.OmnibusP != 0 || !res.OmnibusSignificant {
		t.Fatalf("branch %s, F %v, p %v, significant %v", res.Branch, num(res.OmnibusStatistic), num(res.OmnibusP), res.OmnibusSignificant)
	}
	mustContain(t, "infinite F", res.Report(), "The repeated-measures ANOVA (F(3, 21) = ∞, p < 0.001) rejects that m3")
	if !strings.Contains(strings.Join(res.Notes(), " "), "F is infinite (p = 0)") {
		t.Errorf("notes %v", res.Notes())
	}
}

// The same for two methods and the paired t-test: m0 is better on every
// dataset by exactly 0.25 (lower is better).
func TestAutoInfiniteT(t *testing.T) {
	res, err := Auto(dyadicTable(2, true), AutoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Branch != AutoPairedT || res.OmnibusP == nil || *res.OmnibusP != 0 || !res.Pairs[0].Significant || res.Pairs[0].A != "m0" {
		t.Fatalf("branch %s, p %v, pair %+v", res.Branch, num(res.OmnibusP), res.Pairs[0])
	}
	mustContain(t, "infinite t", res.Report(), "The paired t-test (t(7) = ∞, p < 0.001) rejects that", "m0 is significantly better than m1")
}

// Every value the same: no test is defined, and the report draws no
// conclusion instead of reporting "no significant difference".
func TestAutoAllEqualDrawsNoConclusion(t *testing.T) {
	in := dyadicTable(3, false)
	for _, row := range in.Q {
		for j := range row {
			row[j] = 0.5
		}
	}
	res, err := Auto(in, AutoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.OmnibusP != nil || res.OmnibusSignificant {
		t.Fatalf("branch %s, p %v", res.Branch, num(res.OmnibusP))
	}
	r := strings.Join(res.Report(), " ")
	if strings.Contains(r, "no significant difference") || !strings.Contains(r, "is undefined for m0") || !strings.Contains(r, "no conclusion is drawn") {
		t.Errorf("report %q", r)
	}
}
