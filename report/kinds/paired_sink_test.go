package kinds

import (
	"math"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/significance"
	"github.com/evalbook/evalbook/report/load"
)

// TestPairedSinkByUnitIndex: the paired_tests sink keeps each method's
// values by unit index, in the order units first appear, with NaN where
// a method has no value, ignores other datasets and unlisted methods,
// and names both places of a unit given twice for a method (the units
// pass's repeat check finds every repeat first; this is the sink's own).
func TestPairedSinkByUnitIndex(t *testing.T) {
	p := newPairedSink(&significance.PairedTestsOptions{Dataset: "d", Methods: []string{"A", "B"}}, "m")
	rows := []load.UnitRow{
		{Dataset: "d", Method: "A", Unit: "u1", Metric: "m", Value: 1, File: "a.csv", Line: 2},
		{Dataset: "other", Method: "A", Unit: "u9", Metric: "m", Value: 9, File: "o.csv", Line: 2},
		{Dataset: "d", Method: "A", Unit: "u2", Metric: "m", Value: 2, File: "a.csv", Line: 3},
		{Dataset: "d", Method: "C", Unit: "u7", Metric: "m", Value: 7, File: "c.csv", Line: 2},
		{Dataset: "d", Method: "B", Unit: "u2", Metric: "m", Value: 20, File: "b.csv", Line: 2},
		{Dataset: "d", Method: "B", Unit: "u3", Metric: "m", Value: math.NaN(), File: "b.csv", Line: 3},
	}
	for i := range rows {
		if err := p.Add(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(p.units, " "); got != "u1 u2 u3" {
		t.Errorf("units %q, want u1 u2 u3", got)
	}
	if !p.datasets["other"] || !p.allMethods["C"] {
		t.Error("the other dataset or the unlisted method is not registered for the messages")
	}
	a, b := p.vals[0].v, p.vals[1].v
	if len(a) != 2 || a[0] != 1 || a[1] != 2 || len(b) != 3 || !math.IsNaN(b[0]) || b[1] != 20 || !math.IsNaN(b[2]) {
		t.Errorf("values A %v, B %v", a, b)
	}
	err := p.Add(&load.UnitRow{Dataset: "d", Method: "B", Unit: "u2", Metric: "m", Value: 21, File: "b2.csv", Line: 7})
	if err == nil || !strings.Contains(err.Error(), "b2.csv:7") || !strings.Contains(err.Error(), `unit "u2" of method "B" on dataset "d" appears twice (first at b.csv:2)`) {
		t.Errorf("a repeat: %v", err)
	}
}
