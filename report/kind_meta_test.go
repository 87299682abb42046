package report

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/meta"
)

// metaStudy is a small study: three datasets in two domains, per-user
// files per (method, dataset) without unit ids (paired by row), CRLF, an
// empty cell in one file.
var metaStudy = studyFixture("meta")

// metaDirect computes the same analysis straight from the values, to
// check the report's streaming and pairing.
func metaDirect(t *testing.T, col int, o meta.Options, m analyses.Metric, groups map[string]string) *meta.Result {
	t.Helper()
	a := ParseArchive([]byte(metaStudy))
	b := meta.NewBuilder(o.Treatment, o.Control, o.Missing)
	for _, d := range []string{"ml", "ft", "toys"} {
		for _, meth := range []string{"MF-bias", "MF"} {
			for _, f := range a.Files {
				if f.Name != "runs/"+meth+"_"+d+".csv" {
					continue
				}
				lines := strings.Split(strings.TrimSpace(string(f.Data)), "\n")[1:]
				for i, l := range lines {
					cell := strings.Split(l, ",")[col]
					v := math.NaN()
					if cell != "" {
						v = mustFloat(t, cell)
					}
					b.Add(d, meth, "", int64(i), v)
				}
			}
		}
	}
	r, err := meta.Analyze(meta.Input{Metric: m, Studies: b.Finish(), Groups: groups}, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	var v float64
	if _, err := fmtSscan(s, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMetaKindEndToEnd(t *testing.T) {
	t.Parallel()
	dir := mustBuild(t, strings.ReplaceAll(metaStudy, "\n", "\r\n"))
	js := readJSON(t, dir, "data/bias-ndcg.json")
	sum, ok := js["summary"].(map[string]any)
	if !ok {
		t.Fatalf("no summary in %v", js)
	}
	for _, k := range []string{"effect", "se", "ci_low", "ci_high", "p", "tau2", "Q", "df", "p_Q", "I2", "H2", "pi_low", "pi_high"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("summary lacks %q", k)
		}
	}
	subs, _ := js["subgroups"].(map[string]any)
	if len(subs) != 2 || js["Q_between"] == nil || js["p_between"] == nil {
		t.Errorf("subgroups %v, Q_between %v", subs, js["Q_between"])
	}
	var o meta.Options
	o.Defaults()
	o.Treatment, o.Control, o.Metric, o.Missing, o.Subgroup = "MF-bias", "MF", "ndcg", "zero", "domain"
	want := metaDirect(t, 1, o, analyses.Metric{Name: "ndcg"}, map[string]string{"ml": "movies", "ft": "movies", "toys": "retail"})
	if got := sum["effect"].(float64); got != *want.Summary.Effect {
		t.Errorf("summary effect %v, direct %v", got, *want.Summary.Effect)
	}
	csv := readFile(t, dir, "data/bias-ndcg.csv")
	if !strings.HasPrefix(csv, "dataset,n,effect,variance,se,ci_low,ci_high,p,weight\n") || !strings.Contains(csv, "\nsummary,12,") {
		t.Errorf("table CSV:\n%s", csv)
	}
	if _, err := os.Stat(filepath.Join(dir, "figures", "bias-ndcg.svg")); err != nil {
		t.Error(err)
	}
	if svg := readFile(t, dir, "figures/bias-ndcg.svg"); !strings.Contains(svg, "favours MF-bias") || !strings.Contains(svg, "Summary of retail") {
		t.Error("forest plot lacks the favours labels or the subgroup blocks")
	}
	page := readFile(t, dir, "bias-ndcg.html")
	for _, w := range []string{"Test of subgroup differences", "prediction interval"} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}

	// RMSE is lower-is-better: MF-bias, with lower errors, is favoured on
	// the left, and the REML fit matches the direct computation.
	js = readJSON(t, dir, "data/bias-rmse.json")
	o.Metric, o.Effect, o.Tau2, o.Missing, o.Subgroup = "rmse", "hedges_g", "REML", "drop", ""
	want = metaDirect(t, 0, o, analyses.Metric{Name: "rmse", Better: analyses.LowerIsBetter}, nil)
	sum = js["summary"].(map[string]any)
	if got := sum["effect"].(float64); got != *want.Summary.Effect || js["better"] != "lower" {
		t.Errorf("rmse summary %v (better %v), direct %v", got, js["better"], *want.Summary.Effect)
	}
}

// TestMetaKindSummaryFile reads per-dataset rows instead of units.
func TestMetaKindSummaryFile(t *testing.T) {
	t.Parallel()
	dir := mustBuild(t, `
-- study.toml --
title = "s"
[[analyses]]
id = "m"
type = "meta_analysis"
title = "from summaries"
treatment = "new"
control = "old"
effect = "smd"
summary = "summary.csv"
better = "higher"
-- summary.csv --
dataset,n,mean_diff,sd_diff,r
a,100,0.5,2,0.6
b,50,0.2,1.5,0.4
c,1000000000,0.1,1,0.5
`)
	js := readJSON(t, dir, "data/m.json")
	tables := js["tables"].(map[string]any)
	rows := tables["m"].([]any)
	first := rows[0].(map[string]any)
	// d = D/(S/√(2(1−r))), by hand for row a: 0.5/(2/√0.8).
	if d := first["effect"].(float64); math.Abs(d-0.5/(2/math.Sqrt(0.8))) > 1e-15 {
		t.Errorf("effect of a = %v", d)
	}
}

func TestMetaKindErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ edit, want string }{
		{`control = "MF"`, `did you mean "MF"`},             // treatment "MFF" below
		{`metric = "ndcg"`, `no per-unit values of "ndgc"`}, // metric misspelled
		{`effect = "smdd"`, `did you mean "smd"`},           // at manifest load
		{`subgroup = "domain"`, `no dataset has the attribute "colour"`},
	} {
		s := metaStudy
		switch c.want {
		case `did you mean "MF"`:
			s = strings.Replace(s, `treatment = "MF-bias"`, `treatment = "MFF"`, 1)
		case `no per-unit values of "ndgc"`:
			s = strings.Replace(s, `metric = "ndcg"`, `metric = "ndgc"`, 1)
		case `did you mean "smd"`:
			s = strings.Replace(s, `effect = "hedges_g"`, `effect = "smdd"`, 1)
		default:
			s = strings.Replace(s, `subgroup = "domain"`, `subgroup = "colour"`, 1)
		}
		_, err := buildStudy(t, s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

func fmtSscan(s string, v *float64) (int, error) { return fmt.Sscan(s, v) }

// TestMetaKindSertkan2023 builds the case studies of Sertkan et al. 2023
// from the published per-user runs (../shared/reference/sertkan2023,
// skipped when absent) through the whole pipeline: files per (method,
// dataset), CRLF, empty NDCG@10 as 0, pairing by row, ranger_compat = true.
// The expected values are the published numbers of the paper's notebook
// (Figures 1 and 2, combined effect, 6 decimals);
// analyses/meta_reference_test.go checks every row and Figures 3–5.
func TestMetaKindSertkan2023(t *testing.T) {
	t.Parallel()
	runs, err := filepath.Abs("../../shared/reference/sertkan2023/runs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(runs); err != nil {
		skipWithoutReference(t, err)
	}
	dir := t.TempDir()
	if err := os.Symlink(runs, filepath.Join(dir, "runs")); err != nil {
		t.Skip("no symlinks:", err)
	}
	study := `title = "Sertkan et al. 2023"
allow_outside = true
datasets = []
[[metrics]]
name = "RMSE"
better = "lower"
[inputs]
units = [{ path = "runs/{method}_{dataset}.csv", missing = "zero" }]
[[analyses]]
id = "fig1"
type = "meta_analysis"
title = "MF-bias vs MF, RMSE"
treatment = "MF-bias"
control = "MF"
metric = "RMSE"
effect = "hedges_g"
ranger_compat = true
datasets = ["amazon-clothing", "amazon-digital-music", "amazon-office", "amazon-toy", "filmtrust", "movielens-10M", "netflix-small"]
[[analyses]]
id = "fig2"
type = "meta_analysis"
title = "MF-bias vs MF, NDCG@10"
treatment = "MF-bias"
control = "MF"
metric = "NDCG@10"
ranger_compat = true
`
	study = strings.Replace(study, "datasets = []\n", "", 1)
	os.WriteFile(filepath.Join(dir, "study.toml"), []byte(study), 0o644)
	sum, err := Build(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml"), Format: "html", Version: "test", Command: "evalbook build"})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string][3]float64{
		"fig1": {-0.587187, -0.727401, -0.446973},
		"fig2": {-0.010064, -0.013651, -0.006477},
	} {
		s := readJSON(t, sum.Out, "data/"+id+".json")["summary"].(map[string]any)
		got := [3]float64{s["effect"].(float64), s["ci_low"].(float64), s["ci_high"].(float64)}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 5.01e-7 {
				t.Errorf("%s: summary %v, published %v", id, got, want)
				break
			}
		}
	}
}
