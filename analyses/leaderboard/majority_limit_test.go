package leaderboard

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// wideInput is 2 datasets × nm methods of distinct values.
func wideInput(nm int) AggregateInput {
	in := AggregateInput{Metric: analyses.Metric{Name: "ndcg", Better: analyses.HigherIsBetter}, Datasets: []string{"d1", "d2"}}
	in.Q = analyses.Matrix{make([]float64, nm), make([]float64, nm)}
	for m := 0; m < nm; m++ {
		in.Methods = append(in.Methods, fmt.Sprintf("m%d", m))
		in.Q[0][m] = float64(m) / float64(nm)
		in.Q[1][m] = float64((m*7919)%nm) / float64(nm)
	}
	return in
}

// Copeland and Minimax compare every pair of methods: past the limit of
// comparisons the default rules leave them out and say so, and naming
// them is an error at the rules key; under it nothing changes.
func TestMajorityRulesBounded(t *testing.T) {
	over := 10_001 // 2 · 10 001 · 10 000 / 2 > 1e8
	o := AggregateOptions{Metric: "ndcg"}
	o.Defaults()
	res, err := Aggregate(wideInput(over), o)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(res.Rules, RuleCopeland) || slices.Contains(res.Rules, RuleMinimax) {
		t.Errorf("default rules over %d methods computed the majority rules: %v", over, res.Rules)
	}
	if len(res.Rules) != len(AllRules)-2 {
		t.Errorf("default rules over the limit = %v, want every other rule", res.Rules)
	}
	if w := strings.Join(res.List, "\n"); !strings.Contains(w, "copeland and minimax left out") || !strings.Contains(w, "1e+08") {
		t.Errorf("no warning names the left-out rules and the limit: %q", w)
	}

	_, err = Aggregate(wideInput(over), AggregateOptions{Metric: "ndcg", Rules: []string{RuleMeanRank, RuleMinimax}})
	var oe *analyses.OptionError
	if !errors.As(err, &oe) || oe.Key != "rules" || !strings.Contains(err.Error(), "minimax") || !strings.Contains(err.Error(), "methods = [...]") {
		t.Fatalf("minimax named over the limit: err = %v, want an option error at rules naming minimax and the way out", err)
	}

	res, err = Aggregate(wideInput(50), AggregateOptions{Metric: "ndcg"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Rules, AllRules) || len(res.List) != 0 {
		t.Errorf("under the limit: rules %v, warnings %v; want every rule and no warning", res.Rules, res.List)
	}
}
