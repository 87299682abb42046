package figures

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/analyses/significance"
)

func cdResult(t *testing.T, bayes bool) *significance.CriticalDifferenceResult {
	t.Helper()
	q := make([][]float64, 14)
	for d := range q {
		f := float64(d)
		q[d] = []float64{0.30 + 0.01*math.Sin(f), 0.31 + 0.002*f, 0.29 + 0.01*math.Cos(f), 0.25, 0.33 - 0.004*float64(d%5), 0.2 + 0.001*f}
	}
	in := significance.CriticalDifferenceInput{AggregateInput: leaderboard.AggregateInput{
		Metric: analyses.Metric{Name: "ndcg@10", Max: 1}, Methods: []string{"EASE", "LightGCN", "SASRec", "ALS", "MultiVAE", "Random"},
		Q: q}, Seed: 5, Jobs: 2}
	for d := range q {
		in.Datasets = append(in.Datasets, "data<"+string(rune('a'+d))+">")
	}
	r, err := significance.CriticalDifference(in, significance.CriticalDifferenceOptions{Metric: "ndcg@10", Bayesian: bayes, Samples: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCriticalDifferenceFigure(t *testing.T) {
	t.Parallel()
	r := cdResult(t, true)
	figs, err := CriticalDifference("cd", "CD", r)
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 1 || figs[0].ID != "cd" {
		t.Fatalf("figures %+v", figs)
	}
	again, _ := CriticalDifference("cd", "CD", r)
	if !bytes.Equal(figs[0].SVG, again[0].SVG) || !bytes.Equal(figs[0].Chart, again[0].Chart) {
		t.Error("figure not deterministic")
	}
	svg := string(figs[0].SVG)
	for _, m := range r.Methods {
		if !strings.Contains(svg, m+" (") {
			t.Errorf("svg lacks the label of %s", m)
		}
	}
	if !strings.Contains(svg, "CD = ") || !strings.Contains(svg, "stroke-dasharray") {
		t.Error("svg lacks the CD interval or the dashed Bayesian bars")
	}
	var opt map[string]any
	if err := json.Unmarshal(figs[0].Chart, &opt); err != nil {
		t.Fatal(err)
	}
	if tt, _ := opt["tooltip"].(map[string]any); tt["show"] != true {
		t.Error("tooltip off")
	}
	if strings.Contains(string(figs[0].Chart), "NaN") {
		t.Error("NaN in chart")
	}
	if !strings.Contains(figs[0].Caption, "dashed lines join") {
		t.Errorf("caption %q", figs[0].Caption)
	}
}

func TestCDDiagramHeightGrowsWithMethods(t *testing.T) {
	t.Parallel()
	small := NewCDDiagram([]string{"a", "b"}, []float64{1.2, 1.8}, 0.5, nil, nil)
	big := NewCDDiagram(make([]string, 20), make([]float64, 20), 0.5, [][2]int{{0, 3}}, nil)
	if !(big.Height() > small.Height()) {
		t.Error("height does not grow")
	}
}

// TestCDAxisRanks: both drawings of a critical-difference diagram mark
// the rank axis at the ranks 1 … k only, from the one spec: the
// interactive chart was labelled 0 … k+1 (its axis's range, which leaves
// room for the names) while the static diagram is labelled 1 … k.
func TestCDAxisRanks(t *testing.T) {
	t.Parallel()
	r := cdResult(t, true)
	figs, err := CriticalDifference("cd", "CD", r)
	if err != nil {
		t.Fatal(err)
	}
	type axis struct {
		AxisLabel struct{ CustomValues []float64 } `json:"axisLabel"`
		AxisTick  struct{ CustomValues []float64 } `json:"axisTick"`
	}
	var opt struct {
		XAxis axis `json:"xAxis"` // one panel: one axis
	}
	if err := json.Unmarshal(figs[0].Chart, &opt); err != nil {
		t.Fatal(err)
	}
	var want []float64
	for v := 1; v <= len(r.Methods); v++ {
		want = append(want, float64(v))
	}
	if !slices.Equal(opt.XAxis.AxisLabel.CustomValues, want) || !slices.Equal(opt.XAxis.AxisTick.CustomValues, want) {
		t.Fatalf("chart's rank axis %+v, want labels and ticks at %v", opt.XAxis, want)
	}
	// the static diagram's axis labels: the texts that are whole numbers
	var static []float64
	for _, m := range regexp.MustCompile(`>(-?\d+)</text>`).FindAllStringSubmatch(string(figs[0].SVG), -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		static = append(static, v)
	}
	slices.Sort(static)
	if !slices.Equal(static, want) {
		t.Errorf("static diagram's rank labels %v, want %v", static, want)
	}
}
