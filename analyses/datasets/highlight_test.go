package datasets

import (
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// TestClustersHighlightEmpty: an empty result has nothing to say.
func TestClustersHighlightEmpty(t *testing.T) {
	t.Parallel()
	if h := (&ClustersResult{}).Highlight(); h != "" {
		t.Errorf("empty result: %q", h)
	}
}

// TestSelectionHighlightEmpty: an empty result has nothing to say.
func TestSelectionHighlightEmpty(t *testing.T) {
	t.Parallel()
	if h := (&SelectionResult{}).Highlight(); h != "" {
		t.Errorf("empty result: %q", h)
	}
}

// TestSelectionHighlightPerMetric: the finding never averages metrics: a
// strategy that loses to random choice on one metric is shown losing
// there, whatever its mean over metrics (here k-means would win the
// average, 0.9 against 0.875).
func TestSelectionHighlightPerMetric(t *testing.T) {
	t.Parallel()
	r := &SelectionResult{Size: 5, Datasets: make([]string, 30), Simulations: 100,
		Metrics: []string{"ndcg@10", "recall@10"}, Strategies: []string{"random", "kmeans"},
		MeanRho: map[string]map[string]float64{
			"random": {"ndcg@10": 0.95, "recall@10": 0.80},
			"kmeans": {"ndcg@10": 0.85, "recall@10": 0.95},
		}}
	r.Naming.Metrics = map[string]string{"ndcg@10": "nDCG@10"}
	want := "With 5 of 30 datasets, how closely each selection ranks like all datasets (mean Spearman ρ over 100 simulations, per metric) — nDCG@10: Random 0.95 > k-means 0.85; Recall@10: k-means 0.95 > Random 0.80."
	if h := r.Highlight(); h != want {
		t.Errorf("finding\n%s\nwant\n%s", h, want)
	}
}

// TestCharacteristicsHighlightSkipsBaseline: the method whose performance
// a feature explains best is a declared baseline (Random, Spearman 0.99):
// the finding names the best method that is not one, and says which
// baselines it left out.
func TestCharacteristicsHighlightSkipsBaseline(t *testing.T) {
	t.Parallel()
	r := &CharacteristicsResult{Features: []string{"Density", "Gini_i"}, Datasets: make([]string, 4), Metric: "ndcg@10",
		Methods:  []string{"Random", "EASE"},
		Spearman: [][]float64{{0.99, 0.40}, {-0.20, -0.70}}}
	r.Naming.Baselines = []string{"Random"}
	want := "2 features of 4 datasets; Gini (items) is the feature most associated with nDCG@10 of EASE (Spearman -0.70), baseline Random left out."
	if h := r.Highlight(); h != want {
		t.Errorf("finding\n%s\nwant\n%s", h, want)
	}
	r.Naming.Baselines = nil
	if h := r.Highlight(); h != "2 features of 4 datasets; Density is the feature most associated with nDCG@10 of Random (Spearman 0.99)." {
		t.Errorf("without baselines: %s", h)
	}
}

// TestEveryStrategyAndFeatureHasALabel: pages, findings and macros name
// strategies and features by the labels of analyses.Naming.
func TestEveryStrategyAndFeatureHasALabel(t *testing.T) {
	t.Parallel()
	var n analyses.Naming
	for _, s := range AllStrategies {
		if n.Strategy(s) == s {
			t.Errorf("strategy %q has no label", s)
		}
	}
	for _, f := range LogFeatureNames {
		if _, ok := analyses.FeatureLabels[f]; !ok {
			t.Errorf("feature %q has no label", f)
		}
	}
}
