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

// TestRankScores: scores within TieTolerance share the average of their
// ranks (scipy.stats.rankdata "average" for equal values: [2, 2, 2, 4]
// for three equal leaders), exact ties too, NaN stays NaN; a tie does
// not chain beyond the tolerance from a group's first score.
func TestRankScores(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		x      []float64
		higher bool
		want   []float64
	}{
		{[]float64{0.26989619377162632, 0.26989619377162621, 0.26989619377162627, 0.19}, true, []float64{2, 2, 2, 4}},
		{[]float64{3, 1, 2}, false, []float64{3, 1, 2}},
		{[]float64{1, 1, 2}, true, []float64{2.5, 2.5, 1}},
		{[]float64{1, nan, 1 + 1e-12}, true, []float64{1.5, nan, 1.5}},
		{[]float64{1, 1 + 0.6e-9, 1 + 1.2e-9}, true, []float64{3, 1.5, 1.5}}, // 1+1.2e-9 leads; 1+0.6e-9 ties with it, 1 does not
	} {
		got := RankScores(c.x, c.higher)
		for i := range got {
			if !(got[i] == c.want[i] || math.IsNaN(got[i]) && math.IsNaN(c.want[i])) {
				t.Errorf("RankScores(%v, %v) = %v, want %v", c.x, c.higher, got, c.want)
				break
			}
		}
	}
	if l := Leaders([]float64{2, 2, 2, 4}); len(l) != 3 {
		t.Errorf("Leaders = %v", l)
	}
}

// TestNameHint: an unknown name gets the closest valid one (equal but for
// case first) and the list of valid names, or the closest five of many.
func TestNameHint(t *testing.T) {
	for _, c := range []struct {
		s     string
		names []string
		want  string
	}{
		{"nDCG@10", []string{"ndcg@10", "recall@10"}, ` (did you mean "ndcg@10"?); valid: "ndcg@10", "recall@10"`},
		{"dolan_more", []string{"dm_auc", "dm_lbo", "mean"}, `; valid: "dm_auc", "dm_lbo", "mean"`},
		{"copland", []string{"copeland", "borda"}, ` (did you mean "copeland"?); valid: "copeland", "borda"`},
		{"x", nil, ""},
		{"f14", []string{"f01", "f02", "f03", "f04", "f05", "f06", "f07", "f08", "f09", "f10", "f11", "f12", "f13", "f15"},
			` (did you mean "f04"?); closest of 14: "f04", "f10", "f11", "f12", "f13"`},
	} {
		if got := NameHint(c.s, c.names); got != c.want {
			t.Errorf("NameHint(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}
