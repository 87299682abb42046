package offline

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/internal/testutil"

	"github.com/evalbook/evalbook/analyses"
)

func offlineOpts(mut func(o *Options)) Options {
	o := Options{Runs: "runs/{method}.csv", Truth: "truth.csv"}
	o.Defaults()
	if mut != nil {
		mut(&o)
	}
	return o
}

// evalOne runs the evaluator on a list of hit flags (rank 1 first) for a
// user with numRel relevant items of relevance 1.
func evalOne(t *testing.T, o Options, hits []int, numRel int) map[string]float64 {
	t.Helper()
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	ev := NewEvaluator(o)
	list := make([]float64, len(hits))
	for i, h := range hits {
		list[i] = float64(h)
	}
	truth := make([]float64, numRel)
	for i := range truth {
		truth[i] = 1
	}
	out := make([]float64, len(ev.Names()))
	ev.Eval(list, truth, out)
	m := map[string]float64{}
	for i, n := range ev.Names() {
		m[n] = out[i]
	}
	return m
}

// The worked examples of Jannach et al. 2010 (the slides "Example",
// "Example cont.", "Average Precision" and "Examples and Intuition for AP"
// of the lecture that accompanies the book). The published numbers are
// rounded on the slides, so each check states the exact value and the
// rounding the slide shows.
func TestOfflineJannach2010WorkedExamples(t *testing.T) {
	t.Parallel()
	hits234 := []int{0, 1, 1, 1, 0} // |T| = 3, hits at ranks 2, 3, 4
	within := func(name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.6f, Jannach et al. 2010 give %.4g (±%g)", name, got, want, tol)
		}
	}
	// RankScore: 1.56/2.21 ≈ 0.71 at α = 2; 0.875/1.75 = 0.5 at α = 1.
	a2 := evalOne(t, offlineOpts(func(o *Options) { o.K = []int{5}; o.HalfLife = 2 }), hits234, 3)
	within("rankscore@5 (α=2)", a2["rankscore@5"], 0.71, 0.005)
	within("rankscore@5 (α=2) exact", a2["rankscore@5"], (math.Pow(2, -0.5)+0.5+math.Pow(2, -1.5))/(1+math.Pow(2, -0.5)+0.5), 1e-15)
	a1 := evalOne(t, offlineOpts(func(o *Options) { o.K = []int{5}; o.HalfLife = 1 }), hits234, 3)
	within("rankscore@5 (α=1)", a1["rankscore@5"], 0.5, 1e-15)
	// LiftIndex: (0.8 + 0.6 + 0.4)/3 = 0.6.
	within("liftindex@5", a2["liftindex@5"], 0.6, 1e-15)
	// nDCG@5: 2.13/2.63 ≈ 0.81 with the lecture's discount; ≈ 0.73 with trec_eval's.
	jv := evalOne(t, offlineOpts(func(o *Options) { o.K = []int{5}; o.NDCGDiscount = NDCGJarvelin }), hits234, 3)
	within("ndcg@5 (jarvelin)", jv["ndcg@5"], 0.81, 0.005)
	within("ndcg@5 (jarvelin) exact", jv["ndcg@5"], (1+1/math.Log2(3)+0.5)/(1+1+1/math.Log2(3)), 1e-15)
	te := evalOne(t, offlineOpts(func(o *Options) { o.K = []int{5} }), hits234, 3)
	within("ndcg@5 (trec_eval)", te["ndcg@5"], 0.73, 0.005)
	within("ndcg@5 (trec_eval) exact", te["ndcg@5"], (1/math.Log2(3)+0.5+1/math.Log2(5))/(1+1/math.Log2(3)+0.5), 1e-15)
	// AP: hits at 1, 4, 5 → (1/1 + 2/4 + 3/5)/3 = 21/30 = 0.7;
	// hits at 2, 3, 4 → (1/2 + 2/3 + 3/4)/3 = 23/36 ≈ 0.639.
	ap145 := evalOne(t, offlineOpts(func(o *Options) { o.K = []int{5} }), []int{1, 0, 0, 1, 1}, 3)
	within("map@5 hits 1,4,5", ap145["map@5"], 0.7, 1e-15)
	within("map@5 hits 2,3,4", te["map@5"], 23.0/36, 1e-15)
	within("map@5 hits 2,3,4 (slide)", te["map@5"], 0.639, 0.0005)
	// AP@3 with m = 3: [0,0,1] → 0.11, [0,1,1] → 0.38 (the slide truncates
	// 0.3889), [1,1,1] → 1.
	k3 := offlineOpts(func(o *Options) { o.K = []int{3} })
	within("map@3 [0,0,1]", evalOne(t, k3, []int{0, 0, 1}, 3)["map@3"], 1.0/9, 1e-15)
	within("map@3 [0,0,1] (slide)", evalOne(t, k3, []int{0, 0, 1}, 3)["map@3"], 0.11, 0.005)
	within("map@3 [0,1,1]", evalOne(t, k3, []int{0, 1, 1}, 3)["map@3"], (0.5+2.0/3)/3, 1e-15)
	within("map@3 [0,1,1] (slide, truncated)", evalOne(t, k3, []int{0, 1, 1}, 3)["map@3"], 0.385, 0.005)
	within("map@3 [1,1,1]", evalOne(t, k3, []int{1, 1, 1}, 3)["map@3"], 1, 1e-15)
}

type offlineCase struct {
	Name    string                                   `json:"name"`
	Options map[string]any                           `json:"options"`
	Truth   map[string]map[string]float64            `json:"truth"`
	Runs    map[string]offlineCaseRun                `json:"runs"`
	Runs2   map[string]map[string]float64            `json:"expected_runs"`
	Users   map[string]map[string]map[string]float64 `json:"expected_users"`
}

type offlineCaseRun struct {
	Lists       map[string][]string `json:"lists"`
	Predictions map[string][][2]any `json:"predictions"`
}

func (c offlineCase) options(t *testing.T) Options {
	o := Options{Runs: "r/{method}.csv", Truth: "t.csv"}
	o.Defaults()
	o.K = nil
	for _, k := range c.Options["k"].([]any) {
		o.K = append(o.K, int(k.(float64)))
	}
	o.RelevanceThreshold = c.Options["relevance_threshold"].(float64)
	o.NDCGDiscount = c.Options["ndcg_discount"].(string)
	o.NDCGGain = c.Options["ndcg_gain"].(string)
	o.HalfLife = c.Options["half_life"].(float64)
	o.NoRelevant = c.Options["no_relevant"].(string)
	o.MissingUsers = c.Options["missing_users"].(string)
	if err := o.Validate(); err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	return o
}

// TestOfflineOracle compares every per-user and per-run value with the
// independent Python script of testdata/oracle/offline_metrics (gen.py),
// to 1e-12.
func TestOfflineOracle(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/oracle/offline_metrics/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Cases []offlineCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Cases) < 10 {
		t.Fatalf("only %d cases", len(fx.Cases))
	}
	for _, c := range fx.Cases {
		o := c.options(t)
		truth := NewTruth()
		for _, u := range analyses.SortedKeys(c.Truth) {
			for _, it := range analyses.SortedKeys(c.Truth[u]) {
				if err := truth.Add([]byte(u), []byte(it), c.Truth[u][it]); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := truth.Finish(o.RelevanceThreshold); err != nil {
			t.Fatal(err)
		}
		var runs []*Run
		methods := analyses.SortedKeys(c.Runs)
		for _, m := range methods {
			r := NewRun("d", m, truth, o)
			got := map[string]map[string]float64{}
			r.OnUser = func(user string, names []string, values []float64) error {
				key := user
				if slices.Equal(names, RatingMetrics) {
					key += "#ratings"
				}
				if got[key] != nil {
					return fmt.Errorf("user %s reported twice", key)
				}
				got[key] = map[string]float64{}
				for i, n := range names {
					got[key][n] = values[i]
				}
				return nil
			}
			for _, u := range analyses.SortedKeys(c.Runs[m].Lists) {
				items := [][]byte{}
				for _, it := range c.Runs[m].Lists[u] {
					items = append(items, []byte(it))
				}
				if err := r.AddUser([]byte(u), items); err != nil {
					t.Fatal(err)
				}
			}
			for _, u := range analyses.SortedKeys(c.Runs[m].Predictions) {
				var items [][]byte
				var preds []float64
				for _, p := range c.Runs[m].Predictions[u] {
					items = append(items, []byte(p[0].(string)))
					preds = append(preds, p[1].(float64))
				}
				if err := r.AddPredictions([]byte(u), items, preds); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.Finish(); err != nil {
				t.Fatal(err)
			}
			want := c.Users[m]
			if len(got) != len(want) {
				t.Errorf("%s %s: %d users reported, oracle has %d", c.Name, m, len(got), len(want))
			}
			for u, wv := range want {
				for n, w := range wv {
					if g, ok := got[u][n]; !ok || !testutil.Close(g, w, 1e-12) {
						t.Errorf("%s %s user %s %s = %v, oracle %v", c.Name, m, u, n, g, w)
					}
				}
			}
			runs = append(runs, r)
		}
		vals := FinishDataset(runs)
		for j, m := range methods {
			want := c.Runs2[m]
			for n, w := range want {
				g := vals[j].Values[n]
				if g == nil {
					t.Errorf("%s %s run %s missing, oracle %v", c.Name, m, n, w)
				} else if !testutil.Close(*g, w, 1e-12) {
					t.Errorf("%s %s run %s = %v, oracle %v", c.Name, m, n, *g, w)
				}
			}
			for n, g := range vals[j].Values {
				if trecEvalOnly(n) {
					continue // checked against the trec_eval oracle (report's TestOfflineTrecEvalOracle)
				}
				if _, ok := want[n]; !ok && g != nil {
					t.Errorf("%s %s run %s = %v, oracle has none", c.Name, m, n, *g)
				}
			}
		}
		res := Metrics(o, vals, true)
		for _, tb := range res.Tables() {
			tb.Check()
		}
	}
}

func TestOfflineOptionsValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mut  func(o *Options)
		want string
	}{
		{func(o *Options) { o.Runs = "" }, "runs: required"},
		{func(o *Options) { o.Runs = "runs/x.csv" }, "no {method} placeholder"},
		{func(o *Options) { o.Truth = "" }, "truth: required"},
		{func(o *Options) { o.Runs = "r/{method}_{dataset}.csv" }, "must both hold {dataset} or neither"},
		{func(o *Options) { o.K = []int{10, 0} }, "k: 0 is below the minimum of 1"},
		{func(o *Options) { o.NDCGDiscount = "jarvellin" }, `ndcg_discount: unknown value "jarvellin" (did you mean "jarvelin"?)`},
		{func(o *Options) { o.NDCGGain = "exp" }, `ndcg_gain: unknown value "exp"`},
		{func(o *Options) { o.HalfLife = -1 }, "half_life: must be positive"},
		{func(o *Options) { o.RelevanceThreshold = -1 }, "relevance_threshold: must be positive"},
		{func(o *Options) { o.NoRelevant = "drop" }, `no_relevant: unknown value "drop"`},
		{func(o *Options) { o.MissingUsers = "keep" }, `missing_users: unknown value "keep"`},
		{func(o *Options) { o.TrecEval = "9.0.8" }, `trec_eval: unknown value "9.0.8"`},
		{func(o *Options) { o.Format = "parquet" }, `format: unknown value "parquet"`},
		{func(o *Options) { o.Predictions = "p.csv" }, `predictions: the pattern "p.csv" has no {method}`},
	} {
		o := offlineOpts(c.mut)
		err := o.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	if d := offlineOpts(nil); d.Validate() != nil {
		err := d.Validate()
		t.Errorf("defaults: %v", err)
	}
}

// A user whose list is longer than the largest cutoff, a list shorter than
// k, graded gains below the threshold: precision divides by k, the
// ideal list uses only gains at or above the threshold.
func TestOfflineEdgeCases(t *testing.T) {
	t.Parallel()
	o := offlineOpts(func(o *Options) { o.K = []int{2, 4}; o.RelevanceThreshold = 2 })
	ev := NewEvaluator(o)
	out := make([]float64, len(ev.Names()))
	// list: rel 3, rel 1 (below threshold), rel 0; truth holds 3, 1, 2.
	n := ev.Eval([]float64{3, 1, 0}, []float64{3, 1, 2}, out)
	if n != 2 {
		t.Fatalf("numRel %d", n)
	}
	get := func(name string) float64 { return out[slices.Index(ev.Names(), name)] }
	if get("precision@4") != 0.25 || get("recall@4") != 0.5 {
		t.Errorf("precision@4 %v recall@4 %v", get("precision@4"), get("recall@4"))
	}
	// DCG@2 = 3 + 1/log2(3) (the level-1 item has gain 1 although it is
	// below the threshold, as in trec_eval); IDCG@2 = 3 + 2/log2(3).
	if got, want := get("ndcg@2"), (3+1/math.Log2(3))/(3+2/math.Log2(3)); math.Abs(got-want) > 1e-15 {
		t.Errorf("ndcg@2 = %v, want %v", got, want)
	}
	// No relevant item: Eval says so, the binary measures are 0 and nDCG
	// counts the level-1 gain (1/1 at rank 1, the ideal 1).
	if ev.Eval([]float64{1}, []float64{1, 0}, out) != 0 || get("ndcg@2") != 1 || get("precision@2") != 0 || get("map") != 0 {
		t.Errorf("no relevant: %v", out)
	}
}

// trecEvalOnly reports the measures gen.py leaves to the trec_eval
// oracle (testdata/oracle/trec_eval).
func trecEvalOnly(name string) bool {
	return slices.Contains(ListMetrics, name) || name == GMMAP || strings.HasPrefix(name, "iprec@") || strings.HasPrefix(name, "success@")
}

// TestIprecTrecEval9 checks the two conventions of iprec@L on one user
// where they differ: R = 4 relevant items, hits at ranks 1, 4, 5 and 10.
// The precision at the j-th hit is 1/1 = 1, 2/4 = 0.5, 3/5 = 0.6,
// 4/10 = 0.4, so the best precision at hit j or later is 1 (j ≤ 1),
// 0.6 (j = 2, 3) and 0.4 (j = 4). The cut c(L) in hits, L·R = 0, 0.4,
// 0.8, 1.2, 1.6, 2.0, 2.4, 2.8, 3.2, 3.6, 4.0:
//
//	trec_eval 10, round(L·R):  0 0 1 1 2 2 2 3 3 4 4
//	trec_eval 9, ⌊L·R + 0.9⌋:  0 1 1 2 2 2 3 3 4 4 4   (0.9, 1.3, 1.7, 2.1, 2.5, 2.9, 3.3, 3.7, 4.1, 4.5, 4.9)
//
// so iprec@0.3 is 1 under 10 (cut 1) and 0.6 under 9 (cut 2), iprec@0.6
// 0.6 under both (cuts 2 and 3), iprec@0.8 0.6 under 10 (cut 3) and 0.4
// under 9 (cut 4).
func TestIprecTrecEval9(t *testing.T) {
	t.Parallel()
	hits := []int{1, 0, 0, 1, 1, 0, 0, 0, 0, 1}
	want := map[string][]float64{
		TrecEval10: {1, 1, 1, 1, 0.6, 0.6, 0.6, 0.6, 0.6, 0.4, 0.4},
		TrecEval9:  {1, 1, 1, 0.6, 0.6, 0.6, 0.6, 0.6, 0.4, 0.4, 0.4},
	}
	for v, w := range want {
		got := evalOne(t, offlineOpts(func(o *Options) { o.TrecEval = v }), hits, 4)
		for i := range RecallLevels {
			if g := got[IprecName(i)]; g != w[i] {
				t.Errorf("trec_eval %s: %s = %v, want %v", v, IprecName(i), g, w[i])
			}
		}
	}
	// The cuts themselves, at recall levels whose product with R lands
	// on a tenth: trec_eval 9 truncates 0.1·R + 0.9, so 0.1 of 1 to 10
	// relevant documents is always 1 document; trec_eval 10 rounds,
	// 0 below R = 5.
	for r := 1; r <= 10; r++ {
		if c := IprecCut(0.1, r, true); c != 1 {
			t.Errorf("trec_eval 9 cut of 0.1 with R = %d: %d, want 1", r, c)
		}
		if c, w := IprecCut(0.1, r, false), map[bool]int{true: 1, false: 0}[r >= 5]; c != w {
			t.Errorf("trec_eval 10 cut of 0.1 with R = %d: %d, want %d", r, c, w)
		}
	}
}
