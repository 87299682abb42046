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
