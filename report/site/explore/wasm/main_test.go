package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/report/site/explore"
)

// TestSession is the module's glue as the page calls it: the study's
// JSON in, a view's JSON in, the result's JSON out — the same result
// explore.Compute (or ComputeQuick) gives — and every failure as
// {"error": …} naming what is wrong.
func TestSession(t *testing.T) {
	v1, v2, v3, v4 := 0.5, 0.25, 0.75, 0.125
	d := explore.Data{Datasets: []string{"x", "y"}, Methods: []string{"A", "B"},
		Metrics:   []explore.Metric{{Name: "m", HigherIsBetter: true}},
		Values:    map[string][][]*float64{"m": {{&v1, &v2}, {&v3, &v4}}},
		Aggregate: &explore.Aggregate{ID: "lb", Options: leaderboard.AggregateOptions{Metric: "m", Rules: []string{"borda"}}}}
	d.Published = explore.State{Metric: "m", Datasets: d.Datasets, Methods: d.Methods, Rules: []string{"borda"}}
	s := &session{}
	if got := s.explore(`{}`, false); got != `{"error":"no study loaded"}` {
		t.Errorf("before load: %s", got)
	}
	if msg := s.load(`{"datasets": 3}`); !strings.HasPrefix(msg, "explore data: json: cannot unmarshal number") {
		t.Errorf("bad data: %q", msg)
	}
	data, _ := json.Marshal(d)
	if msg := s.load(string(data)); msg != "" {
		t.Fatal(msg)
	}
	view := explore.State{Metric: "m", Datasets: []string{"y"}, Methods: d.Methods, Rules: []string{"borda"}}
	state, _ := json.Marshal(view)
	want, err := explore.Compute(&d, view)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := json.Marshal(want)
	if got := s.explore(string(state), false); got != string(wantJSON) {
		t.Errorf("result\n%s\nwant\n%s", got, wantJSON)
	}
	if got := s.explore(`{"metric": "m", "datasets": ["z"]}`, true); !strings.Contains(got, `"error":"unknown dataset \"z\"`) {
		t.Errorf("unknown dataset: %s", got)
	}
	if got := s.explore(`[`, true); !strings.HasPrefix(got, `{"error":"view: `) {
		t.Errorf("bad view: %s", got)
	}
	// without a published stability analysis: no table, the view's changes
	if got := s.stability(string(state), nil); got != `{"tables":null,"changes":["1 dataset left out: x"]}` {
		t.Errorf("stability: %s", got)
	}
}
