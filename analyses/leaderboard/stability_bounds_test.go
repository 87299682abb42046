package leaderboard

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// TestStabilityMatricesCounted: StabilityMatrices counts exactly the
// matrices the analysis scores (the scorer is called once per matrix,
// plus once for the reference rankings), over sizes below and above
// curve_points and similar_methods, so the limits applied before any
// work are applied to the work done.
func TestStabilityMatricesCounted(t *testing.T) {
	for _, c := range []struct{ nd, nm, repeats, points, similar int }{
		{6, 5, 3, 0, 0},
		{12, 9, 5, 4, 3},
		{30, 11, 10, 0, 0},
		{70, 8, 2, 0, 0},  // drop_datasets past 50 sizes
		{8, 60, 2, 0, 0},  // drop_methods and similar_method past 50
		{11, 11, 7, 5, 4}, // subset_pairs of 5 on 11 datasets, sampled
	} {
		in, op := stabilityRandom(c.nd, c.nm, 3)
		op.Repeats, op.CurvePoints, op.SimilarMethods = c.repeats, c.points, c.similar
		op.Rules = []string{RuleMean, RuleBorda, RuleDMAUC}
		op.Defaults()
		var calls atomic.Int64
		counting := func(rules []string, q analyses.Matrix, v stabView, betaMax float64) ([][]float64, []error) {
			calls.Add(1)
			return stabilityScores(rules, q, true, betaMax, v)
		}
		if _, err := stability(in, op, counting, analyses.MaxStabilityPairwise); err != nil {
			t.Fatal(err)
		}
		if got, want := int(calls.Load())-1, StabilityMatrices(op, c.nd, c.nm); got != want {
			t.Errorf("%d × %d (repeats %d, curve_points %d, similar_methods %d): scored %d matrices, StabilityMatrices says %d", c.nd, c.nm, c.repeats, op.CurvePoints, op.SimilarMethods, got, want)
		}
	}
}

// TestStabilityMatricesBounded: past curve_points and similar_methods the
// number of matrices no longer grows with the datasets or the methods,
// which is what keeps the analysis's work near linear in either.
func TestStabilityMatricesBounded(t *testing.T) {
	op := StabilityOptions{Metric: "q", Repeats: 10}
	op.Defaults()
	for _, c := range []struct{ a, b [2]int }{
		{[2]int{10, 1000}, [2]int{10, 10000}},
		{[2]int{1000, 10}, [2]int{10000, 10}},
	} {
		x, y := StabilityMatrices(op, c.a[0], c.a[1]), StabilityMatrices(op, c.b[0], c.b[1])
		if x != y {
			t.Errorf("%v: %d matrices, %v: %d; want the same past curve_points", c.a, x, c.b, y)
		}
	}
}

// TestStabilityCurveSizes: every size up to curve_points, then that many
// evenly spaced from 1 to the largest, both ends included, distinct.
func TestStabilityCurveSizes(t *testing.T) {
	if got := stabCurveSizes(5, 50); !slices.Equal(got, []int{1, 2, 3, 4, 5}) {
		t.Errorf("5 sizes: %v", got)
	}
	if got := stabCurveSizes(9, 5); !slices.Equal(got, []int{1, 3, 5, 7, 9}) {
		t.Errorf("9 sizes at 5 points: %v", got)
	}
	for _, c := range []struct{ largest, points int }{{51, 50}, {998, 50}, {9998, 50}, {100, 2}} {
		got := stabCurveSizes(c.largest, c.points)
		if len(got) != c.points || got[0] != 1 || got[len(got)-1] != c.largest {
			t.Errorf("%d at %d points: %d sizes from %d to %d", c.largest, c.points, len(got), got[0], got[len(got)-1])
		}
		for i := 1; i < len(got); i++ {
			if got[i] <= got[i-1] {
				t.Fatalf("%d at %d points: %v not increasing", c.largest, c.points, got)
			}
		}
	}
}

// TestStabilityCurvePoints: a drop_datasets curve over 70 datasets has
// curve_points points with a warning that says so, and similar_method
// over 60 methods clones a seeded sample of similar_methods of them,
// listed in the result.
func TestStabilityCurvePoints(t *testing.T) {
	in, op := stabilityRandom(70, 60, 5)
	op.Rules = []string{RuleMean, RuleBorda}
	op.Perturbations = []string{PerturbDropDatasets, PerturbDropMethods, PerturbSimilarMethod}
	op.Repeats, op.CurvePoints, op.SimilarMethods = 2, 10, 7
	r, err := Stability(in, op)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{PerturbDropDatasets, PerturbDropMethods} {
		c := r.Curve(p, RuleMean)
		if len(c.Points) != 10 {
			t.Errorf("%s: %d points, want curve_points = 10", p, len(c.Points))
		}
	}
	if got := r.Curve(PerturbSimilarMethod, RuleMean).Points[0].Count; got != 7 {
		t.Errorf("similar_method: %d clones per α, want 7", got)
	}
	if len(r.SimilarSample) != 7 || r.CurvePoints != 10 || r.SimilarMethods != 7 {
		t.Errorf("result: sample %v, curve_points %d, similar_methods %d", r.SimilarSample, r.CurvePoints, r.SimilarMethods)
	}
	for _, want := range []string{"drop_datasets is drawn at 10 of its 68 sizes", "drop_methods is drawn at 10 of its 57 sizes", "similar_method clones 7 of the 60 methods"} {
		if !slices.ContainsFunc(r.List, func(w string) bool { return strings.Contains(w, want) }) {
			t.Errorf("no warning %q in %q", want, r.List)
		}
	}
	again, err := Stability(in, op)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.SimilarSample, r.SimilarSample) {
		t.Errorf("the sample is not seeded: %v then %v", r.SimilarSample, again.SimilarSample)
	}
}

// TestStabilityPairwiseBound: past analyses.MaxStabilityPairwise the
// default rules leave Copeland, Minimax and DM-LBO out with a warning,
// a rules list naming one is an error on the rules key, and the Pareto
// check runs on the full data only; within it everything runs.
func TestStabilityPairwiseBound(t *testing.T) {
	var w analyses.Warnings
	const limit = analyses.MaxStabilityPairwise
	rules, scope, err := stabilityPairwise(AllRules, 100, 10, 100, limit, &w)
	if err != nil || !slices.Equal(rules, AllRules) || scope != "all" || len(w.List) != 0 {
		t.Fatalf("within the bound: %v %q %v %v", rules, scope, err, w.List)
	}
	// 2 300 matrices of 10 × 1 000: 1.1·10¹⁰ comparisons.
	rules, scope, err = stabilityPairwise(AllRules, 2300, 10, 1000, limit, &w)
	if err != nil || scope != "full" || slices.ContainsFunc(rules, isQuadraticRule) || len(rules) != len(AllRules)-3 {
		t.Fatalf("past the bound: %v %q %v", rules, scope, err)
	}
	if len(w.List) != 2 || !strings.Contains(w.List[0], "copeland, minimax and dm_lbo left out of the default rules") || !strings.Contains(w.List[1], "Pareto check runs on the full data only") {
		t.Errorf("warnings: %q", w.List)
	}
	_, _, err = stabilityPairwise([]string{RuleMean, RuleDMLBO}, 2300, 10, 1000, limit, &w)
	var oe *analyses.OptionError
	if !errors.As(err, &oe) || oe.Key != "rules" || !strings.Contains(oe.Msg, "dm_lbo: its work grows with the square of the methods") {
		t.Errorf("a named quadratic rule: %v", err)
	}
	// 10 × 10 000 on the full data alone is past MaxMajorityComparisons.
	w = analyses.Warnings{}
	if _, scope, _ := stabilityPairwise([]string{RuleMean}, 2300, 10, 10000, limit, &w); scope != "none" || !strings.Contains(strings.Join(w.List, " "), "the Pareto check is left out") {
		t.Errorf("10 000 methods: scope %q, warnings %q", scope, w.List)
	}
}

// TestStabilityParetoFullOnly: with the Pareto check on the full data
// only, each rule is checked on one matrix and the curves are those of
// the full check (the check does not change ρ).
func TestStabilityParetoFullOnly(t *testing.T) {
	in, op := stabilityRandom(9, 6, 2)
	op.Rules = []string{RuleMean, RuleBorda}
	op.Repeats = 5
	op.Defaults()
	all, err := Stability(in, op)
	if err != nil {
		t.Fatal(err)
	}
	// a limit of one comparison: past it on every perturbed matrix, and
	// the full data (9 × 15 pairs) within MaxMajorityComparisons
	full, err := stability(in, op, honestScorer, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range full.Pareto {
		if p.Checked != 1 || all.Pareto[i].Checked <= 1 {
			t.Errorf("%s: checked %d matrices (full data only), %d with every matrix", p.Rule, p.Checked, all.Pareto[i].Checked)
		}
	}
	if full.ParetoScope != "full" || all.ParetoScope != "all" {
		t.Errorf("scopes %q, %q", full.ParetoScope, all.ParetoScope)
	}
	for i := range all.Curves {
		for k, pt := range all.Curves[i].Points {
			if fmt.Sprintf("%+v", pt) != fmt.Sprintf("%+v", full.Curves[i].Points[k]) { // NaN sd at one matrix
				t.Fatalf("%s/%s point %d differs: %+v vs %+v", all.Curves[i].Perturbation, all.Curves[i].Rule, k, pt, full.Curves[i].Points[k])
			}
		}
	}
}

// honestScorer is the analysis's own scorer for a higher-is-better metric.
func honestScorer(rules []string, q analyses.Matrix, v stabView, betaMax float64) ([][]float64, []error) {
	return stabilityScores(rules, q, true, betaMax, v)
}
