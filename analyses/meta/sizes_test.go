package meta

import (
	"encoding/json"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// TestSummaryNUnknown: effects given as they are (yi, vi) come without
// sample sizes, so the summary's n (and each subgroup's) is null in the
// JSON, not 0, and the tables leave it empty; effects a measure computed
// from counts carry the counts' sizes, and their summary's n is the sum.
func TestSummaryNUnknown(t *testing.T) {
	t.Parallel()
	for _, sized := range []bool{false, true} {
		var studies []Study
		groups := map[string]string{}
		for i, y := range []float64{-0.72, -0.10, -0.23, 0.08} {
			d := string(rune('a' + i))
			s := Study{Dataset: d, Form: Generic, Yi: y, Vi: 0.01 * float64(i+1)}
			if sized {
				s.N, s.Given, s.GivenCols = 100*(i+1), []float64{float64(i + 1), float64(100 * (i + 1))}, []string{"xi", "ni"}
			}
			studies = append(studies, s)
			groups[d] = []string{"x", "y"}[i%2]
		}
		var o Options
		o.Defaults()
		o.Treatment, o.Control, o.Metric, o.Subgroup = "T", "C", "m", "g"
		r, err := Analyze(Input{Metric: analyses.Metric{Name: "m"}, Studies: studies, Groups: groups}, o)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Summary   map[string]any            `json:"summary"`
			Subgroups map[string]map[string]any `json:"subgroups"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		want := map[bool]any{false: nil, true: 1000.0}[sized]
		if n, ok := doc.Summary["n"]; !ok || n != want {
			t.Errorf("sized %v: summary n = %v (present %v), want %v", sized, n, ok, want)
		}
		if k := doc.Summary["k"]; k != 4.0 {
			t.Errorf("sized %v: summary k = %v", sized, k)
		}
		for g, s := range doc.Subgroups {
			if n, ok := s["n"]; !ok || sized && n != map[string]any{"x": 400.0, "y": 600.0}[g] || !sized && n != nil {
				t.Errorf("sized %v: subgroup %s n = %v (present %v)", sized, g, n, ok)
			}
		}
		main := r.Tables()[0]
		last := main.Rows[len(main.Rows)-1]
		if sized && last[1] != 1000 || !sized && last[1] != nil {
			t.Errorf("sized %v: the table's summary n cell %v", sized, last[1])
		}
		in := r.Tables()[1]
		if sized && (len(in.Columns) != 7 || in.Columns[1] != "xi" || in.Columns[2] != "ni" || in.Rows[1][2] != int64(200)) || !sized && in.Title != "Effects and sampling variances as given" {
			t.Errorf("sized %v: inputs table %q %q %v", sized, in.Title, in.Columns, in.Rows)
		}
	}
}
