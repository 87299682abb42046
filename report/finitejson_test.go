package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/report/kinds"
)

// infResult is a result with non-finite numbers in its own fields, as an
// analysis may compute (a ratio to 0, a statistic of constant data).
type infResult struct {
	Score   float64              `json:"score"`
	Curve   []float64            `json:"curve"`
	ByRule  map[string][]float64 `json:"by_rule"`
	Opt     leaderboard.OptFloat `json:"opt"`
	Ptr     *float64             `json:"ptr"`
	Empty   float64              `json:"empty,omitempty"`
	Nested  struct{ X, Y float64 }
	Any     any    `json:"any"`
	Name    string `json:"name"`
	hidden  float64
	Skipped float64 `json:"-"`
	analyses.Warnings
}

func (r *infResult) Tables() []analyses.Table {
	return []analyses.Table{{Columns: []string{"method", "ratio"}, Rows: [][]any{{"A", math.Inf(1)}, {"B", 2.0}}}}
}

func newInfResult(bad float64) *infResult {
	p := bad
	r := &infResult{Score: bad, Curve: []float64{1, bad, 3}, ByRule: map[string][]float64{"b": {bad}, "a": {0.5}},
		Opt: leaderboard.OptFloat(bad), Ptr: &p, Any: bad, Name: "<x>", hidden: bad, Skipped: bad}
	r.Nested.X, r.Nested.Y = 1, bad
	r.Warnf("a note")
	return r
}

// TestFiniteJSONBuild plants +Inf in a result: the build succeeds, the
// data file holds null, and the JSON and the page say where.
func TestFiniteJSONBuild(t *testing.T) {
	t.Parallel()
	reg := kinds.Kinds()
	reg["inf"] = kinds.NewKind("inf", "a result holding +Inf", func(ctx *kinds.Job, o *struct {
		Metric string `toml:"metric"`
	}) (*kinds.Output, error) {
		return &kinds.Output{Result: newInfResult(math.Inf(1))}, nil
	})
	study := strings.Replace(smallStudy, `type    = "aggregate"`, `type    = "inf"`, 1)
	dir := mustBuild(t, study, func(o *Options) { o.Kinds = reg })
	doc := readJSON(t, dir, "data/lb.json")
	if doc["score"] != nil {
		t.Errorf("score = %v, want null", doc["score"])
	}
	warn, _ := json.Marshal(doc["warnings"])
	if !strings.Contains(string(warn), "written as null in the JSON data: score, curve[1]") || !strings.Contains(string(warn), "a note") {
		t.Errorf("warnings %s", warn)
	}
	if page := readFile(t, dir, "lb.html"); !strings.Contains(page, "not finite (NaN or ±infinity)") {
		t.Error("the analysis page does not note the null values")
	}
	if rows := doc["tables"].(map[string]any)["lb"].([]any); rows[0].(map[string]any)["ratio"] != nil {
		t.Errorf("table cell +Inf = %v, want null", rows[0])
	}
}
