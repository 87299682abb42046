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
	k, p := len(y), len(x[0])
	f := wlsP{p: p}
	mean := make([]float64, p)
	scale := make([]float64, p)
	scale[0] = 1
	for i := range y {
		f.sw += w[i]
	}
	for j := 1; j < p; j++ {
		var s float64
		for i := range y {
			s += w[i] * x[i][j]
		}
		mean[j] = s / f.sw
		var ss float64
		for i := range y {
			d := x[i][j] - mean[j]
			ss += w[i] * d * d
		}
		scale[j] = math.Sqrt(ss)
		if !(scale[j] > 0) {
			return f, false // a constant column is the intercept again
		}
	}
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
	var qr mat.QR
	qr.Factorize(xs)
	var rd mat.Dense
	qr.RTo(&rd)
	r := mat.NewTriDense(p, mat.Upper, nil)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			r.SetTri(i, j, rd.At(i, j))
		}
	}
	// Singular when a diagonal element of R is negligible against the
	// (unit or √Σw) norm of its column.
	for j := 0; j < p; j++ {
		col := mat.Norm(xs.ColView(j), 2)
		if !(math.Abs(r.At(j, j)) > 1e-10*col) {
			return f, false
		}
		f.ldet += 2 * math.Log(math.Abs(r.At(j, j)))
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
	// Back to the basis of X: b_j = bs_j/s_j, b_0 = bs_0 − Σ m_j b_j, and
	// A = T·As·T' with As = R⁻¹R⁻ᵀ and T the same map.
	tm := mat.NewDense(p, p, nil)
	tm.Set(0, 0, 1)
	for j := 1; j < p; j++ {
		tm.Set(j, j, 1/scale[j])
		tm.Set(0, j, -mean[j]/scale[j])
	}
	var b mat.VecDense
	b.MulVec(tm, &bs)
	f.b = make([]float64, p)
	for j := range f.b {
		f.b[j] = b.AtVec(j)
	}
	var as, tas, ta mat.Dense
	as.Mul(&ri, ri.T())
	ta.Mul(tm, &as)
	tas.Mul(&ta, tm.T())
	a := mat.NewSymDense(p, nil)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			a.SetSym(i, j, (tas.At(i, j)+tas.At(j, i))/2)
		}
	}
	f.a = a
	// Q = W^½X_s R⁻¹ (X_s is well conditioned), its rows qᵢ.
	var q mat.Dense
	q.Mul(xs, &ri)
	qwq := mat.NewDense(p, p, nil)
	var sw2, swh, sw2h float64
	for i := range y {
		e := y[i]
		for j := 0; j < p; j++ {
			e -= x[i][j] * f.b[j]
		}
		we := w[i] * e
		f.rss += we * e
		f.rss2 += we * we
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
	f.trP = f.sw - swh
	var fro float64
	for j := 0; j < p; j++ {
		for l := 0; l < p; l++ {
			fro += qwq.At(j, l) * qwq.At(j, l)
		}
	}
	f.trPP = sw2 - 2*sw2h + fro
	return f, true
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
	vt        float64 // "typical" within-study variance (k − p)/tr P
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
	for i := range yi {
		if err := finiteOrErr(i, "yi", yi[i]); err != nil {
			return nil, err
		}
		if !(vi[i] > 0) || math.IsInf(vi[i], 1) {
			return nil, rowErr(i, "vi = %v: a sampling variance must be a positive number", vi[i])
		}
	}
	if o.Test == "" {
		o.Test = "z"
	}
	if o.Test != "z" && o.Test != "t" && o.Test != "knha" {
		return nil, fmt.Errorf("test %q: want \"z\", \"t\" or \"knha\"", o.Test)
	}
	if o.FixTau2 {
		if o.Method == "FE" {
			return nil, fmt.Errorf("a fixed-effects model has τ² = 0: a fixed τ² needs a random-effects model")
		}
		if !(o.Tau2 >= 0) || math.IsInf(o.Tau2, 1) {
			return nil, fmt.Errorf("tau2 = %v: a fixed τ² must be a number ≥ 0", o.Tau2)
		}
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return nil, fmt.Errorf("alpha = %v is not between 0 and 1", o.Alpha)
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
	var warn string
	switch {
	case o.FixTau2:
		res.Tau2 = o.Tau2
		if canonical(o.Method, metaTau2) == "" {
			return nil, fmt.Errorf("method %q: want FE, DL, HE, HS, SJ, ML, REML, EB or PM", o.Method)
		}
	case o.Method == "FE":
	case canonical(o.Method, metaTau2) == o.Method:
		res.Tau2, warn = tau2P(yi, vi, d.X, o.Method)
		if warn != "" {
			res.Warnings = append(res.Warnings, warn)
		}
	default:
		return nil, fmt.Errorf("method %q: want FE, DL, HE, HS, SJ, ML, REML, EB or PM", o.Method)
	}
	if o.Method == "FE" && o.Test == "knha" {
		res.Warnings = append(res.Warnings, "Knapp & Hartung method is not meant to be used in the context of FE models.")
	}
	if err := res.fit(yi, vi, d, o); err != nil {
		return nil, err
	}
	if o.Method != "FE" {
		// "Typical" within-study variance from the fixed weights.
		vt := float64(k-p) / f0.trP
		res.vt = vt
		res.I2 = 100 * res.Tau2 / (vt + res.Tau2)
		res.H2 = res.Tau2/vt + 1
	} else {
		res.I2 = math.Max(0, 100*(res.QE-float64(k-p))/res.QE)
		res.H2 = res.QE / float64(k-p)
	}
	if p > 1 {
		res.R2 = pseudoR2(yi, vi, res, o)
	}
	return res, nil
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
	if o.Method != "FE" && canonical(o.Method, metaTau2) != o.Method {
		return nil, fmt.Errorf("method %q: want FE, DL, HE, HS, SJ, ML, REML, EB or PM", o.Method)
	}
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
	p := len(x[0])
	kp := float64(k - p)
	w := make([]float64, k)
	setW := func(t2 float64) {
		for i := range v {
			w[i] = 1 / (v[i] + t2)
		}
	}
	fit := func() wlsP {
		f, _ := fitWLSP(y, x, w)
		return f
	}
	switch method {
	case "DL":
		setW(0)
		f := fit()
		return math.Max(0, (f.rss-kp)/f.trP), ""
	case "HS":
		setW(0)
		f := fit()
		return math.Max(0, (f.rss-float64(k))/f.sw), ""
	case "HE":
		return math.Max(0, heP(y, v, x)), ""
	case "SJ":
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
		setW(t0)
		return math.Max(0, t0*fit().rss/kp), ""
	case "PM":
		qgen := func(t2 float64) float64 { setW(t2); return fit().rss }
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
	// ML, REML, EB: Fisher scoring from the Hedges estimate.
	tau2 := math.Max(0, heP(y, v, x))
	vmin := rmaVMin(v)
	kf := float64(k)
	for iter := 0; iter < rmaMaxIter; iter++ {
		setW(tau2)
		f := fit()
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
			if method == "EB" || tau2 <= 1e-5 {
				return tau2, ""
			}
			ll := func(t2 float64) float64 {
				setW(t2)
				f := fit()
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
	}
	return tau2, fmt.Sprintf("%s: Fisher scoring did not converge in %d steps (τ² = %g)", method, rmaMaxIter, tau2)
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
