package stats

// Classical two-sample and k-sample tests used by critical_difference and
// paired_tests. They are written to return the same numbers as scipy 1.10
// (scipy.stats.friedmanchisquare, ttest_rel, ttest_ind(equal_var=False),
// mannwhitneyu, binomtest) and statsmodels 0.13 (multipletests "holm",
// TTestPower, TTestIndPower), because readers check a companion site
// against those tools; the fixtures in testdata/oracle/significance are
// made by them. A quantity that is undefined for the data (zero variance,
// no non-zero difference) is NaN here; callers turn NaN into nil plus a
// warning.

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestResult is a statistic with its two-sided p-value.
type TestResult struct {
	Statistic float64 `json:"statistic"`
	P         float64 `json:"p"`
}

// normSF is the standard normal survival function (scipy's norm.sf).
func normSF(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// NormalTwoSidedP is the two-sided p-value of a standard normal
// statistic z, 2·P(Z ≥ |z|), computed with erfc in the upper tail so it
// keeps its relative precision down to about 1e-308 (metafor's
// 2·pnorm(−|z|)). gonum's Normal.Survival is 1 − erf, whose difference
// cancels to exactly 0 for |z| above about 8.3 (p below 1e-16).
func NormalTwoSidedP(z float64) float64 {
	if math.IsNaN(z) {
		return math.NaN()
	}
	return math.Erfc(math.Abs(z) / math.Sqrt2)
}

// StudentTwoSidedP is the two-sided p-value of a Student t statistic
// with df degrees of freedom, 2·P(T ≥ |t|), from the regularized
// incomplete beta function of the upper tail (R's 2·pt(−|t|, df)).
func StudentTwoSidedP(t, df float64) float64 {
	if math.IsNaN(t) || !(df > 0) {
		return math.NaN()
	}
	return 2 * tSF(math.Abs(t), df)
}

// tSF is the survival function of Student's t with df degrees of freedom.
func tSF(t, df float64) float64 {
	if math.IsInf(t, 1) {
		return 0
	}
	if math.IsInf(t, -1) {
		return 1
	}
	x := df / (df + t*t)
	tail := 0.5 * mathext.RegIncBeta(df/2, 0.5, x)
	if t < 0 {
		return 1 - tail
	}
	return tail
}

// chi2SF is the survival function of χ² with df degrees of freedom.
func chi2SF(x, df float64) float64 {
	if x <= 0 {
		return 1
	}
	return mathext.GammaIncRegComp(df/2, x/2)
}

// fSF is the survival function of F(d1, d2).
func fSF(x, d1, d2 float64) float64 {
	if x <= 0 {
		return 1
	}
	if math.IsInf(x, 1) {
		return 0
	}
	return mathext.RegIncBeta(d2/2, d1/2, d2/(d2+d1*x))
}

// tieSum returns Σ (t³ − t) over groups of equal values of x.
func tieSum(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	var sum float64
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j] == s[i] {
			j++
		}
		t := float64(j - i)
		sum += t*t*t - t
		i = j
	}
	return sum
}

// Friedman returns Friedman's χ² over the rows (blocks, datasets) of q
// (columns are treatments, methods) with the tie correction of
// scipy.stats.friedmanchisquare, and its p-value on k − 1 degrees of
// freedom. It is NaN when every row is one tie (the correction divides
// by zero). q must be complete, with at least two columns.
func Friedman(q [][]float64) TestResult {
	n := len(q)
	if n == 0 {
		return TestResult{math.NaN(), math.NaN()}
	}
	k := len(q[0])
	sums := make([]float64, k)
	var ties float64
	for _, row := range q {
		r := RankData(row)
		for j, v := range r {
			sums[j] += v
		}
		ties += tieSum(row)
	}
	c := 1 - ties/float64(k*(k*k-1)*n)
	var ssbn float64
	for _, s := range sums {
		ssbn += s * s
	}
	kf, nf := float64(k), float64(n)
	chi := (12.0/(kf*nf*(kf+1))*ssbn - 3*nf*(kf+1)) / c
	if c == 0 {
		return TestResult{math.NaN(), math.NaN()}
	}
	return TestResult{chi, chi2SF(chi, kf-1)}
}

// ImanDavenport returns the F statistic of Iman & Davenport (1980) from
// Friedman's χ² over n blocks and k treatments (Demšar 2006, eq. 2) and
// its p-value on (k − 1, (k − 1)(n − 1)) degrees of freedom. F is +Inf
// (p = 0) when every block ranks the treatments the same way.
func ImanDavenport(chi2 float64, n, k int) TestResult {
	nf, kf := float64(n), float64(k)
	den := nf*(kf-1) - chi2
	var f float64
	switch {
	case math.IsNaN(chi2):
		return TestResult{math.NaN(), math.NaN()}
	case den <= 0:
		f = math.Inf(1)
	default:
		f = (nf - 1) * chi2 / den
	}
	return TestResult{f, fSF(f, kf-1, (kf-1)*(nf-1))}
}

// Holm returns Holm's step-down adjusted p-values (statsmodels
// multipletests(method="holm")): sorted ascending, p(i)·(m − i) made
// monotone by a running maximum and capped at 1. NaN entries are left
// out of the family and stay NaN.
func Holm(p []float64) []float64 {
	idx := make([]int, 0, len(p))
	for i, v := range p {
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	out := make([]float64, len(p))
	for i := range out {
		out[i] = math.NaN()
	}
	m := len(idx)
	run := 0.0
	for i, j := range idx {
		v := p[j] * float64(m-i)
		run = math.Max(run, v)
		out[j] = math.Min(run, 1)
	}
	return out
}

// MeanVar returns the mean and the sample variance (n − 1) of x.
func MeanVar(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		d := v - mean
		variance += d * d
	}
	return mean, variance / float64(len(x)-1)
}

// PairedT is scipy.stats.ttest_rel(a, b): t = mean(d)/(sd(d)/√n) with
// d = a − b, two-sided p on n − 1 degrees of freedom. NaN when the
// differences have no spread or n < 2.
func PairedT(a, b []float64) TestResult {
	if len(a) != len(b) {
		panic("stats: PairedT length mismatch")
	}
	n := len(a)
	if n < 2 {
		return TestResult{math.NaN(), math.NaN()}
	}
	d := make([]float64, n)
	for i := range a {
		d[i] = a[i] - b[i]
	}
	m, v := MeanVar(d)
	if v == 0 {
		return TestResult{math.NaN(), math.NaN()}
	}
	t := m / math.Sqrt(v/float64(n))
	return TestResult{t, 2 * tSF(math.Abs(t), float64(n-1))}
}

// WelchT is scipy.stats.ttest_ind(a, b, equal_var=False): Welch's t with
// the Welch–Satterthwaite degrees of freedom. NaN when both samples have
// no spread.
func WelchT(a, b []float64) TestResult {
	if len(a) < 2 || len(b) < 2 {
		return TestResult{math.NaN(), math.NaN()}
	}
	ma, va := MeanVar(a)
	mb, vb := MeanVar(b)
	n1, n2 := float64(len(a)), float64(len(b))
	vn1, vn2 := va/n1, vb/n2
	if vn1+vn2 == 0 {
		return TestResult{math.NaN(), math.NaN()}
	}
	df := (vn1 + vn2) * (vn1 + vn2) / (vn1*vn1/(n1-1) + vn2*vn2/(n2-1))
	t := (ma - mb) / math.Sqrt(vn1+vn2)
	return TestResult{t, 2 * tSF(math.Abs(t), df)}
}

// MannWhitneyU is scipy.stats.mannwhitneyu(a, b) (two-sided,
// use_continuity=True, method="auto"): the statistic is U of a; the p is
// exact when either sample has at most 8 values and there are no ties,
// otherwise the normal approximation with tie correction and continuity
// correction.
func MannWhitneyU(a, b []float64) (res TestResult, exact bool) {
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 {
		return TestResult{math.NaN(), math.NaN()}, false
	}
	xy := append(append(make([]float64, 0, n1+n2), a...), b...)
	ranks := RankData(xy)
	var r1 float64
	for _, r := range ranks[:n1] {
		r1 += r
	}
	u1 := r1 - float64(n1*(n1+1))/2
	u2 := float64(n1*n2) - u1
	u := math.Max(u1, u2)
	ties := tieSum(xy)
	exact = !(n1 > 8 && n2 > 8) && ties == 0
	var p float64
	if exact {
		p = mwuSF(int(u), n1, n2)
	} else {
		mu := float64(n1*n2) / 2
		n := float64(n1 + n2)
		s := math.Sqrt(float64(n1*n2) / 12 * ((n + 1) - ties/(n*(n-1))))
		z := (u - mu - 0.5) / s
		if s == 0 {
			z = math.Inf(-1) // scipy: (U − μ − ½)/0 with U = μ
		}
		p = normSF(z)
	}
	p = math.Min(math.Max(2*p, 0), 1)
	return TestResult{u1, p}, exact
}

// mwuSF returns P(U ≥ u) under the null for samples of m and n values:
// the number of ways is the Gaussian binomial coefficient's coefficient
// (scipy's _MWU, [3] Theorem 2.5), built by adding positive counts only.
func mwuSF(u, m, n int) float64 {
	if m > n {
		m, n = n, m
	}
	L := m*n + 1
	// f[i] is the count polynomial for (i, n') as n' grows to n.
	f := make([][]float64, m+1)
	for i := range f {
		f[i] = make([]float64, L)
	}
	for i := range f {
		f[i][0] = 1 // F(i, 0) = 1: U = 0 is the only value
	}
	for np := 1; np <= n; np++ {
		for i := 1; i <= m; i++ {
			// F(i, np) = F(i, np−1) + q^np · F(i−1, np)
			for k := L - 1; k >= np; k-- {
				f[i][k] += f[i-1][k-np]
			}
		}
	}
	// sf(u) = cdf(m·n − u) by symmetry, as scipy sums from the left.
	k := m*n - u
	var c float64
	for i := 0; i <= k && i < L; i++ {
		c += f[m][i]
	}
	return c / binom(m+n, m)
}

func binom(n, k int) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	if n < 60 {
		// exact in float64 for the sizes the exact test sees
		r := 1.0
		for i := 1; i <= k; i++ {
			r = r * float64(n-k+i) / float64(i)
		}
		return math.Round(r)
	}
	return math.Exp(lg(n) - lg(k) - lg(n-k))
}

// SignTest is scipy.stats.binomtest(k, n, 0.5) (two-sided) on the signs
// of the differences a − b: k counts positive differences, n the
// non-zero ones (zeros are dropped). The statistic is k; NaN when n = 0.
func SignTest(d []float64) (res TestResult, nonzero int) {
	k := 0
	for _, v := range d {
		if v > 0 {
			k++
			nonzero++
		} else if v < 0 {
			nonzero++
		}
	}
	n := nonzero
	if n == 0 {
		return TestResult{math.NaN(), math.NaN()}, 0
	}
	if 2*k == n {
		return TestResult{float64(k), 1}, n
	}
	lo := min(k, n-k)
	// With p = ½ the pmf is symmetric, so scipy's two tails are
	// cdf(lo) + sf(n − lo − 1) = 2·cdf(lo); cdf(lo) = I_{½}(n − lo, lo + 1).
	p := 2 * mathext.RegIncBeta(float64(n-lo), float64(lo+1), 0.5)
	return TestResult{float64(k), math.Min(p, 1)}, n
}

// TTestPower is statsmodels' TTestPower().power(effect_size=d, nobs=n,
// alpha, alternative="two-sided"): the power of a one-sample (paired)
// t-test on n − 1 degrees of freedom, from the noncentral t with
// noncentrality d·√n (gonum's AS 243 CDF).
func TTestPower(d float64, n int, alpha float64) float64 {
	return tPower(d, float64(n), float64(n-1), alpha)
}

// TTestIndPower is statsmodels' TTestIndPower().power(effect_size=d,
// nobs1=n1, alpha, ratio=n2/n1): the two-sample pooled t-test on
// n1 + n2 − 2 degrees of freedom with effective n = 1/(1/n1 + 1/n2).
func TTestIndPower(d float64, n1, n2 int, alpha float64) float64 {
	nobs := 1 / (1/float64(n1) + 1/float64(n2))
	return tPower(d, nobs, float64(n1+n2-2), alpha)
}

func tPower(d, nobs, df, alpha float64) float64 {
	if math.IsNaN(d) || df < 1 {
		return math.NaN()
	}
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	critUpp := st.Quantile(1 - alpha/2)
	critLow := st.Quantile(alpha / 2)
	mu := d * math.Sqrt(nobs)
	return math.Min(1, (1-nctCDF(critUpp, df, mu))+nctCDF(critLow, df, mu))
}

// nctCDF is the noncentral t CDF from gonum's AS 243, evaluated at t ≥ 0
// only: for t < 0 it uses F(t; ν, μ) = 1 − F(−t; ν, −μ). gonum 0.17's
// fallback for a noncentrality beyond about 38 (where exp(−μ²/2)
// underflows) returns the wrong tail for t < 0 (F(−12.7; 1, 40) comes out
// 0.99999998 instead of ≈ 0); the t ≥ 0 branch is right. Rounding can
// leave the series a hair outside [0, 1], so the result is clamped.
func nctCDF(t, df, mu float64) float64 {
	var p float64
	if t >= 0 {
		p = distuv.NoncentralT{Nu: df, Mu: mu}.CDF(t)
	} else {
		p = 1 - distuv.NoncentralT{Nu: df, Mu: -mu}.CDF(-t)
	}
	return math.Min(math.Max(p, 0), 1)
}

// CohenDz is the standardised mean difference of paired data,
// mean(d)/sd(d) (sd with n − 1); NaN when sd is 0 or n < 2.
func CohenDz(d []float64) float64 {
	if len(d) < 2 {
		return math.NaN()
	}
	m, v := MeanVar(d)
	if v == 0 {
		return math.NaN()
	}
	return m / math.Sqrt(v)
}

// CohenD is the two-sample standardised mean difference with the pooled
// sd ((n1 − 1)s1² + (n2 − 1)s2²)/(n1 + n2 − 2), the effect size
// statsmodels' TTestIndPower expects.
func CohenD(a, b []float64) float64 {
	if len(a) < 2 || len(b) < 2 {
		return math.NaN()
	}
	ma, va := MeanVar(a)
	mb, vb := MeanVar(b)
	n1, n2 := float64(len(a)), float64(len(b))
	s := math.Sqrt(((n1-1)*va + (n2-1)*vb) / (n1 + n2 - 2))
	if s == 0 {
		return math.NaN()
	}
	return (ma - mb) / s
}
