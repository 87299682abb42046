package figures

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
)

// profileResult is an aggregate result of twelve methods with profiles
// that end near 1 (where the old legend, inside the plot at the lower
// right, overprinted the curves).
func profileResult() *leaderboard.AggregateResult {
	methods := []string{"EASE", "LightGCN", "MultiVAE", "ALS", "BPR", "SLIM", "ItemKNN", "SASRec", "MostPop", "Random", "P3a", "RP3b"}
	beta := []float64{1, 1.5, 2, 3, 4, 6, 8, 10}
	p := &leaderboard.Profile{Beta: beta}
	for i := range methods {
		var rho []float64
		for _, b := range beta {
			rho = append(rho, math.Min(1, (b-1)/float64(i+2)+0.05*float64(12-i)))
		}
		p.Rho = append(p.Rho, rho)
		p.AUC = append(p.AUC, 1/float64(i+3))
	}
	return &leaderboard.AggregateResult{Metric: "ndcg@10", Methods: methods, Datasets: []string{"a", "b", "c"}, Profile: p,
		Naming: analyses.Naming{Methods: map[string]string{"MostPop": "Most popular"}, Metrics: map[string]string{"ndcg@10": "nDCG@10"},
			MethodOrder: []string{"ALS", "BPR", "EASE"}}}
}

// specFigures are the figures built from specs, from the package's
// fixtures.
func specFigures(t *testing.T) []Figure {
	t.Helper()
	var all []Figure
	add := func(figs []Figure, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, figs...)
	}
	add(Aggregate("lb", "", profileResult()))
	add(Stability("stab", "", stabilityResult(t)))
	add(MultiObjective("mo", "", moResult(t)))
	add(MetricCorrelation("corr", "", corrTestResult()))
	for _, f := range mustFigs(t)(Clusters("cl", "", clustersFixture(t))) {
		if f.Spec != nil {
			all = append(all, f)
		}
	}
	return all
}

// TestSpecOutputsAgree: every figure built from a spec has a chart and a
// static drawing that show the spec's panels, series, mark types, axis
// titles, legend entries and colours, at its natural size and at the
// export widths, with no legend over a data area.
func TestSpecOutputsAgree(t *testing.T) {
	t.Parallel()
	for _, f := range specFigures(t) {
		if f.Spec == nil {
			t.Errorf("%s: no spec", f.ID)
			continue
		}
		for _, p := range OutputProblems(f) {
			t.Errorf("%s: %s", f.ID, p)
		}
		for _, w := range []vg.Length{f.Drawing.Width, ColumnWidth, 7 * vg.Inch} {
			for _, p := range f.Drawing.AtWidth(w).LayoutProblems() {
				if f.ID == "cl" && strings.HasPrefix(p, "texts") {
					continue // the fixture's representatives stand close; their names meet
				}
				t.Errorf("%s at %.2f in: %s", f.ID, w/vg.Inch, p)
			}
		}
	}
}

// TestSpecPlantedFaults: the checks fail on each planted fault: a caption
// naming a mark the figure lacks (the multi-objective caption's "dashed
// diagonal" over a solid one, "crosses" over triangles, "blue" over a
// purple scale), a chart whose series has another colour, dash or
// symbol, a chart with the panels merged, and a legend over the data.
func TestSpecPlantedFaults(t *testing.T) {
	t.Parallel()
	figs := specFigures(t)
	byID := map[string]Figure{}
	for _, f := range figs {
		byID[f.ID] = f
	}
	// a caption naming what is not drawn
	cmp := byID["mo-evalrs2022"]
	solid := *cmp.Spec
	solid.Panels = append([]Panel(nil), solid.Panels...)
	for i := range solid.Panels {
		solid.Panels[i].Marks = append([]Mark(nil), solid.Panels[i].Marks...)
		for k := range solid.Panels[i].Marks {
			m := &solid.Panels[i].Marks[k]
			if m.Kind == MarkRefLine {
				m.Style.Dash = Solid
			}
			if m.Style.Symbol == Cross {
				m.Style.Symbol = Triangle
			}
		}
	}
	got := strings.Join(solid.CaptionProblems(), "\n")
	for _, want := range []string{`"dashed"`, `"crosses"`} {
		if !strings.Contains(got, want) {
			t.Errorf("caption over a solid diagonal and triangles: %q, want %s named", got, want)
		}
	}
	if _, err := FigureOf(&solid, "x", "", 0); err == nil {
		t.Error("a spec whose caption names what it does not draw gave a figure")
	}
	corr := *byID["corr"].Spec
	sc := *corr.Scale
	sc.High, sc.Low = Palette[4], Palette[5] // purple and ochre, as the old heatmap drew
	corr.Scale = &sc
	if got := strings.Join(corr.CaptionProblems(), "\n"); !strings.Contains(got, `"blue"`) || !strings.Contains(got, `"vermillion"`) {
		t.Errorf("a blue/vermillion caption over a purple/ochre scale: %q", got)
	}

	// charts departing from the figure spec
	tamper := func(f Figure, edit func(opt map[string]any)) []string {
		var opt map[string]any
		if err := json.Unmarshal(f.Chart, &opt); err != nil {
			t.Fatal(err)
		}
		edit(opt)
		f.Chart, _ = json.Marshal(opt)
		return OutputProblems(f)
	}
	lb := byID["lb"]
	series := func(opt map[string]any, i int) map[string]any { return opt["series"].([]any)[i].(map[string]any) }
	cases := []struct {
		name string
		f    Figure
		edit func(map[string]any)
		want string
	}{
		{"another colour", lb, func(o map[string]any) { series(o, 0)["lineStyle"].(map[string]any)["color"] = "#6b3e9a" }, "in #6b3e9a"},
		{"another dash", lb, func(o map[string]any) { series(o, 1)["lineStyle"].(map[string]any)["type"] = "dashed" }, "is dashed"},
		{"an axis id", lb, func(o map[string]any) { o["xAxis"].(map[string]any)["name"] = "β" }, "x axis"},
		{"panels merged", cmp, func(o map[string]any) {
			o["grid"], o["xAxis"], o["yAxis"] = asList(o["grid"])[0], asList(o["xAxis"])[0], asList(o["yAxis"])[0]
		}, "grids"},
		{"triangles for crosses", cmp, func(o map[string]any) {
			for _, s := range o["series"].([]any) {
				if s.(map[string]any)["name"] == "below threshold" {
					s.(map[string]any)["symbol"] = "triangle"
				}
			}
		}, "drawn as"},
		{"a legend entry lost", lb, func(o map[string]any) {
			l := o["legend"].(map[string]any)
			l["data"] = l["data"].([]any)[1:]
		}, "legend"},
	}
	for _, c := range cases {
		if got := strings.Join(tamper(c.f, c.edit), "\n"); !strings.Contains(got, c.want) {
			t.Errorf("%s: problems %q, want %q", c.name, got, c.want)
		}
	}
}

// TestLegendOverDataFails: the layout check reports a legend drawn over
// a data area (as gonum/plot drew the performance profile's, over the
// curves), and none for the spec's own placement.
func TestLegendOverDataFails(t *testing.T) {
	t.Parallel()
	s := AggregateSpec(profileResult())
	d, err := SpecDrawing(s)
	if err != nil {
		t.Fatal(err)
	}
	if p := d.LayoutProblems(); len(p) != 0 {
		t.Fatalf("the spec's placement: %q", p)
	}
	plt, err := panelPlot(s, s.Panels[0])
	if err != nil {
		t.Fatal(err)
	}
	leg := newSpecLegend(s.LegendEntries())
	inside := Drawing{Width: d.Width, Height: d.Height, Draw: func(c draw.Canvas) {
		plt.Draw(c)
		da := plt.DataCanvas(c).Rectangle
		lw, lh := leg.size(1)
		leg.draw(c, vg.Point{X: da.Max.X - lw, Y: da.Min.Y + lh}, 1) // the lower right, as before
	}, dataAreas: plotAreas(plt)}
	if got := strings.Join(inside.LayoutProblems(), "\n"); !strings.Contains(got, "legend") {
		t.Errorf("a legend inside the data area: %q", got)
	}
}

// TestStylesStudyWide: a method has one style in every figure of a study,
// whatever its place in the figure; the first 56 styles differ in colour
// or symbol; rules keep theirs.
func TestStylesStudyWide(t *testing.T) {
	t.Parallel()
	n := analyses.Naming{MethodOrder: []string{"EASE", "ALS", "BPR"}}
	a, b := StylesOf(n), StylesOf(n)
	if b.Method("MultiVAE"); a.Method("BPR") != b.Method("BPR") || a.Method("EASE") == a.Method("ALS") {
		t.Errorf("BPR %v and %v", a.Method("BPR"), b.Method("BPR"))
	}
	seen := map[[2]string]int{}
	for i := 0; i < 56; i++ {
		st := StyleAt(i)
		k := [2]string{st.Hex(), string(st.Symbol)}
		if j, ok := seen[k]; ok {
			t.Errorf("styles %d and %d are both %v", j, i, k)
		}
		seen[k] = i
	}
	if a.Rule("dm_auc") == a.Rule("borda") || a.Rule("dm_lbo") == a.Rule("plurality") || a.Rule("mean_rank") == a.Rule("dowdall") {
		t.Error("rules share a style")
	}
}

func mustFigs(t *testing.T) func([]Figure, error) []Figure {
	return func(f []Figure, err error) []Figure {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
}

// TestLegendAreaOpacity: a legend entry's swatch is filled as its area is
// drawn: a band at the bands' 0.19, an opaque region (the contour
// funnel's) at full colour, so the key matches the plot.
func TestLegendAreaOpacity(t *testing.T) {
	t.Parallel()
	s := &Spec{Legend: LegendBelow, Panels: []Panel{{Marks: []Mark{
		{Kind: MarkArea, Series: "band", X: []float64{0, 1}, Y: []float64{0, 1}, Y2: []float64{1, 2}},
		{Kind: MarkArea, Series: "region", Opacity: 1, X: []float64{0, 1}, Y: []float64{0, 1}, Y2: []float64{1, 2}},
	}}}}
	got := s.LegendEntries()
	if len(got) != 2 || got[0].Opacity != 0.19 || got[1].Opacity != 1 {
		t.Errorf("legend entries %+v; want the band at 0.19 and the region at 1", got)
	}
}

// TestWrapAxisTitle: a vertical axis title longer than its panel is tall
// is broken into two lines at the space nearest its middle; one that
// fits is left alone.
func TestWrapAxisTitle(t *testing.T) {
	t.Parallel()
	p := NewPlot("", "", "")
	sty := p.Y.Label.TextStyle
	long := "log odds ratio (new recommender vs old recommender)"
	room := sty.Width(long) * 3 / 4 // a panel a quarter too short for it
	if got := wrapAxisTitle(long, sty, room); got != "log odds ratio (new\nrecommender vs old recommender)" {
		t.Errorf("long title: %q", got)
	}
	if got := wrapAxisTitle("standard error", sty, room); got != "standard error" {
		t.Errorf("short title: %q", got)
	}
}
