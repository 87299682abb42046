package significance

// The automatic choice of test of autorank (Herbold 2020, "Autorank: A
// Python package for automated ranking of classifiers", JOSS 5(48):2173),
// which follows Demšar (2006): Shapiro–Wilk on every method with a
// Bonferroni-corrected level decides normality; Bartlett's test (all
// normal) or Levene's test centred on the median (Brown & Forsythe 1974,
// scipy's default and autorank's call) decides equal variances; then
//
//   - three methods or more, all normal and equal variances: the
//     repeated-measures ANOVA with Tukey's HSD;
//   - three methods or more otherwise: Friedman's test with Nemenyi's
//     critical difference;
//   - two methods: the paired t-test when both are normal, else
//     Wilcoxon's signed-rank test.
//
// As in autorank, Tukey's HSD is statsmodels' pairwise_tukeyhsd, which
// treats the methods' columns as independent samples: its error includes
// the variation between datasets that the repeated-measures ANOVA removes,
// so it can separate no pair when the ANOVA rejects (a note and the report
// say so).
//
// Where this code departs from autorank 1.x it is on purpose, and the doc
// comments say so: the two-method Wilcoxon test is two-sided (autorank
// runs it one-sided towards the larger median, choosing the alternative
// after looking at the data); Tukey's HSD uses the requested alpha
// (autorank's call always uses 0.05); the median's interval is the exact
// binomial order-statistic interval (autorank uses a normal approximation
// with √(n/2) where Conover's has √n/2); a method whose values are all
// equal is not normal (scipy's Shapiro–Wilk calls it normal with p = 1).

import (
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/analyses/stats"
)

// Branches of the automatic procedure.
const (
	AutoANOVATukey      = "anova_tukey"      // repeated-measures ANOVA + Tukey's HSD
	AutoFriedmanNemenyi = "friedman_nemenyi" // Friedman + Nemenyi
	AutoPairedT         = "paired_t"         // two methods, both normal
	AutoWilcoxon        = "wilcoxon"         // two methods, not both normal
)

// Central-tendency intervals of AutoCentral.
const (
	// CIMeanT is the Student t interval of the mean at level 1 − α/k.
	CIMeanT = "mean_t"
	// CIMeanTukey is the mean ± the half-width of Tukey's simultaneous
	// intervals at level 1 − α (Hochberg & Tamhane 1987).
	CIMeanTukey = "mean_tukey"
	// CIMedianBinomial is the order-statistic interval of the median at
	// level 1 − α/k (Conover 1980), with its exact coverage.
	CIMedianBinomial = "median_binomial"
)

// Effect size measures of AutoPair.Effect.
const (
	EffectCohenD        = "cohen_d"
	EffectAkinshinGamma = "akinshin_gamma"
)

// AutoMinDatasets is the fewest complete datasets Auto accepts, as
// autorank.
const AutoMinDatasets = 5

// AutoOptions are the settings of Auto.
type AutoOptions struct {
	Alpha float64 // family-wise level, 0.05 when 0
	// Missing is "error" (default: a missing cell names itself) or
	// "drop" (datasets without a value for every method are left out).
	Missing string
}

// AutoNormality is the Shapiro–Wilk test of one method's values.
type AutoNormality struct {
	Method string   `json:"method"`
	W      *float64 `json:"w"`
	P      *float64 `json:"p"`
	// Normal is P ≥ alpha/k; false when the test is undefined (all values
	// equal).
	Normal bool `json:"normal"`
}

// AutoCentral is one method's central tendency: the mean and standard
// deviation when every method is normal, else the median and the
// unscaled median absolute deviation (as autorank), in metric units, with
// the interval named by AutoResult.CI.
type AutoCentral struct {
	Method string  `json:"method"`
	Value  float64 `json:"value"`  // mean or median
	Spread float64 `json:"spread"` // standard deviation (n − 1) or MAD
	Lower  float64 `json:"ci_lower"`
	Upper  float64 `json:"ci_upper"`
	// Coverage is the exact coverage of a median interval (at least its
	// nominal level unless a warning says otherwise); 0 for a mean.
	Coverage float64 `json:"coverage,omitempty"`
}

// AutoPair compares two methods, A ranked ahead of B (mean-rank order).
// Differences and effect sizes are A − B with the metric oriented so that
// higher is better: positive means A is better.
type AutoPair struct {
	A string `json:"a"`
	B string `json:"b"`
	// MeanRankDiff is B's mean rank minus A's (≥ 0).
	MeanRankDiff float64 `json:"mean_rank_diff"`
	// Difference is Tukey's difference of means (ANOVA branch) or the
	// mean (paired t) or median (Wilcoxon) of the paired differences;
	// nil on the Friedman branch.
	Difference *float64 `json:"difference,omitempty"`
	// Lower and Upper bound Tukey's simultaneous interval of Difference.
	Lower *float64 `json:"ci_lower,omitempty"`
	Upper *float64 `json:"ci_upper,omitempty"`
	// Statistic is Tukey's studentized range q, the paired t or
	// Wilcoxon's T; nil on the Friedman branch (see MeanRankDiff).
	Statistic *float64 `json:"statistic,omitempty"`
	// P is Tukey's adjusted p-value or the two-method test's p-value.
	P *float64 `json:"p,omitempty"`
	// Significant: Tukey's q above its critical value, Nemenyi's mean
	// rank difference above the critical difference, or the two-method
	// test's p below alpha. With three methods or more it is the post hoc
	// decision alone, made (as in autorank) whatever the omnibus test
	// says; AutoResult.OmnibusSignificant tells whether that rejected.
	Significant bool `json:"significant"`
	// Effect is Cohen's d (pooled SD) when every method is normal, else
	// Akinshin's γ (pooled normal-consistent MAD); see AutoResult.Effect.
	Effect          *float64 `json:"effect_size"`
	EffectMagnitude string   `json:"magnitude"`
	// CliffsDelta is Cliff's δ with its magnitude.
	CliffsDelta     *float64 `json:"cliffs_delta"`
	CliffsMagnitude string   `json:"cliffs_magnitude"`
}

// AutoResult is the outcome of Auto: every decision of the procedure
// with its statistic and p-value, the branch taken and its tests.
type AutoResult struct {
	Metric          string   `json:"metric"`
	HigherIsBetter  bool     `json:"higher_is_better"`
	Alpha           float64  `json:"alpha"`
	Datasets        []string `json:"datasets"`
	DroppedDatasets []string `json:"dropped_datasets,omitempty"`
	// Methods in mean-rank order, best first, with their mean ranks
	// (as critical_difference and aggregate rank them).
	Methods   []string  `json:"methods"`
	MeanRanks []float64 `json:"mean_ranks"`

	// AlphaNormality is alpha/k, the Bonferroni-corrected level of each
	// Shapiro–Wilk test; Normality is in Methods order.
	AlphaNormality float64         `json:"alpha_normality"`
	Normality      []AutoNormality `json:"normality"`
	AllNormal      bool            `json:"all_normal"`
	// VarianceTest is "bartlett" (all normal) or "levene" (centred on
	// the median); Homoscedastic is its p ≥ alpha (false when the test is
	// undefined). With two methods it is reported but does not choose.
	VarianceTest      string   `json:"variance_test"`
	VarianceStatistic *float64 `json:"variance_statistic"`
	VarianceP         *float64 `json:"variance_p"`
	Homoscedastic     bool     `json:"homoscedastic"`

	// Branch is one of AutoANOVATukey, AutoFriedmanNemenyi, AutoPairedT,
	// AutoWilcoxon.
	Branch string `json:"branch"`
	// The omnibus test of the branch: the ANOVA's F on DF1 and DF2
	// degrees of freedom, Friedman's χ² on DF1, or the two-method test's
	// t (DF1) or T. OmnibusSignificant is P < alpha. An infinite F or t
	// (the differences are exactly the same on every dataset) is a nil
	// statistic with P = 0 and a note; an undefined test has both nil.
	OmnibusStatistic   *float64 `json:"omnibus_statistic"`
	OmnibusDF1         *float64 `json:"omnibus_df1,omitempty"`
	OmnibusDF2         *float64 `json:"omnibus_df2,omitempty"`
	OmnibusP           *float64 `json:"omnibus_p"`
	OmnibusSignificant bool     `json:"omnibus_significant"`
	// WilcoxonMethod is "exact" or "approx" on the Wilcoxon branch.
	WilcoxonMethod string `json:"wilcoxon_method,omitempty"`

	// Tukey's HSD (ANOVA branch): critical studentized range, the
	// within-method mean square and its degrees of freedom.
	TukeyQ   *float64 `json:"tukey_q,omitempty"`
	TukeyMSE *float64 `json:"tukey_mse,omitempty"`
	TukeyDF  *float64 `json:"tukey_df,omitempty"`
	// Nemenyi's q and critical difference of mean ranks (Friedman branch).
	NemenyiQ           *float64 `json:"nemenyi_q,omitempty"`
	CriticalDifference *float64 `json:"critical_difference,omitempty"`

	// CI names the intervals of Central (CIMeanT, CIMeanTukey or
	// CIMedianBinomial) and CILevel their nominal level.
	CI      string        `json:"ci"`
	CILevel float64       `json:"ci_level"`
	Central []AutoCentral `json:"central"`
	// Effect is the measure of AutoPair.Effect (EffectCohenD or
	// EffectAkinshinGamma).
	Effect string     `json:"effect_size"`
	Pairs  []AutoPair `json:"pairs"`
	// Cliques are the maximal runs of methods, in mean-rank order, that
	// the post hoc test (or the two-method test) does not separate.
	Cliques [][]string `json:"cliques"`

	// Naming is how the report names methods and the metric (set by the
	// caller; not in JSON).
	Naming analyses.Naming `json:"-"`
	analyses.Warnings
}

// Auto runs autorank's procedure on the datasets × methods matrix of one
// metric. It needs at least 2 methods and AutoMinDatasets complete
// datasets; a missing value is an error naming it, or with Missing =
// "drop" its dataset is left out with a warning.
func Auto(in leaderboard.AggregateInput, opts AutoOptions) (*AutoResult, error) {
	if opts.Alpha == 0 {
		opts.Alpha = 0.05
	}
	if opts.Missing == "" {
		opts.Missing = "error"
	}
	if !(opts.Alpha > 0 && opts.Alpha < 1) {
		return nil, analyses.OptionErrorf("alpha", "must be in (0, 1), got %g", opts.Alpha)
	}
	if err := analyses.OneOf("missing", opts.Missing, "error", "drop"); err != nil {
		return nil, err
	}
	res, q, raw, oriented, err := autoPrepare(in, opts)
	if err != nil {
		return nil, err
	}
	autoNormality(res, raw)
	if err := autoVariance(res, raw); err != nil {
		return nil, err
	}
	autoChoose(res)
	autoPairs(res, oriented)
	switch res.Branch {
	case AutoANOVATukey:
		err = autoANOVA(res, raw, oriented)
	case AutoFriedmanNemenyi:
		err = autoFriedman(res, q)
	default:
		autoTwo(res, oriented)
	}
	if err != nil {
		return nil, err
	}
	if err := autoCentral(res, raw); err != nil {
		return nil, err
	}
	autoCliques(res)
	return res, nil
}

// autoPrepare keeps the complete datasets, ranks the methods as
// critical_difference does and returns the complete rows q with each
// method's values over the datasets, raw and oriented (higher is
// better), in mean-rank order.
func autoPrepare(in leaderboard.AggregateInput, opts AutoOptions) (res *AutoResult, q analyses.Matrix, raw, oriented [][]float64, err error) {
	k := len(in.Methods)
	if k < 2 {
		return nil, nil, nil, nil, fmt.Errorf("metric %q: need at least 2 methods to compare, have %d", in.Metric.Name, k)
	}
	higher := in.Metric.Better == analyses.HigherIsBetter
	res = &AutoResult{Metric: in.Metric.Name, HigherIsBetter: higher, Alpha: opts.Alpha}
	// the Datasets/DroppedDatasets bookkeeping and warnings of
	// critical_difference
	cd := &CriticalDifferenceResult{Metric: in.Metric.Name}
	q, err = cdComplete(CriticalDifferenceInput{AggregateInput: in}, cd, opts.Missing == "drop")
	if err != nil {
		return nil, nil, nil, nil, err
	}
	res.Datasets, res.DroppedDatasets, res.Warnings = cd.Datasets, cd.DroppedDatasets, cd.Warnings
	n := len(q)
	if n < AutoMinDatasets {
		return nil, nil, nil, nil, fmt.Errorf("metric %q: the automatic test choice needs at least %d datasets with a value for every method, have %d",
			in.Metric.Name, AutoMinDatasets, n)
	}
	if n > 5000 {
		res.Warnf("%d datasets: Shapiro–Wilk's p-value is approximate above 5000 values", n)
	}
	order := cdRank(CriticalDifferenceInput{AggregateInput: in}, cd, q, higher)
	res.Methods, res.MeanRanks = cd.Methods, cd.MeanRanks
	raw, oriented = make([][]float64, k), make([][]float64, k)
	for i, m := range order {
		raw[i], oriented[i] = make([]float64, n), make([]float64, n)
		for d := range q {
			raw[i][d] = q[d][m]
			oriented[i][d] = in.Metric.Orient(q[d][m])
		}
	}
	return res, q, raw, oriented, nil
}

// autoChoose takes autorank's branch and effect size from the normality
// and variance decisions.
func autoChoose(res *AutoResult) {
	k := len(res.Methods)
	switch {
	case k == 2 && res.AllNormal:
		res.Branch = AutoPairedT
	case k == 2:
		res.Branch = AutoWilcoxon
	case res.AllNormal && res.Homoscedastic:
		res.Branch = AutoANOVATukey
	default:
		res.Branch = AutoFriedmanNemenyi
	}
	res.Effect = EffectAkinshinGamma
	if res.AllNormal {
		res.Effect = EffectCohenD
	}
}

// autoCliques finds the runs of methods no significant pair separates.
func autoCliques(res *AutoResult) {
	k := len(res.Methods)
	sig := make([][]bool, k)
	for i := range sig {
		sig[i] = make([]bool, k)
	}
	pi := 0
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			s := res.Pairs[pi].Significant
			sig[i][j], sig[j][i] = s, s
			pi++
		}
	}
	res.Cliques = cliques(res.Methods, sig)
}

// autoNormality runs Shapiro–Wilk on every method at alpha/k.
func autoNormality(res *AutoResult, raw [][]float64) {
	k := len(raw)
	res.AlphaNormality = res.Alpha / float64(k)
	res.AllNormal = true
	for i, x := range raw {
		nm := AutoNormality{Method: res.Methods[i]}
		w, p, err := stats.ShapiroWilk(x)
		if err != nil {
			res.Warnf("method %s: Shapiro–Wilk is undefined (%v); it is treated as not normal", res.Methods[i], err)
		} else {
			nm.W, nm.P = analyses.Opt(w), analyses.Opt(p)
			nm.Normal = p >= res.AlphaNormality
		}
		res.AllNormal = res.AllNormal && nm.Normal
		res.Normality = append(res.Normality, nm)
	}
}

// autoVariance runs Bartlett's test (all normal) or Levene's test
// centred on the median.
func autoVariance(res *AutoResult, raw [][]float64) error {
	var t stats.TestResult
	var err error
	if res.AllNormal {
		res.VarianceTest = "bartlett"
		t, err = stats.Bartlett(raw)
	} else {
		res.VarianceTest = "levene"
		t, err = stats.Levene(raw, stats.LeveneMedian)
	}
	if err != nil {
		return err
	}
	res.VarianceStatistic, res.VarianceP = analyses.Opt(t.Statistic), analyses.Opt(t.P)
	res.Homoscedastic = !math.IsNaN(t.P) && t.P >= res.Alpha
	if math.IsNaN(t.P) && len(raw) > 2 {
		res.Warnf("the %s test of equal variances is undefined for these values; the variances are treated as unequal", res.VarianceTest)
	}
	return nil
}

// autoPairs sets up every pair in mean-rank order with its effect sizes.
func autoPairs(res *AutoResult, oriented [][]float64) {
	k := len(oriented)
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			p := AutoPair{A: res.Methods[i], B: res.Methods[j], MeanRankDiff: res.MeanRanks[j] - res.MeanRanks[i]}
			e := stats.AkinshinGamma(oriented[i], oriented[j])
			if res.Effect == EffectCohenD {
				e = stats.CohenD(oriented[i], oriented[j])
			}
			p.Effect, p.EffectMagnitude = analyses.Opt(e), stats.DMagnitude(e)
			c := stats.CliffsDelta(oriented[i], oriented[j])
			p.CliffsDelta, p.CliffsMagnitude = analyses.Opt(c), stats.DeltaMagnitude(c)
			res.Pairs = append(res.Pairs, p)
		}
	}
}

// autoANOVA runs the repeated-measures ANOVA and Tukey's HSD.
func autoANOVA(res *AutoResult, raw, oriented [][]float64) error {
	n := len(raw[0])
	q := make([][]float64, n)
	for d := range q {
		q[d] = make([]float64, len(raw))
		for i := range raw {
			q[d][i] = raw[i][d]
		}
	}
	a, err := stats.RepeatedMeasuresANOVA(q)
	if err != nil {
		return err
	}
	res.OmnibusStatistic, res.OmnibusDF1, res.OmnibusDF2, res.OmnibusP = analyses.Opt(a.F), analyses.Opt(a.DF1), analyses.Opt(a.DF2), analyses.Opt(a.P)
	res.OmnibusSignificant = !math.IsNaN(a.P) && a.P < res.Alpha
	switch {
	case math.IsInf(a.F, 1):
		res.Warnf("the repeated-measures ANOVA's F is infinite (p = 0): every dataset shows exactly the same differences between the methods")
	case math.IsNaN(a.F):
		res.Warnf("the repeated-measures ANOVA is undefined: every method has the same %s on every dataset", res.Metric)
	}
	t, err := stats.TukeyHSD(oriented, res.Alpha)
	if err != nil {
		return err
	}
	res.TukeyQ, res.TukeyMSE, res.TukeyDF = analyses.Opt(t.QCrit), analyses.Opt(t.MSE), analyses.Opt(t.DF)
	for pi, tp := range t.Pairs {
		p := &res.Pairs[pi]
		// statsmodels' meandiff is mean[B] − mean[A]; A − B flips it
		p.Difference, p.Lower, p.Upper = analyses.Opt(-tp.Diff), analyses.Opt(-tp.Upper), analyses.Opt(-tp.Lower)
		p.Statistic, p.P, p.Significant = analyses.Opt(tp.Q), analyses.Opt(tp.P), tp.Reject
	}
	if res.OmnibusSignificant {
		separated := false
		for _, tp := range t.Pairs {
			separated = separated || tp.Reject
		}
		if !separated {
			res.Warnf("the repeated-measures ANOVA rejects equal means but Tukey's HSD separates no pair: as in autorank, the HSD treats the methods as independent samples, so its error includes the variation between datasets")
		}
	}
	res.CI, res.CILevel = CIMeanTukey, 1-res.Alpha
	for i, x := range raw {
		m, v := stats.MeanVar(x)
		h := t.HalfWidths[i]
		res.Central = append(res.Central, AutoCentral{Method: res.Methods[i], Value: m, Spread: math.Sqrt(v), Lower: m - h, Upper: m + h})
	}
	return nil
}

// autoFriedman runs Friedman's test and Nemenyi's critical difference.
func autoFriedman(res *AutoResult, q analyses.Matrix) error {
	n, k := len(q), len(res.Methods)
	fr := stats.Friedman(q)
	res.OmnibusStatistic, res.OmnibusDF1, res.OmnibusP = analyses.Opt(fr.Statistic), analyses.Opt(float64(k-1)), analyses.Opt(fr.P)
	res.OmnibusSignificant = !math.IsNaN(fr.P) && fr.P < res.Alpha
	if math.IsNaN(fr.Statistic) {
		res.Warnf("Friedman's test is undefined: every method has the same %s on every dataset", res.Metric)
	}
	if n < 10 {
		res.Warnf("only %d datasets: Friedman's χ² approximation is rough below 10 (Demšar 2006 §3.2.2)", n)
	}
	qa, err := stats.NemenyiQ(res.Alpha, k)
	if err != nil {
		return err
	}
	cd := qa * math.Sqrt(float64(k*(k+1))/(6*float64(n)))
	res.NemenyiQ, res.CriticalDifference = analyses.Opt(qa), analyses.Opt(cd)
	for pi := range res.Pairs {
		res.Pairs[pi].Significant = res.Pairs[pi].MeanRankDiff > cd
	}
	return nil
}

// autoTwo runs the paired t-test or the two-sided Wilcoxon signed-rank
// test (scipy's defaults: zero_method "wilcox", no continuity correction,
// exact up to 50 pairs without ties or zeros) on A − B.
func autoTwo(res *AutoResult, oriented [][]float64) {
	a, b := oriented[0], oriented[1]
	p := &res.Pairs[0]
	d := make([]float64, len(a))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	if res.Branch == AutoPairedT {
		t := stats.PairedT(a, b)
		m, v := stats.MeanVar(d)
		if v == 0 && m != 0 { // t = ±∞, p = 0, as scipy's ttest_rel
			t.P = 0
			res.Warnf("the paired t statistic of %s vs %s is infinite (p = 0): %s differs by exactly the same amount on every dataset", p.A, p.B, res.Metric)
		} else if math.IsNaN(t.P) {
			res.Warnf("the paired t-test of %s vs %s is undefined: they have the same %s on every dataset", p.A, p.B, res.Metric)
		}
		res.OmnibusStatistic, res.OmnibusDF1, res.OmnibusP = analyses.Opt(t.Statistic), analyses.Opt(float64(len(d)-1)), analyses.Opt(t.P)
		p.Difference = analyses.Opt(m)
	} else {
		w, err := stats.Wilcoxon(d, stats.ZeroWilcox, stats.WilcoxonAuto, false)
		p.Difference = analyses.Opt(stats.Median(d))
		if err != nil {
			res.Warnf("Wilcoxon's test of %s vs %s is undefined: %v (they are treated as not different)", p.A, p.B, err)
		} else {
			res.OmnibusStatistic, res.OmnibusP, res.WilcoxonMethod = analyses.Opt(w.Statistic), analyses.Opt(w.P), w.Method
		}
	}
	p.Statistic, p.P = res.OmnibusStatistic, res.OmnibusP
	res.OmnibusSignificant = res.OmnibusP != nil && *res.OmnibusP < res.Alpha
	p.Significant = res.OmnibusSignificant
}

// autoCentral sets each method's central tendency and interval unless
// the ANOVA branch has (Tukey's intervals).
func autoCentral(res *AutoResult, raw [][]float64) error {
	if res.Central != nil {
		return nil
	}
	a := res.Alpha / float64(len(raw))
	res.CILevel = 1 - a
	if res.AllNormal {
		res.CI = CIMeanT
		for i, x := range raw {
			m, v := stats.MeanVar(x)
			lo, hi, err := stats.MeanCI(x, a)
			if err != nil {
				return err
			}
			res.Central = append(res.Central, AutoCentral{Method: res.Methods[i], Value: m, Spread: math.Sqrt(v), Lower: lo, Upper: hi})
		}
		return nil
	}
	res.CI = CIMedianBinomial
	warned := false
	for i, x := range raw {
		lo, hi, cov, err := stats.MedianCI(x, a)
		if err != nil {
			return err
		}
		if cov < res.CILevel && !warned {
			res.Warnf("with %d datasets the widest interval of a median, from the smallest to the largest value, covers only %.4g, below the level %.4g",
				len(x), cov, res.CILevel)
			warned = true
		}
		res.Central = append(res.Central, AutoCentral{Method: res.Methods[i], Value: stats.Median(x), Spread: stats.MAD(x), Lower: lo, Upper: hi, Coverage: cov})
	}
	return nil
}
