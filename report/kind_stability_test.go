package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
)

// stabilityStudy writes a small study (8 datasets × 5 methods, rmse lower
// is better with a bound) into a temporary directory and parses it.
func stabilityStudy(t *testing.T, analysis string) *manifest.Study {
	t.Helper()
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("dataset,method,metric,value\n")
	for d := 0; d < 8; d++ {
		for m := 0; m < 5; m++ {
			v := 0.6 + float64((d*7+m*13)%17)/40
			fmt.Fprintf(&csv, "ds%d,meth%d,rmse,%g\n", d, m, v)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "results.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	manifestPath := `title = "t"
seed = 42
[[metrics]]
name = "rmse"
better = "lower"
max = 1.0
[inputs]
results = ["results.csv"]
` + analysis
	file := filepath.Join(dir, "study.toml")
	if err := os.WriteFile(file, []byte(manifestPath), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := manifest.LoadStudy(file, kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type stabilitySteps struct {
	mu    sync.Mutex
	steps map[string]int
}

func (p *stabilitySteps) Step(label string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if done > p.steps[label] {
		p.steps[label] = done
	}
}

func runStabilityKind(t *testing.T, s *manifest.Study, jobs int, progress kinds.Progress) *kinds.Output {
	t.Helper()
	a := s.Analyses[0]
	ctx := &kinds.Job{ID: a.ID, Title: a.Title, Study: s, Seed: kinds.DeriveSeed(s.Seed, a.ID), Workers: jobs,
		Inputs: newInputs(s), ProgressTo: progress}
	out, err := kinds.Kinds()[a.Type].Run(ctx, a.Options)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStabilityKind: the kind decodes its options, reads the study's
// results with the metric's direction and bound, reports progress, and
// gives the same JSON for 1 and 4 workers; tables follow the README's
// contract.
func TestStabilityKind(t *testing.T) {
	t.Parallel()
	s := stabilityStudy(t, `[[analyses]]
id = "stab"
type = "stability"
title = "Stability"
metric = "rmse"
repeats = 10
subset_sizes = [2, 3]
`)
	steps := &stabilitySteps{steps: map[string]int{}}
	out := runStabilityKind(t, s, 1, steps)
	r, ok := out.Result.(*leaderboard.StabilityResult)
	if !ok {
		t.Fatalf("result is %T", out.Result)
	}
	if r.HigherIsBetter || r.Metric != "rmse" || len(r.Datasets) != 8 || len(r.Methods) != 5 {
		t.Errorf("matrix: %s higher=%v %d×%d", r.Metric, r.HigherIsBetter, len(r.Datasets), len(r.Methods))
	}
	if steps.steps["stability: drop_datasets"] == 0 || steps.steps["stability: beta"] != 86 {
		t.Errorf("progress: %v", steps.steps)
	}
	other := runStabilityKind(t, s, 4, nil)
	a, _ := json.Marshal(out.Result)
	b, _ := json.Marshal(other.Result)
	if string(a) != string(b) {
		t.Error("jobs = 4 gives a different result from jobs = 1")
	}
	tables := r.Tables()
	if tables[1].ID("stab") != "stab-curves" {
		t.Errorf("curves table id %q", tables[1].ID("stab"))
	}
	if got := strings.Join(tables[1].Columns[:6], ","); got != "perturbation,rule,size,mean_rho,sd_rho,count" {
		t.Errorf("curves columns %s", got)
	}
	if len(tables[0].Rows) != len(leaderboard.AllRules) || tables[0].Columns[0] != "rule" {
		t.Errorf("main table: %v, %d rows", tables[0].Columns, len(tables[0].Rows))
	}
	if len(out.Figures) != 6 || out.Figures[0].ID != "stab-drop-datasets" || out.Method == "" {
		t.Errorf("%d figures, first %q", len(out.Figures), out.Figures[0].ID)
	}
	// The metric's direction and bound reach the analysis: the same matrix
	// run directly with rmse lower-is-better and max 1 gives the same
	// result, and without the bound a different one (copies with α > 1 of
	// values above 0.87 are capped at 1).
	res, err := newInputs(s).Results()
	if err != nil {
		t.Fatal(err)
	}
	o := *s.Analyses[0].Options.(*leaderboard.StabilityOptions)
	direct := func(max float64) string {
		m := analyses.Metric{Name: "rmse", Better: analyses.LowerIsBetter, Max: max}
		d, err := leaderboard.Stability(leaderboard.StabilityInput{Metric: m, Datasets: res.Datasets, Methods: res.Methods,
			Q: res.Matrix("rmse", res.Datasets, res.Methods), Seed: kinds.DeriveSeed(s.Seed, "stab"), Jobs: 2}, o)
		if err != nil {
			t.Fatal(err)
		}
		j, _ := json.Marshal(d)
		return string(j)
	}
	if direct(1) != string(a) {
		t.Error("the kind's result differs from the analysis run on the same matrix")
	}
	if direct(math.Inf(1)) == string(a) {
		t.Error("the metric's max has no effect")
	}
	for _, tb := range tables {
		for _, row := range tb.Rows {
			for _, v := range row {
				if f, ok := v.(float64); ok && !analyses.Finite(f) {
					t.Fatalf("table %s has a non-finite cell: %v", tb.Name, row)
				}
			}
		}
	}
}

// TestStabilityKindOptions: unknown keys and bad values are manifest
// errors with the analysis's line.
func TestStabilityKindOptions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ body, want string }{
		{"metric = \"rmse\"\nrepeat = 10\n", "repeat"},
		{"metric = \"rmse\"\nperturbations = [\"drop_dataset\"]\n", `did you mean "drop_datasets"`},
		{"metric = \"rmse\"\nbetas = [0.5]\n", "betas"},
	} {
		dir := t.TempDir()
		src := "title = \"t\"\n[[analyses]]\nid = \"s\"\ntype = \"stability\"\n" + c.body
		_, err := manifest.ParseStudy(filepath.Join(dir, "study.toml"), []byte(src), kinds.Kinds())
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "study.toml:") {
			t.Errorf("%q: got %v, want an error with line and %q", c.body, err, c.want)
		}
	}
}

// stabilityArchive is a small study: 7 datasets × 5 methods of nDCG with
// a bound, and a stability analysis with few repeats.
func stabilityArchive() string {
	var b strings.Builder
	b.WriteString(`
-- study.toml --
title = "Stability end to end"
seed = 7
[[metrics]]
name = "ndcg"
max = 1.0
[inputs]
results = "results.csv"
[[analyses]]
id = "stab"
type = "stability"
title = "Stability of the leaderboard"
metric = "ndcg"
repeats = 12
subset_sizes = [2, 3]
-- results.csv --
dataset,method,metric,value
`)
	for d := 0; d < 7; d++ {
		for m := 0; m < 5; m++ {
			fmt.Fprintf(&b, "ds%d,m%d,ndcg,%g\n", d, m, 0.05+float64((d*11+m*7)%13)/30)
		}
	}
	return b.String()
}

// TestStabilityBuild: a study with a stability analysis builds; the site
// has the page, the JSON with its contracted keys, the -curves CSV with
// the columns the README lists, one SVG per perturbation; two builds with
// different --jobs are byte-identical.
func TestStabilityBuild(t *testing.T) {
	t.Parallel()
	one := mustBuild(t, stabilityArchive(), func(o *Options) { o.Jobs = 1 })
	four := mustBuild(t, stabilityArchive(), func(o *Options) { o.Jobs = 4 })
	j := readJSON(t, one, "data/stab.json")
	if j["type"] != "stability" {
		t.Errorf("type %v", j["type"])
	}
	tables, _ := j["tables"].(map[string]any)
	if _, ok := tables["stab-curves"]; !ok {
		t.Errorf("no curves table in JSON: %v", analyses.SortedKeys(tables))
	}
	csv := readFile(t, one, "data/stab-curves.csv")
	if !strings.HasPrefix(csv, "perturbation,rule,size,mean_rho,sd_rho,count") {
		t.Errorf("curves CSV header: %q", strings.SplitN(csv, "\n", 2)[0])
	}
	if strings.Contains(csv, "NaN") {
		t.Error("NaN in the curves CSV")
	}
	for _, p := range leaderboard.AllPerturbations {
		name := "figures/stab-" + strings.ReplaceAll(p, "_", "-") + ".svg"
		if s := readFile(t, one, name); !strings.Contains(s, "<svg") {
			t.Errorf("%s is not an SVG", name)
		}
	}
	page := readFile(t, one, "stab.html")
	if !strings.Contains(page, "Spearman") || !strings.Contains(page, "rho_subsets_2") {
		t.Error("page lacks the method note or the summary table")
	}
	for _, f := range []string{"data/stab.json", "data/stab-curves.csv", "data/stab.csv", "figures/stab-drop-datasets.svg", "stab.html"} {
		if readFile(t, one, f) != readFile(t, four, f) {
			t.Errorf("%s differs between --jobs 1 and 4", f)
		}
	}
}
