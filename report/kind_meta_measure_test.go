package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// metaMeasureExpected is testdata/meta-measure/expected.json (gen.R,
// metafor 3.8): rma(method = "DL") over escalc's effects and predict()
// back-transformed.
type metaMeasureExpected struct {
	Het                             map[string][3]float64 // estimate, lower and upper bound of tau2, I2, H2 (confint)
	Effect, CILow, CIHigh, Tau2, I2 float64
	Natural                         struct{ Effect, CILow, CIHigh, PILow, PIHigh float64 }
}

func (e *metaMeasureExpected) UnmarshalJSON(b []byte) error {
	var m struct {
		Het     map[string][3]float64 `json:"het"`
		Effect  float64               `json:"effect"`
		CILow   float64               `json:"ci_low"`
		CIHigh  float64               `json:"ci_high"`
		Tau2    float64               `json:"tau2"`
		I2      float64               `json:"I2"`
		Natural struct {
			Effect float64 `json:"effect"`
			CILow  float64 `json:"ci_low"`
			CIHigh float64 `json:"ci_high"`
			PILow  float64 `json:"pi_low"`
			PIHigh float64 `json:"pi_high"`
		} `json:"natural"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	e.Het = m.Het
	e.Effect, e.CILow, e.CIHigh, e.Tau2, e.I2 = m.Effect, m.CILow, m.CIHigh, m.Tau2, m.I2
	e.Natural.Effect, e.Natural.CILow, e.Natural.CIHigh, e.Natural.PILow, e.Natural.PIHigh = m.Natural.Effect, m.Natural.CILow, m.Natural.CIHigh, m.Natural.PILow, m.Natural.PIHigh
	return nil
}

// A meta_analysis over the numbers papers print: dat.bcg's 2×2 tables
// with measure = "RR" and dat.pritz1997's proportions with measure =
// "PFT", built from the summary file alone, give metafor's summary,
// τ², I² and the summary back-transformed to the risk ratio and the
// proportion (PFT with the harmonic mean of the sizes), and the Q-profile
// intervals of τ², I² and H² as confint(rma), to 1e-9.
func TestMetaMeasureBuild(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "meta-measure")
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]metaMeasureExpected
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ key, measure, file, scale string }{{"rr", "RR", "bcg.csv", "risk ratio"}, {"pft", "PFT", "pritz.csv", "proportion"}} {
		data, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		site := mustBuild(t, "-- study.toml --\ntitle = \"m\"\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\nsummary = \"s.csv\"\nmeasure = \""+c.measure+"\"\nbetter = \"lower\"\n-- s.csv --\n"+string(data))
		doc := readJSON(t, site, "data/m.json")
		w := want[c.key]
		sum := doc["summary"].(map[string]any)
		nat, _ := doc["natural"].(map[string]any)
		if nat == nil || doc["measure"] != c.measure || nat["scale"] != c.scale {
			t.Fatalf("%s: measure %v, natural %v", c.measure, doc["measure"], doc["natural"])
		}
		for _, v := range []struct {
			name      string
			got, want any
		}{
			{"effect", sum["effect"], w.Effect}, {"ci_low", sum["ci_low"], w.CILow}, {"ci_high", sum["ci_high"], w.CIHigh},
			{"tau2", sum["tau2"], w.Tau2}, {"I2", sum["I2"], w.I2},
			{"natural effect", nat["effect"], w.Natural.Effect}, {"natural ci_low", nat["ci_low"], w.Natural.CILow},
			{"natural ci_high", nat["ci_high"], w.Natural.CIHigh}, {"natural pi_low", nat["pi_low"], w.Natural.PILow},
			{"natural pi_high", nat["pi_high"], w.Natural.PIHigh},
			{"tau2_ci_low", sum["tau2_ci_low"], w.Het["tau2"][1]}, {"tau2_ci_high", sum["tau2_ci_high"], w.Het["tau2"][2]},
			{"I2_ci_low", sum["I2_ci_low"], w.Het["I2"][1]}, {"I2_ci_high", sum["I2_ci_high"], w.Het["I2"][2]},
			{"H2_ci_low", sum["H2_ci_low"], w.Het["H2"][1]}, {"H2_ci_high", sum["H2_ci_high"], w.Het["H2"][2]},
		} {
			g, ok := v.got.(float64)
			wf := v.want.(float64)
			if !ok || math.Abs(g-wf) > 1e-9*math.Max(1, math.Abs(wf)) {
				t.Errorf("%s %s: %v, metafor %v", c.measure, v.name, v.got, wf)
			}
		}
		page := readFile(t, site, "m.html")
		if !strings.Contains(page, "back-transformed to the "+c.scale) {
			t.Errorf("%s: the page has no table of the summary on the %s scale", c.measure, c.scale)
		}
	}
}

// A bad summary of counts, or a measure's keys where they do not apply,
// is an error naming the file and line, or the key's line.
func TestMetaMeasureErrors(t *testing.T) {
	t.Parallel()
	head := "-- study.toml --\ntitle = \"m\"\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\nsummary = \"s.csv\"\nbetter = \"lower\"\n"
	for _, c := range []struct{ name, archive, want string }{
		{"a negative count", head + "measure = \"OR\"\n-- s.csv --\ndataset,ai,bi,ci,di\na,1,2,3,4\nb,-1,2,3,4\n", "s.csv:3: OR of b: "},
		{"events above the group", head + "measure = \"RR\"\n-- s.csv --\ndataset,ai,n1i,ci,n2i\na,1,10,3,10\nb,12,10,3,10\n", "s.csv:3: RR of b: "},
		{"a missing column", head + "measure = \"PLO\"\n-- s.csv --\ndataset,xi\na,1\n", `no column "ni"`},
		{"an empty cell", head + "measure = \"COR\"\n-- s.csv --\ndataset,ri,ni\na,0.5,\n", "s.csv:2:7: ni of a is empty (measure COR needs ri, ni)"},
		{"r outside [-1, 1]", head + "measure = \"ZCOR\"\n-- s.csv --\ndataset,ri,ni\na,0.5,20\nb,1.5,20\n", "s.csv:3: ZCOR of b: "},
		{"an unknown measure", head + "measure = \"ORR\"\n-- s.csv --\ndataset,ai,bi,ci,di\na,1,2,3,4\n", `study.toml:7: analyses (m): measure: unknown measure "ORR" (did you mean "OR"?)`},
		{"add for a correlation", head + "measure = \"COR\"\nadd = 1\n-- s.csv --\ndataset,ri,ni\na,0.5,20\n", "study.toml:8: analyses (m): add: a correlation has no zero cells"},
		{"to without a measure", head + "to = \"all\"\n-- s.csv --\ndataset,yi,vi\na,0.5,0.1\n", "study.toml:7: analyses (m): to: applies to the counts"},
		{"a moderator no dataset has", head + "measure = \"OR\"\nmods = [\"lat\"]\n-- s.csv --\ndataset,ai,bi,ci,di\na,1,2,3,4\nb,2,2,3,4\nc,3,2,3,4\n", `mods: moderator "lat" has no value for dataset a`},
		{"a categorical moderator of one level", head + "measure = \"OR\"\nmods = [\"kind\"]\n-- s.csv --\ndataset,ai,bi,ci,di,kind\na,1,2,3,4,x\nb,2,2,3,4,x\nc,3,2,3,4,x\n", "mods: "},
		{"drop00 for proportions", head + "measure = \"PR\"\ndrop00 = true\n-- s.csv --\ndataset,xi,ni\na,1,20\n", "study.toml:8: analyses (m): drop00: applies to 2×2 tables"},
	} {
		_, err := buildStudy(t, c.archive)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// With sensitivity = true, the dat.bcg analysis (RR, DL) gives metafor's
// trimfill() (side, k0, adjusted summary), ranktest() and fsn()
// (Rosenthal, Orwin, Rosenberg), in the JSON and the table
// <id>-publication-bias.
func TestMetaPublicationBiasBuild(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "meta-measure")
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		RR struct {
			PubBias map[string]any `json:"pubbias"`
		} `json:"rr"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "bcg.csv"))
	if err != nil {
		t.Fatal(err)
	}
	site := mustBuild(t, "-- study.toml --\ntitle = \"m\"\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\nsummary = \"s.csv\"\nmeasure = \"RR\"\nbetter = \"lower\"\nsensitivity = true\n-- s.csv --\n"+string(data))
	doc := readJSON(t, site, "data/m.json")
	pb, _ := doc["publication_bias"].(map[string]any)
	if pb == nil {
		t.Fatalf("no publication_bias in the JSON: %v", doc["publication_bias"])
	}
	tf, _ := pb["trimfill"].(map[string]any)
	w := want.RR.PubBias
	if tf == nil || tf["side"] != w["side"] || tf["k0"] != w["k0"] {
		t.Fatalf("trim and fill %v, metafor side %v k0 %v", tf, w["side"], w["k0"])
	}
	for _, c := range []struct {
		name string
		got  any
	}{
		{"effect", tf["effect"]}, {"ci_low", tf["ci_low"]}, {"ci_high", tf["ci_high"]},
		{"ranktest_tau", pb["ranktest_tau"]}, {"ranktest_p", pb["ranktest_p"]},
		{"fsn_rosenthal", pb["fsn_rosenthal"]}, {"fsn_orwin", pb["fsn_orwin"]}, {"fsn_rosenberg", pb["fsn_rosenberg"]},
	} {
		g, ok := c.got.(float64)
		wf := w[c.name].(float64)
		if !ok || math.Abs(g-wf) > 1e-9*math.Max(1, math.Abs(wf)) {
			t.Errorf("%s: %v, metafor %v", c.name, c.got, wf)
		}
	}
	csv := readFile(t, site, "data/m-publication-bias.csv")
	if !strings.Contains(csv, "trimfill_k0,1") || strings.Contains(csv, "trimfill_side") {
		t.Errorf("m-publication-bias.csv:\n%s", csv)
	}
	// Egger's regression test, which the funnel plot's caption quotes, is
	// in the table too: its rows are the JSON's egger, and the caption
	// quotes the statistic as the table prints it.
	egger, _ := doc["egger"].(map[string]any)
	rows := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(csv), "\n")[1:] {
		q, v, _ := strings.Cut(line, ",")
		rows[q] = v
	}
	for q, key := range map[string]string{"egger_z": "z", "egger_p": "p", "egger_limit": "limit_estimate", "egger_limit_ci_low": "limit_ci_low", "egger_limit_ci_high": "limit_ci_high"} {
		v, err := strconv.ParseFloat(rows[q], 64)
		if want, ok := egger[key].(float64); !ok || err != nil || v != want {
			t.Errorf("%s: %q in the table, %v in the JSON's egger", q, rows[q], egger[key])
		}
	}
	page := readFile(t, site, "m.html")
	z, _ := strconv.ParseFloat(rows["egger_z"], 64)
	if shown := analyses.ValueText(z); !strings.Contains(page, "Egger&#39;s test: z</td><td class=\"num\" data-v=\""+rows["egger_z"]+"\" title=\""+rows["egger_z"]+"\">"+shown+"</td>") ||
		!strings.Contains(page, "standard error (z = "+shown+", ") {
		t.Errorf("Egger's z %s: not printed as %s in both the table and the funnel caption", rows["egger_z"], shown)
	}
}

// mods = […] fits metafor's rma(yi, vi, mods = ~ …) over the summary's
// columns: dat.bcg's RR on ablat, on ablat + year and on the categorical
// alloc (treatment coding, R's level names), to 1e-9: coefficients,
// QM, QE, τ²res and R².
func TestMetaModeratorsBuild(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "meta-measure")
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		RR struct {
			Mods map[string]map[string]any `json:"mods"`
		} `json:"rr"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "bcg.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for key, mods := range map[string]string{"ablat": `["ablat"]`, "ablat_year": `["ablat", "year"]`, "alloc": `["alloc"]`} {
		site := mustBuild(t, "-- study.toml --\ntitle = \"m\"\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\nsummary = \"s.csv\"\nmeasure = \"RR\"\nbetter = \"lower\"\nmods = "+mods+"\n-- s.csv --\n"+string(data))
		doc := readJSON(t, site, "data/m.json")
		got, _ := doc["moderators"].(map[string]any)
		w := want.RR.Mods[key]
		if got == nil {
			t.Fatalf("%s: no moderators in the JSON", key)
		}
		terms, _ := got["terms"].([]any)
		wterms := w["terms"].([]any)
		if len(terms) != len(wterms) {
			t.Fatalf("%s: %d terms, metafor %d", key, len(terms), len(wterms))
		}
		near := func(what string, g any, wf float64) {
			if x, ok := g.(float64); !ok || math.Abs(x-wf) > 1e-9*math.Max(1, math.Abs(wf)) {
				t.Errorf("%s %s: %v, metafor %v", key, what, g, wf)
			}
		}
		for i, tm := range terms {
			tm := tm.(map[string]any)
			if tm["term"] != wterms[i] {
				t.Errorf("%s term %d: %v, metafor %v", key, i, tm["term"], wterms[i])
			}
			for _, f := range []string{"estimate", "se", "statistic", "p", "ci_low", "ci_high"} {
				near(fmt.Sprint(wterms[i], " ", f), tm[f], w[f].([]any)[i].(float64))
			}
		}
		for _, f := range []string{"QM", "p_QM", "QE", "p_QE", "tau2_res", "R2"} {
			near(f, got[f], w[f].(float64))
		}
		if !strings.Contains(readFile(t, site, "data/m-moderators.csv"), "term,estimate,se,statistic,p,ci_low,ci_high") {
			t.Errorf("%s: no table m-moderators", key)
		}
	}
}

// TestMetaMeasureInputsAsGiven: a summary of counts, proportions, rates
// or correlations shows each effect's columns as the file gives them,
// then escalc's yi and vi (the inputs table, data/m-inputs.csv), and the
// dataset's size in the main table's n where the measure has one (a 2×2
// table's total, ni; none for person-time).
func TestMetaMeasureInputsAsGiven(t *testing.T) {
	t.Parallel()
	head := "-- study.toml --\ntitle = \"m\"\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\nsummary = \"s.csv\"\nbetter = \"lower\"\n"
	for _, c := range []struct {
		measure, csv string
		n            []string // the main table's n of each dataset, then the summary's
	}{
		{"OR", "dataset,ai,bi,ci,di\na,4,119,11,128\nb,6,300,29,274\nc,3,228,11,209\n", []string{"262", "609", "451", "1322"}},
		{"RR", "dataset,ai,n1i,ci,n2i\na,22,120,38,120\nb,18,150,29,150\nc,36,200,39,200\n", []string{"240", "300", "400", "940"}},
		{"PLO", "dataset,xi,ni\na,12,40\nb,30,70\nc,9,35\n", []string{"40", "70", "35", "145"}},
		{"ZCOR", "dataset,ri,ni\na,0.25,40\nb,0.4,70\nc,0.31,35\n", []string{"40", "70", "35", "145"}},
		{"IRLN", "dataset,xi,ti\na,12,400.5\nb,30,700\nc,9,350\n", []string{"", "", "", ""}},
	} {
		site := mustBuild(t, head+"measure = \""+c.measure+"\"\n-- s.csv --\n"+c.csv)
		file, err := csv.NewReader(strings.NewReader(c.csv)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		in := readCSV(t, site, "data/m-inputs.csv")
		wantHead := append(append([]string{}, file[0]...), "yi", "vi", "included", "note")
		if !slices.Equal(in[0], wantHead) {
			t.Fatalf("%s: inputs columns %q, want %q", c.measure, in[0], wantHead)
		}
		for i, row := range file[1:] {
			for j, v := range row {
				got := in[i+1][j]
				if j == 0 && got != v || j > 0 && parseF(t, got) != parseF(t, v) {
					t.Errorf("%s: inputs row %d column %s = %q, the file gives %q", c.measure, i+1, file[0][j], got, v)
				}
			}
			if yi := parseF(t, in[i+1][len(file[0])]); math.IsNaN(yi) {
				t.Errorf("%s: row %d has no yi", c.measure, i+1)
			}
		}
		main := readCSV(t, site, "data/m.csv")
		nCol := slices.Index(main[0], "n")
		if nCol < 0 {
			t.Fatalf("%s: no n column in %q", c.measure, main[0])
		}
		var got []string
		for _, row := range main[1:] {
			got = append(got, row[nCol])
		}
		if !slices.Equal(got, c.n) {
			t.Errorf("%s: n %q, want %q", c.measure, got, c.n)
		}
	}
}
