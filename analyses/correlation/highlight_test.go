package correlation

import (
	"testing"
)

// TestMetricCorrelationHighlightEmpty: an empty result has nothing to say.
func TestMetricCorrelationHighlightEmpty(t *testing.T) {
	t.Parallel()
	if h := (&Result{}).Highlight(); h != "" {
		t.Errorf("empty result: %q", h)
	}
}

// TestHighlightOnePair: with two metrics there is one pair, which is
// neither the most nor the least concordant; labels name the metrics;
// the coefficient reads as the tables print it (0.8 and 1 need one
// decimal).
func TestHighlightOnePair(t *testing.T) {
	t.Parallel()
	r := &Result{Method: "spearman", Metrics: []string{"ndcg@10", "recall@10"}, Rho: [][]float64{{1, 0.8}, {0.8, 1}}}
	r.Naming.Metrics = map[string]string{"ndcg@10": "nDCG@10"}
	if h := r.Highlight(); h != "nDCG@10 and Recall@10: mean Spearman 0.8." {
		t.Errorf("highlight %q", h)
	}
}
