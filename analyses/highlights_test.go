package analyses

import (
	"strings"
	"testing"
)

func fp(v float64) *float64 { return &v }

// TestMetaHighlight: the overview sentence reads the right fields, says which
// method a meta-analysis favours for either metric direction, and stays
// empty rather than wrong when a result has nothing to say.
func TestMetaHighlight(t *testing.T) {
	t.Parallel()
	meta := &MetaResult{Treatment: "T", Control: "C", Metric: "rmse", Better: "lower", Effect: "md",
		Summary: MetaSummary{K: 4, Effect: fp(-0.2), CILow: fp(-0.3), CIHigh: fp(-0.1), P: fp(1e-20), I2: fp(12)}}
	if h := meta.Highlight(); !strings.Contains(h, "summary mean difference -0.2 [-0.3, -0.1] over 4 datasets, p < 1e-15, I² = 12%; T is better.") {
		t.Errorf("meta, lower is better: %q", h)
	}
	meta.Better = "higher"
	if h := meta.Highlight(); !strings.HasSuffix(h, "; C is better.") {
		t.Errorf("meta, higher is better: %q", h)
	}
	meta.Summary.CIHigh = fp(0.05)
	if h := meta.Highlight(); !strings.HasSuffix(h, "the interval includes no difference.") {
		t.Errorf("meta, interval over zero: %q", h)
	}
	if h := (&MetaResult{}).Highlight(); h != "" {
		t.Errorf("empty meta: %q", h)
	}
}

// TestCriticalDifferenceHighlight: the overview sentence reads the right fields.
func TestCriticalDifferenceHighlight(t *testing.T) {
	t.Parallel()
	cd := &CriticalDifferenceResult{Metric: "m", Alpha: 0.05, Datasets: []string{"a", "b", "c"}, Methods: []string{"A", "B"},
		MeanRanks: []float64{1.25, 1.75}, FriedmanP: fp(0.04), CriticalDifference: 1.1, Pairs: []CDPair{{A: "A", B: "B", Significant: true}}}
	if h := cd.Highlight(); h != "A has the best mean rank (1.25) on m over 3 datasets; Friedman p = 0.04; 1 of 1 pairs differ after Holm (α = 0.05), critical difference 1.10." {
		t.Errorf("critical difference: %q", h)
	}
}

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

// TestPairedTestsHighlightEmpty: an empty result has nothing to say.
func TestPairedTestsHighlightEmpty(t *testing.T) {
	t.Parallel()
	if h := (&PairedTestsResult{}).Highlight(); h != "" {
		t.Errorf("empty result: %q", h)
	}
}
