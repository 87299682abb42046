package stats

// Tests of the parametric branch of autorank (Herbold 2020): Bartlett's
// and Levene's tests for equal variances, the one-way repeated-measures
// ANOVA and Tukey's HSD. They return the numbers of scipy 1.10
// (scipy.stats.bartlett, levene) and statsmodels (AnovaRM,
// pairwise_tukeyhsd, with the studentized range of
// scipy.stats.studentized_range); the fixtures in testdata/oracle/autorank
// are made by them.

import (
	"fmt"
	"math"
	"sort"
)

// Levene centres: scipy.stats.levene's center argument.
const (
	// LeveneMedian is the Brown–Forsythe variant (scipy's default, and
	// autorank's).
	LeveneMedian = "median"
	// LeveneMean is Levene's original test.
	LeveneMean = "mean"
)

// Bartlett is scipy.stats.bartlett(*groups): Bartlett's χ² for equal
// variances on k − 1 degrees of freedom. It needs at least 2 groups of
// at least 2 values; it is NaN when a group has zero variance.
func Bartlett(groups [][]float64) (TestResult, error) {
	k := len(groups)
	if k < 2 {
		return TestResult{math.NaN(), math.NaN()}, fmt.Errorf("bartlett's test needs at least 2 groups, got %d", k)
	}
	var ntot, spsq, sumLog, sumInv float64
	for i, g := range groups {
		if len(g) < 2 {
			return TestResult{math.NaN(), math.NaN()}, fmt.Errorf("bartlett's test needs at least 2 values per group, group %d has %d", i+1, len(g))
		}
		_, v := MeanVar(g)
		ni := float64(len(g))
		ntot += ni
		spsq += (ni - 1) * v
		sumLog += (ni - 1) * math.Log(v)
		sumInv += 1 / (ni - 1)
	}
	kf := float64(k)
	spsq /= ntot - kf
	numer := (ntot-kf)*math.Log(spsq) - sumLog
	denom := 1 + (sumInv-1/(ntot-kf))/(3*(kf-1))
	t := numer / denom
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return TestResult{math.NaN(), math.NaN()}, nil
	}
	return TestResult{t, chi2SF(t, kf-1)}, nil
}

// Levene is scipy.stats.levene(*groups, center=center): the one-way
// ANOVA F of the absolute deviations from each group's median
// (LeveneMedian, Brown & Forsythe 1974) or mean (LeveneMean), on k − 1 and
// N − k degrees of freedom. It is NaN when every deviation is the same
// within its group (the F has a zero denominator).
func Levene(groups [][]float64, center string) (TestResult, error) {
	k := len(groups)
	nan := TestResult{math.NaN(), math.NaN()}
	if k < 2 {
		return nan, fmt.Errorf("levene's test needs at least 2 groups, got %d", k)
	}
	if center != LeveneMedian && center != LeveneMean {
		return nan, fmt.Errorf("levene's test: center must be %q or %q, got %q", LeveneMedian, LeveneMean, center)
	}
	z := make([][]float64, k)
	zbar := make([]float64, k)
	var ntot, zall float64
	for i, g := range groups {
		if len(g) < 2 {
			return nan, fmt.Errorf("levene's test needs at least 2 values per group, group %d has %d", i+1, len(g))
		}
		c := Median(g)
		if center == LeveneMean {
			c, _ = MeanVar(g)
		}
		z[i] = make([]float64, len(g))
		for j, v := range g {
			z[i][j] = math.Abs(v - c)
		}
		zbar[i], _ = MeanVar(z[i])
		ntot += float64(len(g))
		zall += float64(len(g)) * zbar[i]
	}
	zall /= ntot
	var between, within float64
	for i := range z {
		d := zbar[i] - zall
		between += float64(len(z[i])) * d * d
		for _, v := range z[i] {
			within += (v - zbar[i]) * (v - zbar[i])
		}
	}
	kf := float64(k)
	w := (ntot - kf) * between / ((kf - 1) * within)
	if math.IsNaN(w) || math.IsInf(w, 0) {
		return nan, nil
	}
	return TestResult{w, fSF(w, kf-1, ntot-kf)}, nil
}

// Median is numpy's median (the mean of the two middle values for an
// even count); NaN for no values.
func Median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ANOVAResult is an F test with its degrees of freedom.
type ANOVAResult struct {
	F   float64 `json:"f"`
	DF1 float64 `json:"df1"`
	DF2 float64 `json:"df2"`
	P   float64 `json:"p"`
}

// RepeatedMeasuresANOVA is statsmodels' AnovaRM with one within-subject
// factor: q[i][j] is subject (dataset) i under treatment (method) j, a
// complete n × k table, n ≥ 2, k ≥ 2. F = MS_treatment / MS_error on
// k − 1 and (k − 1)(n − 1) degrees of freedom, the error being what is
// left after removing the subject and treatment means. When the error
// sum of squares is 0 (every subject shows the same treatment effects)
// F is +Inf with p = 0, as statsmodels; F and p are NaN when the
// treatment sum of squares is 0 as well.
func RepeatedMeasuresANOVA(q [][]float64) (ANOVAResult, error) {
	n := len(q)
	if n < 2 {
		return ANOVAResult{math.NaN(), math.NaN(), math.NaN(), math.NaN()}, fmt.Errorf("repeated-measures ANOVA needs at least 2 subjects, got %d", n)
	}
	k := len(q[0])
	if k < 2 {
		return ANOVAResult{math.NaN(), math.NaN(), math.NaN(), math.NaN()}, fmt.Errorf("repeated-measures ANOVA needs at least 2 treatments, got %d", k)
	}
	rows := make([]float64, n)
	cols := make([]float64, k)
	var grand float64
	for i, r := range q {
		if len(r) != k {
			return ANOVAResult{math.NaN(), math.NaN(), math.NaN(), math.NaN()}, fmt.Errorf("repeated-measures ANOVA: row %d has %d values, want %d", i+1, len(r), k)
		}
		for j, v := range r {
			rows[i] += v
			cols[j] += v
			grand += v
		}
	}
	nf, kf := float64(n), float64(k)
	grand /= nf * kf
	for i := range rows {
		rows[i] /= kf
	}
	for j := range cols {
		cols[j] /= nf
	}
	var ssTreat, ssErr float64
	for j := range cols {
		ssTreat += nf * (cols[j] - grand) * (cols[j] - grand)
	}
	for i, r := range q {
		for j, v := range r {
			e := v - rows[i] - cols[j] + grand
			ssErr += e * e
		}
	}
	df1, df2 := kf-1, (kf-1)*(nf-1)
	f := (ssTreat / df1) / (ssErr / df2)
	res := ANOVAResult{F: f, DF1: df1, DF2: df2, P: fSF(f, df1, df2)}
	switch {
	case ssErr == 0 && ssTreat > 0:
		res.F, res.P = math.Inf(1), 0
	case math.IsNaN(f) || math.IsInf(f, 0):
		res.F, res.P = math.NaN(), math.NaN()
	}
	return res, nil
}

// TukeyPair is one comparison of Tukey's HSD: Diff is mean[B] − mean[A]
// (statsmodels' meandiff, with A before B), [Lower, Upper] its
// simultaneous confidence interval, P the adjusted p-value and Reject
// whether the studentized range |Diff|/SE exceeds the critical q.
type TukeyPair struct {
	A, B         int
	Diff, SE     float64
	Q            float64
	Lower, Upper float64
	P            float64
	Reject       bool
}

// TukeyHSDResult is Tukey's honestly significant difference test of all
// pairs of groups.
type TukeyHSDResult struct {
	MSE   float64 // within-group mean square, Σ(x − mean_g)²/(N − k)
	DF    float64 // N − k
	QCrit float64 // studentized range quantile at 1 − alpha
	Pairs []TukeyPair
	// HalfWidths are the simultaneous intervals of each group's mean
	// (Hochberg & Tamhane 1987, eq. 28.16), statsmodels'
	// TukeyHSDResults.halfwidths: two groups differ significantly exactly
	// when their intervals mean ± half-width do not overlap (for equal
	// group sizes).
	HalfWidths []float64
}

// TukeyHSD is statsmodels' pairwise_tukeyhsd on the groups (treated as
// independent samples; the Tukey–Kramer standard error for unequal
// sizes), with the studentized range of scipy.stats.studentized_range on
// N − k degrees of freedom. It needs at least 2 groups and N > k.
func TukeyHSD(groups [][]float64, alpha float64) (*TukeyHSDResult, error) {
	k := len(groups)
	if k < 2 {
		return nil, fmt.Errorf("tukey's HSD needs at least 2 groups, got %d", k)
	}
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("tukey's HSD: alpha must be in (0, 1), got %g", alpha)
	}
	means := make([]float64, k)
	nobs := make([]float64, k)
	var ss, ntot float64
	for i, g := range groups {
		if len(g) == 0 {
			return nil, fmt.Errorf("tukey's HSD: group %d is empty", i+1)
		}
		means[i], _ = MeanVar(g)
		for _, v := range g {
			ss += (v - means[i]) * (v - means[i])
		}
		nobs[i] = float64(len(g))
		ntot += nobs[i]
	}
	df := ntot - float64(k)
	if df < 1 {
		return nil, fmt.Errorf("tukey's HSD needs more values than groups, have %g values in %d groups", ntot, k)
	}
	res := &TukeyHSDResult{MSE: ss / df, DF: df}
	qc, err := StudentizedRangeQuantileDF(1-alpha, k, df)
	if err != nil {
		return nil, err
	}
	res.QCrit = qc
	for a := 0; a < k; a++ {
		for b := a + 1; b < k; b++ {
			p := TukeyPair{A: a, B: b, Diff: means[b] - means[a]}
			p.SE = math.Sqrt(res.MSE / 2 * (1/nobs[a] + 1/nobs[b]))
			p.Q = math.Abs(p.Diff) / p.SE
			w := p.SE * qc
			p.Lower, p.Upper = p.Diff-w, p.Diff+w
			p.P = StudentizedRangeSF(p.Q, k, df)
			p.Reject = p.Q > qc
			if p.SE == 0 {
				p.Q, p.P = math.NaN(), math.NaN()
				p.Reject = false
			}
			res.Pairs = append(res.Pairs, p)
		}
	}
	res.HalfWidths = tukeyHalfWidths(qc, res.MSE, nobs)
	return res, nil
}

// tukeyHalfWidths is statsmodels' simultaneous_ci: with
// d_ij = √(MSE/n_i + MSE/n_j), w_i = ((k − 1) Σ_j d_ij − Σ_{i<j} d_ij) /
// ((k − 1)(k − 2)) for k > 2 (d_12/2 for two groups), times q/√2.
func tukeyHalfWidths(qc, mse float64, nobs []float64) []float64 {
	k := len(nobs)
	d := make([][]float64, k)
	for i := range d {
		d[i] = make([]float64, k)
	}
	var sum1 float64
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			v := math.Sqrt(mse/nobs[i] + mse/nobs[j])
			d[i][j], d[j][i] = v, v
			sum1 += v
		}
	}
	out := make([]float64, k)
	kf := float64(k)
	for i := range out {
		var sum2 float64
		for j := range d[i] {
			sum2 += d[i][j]
		}
		w := sum1 / 2
		if k > 2 {
			w = ((kf-1)*sum2 - sum1) / ((kf - 1) * (kf - 2))
		}
		out[i] = qc / math.Sqrt2 * w
	}
	return out
}
