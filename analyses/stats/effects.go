package stats

// Effect sizes and intervals of central tendency as autorank reports them
// (Herbold 2020): Cohen's d with the pooled standard deviation (CohenD in
// tests.go), Akinshin's γ with the pooled normal-consistent MAD, Cliff's
// δ, their magnitudes, and the intervals of a mean and of a median.

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// MADNormal is the factor that makes the median absolute deviation a
// consistent estimator of a normal standard deviation, 1/Φ⁻¹(3/4) rounded
// as autorank (and R's mad) use it.
const MADNormal = 1.4826

// MAD is the median absolute deviation from the median, unscaled
// (scipy.stats.median_abs_deviation(x)); NaN for no values.
func MAD(x []float64) float64 {
	m := Median(x)
	d := make([]float64, len(x))
	for i, v := range x {
		d[i] = math.Abs(v - m)
	}
	return Median(d)
}

// AkinshinGamma is the nonparametric analogue of Cohen's d that autorank
// reports for non-normal data (Akinshin 2020, "Nonparametric Cohen's d"):
// (median(a) − median(b)) over the pooled MAD
// √(((n₁ − 1)·MAD₁² + (n₂ − 1)·MAD₂²)/(n₁ + n₂ − 2)), each MAD scaled by
// MADNormal. NaN when the pooled MAD is 0 or a sample has fewer than 2
// values.
func AkinshinGamma(a, b []float64) float64 {
	if len(a) < 2 || len(b) < 2 {
		return math.NaN()
	}
	ma, mb := MADNormal*MAD(a), MADNormal*MAD(b)
	n1, n2 := float64(len(a)), float64(len(b))
	s := math.Sqrt(((n1-1)*ma*ma + (n2-1)*mb*mb) / (n1 + n2 - 2))
	if s == 0 {
		return math.NaN()
	}
	return (Median(a) - Median(b)) / s
}

// CliffsDelta is Cliff's δ = (#{a_i > b_j} − #{a_i < b_j}) / (n₁ n₂)
// (Cliff 1993), in [−1, 1]; NaN when a sample is empty.
func CliffsDelta(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN()
	}
	var s int
	for _, x := range a {
		for _, y := range b {
			switch {
			case x > y:
				s++
			case x < y:
				s--
			}
		}
	}
	return float64(s) / (float64(len(a)) * float64(len(b)))
}

// Effect size magnitudes.
const (
	MagnitudeNegligible = "negligible"
	MagnitudeSmall      = "small"
	MagnitudeMedium     = "medium"
	MagnitudeLarge      = "large"
)

// DMagnitude is autorank's label of |d| or |γ|: below 0.2 negligible,
// below 0.5 small, below 0.8 medium, else large (Cohen 1988). "" for NaN.
func DMagnitude(d float64) string { return magnitude(d, 0.2, 0.5, 0.8) }

// DeltaMagnitude is autorank's label of Cliff's |δ|: below 0.147
// negligible, below 0.33 small, below 0.474 medium, else large (Romano
// et al. 2006). "" for NaN.
func DeltaMagnitude(d float64) string { return magnitude(d, 0.147, 0.33, 0.474) }

func magnitude(x, small, medium, large float64) string {
	x = math.Abs(x)
	switch {
	case math.IsNaN(x):
		return ""
	case x < small:
		return MagnitudeNegligible
	case x < medium:
		return MagnitudeSmall
	case x < large:
		return MagnitudeMedium
	}
	return MagnitudeLarge
}

// MeanCI is the two-sided Student t interval of the mean of x at level
// 1 − alpha: mean ± t_{1−alpha/2, n−1} · sd/√n (sd with n − 1), as
// scipy.stats.t.interval(1 − alpha, n − 1, mean, sem) and autorank
// compute it. gonum's t quantile agrees with mpmath's root of the
// incomplete beta to 1e-12 (scipy 1.10's t.ppf is off by up to 5e-9). It
// needs n ≥ 2.
func MeanCI(x []float64, alpha float64) (lower, upper float64, err error) {
	n := len(x)
	if n < 2 {
		return math.NaN(), math.NaN(), fmt.Errorf("a confidence interval of the mean needs at least 2 values, got %d", n)
	}
	if !(alpha > 0 && alpha < 1) {
		return math.NaN(), math.NaN(), fmt.Errorf("alpha must be in (0, 1), got %g", alpha)
	}
	m, v := MeanVar(x)
	h := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1-alpha/2) * math.Sqrt(v/float64(n))
	return m - h, m + h, nil
}

// MedianCI is the distribution-free interval of the median from order
// statistics (Conover 1980, §3.2): with x sorted and B ~ Binomial(n, ½),
// [x_(l), x_(n+1−l)] (1-based) for the largest l ≥ 1 with
// P(B ≤ l − 1) ≤ alpha/2. Its exact coverage, 1 − 2·P(B ≤ l − 1), is at
// least 1 − alpha and is returned. When even l = 1 misses (n too small:
// 2·2⁻ⁿ > alpha) the interval is the whole range [x_(1), x_(n)] and its
// coverage 1 − 2^(1−n) is below 1 − alpha; the caller should say so.
// It needs n ≥ 2.
func MedianCI(x []float64, alpha float64) (lower, upper, coverage float64, err error) {
	n := len(x)
	if n < 2 {
		return math.NaN(), math.NaN(), math.NaN(), fmt.Errorf("a confidence interval of the median needs at least 2 values, got %d", n)
	}
	if !(alpha > 0 && alpha < 1) {
		return math.NaN(), math.NaN(), math.NaN(), fmt.Errorf("alpha must be in (0, 1), got %g", alpha)
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	// P(B ≤ j), summed from the pmf in log space (2⁻ⁿ underflows past
	// n = 1074).
	lchoose := func(j int) float64 {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(j + 1))
		c, _ := math.Lgamma(float64(n - j + 1))
		return a - b - c - float64(n)*math.Ln2
	}
	l := 1
	cdf := math.Exp(lchoose(0))
	tail := cdf // P(B ≤ l − 1) for the l accepted so far
	for j := 1; j <= n/2; j++ {
		next := cdf + math.Exp(lchoose(j)) // P(B ≤ j)
		if next > alpha/2 {
			break
		}
		cdf = next
		l, tail = j+1, next
	}
	if tail > alpha/2 { // even x_(1) .. x_(n) does not reach the level
		return s[0], s[n-1], 1 - 2*tail, nil
	}
	return s[l-1], s[n-l], 1 - 2*tail, nil
}
