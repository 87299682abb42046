package datasets

import (
	"testing"
)

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
