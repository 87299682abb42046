package multiobjective

import (
	"testing"
)

// TestMultiObjectiveHighlightEmpty: an empty result has nothing to say.
func TestMultiObjectiveHighlightEmpty(t *testing.T) {
	t.Parallel()
	if h := (&Result{}).Highlight(); h != "" {
		t.Errorf("empty result: %q", h)
	}
}
