package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
)

// exploreStudy is a study of 3 datasets × 2 methods with a leaderboard
// restricted to two datasets, a critical_difference on another metric
// and one on its metric, and the results: ndcg@10 in every cell, rmse
// (lower is better) in every cell, and recall@5 in one cell only.
func exploreStudy(t *testing.T) (*manifest.Study, []analysisRun, *analyses.Results) {
	t.Helper()
	src := `title = "t"
[[metrics]]
name = "rmse"
better = "lower"
[[analyses]]
id = "cd-rmse"
type = "critical_difference"
metric = "rmse"
[[analyses]]
id = "lb"
type = "aggregate"
metric = "ndcg@10"
datasets = ["d1", "d3"]
rules = ["borda", "mean"]
[[analyses]]
id = "cd"
type = "critical_difference"
metric = "ndcg@10"
[[analyses]]
id = "st-rmse"
type = "stability"
metric = "rmse"
[[analyses]]
id = "st"
type = "stability"
metric = "ndcg@10"
repeats = 7
`
	s, err := manifest.ParseStudy("/study/study.toml", []byte(src), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	var runs []analysisRun
	for i, a := range s.Analyses {
		runs = append(runs, analysisRun{Spec: a, Seed: uint64(100 + i), Output: &kinds.Output{}})
	}
	res := &analyses.Results{Datasets: []string{"d1", "d2", "d3"}, Methods: []string{"A", "B"},
		Metrics: []string{"ndcg@10", "rmse", "recall@5"}, Cells: map[analyses.CellKey]analyses.Cell{}}
	for i, d := range res.Datasets {
		for j, m := range res.Methods {
			res.Cells[analyses.CellKey{Dataset: d, Method: m, Metric: "ndcg@10"}] = analyses.Cell{Value: float64(i + j)}
			res.Cells[analyses.CellKey{Dataset: d, Method: m, Metric: "rmse"}] = analyses.Cell{Value: float64(i * j)}
		}
	}
	res.Cells[analyses.CellKey{Dataset: "d2", Method: "B", Metric: "recall@5"}] = analyses.Cell{Value: 0.5}
	return s, runs, res
}

// TestExploreData: the Explore page recomputes the first aggregate and
// the critical_difference on its metric (not the first one), opens on
// the leaderboard's view, and carries the values of every metric with
// at least half its cells, by name.
func TestExploreData(t *testing.T) {
	s, runs, res := exploreStudy(t)
	var warn bytes.Buffer
	d := exploreData(s, runs, func() (*analyses.Results, error) { return res, nil }, true, &warn)
	if d == nil || warn.Len() > 0 {
		t.Fatalf("no data (warning %q)", warn.String())
	}
	if d.Aggregate == nil || d.Aggregate.ID != "lb" || d.CriticalDifference == nil || d.CriticalDifference.ID != "cd" || d.CriticalDifference.Seed != 102 {
		t.Fatalf("recomputes %+v and %+v, want lb and cd (seed 102)", d.Aggregate, d.CriticalDifference)
	}
	if d.Stability == nil || d.Stability.ID != "st" || d.Stability.Seed != 104 || d.Stability.Options.Repeats != 7 {
		t.Fatalf("recomputes the stability %+v, want st (seed 104, repeats 7)", d.Stability)
	}
	want := struct{ metric, datasets, methods, rules any }{"ndcg@10", []string{"d1", "d3"}, []string{"A", "B"}, []string{"borda", "mean"}}
	got := struct{ metric, datasets, methods, rules any }{d.Published.Metric, d.Published.Datasets, d.Published.Methods, d.Published.Rules}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("published view %+v, want %+v", got, want)
	}
	var names []string
	for _, m := range d.Metrics {
		names = append(names, m.Name)
		if want := m.Name != "rmse"; m.HigherIsBetter != want {
			t.Errorf("%s: higher is better %v", m.Name, m.HigherIsBetter)
		}
	}
	if !reflect.DeepEqual(names, []string{"ndcg@10", "rmse"}) {
		t.Errorf("metrics %v, want ndcg@10 and rmse (recall@5 has 1 cell of 6)", names)
	}
	if v := d.Values["rmse"]; len(v) != 3 || *v[2][1] != 2 || *v[0][0] != 0 {
		t.Errorf("rmse values %v", v)
	}
}

// TestExploreDataWithoutModule: a binary without the module builds no
// Explore page and says why, once; a study with nothing to explore says
// nothing.
func TestExploreDataWithoutModule(t *testing.T) {
	s, runs, res := exploreStudy(t)
	results := func() (*analyses.Results, error) { return res, nil }
	var warn bytes.Buffer
	if d := exploreData(s, runs, results, false, &warn); d != nil {
		t.Fatal("an Explore page without the module")
	}
	if w := warn.String(); strings.Count(w, "\n") != 1 || !strings.Contains(w, "evalbook: warning: the Explore page's WebAssembly module was not built into this binary (run `make assets`") {
		t.Errorf("warning %q", w)
	}
	warn.Reset()
	if d := exploreData(s, runs[:0], results, false, &warn); d != nil || warn.Len() > 0 {
		t.Errorf("no analysis to explore: data %v, warning %q", d, warn.String())
	}
}
