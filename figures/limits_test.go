package figures

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/analyses/significance"
)

// TestFigureSeriesLimits: a figure with more methods than it can show
// draws the best MaxSeries (by AUC) and says so in its caption; one
// figure per pair stops at MaxPairFigures and its last caption says so.
func TestFigureSeriesLimits(t *testing.T) {
	const n = 30
	r := &leaderboard.AggregateResult{Metric: "m", Datasets: []string{"d1", "d2"}}
	r.Profile = &leaderboard.Profile{Beta: []float64{1, 2}}
	for m := 0; m < n; m++ {
		r.Methods = append(r.Methods, fmt.Sprintf("m%d", m))
		r.Profile.AUC = append(r.Profile.AUC, float64(m)/1000)
		r.Profile.Rho = append(r.Profile.Rho, []float64{0.5, 1})
	}
	figs, err := Aggregate("lb", "t", r)
	if err != nil {
		t.Fatal(err)
	}
	want := "Only the first 20 of 30 methods (by AUC) are drawn (at most 20 in one figure); the tables hold them all."
	if !strings.Contains(figs[0].Caption, want) {
		t.Fatalf("caption %q lacks %q", figs[0].Caption, want)
	}
	svg := string(figs[0].SVG)
	if !strings.Contains(svg, "m29 (AUC") || strings.Contains(svg, "m9 (AUC") {
		t.Fatalf("the SVG must draw the 20 best methods (m10…m29) and not m9")
	}
	var opt struct{ Series []struct{ Name string } }
	if err := json.Unmarshal(figs[0].Chart, &opt); err != nil {
		t.Fatal(err)
	}
	if len(opt.Series) != 20 || !strings.Contains(opt.Series[0].Name, "m29 (AUC") {
		t.Fatalf("the chart has %d series, want the 20 best", len(opt.Series))
	}

	pr := &significance.PairedTestsResult{Metric: "m", Over: "datasets"}
	for i := 0; i < 60; i++ {
		pr.Pairs = append(pr.Pairs, significance.PairedComparison{A: "a", B: fmt.Sprint(i), N: 3,
			ValueA: []float64{1, 2, 3}, ValueB: []float64{2, 3, 5}, Units: []string{"u1", "u2", "u3"}})
	}
	pfigs, err := PairedTests("pt", "t", pr)
	if err != nil {
		t.Fatal(err)
	}
	if len(pfigs) != MaxPairFigures || !strings.Contains(pfigs[len(pfigs)-1].Caption, "Figures are drawn for the first 50 of 60 pairs (at most 50); the tables hold them all.") {
		t.Fatalf("%d figures, last caption %q", len(pfigs), pfigs[len(pfigs)-1].Caption)
	}
}
