package significance

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// test = "auto" adds autorank's automatic choice to critical_difference:
// the same result as Auto on the same matrix (in its JSON, under
// "auto"), its tables after the Friedman ones, its highlight and its
// report, named through the analysis's one Naming; test = "friedman"
// (the default) has none of it, and another test is an error at its key.
func TestCriticalDifferenceTestAuto(t *testing.T) {
	cases := loadAutoCases(t)
	for _, name := range []string{"normal", "nonnormal"} {
		in := cases[name].input()
		want, err := Auto(in, AutoOptions{Alpha: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		r, err := CriticalDifference(CriticalDifferenceInput{AggregateInput: in}, CriticalDifferenceOptions{Metric: "score", Test: TestAuto})
		if err != nil {
			t.Fatal(err)
		}
		if r.Auto == nil {
			t.Fatalf("%s: test = auto gave no automatic choice", name)
		}
		a, _ := json.Marshal(r.Auto)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			t.Errorf("%s: the result's automatic choice differs from Auto's:\n%s\n%s", name, a, b)
		}
		var names []string
		for _, tb := range r.Tables() {
			names = append(names, tb.Name)
		}
		if !slices.Equal(names, []string{"", "ranks", "pairs", "auto", "auto-methods", "auto-pairs"}) {
			t.Errorf("%s: tables %v", name, names)
		}
		r.Naming = analyses.Naming{Metrics: map[string]string{"score": "Score (test)"}}
		if h := r.Highlight(); h != r.Auto.Highlight() || !strings.Contains(h, "Score (test)") || !strings.Contains(h, "automatic choice") {
			t.Errorf("%s: highlight %q, want the automatic choice's, with the metric's label", name, h)
		}
		if rep := strings.Join(r.Report(), " "); !strings.Contains(rep, "Score (test)") {
			t.Errorf("%s: report without the metric's label: %q", name, rep)
		}
	}
	r, err := CriticalDifference(CriticalDifferenceInput{AggregateInput: cases["normal"].input()}, CriticalDifferenceOptions{Metric: "score"})
	if err != nil || r.Auto != nil || r.Report() != nil || len(r.Tables()) != 3 {
		t.Errorf("the default test: auto %v, %d tables, err %v; want Friedman alone", r.Auto != nil, len(r.Tables()), err)
	}
	o := CriticalDifferenceOptions{Metric: "score", Test: "anova"}
	o.Defaults()
	if err := o.Validate(); err == nil || !strings.HasPrefix(err.Error(), "test:") {
		t.Errorf("test = anova: %v, want an error at the key", err)
	}
}
