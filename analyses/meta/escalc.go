package meta

// Effect sizes from the numbers papers print, as metafor's escalc
// (Viechtbauer 2010) computes them: 2×2 tables (log odds ratio, log risk
// ratio, risk difference), single proportions (raw, logit, arcsine and
// Freeman–Tukey double arcsine), correlations (raw and Fisher's z) and
// incidence rates (raw and log), with escalc's zero-cell options (add,
// to, drop00), its refusals as errors naming the row, and the
// back-transformations metafor offers for a summary and its interval.
// The fixtures are written by testdata/oracle/meta/gen_escalc.R.

import (
	"fmt"
	"math"
)

// Escalc measures, under metafor's names.
const (
	MeasureOR   = "OR"   // log odds ratio of a 2×2 table
	MeasureRR   = "RR"   // log risk ratio of a 2×2 table
	MeasureRD   = "RD"   // risk difference of a 2×2 table
	MeasurePR   = "PR"   // raw proportion
	MeasurePLO  = "PLO"  // logit of a proportion
	MeasurePAS  = "PAS"  // arcsine square-root of a proportion
	MeasurePFT  = "PFT"  // Freeman–Tukey double arcsine of a proportion
	MeasureCOR  = "COR"  // raw correlation
	MeasureZCOR = "ZCOR" // Fisher's r-to-z of a correlation
	MeasureIR   = "IR"   // raw incidence rate
	MeasureIRLN = "IRLN" // log incidence rate
)

// Zero-cell adjustments (escalc's `to`).
const (
	ToOnly0  = "only0"  // add to every cell of a study with a zero cell (the default)
	ToAll    = "all"    // add to every cell of every study
	ToIf0All = "if0all" // add to every cell of every study when any study has a zero cell
	ToNone   = "none"   // never add
)

// ZeroCells is escalc's handling of zero cells: Add is added to the cells
// chosen by To; with Drop00 a 2×2 table with no events (or only events)
// in both groups gets no effect (NaN), as metafor's drop00 = TRUE.
type ZeroCells struct {
	Add    float64
	To     string
	Drop00 bool
}

// DefaultZeroCells is escalc's default: add = 1/2, to = "only0",
// drop00 = FALSE.
func DefaultZeroCells() ZeroCells { return ZeroCells{Add: 0.5, To: ToOnly0} }

// DefaultZeroCellsFor is escalc's default for measure: add = 0 for PAS
// and PFT (the arcsine transformations are defined at 0 and 1, and
// metafor adds nothing unless told), otherwise DefaultZeroCells.
func DefaultZeroCellsFor(measure string) ZeroCells {
	z := DefaultZeroCells()
	if measure == MeasurePAS || measure == MeasurePFT {
		z.Add = 0
	}
	return z
}

func (z ZeroCells) check() error {
	switch z.To {
	case ToOnly0, ToAll, ToIf0All, ToNone:
	default:
		return fmt.Errorf("to = %q: want %q, %q, %q or %q", z.To, ToOnly0, ToAll, ToIf0All, ToNone)
	}
	if !(z.Add >= 0) || math.IsInf(z.Add, 1) {
		return fmt.Errorf("add = %v: want a finite number ≥ 0", z.Add)
	}
	return nil
}

// RowError is a refusal of one study's numbers: Row is its index in the
// input (0-based; the caller names the file line), Msg says what is wrong.
type RowError struct {
	Row int
	Msg string
}

// Error names the row (1-based) and what is wrong with it.
func (e *RowError) Error() string { return fmt.Sprintf("row %d: %s", e.Row+1, e.Msg) }

func rowErr(i int, format string, a ...any) error {
	return &RowError{Row: i, Msg: fmt.Sprintf(format, a...)}
}

// EffectSizes is escalc's output: per study the effect Yi and its
// sampling variance Vi (both NaN for a study that gets no effect, with
// the reason in Note).
type EffectSizes struct {
	Measure string
	Yi, Vi  []float64
	Note    []string
}

func newEffectSizes(measure string, k int) EffectSizes {
	return EffectSizes{Measure: measure, Yi: make([]float64, k), Vi: make([]float64, k), Note: make([]string, k)}
}

func (e *EffectSizes) none(i int, note string) {
	e.Yi[i], e.Vi[i], e.Note[i] = math.NaN(), math.NaN(), note
}

func finiteOrErr(i int, name string, x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return rowErr(i, "%s = %v is not a number", name, x)
	}
	return nil
}

// Table2x2 is one study's 2×2 table: AI and BI events and non-events in
// group 1, CI and DI in group 2 (escalc's ai, bi, ci, di).
type Table2x2 struct {
	AI, BI, CI, DI float64
}

// TablesFromGroups builds 2×2 tables from events and group sizes
// (escalc's ai, n1i, ci, n2i), refusing, as metafor does, event counts
// larger than their group and negative group sizes, naming the row.
func TablesFromGroups(ai, n1i, ci, n2i []float64) ([]Table2x2, error) {
	k := len(ai)
	if len(n1i) != k || len(ci) != k || len(n2i) != k {
		return nil, fmt.Errorf("ai, n1i, ci and n2i have %d, %d, %d and %d values", k, len(n1i), len(ci), len(n2i))
	}
	out := make([]Table2x2, k)
	for i := range ai {
		for _, c := range []struct {
			n string
			x float64
		}{{"ai", ai[i]}, {"n1i", n1i[i]}, {"ci", ci[i]}, {"n2i", n2i[i]}} {
			if err := finiteOrErr(i, c.n, c.x); err != nil {
				return nil, err
			}
		}
		if n1i[i] < 0 || n2i[i] < 0 {
			return nil, rowErr(i, "group size n1i = %v, n2i = %v: a group size is negative", n1i[i], n2i[i])
		}
		if ai[i] > n1i[i] || ci[i] > n2i[i] {
			return nil, rowErr(i, "ai = %v of n1i = %v, ci = %v of n2i = %v: an event count is larger than its group", ai[i], n1i[i], ci[i], n2i[i])
		}
		out[i] = Table2x2{AI: ai[i], BI: n1i[i] - ai[i], CI: ci[i], DI: n2i[i] - ci[i]}
	}
	return out, nil
}

// EscalcTables computes OR, RR or RD for each 2×2 table as escalc does:
// negative counts are refused (naming the row); with z.Drop00 a table
// with no events or only events in both groups gets no effect; z.Add is
// added to all four cells of the tables z.To chooses (a table with a
// zero cell for "only0"); then with p1 = ai/n1, p2 = ci/n2:
//
//	OR: log(p1/(1−p1)) − log(p2/(1−p2)),  v = 1/ai + 1/bi + 1/ci + 1/di
//	RR: log(p1) − log(p2),                v = 1/ai − 1/n1 + 1/ci − 1/n2
//	RD: p1 − p2,                          v = p1(1−p1)/n1 + p2(1−p2)/n2
//
// A table whose effect is still undefined (an empty group, or a zero
// cell with to = "none") gets NaN with a note, as metafor gives NA.
func EscalcTables(measure string, t []Table2x2, z ZeroCells) (EffectSizes, error) {
	switch measure {
	case MeasureOR, MeasureRR, MeasureRD:
	default:
		return EffectSizes{}, fmt.Errorf("measure %q: a 2×2 table gives %q, %q or %q", measure, MeasureOR, MeasureRR, MeasureRD)
	}
	if err := z.check(); err != nil {
		return EffectSizes{}, err
	}
	if err := checkTables(t); err != nil {
		return EffectSizes{}, err
	}
	k := len(t)
	drop := make([]bool, k)
	if z.Drop00 {
		for i, r := range t {
			drop[i] = (r.AI == 0 && r.CI == 0) || (r.BI == 0 && r.DI == 0)
		}
	}
	zero := func(r Table2x2) bool { return r.AI == 0 || r.BI == 0 || r.CI == 0 || r.DI == 0 }
	addAll := z.To == ToAll
	if z.To == ToIf0All {
		for i, r := range t {
			addAll = addAll || (!drop[i] && zero(r))
		}
	}
	e := newEffectSizes(measure, k)
	for i, r := range t {
		if drop[i] {
			e.none(i, "no events, or only events, in both groups (drop00)")
			continue
		}
		if addAll || (z.To == ToOnly0 && zero(r)) {
			r.AI += z.Add
			r.BI += z.Add
			r.CI += z.Add
			r.DI += z.Add
		}
		y, v := tableEffect(measure, r)
		e.set(i, y, v)
	}
	return e, nil
}

// checkTables refuses a 2×2 table with a count that is negative or not
// a number, naming the row.
func checkTables(t []Table2x2) error {
	for i, r := range t {
		for _, c := range []struct {
			n string
			x float64
		}{{"ai", r.AI}, {"bi", r.BI}, {"ci", r.CI}, {"di", r.DI}} {
			if err := finiteOrErr(i, c.n, c.x); err != nil {
				return err
			}
			if c.x < 0 {
				return rowErr(i, "%s = %v: a count is negative", c.n, c.x)
			}
		}
	}
	return nil
}

// tableEffect is the effect and variance of one (adjusted) 2×2 table.
func tableEffect(measure string, r Table2x2) (y, v float64) {
	n1, n2 := r.AI+r.BI, r.CI+r.DI
	p1, p2 := r.AI/n1, r.CI/n2
	switch measure {
	case MeasureOR:
		return math.Log(p1/(1-p1)) - math.Log(p2/(1-p2)), 1/r.AI + 1/r.BI + 1/r.CI + 1/r.DI
	case MeasureRR:
		return math.Log(p1) - math.Log(p2), 1/r.AI - 1/n1 + 1/r.CI - 1/n2
	}
	return p1 - p2, p1*(1-p1)/n1 + p2*(1-p2)/n2
}

// set stores a study's effect, or NaN with a note when it is undefined
// (metafor's NA: an infinite or undefined effect or variance).
func (e *EffectSizes) set(i int, y, v float64) {
	if math.IsNaN(y) || math.IsInf(y, 0) || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		e.none(i, "the effect or its variance is undefined for these numbers")
		return
	}
	e.Yi[i], e.Vi[i] = y, v
}

// EscalcProportions computes PR, PLO, PAS or PFT from xi events of ni
// as escalc does: negative counts, group sizes ≤ 0 and xi > ni are
// refused (naming the row); z.Add is added to xi and to ni − xi of the
// studies z.To chooses (a study with xi = 0 or xi = ni for "only0");
// then with p = xi/ni:
//
//	PR:  p,                                         v = p(1−p)/ni
//	PLO: log(p/(1−p)),                              v = 1/(ni·p(1−p))
//	PAS: asin(√p),                                  v = 1/(4ni)
//	PFT: ½(asin(√(xi/(ni+1))) + asin(√((xi+1)/(ni+1)))), v = 1/(4ni+2)
func EscalcProportions(measure string, xi, ni []float64, z ZeroCells) (EffectSizes, error) {
	switch measure {
	case MeasurePR, MeasurePLO, MeasurePAS, MeasurePFT:
	default:
		return EffectSizes{}, fmt.Errorf("measure %q: a proportion gives %q, %q, %q or %q", measure, MeasurePR, MeasurePLO, MeasurePAS, MeasurePFT)
	}
	if err := z.check(); err != nil {
		return EffectSizes{}, err
	}
	if z.Drop00 {
		return EffectSizes{}, fmt.Errorf("drop00 applies to 2×2 tables (no events in both groups); a proportion has one group")
	}
	k := len(xi)
	if len(ni) != k {
		return EffectSizes{}, fmt.Errorf("xi and ni have %d and %d values", k, len(ni))
	}
	for i := range xi {
		if err := finiteOrErr(i, "xi", xi[i]); err != nil {
			return EffectSizes{}, err
		}
		if err := finiteOrErr(i, "ni", ni[i]); err != nil {
			return EffectSizes{}, err
		}
		if xi[i] < 0 {
			return EffectSizes{}, rowErr(i, "xi = %v: a count is negative", xi[i])
		}
		if ni[i] <= 0 {
			return EffectSizes{}, rowErr(i, "ni = %v: a sample size must be positive", ni[i])
		}
		if xi[i] > ni[i] {
			return EffectSizes{}, rowErr(i, "xi = %v of ni = %v: the event count is larger than the sample", xi[i], ni[i])
		}
	}
	zero := func(i int) bool { return xi[i] == 0 || xi[i] == ni[i] }
	addAll := z.To == ToAll
	if z.To == ToIf0All {
		for i := range xi {
			addAll = addAll || zero(i)
		}
	}
	e := newEffectSizes(measure, k)
	for i := range xi {
		x, m := xi[i], ni[i]-xi[i]
		if addAll || (z.To == ToOnly0 && zero(i)) {
			x += z.Add
			m += z.Add
		}
		n := x + m
		p := x / n
		var y, v float64
		switch measure {
		case MeasurePR:
			y, v = p, p*(1-p)/n
		case MeasurePLO:
			y, v = math.Log(p/(1-p)), 1/(n*p*(1-p))
		case MeasurePAS:
			y, v = math.Asin(math.Sqrt(p)), 1/(4*n)
		case MeasurePFT:
			y = 0.5 * (math.Asin(math.Sqrt(x/(n+1))) + math.Asin(math.Sqrt((x+1)/(n+1))))
			v = 1 / (4*n + 2)
		}
		e.set(i, y, v)
	}
	return e, nil
}

// EscalcCorrelations computes COR or ZCOR from correlations ri over ni
// pairs as escalc does: r outside [−1, 1] and sample sizes ≤ 0 are
// refused (naming the row);
//
//	COR:  r,         v = (1−r²)²/(ni−1)
//	ZCOR: atanh(r),  v = 1/(ni−3)
//
// and a study with ni ≤ 3 (metafor sets its variance to NA for both
// measures), or with |r| = 1 for ZCOR, gets no effect.
func EscalcCorrelations(measure string, ri, ni []float64) (EffectSizes, error) {
	switch measure {
	case MeasureCOR, MeasureZCOR:
	default:
		return EffectSizes{}, fmt.Errorf("measure %q: a correlation gives %q or %q", measure, MeasureCOR, MeasureZCOR)
	}
	k := len(ri)
	if len(ni) != k {
		return EffectSizes{}, fmt.Errorf("ri and ni have %d and %d values", k, len(ni))
	}
	for i := range ri {
		if err := finiteOrErr(i, "ri", ri[i]); err != nil {
			return EffectSizes{}, err
		}
		if err := finiteOrErr(i, "ni", ni[i]); err != nil {
			return EffectSizes{}, err
		}
		if ri[i] < -1 || ri[i] > 1 {
			return EffectSizes{}, rowErr(i, "ri = %v: a correlation is outside [-1, 1]", ri[i])
		}
		if ni[i] <= 0 {
			return EffectSizes{}, rowErr(i, "ni = %v: a sample size must be positive", ni[i])
		}
	}
	e := newEffectSizes(measure, k)
	for i := range ri {
		r, n := ri[i], ni[i]
		if n <= 3 {
			e.none(i, "ni ≤ 3: too few pairs for a sampling variance (metafor gives NA)")
			continue
		}
		switch measure {
		case MeasureCOR:
			e.set(i, r, (1-r*r)*(1-r*r)/(n-1))
		case MeasureZCOR:
			e.set(i, 0.5*math.Log((1+r)/(1-r)), 1/(n-3))
		}
	}
	return e, nil
}

// EscalcRates computes IR or IRLN from xi events over person-time ti as
// escalc does: negative counts and person-times ≤ 0 are refused (naming
// the row); z.Add is added to xi of the studies z.To chooses (xi = 0 for
// "only0");
//
//	IR:   xi/ti,      v = xi/ti²
//	IRLN: log(xi/ti), v = 1/xi
func EscalcRates(measure string, xi, ti []float64, z ZeroCells) (EffectSizes, error) {
	switch measure {
	case MeasureIR, MeasureIRLN:
	default:
		return EffectSizes{}, fmt.Errorf("measure %q: an incidence rate gives %q or %q", measure, MeasureIR, MeasureIRLN)
	}
	if err := z.check(); err != nil {
		return EffectSizes{}, err
	}
	if z.Drop00 {
		return EffectSizes{}, fmt.Errorf("drop00 applies to 2×2 tables (no events in both groups); an incidence rate has one group")
	}
	k := len(xi)
	if len(ti) != k {
		return EffectSizes{}, fmt.Errorf("xi and ti have %d and %d values", k, len(ti))
	}
	for i := range xi {
		if err := finiteOrErr(i, "xi", xi[i]); err != nil {
			return EffectSizes{}, err
		}
		if err := finiteOrErr(i, "ti", ti[i]); err != nil {
			return EffectSizes{}, err
		}
		if xi[i] < 0 {
			return EffectSizes{}, rowErr(i, "xi = %v: a count is negative", xi[i])
		}
		if ti[i] <= 0 {
			return EffectSizes{}, rowErr(i, "ti = %v: a person-time must be positive", ti[i])
		}
	}
	addAll := z.To == ToAll
	if z.To == ToIf0All {
		for i := range xi {
			addAll = addAll || xi[i] == 0
		}
	}
	e := newEffectSizes(measure, k)
	for i := range xi {
		x, t := xi[i], ti[i]
		if addAll || (z.To == ToOnly0 && x == 0) {
			x += z.Add
		}
		switch measure {
		case MeasureIR:
			e.set(i, x/t, x/(t*t))
		case MeasureIRLN:
			e.set(i, math.Log(x/t), 1/x)
		}
	}
	return e, nil
}

// BackTransform maps x on the scale of measure back to the scale of the
// numbers it came from, as the transformation metafor offers for that
// measure (transf = … in predict() or forest()): exp for OR, RR and IRLN
// (transf.exp.int), the inverse logit for PLO (transf.ilogit), sin² for
// PAS, clamped to [0, 1] (transf.iarcsin), tanh for ZCOR (transf.ztor)
// and, for PFT, the inverse of Miller (1978) at the harmonic mean of the
// studies' sample sizes ni (transf.ipft.hm), clamped to [0, 1]. The
// other measures are on their natural scale already and x is returned
// as is. ni is needed for PFT only.
func BackTransform(measure string, x float64, ni []float64) (float64, error) {
	switch measure {
	case MeasureOR, MeasureRR, MeasureIRLN:
		return math.Exp(x), nil
	case MeasurePLO:
		return 1 / (1 + math.Exp(-x)), nil
	case MeasurePAS:
		switch {
		case x < 0:
			return 0, nil
		case x > math.Pi/2:
			return 1, nil
		}
		s := math.Sin(x)
		return s * s, nil
	case MeasureZCOR:
		return math.Tanh(x), nil
	case MeasurePFT:
		var s float64
		var n int
		for _, v := range ni {
			if !math.IsNaN(v) {
				s += 1 / v
				n++
			}
		}
		if n == 0 || !(s > 0) {
			return math.NaN(), fmt.Errorf("PFT back-transformation needs the studies' sample sizes ni")
		}
		return ipft(x, float64(n)/s), nil
	case MeasureRD, MeasurePR, MeasureCOR, MeasureIR:
		return x, nil
	}
	return math.NaN(), fmt.Errorf("measure %q has no back-transformation", measure)
}

// pft is the Freeman–Tukey double arcsine of a proportion p at sample
// size n (metafor's transf.pft).
func pft(p, n float64) float64 {
	x := p * n
	return 0.5 * (math.Asin(math.Sqrt(x/(n+1))) + math.Asin(math.Sqrt((x+1)/(n+1))))
}

// ipft is Miller's (1978) inverse of the double arcsine at sample size n
// (metafor's transf.ipft), 0 and 1 beyond the values of p = 0 and 1.
func ipft(x, n float64) float64 {
	if x > pft(1, n) {
		return 1
	}
	if x < pft(0, n) {
		return 0
	}
	s := math.Sin(2 * x)
	c := math.Cos(2 * x)
	sg := 0.0
	switch {
	case c > 0:
		sg = 1
	case c < 0:
		sg = -1
	}
	t := s + (s-1/s)/n
	return 0.5 * (1 - sg*math.Sqrt(1-t*t))
}

// BackTransformed is a summary with its confidence interval (and, when
// given, prediction interval) on the natural scale.
type BackTransformed struct {
	Effect, CILow, CIHigh, PILow, PIHigh float64
}

// BackTransformSummary back-transforms a summary effect and its interval
// bounds (piLow, piHigh may be NaN) with BackTransform; ni are the
// studies' sample sizes (PFT only). Every transformation is increasing,
// so the bounds stay in order.
func BackTransformSummary(measure string, effect, ciLow, ciHigh, piLow, piHigh float64, ni []float64) (BackTransformed, error) {
	var out BackTransformed
	for _, c := range []struct {
		in  float64
		out *float64
	}{{effect, &out.Effect}, {ciLow, &out.CILow}, {ciHigh, &out.CIHigh}, {piLow, &out.PILow}, {piHigh, &out.PIHigh}} {
		v, err := BackTransform(measure, c.in, ni)
		if err != nil {
			return BackTransformed{}, err
		}
		*c.out = v
	}
	return out, nil
}
