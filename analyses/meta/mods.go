package meta

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// Why this file exists: mods = ["ablat", "year"] on a meta_analysis fits
// the meta-regression rma(yi, vi, mods = ~ ablat + year) over the
// included datasets (MetaRegression), a moderator being numeric when
// every value is a number and categorical otherwise (treatment coding,
// as R's factor).

// ModResult is the meta-regression of mods: its coefficients and tests
// under metafor's names.
type ModResult struct {
	Mods   []string  `json:"mods"`
	Terms  []ModTerm `json:"terms"`
	QM     float64   `json:"QM"`
	DFQM   int       `json:"df_QM"`
	DFQM2  int       `json:"df_QM_denominator,omitempty"` // the F test's (Knapp–Hartung)
	PQM    float64   `json:"p_QM"`
	QE     float64   `json:"QE"`
	DFQE   int       `json:"df_QE"`
	PQE    float64   `json:"p_QE"`
	Tau2   float64   `json:"tau2_res"`
	R2     *float64  `json:"R2"` // percent; null for a fixed-effect model
	I2Res  float64   `json:"I2_res"`
	Fitted int       `json:"k"`
	// Bubble is the bubble plot of a single numeric moderator (nil
	// otherwise).
	Bubble *Bubble `json:"-"`
}

// Decimals is how many decimals the coefficients, their standard errors
// and intervals are shown with, in the table and the bubble plot's
// caption alike: enough to tell the narrowest interval's ends apart.
func (m *ModResult) Decimals() int {
	w := math.Inf(1)
	for _, c := range m.Terms {
		w = math.Min(w, c.CIHigh-c.CILow)
	}
	return analyses.DecimalsFor(w)
}

// ModTerm is one coefficient.
type ModTerm struct {
	Term      string  `json:"term"`
	Estimate  float64 `json:"estimate"`
	SE        float64 `json:"se"`
	Statistic float64 `json:"statistic"`
	P         float64 `json:"p"`
	CILow     float64 `json:"ci_low"`
	CIHigh    float64 `json:"ci_high"`
}

// moderators builds the moderators of the included rows idx from
// in.ModValues (dataset → moderator → text).
func moderators(res *Result, in Input, idx []int, mods []string) ([]Moderator, error) {
	var out []Moderator
	for _, name := range mods {
		vals := make([]string, len(idx))
		nums := make([]float64, len(idx))
		numeric := true
		for j, i := range idx {
			d := res.Rows[i].Dataset
			v, ok := in.ModValues[d][name]
			v = strings.TrimSpace(v)
			if !ok || v == "" {
				return nil, analyses.OptionErrorf("mods", "moderator %q has no value for dataset %s (give it in the summary's column %q or as the dataset's attribute)", name, in.Naming.Dataset(d), name)
			}
			vals[j] = v
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				numeric = false
			}
			nums[j] = x
		}
		if numeric {
			out = append(out, Moderator{Name: name, Numeric: nums})
		} else {
			out = append(out, Moderator{Name: name, Values: vals})
		}
	}
	return out, nil
}

// metaMods fits the meta-regression of o.Mods over the included rows.
func metaMods(res *Result, in Input, idx []int, o Options) error {
	if len(o.Mods) == 0 {
		return nil
	}
	mods, err := moderators(res, in, idx, o.Mods)
	if err != nil {
		return err
	}
	d, err := NewDesign(len(idx), mods)
	if err != nil {
		return fmt.Errorf("mods: %w", err)
	}
	yi, vi := make([]float64, len(idx)), make([]float64, len(idx))
	for j, i := range idx {
		yi[j], vi[j] = res.Rows[i].Effect, res.Rows[i].Variance
	}
	reg, err := MetaRegression(yi, vi, d, o.regOptions())
	if err != nil {
		return fmt.Errorf("mods: %w", err)
	}
	m := &ModResult{Mods: o.Mods, QM: reg.QM, DFQM: reg.QMdf[0], DFQM2: reg.QMdf[1], PQM: reg.QMp, QE: reg.QE, DFQE: reg.QEdf, PQE: reg.QEp,
		Tau2: reg.Tau2, I2Res: reg.I2, Fitted: reg.K, R2: finitePtr(reg.R2)}
	for _, c := range reg.Coefs {
		m.Terms = append(m.Terms, ModTerm{Term: c.Name, Estimate: c.Est, SE: c.SE, Statistic: c.Stat, P: c.P, CILow: c.CILow, CIHigh: c.CIHigh})
	}
	for _, w := range reg.Warnings {
		res.Warnf("mods: %s", w)
	}
	if len(mods) == 1 && mods[0].Numeric != nil {
		m.Bubble = newBubble(res, idx, mods[0], reg)
	}
	res.Moderators = m
	return nil
}

// modsTables are <id>-moderators and <id>-moderator-tests.
func (r *Result) modsTables() []analyses.Table {
	m := r.Moderators
	if m == nil {
		return nil
	}
	t := analyses.Table{Name: "moderators", Title: "Meta-regression on " + strings.Join(m.Mods, ", "),
		Columns: []string{"term", "estimate", "se", "statistic", "p", "ci_low", "ci_high"}}
	for _, c := range m.Terms {
		t.Rows = append(t.Rows, []any{c.Term, c.Estimate, c.SE, c.Statistic, c.P, c.CILow, c.CIHigh})
	}
	d := m.Decimals()
	t.Decimals = map[string]int{"estimate": d, "se": d, "ci_low": d}
	q := analyses.Table{Name: "moderator-tests", Title: "Tests of the moderators (QM) and of residual heterogeneity (QE)", Columns: []string{"quantity", "value"},
		Rows: [][]any{{"QM", m.QM}, {"df_QM", m.DFQM}, {"p_QM", m.PQM}, {"QE", m.QE}, {"df_QE", m.DFQE}, {"p_QE", m.PQE}, {"tau2_res", m.Tau2}, {"I2_res", m.I2Res}, {"R2", ptr(m.R2)}}}
	return []analyses.Table{t, q}
}
