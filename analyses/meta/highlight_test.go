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
	if h := meta.Highlight(); !strings.Contains(h, "summary mean difference -0.20 [-0.30, -0.10] over 4 datasets, p = 1.0e-20, I² = 12%; T is better.") {
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
	// the effect and its interval with the same decimals, the forest
	// plot's (Decimals: the narrowest interval's ends told apart), not
	// three significant digits each ("-0.0618 [-0.089, -0.0347]")
	smd := &Result{Treatment: "T", Control: "C", Effect: "md", Rows: []Row{{Included: true, CILow: -0.2, CIHigh: 0.1}},
		Summary: Summary{K: 32, Effect: fp(-0.061832), CILow: fp(-0.089004), CIHigh: fp(-0.034661)}}
	if h := smd.Highlight(); !strings.Contains(h, "summary mean difference -0.062 [-0.089, -0.035] over 32 datasets") || smd.Decimals() != 3 {
		t.Errorf("decimals %d: %q", smd.Decimals(), h)
	}
	smd.Summary.CIHigh = fp(-0.0001)
	if h := smd.Highlight(); !strings.Contains(h, "[-0.089, -1.0e-04]") {
		t.Errorf("a bound that rounds to zero is not written as a zero, so its side of zero shows: %q", h)
	}
}

func fp(v float64) *float64 { return &v }
