package report

import (
	"encoding/json"
	"fmt"
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
	if !strings.Contains(strings.Join(js.Warnings, "\n"), `dataset "books", method "pop": 1 user of the truth has no item with relevance ≥ 1`) {
		t.Errorf("warnings: %q", js.Warnings)
	}
	csv := readFile(t, dir, "data/om.csv")
	if !strings.HasPrefix(csv, "dataset,method,metric,value\n") {
		t.Errorf("main table CSV starts %q", csv[:min(60, len(csv))])
	}
	page := readFile(t, dir, "om.html")
	for _, want := range []string{"nDCG@k of each method at every cutoff k", "Coverage@k of each method at every cutoff k", "trec_eval"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The charts' titles are in their interactive options, which a page
	// has only when the binary has the chart library.
	if haveAsset(echartsAsset) {
		for _, want := range []string{"nDCG@k against the cutoff", "Coverage@k against the cutoff"} {
			if !strings.Contains(page, want) {
				t.Errorf("page lacks %q", want)
			}
		}
	}
	requireAsset(t, echartsAsset)
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

// TestOfflineMetricsFeedOtherAnalyses: the per-run values of an
// offline_metrics analysis are results and its per-user values are units
// for every other analysis, in a study with no results or units files:
// an aggregate leaderboard over ndcg@3 and a meta-analysis over the users'
// ndcg@3, whichever order the manifest lists them in.
func TestOfflineMetricsFeedOtherAnalyses(t *testing.T) {
	t.Parallel()
	var truth, runA, runB strings.Builder
	truth.WriteString("user,item\n")
	runA.WriteString("user,item,rank\n")
	runB.WriteString("user,item,rank\n")
	for u := 0; u < 40; u++ {
		fmt.Fprintf(&truth, "u%d,i%d\nu%d,i%d\n", u, u%7, u, (u+3)%7)
		for r := 1; r <= 3; r++ {
			fmt.Fprintf(&runA, "u%d,i%d,%d\n", u, (u+r-1)%7, r)
			fmt.Fprintf(&runB, "u%d,i%d,%d\n", u, (u*3+r)%7, r)
		}
	}
	files := "-- truth/d1.csv --\n" + truth.String() + "-- truth/d2.csv --\n" + truth.String() +
		"-- runs/A_d1.csv --\n" + runA.String() + "-- runs/B_d1.csv --\n" + runB.String() +
		"-- runs/A_d2.csv --\n" + runB.String() + "-- runs/B_d2.csv --\n" + runA.String()
	dir := mustBuild(t, `-- study.toml --
title = "Derived inputs"

[[analyses]]
id     = "lb"
type   = "aggregate"
metric = "ndcg@3"
rules  = ["mean_rank", "mean"]

[[analyses]]
id        = "effect"
type      = "meta_analysis"
treatment = "A"
control   = "B"
metric    = "ndcg@3"

[[analyses]]
id    = "om"
type  = "offline_metrics"
runs  = "runs/{method}_{dataset}.csv"
truth = "truth/{dataset}.csv"
k     = [3]
`+files)
	om := readJSON(t, dir, "data/om.json")
	want := map[[2]string]float64{}
	for _, row := range om["tables"].(map[string]any)["om"].([]any) {
		r := row.(map[string]any)
		if r["metric"] == "ndcg@3" {
			want[[2]string{r["dataset"].(string), r["method"].(string)}] = r["value"].(float64)
		}
	}
	if len(want) != 4 {
		t.Fatalf("offline ndcg@3 rows: %v", want)
	}
	lb := readJSON(t, dir, "data/lb.json")
	scores := lb["scores"].(map[string]any)["mean"].([]any)
	methods := lb["methods"].([]any)
	for i, m := range methods {
		mean := (want[[2]string{"d1", m.(string)}] + want[[2]string{"d2", m.(string)}]) / 2
		if math.Abs(scores[i].(float64)-mean) > 1e-15 {
			t.Errorf("aggregate mean of %s = %v, want the offline values' mean %v", m, scores[i], mean)
		}
	}
	effect := readJSON(t, dir, "data/effect.json")
	rows := effect["tables"].(map[string]any)["effect"].([]any)
	if len(rows) != 3 { // d1, d2, summary
		t.Fatalf("meta-analysis rows: %v", rows)
	}
	for _, row := range rows[:2] {
		r := row.(map[string]any)
		d := r["dataset"].(string)
		if r["n"].(float64) != 40 || math.Abs(r["effect"].(float64)-(want[[2]string{d, "A"}]-want[[2]string{d, "B"}])) > 1e-12 {
			t.Errorf("meta-analysis row %v does not match the offline per-user values", r)
		}
	}
	if !strings.Contains(readFile(t, dir, "data/om-units.csv"), "dataset,method,unit,metric,value\n") {
		t.Error("per-user values are not written as data/om-units.csv")
	}
}

// TestOfflineMetricsCollision: a derived value that the results files also
// give is an error, not a silent extra "run" averaged in.
func TestOfflineMetricsCollision(t *testing.T) {
	t.Parallel()
	_, err := buildStudy(t, `-- study.toml --
title = "Collision"
[inputs]
results = "results.csv"
[[analyses]]
id     = "lb"
type   = "aggregate"
metric = "hitrate@1"
[[analyses]]
id    = "om"
type  = "offline_metrics"
runs  = "runs/{method}_{dataset}.csv"
truth = "truth/{dataset}.csv"
k     = [1]
-- results.csv --
dataset,method,metric,value
d1,A,hitrate@1,0.5
d1,B,hitrate@1,0.25
-- truth/d1.csv --
user,item
u1,a
-- runs/A_d1.csv --
user,item,rank
u1,a,1
-- runs/B_d1.csv --
user,item,rank
u1,b,1
`)
	if err == nil || !strings.Contains(err.Error(), "analysis om computes hitrate@1 of A on d1, which the results files also give") {
		t.Fatalf("got %v", err)
	}
}
