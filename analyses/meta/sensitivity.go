package meta

// Sensitivity of a meta-analysis (sensitivity = true): leave-one-out
// fits (metafor's leave1out), influence diagnostics (metafor's influence,
// Viechtbauer & Cheung 2010), the funnel plot's pseudo-confidence region
// and Egger's regression test (metafor's regtest with its default model,
// Egger et al. 1997).
//
// Cost. Every leave-one-out fit needs Σ 1/(v_j + τ²₍₋ᵢ₎) over the other
// k − 1 datasets at its own τ²₍₋ᵢ₎. For the fixed-effect model and the
// closed-form estimators DL, HE, HS and SJ the fixed-effect and
// unweighted sums (Q, Σw, Σw², the moments of HE and SJ) are downdated in
// O(1) per dataset, and the weighted sums at τ²₍₋ᵢ₎ are a short series in
// τ²₍₋ᵢ₎ − τ² around power sums kept at the full τ² (weightedSums), O(1)
// while that difference is small, one pass otherwise: about O(k) for all
// k fits, 25–100 ms for k = 10,000. The iterative estimators (ML, REML,
// EB, PM) refit from scratch as metafor does, O(k) per iteration of each
// of the k fits, O(k²·iterations) in all: on 2 cores about 4 s (REML) to
// 12 s (PM, by bisection) for k = 10,000.

import (
	"fmt"
	"math"
	"runtime"
	"strings"

	"github.com/evalbook/evalbook/analyses/internal/parallel"

	"github.com/evalbook/evalbook/analyses"

	"gonum.org/v1/gonum/stat/distuv"
)

// LeaveOut is the model fitted without one dataset.
type LeaveOut struct {
	Dataset                      string
	Effect, SE, CILow, CIHigh, P float64
	Q, Tau2, I2, H2              float64
}

// Influence is one dataset's influence diagnostics, as metafor's
// influence(): rstudent (studentized deleted residual), DFFITS, Cook's
// distance, the covariance ratio, τ² and Q without the dataset, the hat
// value, the weight (percent) and DFBETAS; Influential is metafor's flag.
type Influence struct {
	Dataset                        string
	RStudent, DFFITS, CooksD, CovR float64
	Tau2Del, QDel, Hat, Weight     float64
	DFBETAS                        float64
	Influential                    bool
}

// Egger is Egger's regression test: the standard error as moderator
// of the same model (metafor's regtest(model = "rma", predictor = "sei")).
type Egger struct {
	Z  *float64 `json:"z"` // z, or t with test = "knha"
	P  *float64 `json:"p"`
	DF int      `json:"df,omitempty"` // t degrees of freedom with test = "knha"
	// The slope on the standard error: the funnel's asymmetry.
	Slope *float64 `json:"slope"`
	// The intercept: the effect expected at a standard error of 0
	// (regtest's "limit estimate") with its confidence interval.
	Limit       *float64 `json:"limit_estimate"`
	LimitCILow  *float64 `json:"limit_ci_low"`
	LimitCIHigh *float64 `json:"limit_ci_high"`
}

// FunnelLines is what the funnel plot draws besides the datasets:
// the reference line (the summary effect) and the pseudo-confidence
// region Ref ± Crit·se (metafor's funnel(): z quantile, τ² not added).
type FunnelLines struct {
	Ref, Crit float64
	// Contours are the contour-enhanced funnel's regions around 0
	// (Peters et al. 2008; metafor's funnel(level = c(90, 95, 99),
	// refline = 0)): an effect within ±Z·SE has a two-sided p above P.
	Contours []FunnelContour
}

// FunnelContour is one contour of significance: |effect| = Z·SE is a
// two-sided z-test's p = P.
type FunnelContour struct {
	P, Z float64
}

// EggerThreshold is the p below which a funnel is called asymmetric:
// 0.10, as Egger et al. (1997) proposed for the test's low power (also
// Sterne et al. 2011).
const EggerThreshold = 0.10

// metaLOO is one leave-one-out fit with what influence() needs.
type metaLOO struct {
	est, se, ciLow, ciHigh, p float64
	q, tau2, i2, h2           float64
	s2w                       float64
	swAll                     float64 // Σ over all k datasets of 1/(v + τ²₍₋ᵢ₎): influence's vb.del
	ok                        bool
}

// metaSensitivity adds the leave-one-out fits, the influence diagnostics,
// Egger's test and the funnel lines for the included rows idx.
func metaSensitivity(res *Result, idx []int, c metaConf) error {
	k := len(idx)
	if k < 3 {
		res.Warnf("sensitivity: leave-one-out, influence and Egger's test need at least 3 datasets with a defined effect (%d here)", k)
		return nil
	}
	y := make([]float64, k)
	v := make([]float64, k)
	for j, i := range idx {
		y[j], v[j] = res.Rows[i].Effect, res.Rows[i].Variance
	}
	full := metaFit(y, v, c)
	res.Funnel = &FunnelLines{Ref: full.est, Crit: distuv.UnitNormal.Quantile(1 - c.alpha/2)}
	for _, p := range []float64{0.10, 0.05, 0.01} {
		res.Funnel.Contours = append(res.Funnel.Contours, FunnelContour{P: p, Z: distuv.UnitNormal.Quantile(1 - p/2)})
	}
	loo, warns, err := metaLeaveOneOut(y, v, c)
	if err != nil {
		return err
	}
	failed := 0
	for j, l := range loo {
		name := res.Rows[idx[j]].Dataset
		if !l.ok {
			failed++
		}
		res.LeaveOneOut = append(res.LeaveOneOut, LeaveOut{Dataset: name, Effect: l.est, SE: l.se, CILow: l.ciLow,
			CIHigh: l.ciHigh, P: l.p, Q: l.q, Tau2: l.tau2, I2: l.i2, H2: l.h2})
	}
	for _, w := range warns {
		res.Warnf("sensitivity: %s", w)
	}
	infl := metaInfluence(y, v, c, full, loo)
	for j := range infl {
		infl[j].Dataset = res.Rows[idx[j]].Dataset
	}
	res.Influence = infl
	res.Egger = metaEgger(y, v, c)
	metaPubBias(res, y, v, c)
	if k < 10 {
		res.Warnf("Egger's test with %d datasets has little power; it is not recommended below 10 (Sterne et al. 2011)", k)
	}
	return nil
}

// metaLeaveOneOut fits the model k times, each without one dataset.
func metaLeaveOneOut(y, v []float64, c metaConf) ([]metaLOO, []string, error) {
	k := len(y)
	out := make([]metaLOO, k)
	fast := c.model == "fixed" || c.method == "DL" || c.method == "HE" || c.method == "HS" || c.method == "SJ"
	if fast {
		return out, nil, metaLeaveOneOutFast(y, v, c, out)
	}
	warnAt := make([]string, k)
	err := metaChunks(k, func(lo, hi int) {
		ys := make([]float64, k-1)
		vs := make([]float64, k-1)
		for i := lo; i < hi; i++ {
			metaLeaveOut(y, v, c, i, ys, vs, &out[i], &warnAt[i])
		}
	})
	var warns []string
	for i, w := range warnAt {
		if w != "" && len(warns) < 5 {
			warns = append(warns, fmt.Sprintf("without dataset %d: %s", i+1, w))
		}
	}
	return out, warns, err
}

// metaChunks calls fn on consecutive ranges of [0, n), 64 indices each,
// from GOMAXPROCS goroutines; fn writes only to the slots of its range, so
// the result does not depend on scheduling.
func metaChunks(n int, fn func(lo, hi int)) error {
	const chunk = 64
	return parallel.For((n+chunk-1)/chunk, runtime.GOMAXPROCS(0), func(c int) {
		lo := c * chunk
		fn(lo, min(lo+chunk, n))
	})
}

// metaLeaveOut refits the model without dataset i (ys, vs are buffers of
// k − 1).
func metaLeaveOut(y, v []float64, c metaConf, i int, ys, vs []float64, out *metaLOO, warn *string) {
	{
		copy(ys, y[:i])
		copy(ys[i:], y[i+1:])
		copy(vs, v[:i])
		copy(vs[i:], v[i+1:])
		f := metaFit(ys, vs, c)
		*warn = f.warn
		var swAll float64
		for j := range v {
			swAll += 1 / (v[j] + f.tau2)
		}
		*out = metaLOO{est: f.est, se: f.se, ciLow: f.ciLow, ciHigh: f.ciHigh, p: f.p, q: f.q, tau2: f.tau2,
			i2: f.i2, h2: f.h2, s2w: f.s2w, swAll: swAll, ok: true}
	}
}

// metaLeaveOneOutFast is metaLeaveOneOut for the fixed-effect model and
// the closed-form DL, HE and HS estimators: the fixed-effect sums are
// downdated (recomputed in one pass when the dataset left out holds
// nearly all of a sum, where downdating would lose digits); the
// random-effects sums are a series in τ²₍₋ᵢ₎ − τ² when that is small
// (O(1) per fit), else one pass over all datasets, or none when
// τ²₍₋ᵢ₎ = 0.
func metaLeaveOneOutFast(y, v []float64, c metaConf, out []metaLOO) error {
	k := len(y)
	f := looSums{y: y, v: v, c: c, n: float64(k - 1)}
	// Fixed-effect sums about the fixed-effect mean m0; unweighted sums
	// about the plain mean (HE).
	var s1w float64
	for i := range y {
		w := 1 / v[i]
		f.s0 += w
		s1w += w * y[i]
		f.w2 += w * w
	}
	f.m0 = s1w / f.s0
	for i := range y {
		w := 1 / v[i]
		d := y[i] - f.m0
		f.s1 += w * d
		f.s2 += w * d * d
		f.ybar += y[i]
		f.sv += v[i]
	}
	f.ybar /= float64(k)
	for i := range y {
		e := y[i] - f.ybar
		f.t1 += e
		f.t2 += e * e
	}
	if c.model != "fixed" {
		full := metaFit(y, v, c)
		f.re = newWeightedSums(y, v, full.tau2, full.est)
		if c.method == "SJ" {
			f.sj = newWeightedSums(y, v, f.t2/float64(k), f.ybar)
		}
	}
	if c.test == "knha" {
		f.crit, f.pval = rmaCrit(c.test, k-2, c.alpha)
	} else {
		f.crit, f.pval = rmaCrit(c.test, 0, c.alpha)
	}
	return metaChunks(k, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = f.at(i)
		}
	})
}

// looSums are the whole-data sums the fast leave-one-out path downdates.
type looSums struct {
	y, v               []float64
	c                  metaConf
	n                  float64      // k − 1
	m0, s0, s1, s2, w2 float64      // fixed-effect sums about m0
	ybar, sv, t1, t2   float64      // unweighted sums about ybar (HE)
	re, sj             weightedSums // about the full estimate at the full τ²; SJ's first step
	crit               float64
	pval               func(float64) float64
}

// unweighted returns Σ(y − ȳ) and Σ(y − ȳ)² over all but dataset i
// (ȳ the full mean), downdated or recomputed when i held nearly all of it.
func (f *looSums) unweighted(i int) (u1, u2 float64) {
	ei := f.y[i] - f.ybar
	u1, u2 = f.t1-ei, f.t2-ei*ei
	if u2 < looLost*f.t2 {
		u1, u2 = 0, 0
		for j := range f.y {
			if j != i {
				e := f.y[j] - f.ybar
				u1 += e
				u2 += e * e
			}
		}
	}
	return u1, u2
}

// weightedSums gives Σw, Σw·d and Σw·d² with w = 1/(v + t), d = y − c,
// over all datasets but one, at any t. It keeps the power sums
// Σw₀^(m+1), Σw₀^(m+1)·d, Σw₀^(m+1)·d² at a reference t₀: with
// δ = t − t₀, 1/(v + t₀ + δ) = Σ_m (−δ)^m w₀^(m+1), so while δ·max w₀ ≤
// 1e-3 the sums at t are a short series in δ (looTerms terms: remainder
// below 1e-24 relative) and cost O(1); otherwise one pass.
type weightedSums struct {
	y, v        []float64
	t0, c       float64
	pw, pd, pdd [looTerms]float64
	wmax        float64
}

func newWeightedSums(y, v []float64, t0, c float64) weightedSums {
	s := weightedSums{y: y, v: v, t0: t0, c: c}
	for j := range y {
		w := 1 / (v[j] + t0)
		d := y[j] - c
		s.wmax = math.Max(s.wmax, w)
		wp := w
		for m := 0; m < looTerms; m++ {
			s.pw[m] += wp
			s.pd[m] += wp * d
			s.pdd[m] += wp * d * d
			wp *= w
		}
	}
	return s
}

// without returns the sums at t over all datasets but i, and Σw over all.
func (s *weightedSums) without(i int, t float64) (b0, b1, b2, all float64) {
	y, v := s.y, s.v
	if delta := t - s.t0; math.Abs(delta)*s.wmax <= 1e-3 {
		for m := looTerms - 1; m >= 0; m-- { // Horner in −δ
			b0 = b0*-delta + s.pw[m]
			b1 = b1*-delta + s.pd[m]
			b2 = b2*-delta + s.pdd[m]
		}
	} else {
		for j := range y {
			w := 1 / (v[j] + t)
			d := y[j] - s.c
			b0 += w
			b1 += w * d
			b2 += w * d * d
		}
	}
	all = b0
	wt := 1 / (v[i] + t)
	dt := y[i] - s.c
	b0, b1, b2 = b0-wt, b1-wt*dt, b2-wt*dt*dt
	if b0 < looLost*all || b2 < looLost*(b2+wt*dt*dt) {
		// Dataset i held nearly all of a sum: downdating would lose digits.
		b0, b1, b2 = 0, 0, 0
		for j := range y {
			if j != i {
				w := 1 / (v[j] + t)
				d := y[j] - s.c
				b0 += w
				b1 += w * d
				b2 += w * d * d
			}
		}
	}
	return b0, b1, b2, all
}

// looLost: a downdated sum this small relative to the whole is recomputed.
const (
	looLost  = 1e-4
	looTerms = 8
)

// at fits the model without dataset i.
func (f *looSums) at(i int) metaLOO {
	c, n := f.c, f.n
	a0, a1, a2, a22 := f.fixedWithout(i)
	q := math.Max(0, a2-a1*a1/a0)
	trP := a0 - a22/a0
	var tau2 float64
	if c.model != "fixed" {
		tau2 = f.tau2Without(i, q, trP, a0)
	}
	est, b0, rss, swAll := f.randomWithout(i, tau2, q, a0, a1)
	s2w := 1.0
	if c.test == "knha" {
		if rss <= 2.220446049250313e-16 {
			s2w = 0
		} else {
			s2w = rss / (n - 1)
		}
	}
	se := math.Sqrt(s2w / b0)
	l := metaLOO{est: est, se: se, ciLow: est - f.crit*se, ciHigh: est + f.crit*se, p: f.pval(est / se), q: q, tau2: tau2,
		s2w: s2w, swAll: swAll, ok: true}
	if c.model == "fixed" {
		l.i2 = 0
		if q > 0 {
			l.i2 = math.Max(0, 100*(q-(n-1))/q)
		}
		l.h2 = q / (n - 1)
	} else {
		vt := (n - 1) / trP
		l.i2 = 100 * tau2 / (vt + tau2)
		l.h2 = (vt + tau2) / vt
	}
	return l
}

// fixedWithout returns the fixed-effect sums Σw, Σw·d, Σw·d² and Σw² (d
// about m0) over every dataset but i: downdated, or summed again when the
// downdate lost too much to cancellation.
func (f *looSums) fixedWithout(i int) (a0, a1, a2, a22 float64) {
	y, v := f.y, f.v
	wi := 1 / v[i]
	di := y[i] - f.m0
	a0, a1, a2, a22 = f.s0-wi, f.s1-wi*di, f.s2-wi*di*di, f.w2-wi*wi
	if a0 < looLost*f.s0 || a2 < looLost*f.s2 || a22 < looLost*f.w2 {
		a0, a1, a2, a22 = 0, 0, 0, 0
		for j := range y {
			if j == i {
				continue
			}
			w := 1 / v[j]
			d := y[j] - f.m0
			a0 += w
			a1 += w * d
			a2 += w * d * d
			a22 += w * w
		}
	}
	return a0, a1, a2, a22
}

// tau2Without is τ² without dataset i by the non-iterative estimators,
// from the fixed-effect Q, tr P and Σw without it.
func (f *looSums) tau2Without(i int, q, trP, a0 float64) float64 {
	n, v := f.n, f.v
	var tau2 float64
	switch f.c.method {
	case "DL":
		tau2 = math.Max(0, (q-(n-1))/trP)
	case "HS":
		tau2 = math.Max(0, (q-n)/a0)
	case "HE":
		u1, u2 := f.unweighted(i)
		rss := u2 - u1*u1/n
		tau2 = math.Max(0, (rss-(f.sv-v[i])*(n-1)/n)/(n-1))
	case "SJ":
		// τ²₀ = Σ(y − ȳ)²/n over the others, then one weighted step
		// τ² = τ²₀·Y'PY/(n − 1) with W = 1/(v + τ²₀).
		u1, u2 := f.unweighted(i)
		t0 := (u2 - u1*u1/n) / n
		if t0 > 0 {
			c0, c1, c2, _ := f.sj.without(i, t0)
			tau2 = math.Max(0, t0*(c2-c1*c1/c0)/(n-1))
		} else {
			tau2 = 0
		}
	}
	return tau2
}

// randomWithout returns the estimate without dataset i, Σw, the weighted
// residual sum and Σw over all datasets: from the random-effects sums
// about the full model's estimate when τ²₍₋ᵢ₎ > 0, else from the
// fixed-effect ones (q, Σw = a0, Σw·d = a1).
func (f *looSums) randomWithout(i int, tau2, q, a0, a1 float64) (est, b0, rss, swAll float64) {
	y, v := f.y, f.v
	if tau2 > 0 {
		var b1, b2 float64
		b0, b1, b2, swAll = f.re.without(i, tau2)
		est = f.re.c + b1/b0
		rss = b2 - b1*b1/b0
		if f.c.test == "knha" && rss < 1e-6*b2 {
			rss = 0 // cancellation: recompute about the leave-one-out estimate
			for j := range y {
				if j != i {
					d := y[j] - est
					rss += d * d / (v[j] + tau2)
				}
			}
		}
		return est, b0, rss, swAll
	}
	return f.m0 + a1/a0, a0, q, f.s0
}

// metaInfluence computes metafor's influence() for an intercept-only
// model from the full fit and the leave-one-out fits.
func metaInfluence(y, v []float64, c metaConf, full metaFitResult, loo []metaLOO) []Influence {
	k := len(y)
	// Full model: weights w* = 1/(v + τ²), vb = s2w/Σw*, hat = w*/Σw*.
	tau2 := full.tau2
	var sw float64
	for i := range v {
		sw += 1 / (v[i] + tau2)
	}
	vb := full.se * full.se
	p := 1.0
	out := make([]Influence, k)
	for i := range y {
		l := loo[i]
		hat := (1 / (v[i] + tau2)) / sw
		if hat > 1-10*2.220446049250313e-16 {
			hat = 1
		}
		m := Influence{Hat: hat, Weight: 100 * hat, Tau2Del: l.tau2, QDel: l.q,
			RStudent: math.NaN(), DFFITS: math.NaN(), CooksD: math.NaN(), CovR: math.NaN(), DFBETAS: math.NaN()}
		if l.ok {
			dfb := full.est - l.est
			vdel := l.se * l.se
			resid := y[i] - l.est
			if math.Abs(resid) < 100*2.220446049250313e-16 {
				resid = 0
			}
			m.RStudent = resid / math.Sqrt(v[i]*l.s2w+vdel+l.tau2*l.s2w)
			m.DFFITS = dfb / math.Sqrt(l.s2w*hat*(l.tau2+v[i]))
			// vb.del: the full data's (X'WX)⁻¹ at τ²₍₋ᵢ₎.
			m.DFBETAS = dfb / math.Sqrt(l.s2w/l.swAll)
			m.CooksD = dfb * dfb / vb
			m.CovR = vdel / vb
			m.Influential = math.Abs(m.DFFITS) > 3*math.Sqrt(p/(float64(k)-p)) ||
				distuv.ChiSquared{K: 1}.CDF(m.CooksD) > 0.5 ||
				m.Hat > 3*p/float64(k) ||
				math.Abs(m.DFBETAS) > 1
		}
		out[i] = m
	}
	return out
}

// metaEgger is regtest(model = "rma", predictor = "sei"): the model with
// the standard error as moderator, same estimator and test; the test of
// its slope.
func metaEgger(y, v []float64, c metaConf) *Egger {
	k := len(y)
	sei := make([]float64, k)
	distinct := false
	for i := range v {
		sei[i] = math.Sqrt(v[i])
		if sei[i] != sei[0] {
			distinct = true
		}
	}
	if !distinct {
		return &Egger{} // every dataset has the same se: no slope to fit
	}
	var tau2 float64
	if c.model != "fixed" {
		tau2, _ = rmaTau2(y, v, sei, c.method)
	}
	m := rmaFitModel(y, v, sei, tau2, c.test, c.alpha)
	e := &Egger{Z: analyses.Opt(m.coef[1].stat), P: analyses.Opt(m.coef[1].p), Slope: analyses.Opt(m.coef[1].est), Limit: analyses.Opt(m.coef[0].est),
		LimitCILow: analyses.Opt(m.coef[0].ciLow), LimitCIHigh: analyses.Opt(m.coef[0].ciHigh)}
	if c.test == "knha" {
		e.DF = m.df
	}
	return e
}

// sensitivityTables are the tables `<id>-leave-one-out` and
// `<id>-influence`.
func (r *Result) sensitivityTables() []analyses.Table {
	loo := analyses.Table{Name: "leave-one-out", Title: "Leave-one-out: the model without each dataset",
		Columns: []string{"dataset", "effect", "se", "ci_low", "ci_high", "p", "Q", "tau2", "I2"}}
	for _, l := range r.LeaveOneOut {
		loo.Rows = append(loo.Rows, []any{l.Dataset, analyses.CellValue(l.Effect), analyses.CellValue(l.SE), analyses.CellValue(l.CILow), analyses.CellValue(l.CIHigh), analyses.CellValue(l.P),
			analyses.CellValue(l.Q), analyses.CellValue(l.Tau2), analyses.CellValue(l.I2)})
	}
	inf := analyses.Table{Name: "influence", Title: "Influence diagnostics",
		Columns: []string{"dataset", "rstudent", "dffits", "cooks_d", "cov_r", "tau2_del", "Q_del", "hat", "weight", "influential"}}
	for _, m := range r.Influence {
		inf.Rows = append(inf.Rows, []any{m.Dataset, analyses.CellValue(m.RStudent), analyses.CellValue(m.DFFITS), analyses.CellValue(m.CooksD), analyses.CellValue(m.CovR),
			analyses.CellValue(m.Tau2Del), analyses.CellValue(m.QDel), analyses.CellValue(m.Hat), analyses.CellValue(m.Weight / 100), m.Influential})
	}
	return append([]analyses.Table{loo, inf}, r.pubBiasTable()...)
}

// sensitivityHighlight is the key findings' sentence on sensitivity: the
// datasets metafor's influence() flags as influential and, when Egger's
// test gives p < EggerThreshold, the funnel's asymmetry; "" when
// neither is found.
func (r *Result) sensitivityHighlight() string {
	if !r.Sensitivity {
		return ""
	}
	var infl []string
	for _, m := range r.Influence {
		if m.Influential {
			infl = append(infl, r.Naming.Dataset(m.Dataset))
		}
	}
	var parts []string
	if len(infl) > 0 {
		list := strings.Join(infl, ", ")
		if len(infl) > 5 {
			list = strings.Join(infl[:5], ", ") + fmt.Sprintf(" and %d more", len(infl)-5)
		}
		verb := "is"
		if len(infl) > 1 {
			verb = "are"
		}
		parts = append(parts, fmt.Sprintf("%s %s influential (metafor's criteria)", list, verb))
	}
	if e := r.Egger; e != nil && e.P != nil && *e.P < EggerThreshold {
		parts = append(parts, fmt.Sprintf("Egger's test finds funnel asymmetry (%s < %g), a hint of small-study effects or publication bias", analyses.PClause(*e.P), EggerThreshold))
	}
	if n := r.pubBiasNote(); n != "" {
		parts = append(parts, n)
	}
	if len(parts) == 0 {
		return ""
	}
	return " Sensitivity: " + strings.Join(parts, "; ") + "."
}
