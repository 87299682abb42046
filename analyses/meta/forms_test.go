package meta

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// nf is a float that reads JSON null (R's NA) as NaN.
type nf float64

func (f *nf) UnmarshalJSON(b []byte) error {
	if string(b) == "null" || string(b) == "{}" {
		*f = nf(math.NaN())
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*f = nf(x)
	return nil
}

func nfs(x []nf) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// metaFormsOracle is testdata/oracle/meta/forms.json, written by
// gen_forms.R with R metafor 3.8 (escalc, rma(method, test), predict()).
type metaFormsOracle struct {
	Meta  map[string]any `json:"meta"`
	Cases []struct {
		Name   string  `json:"name"`
		Form   string  `json:"form"`
		Effect string  `json:"effect"`
		Alpha  float64 `json:"alpha"`
		Input  struct {
			N        []int `json:"n"`
			MeanDiff []nf  `json:"mean_diff"`
			SDDiff   []nf  `json:"sd_diff"`
			R        []nf  `json:"r"`
			MeanT    []nf  `json:"mean_t"`
			SDT      []nf  `json:"sd_t"`
			MeanC    []nf  `json:"mean_c"`
			SDC      []nf  `json:"sd_c"`
			Raw      []struct {
				T []float64 `json:"t"`
				C []float64 `json:"c"`
			} `json:"raw"`
			M1  []nf  `json:"m1i"`
			SD1 []nf  `json:"sd1i"`
			N1  []int `json:"n1i"`
			M2  []nf  `json:"m2i"`
			SD2 []nf  `json:"sd2i"`
			N2  []int `json:"n2i"`
			Yi  []nf  `json:"yi"`
			Vi  []nf  `json:"vi"`
			Sei []nf  `json:"sei"`
		} `json:"input"`
		Yi   []nf `json:"yi"`
		Vi   []nf `json:"vi"`
		Q    nf   `json:"Q"`
		PQ   nf   `json:"p_Q"`
		Fits map[string]struct {
			Tau2 nf   `json:"tau2"`
			Est  nf   `json:"est"`
			I2   nf   `json:"I2"`
			H2   nf   `json:"H2"`
			Z    []nf `json:"z"`    // se, ci_low, ci_high, p, pi_low, pi_high
			KNHA []nf `json:"knha"` // the same with test = "knha"
		} `json:"fits"`
	} `json:"cases"`
}

// TestMetaFormsMetafor checks every input form and effect size against
// escalc and every estimator × test against rma() and predict(): 40
// random cases each, k = 2…60, τ² = 0 to huge heterogeneity, to 1e-9.
// The iterative estimators (ML, REML, EB, PM) are compared with fixtures
// made under tight convergence control (gen_forms.R refits with threshold
// and tol 1e-13·max(τ², min vi)), both sides holding the converged
// estimate. τ² itself is compared to 1e-9 absolute or relative, and
// relative to the within-study variances through I² (percent) and H².
func TestMetaFormsMetafor(t *testing.T) {
	skipUnderRace(t, "runs on the test's goroutine (no sensitivity analysis)")
	t.Parallel()
	raw, err := os.ReadFile("testdata/oracle/meta/forms.json")
	if err != nil {
		t.Fatal(err)
	}
	var o metaFormsOracle
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	const tol = 1e-9
	perCombo := map[string]int{}
	zero, huge := map[string]bool{}, map[string]bool{} // per form/effect/estimator
	maxK := 0
	for _, cs := range o.Cases {
		perCombo[cs.Form+"/"+cs.Effect]++
		k := len(cs.Yi)
		maxK = max(maxK, k)
		in := cs.Input
		studies := make([]Study, k)
		effect := cs.Effect
		for i := range studies {
			s := Study{Dataset: fmt.Sprintf("d%02d", i), R: math.NaN()}
			switch cs.Form {
			case "paired":
				s.Form = Paired
				s.N, s.MeanDiff, s.SDDiff, s.R = in.N[i], float64(in.MeanDiff[i]), float64(in.SDDiff[i]), float64(in.R[i])
			case "units":
				s.Form, s.FromUnits = Paired, true
				s.N, s.TreatmentValues, s.ControlValues = in.N[i], in.N[i], in.N[i]
				s.MeanT, s.SDT, s.MeanC, s.SDC, s.R = float64(in.MeanT[i]), float64(in.SDT[i]), float64(in.MeanC[i]), float64(in.SDC[i]), float64(in.R[i])
				s.MeanDiff, s.SDDiff = s.MeanT-s.MeanC, 1
			case "two_group":
				s.Form = TwoGroup
				s.M1, s.SD1, s.N1 = float64(in.M1[i]), float64(in.SD1[i]), in.N1[i]
				s.M2, s.SD2, s.N2 = float64(in.M2[i]), float64(in.SD2[i]), in.N2[i]
			case "generic":
				s.Form = Generic
				s.Yi = float64(in.Yi[i])
				if cs.Effect == "vi" {
					s.Vi = float64(in.Vi[i])
				} else {
					s.Vi = float64(in.Sei[i]) * float64(in.Sei[i])
				}
				effect = "md" // ignored for given effects
			}
			studies[i] = s
		}
		if cs.Form == "units" && len(in.Raw) > 0 {
			// End to end: the streaming builder summarises the raw values
			// as R did.
			b := NewBuilder("T", "C", "drop")
			for i, r := range in.Raw {
				for j := range r.T {
					u := fmt.Sprintf("u%d", j)
					if err := b.Add(studies[i].Dataset, "C", u, 0, r.C[j]); err != nil {
						t.Fatal(err)
					}
					if err := b.Add(studies[i].Dataset, "T", u, 0, r.T[j]); err != nil {
						t.Fatal(err)
					}
				}
			}
			built := b.Finish()
			for i := range built {
				c := metaChecker{t, cs.Name + "/" + built[i].Dataset + "/builder", 1e-9}
				c.eq("mean_t", built[i].MeanT, studies[i].MeanT)
				c.eq("mean_c", built[i].MeanC, studies[i].MeanC)
				c.eq("sd_t", built[i].SDT, studies[i].SDT)
				c.eq("sd_c", built[i].SDC, studies[i].SDC)
				c.eq("r", built[i].R, studies[i].R)
			}
			studies = built
		}
		yi, vi := nfs(cs.Yi), nfs(cs.Vi)
		for method, want := range cs.Fits {
			key := cs.Form + "/" + cs.Effect + "/" + method
			zero[key] = zero[key] || float64(want.Tau2) < 1e-25
			huge[key] = huge[key] || float64(want.I2) > 97
			for _, test := range []string{"z", "knha"} {
				var opt Options
				opt.Defaults()
				opt.Treatment, opt.Control, opt.Metric, opt.Effect = "T", "C", "m", effect
				opt.Model, opt.Tau2 = metaModel(method)
				if opt.Tau2 == "" {
					opt.Tau2 = "DL"
				}
				opt.Test, opt.Alpha = test, cs.Alpha
				res, err := Analyze(Input{Metric: analyses.Metric{Name: "m"}, Studies: studies}, opt)
				if err != nil {
					t.Fatalf("%s: %v", cs.Name, err)
				}
				what := cs.Name + "/" + method + "/" + test
				c := metaChecker{t, what, tol}
				if method == "DL" && test == "z" {
					for i, row := range res.Rows {
						if math.IsNaN(yi[i]) { // metafor drops it: left out with a note
							if row.Included || !hasWarning(res, row.Dataset, "left out") {
								t.Errorf("%s: %s has no effect in metafor but is included (%v)", what, row.Dataset, row.Effect)
							}
							continue
						}
						c.eq(fmt.Sprintf("yi[%d]", i), row.Effect, yi[i])
						c.eq(fmt.Sprintf("vi[%d]", i), row.Variance, vi[i])
					}
				}
				s := res.Summary
				c.eq("Q", val(s.Q), float64(cs.Q))
				c.eq("p_Q", val(s.PQ), float64(cs.PQ))
				c.eq("tau2", val(s.Tau2), float64(want.Tau2))
				c.eq("est", val(s.Effect), float64(want.Est))
				c.eq("I2", val(s.I2), float64(want.I2))
				c.eq("H2", val(s.H2), float64(want.H2))
				vec := want.Z
				if test == "knha" {
					vec = want.KNHA
				}
				got := []float64{val(s.SE), val(s.CILow), val(s.CIHigh), val(s.P), val(s.PILow), val(s.PIHigh)}
				for j, name := range []string{"se", "ci_low", "ci_high", "p", "pi_low", "pi_high"} {
					c.eq(name, got[j], float64(vec[j]))
				}
				if res.Test != test {
					t.Errorf("%s: result test %q", what, res.Test)
				}
			}
		}
	}
	for combo, n := range perCombo {
		if n < 40 {
			t.Errorf("%s: %d fixture cases, want at least 40", combo, n)
		}
	}
	for key := range zero {
		if !strings.HasSuffix(key, "/FE") && (!zero[key] || !huge[key]) {
			t.Errorf("%s: the fixture lacks a case with τ² = 0 (%v) or I² > 97%% (%v)", key, zero[key], huge[key])
		}
	}
	if len(perCombo) != 9 || maxK < 60 {
		t.Errorf("fixture covers %d form/effect combinations, k up to %d", len(perCombo), maxK)
	}
}
