package significance

import (
	"testing"
)

// TestCriticalDifferenceHighlight: the overview sentence reads the right fields.
func TestCriticalDifferenceHighlight(t *testing.T) {
	t.Parallel()
	cd := &CriticalDifferenceResult{Metric: "m", Alpha: 0.05, Datasets: []string{"a", "b", "c"}, Methods: []string{"A", "B"},
		MeanRanks: []float64{1.25, 1.75}, FriedmanP: fp(0.04), CriticalDifference: 1.1, Pairs: []CDPair{{A: "A", B: "B", Significant: true}}}
	if h := cd.Highlight(); h != "A has the best mean rank (1.25) on m over 3 datasets; Friedman p = 0.04; 1 of 1 pairs differ after Holm (α = 0.05), critical difference 1.10." {
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
