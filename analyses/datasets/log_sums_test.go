package datasets

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMomentsFromSums checks the moments from shifted power sums (an
// engine's reduction) against charMoments' two passes, with values far
// from zero relative to their spread and a shift off the mean.
func TestMomentsFromSums(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 50; trial++ {
		n := 2 + r.IntN(500)
		x := make([]float64, n)
		for i := range x {
			x[i] = 1e3 + r.ExpFloat64()
		}
		m, sd, sk, ku := charMoments(x)
		shift := m * (1 + 1e-6*(r.Float64()-0.5))
		var s [4]float64
		for _, v := range x {
			d := v - shift
			s[0] += d
			s[1] += d * d
			s[2] += d * d * d
			s[3] += d * d * d * d
		}
		gm, gsd, gsk, gku := MomentsFromSums(int64(n), shift, s)
		for _, c := range [][2]float64{{m, gm}, {sd, gsd}, {sk, gsk}, {ku, gku}} {
			if math.Abs(c[0]-c[1]) > 1e-9*math.Max(1, math.Abs(c[0])) {
				t.Fatalf("n=%d: two passes %v, sums %v", n, c[0], c[1])
			}
		}
	}
	if _, _, sk, ku := MomentsFromSums(3, 2, [4]float64{}); !math.IsNaN(sk) || !math.IsNaN(ku) {
		t.Error("a constant: skewness and kurtosis should be NaN")
	}
}

// TestTailCut checks the long-tail boundary against the file path's rule
// on items sorted by count: the head is the shortest prefix with 5·cum ≥
// 4·Nr.
func TestTailCut(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		counts := make([]int64, 1+r.IntN(30))
		for i := range counts {
			counts[i] = 1 + int64(r.IntN(6))
		}
		h := CountHistogram(counts)
		var nr int64
		for _, c := range counts {
			nr += c
		}
		// The file path: counts descending, first prefix reaching 80%.
		var sorted []int64
		for k := len(h) - 1; k >= 0; k-- {
			for j := int64(0); j < h[k].IDs; j++ {
				sorted = append(sorted, h[k].Count)
			}
		}
		var cum int64
		var headLen int
		for i, c := range sorted {
			cum += c
			if 5*cum >= 4*nr {
				headLen = i + 1
				break
			}
		}
		count, head, of := TailCut(h, nr)
		want := int64(0)
		for _, c := range sorted[:headLen] {
			if c == count {
				want++
			}
		}
		if sorted[headLen-1] != count || head != want || head < 1 || head > of {
			t.Fatalf("counts %v: TailCut = (%d, %d of %d), want the cut at count %d with %d", counts, count, head, of, sorted[headLen-1], want)
		}
	}
}
