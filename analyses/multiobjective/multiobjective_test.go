package multiobjective

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/internal/testutil"

	"github.com/evalbook/evalbook/analyses"

	"github.com/BurntSushi/toml"
)

type moCase struct {
	Name    string   `json:"name"`
	Models  []string `json:"models"`
	Metrics []struct {
		Name   string `json:"name"`
		Better string `json:"better"`
	} `json:"metrics"`
	Values     map[string][]*float64 `json:"values"`
	Base       string                `json:"base"`
	Objectives []string              `json:"objectives"`
	Importance []float64             `json:"importance"`
	EvalRS2022 *EvalRS2022Options    `json:"evalrs2022"`
	Expected   struct {
		Front []int `json:"front"`
		Fits  []struct {
			Objective  string   `json:"objective"`
			ParetoRows []int    `json:"pareto_rows"`
			Slope      *float64 `json:"slope"`
			Intercept  *float64 `json:"intercept"`
			R2         *float64 `json:"r2"`
		} `json:"fits"`
		Delta             [][]*float64 `json:"delta"`
		Score             []*float64   `json:"score"`
		EvalRS2022        []*float64   `json:"evalrs2022"`
		BelowThreshold    []bool       `json:"below_threshold"`
		ImpliedImportance []*float64   `json:"implied_importance"`
	} `json:"expected"`
}

func moLoadCases(t *testing.T) []moCase {
	t.Helper()
	b, err := os.ReadFile("testdata/oracle/multi_objective/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []moCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Cases
}

func moCaseInput(c moCase) (Input, Options) {
	in := Input{Models: c.Models, Metrics: map[string]analyses.Metric{}, Values: map[string][]float64{}}
	for _, m := range c.Metrics {
		met := analyses.Metric{Name: m.Name, Max: math.Inf(1)}
		if m.Better == "lower" {
			met.Better = analyses.LowerIsBetter
		}
		in.Metrics[m.Name] = met
		v := make([]float64, len(c.Models))
		for i, x := range c.Values[m.Name] {
			v[i] = math.NaN()
			if x != nil {
				v[i] = *x
			}
		}
		in.Values[m.Name] = v
	}
	o := Options{Base: c.Base, Objectives: c.Objectives, Importance: Importance{List: c.Importance}}
	o.Defaults()
	if c.EvalRS2022 != nil {
		o.EvalRS2022 = c.EvalRS2022
		o.EvalRS2022.Penalty = -100
	}
	return in, o
}

// moClose compares an optional number with the oracle's (1e-12 absolute
// or relative: the fit is the same least-squares problem).
func moClose(t *testing.T, what string, got, want *float64) {
	t.Helper()
	switch {
	case got == nil && want == nil:
	case got == nil || want == nil:
		t.Errorf("%s: got %v, want %v", what, fmtPtr(got), fmtPtr(want))
	case !testutil.Close(*got, *want, 1e-12):
		t.Errorf("%s: got %.17g, want %.17g", what, *got, *want)
	}
}

func fmtPtr(p *float64) any {
	if p == nil {
		return "nil"
	}
	return *p
}

// TestMultiObjectiveOracle checks fronts, Pareto sets, fits, differentials
// and scores against gen.py (brute-force sorting, numpy.polyfit) on point
// sets with ties, duplicates, lower-is-better metrics and missing values.
func TestMultiObjectiveOracle(t *testing.T) {
	t.Parallel()
	for _, c := range moLoadCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			in, o := moCaseInput(c)
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			r, err := Analyze(in, o)
			if err != nil {
				t.Fatal(err)
			}
			e := c.Expected
			if !reflect.DeepEqual(r.Front, e.Front) {
				t.Errorf("fronts\n got %v\nwant %v", r.Front, e.Front)
			}
			for j, f := range e.Fits {
				g := r.Fits[j]
				if g.Objective != f.Objective || !reflect.DeepEqual(g.ParetoRows, f.ParetoRows) {
					t.Errorf("%s: Pareto rows %v, want %v", f.Objective, g.ParetoRows, f.ParetoRows)
				}
				moClose(t, f.Objective+" slope", g.Slope, f.Slope)
				moClose(t, f.Objective+" intercept", g.Intercept, f.Intercept)
				moClose(t, f.Objective+" r2", g.R2, f.R2)
				for i := range c.Models {
					moClose(t, f.Objective+" delta", r.Delta[j][i], e.Delta[j][i])
				}
				if e.ImpliedImportance != nil {
					moClose(t, f.Objective+" implied importance", g.ImpliedImportance, e.ImpliedImportance[j])
				}
			}
			for i := range c.Models {
				moClose(t, "score of row "+c.Models[i], r.Score[i], e.Score[i])
			}
			if c.EvalRS2022 != nil {
				for i := range c.Models {
					moClose(t, "2022 score of "+c.Models[i], r.EvalRS2022[i], e.EvalRS2022[i])
				}
				if !reflect.DeepEqual(r.Penalised, e.BelowThreshold) {
					t.Errorf("below threshold %v, want %v", r.Penalised, e.BelowThreshold)
				}
			}
			moCheckTables(t, r)
		})
	}
}

// moCheckTables checks the tables' contract (the README's columns) on any
// result.
func moCheckTables(t *testing.T, r *Result) {
	t.Helper()
	tabs := r.Tables()
	want := []string{"model", "front", "score", "evalrs2022_score"}
	for _, m := range r.Objectives {
		want = append(want, "delta_"+m)
	}
	if !reflect.DeepEqual(tabs[0].Columns, want) || tabs[0].Name != "" || len(tabs[0].Rows) != len(r.Models) {
		t.Errorf("main table %q: columns %v, %d rows", tabs[0].Name, tabs[0].Columns, len(tabs[0].Rows))
	}
	if tabs[1].Name != "leaderboard" || !reflect.DeepEqual(tabs[1].Columns, []string{"model", "best_score", "best_evalrs2022_score"}) {
		t.Errorf("leaderboard table %q: %v", tabs[1].Name, tabs[1].Columns)
	}
	if tabs[2].Name != "fits" || !reflect.DeepEqual(tabs[2].Columns, []string{"objective", "pareto_points", "slope", "intercept", "r2", "implied_importance"}) {
		t.Errorf("fits table %q: %v", tabs[2].Name, tabs[2].Columns)
	}
	// Leaderboard: one row per distinct model, each its best, best first.
	best := map[string]float64{}
	for i, m := range r.Models {
		if r.Score[i] != nil {
			if b, ok := best[m]; !ok || *r.Score[i] > b {
				best[m] = *r.Score[i]
			}
		}
	}
	prev := math.Inf(1)
	for _, row := range tabs[1].Rows {
		if row[1] == nil {
			prev = math.Inf(-1)
			continue
		}
		s := row[1].(float64)
		if s != best[row[0].(string)] || s > prev {
			t.Errorf("leaderboard row %v: best %v, previous %v", row, best[row[0].(string)], prev)
		}
		prev = s
	}
	for _, tab := range tabs {
		for _, row := range tab.Rows {
			for _, cell := range row {
				if f, ok := cell.(float64); ok && !analyses.Finite(f) {
					t.Errorf("table %q has a non-finite cell in %v", tab.Name, row)
				}
			}
		}
	}
}

// TestMultiObjectiveOptionsTOML decodes the [analyses.evalrs2022] sub-table
// (the README's multi_objective keys) as a nested struct field, and the
// shapes of input and importance.
func TestMultiObjectiveOptionsTOML(t *testing.T) {
	t.Parallel()
	src := `
input = { path = "subs.parquet", columns = { model = "participant_id" } }
base = "hit_rate"
objectives = ["mred_gender", "diversity"]
importance = { mred_gender = 2 }

[evalrs2022]
baseline = { hit_rate = 0.01, mred_gender = -0.004, diversity = 0 }
best = { hit_rate = 0.2, mred_gender = -0.001, diversity = 1 }
threshold = { hit_rate = 0.015 }
[evalrs2022.groups]
performance = { weight = 1, metrics = ["hit_rate"] }
fairness = { weight = 1.5, metrics = ["mred_gender", "diversity"] }
`
	var o Options
	o.Defaults()
	if _, err := toml.Decode(src, &o); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	e := o.EvalRS2022
	if o.Input.Path != "subs.parquet" || o.Input.Columns["model"] != "participant_id" ||
		e.Groups["fairness"].Weight != 1.5 || !reflect.DeepEqual(e.Groups["fairness"].Metrics, []string{"mred_gender", "diversity"}) ||
		e.Threshold["hit_rate"] != 0.015 || e.Best["diversity"] != 1 || e.Penalty != -100 {
		t.Errorf("decoded %+v, evalrs2022 %+v", o, e)
	}
	if l, _ := o.Importance.resolve(o.Objectives); !reflect.DeepEqual(l, []float64{2, 1}) {
		t.Errorf("importance %v", l)
	}
	// importance = 0 means "ignore the objectives", not "unset".
	var zero Options
	if _, err := toml.Decode("objectives = [\"a\", \"b\"]\nimportance = 0", &zero); err != nil {
		t.Fatal(err)
	}
	if l, _ := zero.Importance.resolve(zero.Objectives); !reflect.DeepEqual(l, []float64{0, 0}) {
		t.Errorf("importance = 0 resolved to %v", l)
	}
	if l, _ := (Importance{}).resolve([]string{"a"}); !reflect.DeepEqual(l, []float64{1}) {
		t.Errorf("default importance %v", l)
	}
	for _, bad := range []struct{ src, want string }{
		{`base = "a"` + "\n" + `objectives = ["b"]` + "\n[evalrs2022]\nbaseline = {a = 0}\nbest = {a = 1}\ngroups = { g = { weight = 1, metrix = [\"a\"] } }", `unknown key "metrix" (did you mean "metrics"?)`},
		{`base = "a"` + "\n" + `objectives = ["b"]` + "\n[evalrs2022]\nbaseline = {a = 0}\nbest = {a = 1}\ngroups = { g = { weight = 1, metrics = [\"a\"] } }\nthreshhold = {a = 1}", `unknown key "threshhold"`},
		{`input = { file = "x" }`, `input: unknown key "file"`},
		{`importance = "high"`, "importance: want a number"},
	} {
		var o Options
		_, err := toml.Decode(bad.src, &o)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.src, err, bad.want)
		}
	}
	for _, bad := range []struct {
		o    Options
		want string
	}{
		{Options{Objectives: []string{"b"}}, "base: required"},
		{Options{Base: "a"}, "objectives: required"},
		{Options{Base: "a", Objectives: []string{"a"}}, `objectives: "a" is the base`},
		{Options{Base: "a", Objectives: []string{"b"}, Importance: Importance{PerObjective: map[string]float64{"c": 2}}}, `"c" is not an objective`},
		{Options{Base: "a", Objectives: []string{"b"}, Importance: Importance{List: []float64{1, 2}}}, "2 values for 1 objectives"},
		{Options{Base: "a", Objectives: []string{"b"}, RankBy: "evalrs2022"}, "needs an [analyses.evalrs2022] table"},
		{Options{Base: "a", Objectives: []string{"b"}, EvalRS2022: &EvalRS2022Options{Baseline: map[string]float64{"a": 1}, Best: map[string]float64{"a": 1}, Groups: map[string]EvalRS2022Group{"g": {Weight: 1, Metrics: []string{"a"}}}}}, "normalisation (x − baseline)/(best − baseline) is undefined"},
		{Options{Base: "a", Objectives: []string{"b"}, EvalRS2022: &EvalRS2022Options{Baseline: map[string]float64{"a": 0}, Best: map[string]float64{"a": 1}, Groups: map[string]EvalRS2022Group{"g": {Weight: 1, Metrics: []string{"a", "b"}}}}}, `evalrs2022.baseline: no value for "b"`},
	} {
		bad.o.Defaults()
		if err := bad.o.Validate(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: error %v, want %q", bad.o, err, bad.want)
		}
	}
}

// TestMultiObjectiveEdges covers inputs with nothing to fit.
func TestMultiObjectiveEdges(t *testing.T) {
	t.Parallel()
	hi := analyses.Metric{Name: "x", Max: math.Inf(1)}
	o := Options{Base: "a", Objectives: []string{"b"}}
	o.Defaults()
	// Every row misses a value: an error, not an empty page.
	nan := math.NaN()
	_, err := Analyze(Input{Models: []string{"m"}, Metrics: map[string]analyses.Metric{"a": hi, "b": hi},
		Values: map[string][]float64{"a": {nan}, "b": {1}}}, o)
	if err == nil || !strings.Contains(err.Error(), "no model has every metric") {
		t.Errorf("all missing: %v", err)
	}
	// A metric the input lacks is an error naming it.
	_, err = Analyze(Input{Models: []string{"m"}, Metrics: map[string]analyses.Metric{"a": hi},
		Values: map[string][]float64{"a": {1}}}, o)
	if err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("missing metric: %v", err)
	}
	// One model: front 1, no line, no score, a warning; tables stay finite.
	r, err := Analyze(Input{Models: []string{"m"}, Metrics: map[string]analyses.Metric{"a": hi, "b": hi},
		Values: map[string][]float64{"a": {1}, "b": {1}}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Front[0] != 1 || r.Score[0] != nil || len(r.Notes()) == 0 {
		t.Errorf("one model: front %v, score %v, notes %v", r.Front, r.Score, r.Notes())
	}
	moCheckTables(t, r)
	// An objective that does not compete (one model best on both) is
	// named in a warning and left out of the score; the other still
	// scores every model.
	o2 := Options{Base: "a", Objectives: []string{"b", "c"}}
	o2.Defaults()
	r, err = Analyze(Input{Models: []string{"x", "y", "z"}, Metrics: map[string]analyses.Metric{"a": hi, "b": hi, "c": hi},
		Values: map[string][]float64{"a": {3, 2, 1}, "b": {3, 2, 1}, "c": {1, 2, 4}}}, o2)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(r.Notes(), "\n")
	if r.Fits[0].Slope != nil || r.Delta[0][0] != nil || !strings.Contains(notes, "(a, b) has 1 distinct point and") || !strings.Contains(notes, "does not compete with a") {
		t.Errorf("non-competing objective: slope %v, notes %q", r.Fits[0].Slope, notes)
	}
	for i := range r.Models {
		if r.Score[i] == nil || *r.Score[i] != *r.Delta[1][i] {
			t.Errorf("row %d: score %v, want the c differential %v", i, fmtPtr(r.Score[i]), fmtPtr(r.Delta[1][i]))
		}
	}
}

// BenchmarkMultiObjective: a leaderboard of n submissions over nine
// metrics with the 2022 score (the EvalRS 2022 shape has n = 770).
func BenchmarkMultiObjective(b *testing.B) {
	for _, n := range []int{770, 5000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			metrics := []string{"hr", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"}
			in := Input{Metrics: map[string]analyses.Metric{}, Values: map[string][]float64{}}
			for _, m := range metrics {
				in.Metrics[m] = analyses.Metric{Name: m, Max: math.Inf(1)}
				in.Values[m] = make([]float64, n)
			}
			for i := 0; i < n; i++ {
				u := rng.Float64()
				in.Models = append(in.Models, strconv.Itoa(i%57))
				in.Values["hr"][i] = 1 - u + 0.1*rng.NormFloat64()
				for _, m := range metrics[1:] {
					in.Values[m][i] = u + 0.1*rng.NormFloat64()
				}
			}
			o := Options{Base: "hr", Objectives: metrics[1:]}
			o.Defaults()
			b.ResetTimer()
			for b.Loop() {
				if _, err := Analyze(in, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
