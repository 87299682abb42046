package meta

import (
	"fmt"

	"github.com/evalbook/evalbook/analyses"
)

// Why this file exists: sensitivity = true adds metafor's publication-bias
// analyses beyond Egger's test: trim and fill (Duval & Tweedie 2000; L0,
// side chosen as metafor does), the rank correlation test (Begg &
// Mazumdar 1994) and the fail-safe N (Rosenthal 1979, Orwin 1983,
// Rosenberg 2005), over the included datasets.

// PubBias is what sensitivity adds beyond Egger's test.
type PubBias struct {
	TrimFill *TrimFillSummary `json:"trimfill,omitempty"`
	RankTau  *float64         `json:"ranktest_tau,omitempty"`
	RankP    *float64         `json:"ranktest_p,omitempty"`
	// Fail-safe numbers (fsn): NaN (null) where undefined.
	FSNRosenthal *float64 `json:"fsn_rosenthal,omitempty"`
	FSNOrwin     *float64 `json:"fsn_orwin,omitempty"`
	FSNRosenberg *float64 `json:"fsn_rosenberg,omitempty"`
}

// TrimFillSummary is trim and fill's result: the side filled, the number
// of studies filled (k0) and the summary of the observed and filled
// studies, with the filled studies' effects and variances.
type TrimFillSummary struct {
	Side     string    `json:"side"`
	K0       int       `json:"k0"`
	Effect   float64   `json:"effect"`
	SE       float64   `json:"se"`
	CILow    float64   `json:"ci_low"`
	CIHigh   float64   `json:"ci_high"`
	P        float64   `json:"p"`
	Tau2     float64   `json:"tau2"`
	FilledYi []float64 `json:"filled_yi"`
	FilledVi []float64 `json:"filled_vi"`
}

// metaPubBias computes res.PubBias over the included effects y, v; what
// cannot be computed is a note, never a number.
func metaPubBias(res *Result, y, v []float64, c metaConf) {
	pb := &PubBias{}
	method := c.method
	if c.model == "fixed" {
		method = "FE"
	}
	if tf, err := TrimFill(y, v, RegOptions{Method: method, Test: c.test, Alpha: c.alpha}, "", EstimatorL0); err != nil {
		res.Warnf("sensitivity: no trim and fill: %v", err)
	} else if len(tf.Fit.Coefs) == 1 {
		co := tf.Fit.Coefs[0]
		pb.TrimFill = &TrimFillSummary{Side: tf.Side, K0: tf.K0, Effect: co.Est, SE: co.SE, CILow: co.CILow, CIHigh: co.CIHigh, P: co.P,
			Tau2: tf.Fit.Tau2, FilledYi: tf.FilledYi, FilledVi: tf.FilledVi}
	}
	if rt, err := RankTest(y, v); err != nil {
		res.Warnf("sensitivity: no rank correlation test: %v", err)
	} else {
		pb.RankTau, pb.RankP = finitePtr(rt.Tau), finitePtr(rt.P)
	}
	for _, f := range []struct {
		typ string
		dst **float64
	}{{FSNRosenthal, &pb.FSNRosenthal}, {FSNOrwin, &pb.FSNOrwin}, {FSNRosenberg, &pb.FSNRosenberg}} {
		fs, err := FailSafeN(y, v, f.typ, c.alpha, 0, false)
		if err != nil {
			res.Warnf("sensitivity: no %s fail-safe N: %v", f.typ, err)
			continue
		}
		if *f.dst = finitePtr(fs.N); *f.dst == nil {
			res.Warnf("sensitivity: the %s fail-safe N is unbounded (%v)", f.typ, fs.N)
		}
	}
	res.PubBias = pb
}

// finitePtr is &x for a finite x, else nil (null in JSON, empty in CSV).
func finitePtr(x float64) *float64 {
	if analyses.Finite(x) {
		return &x
	}
	return nil
}

// pubBiasTable is table <id>-publication-bias.
func (r *Result) pubBiasTable() []analyses.Table {
	pb := r.PubBias
	if pb == nil {
		return nil
	}
	t := analyses.Table{Name: "publication-bias", Title: "Publication bias: Egger's regression test, trim and fill, rank correlation test, fail-safe N", Columns: []string{"quantity", "value"}}
	t.Rows = append(t.Rows, r.eggerRows()...)
	if tf := pb.TrimFill; tf != nil {
		// the side is words: in the title, so the value column holds numbers only
		t.Title = "Publication bias: Egger's regression test, trim and fill (filling the " + tf.Side + " side), rank correlation test, fail-safe N"
		t.Rows = append(t.Rows, []any{"trimfill_k0", tf.K0}, []any{"trimfill_effect", tf.Effect},
			[]any{"trimfill_ci_low", tf.CILow}, []any{"trimfill_ci_high", tf.CIHigh}, []any{"trimfill_p", tf.P})
	}
	t.Rows = definedRows(t.Rows, "ranktest_tau", pb.RankTau, "ranktest_p", pb.RankP,
		"fsn_rosenthal", pb.FSNRosenthal, "fsn_orwin", pb.FSNOrwin, "fsn_rosenberg", pb.FSNRosenberg)
	return []analyses.Table{t}
}

// definedRows appends a (quantity, value) row for each name and value
// pair whose value is defined: a quantity that is undefined here has no
// row (a note says why).
func definedRows(rows [][]any, pairs ...any) [][]any {
	for i := 0; i+1 < len(pairs); i += 2 {
		if v, _ := pairs[i+1].(*float64); v != nil {
			rows = append(rows, []any{pairs[i], *v})
		}
	}
	return rows
}

// eggerRows are the rows of Egger's regression test in the
// publication-bias table: the numbers the funnel plot's caption and the
// key finding quote (its statistic, z or, under Knapp–Hartung, t with
// its degrees of freedom, and p), and regtest's limit estimate with its
// interval. A quantity that is undefined has no row.
func (r *Result) eggerRows() [][]any {
	e := r.Egger
	if e == nil {
		return nil
	}
	rows := definedRows(nil, "egger_z", e.Z)
	if e.DF > 0 {
		rows = append(definedRows(nil, "egger_t", e.Z), []any{"egger_df", e.DF})
	}
	return definedRows(rows, "egger_p", e.P, "egger_limit", e.Limit, "egger_limit_ci_low", e.LimitCILow, "egger_limit_ci_high", e.LimitCIHigh)
}

// pubBiasNote is a sentence for the key finding when trim and fill fills
// studies: how many, on which side, and the adjusted summary.
func (r *Result) pubBiasNote() string {
	if r.PubBias == nil || r.PubBias.TrimFill == nil || r.PubBias.TrimFill.K0 == 0 {
		return ""
	}
	tf := r.PubBias.TrimFill
	return fmt.Sprintf("trim and fill adds %d studies on the %s, adjusting the summary to %s", tf.K0, tf.Side, r.Interval(tf.Effect, tf.CILow, tf.CIHigh))
}
