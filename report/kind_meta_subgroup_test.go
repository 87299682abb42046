package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// metaExpected reads testdata/meta-measure/expected.json (gen.R, metafor
// 3.8) under key, into v.
func metaExpected(t *testing.T, key string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "meta-measure", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(all[key], v); err != nil {
		t.Fatal(err)
	}
}

// metaSummaryStudy is a one-analysis study over the summary file of the
// fixtures (file), with the analysis's extra keys.
func metaSummaryStudy(t *testing.T, file, keys string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "meta-measure", file))
	if err != nil {
		t.Fatal(err)
	}
	return "-- study.toml --\ntitle = \"m\"\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\nsummary = \"s.csv\"\nbetter = \"lower\"\n" + keys + "-- s.csv --\n" + string(data)
}

// near reports got (a JSON number) against metafor's want within tol
// relative to max(1, |want|).
func near(t *testing.T, what string, got any, want, tol float64) {
	t.Helper()
	if g, ok := got.(float64); !ok || math.Abs(g-want) > tol*math.Max(1, math.Abs(want)) {
		t.Errorf("%s: %v, metafor %v", what, got, want)
	}
}

// commonExpected is gen.R's common(): the subgroup model with a common τ².
type commonExpected struct {
	Groups                                      []string
	Effect, SE, CILow, CIHigh, P, PILow, PIHigh []float64
	Tau2, QM, PQM, QE, PQE                      float64
	DFQM                                        []any
	DFQE                                        int
}

func (c *commonExpected) UnmarshalJSON(b []byte) error {
	var m struct {
		Groups []string  `json:"groups"`
		Effect []float64 `json:"effect"`
		SE     []float64 `json:"se"`
		CILow  []float64 `json:"ci_low"`
		CIHigh []float64 `json:"ci_high"`
		P      []float64 `json:"p"`
		PILow  []float64 `json:"pi_low"`
		PIHigh []float64 `json:"pi_high"`
		Tau2   float64   `json:"tau2"`
		QM     float64   `json:"QM"`
		DFQM   []any     `json:"df_QM"`
		PQM    float64   `json:"p_QM"`
		QE     float64   `json:"QE"`
		DFQE   int       `json:"df_QE"`
		PQE    float64   `json:"p_QE"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*c = commonExpected{m.Groups, m.Effect, m.SE, m.CILow, m.CIHigh, m.P, m.PILow, m.PIHigh, m.Tau2, m.QM, m.PQM, m.QE, m.PQE, m.DFQM, m.DFQE}
	return nil
}

// subgroup = "alloc" names a column of the summary file, and
// subgroup_tau2 = "common" fits metafor's rma(yi, vi, mods = ~ factor(g)
// - 1): per-subgroup estimates, tests, intervals and prediction intervals
// with the common τ², and the QM of ~ factor(g) as the test between
// (χ² under z, F under Knapp–Hartung), with QE. On dat.bcg (RR, DL, z;
// and τ² fixed at 0.04) and dat.bangertdrowns2004 (generic, REML, knha),, to 1e-9 (REML
// converged to full precision here, and to metafor's threshold of 1e-12
// in gen.R).
func TestMetaSubgroupCommonBuild(t *testing.T) {
	t.Parallel()
	var want map[string]json.RawMessage
	metaExpected(t, "subgroups", &want)
	for _, c := range []struct{ key, file, keys string }{
		{"bcg_common", "bcg.csv", "measure = \"RR\"\nsubgroup = \"alloc\"\nsubgroup_tau2 = \"common\"\n"},
		{"bangert_common", "bangert.csv", "tau2 = \"REML\"\ntest = \"knha\"\nsubgroup = \"grade\"\nsubgroup_tau2 = \"common\"\n"},
		{"bcg_common_fixed", "bcg.csv", "measure = \"RR\"\ntau2 = 0.04\nsubgroup = \"alloc\"\nsubgroup_tau2 = \"common\"\n"},
	} {
		var w commonExpected
		if err := json.Unmarshal(want[c.key], &w); err != nil {
			t.Fatal(err)
		}
		tol := 1e-9
		site := mustBuild(t, metaSummaryStudy(t, c.file, c.keys))
		doc := readJSON(t, site, "data/m.json")
		subs, _ := doc["subgroups"].(map[string]any)
		if doc["subgroup_tau2"] != "common" || len(subs) != len(w.Groups) {
			t.Fatalf("%s: subgroup_tau2 %v, subgroups %v", c.key, doc["subgroup_tau2"], subs)
		}
		for i, g := range w.Groups {
			s, _ := subs[g].(map[string]any)
			if s == nil {
				t.Fatalf("%s: no subgroup %s in %v", c.key, g, subs)
			}
			for _, f := range []struct {
				name string
				want float64
			}{{"effect", w.Effect[i]}, {"se", w.SE[i]}, {"ci_low", w.CILow[i]}, {"ci_high", w.CIHigh[i]}, {"p", w.P[i]},
				{"pi_low", w.PILow[i]}, {"pi_high", w.PIHigh[i]}, {"tau2", w.Tau2}} {
				near(t, c.key+" "+g+" "+f.name, s[f.name], f.want, tol)
			}
			if s["Q"] != nil || s["I2"] != nil {
				t.Errorf("%s %s: a subgroup of the common model has Q %v, I2 %v", c.key, g, s["Q"], s["I2"])
			}
		}
		near(t, c.key+" Q_between", doc["Q_between"], w.QM, tol)
		near(t, c.key+" p_between", doc["p_between"], w.PQM, tol)
		if df := doc["df_between"]; df != w.DFQM[0] {
			t.Errorf("%s: df_between %v, metafor %v", c.key, df, w.DFQM[0])
		}
		if df2, _ := w.DFQM[1].(float64); doc["df_between_denominator"] != w.DFQM[1] && (df2 != 0 || doc["df_between_denominator"] != nil) {
			t.Errorf("%s: df_between_denominator %v, metafor %v", c.key, doc["df_between_denominator"], w.DFQM[1])
		}
		within, _ := doc["within"].(map[string]any)
		if within == nil {
			t.Fatalf("%s: no within", c.key)
		}
		near(t, c.key+" QE", within["QE"], w.QE, tol)
		near(t, c.key+" p_QE", within["p_QE"], w.PQE, tol)
		if within["df_QE"] != float64(w.DFQE) {
			t.Errorf("%s: df_QE %v, metafor %d", c.key, within["df_QE"], w.DFQE)
		}
		if csv := readFile(t, site, "data/m-subgroups.csv"); !strings.Contains(csv, "subgroup,Q_between,df,p_between,df_denominator,tau2,QE,df_QE,p_QE") {
			t.Errorf("%s: m-subgroups.csv:\n%s", c.key, csv)
		}
	}
}

// subgroup names a summary column; subgroup_tau2 = "separate" (the
// default) fits each subgroup on its own, as metafor's rma(subset = …),
// with τ² estimated (DL) or fixed at 0.04 in each.
func TestMetaSubgroupColumnBuild(t *testing.T) {
	t.Parallel()
	var all map[string]json.RawMessage
	metaExpected(t, "subgroups", &all)
	want := map[string]map[string]map[string]float64{}
	for key, keys := range map[string]string{"bcg_separate": "", "bcg_separate_fixed": "tau2 = 0.04\n"} {
		var w map[string]map[string]float64
		if err := json.Unmarshal(all[key], &w); err != nil {
			t.Fatal(err)
		}
		want[key] = w
		site := mustBuild(t, metaSummaryStudy(t, "bcg.csv", "measure = \"RR\"\nsubgroup = \"alloc\"\n"+keys))
		doc := readJSON(t, site, "data/m.json")
		subs, _ := doc["subgroups"].(map[string]any)
		if len(subs) != len(want[key]) || doc["within"] != nil {
			t.Fatalf("%s: subgroups %v, within %v", key, subs, doc["within"])
		}
		for g, w := range want[key] {
			s, _ := subs[g].(map[string]any)
			for f, v := range w {
				near(t, key+" "+g+" "+f, s[f], v, 1e-9)
			}
		}
	}
}

// subgroup_tau2 without a subgroup, or with one subgroup, is an error at
// its line.
func TestMetaSubgroupErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, keys, want string }{
		{"without a subgroup", "measure = \"RR\"\nsubgroup_tau2 = \"common\"\n", "study.toml:8: analyses (m): subgroup_tau2: says how the subgroups"},
		{"an unknown value", "measure = \"RR\"\nsubgroup = \"alloc\"\nsubgroup_tau2 = \"shared\"\n", "study.toml:9: analyses (m): subgroup_tau2: "},
		{"no such column or attribute", "measure = \"RR\"\nsubgroup = \"allocation\"\n", `subgroup: no dataset has the attribute "allocation" (the summary file has no column of that name either`},
	} {
		_, err := buildStudy(t, metaSummaryStudy(t, "bcg.csv", c.keys))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
