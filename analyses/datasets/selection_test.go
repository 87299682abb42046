package datasets

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"

	"github.com/evalbook/evalbook/analyses/stats"
)

// selectionStudy is n datasets with 18 features, 11 methods and 3
// metrics (one lower-is-better), the size of the study of Shevchenko et
// al. 2024.
func selectionStudy(n int, seed uint64) SelectionInput {
	rng := rand.New(rand.NewPCG(seed, 2))
	in := SelectionInput{Seed: seed, Jobs: 1}
	for j := 0; j < 18; j++ {
		in.Features = append(in.Features, fmt.Sprintf("f%d", j))
	}
	for m := 0; m < 11; m++ {
		in.Methods = append(in.Methods, fmt.Sprintf("m%d", m))
	}
	in.Metrics = []analyses.Metric{{Name: "ndcg@10"}, {Name: "hitrate@10"}, {Name: "rmse", Better: analyses.LowerIsBetter}}
	skill := make([]float64, len(in.Methods))
	for m := range skill {
		skill[m] = rng.Float64()
	}
	in.Q = make([]analyses.Matrix, len(in.Metrics))
	for d := 0; d < n; d++ {
		in.Datasets = append(in.Datasets, fmt.Sprintf("ds%02d", d))
		row := make([]float64, len(in.Features))
		for j := range row {
			row[j] = rng.NormFloat64() * float64(j+1)
		}
		in.X = append(in.X, row)
		hard := rng.Float64()
		for k := range in.Metrics {
			v := make([]float64, len(in.Methods))
			for m := range v {
				v[m] = 0.1 + hard*skill[m] + 0.2*rng.Float64()
				if in.Metrics[k].Better == analyses.LowerIsBetter {
					v[m] = 2 - v[m]
				}
			}
			in.Q[k] = append(in.Q[k], v)
		}
	}
	return in
}

var selectionMetrics = []string{"ndcg@10", "hitrate@10", "rmse"}

func TestSelectionDeterministicWhateverJobs(t *testing.T) {
	t.Parallel()
	in := selectionStudy(30, 11)
	o := SelectionOptions{Metrics: selectionMetrics, Simulations: 60}
	a, err := Selection(in, o)
	if err != nil {
		t.Fatal(err)
	}
	in.Jobs = 4
	var calls atomic.Int64
	in.Progress = func(done, total int) {
		calls.Add(1)
		if total != 60 || done < 1 || done > 60 {
			t.Errorf("progress %d/%d", done, total)
		}
	}
	b, err := Selection(in, o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("result depends on Jobs")
	}
	if calls.Load() != 60 {
		t.Errorf("progress called %d times", calls.Load())
	}
	// Dropping a strategy leaves the others' numbers unchanged.
	o2 := o
	o2.Strategies = []string{StrategyKMeans}
	c, err := Selection(in, o2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.MeanRho["kmeans"], a.MeanRho["kmeans"]) || !reflect.DeepEqual(c.ChosenCounts["kmeans"], a.ChosenCounts["kmeans"]) {
		t.Error("kmeans changes when other strategies are left out")
	}
	for _, strat := range AllStrategies {
		total := 0
		for _, n := range a.ChosenCounts[strat] {
			total += n
		}
		if total != 60*6 {
			t.Errorf("%s chose %d datasets over 60 simulations of 6", strat, total)
		}
	}
	tabs := a.Tables()
	if got := strings.Join(tabs[0].Columns, ","); got != "strategy,metric,mean_rho,sd_rho,q05_rho,median_rho,q95_rho,simulations" {
		t.Errorf("columns %s", got)
	}
	if len(tabs[0].Rows) != 12 || tabs[1].Name != "means" || tabs[2].Name != "chosen" {
		t.Errorf("%d rows; tables %q, %q", len(tabs[0].Rows), tabs[1].Name, tabs[2].Name)
	}
	if got := strings.Join(tabs[1].Columns, ","); got != "strategy,ndcg@10,hitrate@10,rmse" || len(tabs[1].Rows) != 4 || tabs[1].Rows[0][1] != a.MeanRho["random"]["ndcg@10"] {
		t.Errorf("Table 4 layout: %s %v", got, tabs[1].Rows)
	}
	for _, tb := range tabs {
		tb.Check()
	}
	if _, err := json.Marshal(a); err != nil {
		t.Error(err)
	}
}

// TestSelectionSpearmanAgainstDirect recomputes ρ of the random strategy
// for one simulation by hand from its stream.
func TestSelectionSpearmanAgainstDirect(t *testing.T) {
	t.Parallel()
	in := selectionStudy(12, 5)
	in.Metrics, in.Q = in.Metrics[:1], in.Q[:1]
	res, err := Selection(in, SelectionOptions{Metrics: []string{"ndcg@10"}, Simulations: 1, Strategies: []string{"random"}, Size: 4})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(in.Seed, 0))
	pick := rng.Perm(12)[:4]
	var sub analyses.Matrix
	for _, d := range pick {
		sub = append(sub, in.Q[0][d])
	}
	all, _ := leaderboard.RuleScores(leaderboard.RuleMeanRank, in.Q[0], true, 3)
	part, _ := leaderboard.RuleScores(leaderboard.RuleMeanRank, sub, true, 3)
	want := stats.Spearman(part, all)
	if got := *res.Summary[0].Mean; got != want {
		t.Errorf("ρ = %g, direct %g", got, want)
	}
}

func TestSelectionEdgeCases(t *testing.T) {
	t.Parallel()
	in := selectionStudy(6, 1)
	if _, err := Selection(in, SelectionOptions{Metrics: selectionMetrics}); err == nil || !strings.Contains(err.Error(), "size must be below") {
		t.Errorf("6 of 6: %v", err)
	}
	in = selectionStudy(10, 1)
	in.Q[1][3][2] = nanValue()
	if _, err := Selection(in, SelectionOptions{Metrics: selectionMetrics, Size: 3}); err == nil || !strings.Contains(err.Error(), `dataset "ds03" has no value for hitrate@10 of method m2`) {
		t.Errorf("missing: %v", err)
	}
	res, err := Selection(in, SelectionOptions{Metrics: selectionMetrics, Size: 3, Missing: "drop", Simulations: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Datasets) != 9 || !strings.Contains(strings.Join(res.Notes(), " "), "ds03") {
		t.Errorf("drop: %v %v", res.Datasets, res.Notes())
	}
	for _, o := range []SelectionOptions{{}, {Metrics: []string{"x"}, Size: 1}, {Metrics: []string{"x"}, Strategies: []string{"kmean"}},
		{Metrics: []string{"x"}, Rule: "borda_count"}, {Metrics: []string{"x"}, Start: 6}, {Metrics: []string{"x"}, Epsilon: -1},
		{Metrics: []string{"x"}, Strategies: []string{"random", "random"}}} {
		o.Defaults()
		if o.Validate() == nil {
			t.Errorf("%+v: no validation error", o)
		}
	}
	var o SelectionOptions
	o.Metrics = []string{"x"}
	o.Strategies = []string{"kmean"}
	o.Defaults()
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), `did you mean "kmeans"`) {
		t.Errorf("hint: %v", err)
	}
}

func nanValue() float64 { var z float64; return z / z }

// BenchmarkDatasetSelection is the acceptance point of issue 7: 500
// simulations × 4 strategies × 3 metrics on 30 datasets in under 10 s.
// `make bench` prints its time beside the budget; no test asserts it.
func BenchmarkDatasetSelection(b *testing.B) {
	in := selectionStudy(30, 3)
	in.Jobs = 2
	for i := 0; i < b.N; i++ {
		if _, err := Selection(in, SelectionOptions{Metrics: selectionMetrics}); err != nil {
			b.Fatal(err)
		}
	}
}
