package report

import (
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
)

// TestDefaultTitles: an analysis the manifest gives no title is titled by
// what it is and its subject, in the study's labels, not by its id; two
// that would share a title are told apart by their ids; a title the
// manifest gives is kept as written.
func TestDefaultTitles(t *testing.T) {
	src := `title = "t"

[[metrics]]
name  = "ndcg@10"
label = "nDCG@10"

[[metrics]]
name   = "rmse"
label  = "RMSE"
better = "lower"

[[methods]]
name  = "MostPop"
label = "Most popular"

[[datasets]]
name  = "ml-1m"
label = "MovieLens 1M"

[inputs]
results = "results.csv"
units   = "units/{method}_{dataset}.csv"
characteristics = "characteristics.csv"

[[analyses]]
id     = "a1"
type   = "aggregate"
metric = "ndcg@10"

[[analyses]]
id     = "a2"
type   = "aggregate"
metric = "rmse"

[[analyses]]
id     = "a3"
type   = "aggregate"
metric = "rmse"

[[analyses]]
id     = "a4"
type   = "aggregate"
title  = "Leaderboard: nDCG@10"
metric = "ndcg@10"

[[analyses]]
id     = "cd"
type   = "critical_difference"
metric = "NDCG@10"

[[analyses]]
id        = "meta"
type      = "meta_analysis"
treatment = "EASE"
control   = "MostPop"
metric    = "ndcg@10"

[[analyses]]
id      = "paired"
type    = "paired_tests"
metric  = "rmse"
dataset = "ml-1m"

[[analyses]]
id   = "corr"
type = "metric_correlation"

[[analyses]]
id      = "sel"
type    = "dataset_selection"
metrics = ["ndcg@10", "rmse"]

[[analyses]]
id     = "stab"
type   = "stability"
metric = "ndcg@10"

[[analyses]]
id     = "chars"
type   = "characteristics"
metric = "ndcg@10"

[[analyses]]
id   = "clusters"
type = "clusters"

[[analyses]]
id   = "mo"
type = "multi_objective"
base = "ndcg@10"
objectives = ["rmse"]

[[analyses]]
id   = "offline"
type = "offline_metrics"
runs  = "runs/{method}_{dataset}.tsv"
truth = "truth/{dataset}.tsv"
`
	s, err := manifest.ParseStudy("/study/study.toml", []byte(src), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a1":       "Leaderboard: nDCG@10 (a1)", // shares its title with a4's
		"a2":       "Leaderboard: RMSE (a2)",
		"a3":       "Leaderboard: RMSE (a3)",
		"a4":       "Leaderboard: nDCG@10", // as the manifest writes it
		"cd":       "Critical differences: nDCG@10",
		"meta":     "EASE vs Most popular: nDCG@10",
		"paired":   "Paired tests: RMSE on MovieLens 1M",
		"corr":     "Metric correlation",
		"sel":      "Dataset selection: nDCG@10, RMSE",
		"stab":     "Stability of the rankings: nDCG@10",
		"chars":    "Dataset characteristics: nDCG@10",
		"clusters": "Dataset clusters",
		"mo":       "Trade-offs: nDCG@10",
		"offline":  "Offline metrics",
	}
	types := map[string]bool{}
	for _, a := range s.Analyses {
		types[a.Type] = true
		if a.Title != want[a.ID] {
			t.Errorf("%s (%s): title %q, want %q", a.ID, a.Type, a.Title, want[a.ID])
		}
	}
	for _, typ := range kinds.Kinds().Types() {
		if !types[typ] {
			t.Errorf("the manifest has no %s analysis to title", typ)
		}
	}
	if t.Failed() {
		var got []string
		for _, a := range s.Analyses {
			got = append(got, a.ID+"="+a.Title)
		}
		t.Log(strings.Join(got, "\n"))
	}
}

// TestEveryKindTitlesItsAnalyses: every kind of the registry, a new one
// too (docs/ADDING_AN_ANALYSIS.md), titles the analyses the manifest
// leaves untitled; without a Title they would be titled by their ids.
func TestEveryKindTitlesItsAnalyses(t *testing.T) {
	for typ, k := range kinds.Kinds() {
		if k.Title == nil {
			t.Errorf("kind %s has no Title: its untitled analyses would be titled by their ids", typ)
		}
	}
}
