package figures

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/correlation"
	"github.com/evalbook/evalbook/analyses/datasets"
)

func corrTestResult() *correlation.Result {
	names := []string{"ndcg@10", "coverage@10", "recall@10", "novelty@10"}
	nan := math.NaN()
	rho := [][]float64{
		{1, 0.1, 0.9, -0.3},
		{0.1, 1, 0.05, nan},
		{0.9, 0.05, 1, -0.2},
		{-0.3, nan, -0.2, 1},
	}
	return &correlation.Result{Method: correlation.Spearman, Metrics: names, Rho: rho, Order: correlation.Order(rho)}
}

func TestMetricCorrelationFigure(t *testing.T) {
	t.Parallel()
	r := corrTestResult()
	a, err := MetricCorrelation("agree", "Agreement", r)
	if err != nil {
		t.Fatal(err)
	}
	b, err := MetricCorrelation("agree", "Agreement", r)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 1 || a[0].ID != "agree" || a[0].Caption == "" {
		t.Fatalf("figures %+v", a)
	}
	if !bytes.Equal(a[0].SVG, b[0].SVG) || !bytes.Equal(a[0].Chart, b[0].Chart) {
		t.Error("figure is not deterministic")
	}
	svg := string(a[0].SVG)
	for _, n := range r.Metrics {
		if l := r.Naming.Metric(n); !strings.Contains(svg, l) {
			t.Errorf("SVG lacks label %q of %q", l, n)
		}
	}
	if !strings.Contains(svg, "0.90") || !strings.Contains(svg, "–") {
		t.Error("SVG lacks a value or the undefined-cell dash")
	}
	var chart map[string]any
	if err := json.Unmarshal(a[0].Chart, &chart); err != nil {
		t.Fatalf("chart: %v", err)
	}
	if bytes.Contains(a[0].Chart, []byte("NaN")) {
		t.Error("chart holds NaN")
	}
	// The correlated pair ndcg/recall sits together in the clustered order.
	pos := map[string]int{}
	for i, k := range r.Order {
		pos[r.Metrics[k]] = i
	}
	if d := pos["ndcg@10"] - pos["recall@10"]; d != 1 && d != -1 {
		t.Errorf("order %v separates ndcg@10 and recall@10", r.Order)
	}
}

func TestCorrHeatmapColours(t *testing.T) {
	t.Parallel()
	h := NewCorrHeatmap(nil, -1, 1)
	if h.Colour(1) != corrPositive || h.Colour(-1) != corrNegative {
		t.Errorf("ends: %v %v", h.Colour(1), h.Colour(-1))
	}
	if c := h.Colour(0); c.R != 255 || c.G != 255 || c.B != 255 {
		t.Errorf("zero is %v, want white", c)
	}
	if h.Colour(math.NaN()) != corrMissing {
		t.Error("NaN is not grey")
	}
	seq := NewCorrHeatmap(nil, 0, 0.5)
	if seq.Colour(0.5) != corrPositive || seq.Colour(0) != (corrBlend(corrPositive, 0)) {
		t.Error("sequential scale ends")
	}
}

func TestCharacteristicsFigures(t *testing.T) {
	t.Parallel()
	r := &datasets.CharacteristicsResult{
		Datasets: []string{"a", "b", "c", "d"}, Features: []string{"Nu", "Density"}, Metric: "ndcg@10",
		Methods:           []string{"EASE", "ALS", datasets.CharPooled},
		Pearson:           [][]float64{{0.5, -0.2, 0.1}, {math.NaN(), 0.3, 0.2}},
		Spearman:          [][]float64{{0.4, -0.1, 0.1}, {0.2, 0.3, 0.2}},
		MutualInformation: [][]float64{{0.1, 0, 0.05}, {0.2, math.NaN(), 0.3}},
		Neighbors:         3,
	}
	figs, err := Characteristics("chars", "Characteristics", r)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"chars-pearson", "chars-spearman", "chars-mutual-information"}
	if len(figs) != 3 {
		t.Fatalf("%d figures", len(figs))
	}
	for i, f := range figs {
		if f.ID != want[i] || len(f.SVG) == 0 || !json.Valid(f.Chart) || bytes.Contains(f.Chart, []byte("NaN")) {
			t.Errorf("figure %d: id %q, %d bytes SVG", i, f.ID, len(f.SVG))
		}
		if !strings.Contains(string(f.SVG), datasets.CharPooled) {
			t.Errorf("%s lacks the pooled column", f.ID)
		}
		// the caption names grey cells only where the figure has one
		// (Spearman's has none here)
		if grey := strings.Contains(f.Caption, "Grey cells"); grey != (f.ID != "chars-spearman") {
			t.Errorf("%s: the caption names grey cells: %v, want %v: %s", f.ID, grey, !grey, f.Caption)
		}
	}
	r.Metric = ""
	if figs, err := Characteristics("chars", "", r); err != nil || figs != nil {
		t.Errorf("no metric: %v %v", figs, err)
	}
}
