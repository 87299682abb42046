package meta

import (
	"math"
	"testing"
)

// TestRegressionPValuesKeepTheirTail: p-values far in the tail are the
// tail itself, never 1 − (something near 1) rounded to 0. The oracles
// are closed forms: 2·Φ(−|z|) = erfc(|z|/√2); χ² on 2 df has the upper
// tail exp(−x/2); F(2, d) has (1 + 2x/d)^(−d/2); Student's t on 2 df
// has 2·P(T ≥ |t|) = 1 − |t|/u = 2/(u(u + |t|)), u = √(2 + t²); the
// exact Kendall p of a perfect concordance is 2/n!.
func TestRegressionPValuesKeepTheirTail(t *testing.T) {
	t.Parallel()
	// Three studies far from 0: the
	// intercept's z is about 16 (p near 1e-60).
	y := []float64{3.0, 3.3, 2.7}
	v := []float64{0.1, 0.1, 0.1}
	d0, _ := NewDesign(3, nil)
	r, err := MetaRegression(y, v, d0, RegOptions{Method: "FE", Test: "z", Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, got, want float64) {
		t.Helper()
		if !(want > 0 && want < 1e-20) {
			t.Fatalf("%s: the case is not in the far tail (p = %g)", what, want)
		}
		if got == 0 || math.Abs(got-want) > 1e-12*want {
			t.Errorf("%s: p = %g, want %g", what, got, want)
		}
	}
	c := r.Coefs[0]
	check("intercept z", c.P, math.Erfc(math.Abs(c.Stat)/math.Sqrt2))
	check("QM (z², 1 df)", r.QMp, math.Erfc(math.Sqrt(r.QM)/math.Sqrt2))
	// QE on 2 df.
	y2 := []float64{0, 1, -1}
	v2 := []float64{0.02, 0.02, 0.02}
	r2, err := MetaRegression(y2, v2, d0, RegOptions{Method: "FE", Test: "z", Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	check("QE (2 df)", r2.QEp, math.Exp(-r2.QE/2))
	// QM on 2 df (z) and F(2, d) (t): two moderators with a strong pull.
	k := 8
	ym := make([]float64, k)
	vm := make([]float64, k)
	x1 := make([]float64, k)
	x2 := make([]float64, k)
	for i := range ym {
		x1[i] = float64(i)
		x2[i] = float64((i * i) % 5)
		ym[i] = 2*x1[i] - x2[i] + 0.01*float64(i%3)
		vm[i] = 1
	}
	d2, err := NewDesign(k, []Moderator{{Name: "x1", Numeric: x1}, {Name: "x2", Numeric: x2}})
	if err != nil {
		t.Fatal(err)
	}
	rz, err := MetaRegression(ym, vm, d2, RegOptions{Method: "FE", Test: "z", Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	check("QM (2 df)", rz.QMp, math.Exp(-rz.QM/2))
	// F(2, 5) has a heavy tail: far smaller variances for it.
	for i := range vm {
		vm[i] = 1e-9
	}
	rt, err := MetaRegression(ym, vm, d2, RegOptions{Method: "FE", Test: "t", Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	df := float64(rt.QMdf[1])
	check("QM F(2, k − p)", rt.QMp, math.Pow(1+2*rt.QM/df, -df/2))
	// t on 2 df: k = 4, p = 2, a slope measured very precisely.
	y3 := []float64{0, 10, 20, 30}
	v3 := []float64{1e-22, 1e-22, 1e-22, 1e-22}
	d3, _ := NewDesign(4, []Moderator{{Name: "x", Numeric: []float64{0, 1, 2, 3}}})
	r3, err := MetaRegression(y3, v3, d3, RegOptions{Method: "FE", Test: "t", Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	ts := math.Abs(r3.Coefs[1].Stat)
	u := math.Sqrt(2 + ts*ts)
	check("slope t (2 df)", r3.Coefs[1].P, 2/(u*(u+ts)))
	// The rank test's exact p and Rosenthal's one-sided p.
	yk := make([]float64, 30)
	vk := make([]float64, 30)
	for i := range yk {
		vk[i] = 0.001 * float64(i+1) * float64(i+1)
		yk[i] = 2 * math.Sqrt(vk[i])
	}
	rk, err := RankTest(yk, vk)
	if err != nil {
		t.Fatal(err)
	}
	// Perfect concordance: P(T = n(n−1)/2) = 1/n!, p = 2/n!.
	check("rank test", rk.P, 2/math.Gamma(31))
	fs, err := FailSafeN(yk, vk, FSNRosenthal, 0.05, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	check("Rosenthal p", fs.P, math.Erfc(2*math.Sqrt(30)/math.Sqrt2)/2)
}
