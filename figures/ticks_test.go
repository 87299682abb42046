package figures

import (
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/figures/model"
)

// TestRoundTicks: the ticks lie at the multiples of model.NiceStep of a
// fifth of the range (where the interactive chart puts them), within
// the range, one step apart, each labelled with its value at the
// decimals the step needs, and 0 is one of them whenever the range
// holds it.
func TestRoundTicks(t *testing.T) {
	t.Parallel()
	for _, r := range [][2]float64{
		{-1.33, 0.40}, {-1.25, 0.26}, {0.0001, 0.00097}, {-2.4e-3, 1e-3}, {3, 97}, {-1e6, 2e6},
		{0.4, 1}, {-0.236, 0.221}, {0, 1}, {-1, 0}, {1e-12, 3e-12}, {12.5, 12.75}, {0, 2.5e7}, {-3e-6, 7e-6},
	} {
		lo, hi := r[0], r[1]
		ticks := RoundTicks{}.Ticks(lo, hi)
		step := model.NiceStep(hi-lo, 5)
		if len(ticks) < 2 || len(ticks) > 6 {
			t.Errorf("[%g, %g]: %d ticks", lo, hi, len(ticks))
		}
		zero := false
		for i, tk := range ticks {
			if tk.Value < lo-1e-9*step || tk.Value > hi+1e-9*step {
				t.Errorf("[%g, %g]: tick %g outside", lo, hi, tk.Value)
			}
			if q := tk.Value / step; math.Abs(q-math.Round(q)) > 1e-6 {
				t.Errorf("[%g, %g]: tick %g is not a multiple of the step %g", lo, hi, tk.Value, step)
			}
			if i > 0 && math.Abs(tk.Value-ticks[i-1].Value-step) > 1e-9*step {
				t.Errorf("[%g, %g]: ticks %g and %g are not a step (%g) apart", lo, hi, ticks[i-1].Value, tk.Value, step)
			}
			v, err := strconv.ParseFloat(tk.Label, 64)
			if err != nil || math.Abs(v-tk.Value) > 1e-9*step {
				t.Errorf("[%g, %g]: tick %g labelled %q", lo, hi, tk.Value, tk.Label)
			}
			if tk.Label == "" || tk.Label[0] == '-' && v == 0 {
				t.Errorf("[%g, %g]: tick %g labelled %q", lo, hi, tk.Value, tk.Label)
			}
			zero = zero || tk.Value == 0
		}
		if want := lo <= 0 && hi >= 0; zero != want {
			t.Errorf("[%g, %g]: a tick at 0: %v, want %v (%v)", lo, hi, zero, want, ticks)
		}
	}
	// a range that is not a finite span: no ticks, or the point
	// a span within the values' float precision: its two ends (the
	// ticks' loop would not advance)
	if got := (RoundTicks{}).Ticks(1e17, 1e17+64); len(got) != 2 {
		t.Errorf("[1e17, 1e17+64]: %v", got)
	}
	// e-notation for very large and very small steps, without float noise
	if got := (RoundTicks{}).Ticks(-3e-6, 7e-6); got[0].Label != "-2e-06" || got[1].Label != "0" || got[3].Label != "4e-06" {
		t.Errorf("[-3e-6, 7e-6]: labels %v", got)
	}
	if got := (RoundTicks{}).Ticks(0, 1.2e-5); got[3].Label != "7.5e-06" {
		t.Errorf("[0, 1.2e-5]: labels %v", got)
	}
	if got := (RoundTicks{}).Ticks(0, 2.5e7); got[1].Label != "5e+06" {
		t.Errorf("[0, 2.5e7]: labels %v", got)
	}
	if got := (RoundTicks{}).Ticks(0.25, 0.25); len(got) != 1 || got[0].Value != 0.25 || got[0].Label != "0.25" {
		t.Errorf("a point range: %v", got)
	}
	for _, r := range [][2]float64{{math.Inf(-1), 1}, {math.NaN(), 1}, {2, 1}} {
		if got := (RoundTicks{}).Ticks(r[0], r[1]); len(got) != 0 {
			t.Errorf("[%g, %g]: %v", r[0], r[1], got)
		}
	}
}

// TestForestLabelsNoEffect: a forest plot whose intervals run from
// −1.33 to 0.40 labels the line of no effect, 0 (gonum/plot's default
// ticks label −1.2, −0.4 and 0.4 there, and not 0).
func TestForestLabelsNoEffect(t *testing.T) {
	t.Parallel()
	se := func(lo, hi float64) float64 { return (hi - lo) / (2 * 1.959963984540054) }
	studies := []meta.Study{
		{Dataset: "T01", Form: meta.Generic, Yi: -0.725, Vi: math.Pow(se(-1.33, -0.12), 2)},
		{Dataset: "T03", Form: meta.Generic, Yi: -0.10, Vi: math.Pow(se(-0.60, 0.40), 2)},
		{Dataset: "T14", Form: meta.Generic, Yi: -0.23, Vi: math.Pow(se(-0.33, -0.13), 2)},
	}
	_, figs := metaFigures(t, "churn", "new", "old", "churn", studies)
	labels := regexp.MustCompile(`>(-?[0-9.]+)</text>`).FindAllStringSubmatch(string(figs[0].SVG), -1)
	var got []string
	zero := false
	for _, l := range labels {
		got = append(got, l[1])
		if v, err := strconv.ParseFloat(l[1], 64); err == nil && v == 0 {
			zero = true
		}
	}
	if !zero {
		t.Errorf("the forest plot's axis does not label 0; its numeric labels: %q", got)
	}
}
