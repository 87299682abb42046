package meta

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// nfList reads R's NULL (written as {}) as an empty list.
type nfList []nf

func (l *nfList) UnmarshalJSON(b []byte) error {
	if string(b) == "{}" || string(b) == "null" {
		*l = nil
		return nil
	}
	return json.Unmarshal(b, (*[]nf)(l))
}

// metaSensOracle is testdata/oracle/meta/sensitivity.json, written by
// gen_sensitivity.R with R metafor 3.8 (leave1out, influence, regtest).
type metaSensOracle struct {
	Cases []struct {
		Name  string  `json:"name"`
		Alpha float64 `json:"alpha"`
		Yi    []nf    `json:"yi"`
		Vi    []nf    `json:"vi"`
		Fits  map[string]map[string]struct {
			LeaveOneOut map[string]nfList `json:"leave1out"`
			Influence   struct {
				RStudent    []nf   `json:"rstudent"`
				DFFITS      []nf   `json:"dffits"`
				CooksD      []nf   `json:"cooks_d"`
				CovR        []nf   `json:"cov_r"`
				Tau2Del     []nf   `json:"tau2_del"`
				QDel        []nf   `json:"Q_del"`
				Hat         []nf   `json:"hat"`
				Weight      []nf   `json:"weight"`
				DFBETAS     []nf   `json:"dfbetas"`
				Influential []bool `json:"influential"`
			} `json:"influence"`
			Regtest struct {
				Z      nf  `json:"z"`
				P      nf  `json:"p"`
				DF     int `json:"df"`
				Est    nf  `json:"est"`
				CILow  nf  `json:"ci_low"`
				CIHigh nf  `json:"ci_high"`
			} `json:"regtest"`
		} `json:"fits"`
	} `json:"cases"`
}

// TestMetaSensitivityMetafor checks leave-one-out fits, influence
// diagnostics (and metafor's "influential" flag) and Egger's regression
// test against metafor's leave1out(), influence() and regtest() for 20
// cases × every estimator × both tests, to 1e-7.
func TestMetaSensitivityMetafor(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/oracle/meta/sensitivity.json")
	if err != nil {
		t.Fatal(err)
	}
	var o metaSensOracle
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	if len(o.Cases) < 20 {
		t.Fatalf("%d cases, want 20", len(o.Cases))
	}
	const tol = 1e-7
	flagged := 0
	for _, cs := range o.Cases {
		y, v := nfs(cs.Yi), nfs(cs.Vi)
		for method, byTest := range cs.Fits {
			for test, want := range byTest {
				var opt Options
				opt.Defaults()
				opt.Treatment, opt.Control, opt.Metric = "T", "C", "m"
				opt.Model, opt.Tau2 = metaModel(method)
				if opt.Tau2 == "" {
					opt.Tau2 = "DL"
				}
				opt.Test, opt.Alpha, opt.Sensitivity = test, cs.Alpha, true
				studies := make([]Study, len(y))
				for i := range y {
					studies[i] = Study{Dataset: fmt.Sprintf("d%02d", i), Form: Generic, Yi: y[i], Vi: v[i]}
				}
				res, err := Analyze(Input{Metric: analyses.Metric{Name: "m"}, Studies: studies}, opt)
				if err != nil {
					t.Fatal(err)
				}
				what := cs.Name + "/" + method + "/" + test
				if len(res.LeaveOneOut) != len(y) || len(res.Influence) != len(y) || res.Egger == nil {
					t.Fatalf("%s: %d leave-one-out rows, %d influence rows, egger %v", what, len(res.LeaveOneOut), len(res.Influence), res.Egger)
				}
				l := want.LeaveOneOut
				for i, g := range res.LeaveOneOut {
					c := metaChecker{t, fmt.Sprintf("%s leave1out[%d]", what, i), tol}
					c.eq("estimate", g.Effect, float64(l["estimate"][i]))
					c.eq("se", g.SE, float64(l["se"][i]))
					c.eq("ci_low", g.CILow, float64(l["ci_low"][i]))
					c.eq("ci_high", g.CIHigh, float64(l["ci_high"][i]))
					c.eq("p", g.P, float64(l["p"][i]))
					c.eq("Q", g.Q, float64(l["Q"][i]))
					if len(l["tau2"]) > 0 {
						c.eq("tau2", g.Tau2, float64(l["tau2"][i]))
					}
					c.eq("I2", g.I2, float64(l["I2"][i]))
					c.eq("H2", g.H2, float64(l["H2"][i]))
				}
				in := want.Influence
				for i, g := range res.Influence {
					c := metaChecker{t, fmt.Sprintf("%s influence[%d]", what, i), tol}
					c.eq("rstudent", g.RStudent, float64(in.RStudent[i]))
					c.eq("dffits", g.DFFITS, float64(in.DFFITS[i]))
					c.eq("cooks_d", g.CooksD, float64(in.CooksD[i]))
					c.eq("cov_r", g.CovR, float64(in.CovR[i]))
					c.eq("tau2_del", g.Tau2Del, float64(in.Tau2Del[i]))
					c.eq("Q_del", g.QDel, float64(in.QDel[i]))
					c.eq("hat", g.Hat, float64(in.Hat[i]))
					c.eq("weight", g.Weight, float64(in.Weight[i]))
					c.eq("dfbetas", g.DFBETAS, float64(in.DFBETAS[i]))
					if g.Influential != in.Influential[i] {
						t.Errorf("%s: influential = %v, metafor %v", c.what, g.Influential, in.Influential[i])
					}
					if g.Influential {
						flagged++
					}
				}
				rt := want.Regtest
				c := metaChecker{t, what + " regtest", tol}
				c.eq("z", val(res.Egger.Z), float64(rt.Z))
				c.eq("p", val(res.Egger.P), float64(rt.P))
				c.eq("limit", val(res.Egger.Limit), float64(rt.Est))
				c.eq("limit_ci_low", val(res.Egger.LimitCILow), float64(rt.CILow))
				c.eq("limit_ci_high", val(res.Egger.LimitCIHigh), float64(rt.CIHigh))
				if test == "knha" && res.Egger.DF != rt.DF {
					t.Errorf("%s regtest df = %d, metafor %d", what, res.Egger.DF, rt.DF)
				}
			}
		}
	}
	if flagged == 0 {
		t.Error("no fixture case has an influential dataset")
	}
	_ = math.NaN
}
