package meta

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/evalbook/evalbook/analyses/internal/testutil"
)

// pubbiasOracle is testdata/oracle/meta/pubbias.json, written by
// gen_pubbias.R with R metafor (trimfill, ranktest, fsn, cumul).
type pubbiasOracle struct {
	Sets []struct {
		Name     string    `json:"name"`
		Yi       []float64 `json:"yi"`
		Vi       []float64 `json:"vi"`
		By       []float64 `json:"by"`
		TrimFill []struct {
			Method    string    `json:"method"`
			Test      string    `json:"test"`
			Estimator string    `json:"estimator"`
			SideArg   string    `json:"side_arg"`
			Side      string    `json:"side"`
			K0        int       `json:"k0"`
			SEK0      rnum      `json:"se_k0"`
			PK0       rnum      `json:"p_k0"`
			FilledYi  []float64 `json:"filled_yi"`
			FilledVi  []float64 `json:"filled_vi"`
			Est       float64   `json:"est"`
			SE        float64   `json:"se"`
			Stat      float64   `json:"stat"`
			P         float64   `json:"p"`
			CILow     float64   `json:"ci_low"`
			CIHigh    float64   `json:"ci_high"`
			Tau2      float64   `json:"tau2"`
			QE        float64   `json:"QE"`
			QEp       float64   `json:"QEp"`
			I2        float64   `json:"I2"`
			H2        float64   `json:"H2"`
		} `json:"trimfill"`
		Cumul []struct {
			Method     string `json:"method"`
			Test       string `json:"test"`
			Decreasing bool   `json:"decreasing"`
			Est        []rnum `json:"est"`
			SE         []rnum `json:"se"`
			P          []rnum `json:"p"`
			CILow      []rnum `json:"ci_low"`
			CIHigh     []rnum `json:"ci_high"`
			Q          []rnum `json:"Q"`
			Qp         []rnum `json:"Qp"`
			Tau2       []rnum `json:"tau2"`
			I2         []rnum `json:"I2"`
			H2         []rnum `json:"H2"`
		} `json:"cumul"`
		RankTest struct {
			Tau float64 `json:"tau"`
			P   float64 `json:"p"`
		} `json:"ranktest"`
		FSN []struct {
			Type       string          `json:"type"`
			Alpha      float64         `json:"alpha"`
			Target     json.RawMessage `json:"target"`
			N          float64         `json:"N"`
			P          rnum            `json:"p"`
			MeanES     rnum            `json:"meanes"`
			TargetUsed rnum            `json:"target_used"`
		} `json:"fsn"`
	} `json:"sets"`
	Ranks []struct {
		Name string    `json:"name"`
		Yi   []float64 `json:"yi"`
		Vi   []float64 `json:"vi"`
		Tau  float64   `json:"tau"`
		P    float64   `json:"p"`
		PSym float64   `json:"p_sym"`
		Ties bool      `json:"ties"`
	} `json:"ranks"`
}

func loadPubbiasOracle(t *testing.T) pubbiasOracle {
	t.Helper()
	raw, err := os.ReadFile("testdata/oracle/meta/pubbias.json")
	if err != nil {
		t.Fatal(err)
	}
	var o pubbiasOracle
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	if len(o.Sets) < 8 {
		t.Fatalf("%d data sets", len(o.Sets))
	}
	return o
}

// TestTrimFillMetafor checks trimfill() for FE, DL, REML and PM, tests z
// and knha, estimators L0 and R0, and the side chosen by metafor or given
// (left, right), on dat.hackshaw1998, dat.bcg and six random sets (some
// with small-study asymmetry on either side): the side, k0 with its
// standard error (and p for R0), the filled studies, and the filled
// model's estimate, se, statistic, p, CI, τ², QE, I² and H², to 1e-9.
func TestTrimFillMetafor(t *testing.T) {
	t.Parallel()
	o := loadPubbiasOracle(t)
	const tol = 1e-9
	filled, sides := 0, map[string]int{}
	for _, s := range o.Sets {
		for _, w := range s.TrimFill {
			side := w.SideArg
			if side == "auto" {
				side = ""
			}
			name := fmt.Sprintf("%s %s/%s %s side=%s", s.Name, w.Method, w.Test, w.Estimator, w.SideArg)
			got, err := TrimFill(s.Yi, s.Vi, RegOptions{Method: w.Method, Test: w.Test, Alpha: 0.05}, side, w.Estimator)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if got.Side != w.Side || got.K0 != w.K0 || len(got.FilledYi) != len(w.FilledYi) {
				t.Errorf("%s: side %s, k0 %d (%d filled); metafor %s, %d (%d)", name, got.Side, got.K0, len(got.FilledYi), w.Side, w.K0, len(w.FilledYi))
				continue
			}
			if w.K0 > 0 {
				filled++
			}
			sides[w.Side+"/"+w.SideArg]++
			c := metaChecker{t, name, tol}
			c.eq("se_k0", got.SEK0, float64(w.SEK0))
			c.eq("p_k0", got.PK0, float64(w.PK0))
			if !math.IsNaN(float64(w.PK0)) && math.IsNaN(got.PK0) {
				t.Errorf("%s: p_k0 NaN, metafor %v", name, w.PK0)
			}
			for i := range w.FilledYi {
				c.eq(fmt.Sprintf("filled yi[%d]", i), got.FilledYi[i], w.FilledYi[i])
				c.eq(fmt.Sprintf("filled vi[%d]", i), got.FilledVi[i], w.FilledVi[i])
			}
			f, co := got.Fit, got.Fit.Coefs[0]
			c.eq("est", co.Est, w.Est)
			c.eq("se", co.SE, w.SE)
			c.eq("stat", co.Stat, w.Stat)
			c.eq("p", co.P, w.P)
			c.eq("ci_low", co.CILow, w.CILow)
			c.eq("ci_high", co.CIHigh, w.CIHigh)
			c.eq("tau2", f.Tau2, w.Tau2)
			c.eq("QE", f.QE, w.QE)
			c.eq("QEp", f.QEp, w.QEp)
			c.eq("I2 (fraction)", f.I2/100, w.I2/100)
			c.eq("H2", f.H2, w.H2)
		}
	}
	if filled < 50 || sides["left/auto"] == 0 || sides["right/auto"] == 0 {
		t.Errorf("fixtures fill studies in %d fits, sides %v: cases are missing", filled, sides)
	}
}

// TestRankTestMetafor checks ranktest() (Kendall's tau and p) on every
// data set and on cases with ties in vi (normal approximation), k = 3,
// k = 40 and k = 60 (exact). The exact p is compared with R's own
// pkendall taken on the lower side by symmetry (p_sym): R's ranktest
// computes the upper tail as 1 − P(T ≤ q − 1), which is off by 2e-4
// relative at p = 3e-10 and is −4.4e-16 for a p of 2e-33.
func TestRankTestMetafor(t *testing.T) {
	t.Parallel()
	o := loadPubbiasOracle(t)
	const tol = 1e-9
	for _, s := range o.Sets {
		got, err := RankTest(s.Yi, s.Vi)
		if err != nil {
			t.Fatal(err)
		}
		c := metaChecker{t, s.Name + " ranktest", tol}
		c.eq("tau", got.Tau, s.RankTest.Tau)
		c.eq("p", got.P, s.RankTest.P)
	}
	tiny := false
	for _, r := range o.Ranks {
		got, err := RankTest(r.Yi, r.Vi)
		if err != nil {
			t.Fatal(err)
		}
		c := metaChecker{t, r.Name + " ranktest", tol}
		c.eq("tau", got.Tau, r.Tau)
		want := r.PSym
		if r.Ties {
			want = r.P
		}
		if !testutil.Close(got.P, want, tol) || math.Abs(got.P-want) > tol*want {
			t.Errorf("%s: p = %.17g, want %.17g (metafor printed %.17g)", r.Name, got.P, want, r.P)
		}
		tiny = tiny || (want < 1e-30 && got.P > 0)
	}
	if !tiny {
		t.Error("no case in the far tail")
	}
}

// TestFailSafeNMetafor checks fsn() of type Rosenthal, Orwin (default
// target ȳ/2, and targets 0.05 and −0.05) and Rosenberg at alpha 0.05 and
// 0.10 on every data set: N exactly, p, the mean effect and the target
// to 1e-9.
func TestFailSafeNMetafor(t *testing.T) {
	t.Parallel()
	o := loadPubbiasOracle(t)
	types := map[string]int{}
	for _, s := range o.Sets {
		for _, w := range s.FSN {
			var target float64
			has := string(w.Target) != `"default"`
			if has {
				if err := json.Unmarshal(w.Target, &target); err != nil {
					t.Fatal(err)
				}
			}
			got, err := FailSafeN(s.Yi, s.Vi, w.Type, w.Alpha, target, has)
			if err != nil {
				t.Fatal(err)
			}
			types[w.Type]++
			name := fmt.Sprintf("%s fsn %s alpha=%v target=%s", s.Name, w.Type, w.Alpha, w.Target)
			if got.N != w.N {
				t.Errorf("%s: N = %v, metafor %v", name, got.N, w.N)
			}
			c := metaChecker{t, name, 1e-9}
			c.eq("p", got.P, float64(w.P))
			c.eq("mean effect", got.MeanEffect, float64(w.MeanES))
			c.eq("target", got.Target, float64(w.TargetUsed))
		}
	}
	if len(types) != 3 {
		t.Errorf("types %v", types)
	}
}

// TestCumulativeMetafor checks cumul() ordered by a column (the study
// year, with ties kept in input order) increasing and decreasing, for FE,
// DL, REML and PM with tests z and knha: every step's estimate, se, p,
// CI, Q, its p, τ², I² and H², to 1e-9 (the first step is a single
// study, fitted as metafor fits one).
func TestCumulativeMetafor(t *testing.T) {
	t.Parallel()
	o := loadPubbiasOracle(t)
	const tol = 1e-9
	n := 0
	for _, s := range o.Sets {
		for _, w := range s.Cumul {
			got, err := Cumulative(s.Yi, s.Vi, s.By, w.Decreasing, RegOptions{Method: w.Method, Test: w.Test, Alpha: 0.05})
			if err != nil {
				t.Fatal(err)
			}
			for i, g := range got {
				c := metaChecker{t, fmt.Sprintf("%s cumul %s/%s decreasing=%v step %d", s.Name, w.Method, w.Test, w.Decreasing, i+1), tol}
				c.eq("est", g.Est, float64(w.Est[i]))
				c.eq("se", g.SE, float64(w.SE[i]))
				c.eq("p", g.P, float64(w.P[i]))
				c.eq("ci_low", g.CILow, float64(w.CILow[i]))
				c.eq("ci_high", g.CIHigh, float64(w.CIHigh[i]))
				c.eq("Q", g.Q, float64(w.Q[i]))
				c.eq("Qp", g.Qp, float64(w.Qp[i]))
				c.eq("tau2", g.Tau2, float64(w.Tau2[i]))
				c.eq("I2 (fraction)", g.I2/100, float64(w.I2[i])/100)
				c.eq("H2", g.H2, float64(w.H2[i]))
				n++
			}
		}
	}
	if n < 1000 {
		t.Errorf("%d steps compared", n)
	}
}
