package explore

import (
	"encoding/json"
	"github.com/evalbook/evalbook/analyses"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/analyses/significance"
)

// study is a study of nd datasets × nm methods of one metric, values
// drawn from a fixed seed, with both published analyses.
func study(nd, nm int) *Data {
	r := rand.New(rand.NewPCG(7, 35))
	d := &Data{Metrics: []Metric{{Name: "ndcg@10", HigherIsBetter: true}}, Values: map[string][][]*float64{}, Naming: analyses.Naming{Rules: leaderboard.RuleLabels}}
	for i := 0; i < nd; i++ {
		d.Datasets = append(d.Datasets, "ds"+string(rune('A'+i)))
	}
	for j := 0; j < nm; j++ {
		d.Methods = append(d.Methods, "m"+string(rune('a'+j)))
	}
	for i := 0; i < nd; i++ {
		row := make([]*float64, nm)
		for j := range row {
			v := 0.1 + 0.05*float64(j) + 0.2*r.Float64()
			row[j] = &v
		}
		d.Values["ndcg@10"] = append(d.Values["ndcg@10"], row)
	}
	d.Aggregate = &Aggregate{ID: "leaderboard", Options: leaderboard.AggregateOptions{Metric: "ndcg@10"}}
	d.Aggregate.Options.Defaults()
	cd := significance.CriticalDifferenceOptions{Metric: "ndcg@10", Bayesian: true, Samples: 2000}
	cd.Defaults()
	d.CriticalDifference = &CriticalDifference{ID: "critical-difference", Seed: 12345, Options: cd}
	d.Published = State{Metric: "ndcg@10", Datasets: d.Datasets, Methods: d.Methods, Rules: d.Aggregate.Options.Rules}
	return d
}

// restricted is the study as if its results held only the view's
// datasets and methods: the oracle of a view is the study that never
// had the rest.
func restricted(d *Data, s State) *Data {
	out := *d
	out.Datasets, out.Methods = s.Datasets, s.Methods
	out.Values = map[string][][]*float64{}
	for metric, rows := range d.Values {
		for _, ds := range s.Datasets {
			i := slices.Index(d.Datasets, ds)
			var row []*float64
			for _, m := range s.Methods {
				row = append(row, rows[i][slices.Index(d.Methods, m)])
			}
			out.Values[metric] = append(out.Values[metric], row)
		}
	}
	out.Published = s
	return &out
}

// subset keeps each id with probability 1/2, at least min of them.
func subset(r *rand.Rand, ids []string, min int) []string {
	for {
		var out []string
		for _, id := range ids {
			if r.IntN(2) == 0 {
				out = append(out, id)
			}
		}
		if len(out) >= min {
			return out
		}
	}
}

// TestComputeIsTheRestrictedStudy: for random views, every table the
// page shows (leaderboard, Friedman/Nemenyi, mean ranks, Wilcoxon–Holm
// pairs) is the one of a study whose results hold only the view's
// datasets and methods, cell for cell as printed; and the view is told
// apart from the published one.
func TestComputeIsTheRestrictedStudy(t *testing.T) {
	d := study(12, 6)
	r := rand.New(rand.NewPCG(1, 2))
	n := 20
	if testing.Short() {
		n = 6
	}
	for k := 0; k < n; k++ {
		s := State{Metric: "ndcg@10", Datasets: subset(r, d.Datasets, 3), Methods: subset(r, d.Methods, 2),
			Rules: subset(r, leaderboard.AllRules, 1)}
		got, err := Compute(d, s)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Compute(restricted(d, s), s)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Problems) > 0 || len(got.Tables) < 4 {
			t.Fatalf("view %v: problems %v, %d tables", s, got.Problems, len(got.Tables))
		}
		if !reflect.DeepEqual(got.Tables, want.Tables) {
			g, _ := json.Marshal(got.Tables)
			w, _ := json.Marshal(want.Tables)
			t.Fatalf("view %v:\n got %s\nwant %s", s, g, w)
		}
		if len(got.Changes) == 0 {
			t.Errorf("view %v: no change from the published study reported", s)
		}
	}
}

// TestComputePublished: the published view reports no change, and its
// leaderboard is ranked under every published rule.
func TestComputePublished(t *testing.T) {
	d := study(8, 4)
	res, err := Compute(d, d.Published)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 0 || len(res.Problems) != 0 {
		t.Fatalf("published view: changes %v, problems %v", res.Changes, res.Problems)
	}
	lb := res.Tables[0]
	if lb.Analysis != "leaderboard" || len(lb.Columns) != 1+len(leaderboard.AllRules) || len(lb.Rows) != 4 {
		t.Fatalf("leaderboard table %q: %d columns, %d rows", lb.ID, len(lb.Columns), len(lb.Rows))
	}
}

// TestComputeChanges: what the banner says of a view.
func TestComputeChanges(t *testing.T) {
	d := study(5, 4)
	d.Naming.Datasets = map[string]string{"dsB": "Bravo"}
	s := State{Metric: "ndcg@10", Datasets: []string{"dsA", "dsC", "dsD", "dsE"}, Methods: []string{"ma", "mb", "mc"}, Rules: []string{"borda"}}
	res, err := Compute(d, s)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1 dataset left out: Bravo", "1 method left out: md", "rules: Borda"}
	if !reflect.DeepEqual(res.Changes, want) {
		t.Errorf("changes %q, want %q", res.Changes, want)
	}
}

// TestComputeRefusesBadViews: a view naming what the study lacks is an
// error naming it; a view too small for an analysis is its problem.
func TestComputeRefusesBadViews(t *testing.T) {
	d := study(5, 4)
	p := d.Published
	for _, c := range []struct {
		s    State
		want string
	}{
		{State{Metric: "ndcg@20", Datasets: p.Datasets, Methods: p.Methods, Rules: p.Rules}, `unknown metric "ndcg@20"`},
		{State{Metric: p.Metric, Datasets: []string{"dsA", "dsZ"}, Methods: p.Methods, Rules: p.Rules}, `unknown dataset "dsZ"`},
		{State{Metric: p.Metric, Datasets: p.Datasets, Methods: []string{"ma", "ma"}, Rules: p.Rules}, `method "ma" twice`},
		{State{Metric: p.Metric, Datasets: p.Datasets, Methods: p.Methods, Rules: []string{"bordaa"}}, `unknown rule "bordaa"`},
		{State{Metric: p.Metric, Datasets: p.Datasets, Methods: p.Methods}, "no aggregation rule chosen"},
	} {
		if _, err := Compute(d, c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("view %v: error %v, want %q", c.s, err, c.want)
		}
	}
	res, err := Compute(d, State{Metric: p.Metric, Datasets: p.Datasets[:1], Methods: p.Methods, Rules: p.Rules})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || !strings.HasPrefix(res.Problems[0], "critical_difference: ") {
		t.Errorf("one dataset: problems %q, want critical_difference's", res.Problems)
	}
}

// TestComputeQuick: the quick result is the study's without the
// Bayesian test — every table as a study whose critical_difference sets
// bayesian = false shows it — and says the test is pending; the full
// result has the test's columns and nothing pending.
func TestComputeQuick(t *testing.T) {
	d := study(10, 5)
	s := State{Metric: "ndcg@10", Datasets: d.Datasets[1:], Methods: d.Methods, Rules: []string{"borda", "mean_rank"}}
	quick, err := ComputeQuick(d, s)
	if err != nil {
		t.Fatal(err)
	}
	off := *d
	cd := *d.CriticalDifference
	cd.Options.Bayesian, cd.Options.Samples = false, 0
	cd.Options.Defaults()
	off.CriticalDifference = &cd
	want, err := Compute(&off, s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(quick.Tables, want.Tables) {
		t.Errorf("the quick result is not the study's without the Bayesian test")
	}
	if !reflect.DeepEqual(quick.Pending, []string{"the Bayesian signed-rank test"}) || len(want.Pending) != 0 {
		t.Errorf("pending: quick %q, without the test %q", quick.Pending, want.Pending)
	}
	full, err := Compute(d, s)
	if err != nil {
		t.Fatal(err)
	}
	pairs := func(r *Result) int {
		for _, tab := range r.Tables {
			if tab.Name == "pairs" {
				return len(tab.Columns)
			}
		}
		return 0
	}
	if len(full.Pending) != 0 || pairs(full) <= pairs(quick) {
		t.Errorf("full result: pending %q, %d columns of pairs against the quick %d", full.Pending, pairs(full), pairs(quick))
	}
}

// TestComputeStabilityIsTheRestrictedStudy: the stability tables of a
// view are those of the study whose results hold only its datasets and
// methods (same seed, same perturbations), and progress reaches the end
// of every perturbation.
func TestComputeStabilityIsTheRestrictedStudy(t *testing.T) {
	d := study(12, 6)
	one := 1.0
	d.Metrics[0].Max = &one
	st := leaderboard.StabilityOptions{Metric: "ndcg@10", Repeats: 5}
	st.Defaults()
	d.Stability = &Stability{ID: "stability", Seed: 99, Options: st}
	r := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 3; k++ {
		s := State{Metric: "ndcg@10", Datasets: subset(r, d.Datasets, 8), Methods: subset(r, d.Methods, 4), Rules: []string{"borda", "mean", "dm_auc"}}
		last := map[string][2]int{}
		got, err := ComputeStability(d, s, func(label string, done, total int) { last[label] = [2]int{done, total} })
		if err != nil {
			t.Fatal(err)
		}
		want, err := ComputeStability(restricted(d, s), s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Problems) > 0 || len(got.Tables) == 0 {
			t.Fatalf("view %v: problems %v, %d tables", s, got.Problems, len(got.Tables))
		}
		if !reflect.DeepEqual(got.Tables, want.Tables) {
			t.Fatalf("view %v: the stability tables differ from the restricted study's", s)
		}
		if len(last) == 0 {
			t.Fatal("no progress reported")
		}
		for label, p := range last {
			if p[0] != p[1] {
				t.Errorf("progress of %s ended at %d of %d", label, p[0], p[1])
			}
		}
	}
}
