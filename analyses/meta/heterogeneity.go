package meta

// Confidence intervals for the amount of heterogeneity: the Q-profile
// method (Viechtbauer 2007) as metafor's confint() gives it for a
// random-effects model, with or without moderators, and the I² and H²
// intervals that follow from τ²'s.

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// HetCI is a Q-profile interval of τ² with the intervals of τ, I²
// (percent) and H² that follow from it (metafor's confint(rma)). A bound
// that lies outside the searched range [0, Tau2Max] is the range's end
// with LowSign or HighSign "<" or ">" (metafor prints "<0" and ">100");
// Empty is true when both bounds lie below 0, the null set.
type HetCI struct {
	Tau2, Tau2Low, Tau2High float64
	Tau, TauLow, TauHigh    float64
	I2, I2Low, I2High       float64
	H2, H2Low, H2High       float64
	LowSign, HighSign       string
	Empty                   bool
	Tau2Max                 float64 // the end of the searched range: max(100, 10τ²)
}

// QProfileCI is metafor's confint(rma(yi, vi, mods, method = …)) for τ²
// (type "QP"): the bounds are the τ² at which the generalised
// Q(τ²) = Y'P(τ²)Y equals the upper and lower α/2 quantiles of χ² on
// k − p degrees of freedom, searched in [0, max(100, 10·τ̂²)], and found
// here to full precision by bisection (metafor's uniroot stops at its
// tol). When Q(0) is below the upper quantile the lower bound is 0; when
// Q(0) is below the lower quantile the interval is the null set (both
// bounds 0); when Q(τ²max) is still above the lower quantile the upper
// bound is not found and is reported as "> τ²max". r is the fit (its τ²,
// I², H²; the model must be a random-effects one with τ² estimated).
func QProfileCI(yi, vi []float64, d Design, r *Regression, alpha float64) (HetCI, error) {
	if r.Method == "FE" {
		return HetCI{}, fmt.Errorf("a fixed-effects model has no τ²: its interval is undefined")
	}
	if r.FixedTau2 {
		return HetCI{}, fmt.Errorf("τ² was fixed at %v, not estimated: it has no interval", r.Tau2)
	}
	if !(alpha > 0 && alpha < 1) {
		return HetCI{}, fmt.Errorf("alpha = %v is not between 0 and 1", alpha)
	}
	k, p := r.K, r.P
	if k <= p {
		return HetCI{}, fmt.Errorf("%d studies for %d coefficients: no degrees of freedom for τ²'s interval", k, p)
	}
	df := float64(k - p)
	chi := distuv.ChiSquared{K: df}
	critU := chi.Quantile(1 - alpha/2)
	critL := chi.Quantile(alpha / 2)
	w := make([]float64, k)
	q := func(t2 float64) float64 {
		for i := range vi {
			w[i] = 1 / (vi[i] + t2)
		}
		return fitRSS(yi, d.X, w)
	}
	lo := 0.0
	hi := math.Max(100, 10*r.Tau2)
	c := HetCI{Tau2: r.Tau2, Tau2Max: hi, Tau2Low: math.NaN(), Tau2High: math.NaN()}
	qMin, qMax := q(lo), q(hi)
	// Q decreases in τ²: the root of Q(τ²) = target in [lo, hi].
	root := func(target float64) float64 {
		a, b := lo, hi
		for i := 0; i < 3000; i++ {
			m := a + (b-a)/2
			if m <= a || m >= b {
				break
			}
			if q(m) > target {
				a = m
			} else {
				b = m
			}
		}
		return a + (b-a)/2
	}
	switch {
	case qMin < critL:
		c.Tau2Low, c.Tau2High, c.LowSign, c.HighSign, c.Empty = lo, lo, "<", "<", true
	case qMax > critL:
		c.Tau2High, c.HighSign = hi, ">"
	default:
		c.Tau2High = root(critL)
	}
	switch {
	case qMax > critU:
		c.Tau2Low, c.Tau2High, c.LowSign, c.HighSign = hi, hi, ">", ">"
	case qMin < critU:
		c.Tau2Low = lo
	default:
		c.Tau2Low = root(critU)
	}
	vt := r.vt
	c.Tau, c.TauLow, c.TauHigh = math.Sqrt(c.Tau2), math.Sqrt(c.Tau2Low), math.Sqrt(c.Tau2High)
	c.I2, c.H2 = r.I2, r.H2
	c.I2Low, c.I2High = 100*c.Tau2Low/(vt+c.Tau2Low), 100*c.Tau2High/(vt+c.Tau2High)
	c.H2Low, c.H2High = c.Tau2Low/vt+1, c.Tau2High/vt+1
	return c, nil
}
