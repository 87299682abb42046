package analyses

// The fixed- and random-effects models of the meta-analysis, written to
// give metafor's numbers (rma.uni with an intercept only, test = "z"):
// the same estimators, the same starting value and update rule for REML,
// the same I² and H² definitions and predict()'s prediction interval.
// Iterative estimators are run to full convergence (metafor's defaults
// stop at a change of 1e-5 in τ²; the fixtures are generated with
// tighter control so both sides report the converged estimate).

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

type metaFitResult struct {
	est, se, tau2, q float64
	df               int
	pq, i2, h2       float64
	ciLow, ciHigh, p float64
	piLow, piHigh    float64
	w                []float64 // model weights as fractions of 1
	warn             string
}

// metaFitRows fits the model to the rows at idx.
func metaFitRows(rows []MetaRow, idx []int, o MetaOptions, z float64) metaFitResult {
	y := make([]float64, len(idx))
	v := make([]float64, len(idx))
	for j, i := range idx {
		y[j], v[j] = rows[i].Effect, rows[i].Variance
	}
	return metaFit(y, v, o.Model, o.Tau2, z)
}

func (f metaFitResult) summary(rows []MetaRow, idx []int) MetaSummary {
	n := 0
	for _, i := range idx {
		n += rows[i].N
	}
	return MetaSummary{K: len(idx), N: n, Effect: num(f.est), SE: num(f.se), CILow: num(f.ciLow), CIHigh: num(f.ciHigh),
		P: num(f.p), Tau2: num(f.tau2), Q: num(f.q), DF: f.df, PQ: num(f.pq), I2: num(f.i2), H2: num(f.h2),
		PILow: num(f.piLow), PIHigh: num(f.piHigh)}
}

// metaFit combines effects y with within-study variances v (all v > 0).
// model is "fixed" or "random"; method is the τ² estimator for "random".
func metaFit(y, v []float64, model, method string, z float64) metaFitResult {
	k := len(y)
	if k == 0 || len(v) != k {
		panic("analyses: metaFit needs as many variances as effects, at least one")
	}
	nan := math.NaN()
	f := metaFitResult{df: k - 1, pq: nan, i2: nan, h2: nan, piLow: nan, piHigh: nan}
	// Fixed-effect quantities: W = 1/V, Q and C (seed 000 Eq. 6).
	var sw, sw2, swy float64
	for i := range y {
		w := 1 / v[i]
		sw += w
		sw2 += w * w
		swy += w * y[i]
	}
	mFE := swy / sw
	for i := range y {
		d := y[i] - mFE
		f.q += d * d / v[i]
	}
	c := sw - sw2/sw
	if k > 1 {
		f.pq = distuv.ChiSquared{K: float64(k - 1)}.Survival(f.q)
	}
	if model == "fixed" || k == 1 {
		f.tau2 = 0
	} else {
		switch method {
		case "DL":
			f.tau2 = math.Max(0, (f.q-float64(k-1))/c)
		case "REML":
			f.tau2, f.warn = metaREML(y, v)
		case "PM":
			f.tau2 = metaPM(y, v)
		default:
			panic("analyses: unknown tau2 estimator " + method)
		}
	}
	if k == 1 {
		f.q = nan
		f.tau2 = nan
	}
	t2 := f.tau2
	if math.IsNaN(t2) {
		t2 = 0
	}
	// Weights W* = 1/(V + τ²), M* and V_M* (seed 000 Eq. 7).
	var sws, swsy float64
	f.w = make([]float64, k)
	for i := range y {
		w := 1 / (v[i] + t2)
		f.w[i] = w
		sws += w
		swsy += w * y[i]
	}
	for i := range f.w {
		f.w[i] /= sws
	}
	f.est = swsy / sws
	f.se = math.Sqrt(1 / sws)
	f.ciLow, f.ciHigh = f.est-z*f.se, f.est+z*f.se
	f.p = 2 * distuv.UnitNormal.Survival(math.Abs(f.est)/f.se)
	if k == 1 {
		return f
	}
	df := float64(k - 1)
	if model == "fixed" {
		// metafor: I² = max(0, (Q − df)/Q), H² = Q/df for fixed-effect models;
		// predict() gives the confidence interval as the prediction interval.
		if f.q > 0 {
			f.i2 = math.Max(0, 100*(f.q-df)/f.q)
		} else {
			f.i2 = 0
		}
		f.h2 = f.q / df
		f.piLow, f.piHigh = f.ciLow, f.ciHigh
		return f
	}
	// metafor: "typical" within-study variance vt = df / (ΣW − ΣW²/ΣW),
	// I² = τ²/(τ² + vt), H² = (τ² + vt)/vt; predict(): M* ± z·√(V_M* + τ²).
	vt := df / c
	f.i2 = 100 * f.tau2 / (vt + f.tau2)
	f.h2 = (vt + f.tau2) / vt
	s := math.Sqrt(f.se*f.se + f.tau2)
	f.piLow, f.piHigh = f.est-z*s, f.est+z*s
	return f
}

// metaREML is metafor's REML estimator of τ²: Fisher scoring from the
// Hedges (HE) estimate truncated at 0, τ² ← τ² + (y'PPy − tr P)/tr(PP),
// halving a step that would go below 0, until the change is negligible.
func metaREML(y, v []float64) (float64, string) {
	k := float64(len(y))
	// Hedges' estimator: (Σ(y − ȳ)² − (k−1)/k·Σv)/(k − 1).
	var ybar, sv float64
	for i := range y {
		ybar += y[i]
		sv += v[i]
	}
	ybar /= k
	var rss float64
	for i := range y {
		rss += (y[i] - ybar) * (y[i] - ybar)
	}
	tau2 := math.Max(0, (rss-(k-1)/k*sv)/(k-1))
	w := make([]float64, len(y))
	for iter := 0; iter < 10000; iter++ {
		var sw, sw2, sw3, swy float64
		for i := range y {
			w[i] = 1 / (v[i] + tau2)
			sw += w[i]
			sw2 += w[i] * w[i]
			sw3 += w[i] * w[i] * w[i]
			swy += w[i] * y[i]
		}
		mu := swy / sw
		// For an intercept-only model P = W − ww'/Σw, so Py = w∘(y − μ),
		// tr P = Σw − Σw²/Σw and tr(PP) = Σw² − 2Σw³/Σw + (Σw²/Σw)².
		var ypp float64
		for i := range y {
			r := w[i] * (y[i] - mu)
			ypp += r * r
		}
		trP := sw - sw2/sw
		trPP := sw2 - 2*sw3/sw + (sw2/sw)*(sw2/sw)
		adj := (ypp - trP) / trPP
		if math.IsNaN(adj) {
			adj = 0
		}
		for tau2+adj < 0 {
			adj /= 2
		}
		old := tau2
		tau2 += adj
		if math.Abs(tau2-old) <= 1e-13*math.Max(1, tau2) {
			return tau2, ""
		}
	}
	return tau2, fmt.Sprintf("REML: Fisher scoring did not converge in 10000 steps (τ² = %g)", tau2)
}

// metaPM is the Paule–Mandel estimator: the τ² ≥ 0 at which the
// generalised Q, Σ W*(y − M*)², equals k − 1 (metafor solves the same
// equation with uniroot; here bisection runs to full precision).
func metaPM(y, v []float64) float64 {
	target := float64(len(y) - 1)
	qgen := func(t2 float64) float64 {
		var sw, swy float64
		for i := range y {
			w := 1 / (v[i] + t2)
			sw += w
			swy += w * y[i]
		}
		mu := swy / sw
		var q float64
		for i := range y {
			d := y[i] - mu
			q += d * d / (v[i] + t2)
		}
		return q
	}
	if qgen(0) <= target {
		return 0
	}
	lo, hi := 0.0, 1.0
	for qgen(hi) > target {
		lo, hi = hi, hi*2
		if hi > 1e300 {
			return math.Inf(1)
		}
	}
	for i := 0; i < 2000; i++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if qgen(mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}
