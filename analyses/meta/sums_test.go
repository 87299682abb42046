package meta

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPairedSumsStudy checks the study made from shifted sums against a
// two-pass computation of the same values (means, sample sds, Pearson's
// r) and against Builder, on values far from zero relative to their
// spread (where unshifted sums would cancel), to 1e-12.
func TestPairedSumsStudy(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, scale := range []struct{ mean, sd float64 }{{0.3, 0.2}, {1, 1e-3}, {1e4, 1}, {-5, 3}} {
		n := 2000
		x, y := make([]float64, n), make([]float64, n)
		b := NewBuilder("T", "C", "drop")
		for i := range x {
			z := r.NormFloat64()
			x[i] = scale.mean + scale.sd*(0.8*z+0.6*r.NormFloat64())
			y[i] = scale.mean + scale.sd*(0.7*z+0.7*r.NormFloat64()) - scale.sd/10
			unit := string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
			if err := b.Add("d", "T", unit, 0, x[i]); err != nil {
				t.Fatal(err)
			}
			if err := b.Add("d", "C", unit, 0, y[i]); err != nil {
				t.Fatal(err)
			}
		}
		// Shifts near the means (as the engine's catalogue gives them).
		sh := PairedSums{N: n, ShiftT: scale.mean * 1.001, ShiftC: scale.mean * 0.999, TreatmentValues: n, ControlValues: n}
		sh.ShiftD = sh.ShiftT - sh.ShiftC
		for i := range x {
			a, c, d := x[i]-sh.ShiftT, y[i]-sh.ShiftC, (x[i]-y[i])-sh.ShiftD
			sh.SumT += a
			sh.SumC += c
			sh.SumD += d
			sh.SumTT += a * a
			sh.SumCC += c * c
			sh.SumTC += a * c
			sh.SumDD += d * d
		}
		got := sh.Study("d")
		// Two-pass reference.
		mean := func(v []float64) float64 {
			s := 0.0
			for _, e := range v {
				s += e
			}
			return s / float64(len(v))
		}
		mx, my := mean(x), mean(y)
		var sxx, syy, sxy, sdd float64
		diff := make([]float64, n)
		for i := range x {
			diff[i] = x[i] - y[i]
		}
		md := mean(diff)
		for i := range x {
			sxx += (x[i] - mx) * (x[i] - mx)
			syy += (y[i] - my) * (y[i] - my)
			sxy += (x[i] - mx) * (y[i] - my)
			sdd += (diff[i] - md) * (diff[i] - md)
		}
		want := Study{N: n, MeanT: mx, MeanC: my, MeanDiff: md, SDT: math.Sqrt(sxx / float64(n-1)), SDC: math.Sqrt(syy / float64(n-1)),
			SDDiff: math.Sqrt(sdd / float64(n-1)), R: sxy / math.Sqrt(sxx*syy)}
		built := b.Finish()[0]
		for _, ref := range []Study{want, built} {
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"MeanT", got.MeanT, ref.MeanT}, {"MeanC", got.MeanC, ref.MeanC}, {"MeanDiff", got.MeanDiff, ref.MeanDiff},
				{"SDT", got.SDT, ref.SDT}, {"SDC", got.SDC, ref.SDC}, {"SDDiff", got.SDDiff, ref.SDDiff}, {"R", got.R, ref.R}} {
				if math.Abs(c.got-c.want) > 1e-12*math.Max(1e-3, math.Abs(c.want)) {
					t.Errorf("scale %v: %s = %.17g, want %.17g", scale, c.name, c.got, c.want)
				}
			}
		}
		if got.N != built.N || got.TreatmentValues != built.TreatmentValues {
			t.Errorf("counts: %+v vs %+v", got, built)
		}
	}
}

// TestTwoGroupStudy checks the two-group study from sums against Groups.
func TestTwoGroupStudy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g := NewGroups("T", "C", "drop")
	var ts, cs GroupSums
	ts.Shift, cs.Shift = 100.0001, 99.9999 // near the means, as the catalogue's rounded means are
	for i := 0; i < 500; i++ {
		for _, side := range []struct {
			m string
			s *GroupSums
		}{{"T", &ts}, {"C", &cs}} {
			v := 100 + r.NormFloat64()*0.01
			if err := g.Add("d", side.m, "", 0, v); err != nil {
				t.Fatal(err)
			}
			side.s.Values++
			side.s.N++
			side.s.Sum += v - side.s.Shift
			side.s.SS += (v - side.s.Shift) * (v - side.s.Shift)
		}
	}
	got, want := TwoGroupStudy("d", ts, cs, 0), g.Finish()[0]
	for _, c := range [][2]float64{{got.M1, want.M1}, {got.M2, want.M2}, {got.SD1, want.SD1}, {got.SD2, want.SD2}} {
		if math.Abs(c[0]-c[1]) > 1e-12*math.Abs(c[1]) {
			t.Errorf("%.17g vs %.17g", c[0], c[1])
		}
	}
	if got.N1 != want.N1 || got.N2 != want.N2 || got.Form != TwoGroup {
		t.Errorf("%+v vs %+v", got, want)
	}
}
