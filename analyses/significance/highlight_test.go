package significance

import (
	"testing"
)

// TestCriticalDifferenceHighlight: the overview sentence reads the right
// fields, the mean rank and the critical difference as the tables print
// them (1.25 and 1.1 are exact in fewer digits).
func TestCriticalDifferenceHighlight(t *testing.T) {
	t.Parallel()
	cd := &CriticalDifferenceResult{Metric: "m", Alpha: 0.05, Datasets: []string{"a", "b", "c"}, Methods: []string{"A", "B"},
		MeanRanks: []float64{1.25, 1.75}, FriedmanP: fp(0.04), CriticalDifference: 1.1, Pairs: []CDPair{{A: "A", B: "B", Significant: true}}}
	if h := cd.Highlight(); h != "A has the best mean rank (1.25) on m over 3 datasets; Friedman p = 0.0400; 1 of 1 pairs differ after Holm (α = 0.05), critical difference 1.1." {
		t.Errorf("critical difference: %q", h)
	}
}

// TestPairedTestsHighlightEmpty: an empty result has nothing to say.
func TestPairedTestsHighlightEmpty(t *testing.T) {
	t.Parallel()
	if h := (&PairedTestsResult{}).Highlight(); h != "" {
		t.Errorf("empty result: %q", h)
	}
}

func fp(v float64) *float64 { return &v }

// TestCriticalDifferenceHighlightTiesAndBaseline: methods whose mean
// ranks differ only by float rounding share the best mean rank, and a
// declared baseline ranked above them is not the headline but named as
// ranking higher; labels name the methods and the metric.
func TestCriticalDifferenceHighlightTiesAndBaseline(t *testing.T) {
	t.Parallel()
	cd := &CriticalDifferenceResult{Metric: "ndcg@10", Alpha: 0.05, Datasets: []string{"a", "b", "c"}, Methods: []string{"Random", "A", "B", "C"},
		MeanRanks: []float64{1, 2.3333333333333335, 2.333333333333333, 3}, CriticalDifference: 1.1}
	cd.Naming.Baselines = []string{"Random"}
	cd.Naming.Metrics = map[string]string{"ndcg@10": "nDCG@10"}
	cd.Naming.Methods = map[string]string{"B": "Bee"}
	want := "A and Bee share the best mean rank among the methods that are not baselines (2.333) on nDCG@10 over 3 datasets (the baseline Random ranks higher); 0 of 0 pairs differ after Holm (α = 0.05), critical difference 1.1."
	if h := cd.Highlight(); h != want {
		t.Errorf("finding\n%s\nwant\n%s", h, want)
	}
}
