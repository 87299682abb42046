package offline

import (
	"testing"
)

// TestOfflineMetricsHighlight: the overview sentence counts runs, datasets
// and user lists, and names the method best on most datasets, and the
// metric by its label.
func TestOfflineMetricsHighlight(t *testing.T) {
	t.Parallel()
	off := &Result{K: []int{5, 10}, Runs: []RunValues{
		{Dataset: "a", Method: "X", Evaluated: 10, Values: map[string]*float64{"ndcg@10": fp(0.2)}},
		{Dataset: "a", Method: "Y", Evaluated: 10, Values: map[string]*float64{"ndcg@10": fp(0.3)}},
		{Dataset: "b", Method: "X", Evaluated: 5, Values: map[string]*float64{"ndcg@10": fp(0.4)}},
		{Dataset: "b", Method: "Y", Evaluated: 5, Values: map[string]*float64{"ndcg@10": fp(0.1)}},
		{Dataset: "c", Method: "Y", Evaluated: 5, Values: map[string]*float64{"ndcg@10": fp(0.1)}},
	}}
	if h := off.Highlight(); h != "5 runs on 3 datasets scored from their ranked lists (35 user lists evaluated); Y has the best nDCG@10 on 2 of 3 datasets." {
		t.Errorf("offline: %q", h)
	}
}

func fp(v float64) *float64 { return &v }
