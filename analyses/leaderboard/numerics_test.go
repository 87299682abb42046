package leaderboard

import (
	"math"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// TestStrictGeometricMeanSubnormal: Go's math.Log on amd64 returns about
// −709.09 for every subnormal, which made the geometric mean of
// {5e-324, 1} larger than both inputs. The exact value is
// exp((ln 5e-324 + ln 1)/2) = exp(−744.4400719213812/2) = sqrt(5e-324)
// ≈ 2.2227587494850775e-162, what scipy.stats.gmean gives.
func TestStrictGeometricMeanSubnormal(t *testing.T) {
	t.Parallel()
	if got := logExact(5e-324); got != -744.4400719213812 {
		t.Errorf("logExact(5e-324) = %v, want −744.4400719213812", got)
	}
	for _, x := range []float64{1e-310, 2.5e-320, 0x1p-1022, 1e-300, 0.5, 1, 3, 1e300} {
		if want := math.Log(x); x >= 0x1p-1022 && logExact(x) != want {
			t.Errorf("logExact(%g) = %v, math.Log %v: a normal number must not change", x, logExact(x), want)
		}
		if x < 0x1p-1022 {
			if want := math.Log(x*0x1p200) - 200*math.Ln2; math.Abs(logExact(x)-want) > 1e-12 {
				t.Errorf("logExact(%g) = %v, want %v", x, logExact(x), want)
			}
		}
	}
	gm, err := geometricMean(analyses.Matrix{{5e-324}, {1}})
	if err != nil {
		t.Fatal(err)
	}
	// math.Sqrt(5e-324) = exp(−372.2200359606906); exp of an argument
	// near −372 carries its rounding (≈ 372·2⁻⁵³) into the result, so the
	// exp-of-mean-log value agrees to about 1e-13 (it is
	// 2.222758749485127e-162, as Python's math.exp(math.log(5e-324)/2),
	// which is what scipy.stats.gmean computes).
	want := 2.2227587494850775e-162
	if !(gm[0] < 1 && gm[0] > 5e-324) || math.Abs(gm[0]-want) > 1e-13*want {
		t.Errorf("gmean{5e-324, 1} = %v, want %v", gm[0], want)
	}
	scores, err := RuleScores(RuleGeometricMean, analyses.Matrix{{5e-324, 0.5}, {1, 0.5}}, true, 3)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(scores[0]-want) > 1e-13*want || scores[1] != 0.5 {
		t.Errorf("geometric_mean rule: %v", scores)
	}
}

// TestStrictHarmonicMeanSubnormal: 1/5e-324 overflows to +Inf, which made
// the harmonic mean of {5e-324, 1} 0; the exact value 2·5e-324/(1+5e-324)
// rounds to 1e-323 (two units of the smallest subnormal).
func TestStrictHarmonicMeanSubnormal(t *testing.T) {
	t.Parallel()
	hm, err := harmonicMean(analyses.Matrix{{5e-324, 0}, {1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if hm[0] != 1e-323 {
		t.Errorf("hmean{5e-324, 1} = %v, want 1e-323", hm[0])
	}
	if hm[1] != 0 {
		t.Errorf("hmean{0, 1} = %v, want 0 as scipy", hm[1])
	}
	hm, _ = harmonicMean(analyses.Matrix{{0.25}, {0.5}})
	if hm[0] != 2/(4.0+2.0) {
		t.Errorf("hmean{0.25, 0.5} = %v", hm[0])
	}
}
