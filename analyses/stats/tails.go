package stats

import "math"

// ChiSquaredSF is the upper tail P(X ≥ x) of χ² with df degrees of
// freedom, from the regularized upper incomplete gamma function, so it
// keeps its relative precision far into the tail (R's
// pchisq(x, df, lower.tail = FALSE)); 1 for x ≤ 0, NaN for NaN or
// df ≤ 0.
func ChiSquaredSF(x, df float64) float64 {
	if math.IsNaN(x) || !(df > 0) {
		return math.NaN()
	}
	return chi2SF(x, df)
}

// FSF is the upper tail P(X ≥ x) of F(d1, d2), from the regularized
// incomplete beta function of the upper tail (R's
// pf(x, d1, d2, lower.tail = FALSE)); 1 for x ≤ 0, NaN for NaN or
// degrees of freedom ≤ 0.
func FSF(x, d1, d2 float64) float64 {
	if math.IsNaN(x) || !(d1 > 0) || !(d2 > 0) {
		return math.NaN()
	}
	return fSF(x, d1, d2)
}
