package stats

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/evalbook/evalbook/analyses/internal/testutil"
)

// The fixtures are written by testdata/oracle/autorank/gen.py (scipy
// 1.10, statsmodels 0.13); see its header.

type autorankBlocks struct {
	Variance []struct {
		Groups       [][]float64 `json:"groups"`
		Bartlett     [2]float64  `json:"bartlett"`
		LeveneMedian [2]float64  `json:"levene_median"`
		LeveneMean   [2]float64  `json:"levene_mean"`
	} `json:"variance"`
	ANOVA []struct {
		Q              [][]float64 `json:"q"`
		F, DF1, DF2, P float64
	} `json:"anova"`
	StudentizedRange []struct {
		Q   *float64 `json:"q"`
		P   *float64 `json:"p"`
		K   int      `json:"k"`
		DF  float64  `json:"df"`
		CDF *float64 `json:"cdf"`
		PPF *float64 `json:"ppf"`
	} `json:"studentized_range"`
	Tukey []struct {
		Groups     [][]float64 `json:"groups"`
		Alpha      float64     `json:"alpha"`
		QCrit      float64     `json:"q_crit"`
		MSE        float64     `json:"mse"`
		DF         float64     `json:"df"`
		MeanDiffs  []float64   `json:"meandiffs"`
		StdPairs   []float64   `json:"std_pairs"`
		Lower      []float64   `json:"lower"`
		Upper      []float64   `json:"upper"`
		P          []float64   `json:"p"`
		Reject     []bool      `json:"reject"`
		HalfWidths []float64   `json:"halfwidths"`
	} `json:"tukey"`
	Effects []struct {
		A, B          []float64
		CohenD        float64 `json:"cohen_d"`
		AkinshinGamma float64 `json:"akinshin_gamma"`
		CliffsDelta   float64 `json:"cliffs_delta"`
		MADA          float64 `json:"mad_a"`
		MedianA       float64 `json:"median_a"`
	} `json:"effects"`
	Intervals []struct {
		X           []float64 `json:"x"`
		Alpha       float64   `json:"alpha"`
		MeanLower   float64   `json:"mean_lower"`
		MeanUpper   float64   `json:"mean_upper"`
		ScipyLower  float64   `json:"scipy_mean_lower"`
		ScipyUpper  float64   `json:"scipy_mean_upper"`
		MedianLower float64   `json:"median_lower"`
		MedianUpper float64   `json:"median_upper"`
		Coverage    float64   `json:"coverage"`
	} `json:"intervals"`
}

func loadAutorankBlocks(t *testing.T) *autorankBlocks {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testutil.Dir(), "stats", "testdata", "oracle", "autorank", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c autorankBlocks
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

func TestBartlettLeveneScipy(t *testing.T) {
	c := loadAutorankBlocks(t)
	for i, v := range c.Variance {
		b, err := Bartlett(v.Groups)
		if err != nil || !testutil.Close(b.Statistic, v.Bartlett[0], 1e-9) || !testutil.Close(b.P, v.Bartlett[1], 1e-9) {
			t.Errorf("case %d: Bartlett = %+v, %v; scipy %v", i, b, err, v.Bartlett)
		}
		lm, err := Levene(v.Groups, LeveneMedian)
		if err != nil || !testutil.Close(lm.Statistic, v.LeveneMedian[0], 1e-9) || !testutil.Close(lm.P, v.LeveneMedian[1], 1e-9) {
			t.Errorf("case %d: Levene(median) = %+v, %v; scipy %v", i, lm, err, v.LeveneMedian)
		}
		le, err := Levene(v.Groups, LeveneMean)
		if err != nil || !testutil.Close(le.Statistic, v.LeveneMean[0], 1e-9) || !testutil.Close(le.P, v.LeveneMean[1], 1e-9) {
			t.Errorf("case %d: Levene(mean) = %+v, %v; scipy %v", i, le, err, v.LeveneMean)
		}
	}
}

func TestRepeatedMeasuresANOVAStatsmodels(t *testing.T) {
	c := loadAutorankBlocks(t)
	for i, a := range c.ANOVA {
		r, err := RepeatedMeasuresANOVA(a.Q)
		if err != nil || !testutil.Close(r.F, a.F, 1e-9) || r.DF1 != a.DF1 || r.DF2 != a.DF2 || !testutil.Close(r.P, a.P, 1e-9) {
			t.Errorf("case %d: %+v, %v; AnovaRM F = %v on %v and %v, p = %v", i, r, err, a.F, a.DF1, a.DF2, a.P)
		}
	}
}

func TestStudentizedRangeScipy(t *testing.T) {
	c := loadAutorankBlocks(t)
	for _, s := range c.StudentizedRange {
		if s.CDF != nil {
			if got := StudentizedRangeCDF(*s.Q, s.K, s.DF); !testutil.Close(got, *s.CDF, 1e-9) {
				t.Errorf("cdf(%v, k=%d, df=%v) = %.15g, scipy %.15g", *s.Q, s.K, s.DF, got, *s.CDF)
			}
			continue
		}
		got, err := StudentizedRangeQuantileDF(*s.P, s.K, s.DF)
		if err != nil || !testutil.Close(got, *s.PPF, 1e-9) {
			t.Errorf("ppf(%v, k=%d, df=%v) = %.15g, %v; scipy %.15g", *s.P, s.K, s.DF, got, err, *s.PPF)
		}
	}
}

func TestTukeyHSDStatsmodels(t *testing.T) {
	c := loadAutorankBlocks(t)
	for i, tc := range c.Tukey {
		r, err := TukeyHSD(tc.Groups, tc.Alpha)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !testutil.Close(r.QCrit, tc.QCrit, 1e-9) || !testutil.Close(r.MSE, tc.MSE, 1e-9) || r.DF != tc.DF {
			t.Errorf("case %d: q = %v, MSE = %v, df = %v; statsmodels %v, %v, %v", i, r.QCrit, r.MSE, r.DF, tc.QCrit, tc.MSE, tc.DF)
		}
		for j, p := range r.Pairs {
			if !testutil.Close(p.Diff, tc.MeanDiffs[j], 1e-9) || !testutil.Close(p.SE, tc.StdPairs[j], 1e-9) ||
				!testutil.Close(p.Lower, tc.Lower[j], 1e-9) || !testutil.Close(p.Upper, tc.Upper[j], 1e-9) ||
				!testutil.Close(p.P, tc.P[j], 1e-9) || p.Reject != tc.Reject[j] {
				t.Errorf("case %d pair %d (%d, %d): %+v; statsmodels diff %v se %v [%v, %v] p %v reject %v", i, j, p.A, p.B, p,
					tc.MeanDiffs[j], tc.StdPairs[j], tc.Lower[j], tc.Upper[j], tc.P[j], tc.Reject[j])
			}
		}
		for j, h := range r.HalfWidths {
			if !testutil.Close(h, tc.HalfWidths[j], 1e-9) {
				t.Errorf("case %d: half-width %d = %v, statsmodels %v", i, j, h, tc.HalfWidths[j])
			}
		}
	}
}

func TestEffectSizesAutorank(t *testing.T) {
	c := loadAutorankBlocks(t)
	for i, e := range c.Effects {
		if got := CohenD(e.A, e.B); !testutil.Close(got, e.CohenD, 1e-9) {
			t.Errorf("case %d: Cohen's d = %v, want %v", i, got, e.CohenD)
		}
		if got := AkinshinGamma(e.A, e.B); !testutil.Close(got, e.AkinshinGamma, 1e-9) {
			t.Errorf("case %d: Akinshin's gamma = %v, want %v", i, got, e.AkinshinGamma)
		}
		if got := CliffsDelta(e.A, e.B); !testutil.Close(got, e.CliffsDelta, 1e-12) {
			t.Errorf("case %d: Cliff's delta = %v, want %v", i, got, e.CliffsDelta)
		}
		if got := MAD(e.A); !testutil.Close(got, e.MADA, 1e-12) {
			t.Errorf("case %d: MAD = %v, scipy %v", i, got, e.MADA)
		}
		if got := Median(e.A); !testutil.Close(got, e.MedianA, 1e-12) {
			t.Errorf("case %d: median = %v, numpy %v", i, got, e.MedianA)
		}
	}
}

// The mean's interval is checked to 1e-12 against scipy's mean and sem
// with the t quantile polished by mpmath (gen.py's t_upper), and to 1e-8
// against scipy's t.interval itself, whose t quantile is off by up to
// 5e-9.
func TestMeanMedianCIScipy(t *testing.T) {
	c := loadAutorankBlocks(t)
	for i, iv := range c.Intervals {
		lo, hi, err := MeanCI(iv.X, iv.Alpha)
		if err != nil || !testutil.Close(lo, iv.MeanLower, 1e-12) || !testutil.Close(hi, iv.MeanUpper, 1e-12) {
			t.Errorf("case %d (n = %d, alpha = %v): mean CI [%v, %v], %v; want [%v, %v]", i, len(iv.X), iv.Alpha, lo, hi, err, iv.MeanLower, iv.MeanUpper)
		}
		// scipy's own t.interval, whose t quantile is good to about 5e-9
		if !testutil.Close(lo, iv.ScipyLower, 1e-8) || !testutil.Close(hi, iv.ScipyUpper, 1e-8) {
			t.Errorf("case %d: mean CI [%v, %v]; scipy t.interval [%v, %v]", i, lo, hi, iv.ScipyLower, iv.ScipyUpper)
		}
		mlo, mhi, cov, err := MedianCI(iv.X, iv.Alpha)
		if err != nil || mlo != iv.MedianLower || mhi != iv.MedianUpper || !testutil.Close(cov, iv.Coverage, 1e-12) {
			t.Errorf("case %d (n = %d, alpha = %v): median CI [%v, %v] coverage %v, %v; scipy binom [%v, %v] coverage %v",
				i, len(iv.X), iv.Alpha, mlo, mhi, cov, err, iv.MedianLower, iv.MedianUpper, iv.Coverage)
		}
	}
}

// The magnitudes switch exactly at autorank's thresholds, on either sign.
func TestMagnitudeThresholds(t *testing.T) {
	for _, c := range []struct {
		x     float64
		d, dl string
	}{
		{0, MagnitudeNegligible, MagnitudeNegligible},
		{0.146, MagnitudeNegligible, MagnitudeNegligible},
		{-0.147, MagnitudeNegligible, MagnitudeSmall},
		{0.2, MagnitudeSmall, MagnitudeSmall},
		{0.33, MagnitudeSmall, MagnitudeMedium},
		{-0.474, MagnitudeSmall, MagnitudeLarge},
		{0.5, MagnitudeMedium, MagnitudeLarge},
		{-0.8, MagnitudeLarge, MagnitudeLarge},
		{math.NaN(), "", ""},
	} {
		if got := DMagnitude(c.x); got != c.d {
			t.Errorf("DMagnitude(%v) = %q, want %q", c.x, got, c.d)
		}
		if got := DeltaMagnitude(c.x); got != c.dl {
			t.Errorf("DeltaMagnitude(%v) = %q, want %q", c.x, got, c.dl)
		}
	}
}

// For two groups the studentized range is √2·|T| with T Student's t on
// the same degrees of freedom: P(Q ≤ q) = 1 − 2·P(T > q/√2).
func TestStudentizedRangeTwoGroupsIsT(t *testing.T) {
	for _, df := range []float64{1, 3, 10, 57} {
		for _, q := range []float64{0.3, 1, 2.5, 6, 20, 90} {
			want := 1 - 2*tSF(q/math.Sqrt2, df)
			if got := StudentizedRangeCDF(q, 2, df); !testutil.Close(got, want, 1e-11) {
				t.Errorf("cdf(%v, 2, %v) = %.15g, 1 − 2·tSF = %.15g (diff %.2g)", q, df, got, want, got-want)
			}
		}
	}
}

// As df grows the studentized range tends to the range of k standard
// normals, the difference shrinking like 1/df (about 0.84/df at q = 3.5,
// k = 5): at df = 1e9 it must be within 1e-8 of rangeCDF, which the
// cancelling terms of the chi density's log constant would spoil.
func TestStudentizedRangeLargeDF(t *testing.T) {
	for _, k := range []int{2, 5, 20} {
		for _, q := range []float64{1, 3.5, 6} {
			inf := rangeCDFWide(q, k)
			for _, df := range []float64{1e6, 1e9} {
				if got := StudentizedRangeCDF(q, k, df); math.Abs(got-inf) > 10/df {
					t.Errorf("cdf(%v, %d, %g) = %.15g, df = ∞ gives %.15g", q, k, df, got, inf)
				}
			}
		}
	}
}

// Exactly the same treatment effects on every subject: no error, F = +Inf
// and p = 0 (statsmodels divides by the zero error mean square); a table
// of one value throughout has no F at all.
func TestRepeatedMeasuresANOVAZeroError(t *testing.T) {
	q := [][]float64{{0.5, 0.75, 1}, {0.25, 0.5, 0.75}, {0.375, 0.625, 0.875}}
	r, err := RepeatedMeasuresANOVA(q)
	if err != nil || !math.IsInf(r.F, 1) || r.P != 0 || r.DF1 != 2 || r.DF2 != 4 {
		t.Errorf("zero error: %+v, %v", r, err)
	}
	r, err = RepeatedMeasuresANOVA([][]float64{{1, 1}, {1, 1}, {1, 1}})
	if err != nil || !math.IsNaN(r.F) || !math.IsNaN(r.P) {
		t.Errorf("constant table: %+v, %v", r, err)
	}
}
