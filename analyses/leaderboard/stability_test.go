package leaderboard

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/internal/testutil"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/analyses/stats"
)

// stabilityOracle is testdata/oracle/stability/cases.json, written by the
// gen.py beside it (scipy.stats.spearmanr; a brute-force Python
// implementation of every rule and perturbation).
type stabilityOracle struct {
	Spearman []struct {
		X, Y []float64
		Rho  *float64
	} `json:"spearman"`
	Stability []stabilityOracleCase `json:"stability"`
}

type stabilityOracleCase struct {
	Name           string      `json:"name"`
	Q              [][]float64 `json:"q"`
	HigherIsBetter bool        `json:"higher_is_better"`
	Max            *float64    `json:"max"`
	Options        struct {
		Repeats      int       `json:"repeats"`
		AlphaSimilar []float64 `json:"alpha_similar"`
		AlphaBest    []float64 `json:"alpha_best"`
		Betas        []float64 `json:"betas"`
		BetaMax      float64   `json:"beta_max"`
		SubsetSizes  []int     `json:"subset_sizes"`
	} `json:"options"`
	Reference map[string][]float64 `json:"reference"`
	Curves    []struct {
		Perturbation string `json:"perturbation"`
		Rule         string `json:"rule"`
		Points       []struct {
			Size      float64  `json:"size"`
			Mean      *float64 `json:"mean_rho"`
			SD        *float64 `json:"sd_rho"`
			Count     int      `json:"count"`
			Undefined int      `json:"undefined"`
		} `json:"points"`
	} `json:"curves"`
	Pareto []struct {
		Rule       string `json:"rule"`
		Checked    int    `json:"checked"`
		Violations int    `json:"violations"`
	} `json:"pareto"`
	Areas []struct {
		Perturbation string   `json:"perturbation"`
		Rule         string   `json:"rule"`
		Area         *float64 `json:"area"`
	} `json:"areas"`
}

func loadStabilityOracle(t *testing.T) *stabilityOracle {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "oracle", "stability", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var o stabilityOracle
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	return &o
}

func stabCloseTo(got float64, want *float64, tol float64) bool {
	if want == nil {
		return math.IsNaN(got)
	}
	return testutil.Close(got, *want, tol)
}

// TestStabilitySpearmanScipy: Spearman's ρ (the similarity of the
// stability analysis) against scipy.stats.spearmanr, with ties, to 1e-12.
func TestStabilitySpearmanScipy(t *testing.T) {
	t.Parallel()
	o := loadStabilityOracle(t)
	if len(o.Spearman) < 5 {
		t.Fatalf("fixture has %d spearman cases", len(o.Spearman))
	}
	for i, c := range o.Spearman {
		if got := stats.Spearman(c.X, c.Y); !stabCloseTo(got, c.Rho, 1e-12) {
			t.Errorf("case %d: Spearman = %v, scipy %v", i, got, stabDeref(c.Rho))
		}
	}
}

func stabDeref(p *float64) any {
	if p == nil {
		return "nan"
	}
	return *p
}

func stabOracleInput(c *stabilityOracleCase, jobs int) (StabilityInput, StabilityOptions) {
	m := analyses.Metric{Name: "q", Max: math.Inf(1)}
	if c.Max != nil {
		m.Max = *c.Max
	}
	if !c.HigherIsBetter {
		m.Better = analyses.LowerIsBetter
	}
	var ds, ms []string
	for d := range c.Q {
		ds = append(ds, fmt.Sprintf("d%d", d))
	}
	for j := range c.Q[0] {
		ms = append(ms, fmt.Sprintf("m%d", j))
	}
	in := StabilityInput{Metric: m, Datasets: ds, Methods: ms, Q: c.Q, Seed: 7, Jobs: jobs}
	op := StabilityOptions{Metric: "q", Repeats: c.Options.Repeats, AlphaSimilar: c.Options.AlphaSimilar,
		AlphaBest: c.Options.AlphaBest, Betas: c.Options.Betas, BetaMax: c.Options.BetaMax, SubsetSizes: c.Options.SubsetSizes}
	return in, op
}

// TestStabilityOracle: every point of every curve (mean, sd, count,
// undefined), the reference scores and the Pareto counts agree with the
// brute-force Python oracle on two 6 × 5 matrices (higher is better with a
// bound; lower is better), to 1e-12; with 1 and 3 workers.
func TestStabilityOracle(t *testing.T) {
	t.Parallel()
	o := loadStabilityOracle(t)
	for ci := range o.Stability {
		c := &o.Stability[ci]
		for _, jobs := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/jobs=%d", c.Name, jobs), func(t *testing.T) {
				in, op := stabOracleInput(c, jobs)
				r, err := Stability(in, op)
				if err != nil {
					t.Fatal(err)
				}
				for rule, want := range c.Reference {
					got := r.Reference[rule]
					for m := range want {
						if !testutil.Close(got[m], want[m], 1e-12) {
							t.Errorf("reference %s[%d] = %v, oracle %v", rule, m, got[m], want[m])
						}
					}
				}
				if len(r.Curves) != len(c.Curves) {
					t.Fatalf("%d curves, oracle %d", len(r.Curves), len(c.Curves))
				}
				points := 0
				for _, wc := range c.Curves {
					gc := r.Curve(wc.Perturbation, wc.Rule)
					if gc == nil {
						t.Fatalf("no curve %s/%s", wc.Perturbation, wc.Rule)
					}
					if len(gc.Points) != len(wc.Points) {
						t.Fatalf("%s/%s: %d points, oracle %d", wc.Perturbation, wc.Rule, len(gc.Points), len(wc.Points))
					}
					for i, wp := range wc.Points {
						gp := gc.Points[i]
						where := fmt.Sprintf("%s/%s size %g", wc.Perturbation, wc.Rule, wp.Size)
						if gp.Size != wp.Size || gp.Count != wp.Count || gp.Undefined != wp.Undefined || !gp.Exhaustive {
							t.Errorf("%s: size %g count %d undefined %d exhaustive %v; oracle size %g count %d undefined %d",
								where, gp.Size, gp.Count, gp.Undefined, gp.Exhaustive, wp.Size, wp.Count, wp.Undefined)
						}
						if !stabCloseTo(float64(gp.Mean), wp.Mean, 1e-12) || !stabCloseTo(float64(gp.SD), wp.SD, 1e-12) {
							t.Errorf("%s: mean %v sd %v; oracle %v %v", where, gp.Mean, gp.SD, stabDeref(wp.Mean), stabDeref(wp.SD))
						}
						points++
					}
				}
				for _, wp := range c.Pareto {
					var gp *StabilityPareto
					for i := range r.Pareto {
						if r.Pareto[i].Rule == wp.Rule {
							gp = &r.Pareto[i]
						}
					}
					if gp == nil || gp.Checked != wp.Checked || gp.Violations != wp.Violations {
						t.Errorf("pareto %s: %+v, oracle %+v", wp.Rule, gp, wp)
					}
				}
				for _, wa := range c.Areas {
					var got float64 = math.NaN()
					for _, sm := range r.Summary {
						if sm.Rule == wa.Rule {
							got = float64(sm.Area[wa.Perturbation])
						}
					}
					if !stabCloseTo(got, wa.Area, 1e-12) {
						t.Errorf("area %s/%s = %v, oracle %v", wa.Perturbation, wa.Rule, got, stabDeref(wa.Area))
					}
				}
				if len(c.Areas) < 46 {
					t.Errorf("only %d areas in the fixture", len(c.Areas))
				}
				if points < 900 {
					t.Errorf("only %d points compared", points)
				}
			})
		}
	}
}

// TestStabilityJobsIndependent: with sampling (repeats smaller than the
// number of subsets), the result is identical for 1, 2 and 5 workers and
// for a second run; a different seed changes it.
func TestStabilityJobsIndependent(t *testing.T) {
	t.Parallel()
	in, op := stabilityRandom(12, 7, 3)
	op.Repeats = 15
	run := func(jobs int, seed uint64) *StabilityResult {
		in := in
		in.Jobs, in.Seed = jobs, seed
		r, err := Stability(in, op)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	base := run(1, 11)
	sampled := false
	for _, c := range base.Curves {
		for _, p := range c.Points {
			if !p.Exhaustive {
				sampled = true
				if p.Count+p.Undefined != 15 {
					t.Errorf("%s/%s size %g: %d draws, want repeats = 15", c.Perturbation, c.Rule, p.Size, p.Count+p.Undefined)
				}
			}
		}
	}
	if !sampled {
		t.Fatal("no point was sampled; the test does not exercise sampling")
	}
	for _, jobs := range []int{2, 5, 1} {
		if got := run(jobs, 11); !reflect.DeepEqual(stabMarshal(t, got), stabMarshal(t, base)) {
			t.Errorf("jobs=%d changes the result", jobs)
		}
	}
	if reflect.DeepEqual(stabMarshal(t, run(2, 12)), stabMarshal(t, base)) {
		t.Error("a different seed gives the same result")
	}
}

func stabMarshal(t *testing.T, r *StabilityResult) string {
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stabilityRandom is a seeded nd × nm matrix in (0.01, 0.5).
func stabilityRandom(nd, nm int, seed uint64) (StabilityInput, StabilityOptions) {
	x := seed*0x9e3779b97f4a7c15 + 1
	next := func() float64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return float64(x>>11) / (1 << 53)
	}
	q := make(analyses.Matrix, nd)
	var ds, ms []string
	for d := range q {
		q[d] = make([]float64, nm)
		for m := range q[d] {
			q[d][m] = 0.01 + 0.49*next()
		}
		ds = append(ds, fmt.Sprintf("d%02d", d))
	}
	for m := 0; m < nm; m++ {
		ms = append(ms, fmt.Sprintf("m%02d", m))
	}
	return StabilityInput{Metric: analyses.Metric{Name: "q", Max: math.Inf(1)}, Datasets: ds, Methods: ms, Q: q, Seed: 1, Jobs: 2},
		StabilityOptions{Metric: "q"}
}

// TestStabilitySampledSubsetsDistinct: drawn subsets are distinct, of the
// right size, and as many as repeats; exhaustive enumeration lists all.
func TestStabilitySampledSubsetsDistinct(t *testing.T) {
	t.Parallel()
	e := &stabEngine{opts: StabilityOptions{Repeats: 50}, seed: 3}
	sets, all := e.subsets(10, 3, 1)
	if all || len(sets) != 50 {
		t.Fatalf("C(10,3) = 120 > 50: got %d sets, exhaustive %v", len(sets), all)
	}
	seen := map[string]bool{}
	for _, s := range sets {
		if len(s) != 3 || seen[stabSetKey(s)] {
			t.Fatalf("bad or repeated subset %v", s)
		}
		seen[stabSetKey(s)] = true
	}
	sets, all = e.subsets(10, 2, 1)
	if !all || len(sets) != 45 {
		t.Fatalf("C(10,2) = 45 ≤ 50: got %d, exhaustive %v", len(sets), all)
	}
	pairs, all := e.pairs(10, 2, 2)
	if all || len(pairs) != 50 {
		t.Fatalf("pairs of 2 of 10: %d > 50 expected sampled, got %d exhaustive %v", 10*9/2*28/2, len(pairs), all)
	}
	for _, p := range pairs {
		for _, a := range p[0] {
			for _, b := range p[1] {
				if a == b {
					t.Fatalf("pair %v not disjoint", p)
				}
			}
		}
	}
	if stabBinomAtMost(100, 50, math.MaxInt32) || stabBinomAtMost(5, 2, 10) != true || stabBinomAtMost(5, 2, 9) {
		t.Error("binomAtMost wrong")
	}
}

// TestStabilityParetoPlanted: a rule forced to rank a dominated method
// above its dominator is reported on every matrix where the pair is
// present, with a readable first violation; the real rules report none.
func TestStabilityParetoPlanted(t *testing.T) {
	t.Parallel()
	in, op := stabilityRandom(8, 5, 9)
	// m04 is m00 shrunk: dominated by m00 on every dataset.
	for d := range in.Q {
		in.Q[d][4] = in.Q[d][0] * 0.5
	}
	op.Rules = []string{RuleMean, RuleCopeland}
	op.Repeats = 20
	op.Defaults()
	planted := func(rules []string, q analyses.Matrix, v stabView, betaMax float64) ([][]float64, []error) {
		out, errs := stabilityScores(rules, q, true, betaMax, v)
		for k, rule := range rules {
			// Swap the scores of columns 0 and 4 of copeland whenever both
			// are present (full width: no method dropped).
			if rule == RuleCopeland && errs[k] == nil && len(q[0]) >= 5 {
				out[k][0], out[k][4] = out[k][4], out[k][0]
			}
		}
		return out, errs
	}
	r, err := stability(in, op, planted, analyses.MaxStabilityPairwise)
	if err != nil {
		t.Fatal(err)
	}
	honest, err := Stability(in, op)
	if err != nil {
		t.Fatal(err)
	}
	get := func(r *StabilityResult, rule string) StabilityPareto {
		for _, p := range r.Pareto {
			if p.Rule == rule {
				return p
			}
		}
		t.Fatalf("no pareto row for %s", rule)
		return StabilityPareto{}
	}
	bad := get(r, RuleCopeland)
	if bad.Violations == 0 || !strings.Contains(bad.First, "on all data: m04") || !strings.Contains(bad.First, "above m00") {
		t.Errorf("planted violation not reported: %+v", bad)
	}
	if p := get(r, RuleMean); p.Violations != 0 {
		t.Errorf("mean reported %d violations", p.Violations)
	}
	for _, p := range honest.Pareto {
		if p.Violations != 0 || p.Checked == 0 {
			t.Errorf("%s: %+v, want checked > 0 and no violation", p.Rule, p)
		}
	}
	var row []any
	for _, tb := range r.Tables() {
		if tb.Name == "" {
			for _, rw := range tb.Rows {
				if rw[0] == RuleCopeland {
					row = rw
				}
			}
			if tb.Columns[len(tb.Columns)-1] != "pareto_efficient" {
				t.Errorf("last column %q", tb.Columns[len(tb.Columns)-1])
			}
		}
	}
	if row == nil || row[len(row)-1] != false {
		t.Errorf("summary row of copeland: %v, want pareto_efficient = false", row)
	}
	found := false
	for _, w := range r.List {
		if strings.Contains(w, "copeland is not Pareto efficient") {
			found = true
		}
	}
	if !found {
		t.Errorf("no warning about copeland: %q", r.List)
	}
}

// TestStabilityConstantScores: a rule whose score vector is constant on a
// perturbed matrix gives no ρ: the point counts it in undefined, the mean
// is over the rest, a note says so, and no NaN reaches a table cell.
func TestStabilityConstantScores(t *testing.T) {
	t.Parallel()
	// Every dataset is won by m0, so plurality is constant (0 for all)
	// whenever m0 is dropped.
	q := analyses.Matrix{{0.9, 0.5, 0.3, 0.2}, {0.8, 0.1, 0.4, 0.2}, {0.7, 0.6, 0.1, 0.3}}
	in := StabilityInput{Metric: analyses.Metric{Name: "q", Max: math.Inf(1)}, Datasets: []string{"a", "b", "c"},
		Methods: []string{"m0", "m1", "m2", "m3"}, Q: q, Jobs: 2}
	r, err := Stability(in, StabilityOptions{Metric: "q", Rules: []string{RulePlurality, RuleMean}})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Curve(PerturbDropMethods, RulePlurality)
	if c == nil || c.Points[0].Undefined != 1 || c.Points[0].Count != 3 || c.Points[0].Mean != 1 {
		t.Fatalf("drop_methods/plurality: %+v, want 1 undefined (m0 dropped) and ρ = 1 on the 3 others", c)
	}
	noted := false
	for _, w := range r.List {
		if strings.Contains(w, "`drop_methods`, `plurality`: ρ is undefined for 1 of 4") {
			noted = true
		}
	}
	if !noted {
		t.Errorf("no note on undefined ρ: %q", r.List)
	}
	// the page names the perturbation and the rule by their labels
	noted = false
	for _, n := range r.Notes() {
		noted = noted || strings.HasPrefix(n, "Removing methods, Plurality: ρ is undefined for 1 of 4")
	}
	if !noted {
		t.Errorf("the notes do not name the perturbation and the rule by their labels: %q", r.Notes())
	}
	for _, tb := range r.Tables() {
		for _, row := range tb.Rows {
			for _, v := range row {
				if f, ok := v.(float64); ok && !analyses.Finite(f) {
					t.Errorf("table %q has a non-finite cell in %v", tb.Name, row)
				}
			}
		}
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("result does not marshal: %v", err)
	}
}

func TestStabilityOptionsValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mod  func(*StabilityOptions)
		want string
	}{
		{func(o *StabilityOptions) { o.Metric = "" }, "metric: required"},
		{func(o *StabilityOptions) { o.Rules = []string{"copland"} }, `did you mean "copeland"`},
		{func(o *StabilityOptions) { o.Perturbations = []string{"drop_dataset"} }, `did you mean "drop_datasets"`},
		{func(o *StabilityOptions) { o.Repeats = -1 }, "repeats"},
		{func(o *StabilityOptions) { o.AlphaSimilar = []float64{0} }, "alpha_similar"},
		{func(o *StabilityOptions) { o.AlphaBest = []float64{math.NaN()} }, "alpha_best"},
		{func(o *StabilityOptions) { o.Betas = []float64{0.5} }, "betas"},
		{func(o *StabilityOptions) { o.SubsetSizes = []int{0} }, "subset_sizes"},
		{func(o *StabilityOptions) { o.Missing = "zero" }, "missing"},
	} {
		o := StabilityOptions{Metric: "ndcg"}
		o.Defaults()
		c.mod(&o)
		err := o.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
	o := StabilityOptions{Metric: "ndcg"}
	o.Defaults()
	if err := o.Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
	if len(o.AlphaSimilar) != 31 || o.AlphaSimilar[0] != 0.85 || o.AlphaSimilar[30] != 1.15 || o.AlphaSimilar[10] != 0.95 {
		t.Errorf("alpha_similar default %v", o.AlphaSimilar)
	}
	if len(o.AlphaBest) != 31 || o.AlphaBest[30] != 4 || len(o.Betas) != 86 || o.Betas[0] != 1.5 || o.Betas[85] != 10 {
		t.Errorf("alpha_best/betas defaults %v %v", o.AlphaBest, o.Betas)
	}
}

// TestStabilityInputErrors: missing cells and too small matrices are
// errors that name what is wrong.
func TestStabilityInputErrors(t *testing.T) {
	t.Parallel()
	in, op := stabilityRandom(5, 4, 1)
	in.Q[2][1] = math.NaN()
	if _, err := Stability(in, op); err == nil || !strings.Contains(err.Error(), `dataset "d02", method "m01"`) {
		t.Errorf("missing cell: %v", err)
	}
	op.Missing = "drop"
	r, err := Stability(in, op)
	if err != nil || len(r.Datasets) != 4 || len(r.DroppedDatasets) != 1 {
		t.Errorf("missing = drop: %v %v", err, r)
	}
	in, op = stabilityRandom(5, 2, 1)
	if _, err := Stability(in, op); err == nil || !strings.Contains(err.Error(), "at least 3 methods") {
		t.Errorf("two methods: %v", err)
	}
	in, op = stabilityRandom(1, 4, 1)
	if _, err := Stability(in, op); err == nil || !strings.Contains(err.Error(), "at least 2 complete datasets") {
		t.Errorf("one dataset: %v", err)
	}
	// Negative values: the DM and GM/HM rules are left out with a note.
	in, op = stabilityRandom(6, 4, 1)
	in.Q[0][0] = -0.1
	r, err = Stability(in, op)
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range r.Rules {
		if rule == RuleDMAUC || rule == RuleGeometricMean {
			t.Errorf("%s should be left out for a negative value", rule)
		}
	}
}

// TestStabilityFastScoresIdentical: the shared-work scorer of the
// stability analysis gives exactly (==, bit for bit) what RuleScores gives,
// for every rule, on random matrices with ties and zeros, both metric
// directions and β̂ on and off the 0.1 grid; and the same errors.
func TestStabilityFastScoresIdentical(t *testing.T) {
	skipUnderRace(t, "compares the scorers on the test's goroutine")
	t.Parallel()
	next := xorshift(88172645463325252)
	levels := []float64{0, 0.01, 0.1, 0.11, 0.2, 0.25, 0.3, 0.33, 0.5, 0.55, 1, 1.1, 3.3}
	cases := 0
	for it := 0; it < 300; it++ {
		nd, nm := 1+next(12), 2+next(9)
		if it%20 == 3 {
			nd = 60 + next(15) // more than one 64-bit word of datasets
		}
		q := make(analyses.Matrix, nd)
		for d := range q {
			q[d] = make([]float64, nm)
			for m := range q[d] {
				if it%3 == 0 {
					q[d][m] = levels[next(len(levels))]
				} else {
					q[d][m] = float64(1+next(1000)) / 997
				}
			}
		}
		if it%50 == 7 {
			q[0][0] = -0.5 // errors for the DM rules and GM/HM
		}
		for _, higher := range []bool{true, false} {
			for _, beta := range []float64{1, 1.5, 2.35, 3, 10} {
				cache := newStabCache(q, higher, 3, true)
				// The matrix itself, a subset of its rows, of its columns,
				// and with an extra column, each scored through the cache.
				rows := []int{}
				for d := range q {
					if next(3) > 0 {
						rows = append(rows, d)
					}
				}
				if len(rows) == 0 {
					rows = append(rows, 0)
				}
				cols := []int{}
				for m := range q[0] {
					if next(3) > 0 {
						cols = append(cols, m)
					}
				}
				for len(cols) < 2 {
					cols = append(cols, len(cols))
				}
				qr, qc, qx := make(analyses.Matrix, len(rows)), make(analyses.Matrix, len(q)), make(analyses.Matrix, len(q))
				for i, d := range rows {
					qr[i] = q[d]
				}
				for d := range q {
					for _, m := range cols {
						qc[d] = append(qc[d], q[d][m])
					}
					qx[d] = append(append([]float64(nil), q[d]...), q[d][next(nm)]*float64(80+next(40))/100)
				}
				views := []struct {
					q analyses.Matrix
					v stabView
				}{
					{q, stabView{}}, {q, stabView{cache: cache}}, {qr, stabView{cache: cache, rows: rows}},
					{qc, stabView{cache: cache, cols: cols}}, {qx, stabView{cache: cache, extra: true}},
				}
				for vi, vw := range views {
					got, errs := stabilityScores(AllRules, vw.q, higher, beta, vw.v)
					for k, rule := range AllRules {
						want, err := RuleScores(rule, vw.q, higher, beta)
						if (err == nil) != (errs[k] == nil) || (err != nil && err.Error() != errs[k].Error()) {
							t.Fatalf("view %d, %s on %v (higher %v, β̂ %g): error %v, RuleScores %v", vi, rule, vw.q, higher, beta, errs[k], err)
						}
						for m := range want {
							if math.Float64bits(got[k][m]) != math.Float64bits(want[m]) {
								t.Fatalf("view %d, %s on %v (higher %v, β̂ %g): %v, RuleScores %v", vi, rule, vw.q, higher, beta, got[k], want)
							}
						}
						cases++
					}
				}
			}
		}
	}
	t.Logf("%d rule evaluations identical", cases)
}

// TestStabilityTinyMatrix: with 2 datasets and 3 methods the perturbations
// that need more data are skipped with notes, the rest still run, and no
// curve has points it cannot have.
func TestStabilityTinyMatrix(t *testing.T) {
	t.Parallel()
	in, op := stabilityRandom(2, 3, 4)
	r, err := Stability(in, op)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Curves {
		switch c.Perturbation {
		case PerturbDropDatasets, PerturbDropMethods, PerturbSubsetPairs:
			if len(c.Points) != 0 {
				t.Errorf("%s/%s has %d points", c.Perturbation, c.Rule, len(c.Points))
			}
		case PerturbSimilarMethod:
			if len(c.Points) != 31 || c.Points[0].Count+c.Points[0].Undefined != 3 {
				t.Errorf("similar_method/%s: %d points, first %+v", c.Rule, len(c.Points), c.Points[0])
			}
		}
	}
	joined := strings.Join(r.List, "\n")
	for _, want := range []string{"drop_datasets needs at least 3 datasets", "drop_methods needs at least 4 methods", "subset_pairs of size 5 need 10 datasets"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no note %q in %q", want, joined)
		}
	}
	for _, tb := range r.Tables() {
		tb.Check()
	}
}

// TestStabilityHighlight: the overview sentence names the most and least
// stable rules and the Pareto result, from the computed numbers.
func TestStabilityHighlight(t *testing.T) {
	t.Parallel()
	in, op := stabilityRandom(8, 5, 2)
	op.Repeats = 10
	op.Rules = []string{RuleMean, RulePlurality}
	r, err := Stability(in, op)
	if err != nil {
		t.Fatal(err)
	}
	h := r.Highlight()
	a, b := float64(r.Summary[0].Area[PerturbDropDatasets]), float64(r.Summary[1].Area[PerturbDropDatasets])
	best, worst := RuleMean, RulePlurality
	if b > a {
		best, worst, a, b = worst, best, b, a
	}
	// the areas as the table prints its column: four significant digits
	want := fmt.Sprintf("Removing datasets changes the %s ranking least (mean ρ %.4f) and the %s ranking most (%.4f); every rule is Pareto efficient", RuleLabels[best], a, RuleLabels[worst], b)
	if !strings.HasPrefix(h, want) {
		t.Errorf("highlight %q, want prefix %q", h, want)
	}
	// each rule quotes its own count of checked matrices
	r.Pareto = []StabilityPareto{{Rule: RuleMean, Checked: 260}, {Rule: RulePlurality, Checked: 250, Violations: 3}, {Rule: RuleBorda, Checked: 240}}
	if h, want := r.paretoHighlight(), "Plurality (3 of 250 matrices) rank a dominated method above its dominator; Mean on 260 matrices, Borda on 240 matrices never do"; h != want {
		t.Errorf("pareto finding %q, want %q", h, want)
	}
	r.Pareto = []StabilityPareto{{Rule: RuleMean, Checked: 260}, {Rule: RuleDMAUC, Checked: 300}, {Rule: RuleBorda, Checked: 260}}
	if h, want := r.paretoHighlight(), "every rule is Pareto efficient: Mean and Borda on 260 matrices, DM-AUC on 300 matrices"; h != want {
		t.Errorf("pareto finding %q, want %q", h, want)
	}
}

// xorshift returns a deterministic generator of integers in [0, n).
func xorshift(seed uint64) func(n int) int {
	x := seed
	return func(n int) int {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int(x % uint64(n))
	}
}

// TestStabilityValueAboveMax: a declared max below a value of the data
// (max = 0.1 where nDCG reaches 0.31) clamped the perturbed values and
// moved the areas to 1 without a word: an error naming the cell.
func TestStabilityValueAboveMax(t *testing.T) {
	t.Parallel()
	q := analyses.Matrix{{0.31, 0.2, 0.1}, {0.05, 0.08, 0.02}, {0.09, 0.07, 0.03}}
	in := StabilityInput{Metric: analyses.Metric{Name: "ndcg", Better: analyses.HigherIsBetter, Max: 0.1},
		Datasets: []string{"a", "b", "c"}, Methods: []string{"X", "Y", "Z"}, Q: q, Seed: 1, Jobs: 1}
	op := StabilityOptions{Metric: "ndcg"}
	op.Defaults()
	_, err := Stability(in, op)
	if want := `metric "ndcg": X on a is 0.31, above the metric's declared max = 0.1`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v, want %q", err, want)
	}
	in.Metric.Max = 1
	if _, err := Stability(in, op); err != nil {
		t.Errorf("a bound above every value: %v", err)
	}
}

// TestStabilityNotesLabelled: a note on one perturbation under one rule
// leads with their labels, and calls the perturbation's area column
// "its area"; the other notes are as written.
func TestStabilityNotesLabelled(t *testing.T) {
	r := &StabilityResult{Rules: []string{RuleDMAUC}}
	r.Warnf("`best_method`, `dm_auc`: ρ is undefined for 10 of 31 perturbed matrices, left out of the means and counted as Undefined; at 10 of 31 sizes no ρ is defined at all, so `best_method_area` covers only the other sizes")
	r.Warnf("`beta` varies β̂, which only DM-AUC and DM-LBO have")
	want := []string{"Adding a new best, DM-AUC: ρ is undefined for 10 of 31 perturbed matrices, left out of the means and counted as Undefined; at 10 of 31 sizes no ρ is defined at all, so its area covers only the other sizes",
		"`beta` varies β̂, which only DM-AUC and DM-LBO have"}
	if got := r.Notes(); !slices.Equal(got, want) {
		t.Errorf("notes\n%q\nwant\n%q", got, want)
	}
}

// TestStabilityNotesNameWhatTheTablesShow: the notes on a perturbation or
// a column the run could not fill name them as the stability table and
// figures do ("Changing β̂", "ρ subsets (5)"), never by their ids.
func TestStabilityNotesNameWhatTheTablesShow(t *testing.T) {
	t.Parallel()
	q := analyses.Matrix{{0.3, 0.2, 0.1}, {0.05, 0.08, 0.02}, {0.09, 0.07, 0.03}, {0.1, 0.2, 0.3}}
	in := StabilityInput{Metric: analyses.Metric{Name: "ndcg", Better: analyses.HigherIsBetter, Max: math.Inf(1)},
		Datasets: []string{"a", "b", "c", "d"}, Methods: []string{"X", "Y", "Z"}, Q: q, Seed: 1, Jobs: 1}
	for _, c := range []struct {
		rules []string
		want  string
	}{
		{[]string{RuleMean, RuleMeanRank}, "Changing β̂ has no curve: it varies β̂ of DM-AUC and DM-LBO, and neither rule is computed"},
		{[]string{RuleMean, RuleMeanRank, RuleDMAUC}, "Changing β̂ applies to DM-AUC and DM-LBO alone"},
		{[]string{RuleMean, RuleMeanRank, RuleDMAUC}, "ρ subsets (5) is empty: two disjoint subsets of 5 datasets need 10"},
	} {
		op := StabilityOptions{Metric: "ndcg", Rules: c.rules, Perturbations: []string{PerturbBeta, PerturbSubsetPairs}}
		op.Defaults()
		r, err := Stability(in, op)
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(r.Notes(), "\n")
		if !strings.Contains(notes, c.want) || strings.Contains(notes, "rho_subsets") || strings.Contains(notes, "beta ") || strings.Contains(notes, "`beta`") {
			t.Errorf("rules %v: notes\n%s\nwant %q, and no id", c.rules, notes, c.want)
		}
	}
}
