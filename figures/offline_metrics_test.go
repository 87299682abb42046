package figures

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/offline"
)

func offlineTestResult() *offline.Result {
	v := func(x float64) *float64 { return &x }
	runs := []offline.RunValues{
		{Dataset: "a", Method: "pop", Values: map[string]*float64{"ndcg@5": v(0.2), "ndcg@10": v(0.25), "coverage@5": v(0.01), "coverage@10": v(0.02)}},
		{Dataset: "a", Method: "knn", Values: map[string]*float64{"ndcg@5": v(0.3), "ndcg@10": nil, "coverage@5": v(0.4), "coverage@10": v(0.5)}},
		{Dataset: "b", Method: "pop", Values: map[string]*float64{"ndcg@5": v(0.4), "ndcg@10": v(0.45)}},
	}
	return &offline.Result{K: []int{5, 10}, Runs: runs}
}

// Both figures are drawn, deterministic, and a value missing on one
// dataset is left out of the mean (never NaN in the chart).
func TestOfflineMetricsFigures(t *testing.T) {
	t.Parallel()
	r := offlineTestResult()
	a, err := OfflineMetrics("om", "Offline", r)
	if err != nil {
		t.Fatal(err)
	}
	b, err := OfflineMetrics("om", "Offline", r)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 2 || a[0].ID != "om" || a[1].ID != "om-coverage" {
		t.Fatalf("figures %v", a)
	}
	for i := range a {
		if !bytes.Equal(a[i].SVG, b[i].SVG) || !bytes.Equal(a[i].Chart, b[i].Chart) {
			t.Errorf("%s: not deterministic", a[i].ID)
		}
		if bytes.Contains(a[i].Chart, []byte("NaN")) {
			t.Errorf("%s: NaN in the chart", a[i].ID)
		}
	}
	// pop's nDCG@5 is the mean over a and b: 0.3 (0.30000000000000004).
	if !strings.Contains(string(a[0].Chart), "0.30000000000000004") {
		t.Errorf("chart lacks pop's mean nDCG@5: %s", a[0].Chart)
	}
	if !strings.Contains(a[0].Caption, "averaged over the 2 datasets") {
		t.Errorf("caption %q", a[0].Caption)
	}
	// The cutoff axis marks the cutoffs alone (5 and 10), in both
	// backends: no tick at a k that was never computed.
	for _, f := range a {
		if !bytes.Contains(f.Chart, []byte(`"axisLabel":{"customValues":[5,10]}`)) {
			t.Errorf("%s: the chart's cutoff axis does not mark 5 and 10 alone: %s", f.ID, f.Chart)
		}
		var labels []string
		for _, m := range regexp.MustCompile(`<text[^>]*>([^<]+)</text>`).FindAllSubmatch(f.SVG, -1) {
			labels = append(labels, strings.TrimSpace(string(m[1])))
		}
		if !slices.Contains(labels, "5") || !slices.Contains(labels, "10") || slices.Contains(labels, "6") || slices.Contains(labels, "8") {
			t.Errorf("%s: the SVG's texts %q, want the cutoffs 5 and 10 and no other k", f.ID, labels)
		}
	}
}
