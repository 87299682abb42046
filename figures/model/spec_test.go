package model

import "testing"

// TestRoundAxisBounds: chart bounds that are not round numbers are not
// labelled; RoundRange widens to round ones.
func TestRoundAxisBounds(t *testing.T) {
	t.Parallel()
	if _, hi := RoundRange(0, 0.0560505); hi != 0.06 {
		t.Errorf("RoundRange(0, 0.0560505) ends at %v", hi)
	}
	for _, v := range []float64{0.0560505, 1.03, 0.123} {
		if IsRound(v) {
			t.Errorf("%v is round", v)
		}
	}
	for _, v := range []float64{0.06, 1, 0.25, -0.5, 120} {
		if !IsRound(v) {
			t.Errorf("%v is not round", v)
		}
	}
	ax := echartsAxis(NewAxis("x").Fixed(-0.03, 1.03), 0, false)
	if l, _ := ax["axisLabel"].(map[string]any); l["showMinLabel"] != false || l["showMaxLabel"] != false {
		t.Errorf("axis %v labels its ends", ax)
	}
}
