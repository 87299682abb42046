package figures

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/datasets"
)

func clustersFixture(t *testing.T) *datasets.ClustersResult {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	in := datasets.ClustersInput{Features: []string{"a", "b", "c", "d"}, Methods: []string{"EASE", "ALS", "Pop"},
		Metric: &analyses.Metric{Name: "ndcg@10"}, Seed: 3, Jobs: 1}
	for d := 0; d < 18; d++ {
		in.Datasets = append(in.Datasets, fmt.Sprintf("ds%02d", d))
		row := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		row[d%3] += 8
		in.X = append(in.X, row)
		in.Q = append(in.Q, []float64{0.3 + 0.1*rng.Float64(), 0.2 + 0.2*rng.Float64(), 0.1})
	}
	in.X = append(in.X, []float64{30, -30, 30, 0})
	in.Datasets = append(in.Datasets, "far")
	in.Q = append(in.Q, []float64{0.2, 0.1, math.NaN()})
	r, err := datasets.Clusters(in, datasets.ClustersOptions{Trees: 300})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func checkFigures(t *testing.T, figs []Figure, again []Figure, ids ...string) {
	t.Helper()
	if len(figs) != len(ids) {
		t.Fatalf("%d figures, want %v", len(figs), ids)
	}
	for i, f := range figs {
		if f.ID != ids[i] || f.Caption == "" || f.Title == "" {
			t.Errorf("figure %d: id %q title %q caption %q", i, f.ID, f.Title, f.Caption)
		}
		if !bytes.HasPrefix(bytes.TrimSpace(f.SVG), []byte("<?xml")) && !bytes.Contains(f.SVG, []byte("<svg")) {
			t.Errorf("%s: not an SVG", f.ID)
		}
		if !bytes.Equal(f.SVG, again[i].SVG) || !bytes.Equal(f.Chart, again[i].Chart) {
			t.Errorf("%s: output differs between two renderings", f.ID)
		}
		var m map[string]any
		if err := json.Unmarshal(f.Chart, &m); err != nil {
			t.Errorf("%s: chart JSON: %v", f.ID, err)
		}
		if _, ok := m["tooltip"]; !ok {
			t.Errorf("%s: chart has no tooltip", f.ID)
		}
		if bytes.Contains(f.Chart, []byte("NaN")) {
			t.Errorf("%s: NaN in chart", f.ID)
		}
	}
}

func TestClustersFigures(t *testing.T) {
	t.Parallel()
	r := clustersFixture(t)
	a, err := Clusters("cl", "Clusters", r)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Clusters("cl", "Clusters", r)
	if err != nil {
		t.Fatal(err)
	}
	checkFigures(t, a, b, "cl", "cl-k", "cl-leaderboard")
	// Dataset names reach the hover text; representatives are labelled in the SVG.
	if !strings.Contains(string(a[0].Chart), `"far (outlier)`) {
		t.Errorf("scatter chart lacks the outlier's name: %.300s", a[0].Chart)
	}
	for _, rep := range r.Representatives {
		if !strings.Contains(string(a[0].SVG), rep) {
			t.Errorf("SVG lacks representative %s", rep)
		}
	}
	if !strings.Contains(string(a[2].SVG), "EASE") || !strings.Contains(string(a[2].Chart), `"heatmap"`) {
		t.Error("leaderboard heatmap lacks method names or type")
	}
}

func TestSelectionFigures(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	in := datasets.SelectionInput{Features: []string{"a", "b", "c"}, Methods: []string{"A", "B", "C", "D"},
		Metrics: []analyses.Metric{{Name: "ndcg"}, {Name: "rmse", Better: analyses.LowerIsBetter}}, Seed: 1, Jobs: 1}
	in.Q = make([]analyses.Matrix, 2)
	for d := 0; d < 12; d++ {
		in.Datasets = append(in.Datasets, fmt.Sprintf("ds%02d", d))
		in.X = append(in.X, []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
		for k := range in.Q {
			in.Q[k] = append(in.Q[k], []float64{rng.Float64(), rng.Float64(), rng.Float64(), rng.Float64()})
		}
	}
	r, err := datasets.Selection(in, datasets.SelectionOptions{Metrics: []string{"ndcg", "rmse"}, Size: 4, Simulations: 30})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Selection("sel", "Selection", r)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Selection("sel", "Selection", r)
	checkFigures(t, a, b, "sel", "sel-chosen")
	// one panel per metric, the strategies named on each panel's axis (no
	// legend to lie over the whiskers), at the natural and export widths
	for _, w := range []vg.Length{0, ColumnWidth} {
		d := a[0].Drawing.AtWidth(w)
		for _, p := range d.LayoutProblems() {
			t.Errorf("sel at %.2f in: %s", d.Width/vg.Inch, p)
		}
		rec := &layoutRecorder{w: d.Width, h: d.Height, m: identity}
		d.Draw(draw.New(rec))
		if len(rec.legends) != 0 {
			t.Errorf("sel: %d legends drawn", len(rec.legends))
		}
	}
	if s := a[0].Spec; s == nil || len(s.Panels) != len(r.Metrics) || len(s.Panels[0].X.Categories) != len(r.Strategies) {
		t.Errorf("sel: want one panel per metric with the strategies as categories")
	}
}
