package figures

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/multiobjective"
	"github.com/evalbook/evalbook/figures/model"
)

// moResult runs the analysis on a seeded leaderboard with a missing value
// and a model below the 2022 threshold.
func moResult(t *testing.T) *multiobjective.Result {
	t.Helper()
	rng := rand.New(rand.NewPCG(4, 4))
	n := 40
	in := multiobjective.Input{Metrics: map[string]analyses.Metric{}, Values: map[string][]float64{}}
	for _, m := range []string{"hr", "fair", "div"} {
		in.Metrics[m] = analyses.Metric{Name: m, Max: math.Inf(1)}
		in.Values[m] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		u := rng.Float64()
		in.Models = append(in.Models, string(rune('a'+i%12)))
		in.Values["hr"][i] = 0.3 - 0.2*u + 0.03*rng.NormFloat64()
		in.Values["fair"][i] = -0.01 + 0.008*u + 0.001*rng.NormFloat64()
		in.Values["div"][i] = u + 0.1*rng.NormFloat64()
	}
	in.Values["div"][3] = math.NaN()
	o := multiobjective.Options{Base: "hr", Objectives: []string{"fair", "div"},
		EvalRS2022: &multiobjective.EvalRS2022Options{
			Baseline:  map[string]float64{"hr": 0.05, "fair": -0.01, "div": 0},
			Best:      map[string]float64{"hr": 0.3, "fair": -0.002, "div": 1},
			Groups:    map[string]multiobjective.EvalRS2022Group{"a": {Weight: 1, Metrics: []string{"hr"}}, "b": {Weight: 1.5, Metrics: []string{"fair", "div"}}},
			Threshold: map[string]float64{"hr": 0.1}, Penalty: -100}}
	o.Defaults()
	r, err := multiobjective.Analyze(in, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMultiObjectiveFigures: ids, deterministic SVG, chart JSON without
// NaN.
func TestMultiObjectiveFigures(t *testing.T) {
	t.Parallel()
	r := moResult(t)
	a, err := MultiObjective("mo", "t", r)
	if err != nil {
		t.Fatal(err)
	}
	b, err := MultiObjective("mo", "t", moResult(t))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, f := range a {
		ids = append(ids, f.ID)
		if !bytes.Equal(f.SVG, b[i].SVG) || !bytes.Equal(f.Chart, b[i].Chart) {
			t.Errorf("%s: output differs between runs", f.ID)
		}
		if !bytes.HasPrefix(bytes.TrimSpace(f.SVG), []byte("<?xml")) && !bytes.Contains(f.SVG[:200], []byte("<svg")) {
			t.Errorf("%s: not an SVG", f.ID)
		}
		var chart map[string]any
		if err := json.Unmarshal(f.Chart, &chart); err != nil {
			t.Errorf("%s: chart JSON: %v", f.ID, err)
		}
		if bytes.Contains(f.Chart, []byte("NaN")) || bytes.Contains(f.SVG, []byte("NaN")) {
			t.Errorf("%s: NaN in output", f.ID)
		}
		if f.Caption == "" || f.Title == "" {
			t.Errorf("%s: no caption or title", f.ID)
		}
	}
	if got := strings.Join(ids, " "); got != "mo-tradeoff-fair mo-tradeoff-div mo-evalrs2022 mo-front" {
		t.Errorf("figure ids %s", got)
	}
	if !strings.Contains(a[2].Caption, "below the 2022 threshold") {
		t.Errorf("comparison caption does not mention the penalised models: %s", a[2].Caption)
	}
	// the fitted line's legend gives β as its caption does, and the
	// caption writes the intercept as a term: "= β·x - 0.008253", never
	// "β·x -0.008253" or "+-"
	sep := regexp.MustCompile(`·[^ ]+ [-+] [0-9]`)
	for j := range r.Fits {
		s := MOTradeOffSpec(r, j)
		if r.Fits[j].Slope != nil && !sep.MatchString(s.Caption) {
			t.Errorf("trade-off %d: the fitted line's intercept is not a term of its own: %s", j, s.Caption)
		}
		for _, e := range s.LegendEntries() {
			if beta, ok := strings.CutPrefix(e.Name, "fit β = "); ok && !strings.Contains(s.Caption, "= "+beta+"·") {
				t.Errorf("trade-off %d: the legend's β %s is not the caption's: %s", j, beta, s.Caption)
			}
		}
	}
}

// TestMOTradeOffOneFrontModel: a front of one model is said in the
// singular ("the 1 distinct … models … are highlighted" before).
func TestMOTradeOffOneFrontModel(t *testing.T) {
	t.Parallel()
	in := multiobjective.Input{Models: []string{"a", "b", "c"}, Metrics: map[string]analyses.Metric{}, Values: map[string][]float64{
		"hr": {0.3, 0.2, 0.1}, "fair": {0.5, 0.4, 0.1}}}
	for _, m := range []string{"hr", "fair"} {
		in.Metrics[m] = analyses.Metric{Name: m, Max: math.Inf(1)}
	}
	o := multiobjective.Options{Base: "hr", Objectives: []string{"fair"}}
	o.Defaults()
	r, err := multiobjective.Analyze(in, o)
	if err != nil {
		t.Fatal(err)
	}
	if c := MOTradeOffSpec(r, 0).Caption; !strings.Contains(c, "the one Pareto non-dominated model of the pair is highlighted as a triangle") {
		t.Errorf("a front of one model: %s", c)
	}
}

// TestMOFindingReadsAsTable: the key finding quotes the best scores as
// the leaderboard table prints them.
func TestMOFindingReadsAsTable(t *testing.T) {
	t.Parallel()
	r := moResult(t)
	var lb *model.Table
	for _, tb := range r.Tables() {
		if tb.Name == "leaderboard" {
			lb = model.NewTable(tb, "mo", model.TableOptions{Naming: r.Naming})
		}
	}
	if lb == nil {
		t.Fatal("no leaderboard table")
	}
	h := r.Highlight()
	for _, col := range []string{"best_score", "best_evalrs2022_score"} {
		j := slices.IndexFunc(lb.Columns, func(c model.Column) bool { return c.ID == col })
		best := lb.Rows[0][j]
		for _, row := range lb.Rows {
			if row[j].Num && row[j].Value > best.Value {
				best = row[j]
			}
		}
		if !strings.Contains(h, "("+best.Text+")") {
			t.Errorf("the finding %q does not quote the table's best %s %s", h, col, best.Text)
		}
	}
}
