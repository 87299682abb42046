package leaderboard

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/internal/testutil"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/analyses/stats"
)

// TestAggregateOracle checks every rule against testdata/oracle/aggregate:
// scipy's rankdata, gmean and hmean, and an independent Python version of
// the voting and Dolan–Moré rules, on random matrices with ties.
func TestAggregateOracle(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "oracle", "aggregate", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Cases []struct {
			Name           string               `json:"name"`
			HigherIsBetter bool                 `json:"higher_is_better"`
			BetaMax        float64              `json:"beta_max"`
			Q              [][]float64          `json:"q"`
			Expected       map[string][]float64 `json:"expected"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Cases) < 20 {
		t.Fatalf("only %d cases in the fixture", len(fx.Cases))
	}
	checked := map[string]int{}
	for _, c := range fx.Cases {
		for _, rule := range AllRules {
			want, ok := c.Expected[rule]
			if !ok {
				t.Fatalf("%s: fixture lacks %s", c.Name, rule)
			}
			got, err := RuleScores(rule, c.Q, c.HigherIsBetter, c.BetaMax)
			if err != nil {
				t.Fatalf("%s %s: %v", c.Name, rule, err)
			}
			for m := range want {
				if !testutil.Close(got[m], want[m], 1e-12) {
					t.Errorf("%s %s method %d: got %.17g, want %.17g", c.Name, rule, m, got[m], want[m])
				}
			}
			checked[rule]++
		}
	}
	t.Logf("checked %v", checked)
}

func TestRankData(t *testing.T) {
	t.Parallel()
	// scipy.stats.rankdata([3, 1, 4, 1, 5, 9, 2, 6, 5]) (method "average")
	got := stats.RankData([]float64{3, 1, 4, 1, 5, 9, 2, 6, 5})
	want := []float64{4, 1.5, 5, 1.5, 6.5, 9, 3, 8, 6.5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("RankData: got %v, want %v", got, want)
		}
	}
	if r := stats.RankBest([]float64{0.1, 0.3, 0.3}, true); r[0] != 3 || r[1] != 1.5 || r[2] != 1.5 {
		t.Fatalf("RankBest higher: %v", r)
	}
}

func TestAggregateMissingCells(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	in := AggregateInput{Metric: analyses.Metric{Name: "ndcg"}, Datasets: []string{"a", "b", "c"}, Methods: []string{"X", "Y"},
		Q: analyses.Matrix{{0.1, 0.2}, {nan, 0.3}, {0.3, 0.1}}}
	_, err := Aggregate(in, AggregateOptions{Metric: "ndcg"})
	if err == nil || !strings.Contains(err.Error(), `dataset "b", method "X"`) {
		t.Fatalf("want an error naming the missing cell, got %v", err)
	}
	r, err := Aggregate(in, AggregateOptions{Metric: "ndcg", Missing: "drop"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Datasets) != 2 || len(r.DroppedDatasets) != 1 || len(r.Notes()) != 1 {
		t.Fatalf("drop: datasets %v dropped %v notes %v", r.Datasets, r.DroppedDatasets, r.Notes())
	}
}

func TestAggregateNegativeValuesSkipMeans(t *testing.T) {
	t.Parallel()
	in := AggregateInput{Metric: analyses.Metric{Name: "delta"}, Datasets: []string{"a", "b"}, Methods: []string{"X", "Y"},
		Q: analyses.Matrix{{-0.1, 0.2}, {0.4, 0.3}}}
	r, err := Aggregate(in, AggregateOptions{Metric: "delta"})
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range r.Rules {
		if rule == RuleGeometricMean || rule == RuleHarmonicMean || rule == RuleDMAUC {
			t.Errorf("%s should be left out on negative values", rule)
		}
	}
	if len(r.Notes()) == 0 {
		t.Error("no note says why rules were left out")
	}
}

func TestBetaGrid(t *testing.T) {
	t.Parallel()
	g := BetaGrid(3)
	if len(g) != 21 || g[0] != 1 || math.Abs(g[20]-3) > 1e-12 {
		t.Fatalf("BetaGrid(3) = %v", g)
	}
	if g := BetaGrid(2.25); g[len(g)-1] != 2.25 || len(g) != 14 {
		t.Fatalf("BetaGrid(2.25) = %v", g)
	}
}

func TestDidYouMean(t *testing.T) {
	t.Parallel()
	if s := analyses.DidYouMean("copland", AllRules); s != ` (did you mean "copeland"?)` {
		t.Fatalf("got %q", s)
	}
	if s := analyses.DidYouMean("zzzzzzzz", AllRules); s != "" {
		t.Fatalf("got %q", s)
	}
}

func TestAggregateTableColumnsUnique(t *testing.T) {
	t.Parallel()
	in := AggregateInput{Metric: analyses.Metric{Name: "m"}, Datasets: []string{"a", "b"}, Methods: []string{"X", "Y"}, Q: analyses.Matrix{{1, 2}, {2, 1}}}
	r, err := Aggregate(in, AggregateOptions{Metric: "m"})
	if err != nil {
		t.Fatal(err)
	}
	main := r.Tables()[0]
	seen := map[string]bool{}
	for _, c := range main.Columns {
		if seen[c] {
			t.Fatalf("duplicate column %q in %v", c, main.Columns)
		}
		seen[c] = true
	}
	if len(main.Columns) != 1+2*len(AllRules) || main.Columns[0] != "method" {
		t.Fatalf("columns %v", main.Columns)
	}
}

// TestAggregateHighlightOneDataset: the key finding of a leaderboard
// over one dataset counts it in the singular ("over 1 dataset").
func TestAggregateHighlightOneDataset(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		datasets []string
		q        analyses.Matrix
		want     string
	}{
		{[]string{"a"}, analyses.Matrix{{0.1, 0.2}}, "over 1 dataset,"},
		{[]string{"a", "b"}, analyses.Matrix{{0.1, 0.2}, {0.3, 0.1}}, "over 2 datasets,"},
	} {
		in := AggregateInput{Metric: analyses.Metric{Name: "ndcg"}, Datasets: c.datasets, Methods: []string{"X", "Y"}, Q: c.q}
		r, err := Aggregate(in, AggregateOptions{Metric: "ndcg"})
		if err != nil {
			t.Fatal(err)
		}
		if h := r.Highlight(); !strings.Contains(h, c.want) {
			t.Errorf("%d datasets: %q, want %q in it", len(c.datasets), h, c.want)
		}
	}
}
