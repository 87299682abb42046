package analyses

import (
	"math"
	"testing"
)

func TestTied(t *testing.T) {
	for _, c := range []struct {
		a, b float64
		want int
	}{
		{0.08490566037735849, 0.08490566037735585, 0},
		{1, 1 + 1e-12, 0},
		{1, 1.000001, -1},
		{0, 1e-300, 1 * -1},
		{0, 0, 0},
		{math.NaN(), 1, -1},
		{1, math.NaN(), 1},
		{math.Inf(1), math.Inf(1), 0},
		{math.Inf(1), 1e308, 1},
		{-2, -2 * (1 + 1e-11), 0},
	} {
		if got := CompareScores(c.a, c.b); got != c.want {
			t.Errorf("CompareScores(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := CompareScores(c.b, c.a); got != -c.want {
			t.Errorf("CompareScores(%v, %v) = %d, want %d (antisymmetry)", c.b, c.a, got, -c.want)
		}
	}
	if Tied(math.NaN(), math.NaN()) {
		t.Error("NaN ties with NaN")
	}
}
