package meta

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/evalbook/evalbook/analyses/internal/testutil"

	"github.com/evalbook/evalbook/analyses"
)

// metaOracle is testdata/oracle/meta/models.json, written by gen.R with R
// metafor 3.8 (rma(yi, vi, method = "FE" | "DL" | "REML" | "PM"),
// predict()).
type metaOracle struct {
	Meta  map[string]any `json:"meta"`
	Cases []struct {
		Name      string                              `json:"name"`
		Alpha     float64                             `json:"alpha"`
		Y         []float64                           `json:"y"`
		V         []float64                           `json:"v"`
		Fits      map[string]metaOracleFit            `json:"fits"`
		Group     []string                            `json:"group"`
		Subgroups map[string]map[string]metaOracleFit `json:"subgroups"`
		Between   map[string]struct {
			Q  float64 `json:"Q"`
			DF int     `json:"df"`
			P  float64 `json:"p"`
		} `json:"between"`
	} `json:"cases"`
}

type metaOracleFit struct {
	Est     float64         `json:"est"`
	SE      float64         `json:"se"`
	CILow   float64         `json:"ci_low"`
	CIHigh  float64         `json:"ci_high"`
	P       float64         `json:"p"`
	Tau2    float64         `json:"tau2"`
	Q       float64         `json:"Q"`
	PQ      float64         `json:"p_Q"`
	I2      float64         `json:"I2"`
	H2      float64         `json:"H2"`
	PILow   json.RawMessage `json:"pi_low"`
	PIHigh  json.RawMessage `json:"pi_high"`
	Weights []float64       `json:"weights"`
}

func loadMetaOracle(t *testing.T) metaOracle {
	t.Helper()
	b, err := os.ReadFile("testdata/oracle/meta/models.json")
	if err != nil {
		t.Fatal(err)
	}
	var o metaOracle
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	if len(o.Cases) < 20 {
		t.Fatalf("oracle has %d cases, want at least 20", len(o.Cases))
	}
	return o
}

// optFloat decodes metafor's NULL (written as {}) as NaN.
func metaOptFloat(raw json.RawMessage) float64 {
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return math.NaN()
	}
	return f
}

func metaTol(method string) float64 {
	if method == "REML" || method == "PM" {
		return 1e-7
	}
	return 1e-9
}

func metaModel(method string) (model string, tau2 Tau2Option) {
	if method == "FE" {
		return "fixed", ""
	}
	return "random", Tau2Option(method)
}

type metaChecker struct {
	t    *testing.T
	what string
	tol  float64
}

func (c metaChecker) eq(name string, got, want float64) {
	c.t.Helper()
	if math.IsNaN(want) {
		return
	}
	if !testutil.Close(got, want, c.tol) {
		c.t.Errorf("%s %s = %.17g, metafor %.17g (diff %.3g)", c.what, name, got, want, got-want)
	}
}

// TestMetaFitMetafor checks summary, se, CI, p, τ², Q, p_Q, I², H², the
// prediction interval and the weights against metafor on every fixture
// case: 1e-9 for FE and DL, 1e-7 for the iterative REML and PM.
func TestMetaFitMetafor(t *testing.T) {
	t.Parallel()
	o := loadMetaOracle(t)
	ks := map[int]bool{}
	for _, cs := range o.Cases {
		ks[len(cs.Y)] = true
		for method, want := range cs.Fits {
			model, tau2 := metaModel(method)
			got := metaFit(cs.Y, cs.V, metaConf{model: model, method: string(tau2), test: "z", alpha: cs.Alpha})
			c := metaChecker{t, cs.Name + "/" + method, metaTol(method)}
			c.eq("est", got.est, want.Est)
			c.eq("se", got.se, want.SE)
			c.eq("ci_low", got.ciLow, want.CILow)
			c.eq("ci_high", got.ciHigh, want.CIHigh)
			c.eq("p", got.p, want.P)
			c.eq("tau2", got.tau2, want.Tau2)
			c.eq("Q", got.q, want.Q)
			c.eq("p_Q", got.pq, want.PQ)
			c.eq("I2", got.i2, want.I2)
			c.eq("H2", got.h2, want.H2)
			c.eq("pi_low", got.piLow, metaOptFloat(want.PILow))
			c.eq("pi_high", got.piHigh, metaOptFloat(want.PIHigh))
			for i := range want.Weights {
				c.eq(fmt.Sprintf("weight[%d]", i), got.w[i], want.Weights[i])
			}
		}
	}
	if !ks[2] {
		t.Error("the fixtures have no case with k = 2")
	}
}

// metaStudiesFor turns effects and variances into md summary rows with
// the same y and v (n = 100, sd = √(v·n)), to drive Analyze.
func metaStudiesFor(y, v []float64) []Study {
	out := make([]Study, len(y))
	for i := range y {
		out[i] = Study{Dataset: fmt.Sprintf("d%02d", i), N: 100, MeanDiff: y[i], SDDiff: math.Sqrt(v[i] * 100), R: math.NaN()}
	}
	return out
}

// TestMetaSubgroupsMetafor checks per-subgroup summaries and the test of
// subgroup differences against metafor (separate fits per subgroup, then
// rma(M_g, sei = SE_g, method = "FE")), through Analyze.
func TestMetaSubgroupsMetafor(t *testing.T) {
	t.Parallel()
	o := loadMetaOracle(t)
	n := 0
	for _, cs := range o.Cases {
		if cs.Group == nil {
			continue
		}
		n++
		studies := metaStudiesFor(cs.Y, cs.V)
		groups := map[string]string{}
		for i, g := range cs.Group {
			groups[studies[i].Dataset] = g
		}
		for method, want := range cs.Between {
			var opt Options
			opt.Defaults()
			opt.Treatment, opt.Control, opt.Metric = "T", "C", "m"
			opt.Model, opt.Tau2 = metaModel(method)
			if opt.Tau2 == "" {
				opt.Tau2 = "DL"
			}
			opt.Alpha = cs.Alpha
			opt.Subgroup = "domain"
			res, err := Analyze(Input{Metric: analyses.Metric{Name: "m"}, Studies: studies, Groups: groups}, opt)
			if err != nil {
				t.Fatal(err)
			}
			c := metaChecker{t, cs.Name + "/" + method, metaTol(method)}
			c.eq("Q_between", *res.QBetween, want.Q)
			c.eq("p_between", *res.PBetween, want.P)
			if res.DFBetween != want.DF {
				t.Errorf("%s df_between = %d, want %d", c.what, res.DFBetween, want.DF)
			}
			for g, fits := range cs.Subgroups {
				w := fits[method]
				s := res.Subgroups[g]
				cg := metaChecker{t, c.what + "/" + g, c.tol}
				cg.eq("effect", *s.Effect, w.Est)
				cg.eq("se", *s.SE, w.SE)
				cg.eq("tau2", *s.Tau2, w.Tau2)
				cg.eq("Q", *s.Q, w.Q)
				cg.eq("I2", *s.I2, w.I2)
				cg.eq("pi_low", *s.PILow, metaOptFloat(w.PILow))
			}
			tb := res.Tables()
			if len(tb) != 4 || len(tb[2].Rows) != 1+len(cs.Subgroups) || tb[3].Name != "subgroups" {
				t.Errorf("%s: tables %d, heterogeneity rows %d", c.what, len(tb), len(tb[2].Rows))
			}
			// The overall summary is the same as without subgroups.
			all := cs.Fits[method]
			c.eq("summary effect", *res.Summary.Effect, all.Est)
			c.eq("summary tau2", *res.Summary.Tau2, all.Tau2)
		}
	}
	if n == 0 {
		t.Fatal("no subgroup case in the fixtures")
	}
}
