package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// End to end: a study whose only input is ranked runs and truth builds a
// page with the per-run table (the `results` shape), the per-user summary,
// the per-user data file and both figures.
func TestOfflineMetricsBuild(t *testing.T) {
	t.Parallel()
	dir := mustBuild(t, `
-- study.toml --
title = "Offline"
[[analyses]]
id = "om"
type = "offline_metrics"
runs = "runs/{method}_{dataset}.csv"
truth = "truth/{dataset}.csv"
predictions = "preds/{method}_{dataset}.csv"
k = [1, 3]
half_life = 2
-- truth/books.csv --
user,item,relevance
u1,a,1
u1,b,1
u1,c,1
u2,d,2
u3,e,0
-- runs/pop_books.csv --
user,item,rank
u1,x,1
u1,a,2
u1,b,3
u2,d,1
u3,e,1
-- runs/rand_books.csv --
user,item,rank,score
u1,c,1,0.9
u2,y,1,0.8
-- preds/pop_books.csv --
user,item,prediction
u1,a,2
u1,b,1
u2,d,2.5
`)
	var js struct {
		Tables map[string][]map[string]any `json:"tables"`
		Runs   []struct {
			Method    string `json:"method"`
			Evaluated int    `json:"users_evaluated"`
			Missing   int    `json:"users_missing"`
		} `json:"runs"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(readFile(t, dir, "data/om.json")), &js); err != nil {
		t.Fatal(err)
	}
	get := func(method, metric string) any {
		for _, r := range js.Tables["om"] {
			if r["method"] == method && r["metric"] == metric {
				return r["value"]
			}
		}
		t.Fatalf("no row %s %s in %v", method, metric, js.Tables["om"])
		return nil
	}
	// pop: u1 hits at 2, 3 of |T| = 3; u2 hit at 1 of 1; u3 has no
	// relevant item (skipped). map@3 = ((1/2 + 2/3)/3 + 1)/2.
	if got, want := get("pop", "map@3").(float64), ((0.5+2.0/3)/3+1)/2; math.Abs(got-want) > 1e-15 {
		t.Errorf("pop map@3 = %v, want %v", got, want)
	}
	// rand: u1 hit at 1; u2 no hit; precision@1 = 1/2.
	if got := get("rand", "precision@1").(float64); got != 0.5 {
		t.Errorf("rand precision@1 = %v, want 0.5", got)
	}
	// pop's pooled rmse over 3 predictions: errors 1, 0, 0.5.
	if got, want := get("pop", "rmse").(float64), math.Sqrt(1.25/3); math.Abs(got-want) > 1e-15 {
		t.Errorf("pop rmse = %v, want %v", got, want)
	}
	for _, r := range js.Tables["om"] {
		if r["method"] == "rand" && (r["metric"] == "rmse" || r["metric"] == "mae") {
			t.Errorf("rand has no predictions but a row %v", r)
		}
	}
	if len(js.Tables["om-users"]) == 0 || len(js.Tables["om-lists"]) != 2 {
		t.Errorf("users/lists tables: %d/%d rows", len(js.Tables["om-users"]), len(js.Tables["om-lists"]))
	}
	if !strings.Contains(strings.Join(js.Warnings, "\n"), `dataset "books", method "pop": 1 user(s) of the truth have no item with relevance ≥ 1`) {
		t.Errorf("warnings: %q", js.Warnings)
	}
	csv := readFile(t, dir, "data/om.csv")
	if !strings.HasPrefix(csv, "dataset,method,metric,value\n") {
		t.Errorf("main table CSV starts %q", csv[:min(60, len(csv))])
	}
	page := readFile(t, dir, "om.html")
	for _, want := range []string{"nDCG@k against the cutoff", "Coverage@k against the cutoff", "trec_eval"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// A malformed run fails the build with the file and line.
func TestOfflineMetricsBuildError(t *testing.T) {
	t.Parallel()
	_, err := buildStudy(t, `
-- study.toml --
title = "Offline"
[[analyses]]
id = "om"
type = "offline_metrics"
runs = "runs/{method}.csv"
truth = "truth.csv"
-- truth.csv --
user,item
u1,a
-- runs/m.csv --
user,item,rank
u1,a,1
u1,b,3
`)
	if err == nil || !strings.Contains(err.Error(), `runs/m.csv:3: user "u1": rank gap: rank 3 follows rank 1`) {
		t.Fatalf("error %v", err)
	}
}
