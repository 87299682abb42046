package meta

// Meta-regression: metafor's rma(yi, vi, mods = ~ …, method, test)
// (Viechtbauer 2010) for any number of moderators, numeric or
// categorical (treatment coding, R's default). The intercept-only engine
// (rma.go) is written with sums for p ≤ 2; this one works on p × p
// matrices from a QR factorisation of W^½X, so that a moderator far from
// zero (a year) costs no precision, and uses the same estimators with the
// same starting values, update rules and convergence control.

import (
	"fmt"
	"math"
	"sort"

	"github.com/evalbook/evalbook/analyses/stats"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Moderator is one column of a meta-regression: numeric values, or
// categories of a categorical moderator (one per study). A categorical
// moderator enters as dummies in treatment coding, as R's factor: one
// column per level but the reference, which is Levels[0] when Levels is
// given and otherwise the first level in sorted order (R sorts factor
// levels; here the byte order of the strings, which is R's in the C
// locale).
type Moderator struct {
	Name    string
	Numeric []float64
	Levels  []string // optional: the order of the categories, reference first
	Values  []string // categorical values (Numeric nil)
}

// Design is a model matrix: the intercept and the moderators' columns.
type Design struct {
	Names []string    // "intrcpt", then a numeric moderator's name or name+level
	X     [][]float64 // k rows of len(Names)
}

// NewDesign builds the model matrix of ~ m1 + m2 + … with an intercept
// for k studies. It refuses a moderator of the wrong length, a value
// that is not a number, a categorical value outside the given levels and
// a categorical moderator with a single level in the data.
func NewDesign(k int, mods []Moderator) (Design, error) {
	d := Design{Names: []string{"intrcpt"}, X: make([][]float64, k)}
	for i := range d.X {
		d.X[i] = []float64{1}
	}
	for _, m := range mods {
		if m.Numeric != nil {
			if len(m.Numeric) != k {
				return Design{}, fmt.Errorf("moderator %s has %d values for %d studies", m.Name, len(m.Numeric), k)
			}
			for i, x := range m.Numeric {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return Design{}, rowErr(i, "moderator %s = %v is not a number", m.Name, x)
				}
				d.X[i] = append(d.X[i], x)
			}
			d.Names = append(d.Names, m.Name)
			continue
		}
		if len(m.Values) != k {
			return Design{}, fmt.Errorf("moderator %s has %d values for %d studies", m.Name, len(m.Values), k)
		}
		levels := m.Levels
		if levels == nil {
			seen := map[string]bool{}
			for _, v := range m.Values {
				if !seen[v] {
					seen[v] = true
					levels = append(levels, v)
				}
			}
			sort.Strings(levels)
		}
		pos := map[string]int{}
		for j, l := range levels {
			if _, dup := pos[l]; dup {
				return Design{}, fmt.Errorf("moderator %s: level %q is listed twice", m.Name, l)
			}
			pos[l] = j
		}
		used := map[int]bool{}
		for i, v := range m.Values {
			j, ok := pos[v]
			if !ok {
				return Design{}, rowErr(i, "moderator %s = %q is not one of its levels %q", m.Name, v, levels)
			}
			used[j] = true
		}
		if len(used) < 2 {
			return Design{}, fmt.Errorf("moderator %s has a single level in the data: it cannot be told from the intercept", m.Name)
		}
		for j := 1; j < len(levels); j++ {
			if !used[j] {
				continue // a level absent from the data has no column (R drops it as redundant)
			}
			d.Names = append(d.Names, m.Name+levels[j])
			for i, v := range m.Values {
				x := 0.0
				if pos[v] == j {
					x = 1
				}
				d.X[i] = append(d.X[i], x)
			}
		}
	}
	return d, nil
}

// wlsP is a weighted least-squares fit of y on X with weights w.
type wlsP struct {
	p    int
	b    []float64
	a    *mat.SymDense // (X'WX)⁻¹
	sw   float64       // Σw
	rss  float64       // Y'PY = Σ w e²
	rss2 float64       // Y'PPY = Σ w² e²
	trP  float64       // Σw − tr(A·X'W²X)
	trPP float64       // Σw² − 2 tr(A·X'W³X) + tr(A·X'W²X·A·X'W²X)
	ldet float64       // log det(X'WX)
}

// fitWLSP fits y on X (its first column the intercept) with weights w.
// The other columns are first centred at their weighted means and scaled
// to unit weighted norm (a change of basis that leaves P, and so every
// residual sum and trace, unchanged), then W^½X_s = QR: the traces come
// from the orthonormal Q, tr P = Σw − Σ wᵢhᵢᵢ and
// tr PP = Σw² − 2Σ wᵢ²hᵢᵢ + ‖Q'WQ‖², with hᵢᵢ = ‖qᵢ‖², so a moderator
// far from zero (a year) costs no precision. ok is false when X'WX is
// singular (collinear moderators).
func fitWLSP(y []float64, x [][]float64, w []float64) (wlsP, bool) {
	if len(x[0]) == 1 {
		return fitWLSP1(y, x, w)
	}
	return fitWLSPQR(y, x, w)
}

// fitWLSPQR is fitWLSP by the factorisation, for any number of columns.
func fitWLSPQR(y []float64, x [][]float64, w []float64) (wlsP, bool) {
	p := len(x[0])
	f := wlsP{p: p}
	for i := range y {
		f.sw += w[i]
	}
	mean, scale, ok := centreScale(x, w, f.sw)
	if !ok {
		return f, false // a constant column is the intercept again
	}
	xs, ys := scaledSystem(y, x, w, mean, scale)
	var qr mat.QR
	qr.Factorize(xs)
	r, ldet, ok := upperR(&qr, xs, p)
	if f.ldet = ldet; !ok {
		return f, false
	}
	for j := 1; j < p; j++ {
		f.ldet += 2 * math.Log(scale[j])
	}
	var bs mat.VecDense
	if err := qr.SolveVecTo(&bs, false, ys); err != nil {
		return f, false
	}
	var ri mat.TriDense
	if err := ri.InverseTri(r); err != nil {
		return f, false
	}
	f.b, f.a = unscale(&bs, &ri, mean, scale)
	// Q = W^½X_s R⁻¹ (X_s is well conditioned), its rows qᵢ.
	var q mat.Dense
	q.Mul(xs, &ri)
	f.traces(y, x, w, &q)
	return f, true
}

// fitWLSP1 is fitWLSP for the intercept alone, in closed form: what
// the factorisation of the single column W^½1 gives, b = Σwy/Σw,
// (X'WX)⁻¹ = 1/Σw, log det X'WX = log Σw, hᵢᵢ = wᵢ/Σw, so
// tr P = Σw − Σw²/Σw and tr PP = Σw² − 2Σw³/Σw + (Σw²/Σw)². Every
// meta-analysis without moderators fits this model, many times over in
// the root searches of its heterogeneity intervals. ok is false (rss 0)
// where Σw is not a positive finite number (an infinite weight: upperR
// finds the factorisation's R not finite then).
func fitWLSP1(y []float64, x [][]float64, w []float64) (wlsP, bool) {
	f := wlsP{p: 1}
	sw, b, ok := interceptFit(y, w)
	if f.sw = sw; !ok {
		return f, false
	}
	var sw2, sw3 float64
	for _, wi := range w {
		sw2 += wi * wi
		sw3 += wi * wi * wi
	}
	f.b = []float64{b}
	f.a = mat.NewSymDense(1, []float64{1 / f.sw})
	f.ldet = math.Log(f.sw)
	f.rss, f.rss2 = residualSums(y, x, w, f.b)
	h := sw2 / f.sw
	f.trP = f.sw - h
	f.trPP = sw2 - 2*sw3/f.sw + h*h
	return f, true
}

// interceptFit is the intercept-only fit's Σw and b = Σwy/Σw; ok is
// false where Σw is not a positive finite number (see fitWLSP1).
func interceptFit(y, w []float64) (sw, b float64, ok bool) {
	var swy float64
	for i := range y {
		sw += w[i]
		swy += w[i] * y[i]
	}
	if !(sw > 0) || math.IsInf(sw, 1) {
		return sw, 0, false
	}
	return sw, swy / sw, true
}

// centreScale returns the weighted mean and the weighted norm about it
// of every column of x but the intercept (column 0: mean 0, scale 1);
// ok is false when a column is constant.
func centreScale(x [][]float64, w []float64, sw float64) (mean, scale []float64, ok bool) {
	p := len(x[0])
	mean = make([]float64, p)
	scale = make([]float64, p)
	scale[0] = 1
	for j := 1; j < p; j++ {
		var s float64
		for i := range x {
			s += w[i] * x[i][j]
		}
		mean[j] = s / sw
		var ss float64
		for i := range x {
			d := x[i][j] - mean[j]
			ss += w[i] * d * d
		}
		scale[j] = math.Sqrt(ss)
		if !(scale[j] > 0) {
			return nil, nil, false
		}
	}
	return mean, scale, true
}

// scaledSystem is W^½X_s and W^½y, X_s the columns centred and scaled.
func scaledSystem(y []float64, x [][]float64, w, mean, scale []float64) (*mat.Dense, *mat.VecDense) {
	k, p := len(y), len(x[0])
	xs := mat.NewDense(k, p, nil)
	ys := mat.NewVecDense(k, nil)
	for i := range y {
		sq := math.Sqrt(w[i])
		xs.Set(i, 0, sq)
		for j := 1; j < p; j++ {
			xs.Set(i, j, sq*(x[i][j]-mean[j])/scale[j])
		}
		ys.SetVec(i, sq*y[i])
	}
	return xs, ys
}

// unscale maps the coefficients bs and their (X_s'WX_s)⁻¹ = R⁻¹R⁻ᵀ back
// to the basis of X: b_j = bs_j/s_j, b_0 = bs_0 − Σ m_j b_j, A = T·As·T'.
func unscale(bs *mat.VecDense, ri *mat.TriDense, mean, scale []float64) ([]float64, *mat.SymDense) {
	p := len(mean)
	tm := unscaleT(mean, scale)
	b := unscaleB(tm, bs)
	var as, ta, tas mat.Dense
	as.Mul(ri, ri.T())
	ta.Mul(tm, &as)
	tas.Mul(&ta, tm.T())
	a := mat.NewSymDense(p, nil)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			a.SetSym(i, j, (tas.At(i, j)+tas.At(j, i))/2)
		}
	}
	return b, a
}

// unscaleT is the change of basis T of unscale.
func unscaleT(mean, scale []float64) *mat.Dense {
	p := len(mean)
	tm := mat.NewDense(p, p, nil)
	tm.Set(0, 0, 1)
	for j := 1; j < p; j++ {
		tm.Set(j, j, 1/scale[j])
		tm.Set(0, j, -mean[j]/scale[j])
	}
	return tm
}

// unscaleB is the coefficients T·bs in the basis of X.
func unscaleB(tm *mat.Dense, bs *mat.VecDense) []float64 {
	var bv mat.VecDense
	bv.MulVec(tm, bs)
	b := make([]float64, tm.RawMatrix().Rows)
	for j := range b {
		b[j] = bv.AtVec(j)
	}
	return b
}

// fitRSS is fitWLSP's rss alone (0 where fitWLSP finds X'WX singular),
// by the same operations: the Q-profile interval's root search asks for
// nothing else, and the covariance, the hat values and the traces were
// most of each fit's cost.
func fitRSS(y []float64, x [][]float64, w []float64) float64 {
	p := len(x[0])
	if p == 1 { // fitWLSP1's operations for its rss alone
		_, b, ok := interceptFit(y, w)
		if !ok {
			return 0
		}
		rss, _ := residualSums(y, x, w, []float64{b})
		return rss
	}
	var sw float64
	for i := range y {
		sw += w[i]
	}
	mean, scale, ok := centreScale(x, w, sw)
	if !ok {
		return 0
	}
	xs, ys := scaledSystem(y, x, w, mean, scale)
	var qr mat.QR
	qr.Factorize(xs)
	r, _, ok := upperR(&qr, xs, p)
	if !ok {
		return 0
	}
	var bs mat.VecDense
	if err := qr.SolveVecTo(&bs, false, ys); err != nil {
		return 0
	}
	var ri mat.TriDense
	if err := ri.InverseTri(r); err != nil {
		return 0
	}
	rss, _ := residualSums(y, x, w, unscaleB(unscaleT(mean, scale), &bs))
	return rss
}

// upperR is the R of W^½X_s = QR and log det(X_s'WX_s) = Σ log r_jj²,
// or false where a diagonal element is negligible against the (unit or
// √Σw) norm of its column: X'WX is singular (ldet then sums the columns
// before it).
func upperR(qr *mat.QR, xs *mat.Dense, p int) (r *mat.TriDense, ldet float64, ok bool) {
	var rd mat.Dense
	qr.RTo(&rd)
	r = mat.NewTriDense(p, mat.Upper, nil)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			r.SetTri(i, j, rd.At(i, j))
		}
	}
	for j := 0; j < p; j++ {
		if !(math.Abs(r.At(j, j)) > 1e-10*mat.Norm(xs.ColView(j), 2)) {
			return nil, ldet, false
		}
		ldet += 2 * math.Log(math.Abs(r.At(j, j)))
	}
	return r, ldet, true
}

// residualSums are Σ w e² and Σ w² e², e = y − Xb.
func residualSums(y []float64, x [][]float64, w, b []float64) (rss, rss2 float64) {
	for i := range y {
		e := y[i]
		for j := range b {
			e -= x[i][j] * b[j]
		}
		we := w[i] * e
		rss += we * e
		rss2 += we * we
	}
	return rss, rss2
}

// traces completes f with the residual sums and tr P, tr PP from the
// orthonormal Q of W^½X_s.
func (f *wlsP) traces(y []float64, x [][]float64, w []float64, q *mat.Dense) {
	p := f.p
	qwq := mat.NewDense(p, p, nil)
	f.rss, f.rss2 = residualSums(y, x, w, f.b)
	var sw2, swh, sw2h float64
	for i := range y {
		var h float64
		for j := 0; j < p; j++ {
			qj := q.At(i, j)
			h += qj * qj
			for l := 0; l < p; l++ {
				qwq.Set(j, l, qwq.At(j, l)+w[i]*qj*q.At(i, l))
			}
		}
		sw2 += w[i] * w[i]
		swh += w[i] * h
		sw2h += w[i] * w[i] * h
	}
	var fro float64
	for j := 0; j < p; j++ {
		for l := 0; l < p; l++ {
			fro += qwq.At(j, l) * qwq.At(j, l)
		}
	}
	f.trP = f.sw - swh
	f.trPP = sw2 - 2*sw2h + fro
}

// RegOptions are the options of a meta-regression: the τ² estimator
// (FE for a fixed-effects model, or DL, HE, HS, SJ, ML, REML, EB, PM as
// rma's method), the test ("z"; "t", Student's t on k − p degrees of
// freedom without rescaling; or "knha", Knapp and Hartung 2003) and
// alpha. FixTau2 set fixes τ² at Tau2 instead of estimating it (rma's
// tau2 = …; Method is then ignored but for FE, which it may not be).
type RegOptions struct {
	Method  string
	Test    string
	Alpha   float64
	FixTau2 bool
	Tau2    float64
}

// Coef is a model coefficient with its test and confidence interval.
type Coef struct {
	Name             string
	Est, SE, Stat, P float64
	CILow, CIHigh    float64
}

// Regression is a fitted meta-regression, under metafor's names: the
// coefficients, the omnibus test of the moderators QM (χ² on QMdf[0]
// degrees of freedom, or with test = "t" or "knha" F on QMdf; without
// moderators the test of the intercept, as metafor), the test for
// residual heterogeneity QE on k − p degrees of freedom, the residual τ²,
// I² and H² (percent and ratio, from the "typical" within-study variance
// (k − p)/tr P), and the pseudo R² (percent).
type Regression struct {
	K, P    int
	Coefs   []Coef
	Tau2    float64
	QE, QEp float64
	QEdf    int
	QM, QMp float64
	QMdf    [2]int // numerator and (knha) denominator degrees of freedom
	I2, H2  float64
	R2      float64 // NaN for a fixed-effects model, a fixed τ² or without moderators
	Test    string
	Method  string
	// FixedTau2 is true when τ² was given, not estimated.
	FixedTau2 bool
	Warnings  []string
	vt        float64     // "typical" within-study variance (k − p)/tr P
	vb        [][]float64 // the coefficients' covariance (metafor's vb)
	crit      float64     // z or t(k − p) quantile of the intervals
}

// MetaRegression fits rma(yi, vi, mods = ~ …, method, test) on the
// design d (from NewDesign). It refuses non-positive or non-finite
// sampling variances, collinear moderators and a model with as many
// coefficients as studies.
func MetaRegression(yi, vi []float64, d Design, o RegOptions) (*Regression, error) {
	k := len(yi)
	if len(vi) != k || len(d.X) != k {
		return nil, fmt.Errorf("yi, vi and the design have %d, %d and %d rows", k, len(vi), len(d.X))
	}
	if err := checkYV(yi, vi); err != nil {
		return nil, err
	}
	for i, row := range d.X {
		if len(row) != len(d.Names) || len(row) == 0 || row[0] != 1 {
			return nil, rowErr(i, "the design row has %d values for %d coefficients %q, the first the intercept's 1", len(row), len(d.Names), d.Names)
		}
	}
	if o.Test == "" {
		o.Test = "z"
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	p := len(d.Names)
	if k == 1 && p == 1 {
		return singleStudy(yi[0], vi[0], o)
	}
	if k <= p {
		return nil, fmt.Errorf("%d studies for %d coefficients: a meta-regression needs more studies than coefficients", k, p)
	}
	w := make([]float64, k)
	for i := range w {
		w[i] = 1 / vi[i]
	}
	f0, ok := fitWLSP(yi, d.X, w)
	if !ok {
		return nil, fmt.Errorf("the moderators %q are collinear: a coefficient is not identified", d.Names[1:])
	}
	res := &Regression{K: k, P: p, Test: o.Test, Method: o.Method, FixedTau2: o.FixTau2, QE: f0.rss, QEdf: k - p, R2: math.NaN()}
	res.QEp = stats.ChiSquaredSF(res.QE, float64(k-p))
	switch {
	case o.FixTau2:
		res.Tau2 = o.Tau2
	case o.Method != "FE":
		var warn string
		if res.Tau2, warn = tau2P(yi, vi, d.X, o.Method); warn != "" {
			res.Warnings = append(res.Warnings, warn)
		}
	}
	if o.Method == "FE" && o.Test == "knha" {
		res.Warnings = append(res.Warnings, "Knapp & Hartung method is not meant to be used in the context of FE models.")
	}
	if err := res.fit(yi, vi, d, o); err != nil {
		return nil, err
	}
	res.heterogeneity(f0.trP)
	if p > 1 {
		res.R2 = pseudoR2(yi, vi, res, o)
	}
	return res, nil
}

// check refuses an unknown method or test, alpha outside (0, 1) and a
// fixed τ² that is not a number ≥ 0 or comes with a fixed-effects model.
func (o RegOptions) check() error {
	if o.Method != "FE" && canonical(o.Method, metaTau2) != o.Method {
		return fmt.Errorf("method %q: want FE, DL, HE, HS, SJ, ML, REML, EB or PM", o.Method)
	}
	if o.Test != "z" && o.Test != "t" && o.Test != "knha" {
		return fmt.Errorf("test %q: want \"z\", \"t\" or \"knha\"", o.Test)
	}
	if o.FixTau2 {
		if o.Method == "FE" {
			return fmt.Errorf("a fixed-effects model has τ² = 0: a fixed τ² needs a random-effects model")
		}
		if !(o.Tau2 >= 0) || math.IsInf(o.Tau2, 1) {
			return fmt.Errorf("tau2 = %v: a fixed τ² must be a number ≥ 0", o.Tau2)
		}
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return fmt.Errorf("alpha = %v is not between 0 and 1", o.Alpha)
	}
	return nil
}

// heterogeneity sets I² and H² as metafor: from the "typical" within-study
// variance vt = (k − p)/tr P (fixed weights) for a random-effects model,
// from QE for a fixed-effects one.
func (r *Regression) heterogeneity(trP float64) {
	df := float64(r.K - r.P)
	if r.Method == "FE" {
		r.I2 = math.Max(0, 100*(r.QE-df)/r.QE)
		r.H2 = r.QE / df
		return
	}
	r.vt = df / trP
	r.I2 = 100 * r.Tau2 / (r.vt + r.Tau2)
	r.H2 = r.Tau2/r.vt + 1
}

// PredictionInterval is predict()'s interval for a new study of a model
// without moderators: β̂ ± crit·√(se² + τ²), crit the z or (tests t and
// knha) t(k − 1) quantile; for a fixed-effects model the confidence
// interval, as metafor. NaN with moderators (a prediction needs their
// values).
func (r *Regression) PredictionInterval(alpha float64) (lo, hi float64) {
	if r.P != 1 {
		return math.NaN(), math.NaN()
	}
	c := r.Coefs[0]
	if r.Method == "FE" {
		return c.CILow, c.CIHigh
	}
	crit := distuv.UnitNormal.Quantile(1 - alpha/2)
	if r.Test != "z" {
		crit = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(r.K - 1)}.Quantile(1 - alpha/2)
	}
	s := math.Sqrt(c.SE*c.SE + r.Tau2)
	return c.Est - crit*s, c.Est + crit*s
}

// pseudoR2 is metafor's R² of a model with moderators, in percent and
// truncated at 0: for a random-effects model the proportional reduction
// of τ² from the intercept-only model fitted with the same estimator,
// 100·(τ²₀ − τ²)/τ²₀, 0 when τ²₀ = 0 (also with a fixed τ², whose τ²₀ is
// still estimated, as metafor does); for a fixed-effects model the
// adjusted R² of the weighted least-squares fit, 1 − (QE/Q₀)(k − 1)/(k − p),
// 0 when the effects are all equal.
func pseudoR2(yi, vi []float64, r *Regression, o RegOptions) float64 {
	k, p := r.K, r.P
	ones := make([][]float64, k)
	for i := range ones {
		ones[i] = []float64{1}
	}
	if o.Method == "FE" {
		w := make([]float64, k)
		for i := range w {
			w[i] = 1 / vi[i]
		}
		f, _ := fitWLSP(yi, ones, w)
		if f.rss == 0 {
			return 0
		}
		return math.Max(0, 100*(1-(r.QE/f.rss)*float64(k-1)/float64(k-p)))
	}
	t0, _ := tau2P(yi, vi, ones, o.Method)
	if t0 == 0 {
		return 0
	}
	return math.Max(0, 100*(t0-r.Tau2)/t0)
}

// singleStudy is rma() of a single study, as metafor fits it: τ² = 0,
// QE = 0 (p = 1), I² = 0, H² = 1, and the z-test whatever the test asked
// for, with metafor's warning.
func singleStudy(y, v float64, o RegOptions) (*Regression, error) {
	r := &Regression{K: 1, P: 1, Test: "z", Method: o.Method, QEp: 1, I2: 0, H2: 1, R2: math.NaN(), QMdf: [2]int{1, 0}}
	if o.Test != "z" {
		r.Warnings = append(r.Warnings, `Setting argument test="z" since k=1.`)
	}
	if o.FixTau2 {
		r.Tau2, r.FixedTau2 = o.Tau2, true
	}
	c := Coef{Name: "intrcpt", Est: y, SE: math.Sqrt(v + r.Tau2)}
	c.Stat = c.Est / c.SE
	c.P = stats.NormalTwoSidedP(c.Stat)
	crit := distuv.UnitNormal.Quantile(1 - o.Alpha/2)
	c.CILow, c.CIHigh = c.Est-crit*c.SE, c.Est+crit*c.SE
	r.Coefs = []Coef{c}
	r.QM = c.Stat * c.Stat
	r.QMp = stats.ChiSquaredSF(r.QM, 1)
	return r, nil
}

// fit completes r with the coefficients and QM at the estimated τ².
func (r *Regression) fit(yi, vi []float64, d Design, o RegOptions) error {
	k, p := r.K, r.P
	w := make([]float64, k)
	for i := range w {
		w[i] = 1 / (vi[i] + r.Tau2)
	}
	f, ok := fitWLSP(yi, d.X, w)
	if !ok {
		return fmt.Errorf("the moderators %q are collinear: a coefficient is not identified", d.Names[1:])
	}
	s2w := 1.0
	df := k - p
	if o.Test == "knha" {
		if f.rss <= 2.220446049250313e-16 {
			s2w = 0
		} else {
			s2w = f.rss / float64(df)
		}
	}
	var crit float64
	var pval func(float64) float64
	if o.Test != "z" {
		crit = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - o.Alpha/2)
		pval = func(s float64) float64 { return stats.StudentTwoSidedP(s, float64(df)) }
	} else {
		crit = distuv.UnitNormal.Quantile(1 - o.Alpha/2)
		pval = stats.NormalTwoSidedP
	}
	r.crit = crit
	r.vb = make([][]float64, p)
	for j := range r.vb {
		r.vb[j] = make([]float64, p)
		for l := range r.vb[j] {
			r.vb[j][l] = f.a.At(j, l) * s2w
		}
	}
	for j := 0; j < p; j++ {
		c := Coef{Name: d.Names[j], Est: f.b[j], SE: math.Sqrt(f.a.At(j, j) * s2w)}
		c.Stat = c.Est / c.SE
		c.P = pval(c.Stat)
		c.CILow, c.CIHigh = c.Est-crit*c.SE, c.Est+crit*c.SE
		r.Coefs = append(r.Coefs, c)
	}
	// QM = b'[btt] vb[btt,btt]⁻¹ b[btt] over the moderators (btt = 2..p;
	// without moderators the intercept, btt = 1, as metafor).
	first := 1
	if p == 1 {
		first = 0
	}
	m := p - first
	r.QMdf = [2]int{m, 0}
	vb := mat.NewSymDense(m, nil)
	bb := mat.NewVecDense(m, nil)
	for i := 0; i < m; i++ {
		bb.SetVec(i, f.b[i+first])
		for j := i; j < m; j++ {
			vb.SetSym(i, j, f.a.At(i+first, j+first)*s2w)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(vb) {
		r.QM, r.QMp = math.NaN(), math.NaN()
		return nil
	}
	var sol mat.VecDense
	if err := ch.SolveVecTo(&sol, bb); err != nil {
		return err
	}
	r.QM = mat.Dot(bb, &sol)
	if o.Test != "z" {
		r.QM /= float64(m)
		r.QMdf[1] = df
		r.QMp = stats.FSF(r.QM, float64(m), float64(df))
	} else {
		r.QMp = stats.ChiSquaredSF(r.QM, float64(m))
	}
	return nil
}

// tau2P estimates τ² on the design x by method, as rmaTau2 does for
// p ≤ 2 (the same estimators, starting values and update rules).
func tau2P(y, v []float64, x [][]float64, method string) (float64, string) {
	k := len(y)
	kp := float64(k - len(x[0]))
	w := make([]float64, k)
	fit := func(t2 float64) wlsP {
		for i := range v {
			w[i] = 1 / (v[i] + t2)
		}
		f, _ := fitWLSP(y, x, w)
		return f
	}
	switch method {
	case "DL":
		f := fit(0)
		return math.Max(0, (f.rss-kp)/f.trP), ""
	case "HS":
		f := fit(0)
		return math.Max(0, (f.rss-float64(k))/f.sw), ""
	case "HE":
		return math.Max(0, heP(y, v, x)), ""
	case "SJ":
		// metafor starts from the variance of the effects for any model.
		var m float64
		for _, yi := range y {
			m += yi
		}
		m /= float64(k)
		var t0 float64
		for _, yi := range y {
			t0 += (yi - m) * (yi - m)
		}
		t0 /= float64(k)
		return math.Max(0, t0*fit(t0).rss/kp), ""
	case "PM":
		return pmP(kp, func(t2 float64) float64 { return fit(t2).rss })
	}
	return fisherP(y, v, x, method, fit)
}

// pmP is the Paule–Mandel estimator: the τ² ≥ 0 at which the generalised
// Q equals k − p, by bisection to full precision.
func pmP(kp float64, qgen func(float64) float64) (float64, string) {
	if qgen(0) <= kp {
		return 0, ""
	}
	lo, hi := 0.0, 1.0
	for qgen(hi) > kp {
		lo, hi = hi, hi*2
		if hi > 1e300 {
			return math.Inf(1), "PM: no τ² solves the estimating equation"
		}
	}
	for i := 0; i < 2000; i++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if qgen(mid) > kp {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2, ""
}

// fisherP is metafor's Fisher scoring for ML, REML and EB from the
// Hedges estimate truncated at 0 (the updates of rmaFisher), run to
// full convergence, then metafor's ll0check for ML and REML.
func fisherP(y, v []float64, x [][]float64, method string, fit func(float64) wlsP) (float64, string) {
	kf := float64(len(y))
	kp := kf - float64(len(x[0]))
	tau2 := math.Max(0, heP(y, v, x))
	vmin := rmaVMin(v)
	for iter := 0; iter < rmaMaxIter; iter++ {
		f := fit(tau2)
		var adj float64
		switch method {
		case "ML":
			var sw2 float64
			for i := range v {
				wi := 1 / (v[i] + tau2)
				sw2 += wi * wi
			}
			adj = (f.rss2 - f.sw) / sw2
		case "REML":
			adj = (f.rss2 - f.trP) / f.trPP
		case "EB":
			adj = (f.rss*kf/kp - kf) / f.sw
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
			return ll0CheckP(v, method, tau2, fit)
		}
	}
	return tau2, fmt.Sprintf("%s: Fisher scoring did not converge in %d steps (τ² = %g)", method, rmaMaxIter, tau2)
}

// ll0CheckP is metafor's ll0check (as rmaLL0Check): τ² is set to 0 when
// the (restricted) log-likelihood at 0 beats the converged one by more
// than eps^0.25 and τ² is above 1e-5.
func ll0CheckP(v []float64, method string, tau2 float64, fit func(float64) wlsP) (float64, string) {
	if method == "EB" || tau2 <= 1e-5 {
		return tau2, ""
	}
	ll := func(t2 float64) float64 {
		f := fit(t2)
		var slog float64
		for i := range v {
			slog += math.Log(v[i] + t2)
		}
		l := -0.5*slog - 0.5*f.rss
		if method == "REML" {
			l -= 0.5 * f.ldet
		}
		return l
	}
	if ll(0)-ll(tau2) > math.Pow(2.220446049250313e-16, 0.25) {
		return 0, fmt.Sprintf("%s: Fisher scoring stopped at a local maximum (τ² = %g); τ² set to 0, as metafor does", method, tau2)
	}
	return tau2, ""
}

// heP is Hedges' estimator on the design x (untruncated):
// (RSS_ols − tr(P_ols V))/(k − p), tr(P_ols V) = Σv − tr((X'X)⁻¹X'VX).
func heP(y, v []float64, x [][]float64) float64 {
	k, p := len(y), len(x[0])
	ones := make([]float64, k)
	for i := range ones {
		ones[i] = 1
	}
	f, _ := fitWLSP(y, x, ones)
	xvx := mat.NewSymDense(p, nil)
	var sv float64
	for i := range v {
		sv += v[i]
		for j := 0; j < p; j++ {
			for l := j; l < p; l++ {
				xvx.SetSym(j, l, xvx.At(j, l)+v[i]*x[i][j]*x[i][l])
			}
		}
	}
	var ax mat.Dense
	ax.Mul(f.a, xvx)
	return (f.rss - (sv - mat.Trace(&ax))) / float64(k-p)
}
