package meta

// The engine behind every model of the meta-analysis: metafor's rma.uni
// (Viechtbauer 2010) for an intercept-only model and, for Egger's
// regression test, a model with one moderator (p = 2). Every quantity is
// written with sums over the studies, so a fit costs O(k) per pass of an
// estimator (one pass for DL, HE and HS, one per iteration for ML, REML,
// EB, PM and the second pass of SJ).
//
// Notation as in metafor: W = diag(w), P = W − WX(X'WX)⁻¹X'W, so that
// PY = W∘e with e = Y − Xb the weighted residuals, Y'PY = Σ w e²,
// Y'PPY = Σ w² e², tr P = Σw − tr(A·X'W²X) and
// tr PP = Σw² − 2 tr(A·X'W³X) + tr(A·X'W²X·A·X'W²X), A = (X'WX)⁻¹.

import (
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses/stats"

	"gonum.org/v1/gonum/stat/distuv"
)

// rmaWLS is a weighted least-squares fit of y on [1] or [1, x].
type rmaWLS struct {
	p    int
	b    [2]float64    // coefficients
	a    [2][2]float64 // (X'WX)⁻¹
	sw   float64       // Σw
	rss  float64       // Y'PY = Σ w e²
	rss2 float64       // Y'PPY = Σ w² e²
	trP  float64
	trPP float64 // only when wanted
	xbar float64 // weighted mean of x (p = 2)
}

// rmaFitWLS fits y on the design (x == nil: intercept only) with weights w.
// want selects the traces: 0 none, 1 tr P, 2 tr P and tr PP.
func rmaFitWLS(y, x, w []float64, want int) rmaWLS {
	f := rmaWLS{p: 1}
	if x != nil {
		f.p = 2
	}
	// Weighted means first, then centred sums: the slope and the residuals
	// keep full precision when y or x sit far from zero.
	var sw, swy, swx float64
	for i := range y {
		sw += w[i]
		swy += w[i] * y[i]
		if x != nil {
			swx += w[i] * x[i]
		}
	}
	ybar := swy / sw
	f.sw = sw
	if x == nil {
		rmaFitMean(&f, y, w, want, ybar)
		return f
	}
	rmaFitLine(&f, y, x, w, want, ybar, swx/sw)
	return f
}

// rmaFitMean completes f for the intercept-only model: the weighted mean
// ybar, the residual sums and the traces wanted.
func rmaFitMean(f *rmaWLS, y, w []float64, want int, ybar float64) {
	sw := f.sw
	f.b[0] = ybar
	f.a[0][0] = 1 / sw
	var sw2, sw3, rss, rss2 float64
	for i := range y {
		e := y[i] - ybar
		we := w[i] * e
		rss += we * e
		rss2 += we * we
		if want > 0 {
			w2 := w[i] * w[i]
			sw2 += w2
			sw3 += w2 * w[i]
		}
	}
	f.rss, f.rss2 = rss, rss2
	if want > 0 {
		f.trP = sw - sw2/sw
	}
	if want > 1 {
		f.trPP = sw2 - 2*sw3/sw + (sw2/sw)*(sw2/sw)
	}
}

// rmaFitLine completes f for the model with a slope on x (weighted means
// ybar and xbar), from centred sums.
func rmaFitLine(f *rmaWLS, y, x, w []float64, want int, ybar, xbar float64) {
	sw := f.sw
	f.xbar = xbar
	var sxx, sxy float64
	for i := range y {
		dx := x[i] - xbar
		sxx += w[i] * dx * dx
		sxy += w[i] * dx * (y[i] - ybar)
	}
	slope := sxy / sxx
	f.b = [2]float64{ybar - slope*xbar, slope}
	// (X'WX)⁻¹ from the centred form: var(b1) = 1/Sxx,
	// var(b0) = 1/Σw + x̄²/Sxx, cov = −x̄/Sxx.
	f.a = [2][2]float64{{1/sw + xbar*xbar/sxx, -xbar / sxx}, {-xbar / sxx, 1 / sxx}}
	// X'W²X and X'W³X, with x centred at x̄ (a change of basis that leaves
	// the traces unchanged when A is taken in the same basis:
	// A_c = diag(1/Σw, 1/Sxx)).
	var m2, m3 [2][2]float64
	var rss, rss2 float64
	for i := range y {
		e := y[i] - ybar - slope*(x[i]-xbar)
		we := w[i] * e
		rss += we * e
		rss2 += we * we
		if want > 0 {
			dx := x[i] - xbar
			w2 := w[i] * w[i]
			m2[0][0] += w2
			m2[0][1] += w2 * dx
			m2[1][1] += w2 * dx * dx
			if want > 1 {
				w3 := w2 * w[i]
				m3[0][0] += w3
				m3[1][1] += w3 * dx * dx
			}
		}
	}
	f.rss, f.rss2 = rss, rss2
	if want > 0 {
		m2[1][0] = m2[0][1]
		ac := [2]float64{1 / sw, 1 / sxx} // A in the centred basis is diagonal
		f.trP = sw - (ac[0]*m2[0][0] + ac[1]*m2[1][1])
		if want > 1 {
			// tr(A M2 A M2) with A diagonal: Σ_ij a_i a_j M2_ij².
			var t float64
			for i := 0; i < 2; i++ {
				for j := 0; j < 2; j++ {
					t += ac[i] * ac[j] * m2[i][j] * m2[j][i]
				}
			}
			var sw2 float64
			for i := range w {
				sw2 += w[i] * w[i]
			}
			f.trPP = sw2 - 2*(ac[0]*m3[0][0]+ac[1]*m3[1][1]) + t
		}
	}
}

// rmaControl is the convergence control of the iterative estimators.
// metafor's defaults stop Fisher scoring at an absolute change of 1e-5 in
// τ² and uniroot at tol = eps^0.25, which is coarse when the variances
// are small (effects of 1e-5 have τ² of 1e-10); here the estimators run
// to full convergence, a change below rmaThreshold times the larger of τ²
// and the smallest sampling variance (τ² that small is 0 for every
// output), which the fixtures match by generating with tight control.
const (
	rmaThreshold = 1e-14
	rmaMaxIter   = 100000
)

// rmaVMin is the smallest sampling variance: the scale below which τ²
// no longer changes any output.
func rmaVMin(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}

// rmaTau2 estimates τ² on the design (x == nil: intercept only) by method:
// DL, HE, HS, SJ, ML, REML, EB or PM, as metafor's rma.uni, truncated at 0.
func rmaTau2(y, v, x []float64, method string) (float64, string) {
	k := len(y)
	p := 1
	if x != nil {
		p = 2
	}
	kp := float64(k - p)
	w := make([]float64, k)
	fixedW := func() {
		for i := range v {
			w[i] = 1 / v[i]
		}
	}
	switch method {
	case "DL":
		fixedW()
		f := rmaFitWLS(y, x, w, 1)
		return math.Max(0, (f.rss-kp)/f.trP), ""
	case "HS":
		// Hunter–Schmidt: (Y'PY − k)/Σw.
		fixedW()
		f := rmaFitWLS(y, x, w, 0)
		return math.Max(0, (f.rss-float64(k))/f.sw), ""
	case "HE":
		return math.Max(0, rmaHE(y, v, x)), ""
	case "SJ":
		return rmaSJ(y, v, x, w), ""
	case "ML", "REML", "EB":
		return rmaFisher(y, v, x, w, method)
	case "PM":
		return rmaPM(y, v, x, w), ""
	}
	panic("meta: unknown tau2 estimator " + method)
}

// rmaHE is Hedges' estimator (untruncated): the OLS residual sum of
// squares less its expectation under τ² = 0, over k − p:
// (RSS − tr(P_ols V))/(k − p), P_ols = I − X(X'X)⁻¹X'.
func rmaHE(y, v, x []float64) float64 {
	k := len(y)
	ones := make([]float64, k)
	for i := range ones {
		ones[i] = 1
	}
	f := rmaFitWLS(y, x, ones, 0)
	// tr(P_ols V) = Σv − tr((X'X)⁻¹ X'VX); in the centred basis
	// (X'X)⁻¹ = diag(1/k, 1/Sxx).
	var sv, svx2 float64
	for i := range v {
		sv += v[i]
		if x != nil {
			dx := x[i] - f.xbar
			svx2 += v[i] * dx * dx
		}
	}
	trPV := sv - sv/float64(k)
	p := 1
	if x != nil {
		p = 2
		var sxx float64
		for i := range x {
			dx := x[i] - f.xbar
			sxx += dx * dx
		}
		trPV -= svx2 / sxx
	}
	return (f.rss - trPV) / float64(k-p)
}

// rmaSJ is the Sidik–Jonkman estimator: from τ²₀ = Σ(e_ols²)/k (metafor:
// var(yi)·(k−1)/k for an intercept-only model), one weighted step
// τ² = τ²₀·Y'PY/(k − p) with W = 1/(v + τ²₀).
func rmaSJ(y, v, x, w []float64) float64 {
	k := len(y)
	p := 1
	if x != nil {
		p = 2
	}
	for i := range w {
		w[i] = 1
	}
	t0 := rmaFitWLS(y, x, w, 0).rss / float64(k)
	if x != nil {
		// metafor starts from the variance of the effects for any model.
		var m float64
		for _, yi := range y {
			m += yi
		}
		m /= float64(k)
		t0 = 0
		for _, yi := range y {
			t0 += (yi - m) * (yi - m)
		}
		t0 /= float64(k)
	}
	for i := range w {
		w[i] = 1 / (v[i] + t0)
	}
	f := rmaFitWLS(y, x, w, 0)
	return math.Max(0, t0*f.rss/float64(k-p))
}

// rmaFisher runs metafor's Fisher scoring for ML, REML and EB from the
// Hedges estimate truncated at 0, τ² ← τ² + adj, halving a step that
// would go below 0, until the change is negligible:
//
//	ML:   adj = (Y'PPY − Σw)/Σw²
//	REML: adj = (Y'PPY − tr P)/tr PP
//	EB:   adj = (Y'PY·k/(k−p) − k)/Σw
func rmaFisher(y, v, x, w []float64, method string) (float64, string) {
	k := float64(len(y))
	p := 1.0
	if x != nil {
		p = 2
	}
	tau2 := math.Max(0, rmaHE(y, v, x))
	vmin := rmaVMin(v)
	want := 0
	if method == "REML" {
		want = 2
	}
	for iter := 0; iter < rmaMaxIter; iter++ {
		for i := range v {
			w[i] = 1 / (v[i] + tau2)
		}
		f := rmaFitWLS(y, x, w, want)
		var adj float64
		switch method {
		case "ML":
			var sw2 float64
			for i := range w {
				sw2 += w[i] * w[i]
			}
			adj = (f.rss2 - f.sw) / sw2
		case "REML":
			adj = (f.rss2 - f.trP) / f.trPP
		case "EB":
			adj = (f.rss*k/(k-p) - k) / f.sw
		}
		if math.IsNaN(adj) {
			adj = 0
		}
		for tau2+adj < 0 {
			adj /= 2
		}
		old := tau2
		tau2 += adj
		if math.Abs(tau2-old) <= rmaThreshold*math.Max(vmin, tau2) {
			return rmaLL0Check(y, v, x, w, method, tau2)
		}
	}
	return tau2, fmt.Sprintf("%s: Fisher scoring did not converge in %d steps (τ² = %g)", method, rmaMaxIter, tau2)
}

// rmaLL0Check is metafor's ll0check for ML and REML: when the
// log-likelihood at τ² = 0 exceeds the one at the converged τ² by more
// than metafor's default tol (eps^0.25) and τ² is above its default
// threshold (1e-5), scoring stopped at a local maximum and τ² is set to 0.
func rmaLL0Check(y, v, x, w []float64, method string, tau2 float64) (float64, string) {
	if method == "EB" || tau2 <= 1e-5 {
		return tau2, ""
	}
	ll := func(t2 float64) float64 {
		var slog float64
		for i := range v {
			w[i] = 1 / (v[i] + t2)
			slog += math.Log(v[i] + t2)
		}
		f := rmaFitWLS(y, x, w, 0)
		l := -0.5*slog - 0.5*f.rss
		if method == "REML" {
			det := f.sw
			if f.p == 2 {
				det = f.sw / f.a[1][1] // Σw·Sxx
			}
			l -= 0.5 * math.Log(det)
		}
		return l // the 2π terms cancel in the comparison
	}
	if ll(0)-ll(tau2) > math.Pow(2.220446049250313e-16, 0.25) {
		return 0, fmt.Sprintf("%s: Fisher scoring stopped at a local maximum (τ² = %g); τ² set to 0, as metafor does", method, tau2)
	}
	return tau2, ""
}

// rmaPM is the Paule–Mandel estimator: the τ² ≥ 0 at which the
// generalised Q, Y'PY with W = 1/(v + τ²), equals k − p (metafor solves
// the same equation with uniroot; here bisection runs to full precision).
func rmaPM(y, v, x, w []float64) float64 {
	p := 1
	if x != nil {
		p = 2
	}
	target := float64(len(y) - p)
	qgen := func(t2 float64) float64 {
		for i := range v {
			w[i] = 1 / (v[i] + t2)
		}
		return rmaFitWLS(y, x, w, 0).rss
	}
	t2, _ := pmP(target, qgen)
	return t2
}

// rmaCoef is a fitted coefficient with its test.
type rmaCoef struct {
	est, se, stat, p, ciLow, ciHigh float64
}

// rmaModel is a fitted model: coefficients with metafor's tests, the
// weights, τ², QE and the Knapp–Hartung factor.
type rmaModel struct {
	coef [2]rmaCoef
	tau2 float64
	s2w  float64 // Knapp–Hartung scale (1 for test = "z")
	crit float64 // z or t quantile of the intervals
	df   int     // k − p for test = "knha", 0 for "z"
	w    []float64
	a    [2][2]float64 // vb: (X'W*X)⁻¹·s2w
}

// rmaTest returns the critical value and the p-value function of a test.
func rmaCrit(test string, df int, alpha float64) (float64, func(float64) float64) {
	if test == "knha" || test == "t" {
		if df < 1 {
			return math.NaN(), func(float64) float64 { return math.NaN() }
		}
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}
		nu := float64(df)
		return t.Quantile(1 - alpha/2), func(s float64) float64 { return stats.StudentTwoSidedP(s, nu) }
	}
	// p in the upper tail (erfc): 2·Normal.Survival is 1 − erf and
	// cancels to 0 below about 1e-16.
	return distuv.UnitNormal.Quantile(1 - alpha/2), stats.NormalTwoSidedP
}

// rmaFitModel fits the model with a given τ² (0 for a fixed-effect model)
// and test ("z" or "knha"), as rma.uni: W* = 1/(v + τ²), b = (X'W*X)⁻¹X'W*y;
// for "knha" vb is scaled by s2w = Y'P*Y/(k − p) (0 when that is below
// machine epsilon, as metafor) and tests use t(k − p).
func rmaFitModel(y, v, x []float64, tau2 float64, test string, alpha float64) rmaModel {
	k := len(y)
	m := rmaModel{tau2: tau2, s2w: 1, w: make([]float64, k)}
	for i := range v {
		m.w[i] = 1 / (v[i] + tau2)
	}
	f := rmaFitWLS(y, x, m.w, 0)
	if test == "t" {
		m.df = k - f.p // t(k − p) without rescaling, as rma(test = "t")
	}
	if test == "knha" {
		m.df = k - f.p
		if m.df > 0 {
			if f.rss <= 2.220446049250313e-16 {
				m.s2w = 0
			} else {
				m.s2w = f.rss / float64(m.df)
			}
		} else {
			m.s2w = math.NaN()
		}
	}
	crit, pval := rmaCrit(test, m.df, alpha)
	m.crit = crit
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			m.a[i][j] = f.a[i][j] * m.s2w
		}
	}
	for j := 0; j < f.p; j++ {
		c := rmaCoef{est: f.b[j], se: math.Sqrt(m.a[j][j])}
		c.stat = c.est / c.se
		c.p = pval(c.stat)
		c.ciLow, c.ciHigh = c.est-crit*c.se, c.est+crit*c.se
		m.coef[j] = c
	}
	return m
}
