package report

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report/manifest"
)

// TestDemoFigureSpecs runs every analysis of the demo study and holds each
// figure's outputs against its spec: the ECharts option and the static
// drawing show the same panels, series, mark types, axis titles, legend
// entries and colours, the caption names only what is drawn, no legend
// lies over data at the natural size or the export widths, every axis
// title (of the figure spec and of the chart) is a label, never an id that has
// one, and a chart labels an axis bound only when it is round. A figure
// drawn without a spec fails it.
func TestDemoFigureSpecs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole demo study")
	}
	dir := t.TempDir()
	generatedDemo(t, dir)
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Out: filepath.Join(dir, "site"), NoCache: true, Quiet: true}
	if err := o.normalise(); err != nil {
		t.Fatal(err)
	}
	b, err := run(context.Background(), &o)
	if err != nil {
		t.Fatal(err)
	}
	ids := idsWithLabels(b.study)
	var without []string
	n := 0
	for _, r := range b.runs {
		if r.Output == nil {
			continue
		}
		for _, f := range r.Output.Figures {
			n++
			for _, p := range figureTitleProblems(f, ids) {
				t.Errorf("%s: %s", f.ID, p)
			}
			if f.Spec == nil {
				without = append(without, f.ID)
				continue
			}
			for _, p := range figures.OutputProblems(f) {
				t.Errorf("%s: %s", f.ID, p)
			}
			for _, w := range []vg.Length{0, figures.ColumnWidth, 7 * vg.Inch} {
				d := *f.Drawing
				if w > 0 {
					d = d.AtWidth(w)
				}
				for _, p := range d.LayoutProblems() {
					if strings.Contains(p, "legend") {
						t.Errorf("%s at %.2f in: %s", f.ID, d.Width/vg.Inch, p)
					}
				}
			}
		}
	}
	sort.Strings(without)
	// every figure is drawn from a spec: one drawn on its own could
	// disagree with its chart and its caption unseen
	if len(without) > 0 {
		t.Errorf("%d of %d figures drawn without a spec: %s", len(without), n, strings.Join(without, ", "))
	}
	if n < 30 {
		t.Errorf("only %d figures in the demo", n)
	}
}

// idsWithLabels are the study's ids whose label differs, with the label.
func idsWithLabels(s *manifest.Study) map[string]string {
	out := map[string]string{}
	n := s.Naming()
	for _, m := range []map[string]string{n.Metrics, n.Methods, n.Datasets, n.Rules} {
		for id, l := range m {
			if l != "" && l != id {
				out[id] = l
			}
		}
	}
	return out
}

// figureTitleProblems reports axis titles, panel titles and legend
// entries (of the figure spec and of the chart) that are ids with a label
// ("hit_rate (higher is better)" where hit_rate has one), and chart axis
// bounds labelled that are not round.
func figureTitleProblems(f figures.Figure, ids map[string]string) []string {
	var titles []string
	if s := f.Spec; s != nil {
		for _, p := range s.Panels {
			titles = append(titles, p.Title, p.X.Title, p.Y.Title)
			titles = append(titles, p.X.Categories...)
			titles = append(titles, p.Y.Categories...)
		}
		for _, e := range s.LegendEntries() {
			titles = append(titles, e.Name)
		}
	}
	var out []string
	var opt map[string]any
	if len(f.Chart) > 0 {
		if err := json.Unmarshal(f.Chart, &opt); err != nil {
			return []string{err.Error()}
		}
	}
	for _, key := range []string{"xAxis", "yAxis"} {
		var axes []any
		switch v := opt[key].(type) {
		case map[string]any:
			axes = []any{v}
		case []any:
			axes = v
		}
		for _, a := range axes {
			ax, _ := a.(map[string]any)
			name, _ := ax["name"].(string)
			titles = append(titles, name)
			label, _ := ax["axisLabel"].(map[string]any)
			for _, end := range []string{"min", "max"} {
				v, ok := ax[end].(float64)
				show := "showMinLabel"
				if end == "max" {
					show = "showMaxLabel"
				}
				if ok && label[show] != false && !figures.IsRound(v) {
					out = append(out, key+" "+end+" is labelled "+strconvG(v)+", not a round number")
				}
			}
		}
	}
	for _, t := range titles {
		head := strings.TrimSpace(strings.SplitN(t, " (", 2)[0])
		if l, ok := ids[head]; ok && head != "" {
			out = append(out, "title "+quote(t)+" names the id "+quote(head)+", whose label is "+quote(l))
		}
	}
	return out
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func strconvG(v float64) string { b, _ := json.Marshal(v); return string(b) }
