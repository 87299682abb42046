package leaderboard

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// tiesCase is testdata/oracle/ties/cases.json: a matrix whose DM-AUC
// is the same for three methods in exact arithmetic (gen.py, fractions)
// while float64 gives three values that differ in the 17th digit.
type tiesCase struct {
	Q         [][]float64 `json:"q"`
	DMAUC     []float64   `json:"dm_auc"`
	BestTied  []int       `json:"best_tied"`
	Generator string      `json:"generator"`
}

func loadTies(t *testing.T) tiesCase {
	t.Helper()
	b, err := os.ReadFile("testdata/oracle/ties/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var c tiesCase
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDMAUCTiesShareRank (issue 21's acceptance point): three methods
// whose DM-AUC differ only by float rounding share rank 2 (the average
// of 1, 2, 3), none is first alone, and the key finding names all three.
func TestDMAUCTiesShareRank(t *testing.T) {
	t.Parallel()
	c := loadTies(t)
	in := AggregateInput{Metric: analyses.Metric{Name: "ndcg", Better: analyses.HigherIsBetter, Max: math.Inf(1)},
		Datasets: []string{"d1", "d2", "d3", "d4", "d5", "d6"}, Methods: []string{"A", "B", "C", "D"}, Q: c.Q}
	r, err := Aggregate(in, AggregateOptions{Metric: "ndcg", Rules: []string{RuleDMAUC}})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Scores[RuleDMAUC]
	for m, want := range c.DMAUC {
		if math.Abs(s[m]-want) > 1e-9 {
			t.Errorf("dm_auc[%d] = %.17g, exact %.17g (%s)", m, s[m], want, c.Generator)
		}
	}
	if s[0] == s[1] && s[1] == s[2] {
		t.Logf("the float DM-AUCs are now bit-identical (%.17g): the test still checks the ranks, but no longer exercises the tolerance", s[0])
	}
	if got := r.Ranks[RuleDMAUC]; got[0] != 2 || got[1] != 2 || got[2] != 2 || got[3] != 4 {
		t.Errorf("ranks = %v, want [2 2 2 4]: tied scores must share their rank", got)
	}
	h := r.Highlight()
	if !strings.Contains(h, "A, B and C tie for first under DM-AUC") {
		t.Errorf("finding %q does not name the three tied leaders", h)
	}
	for _, alone := range []string{"A ranks first", "B ranks first", "C ranks first"} {
		if strings.Contains(h, alone) {
			t.Errorf("finding %q singles out one of three tied methods", h)
		}
	}
	// the leaderboard's order puts the tied methods first, by name
	if tab := r.Tables()[0]; tab.Rows[3][0] != "D" {
		t.Errorf("main table order %v", tab.Rows)
	}
}

// TestHighlightSkipsBaseline: when a declared baseline ranks first, the
// finding's headline is the best method that is not a baseline, and it
// says that the baseline ranks above; each rule's own score is quoted.
func TestHighlightSkipsBaseline(t *testing.T) {
	t.Parallel()
	q := analyses.Matrix{{0.9, 0.5, 0.4}, {0.8, 0.6, 0.3}, {0.7, 0.2, 0.5}}
	in := AggregateInput{Metric: analyses.Metric{Name: "ndcg@10", Better: analyses.HigherIsBetter, Max: math.Inf(1)},
		Datasets: []string{"a", "b", "c"}, Methods: []string{"Oracle", "EASE", "ALS"}, Q: q}
	r, err := Aggregate(in, AggregateOptions{Metric: "ndcg@10", Rules: []string{RuleMean, RuleMeanRank}})
	if err != nil {
		t.Fatal(err)
	}
	r.Naming = analyses.Naming{Baselines: []string{"Oracle"}, Metrics: map[string]string{"ndcg@10": "nDCG@10"}, Rules: RuleLabels}
	h := r.Highlight()
	// mean: EASE 0.4333…, ALS 0.4; mean rank: EASE (2+2+3)/3, ALS (3+3+2)/3
	want := "On nDCG@10 over 3 datasets, EASE ranks first under Mean (0.4333) and Mean rank (2.333) (among the methods that are not baselines; the baseline Oracle ranks above them under Mean and Mean rank)."
	if h != want {
		t.Errorf("finding\n%s\nwant\n%s", h, want)
	}
	r.Naming = analyses.Naming{}
	// the zero Naming still names the built-in metric and rules
	if h := r.Highlight(); !strings.HasPrefix(h, "On nDCG@10 over 3 datasets, Oracle ranks first under Mean (0.8000) and Mean rank (1)") {
		t.Errorf("without baselines: %s", h)
	}
}

// TestMissingHintSaysWhatDropCosts: the missing-value error says how many
// datasets drop would leave out, and does not suggest it when it would
// leave out most of them (a method that lacks the metric almost
// everywhere) but names the methods to keep instead.
func TestMissingHintSaysWhatDropCosts(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	mostly := analyses.Matrix{{1, 2, nan}, {2, 1, nan}, {1, 3, 0.5}, {2, 2, nan}}
	_, _, _, err := CompleteRows("ndcg", []string{"a", "b", "c", "d"}, []string{"EASE", "ALS", "Random"}, mostly, false)
	want := `metric "ndcg": no value for dataset "a", method "Random"; 3 of 4 datasets lack a value for some method (Random lacks 3): leave those methods out with methods = ["EASE", "ALS"] (missing = "drop" would keep only 1 of 4 datasets)`
	if err == nil || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
	few := analyses.Matrix{{1, 2, nan}, {2, 1, 1}, {1, 3, 0.5}, {2, 2, 1}}
	_, _, _, err = CompleteRows("ndcg", []string{"a", "b", "c", "d"}, []string{"EASE", "ALS", "Random"}, few, false)
	want = `metric "ndcg": no value for dataset "a", method "Random"; 1 of 4 datasets lack a value for some method (Random lacks 1): missing = "drop" would rank on the other 3 datasets, methods = ["EASE", "ALS"] on all 4`
	if err == nil || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
}

// TestLeaderboardCompact: the main table keeps every score and rank
// column (the CSV contract) in the order of rules, sorted by the first
// rule's rank, and says how a page may show it compactly: one labelled
// cell per rule pairing its score and rank columns.
func TestLeaderboardCompact(t *testing.T) {
	t.Parallel()
	q := analyses.Matrix{{0.9, 0.5, 0.4}, {0.8, 0.6, 0.3}, {0.7, 0.2, 0.5}}
	in := AggregateInput{Metric: analyses.Metric{Name: "ndcg", Better: analyses.HigherIsBetter, Max: math.Inf(1)},
		Datasets: []string{"a", "b", "c"}, Methods: []string{"ALS", "EASE", "Pop"}, Q: q}
	r, err := Aggregate(in, AggregateOptions{Metric: "ndcg", Rules: []string{RuleMeanRank, RuleMean}})
	if err != nil {
		t.Fatal(err)
	}
	tab := r.Tables()[0]
	if got := strings.Join(tab.Columns, ","); got != "method,mean_rank,mean_rank_rank,mean,mean_rule_rank" {
		t.Errorf("columns %s", got)
	}
	want := []analyses.CompactColumn{{Label: "Mean rank", Score: "mean_rank", Rank: "mean_rank_rank"}, {Label: "Mean", Score: "mean", Rank: "mean_rule_rank"}}
	if len(tab.Compact) != 2 || tab.Compact[0] != want[0] || tab.Compact[1] != want[1] {
		t.Errorf("compact %+v", tab.Compact)
	}
	// by mean rank (the first rule): ALS 1, EASE (2+2+3)/3 = 2.33, Pop (3+3+2)/3 = 2.67
	if tab.Rows[0][0] != "ALS" || tab.Rows[1][0] != "EASE" || tab.Rows[2][0] != "Pop" {
		t.Errorf("order %v", tab.Rows)
	}
}

// TestEveryPerturbationAndRuleHasALabel: pages, findings and macros name
// perturbations and rules by their labels (analyses.Naming, RuleLabels).
func TestEveryPerturbationAndRuleHasALabel(t *testing.T) {
	t.Parallel()
	var n analyses.Naming
	for _, p := range AllPerturbations {
		if n.Perturbation(p) == p {
			t.Errorf("perturbation %q has no label", p)
		}
	}
	for _, r := range AllRules {
		if RuleLabels[r] == "" {
			t.Errorf("rule %q has no label", r)
		}
	}
}
