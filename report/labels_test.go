package report

import "testing"

func TestLabelFallsBackToID(t *testing.T) {
	var nilStudy *Study
	if got := nilStudy.Label(LabelMetric, "ndcg@10"); got != "ndcg@10" {
		t.Errorf("nil study: %q", got)
	}
	s := &Study{}
	s.setLabel(LabelMetric, "ndcg@10", "nDCG@10")
	s.setLabel(LabelMethod, "ndcg@10", "")
	if got := s.Label(LabelMetric, "ndcg@10"); got != "nDCG@10" {
		t.Errorf("metric label: %q", got)
	}
	if got := s.Label(LabelMethod, "ndcg@10"); got != "ndcg@10" {
		t.Errorf("a metric's label leaked to a method, or an empty label was kept: %q", got)
	}
}
