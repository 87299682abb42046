package analyses

// Sensitivity of a meta-analysis (sensitivity = true): leave-one-out
// fits (metafor's leave1out), influence diagnostics (metafor's influence,
// Viechtbauer & Cheung 2010), the funnel plot's pseudo-confidence region
// and Egger's regression test (metafor's regtest with its default model,
// Egger et al. 1997).
//
// Cost. Every leave-one-out fit needs Σ 1/(v_j + τ²₍₋ᵢ₎) over the other
// k − 1 datasets at its own τ²₍₋ᵢ₎, so one fit costs O(k) at best and all
// of them O(k²). For the fixed-effect model and the closed-form
// estimators DL, HE and HS the fixed-effect sums (Q, Σw, Σw², and for HE
// the unweighted moments) are downdated in O(1) per dataset and only the
// random-effects sums take one pass (none when τ²₍₋ᵢ₎ = 0); SJ takes two
// passes per fit. The iterative estimators (ML, REML, EB, PM) refit from
// scratch as metafor does, O(k) per iteration, so O(k²·iterations) in
// all: about 10–60 iterations, i.e. seconds for k = 10,000.

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// MetaLeaveOut is the model fitted without one dataset.
type MetaLeaveOut struct {
	Dataset                      string
	Effect, SE, CILow, CIHigh, P float64
	Q, Tau2, I2, H2              float64
}

// MetaInfluence is one dataset's influence diagnostics, as metafor's
// influence(): rstudent (studentized deleted residual), DFFITS, Cook's
// distance, the covariance ratio, τ² and Q without the dataset, the hat
// value, the weight (percent) and DFBETAS; Influential is metafor's flag.
type MetaInfluence struct {
	Dataset                        string
	RStudent, DFFITS, CooksD, CovR float64
	Tau2Del, QDel, Hat, Weight     float64
	DFBETAS                        float64
	Influential                    bool
}

// MetaEgger is Egger's regression test: the standard error as moderator
// of the same model (metafor's regtest(model = "rma", predictor = "sei")).
type MetaEgger struct {
	Z  *float64 `json:"z"` // z, or t with test = "knha"
	P  *float64 `json:"p"`
	DF int      `json:"df,omitempty"` // t degrees of freedom with test = "knha"
	// The intercept: the effect expected at a standard error of 0
	// (regtest's "limit estimate") with its confidence interval.
	Limit       *float64 `json:"limit_estimate"`
	LimitCILow  *float64 `json:"limit_ci_low"`
	LimitCIHigh *float64 `json:"limit_ci_high"`
}

// MetaFunnelLines is what the funnel plot draws besides the datasets:
// the reference line (the summary effect) and the pseudo-confidence
// region Ref ± Crit·se (metafor's funnel(): z quantile, τ² not added).
type MetaFunnelLines struct {
	Ref, Crit float64
}

// MetaEggerThreshold is the p below which a funnel is called asymmetric:
// 0.10, as Egger et al. (1997) proposed for the test's low power (also
// Sterne et al. 2011).
const MetaEggerThreshold = 0.10

// metaLOO is one leave-one-out fit with what influence() needs.
type metaLOO struct {
	est, se, ciLow, ciHigh, p float64
	q, tau2, i2, h2           float64
	s2w                       float64
	ok                        bool
}

// metaSensitivity adds the leave-one-out fits, the influence diagnostics,
// Egger's test and the funnel lines for the included rows idx.
func metaSensitivity(res *MetaResult, idx []int, c metaConf) {
	k := len(idx)
	if k < 3 {
		res.Warnf("sensitivity: leave-one-out, influence and Egger's test need at least 3 datasets with a defined effect (%d here)", k)
		return
	}
	y := make([]float64, k)
	v := make([]float64, k)
	for j, i := range idx {
		y[j], v[j] = res.Rows[i].Effect, res.Rows[i].Variance
	}
	full := metaFit(y, v, c)
	res.Funnel = &MetaFunnelLines{Ref: full.est, Crit: distuv.UnitNormal.Quantile(1 - c.alpha/2)}
	loo, warns := metaLeaveOneOut(y, v, c)
	failed := 0
	for j, l := range loo {
		name := res.Rows[idx[j]].Dataset
		if !l.ok {
			failed++
		}
		res.LeaveOneOut = append(res.LeaveOneOut, MetaLeaveOut{Dataset: name, Effect: l.est, SE: l.se, CILow: l.ciLow,
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
}

// metaLeaveOneOut fits the model k times, each without one dataset.
func metaLeaveOneOut(y, v []float64, c metaConf) ([]metaLOO, []string) {
	k := len(y)
	out := make([]metaLOO, k)
	fast := c.model == "fixed" || c.method == "DL" || c.method == "HE" || c.method == "HS"
	if fast {
		metaLeaveOneOutFast(y, v, c, out)
		return out, nil
	}
	ys := make([]float64, k-1)
	vs := make([]float64, k-1)
	var warns []string
	for i := 0; i < k; i++ {
		copy(ys, y[:i])
		copy(ys[i:], y[i+1:])
		copy(vs, v[:i])
		copy(vs[i:], v[i+1:])
		f := metaFit(ys, vs, c)
		if f.warn != "" && len(warns) < 5 {
			warns = append(warns, fmt.Sprintf("without dataset %d: %s", i+1, f.warn))
		}
		out[i] = metaLOO{est: f.est, se: f.se, ciLow: f.ciLow, ciHigh: f.ciHigh, p: f.p, q: f.q, tau2: f.tau2,
			i2: f.i2, h2: f.h2, s2w: f.s2w, ok: true}
	}
	return out, warns
}

// metaLeaveOneOutFast is metaLeaveOneOut for the fixed-effect model and
// the closed-form DL, HE and HS estimators: the fixed-effect sums are
// downdated (recomputed in one pass when the dataset left out holds
// nearly all of a sum, where downdating would lose digits), the
// random-effects sums take one pass over the others, or none when
// τ²₍₋ᵢ₎ = 0.
func metaLeaveOneOutFast(y, v []float64, c metaConf, out []metaLOO) {
	k := len(y)
	n := float64(k - 1)
	// Fixed-effect sums about the fixed-effect mean m0; unweighted sums
	// about the plain mean (HE).
	var s0, s1w, wsum2 float64
	for i := range y {
		w := 1 / v[i]
		s0 += w
		s1w += w * y[i]
		wsum2 += w * w
	}
	m0 := s1w / s0
	var s1, s2, ybar, sv float64
	for i := range y {
		w := 1 / v[i]
		d := y[i] - m0
		s1 += w * d
		s2 += w * d * d
		ybar += y[i]
		sv += v[i]
	}
	ybar /= float64(k)
	var t1, t2 float64
	for i := range y {
		e := y[i] - ybar
		t1 += e
		t2 += e * e
	}
	crit, pval := rmaCrit(c.test, 0, c.alpha)
	if c.test == "knha" {
		crit, pval = rmaCrit(c.test, k-2, c.alpha)
	}
	const lost = 1e-4 // a downdated sum this small relative to the whole is recomputed
	for i := range y {
		wi := 1 / v[i]
		di := y[i] - m0
		a0, a1, a2, a22 := s0-wi, s1-wi*di, s2-wi*di*di, wsum2-wi*wi
		if a0 < lost*s0 || a2 < lost*s2 || a22 < lost*wsum2 {
			a0, a1, a2, a22 = 0, 0, 0, 0
			for j := range y {
				if j == i {
					continue
				}
				w := 1 / v[j]
				d := y[j] - m0
				a0 += w
				a1 += w * d
				a2 += w * d * d
				a22 += w * w
			}
		}
		q := math.Max(0, a2-a1*a1/a0)
		trP := a0 - a22/a0
		var tau2 float64
		if c.model != "fixed" {
			switch c.method {
			case "DL":
				tau2 = math.Max(0, (q-(n-1))/trP)
			case "HS":
				tau2 = math.Max(0, (q-n)/a0)
			case "HE":
				ei := y[i] - ybar
				u1, u2 := t1-ei, t2-ei*ei
				if u2 < lost*t2 {
					u1, u2 = 0, 0
					for j := range y {
						if j != i {
							e := y[j] - ybar
							u1 += e
							u2 += e * e
						}
					}
				}
				rss := u2 - u1*u1/n
				tau2 = math.Max(0, (rss-(sv-v[i])*(n-1)/n)/(n-1))
			}
		}
		// Random-effects sums about m0.
		b0, b1 := a0, a1
		if tau2 > 0 {
			b0, b1 = 0, 0
			for j := range y {
				if j == i {
					continue
				}
				w := 1 / (v[j] + tau2)
				b0 += w
				b1 += w * (y[j] - m0)
			}
		}
		est := m0 + b1/b0
		s2w := 1.0
		if c.test == "knha" {
			var rss float64
			for j := range y {
				if j == i {
					continue
				}
				d := y[j] - est
				rss += d * d / (v[j] + tau2)
			}
			if rss <= 2.220446049250313e-16 {
				s2w = 0
			} else {
				s2w = rss / (n - 1)
			}
		}
		se := math.Sqrt(s2w / b0)
		l := metaLOO{est: est, se: se, ciLow: est - crit*se, ciHigh: est + crit*se, p: pval(est / se), q: q, tau2: tau2, s2w: s2w, ok: true}
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
		out[i] = l
	}
}

// metaInfluence computes metafor's influence() for an intercept-only
// model from the full fit and the leave-one-out fits.
func metaInfluence(y, v []float64, c metaConf, full metaFitResult, loo []metaLOO) []MetaInfluence {
	k := len(y)
	// Full model: weights w* = 1/(v + τ²), vb = s2w/Σw*, hat = w*/Σw*.
	tau2 := full.tau2
	var sw float64
	for i := range v {
		sw += 1 / (v[i] + tau2)
	}
	vb := full.se * full.se
	p := 1.0
	out := make([]MetaInfluence, k)
	for i := range y {
		l := loo[i]
		hat := (1 / (v[i] + tau2)) / sw
		if hat > 1-10*2.220446049250313e-16 {
			hat = 1
		}
		m := MetaInfluence{Hat: hat, Weight: 100 * hat, Tau2Del: l.tau2, QDel: l.q,
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
			var swd float64
			if l.tau2 == tau2 {
				swd = sw
			} else {
				for j := range v {
					swd += 1 / (v[j] + l.tau2)
				}
			}
			m.DFBETAS = dfb / math.Sqrt(l.s2w/swd)
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
func metaEgger(y, v []float64, c metaConf) *MetaEgger {
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
		return &MetaEgger{} // every dataset has the same se: no slope to fit
	}
	var tau2 float64
	if c.model != "fixed" {
		tau2, _ = rmaTau2(y, v, sei, c.method)
	}
	m := rmaFitModel(y, v, sei, tau2, c.test, c.alpha)
	e := &MetaEgger{Z: num(m.coef[1].stat), P: num(m.coef[1].p), Limit: num(m.coef[0].est),
		LimitCILow: num(m.coef[0].ciLow), LimitCIHigh: num(m.coef[0].ciHigh)}
	if c.test == "knha" {
		e.DF = m.df
	}
	return e
}

// sensitivityTables are the tables `<id>-leave-one-out` and
// `<id>-influence`.
func (r *MetaResult) sensitivityTables() []Table {
	loo := Table{Name: "leave-one-out", Title: "Leave-one-out: the model without each dataset",
		Columns: []string{"dataset", "effect", "se", "ci_low", "ci_high", "p", "Q", "tau2", "I2"}}
	for _, l := range r.LeaveOneOut {
		loo.Rows = append(loo.Rows, []any{l.Dataset, cell(l.Effect), cell(l.SE), cell(l.CILow), cell(l.CIHigh), cell(l.P),
			cell(l.Q), cell(l.Tau2), cell(l.I2)})
	}
	inf := Table{Name: "influence", Title: "Influence diagnostics",
		Columns: []string{"dataset", "rstudent", "dffits", "cooks_d", "cov_r", "tau2_del", "Q_del", "hat", "weight", "influential"}}
	for _, m := range r.Influence {
		inf.Rows = append(inf.Rows, []any{m.Dataset, cell(m.RStudent), cell(m.DFFITS), cell(m.CooksD), cell(m.CovR),
			cell(m.Tau2Del), cell(m.QDel), cell(m.Hat), cell(m.Weight / 100), m.Influential})
	}
	return []Table{loo, inf}
}
