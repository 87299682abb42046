package meta

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

func metaOpts(effect string) Options {
	var o Options
	o.Defaults()
	o.Treatment, o.Control, o.Metric, o.Effect = "NEW", "BASE", "ndcg", effect
	return o
}

// addPairs feeds (t, c) pairs of a dataset by unit id.
func addPairs(t *testing.T, b *Builder, dataset string, pairs ...[2]float64) {
	t.Helper()
	for i, p := range pairs {
		u := string(rune('a' + i))
		if err := b.Add(dataset, "NEW", u, 0, p[0]); err != nil {
			t.Fatal(err)
		}
		if err := b.Add(dataset, "BASE", u, 0, p[1]); err != nil {
			t.Fatal(err)
		}
	}
}

// noNaN fails when a table cell or the JSON holds a non-finite number.
func noNaN(t *testing.T, r *Result) {
	t.Helper()
	for _, tb := range r.Tables() {
		for _, row := range tb.Rows {
			for _, c := range row {
				if f, ok := c.(float64); ok && !analyses.Finite(f) {
					t.Errorf("table %q has a non-finite cell in row %v", tb.Name, row)
				}
			}
		}
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("JSON: %v", err)
	}
}

func hasWarning(r *Result, parts ...string) bool {
	for _, w := range r.List {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(w, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// TestMetaEdgeCases: every undefined effect is a warning naming dataset
// and method, the dataset is left out, and no NaN reaches a table.
func TestMetaEdgeCases(t *testing.T) {
	t.Parallel()
	b := NewBuilder("NEW", "BASE", "drop")
	addPairs(t, b, "good1", [2]float64{0.5, 0.4}, [2]float64{0.6, 0.45}, [2]float64{0.2, 0.25}, [2]float64{0.9, 0.7})
	addPairs(t, b, "good2", [2]float64{0.3, 0.1}, [2]float64{0.35, 0.3}, [2]float64{0.1, 0.12}, [2]float64{0.8, 0.5})
	addPairs(t, b, "constdiff", [2]float64{0.5, 0.4}, [2]float64{0.6, 0.5}, [2]float64{0.7, 0.6}) // zero variance of differences
	addPairs(t, b, "one", [2]float64{0.5, 0.4})                                                   // fewer than 2 units
	addPairs(t, b, "rone", [2]float64{1, 0.5}, [2]float64{2, 1}, [2]float64{3, 1.5})              // r = 1 (and nonzero sd)
	if err := b.Add("nobase", "NEW", "a", 0, 0.3); err != nil {                                   // control missing
		t.Fatal(err)
	}
	b.Seen("nonew") // only another method there
	studies := b.Finish()

	for _, eff := range []string{"md", "smd", "hedges_g"} {
		r, err := Analyze(Input{Metric: analyses.Metric{Name: "ndcg"}, Studies: studies}, metaOpts(eff))
		if err != nil {
			t.Fatal(err)
		}
		noNaN(t, r)
		checks := map[string][]string{
			"constdiff": {"constdiff", "NEW", "BASE", "zero variance"},
			"one":       {"one", "fewer than 2"},
			"nobase":    {"nobase", "method BASE has no values"},
			"nonew":     {"nonew", "neither NEW nor BASE"},
		}
		if eff != "md" {
			checks["rone"] = []string{"rone", "NEW", "BASE", "is 1"}
		}
		for d, parts := range checks {
			if !hasWarning(r, parts...) {
				t.Errorf("%s: no warning %q in %q", eff, parts, r.List)
			}
			for _, row := range r.Rows {
				if row.Dataset == d && row.Included {
					t.Errorf("%s: %s included", eff, d)
				}
			}
		}
		want := 2
		if eff == "md" {
			want = 3 // r = 1 does not matter for a raw mean difference
		}
		if r.Summary.K != want {
			t.Errorf("%s: k = %d, want %d", eff, r.Summary.K, want)
		}
	}
}

// TestMetaSingleDataset: k = 1 gives that dataset's effect as the
// summary, a warning, and null heterogeneity, never NaN.
func TestMetaSingleDataset(t *testing.T) {
	t.Parallel()
	b := NewBuilder("NEW", "BASE", "drop")
	addPairs(t, b, "only", [2]float64{0.5, 0.4}, [2]float64{0.6, 0.45}, [2]float64{0.2, 0.25})
	r, err := Analyze(Input{Metric: analyses.Metric{Name: "ndcg"}, Studies: b.Finish()}, metaOpts("md"))
	if err != nil {
		t.Fatal(err)
	}
	noNaN(t, r)
	if !hasWarning(r, "only one dataset", "only") {
		t.Errorf("warnings %q", r.List)
	}
	s := r.Summary
	if *s.Effect != r.Rows[0].Effect || s.Tau2 != nil || s.I2 != nil || s.PILow != nil || s.Q != nil {
		t.Errorf("k=1 summary %+v", s)
	}
}

// TestMetaFixedKnha: a fixed-effect model with the Knapp–Hartung test
// carries metafor's warning (rma(method = "FE", test = "knha") warns
// "Knapp & Hartung method is not meant to be used in the context of FE
// models."), and the random-effects model does not.
func TestMetaFixedKnha(t *testing.T) {
	t.Parallel()
	for _, model := range []string{"fixed", "random"} {
		b := NewBuilder("NEW", "BASE", "drop")
		addPairs(t, b, "a", [2]float64{0.5, 0.4}, [2]float64{0.6, 0.45}, [2]float64{0.2, 0.25})
		addPairs(t, b, "b", [2]float64{0.3, 0.4}, [2]float64{0.7, 0.45}, [2]float64{0.1, 0.05})
		o := metaOpts("md")
		o.Model, o.Test = model, "knha"
		r, err := Analyze(Input{Metric: analyses.Metric{Name: "ndcg"}, Studies: b.Finish()}, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := hasWarning(r, "Knapp & Hartung method is not meant to be used in the context of FE models"); got != (model == "fixed") {
			t.Errorf("model %s: warnings %q", model, r.List)
		}
	}
}

// TestMetaNothingLeft: when no dataset has a defined effect the analysis
// fails with every reason named.
func TestMetaNothingLeft(t *testing.T) {
	t.Parallel()
	b := NewBuilder("NEW", "BASE", "drop")
	addPairs(t, b, "one", [2]float64{0.5, 0.4})
	_, err := Analyze(Input{Metric: analyses.Metric{Name: "ndcg"}, Studies: b.Finish()}, metaOpts("md"))
	if err == nil || !strings.Contains(err.Error(), "one: fewer than 2") {
		t.Errorf("error %v", err)
	}
}

func TestMetaOptionsValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.Effect = "smdd" }, `did you mean "smd"`},
		{func(o *Options) { o.Tau2 = "REMLL" }, `did you mean "REML"`},
		{func(o *Options) { o.Model = "mixed" }, "model"},
		{func(o *Options) { o.Alpha = 1.5 }, "alpha"},
		{func(o *Options) { o.Control = o.Treatment }, "also the treatment"},
		{func(o *Options) { o.Treatment = "" }, "treatment"},
		{func(o *Options) { o.Datasets = []string{"a", "a"} }, "twice"},
		{func(o *Options) { o.Missing = "keep" }, "missing"},
	} {
		o := metaOpts("md")
		c.edit(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	o := metaOpts("md")
	if err := o.Validate(); err != nil {
		t.Error(err)
	}
}

// TestMetaDatasetsUnknown names a dataset without values with a hint.
func TestMetaDatasetsUnknown(t *testing.T) {
	t.Parallel()
	b := NewBuilder("NEW", "BASE", "drop")
	addPairs(t, b, "movielens", [2]float64{0.5, 0.4}, [2]float64{0.6, 0.45}, [2]float64{0.2, 0.25})
	o := metaOpts("md")
	o.Datasets = []string{"movielen"}
	_, err := Analyze(Input{Metric: analyses.Metric{Name: "ndcg"}, Studies: b.Finish()}, o)
	if err == nil || !strings.Contains(err.Error(), `did you mean "movielens"`) {
		t.Errorf("error %v", err)
	}
	_ = math.NaN
}

// TestMetaSensitivityEdges: too few datasets for the sensitivity
// analysis is a note, not an error; Knapp–Hartung with one dataset
// leaves the interval undefined (null), never NaN in a table; a
// generic summary leaves n empty.
func TestMetaSensitivityEdges(t *testing.T) {
	t.Parallel()
	gen := func(y ...float64) []Study {
		var out []Study
		for i, v := range y {
			out = append(out, Study{Dataset: string(rune('a' + i)), Form: Generic, Yi: v, Vi: 0.01 * float64(i+1)})
		}
		return out
	}
	o := metaOpts("md")
	o.Sensitivity, o.Test = true, "knha"
	r, err := Analyze(Input{Studies: gen(0.1, 0.3)}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(r, "at least 3 datasets") || len(r.LeaveOneOut) != 0 || r.Egger != nil {
		t.Errorf("k = 2: warnings %v, %d leave-one-out rows", r.List, len(r.LeaveOneOut))
	}
	noNaN(t, r)
	r, err = Analyze(Input{Studies: gen(0.1)}, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.CILow != nil || r.Summary.P != nil || !hasWarning(r, "Knapp–Hartung") {
		t.Errorf("k = 1 with knha: CI %v, p %v, warnings %v", r.Summary.CILow, r.Summary.P, r.List)
	}
	noNaN(t, r)
	if n := r.Tables()[0].Rows[0][1]; n != nil {
		t.Errorf("generic summary: n = %v, want empty", n)
	}
	// Equal standard errors: Egger's test has no slope to fit.
	eq := gen(0.1, 0.2, 0.4, 0.3)
	for i := range eq {
		eq[i].Vi = 0.02
	}
	r, err = Analyze(Input{Studies: eq}, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Egger == nil || r.Egger.Z != nil || len(r.Influence) != 4 {
		t.Errorf("equal SEs: egger %+v", r.Egger)
	}
	noNaN(t, r)
	// Two-group summaries: hedges_g is the same effect as smd (metafor's
	// SMD is Hedges' g).
	tg := []Study{{Dataset: "a", Form: TwoGroup, M1: 1.2, SD1: 0.5, N1: 10, M2: 0.8, SD2: 0.4, N2: 12},
		{Dataset: "b", Form: TwoGroup, M1: 1.0, SD1: 0.3, N1: 20, M2: 0.9, SD2: 0.5, N2: 25}}
	a, _ := Analyze(Input{Studies: tg}, metaOpts("smd"))
	b, _ := Analyze(Input{Studies: tg}, metaOpts("hedges_g"))
	if a.Rows[0].Effect != b.Rows[0].Effect || b.Effect != "smd" {
		t.Errorf("two-group hedges_g %v (%s), smd %v", b.Rows[0].Effect, b.Effect, a.Rows[0].Effect)
	}
}

// TestMetaSubgroupsKnha: a one-dataset subgroup under Knapp–Hartung has
// no standard error; it is left out of the test of subgroup differences
// with a note instead of failing.
func TestMetaSubgroupsKnha(t *testing.T) {
	t.Parallel()
	var studies []Study
	groups := map[string]string{}
	for i, y := range []float64{0.1, 0.3, 0.2, 0.5, 0.4, 0.9} {
		d := string(rune('a' + i))
		studies = append(studies, Study{Dataset: d, Form: Generic, Yi: y, Vi: 0.01})
		groups[d] = []string{"x", "x", "y", "y", "y", "z"}[i]
	}
	o := metaOpts("md")
	o.Test, o.Subgroup, o.Sensitivity = "knha", "domain", true
	r, err := Analyze(Input{Studies: studies, Groups: groups}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(r, "subgroup z", "left out of the test") || r.QBetween == nil || r.DFBetween != 1 {
		t.Errorf("warnings %v, Q_between %v, df %d", r.List, r.QBetween, r.DFBetween)
	}
	noNaN(t, r)
}
