package datasets

import (
	"math"
	"testing"
)

// TestFeatureDropHint: a missing feature value says what missing = "drop"
// would cost, and when it would leave out most datasets it points at the
// features to leave out instead of suggesting drop.
func TestFeatureDropHint(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	features := []string{"Density", "Gini_i", "APB"}
	few := [][]float64{{1, 2, nan}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}}
	if got, want := featureDropHint(few, features), `; 1 of 4 datasets lack a feature value (APB lacks 1): missing = "drop" would leave them out and use the other 3, features = ["Density", "Gini_i"] would keep every dataset`; got != want {
		t.Errorf("hint\n%s\nwant\n%s", got, want)
	}
	most := [][]float64{{1, 2, nan}, {1, 2, nan}, {1, 2, nan}, {1, 2, 3}}
	if got, want := featureDropHint(most, features), `; 3 of 4 datasets lack a feature value (APB lacks 3): leave those features out with features = ["Density", "Gini_i"] (missing = "drop" would keep only 1 of 4 datasets)`; got != want {
		t.Errorf("hint\n%s\nwant\n%s", got, want)
	}
}
