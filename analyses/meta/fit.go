package meta

// The fixed- and random-effects models of the meta-analysis, written to
// give metafor's numbers (rma.uni with an intercept only, test = "z" or
// "knha", and predict()): the same estimators (meta_rma.go), the same
// starting values and update rules for the iterative ones, the same I² and
// H² definitions and predict()'s prediction interval. Iterative
// estimators are run to full convergence (metafor's defaults stop at a
// change of 1e-5 in τ²; the fixtures are generated with tighter control
// so both sides report the converged estimate).

import (
	"math"

	"github.com/evalbook/evalbook/analyses"

	"gonum.org/v1/gonum/stat/distuv"
)

// metaConf is what a fit needs from the options.
type metaConf struct {
	model  string // "random" | "fixed"
	method string // τ² estimator for "random"
	test   string // "z" | "t" | "knha"
	alpha  float64
	// fixed τ² (tau2 = 0.04): used instead of an estimate when fix
	fix  bool
	tau2 float64
}

func (o Options) conf() metaConf {
	test := o.Test
	if test == "" {
		test = "z"
	}
	c := metaConf{model: o.Model, method: string(o.Tau2), test: test, alpha: o.Alpha}
	c.tau2, c.fix = o.Tau2.Fixed()
	return c
}

// reg are the options of the meta-regression of the same model.
func (c metaConf) reg() RegOptions {
	r := RegOptions{Method: c.method, Test: c.test, Alpha: c.alpha, FixTau2: c.fix, Tau2: c.tau2}
	switch {
	case c.model == "fixed":
		r.Method = "FE"
	case c.fix:
		r.Method = "REML" // metafor's default, which its R² estimates τ²₀ with
	}
	return r
}

type metaFitResult struct {
	est, se, tau2, q float64
	df               int
	pq, i2, h2       float64
	ciLow, ciHigh, p float64
	piLow, piHigh    float64
	crit             float64   // z or t quantile of the intervals
	s2w              float64   // Knapp–Hartung scale (1 for test = "z")
	tdf              int       // t degrees of freedom (test = "knha")
	w                []float64 // model weights as fractions of 1
	warn             string
}

// metaFitRows fits the model to the rows at idx.
func metaFitRows(rows []Row, idx []int, c metaConf) metaFitResult {
	y := make([]float64, len(idx))
	v := make([]float64, len(idx))
	for j, i := range idx {
		y[j], v[j] = rows[i].Effect, rows[i].Variance
	}
	return metaFit(y, v, c)
}

func (f metaFitResult) summary(rows []Row, idx []int) Summary {
	n := 0
	for _, i := range idx {
		n += rows[i].N
	}
	return Summary{K: len(idx), N: n, Effect: analyses.Opt(f.est), SE: analyses.Opt(f.se), CILow: analyses.Opt(f.ciLow), CIHigh: analyses.Opt(f.ciHigh),
		P: analyses.Opt(f.p), Tau2: analyses.Opt(f.tau2), Q: analyses.Opt(f.q), DF: f.df, PQ: analyses.Opt(f.pq), I2: analyses.Opt(f.i2), H2: analyses.Opt(f.h2),
		PILow: analyses.Opt(f.piLow), PIHigh: analyses.Opt(f.piHigh)}
}

// metaQ returns the fixed-effect Q = Σ(y − M)²/v and the "typical"
// within-study variance's denominator C = ΣW − ΣW²/ΣW (W = 1/v).
func metaQ(y, v []float64) (q, c float64) {
	var sw, sw2, swy float64
	for i := range y {
		w := 1 / v[i]
		sw += w
		sw2 += w * w
		swy += w * y[i]
	}
	m := swy / sw
	for i := range y {
		d := y[i] - m
		q += d * d / v[i]
	}
	return q, sw - sw2/sw
}

// metaFit combines effects y with within-study variances v (all v > 0).
func metaFit(y, v []float64, c metaConf) metaFitResult {
	k := len(y)
	if k == 0 || len(v) != k {
		panic("meta: metaFit needs as many variances as effects, at least one")
	}
	nan := math.NaN()
	f := metaFitResult{df: k - 1, pq: nan, i2: nan, h2: nan, piLow: nan, piHigh: nan}
	q, cc := metaQ(y, v)
	f.q = q
	if k > 1 {
		f.pq = distuv.ChiSquared{K: float64(k - 1)}.Survival(f.q)
	}
	if c.model == "fixed" || k == 1 {
		f.tau2 = 0
	} else if c.fix {
		f.tau2 = c.tau2
	} else {
		f.tau2, f.warn = rmaTau2(y, v, nil, c.method)
	}
	m := rmaFitModel(y, v, nil, f.tau2, c.test, c.alpha)
	if k == 1 {
		f.q = nan
		f.tau2 = nan
	}
	f.w = m.w
	var sw float64
	for _, w := range m.w {
		sw += w
	}
	for i := range f.w {
		f.w[i] /= sw
	}
	co := m.coef[0]
	f.est, f.se, f.p, f.ciLow, f.ciHigh = co.est, co.se, co.p, co.ciLow, co.ciHigh
	f.crit, f.s2w, f.tdf = m.crit, m.s2w, m.df
	if k == 1 {
		return f
	}
	df := float64(k - 1)
	if c.model == "fixed" {
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
	// I² = τ²/(τ² + vt), H² = (τ² + vt)/vt; predict(): M* ± crit·√(SE² + τ²)
	// with crit the z or t(k − 1) quantile of the test.
	vt := df / cc
	f.i2 = 100 * f.tau2 / (vt + f.tau2)
	f.h2 = (vt + f.tau2) / vt
	s := math.Sqrt(f.se*f.se + f.tau2)
	f.piLow, f.piHigh = f.est-f.crit*s, f.est+f.crit*s
	return f
}
