package meta

import (
	"strings"
	"testing"
)

// TestMetaHighlight: the overview sentence reads the right fields, says which
// method a meta-analysis favours for either metric direction, and stays
// empty rather than wrong when a result has nothing to say.
func TestMetaHighlight(t *testing.T) {
	t.Parallel()
	meta := &Result{Treatment: "T", Control: "C", Metric: "rmse", Better: "lower", Effect: "md",
		Summary: Summary{K: 4, Effect: fp(-0.2), CILow: fp(-0.3), CIHigh: fp(-0.1), P: fp(1e-20), I2: fp(12)}}
	if h := meta.Highlight(); !strings.Contains(h, "summary mean difference -0.2 [-0.3, -0.1] over 4 datasets, p = 1e-20, I² = 12%; T is better.") {
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
	if h := (&Result{}).Highlight(); h != "" {
		t.Errorf("empty meta: %q", h)
	}
}

func fp(v float64) *float64 { return &v }
