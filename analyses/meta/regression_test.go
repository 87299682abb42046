package meta

import (
	"encoding/json"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
)

// regressionOracle is testdata/oracle/meta/regression.json, written by
// gen_regression.R with R metafor (rma(yi, vi, mods, method, test)).
type regressionOracle struct {
	Meta  map[string]any `json:"meta"`
	Cases []struct {
		Name        string               `json:"name"`
		Yi          []float64            `json:"yi"`
		Vi          []float64            `json:"vi"`
		Terms       []string             `json:"terms"`
		Numeric     map[string][]float64 `json:"numeric"`
		Categorical map[string][]string  `json:"categorical"`
		Fits        map[string]struct {
			Warnings []string `json:"warnings"`
			Names    []string `json:"names"`
			Est      []rnum   `json:"est"`
			SE       []rnum   `json:"se"`
			Stat     []rnum   `json:"stat"`
			P        []rnum   `json:"p"`
			CILow    []rnum   `json:"ci_low"`
			CIHigh   []rnum   `json:"ci_high"`
			QM       rnum     `json:"QM"`
			QMdf     []int    `json:"QMdf"`
			QMp      rnum     `json:"QMp"`
			QE       rnum     `json:"QE"`
			QEp      rnum     `json:"QEp"`
			Tau2     rnum     `json:"tau2"`
			I2       rnum     `json:"I2"`
			H2       rnum     `json:"H2"`
			R2       rnum     `json:"R2"`
			PI       []rnum   `json:"pi"`
		} `json:"fits"`
	} `json:"cases"`
}

// TestMetaRegressionMetafor checks coefficients (estimate, se, statistic,
// p, CI), QM with its degrees of freedom and p (χ², or F under t and
// knha), QE, τ², I², H², the pseudo R² and the warnings against metafor
// for every estimator, with τ² fixed at 0.04, and every test (z, t,
// knha): dat.bcg with ~ 1, ~ ablat, ~ ablat + year, ~ alloc (treatment
// coding) and ~ ablat + alloc, and 12 random cases with up to three
// numeric moderators, some far from zero (years), some with a
// categorical one. Everything is compared to 1e-9, the iterative
// estimators (ML, REML, EB, PM, and the intercept-only refit behind R²)
// too: their fixtures are made under tight control (gen_regression.R),
// so both sides hold the converged τ².
func TestMetaRegressionMetafor(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/oracle/meta/regression.json")
	if err != nil {
		t.Fatal(err)
	}
	var o regressionOracle
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	if len(o.Cases) < 10 {
		t.Fatalf("%d cases", len(o.Cases))
	}
	seen := map[string]bool{}
	for _, cs := range o.Cases {
		var mods []Moderator
		for _, v := range cs.Terms {
			if x, ok := cs.Numeric[v]; ok {
				mods = append(mods, Moderator{Name: v, Numeric: x})
			} else {
				mods = append(mods, Moderator{Name: v, Values: cs.Categorical[v]})
			}
		}
		d, err := NewDesign(len(cs.Yi), mods)
		if err != nil {
			t.Fatalf("%s: %v", cs.Name, err)
		}
		keys := make([]string, 0, len(cs.Fits))
		for k := range cs.Fits {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, key := range keys {
			want := cs.Fits[key]
			method, test, _ := strings.Cut(key, "/")
			seen[method+"/"+test] = true
			o := RegOptions{Method: method, Test: test, Alpha: 0.05}
			if method == "FIX" {
				o = RegOptions{Method: "REML", Test: test, Alpha: 0.05, FixTau2: true, Tau2: 0.04}
			}
			got, err := MetaRegression(cs.Yi, cs.Vi, d, o)
			if err != nil {
				t.Errorf("%s %s: %v", cs.Name, key, err)
				continue
			}
			const tol = 1e-9
			c := metaChecker{t, cs.Name + " " + key, tol}
			if strings.Join(d.Names, ",") != strings.Join(want.Names, ",") {
				t.Errorf("%s: coefficients %q, metafor %q", cs.Name, d.Names, want.Names)
				continue
			}
			for j, co := range got.Coefs {
				n := co.Name + "."
				c.eq(n+"est", co.Est, float64(want.Est[j]))
				c.eq(n+"se", co.SE, float64(want.SE[j]))
				c.eq(n+"stat", co.Stat, float64(want.Stat[j]))
				c.eq(n+"p", co.P, float64(want.P[j]))
				c.eq(n+"ci_low", co.CILow, float64(want.CILow[j]))
				c.eq(n+"ci_high", co.CIHigh, float64(want.CIHigh[j]))
			}
			c.eq("QM", got.QM, float64(want.QM))
			c.eq("QMp", got.QMp, float64(want.QMp))
			if got.QMdf[0] != want.QMdf[0] || (len(want.QMdf) > 1 && got.QMdf[1] != want.QMdf[1]) {
				t.Errorf("%s %s: QM df %v, metafor %v", cs.Name, key, got.QMdf, want.QMdf)
			}
			c.eq("QE", got.QE, float64(want.QE))
			c.eq("QEp", got.QEp, float64(want.QEp))
			c.eq("tau2", got.Tau2, float64(want.Tau2))
			// I² and R² are percents: compared as the fractions they
			// are (metafor's own QE, from an uncentred k × k P, is off
			// by ~2e-11 relative when a moderator sits near 2000, which
			// a QR fit with centred columns confirms; in I² = 1 − df/QE
			// near 1 % that is 1.7e-9 of a percent).
			c.eq("I2 (fraction)", got.I2/100, float64(want.I2)/100)
			c.eq("H2", got.H2, float64(want.H2))
			if math.IsNaN(float64(want.R2)) != math.IsNaN(got.R2) {
				t.Errorf("%s %s: R2 = %v, metafor %v", cs.Name, key, got.R2, want.R2)
			}
			c.eq("R2 (fraction)", got.R2/100, float64(want.R2)/100)
			lo, hi := got.PredictionInterval(0.05)
			c.eq("pi_low", lo, float64(want.PI[0]))
			c.eq("pi_high", hi, float64(want.PI[1]))
			// metafor gives no interval for an FE model; here it is the
			// confidence interval, as the analysis's summary shows it.
			if method != "FE" && math.IsNaN(float64(want.PI[0])) != math.IsNaN(lo) {
				t.Errorf("%s %s: prediction interval [%v, %v], metafor %v", cs.Name, key, lo, hi, want.PI)
			}
			if strings.Join(got.Warnings, "|") != strings.Join(want.Warnings, "|") {
				t.Errorf("%s %s: warnings %q, metafor %q", cs.Name, key, got.Warnings, want.Warnings)
			}
		}
	}
	if len(seen) != 30 {
		t.Errorf("fixtures cover %d estimator/test pairs, want 30", len(seen))
	}
}

// TestMetaRegressionRefusals: what metafor would fit wrongly or drop
// with a warning is an error here, naming the row or the moderators.
func TestMetaRegressionRefusals(t *testing.T) {
	t.Parallel()
	y := []float64{0.1, 0.3, -0.2, 0.5, 0.0}
	v := []float64{0.01, 0.02, 0.015, 0.03, 0.01}
	x := []float64{1, 2, 3, 4, 5}
	design := func(mods ...Moderator) Design {
		t.Helper()
		d, err := NewDesign(len(y), mods)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	o := RegOptions{Method: "REML", Test: "z", Alpha: 0.05}
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"collinear", func() error {
			_, err := MetaRegression(y, v, design(Moderator{Name: "x", Numeric: x}, Moderator{Name: "x2", Numeric: []float64{2, 4, 6, 8, 10}}), o)
			return err
		}, `the moderators ["x" "x2"] are collinear: a coefficient is not identified`},
		{"k <= p", func() error {
			_, err := MetaRegression(y[:2], v[:2], Design{Names: []string{"intrcpt", "x"}, X: [][]float64{{1, 1}, {1, 2}}}, o)
			return err
		}, "2 studies for 2 coefficients: a meta-regression needs more studies than coefficients"},
		{"vi", func() error {
			_, err := MetaRegression(y, []float64{0.01, 0.02, 0, 0.03, 0.01}, design(Moderator{Name: "x", Numeric: x}), o)
			return err
		}, "row 3: vi = 0: a sampling variance must be a positive number"},
		{"one level", func() error {
			_, err := NewDesign(5, []Moderator{{Name: "g", Values: []string{"a", "a", "a", "a", "a"}}})
			return err
		}, "moderator g has a single level in the data: it cannot be told from the intercept"},
		{"unknown level", func() error {
			_, err := NewDesign(5, []Moderator{{Name: "g", Levels: []string{"a", "b"}, Values: []string{"a", "b", "c", "a", "b"}}})
			return err
		}, `row 3: moderator g = "c" is not one of its levels ["a" "b"]`},
		{"moderator NaN", func() error {
			_, err := NewDesign(5, []Moderator{{Name: "x", Numeric: []float64{1, 2, 3, math.NaN(), 5}}})
			return err
		}, "row 4: moderator x = NaN is not a number"},
		{"ragged design", func() error {
			_, err := MetaRegression(y[:3], v[:3], Design{Names: []string{"intrcpt", "x"}, X: [][]float64{{1, 1}, {1}, {1, 3}}}, o)
			return err
		}, `row 2: the design row has 1 values for 2 coefficients ["intrcpt" "x"], the first the intercept's 1`},
		{"fixed tau2 with FE", func() error {
			_, err := MetaRegression(y, v, design(), RegOptions{Method: "FE", Test: "z", Alpha: 0.05, FixTau2: true, Tau2: 0.04})
			return err
		}, "a fixed-effects model has τ² = 0: a fixed τ² needs a random-effects model"},
	}
	for _, c := range cases {
		err := c.run()
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// TestDesignTreatmentCoding: a categorical moderator's reference is its
// first level in sorted order (R's factor) unless Levels says otherwise,
// and each other level is a 0/1 column named moderator+level, as R names
// it.
func TestDesignTreatmentCoding(t *testing.T) {
	t.Parallel()
	vals := []string{"systematic", "random", "alternate", "random"}
	d, err := NewDesign(4, []Moderator{{Name: "alloc", Values: vals}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.Names, ","); got != "intrcpt,allocrandom,allocsystematic" {
		t.Errorf("names %s", got)
	}
	for i, v := range vals {
		want := []float64{1, 0, 0}
		switch v {
		case "random":
			want[1] = 1
		case "systematic":
			want[2] = 1
		}
		for j := range want {
			if d.X[i][j] != want[j] {
				t.Errorf("row %d (%s): %v, want %v", i, v, d.X[i], want)
				break
			}
		}
	}
	d, err = NewDesign(4, []Moderator{{Name: "alloc", Levels: []string{"random", "alternate", "systematic"}, Values: vals}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.Names, ","); got != "intrcpt,allocalternate,allocsystematic" {
		t.Errorf("with levels: names %s", got)
	}
}
