package figures

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
)

func stabilityResult(t *testing.T) *leaderboard.StabilityResult {
	t.Helper()
	q := make(analyses.Matrix, 12)
	var ds []string
	for d := range q {
		q[d] = make([]float64, 6)
		for m := range q[d] {
			q[d][m] = 0.05 + math.Mod(float64((d+3)*(m+5)*37%101), 97)/200
		}
		ds = append(ds, fmt.Sprintf("d%d", d))
	}
	r, err := leaderboard.Stability(leaderboard.StabilityInput{Metric: analyses.Metric{Name: "ndcg@10", Max: 1},
		Datasets: ds, Methods: []string{"a", "b", "c", "d", "e", "f"}, Q: q, Seed: 5, Jobs: 2},
		leaderboard.StabilityOptions{Metric: "ndcg@10", Repeats: 20, SubsetSizes: []int{3, 5}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestStabilityFigures: one figure per perturbation with the right ids,
// deterministic SVG, valid chart JSON whose legend toggles a rule's line
// and band together (same series name) and which holds no NaN.
func TestStabilityFigures(t *testing.T) {
	t.Parallel()
	r := stabilityResult(t)
	figs, err := Stability("stab", "Stability", r)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"stab-drop-datasets", "stab-drop-methods", "stab-similar-method", "stab-best-method", "stab-beta", "stab-subset-pairs"}
	if len(figs) != len(want) {
		t.Fatalf("%d figures, want %d", len(figs), len(want))
	}
	again, err := Stability("stab", "Stability", stabilityResult(t))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range figs {
		if f.ID != want[i] {
			t.Errorf("figure %d id %q, want %q", i, f.ID, want[i])
		}
		if !bytes.HasPrefix(bytes.TrimSpace(f.SVG), []byte("<?xml")) && !bytes.Contains(f.SVG[:200], []byte("<svg")) {
			t.Errorf("%s: not an SVG", f.ID)
		}
		if !bytes.Equal(f.SVG, again[i].SVG) || !bytes.Equal(f.Chart, again[i].Chart) {
			t.Errorf("%s: output differs between two runs", f.ID)
		}
		if f.Caption == "" || f.Title == "" {
			t.Errorf("%s: no caption or title", f.ID)
		}
		var opt struct {
			Legend struct{ Data []struct{ Name string } }
			Series []struct {
				Name, Stack string
				AreaStyle   map[string]any
			}
		}
		if err := json.Unmarshal(f.Chart, &opt); err != nil {
			t.Fatalf("%s: chart JSON: %v", f.ID, err)
		}
		if bytes.Contains(f.Chart, []byte("NaN")) {
			t.Errorf("%s: NaN in chart", f.ID)
		}
		rules := map[string]int{}
		bands := 0
		for _, s := range opt.Series {
			if s.Name == "" { // the β̂ reference line
				continue
			}
			rules[s.Name]++
			if s.AreaStyle != nil {
				bands++
				if !strings.HasSuffix(s.Stack, s.Name) {
					t.Errorf("%s: band of %s stacked as %q", f.ID, s.Name, s.Stack)
				}
			}
		}
		nRules := len(r.Rules)
		if f.ID == "stab-beta" {
			nRules = 2
		}
		if len(opt.Legend.Data) != nRules || len(rules) != nRules {
			t.Errorf("%s: legend %v, series names %v; want %d rules", f.ID, opt.Legend.Data, rules, nRules)
		}
		switch f.ID {
		case "stab-drop-datasets", "stab-similar-method":
			if bands == 0 {
				t.Errorf("%s: no band", f.ID)
			}
		case "stab-best-method", "stab-beta":
			if bands != 0 {
				t.Errorf("%s: %d bands for single comparisons", f.ID, bands)
			}
		}
	}
}

// TestStabilityFiguresTiny: perturbations without points (too few
// datasets or methods) give no figure rather than an empty one.
func TestStabilityFiguresTiny(t *testing.T) {
	t.Parallel()
	q := analyses.Matrix{{0.3, 0.2, 0.1}, {0.1, 0.25, 0.2}}
	r, err := leaderboard.Stability(leaderboard.StabilityInput{Metric: analyses.Metric{Name: "m", Max: math.Inf(1)},
		Datasets: []string{"a", "b"}, Methods: []string{"x", "y", "z"}, Q: q, Jobs: 1}, leaderboard.StabilityOptions{Metric: "m"})
	if err != nil {
		t.Fatal(err)
	}
	figs, err := Stability("s", "", r)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range figs {
		ids = append(ids, f.ID)
	}
	if got := strings.Join(ids, ","); got != "s-similar-method,s-best-method,s-beta" {
		t.Errorf("figures %s", got)
	}
}
