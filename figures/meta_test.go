package figures

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/figures/model"
)

// metaResult builds a small meta-analysis with subgroups from summary rows.
func metaResult(t *testing.T, lower bool, subgroup bool) *meta.Result {
	t.Helper()
	studies := []meta.Study{
		{Dataset: "amazon-clothing", N: 1868, MeanDiff: -0.0091, SDDiff: 0.14, R: 0.5},
		{Dataset: "amazon-office", N: 3222, MeanDiff: 0.017, SDDiff: 0.08, R: 0.5},
		{Dataset: "amazon-toy", N: 15178, MeanDiff: -0.0003, SDDiff: 0.08, R: 0.5},
		{Dataset: "filmtrust", N: 1243, MeanDiff: 0.061, SDDiff: 0.19, R: 0.5},
		{Dataset: "movielens-10M", N: 69797, MeanDiff: 0.045, SDDiff: 0.14, R: 0.5},
		{Dataset: "tiny", N: 1, MeanDiff: 0.1, SDDiff: math.NaN(), R: math.NaN()},
	}
	groups := map[string]string{"amazon-clothing": "retail", "amazon-office": "retail", "amazon-toy": "retail", "filmtrust": "movies", "movielens-10M": "movies", "tiny": "movies"}
	var o meta.Options
	o.Defaults()
	o.Treatment, o.Control, o.Metric = "BPR", "MF", "NDCG@10"
	if subgroup {
		o.Subgroup = "domain"
	}
	m := analyses.Metric{Name: "NDCG@10"}
	if lower {
		m.Better = analyses.LowerIsBetter
	}
	r, err := meta.Analyze(meta.Input{Metric: m, Studies: studies, Groups: groups}, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// metaFigures is a meta-analysis of studies with the default options, and
// its figures.
func metaFigures(t *testing.T, id, treatment, control, metric string, studies []meta.Study) (*meta.Result, []Figure) {
	t.Helper()
	var o meta.Options
	o.Defaults()
	o.Treatment, o.Control, o.Metric = treatment, control, metric
	r, err := meta.Analyze(meta.Input{Metric: analyses.Metric{Name: metric}, Studies: studies}, o)
	if err != nil {
		t.Fatal(err)
	}
	figs, err := Meta(id, id, r)
	if err != nil {
		t.Fatal(err)
	}
	return r, figs
}

func TestMetaForest(t *testing.T) {
	t.Parallel()
	for _, sub := range []bool{false, true} {
		r := metaResult(t, false, sub)
		figs, err := Meta("bpr-vs-mf", "BPR vs MF", r)
		if err != nil {
			t.Fatal(err)
		}
		if len(figs) != 1 {
			t.Fatalf("%d figures", len(figs))
		}
		f := figs[0]
		again, _ := Meta("bpr-vs-mf", "BPR vs MF", r)
		if !bytes.Equal(f.SVG, again[0].SVG) || !bytes.Equal(f.Chart, again[0].Chart) {
			t.Error("forest plot is not deterministic")
		}
		svg := string(f.SVG)
		for _, want := range []string{"amazon-office", "favours BPR", "favours MF", "Weight", "Random-effects model (DL)", "left out"} {
			if !strings.Contains(svg, want) {
				t.Errorf("SVG lacks %q", want)
			}
		}
		// Higher is better: the treatment is favoured right of zero.
		if strings.Index(svg, "favours MF") > strings.Index(svg, "favours BPR") {
			t.Error("favours labels in the wrong order for a higher-is-better metric")
		}
		if sub && (!strings.Contains(svg, "Summary of retail") || !strings.Contains(f.Caption, "subgroup differences")) {
			t.Error("subgroup blocks missing")
		}
		if strings.Contains(svg, "NaN") || bytes.Contains(f.Chart, []byte("NaN")) {
			t.Error("NaN in the figure")
		}
		var opt map[string]any
		if err := json.Unmarshal(f.Chart, &opt); err != nil {
			t.Fatal(err)
		}
		if tt, _ := opt["tooltip"].(map[string]any); tt["show"] != true {
			t.Error("chart has no tooltip")
		}
		if dir := os.Getenv("EVALBOOK_WRITE_FIGURES"); dir != "" { // for looking at them
			name := filepath.Join(dir, "forest")
			if sub {
				name += "_sub"
			}
			os.WriteFile(name+".svg", f.SVG, 0o644)
			os.WriteFile(name+".json", f.Chart, 0o644)
		}
	}
	// Lower is better: the treatment is favoured left of zero.
	r := metaResult(t, true, false)
	figs, err := Meta("x", "x", r)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(figs[0].SVG)
	if strings.Index(svg, "favours BPR") > strings.Index(svg, "favours MF") {
		t.Error("favours labels in the wrong order for a lower-is-better metric")
	}
}

// TestMetaForestSingle: one dataset (k = 1) and a fixed-effect model
// draw without NaN.
func TestMetaForestSingle(t *testing.T) {
	t.Parallel()
	var o meta.Options
	o.Defaults()
	o.Treatment, o.Control, o.Metric, o.Model = "A", "B", "m", "fixed"
	r, err := meta.Analyze(meta.Input{Metric: analyses.Metric{Name: "m"},
		Studies: []meta.Study{{Dataset: "only", N: 10, MeanDiff: 0.1, SDDiff: 0.3, R: math.NaN()}}}, o)
	if err != nil {
		t.Fatal(err)
	}
	figs, err := Meta("one", "one", r)
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 1 || bytes.Contains(figs[0].SVG, []byte("NaN")) || bytes.Contains(figs[0].Chart, []byte("NaN")) || !bytes.Contains(figs[0].SVG, []byte("Fixed-effect model")) {
		t.Error("k = 1 forest plot is wrong")
	}
}

// TestMetaFunnel: with sensitivity = true Meta adds the funnel plot
// `<id>-funnel` (SVG and chart, deterministic), marks influential
// datasets and names Egger's test in the caption; without it, none.
func TestMetaFunnel(t *testing.T) {
	t.Parallel()
	var studies []meta.Study
	for i, y := range []float64{0.1, 0.15, 0.12, 0.3, 0.05, 0.11, 2.5, 0.2, 0.14, 0.09, 0.13, 0.18} {
		studies = append(studies, meta.Study{Dataset: "paper-" + string(rune('a'+i)), Form: meta.Generic,
			Yi: y, Vi: 0.002 * float64(1+i%4)})
	}
	var o meta.Options
	o.Defaults()
	o.Sensitivity = true
	o.Summary.Path = "papers.csv"
	r, err := meta.Analyze(meta.Input{Studies: studies}, o)
	if err != nil {
		t.Fatal(err)
	}
	figs, err := Meta("pub", "Published", r)
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 3 || figs[1].ID != "pub-funnel" || figs[2].ID != "pub-funnel-contour" {
		t.Fatalf("%d figures", len(figs))
	}
	f := figs[1]
	again, _ := Meta("pub", "Published", r)
	if !bytes.Equal(f.SVG, again[1].SVG) || !bytes.Equal(f.Chart, again[1].Chart) {
		t.Error("funnel plot is not deterministic")
	}
	var chart map[string]any
	if err := json.Unmarshal(f.Chart, &chart); err != nil {
		t.Fatal(err)
	}
	if y := chart["yAxis"].(map[string]any); y["inverse"] != true {
		t.Error("the interactive funnel's standard error axis does not run downwards")
	}
	if !strings.Contains(f.Caption, "paper-g") || !strings.Contains(f.Caption, "Egger") || !strings.Contains(string(f.Chart), "paper-g: effect 2.5") {
		t.Errorf("caption %q", f.Caption)
	}
	o.Sensitivity = false
	r, _ = meta.Analyze(meta.Input{Studies: studies}, o)
	if figs, _ := Meta("pub", "Published", r); len(figs) != 1 {
		t.Errorf("%d figures without sensitivity", len(figs))
	}
}

// TestMetaForestKnhaOneDataset: Knapp–Hartung leaves a one-dataset
// summary without an interval; the forest plot still draws.
func TestMetaForestKnhaOneDataset(t *testing.T) {
	t.Parallel()
	var o meta.Options
	o.Defaults()
	o.Test, o.Summary.Path = "knha", "s.csv"
	r, err := meta.Analyze(meta.Input{Studies: []meta.Study{{Dataset: "only", Form: meta.Generic, Yi: 0.2, Vi: 0.01}}}, o)
	if err != nil {
		t.Fatal(err)
	}
	figs, err := Meta("one", "One", r)
	if err != nil || len(figs) != 1 || !strings.Contains(string(figs[0].SVG), "no interval") {
		t.Fatalf("figures %d, err %v", len(figs), err)
	}
}

// TestMetaForestNColumn: the forest plot's n column has its head when
// the datasets have sample sizes (per-unit pairs) and none when they
// have none (generic effects from a summary): no head over an empty
// column.
func TestMetaForestNColumn(t *testing.T) {
	t.Parallel()
	nHead := regexp.MustCompile(`>n</text>`)
	paired := metaResult(t, false, false)
	var o meta.Options
	o.Defaults()
	o.Treatment, o.Control, o.Summary.Path = "new", "old", "s.csv"
	generic, err := meta.Analyze(meta.Input{Studies: []meta.Study{
		{Dataset: "T01", Form: meta.Generic, Yi: -0.7, Vi: 0.09},
		{Dataset: "T02", Form: meta.Generic, Yi: -0.1, Vi: 0.04},
		{Dataset: "T03", Form: meta.Generic, Yi: 0.1, Vi: 0.02}}}, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		r     *meta.Result
		heads int
	}{{"per-unit pairs", paired, 1}, {"generic effects", generic, 0}} {
		figs, err := Meta("m", "M", c.r)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(nHead.FindAll(figs[0].SVG, -1)); got != c.heads {
			t.Errorf("%s: %d heads \"n\" in the forest plot, want %d", c.name, got, c.heads)
		}
	}
}

// TestMetaForestThinned: a forest plot of more than forestMaxRows
// datasets draws the ones with the largest weights, says how many more
// the table holds, in the plot and the caption, and stays small.
func TestMetaForestThinned(t *testing.T) {
	t.Parallel()
	const k = 1000
	var studies []meta.Study
	for i := 0; i < k; i++ {
		studies = append(studies, meta.Study{Dataset: "ds-" + itoa(i), N: 50 + 7*(i%13), MeanDiff: 0.01 * float64(i%17-8), SDDiff: 0.2 + 0.05*float64(i%11), R: 0.5})
	}
	r, figs := metaFigures(t, "big", "A", "B", "m", studies)
	svg := string(figs[0].SVG)
	heavy, light := 0, 0
	for i, row := range r.Rows {
		if row.Weight > r.Rows[heavy].Weight {
			heavy = i
		}
		if row.Weight < r.Rows[light].Weight {
			light = i
		}
	}
	if name := r.Rows[heavy].Dataset; !strings.Contains(svg, ">"+name+"<") {
		t.Errorf("the heaviest dataset %s is not drawn", name)
	}
	if name := r.Rows[light].Dataset; strings.Contains(svg, ">"+name+"<") {
		t.Errorf("the lightest dataset %s is drawn", name)
	}
	want := "… 900 more datasets"
	if !strings.Contains(svg, want) || !strings.Contains(string(figs[0].Chart), want) {
		t.Errorf("no %q line in the plot", want)
	}
	if !strings.Contains(figs[0].Caption, "Of the 1000 datasets, the 100 with the largest weights are drawn") {
		t.Errorf("caption: %s", figs[0].Caption)
	}
	if figs[0].Height > 80+26*110 {
		t.Errorf("height %d for a thinned plot", figs[0].Height)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestMetaCumulativeSpec: the cumulative forest plot draws one square and
// interval per step of the result's cumulative meta-analysis, at the
// step's summary and interval, top to bottom in the order of the steps
// (by year here, ties in the rows' order), named by the dataset added.
func TestMetaCumulativeSpec(t *testing.T) {
	t.Parallel()
	var studies []meta.Study
	years := map[string]string{}
	for i, y := range []float64{0.1, 0.15, 0.12, 0.3, 0.05} {
		d := "paper-" + string(rune('a'+i))
		studies = append(studies, meta.Study{Dataset: d, Form: meta.Generic, Yi: y, Vi: 0.002 * float64(1+i%3)})
		// days written as numbers, as a summary file gives a date
		years[d] = []string{"20040101", "20010101", "20040101", "19990101", "20020101"}[i]
	}
	var o meta.Options
	o.Defaults()
	o.Summary.Path, o.Cumulative = "papers.csv", "year"
	r, err := meta.Analyze(meta.Input{Studies: studies, Order: years}, o)
	if err != nil {
		t.Fatal(err)
	}
	order := []string{"paper-d", "paper-b", "paper-e", "paper-a", "paper-c"}
	if len(r.Cumulative) != len(order) {
		t.Fatalf("%d steps", len(r.Cumulative))
	}
	s, _ := CumulativeSpec(r)
	pn := s.Panels[0]
	var squares, ci *Mark
	for i := range pn.Marks {
		switch m := &pn.Marks[i]; m.Series {
		case "datasets":
			squares = m
		case "95% CI":
			ci = m
		}
	}
	if squares == nil || ci == nil || len(squares.X) != len(order) {
		t.Fatalf("marks %+v", pn.Marks)
	}
	for i, c := range r.Cumulative {
		if c.Dataset != order[i] || pn.Y.Categories[i] != "+ "+order[i] {
			t.Errorf("step %d: %s, category %q; want %s", i+1, c.Dataset, pn.Y.Categories[i], order[i])
		}
		if squares.X[i] != c.Effect || squares.Y[i] != float64(i) || ci.X[3*i] != c.CILow || ci.X[3*i+1] != c.CIHigh || ci.Y[3*i] != float64(i) {
			t.Errorf("step %d: square (%v, %v), interval [%v, %v]; want (%v, %d), [%v, %v]", i+1, squares.X[i], squares.Y[i], ci.X[3*i], ci.X[3*i+1], c.Effect, i, c.CILow, c.CIHigh)
		}
	}
	if last := r.Cumulative[len(order)-1]; last.K != 5 || math.Abs(last.Effect-*r.Summary.Effect) > 1e-12 {
		t.Errorf("the last step %+v is not the summary %v", last, *r.Summary.Effect)
	}
	figs, err := Meta("pub", "Published", r)
	if err != nil || len(figs) != 2 || figs[1].ID != "pub-cumulative" || !strings.Contains(figs[1].Caption, "in order of year") || !bytes.Contains(figs[1].SVG, []byte("Added")) {
		t.Fatalf("figures %v, %v", len(figs), err)
	}
	// the order is printed as written, never in exponent form
	if !bytes.Contains(figs[1].SVG, []byte("19990101")) || bytes.Contains(figs[1].SVG, []byte("e+07")) {
		t.Errorf("the order values are not printed as written in the cumulative forest plot")
	}
}

// funnelResult is a meta-analysis with sensitivity = true over generic
// effects whose small studies lean to the right, so trim and fill fills
// studies on the left.
func funnelResult(t *testing.T) *meta.Result {
	t.Helper()
	var studies []meta.Study
	for i, y := range []float64{0.10, 0.20, 0.30, 0.42, 0.55, 0.12, 0.18, 0.33, 0.40, 0.60} {
		studies = append(studies, meta.Study{Dataset: "paper-" + string(rune('a'+i)), Form: meta.Generic, Yi: y, Vi: 0.001 * float64(1+3*(i%5))})
	}
	var o meta.Options
	o.Defaults()
	o.Sensitivity = true
	o.Summary.Path = "papers.csv"
	r, err := meta.Analyze(meta.Input{Studies: studies}, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMetaFunnelTrimFill: the funnel draws trim and fill's filled studies
// as hollow rings at (yᵢ, √vᵢ), apart from the datasets' filled circles,
// and the adjusted summary as a vertical line.
func TestMetaFunnelTrimFill(t *testing.T) {
	t.Parallel()
	r := funnelResult(t)
	tf := r.PubBias.TrimFill
	if tf == nil || tf.K0 == 0 {
		t.Fatalf("trim and fill filled nothing: %+v", tf)
	}
	var filled, line, plain *Mark
	pn := FunnelSpec(r).Panels[0]
	for i := range pn.Marks {
		switch m := &pn.Marks[i]; m.Series {
		case "filled (trim and fill)":
			filled = m
		case "trim-and-fill summary":
			line = m
		case "datasets":
			plain = m
		}
	}
	if filled == nil || line == nil || plain == nil || len(filled.X) != tf.K0 {
		t.Fatalf("marks %v", pn.Marks)
	}
	if filled.Style.Symbol != Ring || plain.Style.Symbol == Ring {
		t.Errorf("filled %v, datasets %v: the filled studies are not told apart", filled.Style.Symbol, plain.Style.Symbol)
	}
	for i := range tf.FilledYi {
		if filled.X[i] != tf.FilledYi[i] || filled.Y[i] != math.Sqrt(tf.FilledVi[i]) {
			t.Errorf("filled %d at (%v, %v), want (%v, %v)", i, filled.X[i], filled.Y[i], tf.FilledYi[i], math.Sqrt(tf.FilledVi[i]))
		}
		if lo, hi := pn.X.Min, pn.X.Max; filled.X[i] < lo || filled.X[i] > hi || filled.Y[i] > pn.Y.Max {
			t.Errorf("filled %d at (%v, %v) outside the frame [%v, %v] × [0, %v]", i, filled.X[i], filled.Y[i], lo, hi, pn.Y.Max)
		}
	}
	if line.X[0] != tf.Effect || line.X[1] != tf.Effect {
		t.Errorf("adjusted summary line at %v, want %v", line.X, tf.Effect)
	}
	if figs, _ := Meta("pub", "Published", r); !strings.Contains(figs[1].Caption, "Hollow rings are the") {
		t.Errorf("funnel caption %q", figs[1].Caption)
	}
}

// TestMetaFunnelContour: the contour-enhanced funnel shades, around no
// effect, the regions |effect| ≤ z·SE of two-sided p = 0.10, 0.05 and 0.01
// (z = 1.6449, 1.9600, 2.5758, metafor's funnel(level = c(90, 95, 99),
// refline = 0)), the widest first so each narrower one lies over it, with
// the datasets' points at (effect, SE) on top.
func TestMetaFunnelContour(t *testing.T) {
	t.Parallel()
	r := funnelResult(t)
	s := ContourFunnelSpec(r)
	if s == nil {
		t.Fatal("no contour-enhanced funnel")
	}
	pn := s.Panels[0]
	top := pn.Y.Max
	var areas []Mark
	var pts *Mark
	for i, m := range pn.Marks {
		switch {
		case m.Kind == MarkArea:
			areas = append(areas, m)
		case m.Series == "datasets":
			pts = &pn.Marks[i]
		}
	}
	zs := []float64{2.5758293035489004, 1.959963984540054, 1.6448536269514722} // qnorm(1 − p/2), p = 0.01, 0.05, 0.10
	series := []string{"0.01 < p ≤ 0.05", "0.05 < p ≤ 0.1", "p > 0.1"}
	if len(areas) != 3 || pts == nil {
		t.Fatalf("%d areas, points %v", len(areas), pts)
	}
	for i, a := range areas {
		x := zs[i] * top
		want := []float64{-x, 0, x}
		for j := range want {
			if math.Abs(a.X[j]-want[j]) > 1e-12 || a.Y[j] != []float64{top, 0, top}[j] || a.Y2[j] != top {
				t.Errorf("area %d vertex %d: (%v, %v–%v), want (%v, …)", i, j, a.X[j], a.Y[j], a.Y2[j], want[j])
			}
		}
		if a.Series != series[i] || a.Opacity != 1 {
			t.Errorf("area %d: series %q opacity %v, want %q", i, a.Series, a.Opacity, series[i])
		}
	}
	k := 0
	for _, row := range r.Rows {
		if row.Included && (pts.X[k] != row.Effect || pts.Y[k] != row.SE) {
			t.Errorf("point %d at (%v, %v), want (%v, %v)", k, pts.X[k], pts.Y[k], row.Effect, row.SE)
		}
		k++
	}
}

// specCell is the text of column col in the row of t whose first cell
// reads key.
func specCell(t *testing.T, s *model.Table, key, col string) string {
	t.Helper()
	for _, r := range s.Rows {
		if r[0].Text != key {
			continue
		}
		for j, c := range s.Columns {
			if c.ID == col {
				return r[j].Text
			}
		}
	}
	t.Fatalf("%s: no cell %s of row %s", s.ID, col, key)
	return ""
}

// TestMetaNumbersReadAlike: a meta-analysis's effect, interval, standard
// error, weight, τ² and I² read the same in its tables, its forest plot,
// its funnel plot and its key finding: the summary in the effects table and
// the heterogeneity table, each dataset's effect in the table and the
// forest plot, a generic yi in the inputs table and the effects table.
func TestMetaNumbersReadAlike(t *testing.T) {
	t.Parallel()
	minus := strings.NewReplacer("-", "−")
	funnels := 0
	for _, r := range []*meta.Result{metaResult(t, false, false), funnelResult(t)} {
		specs := map[string]*model.Table{}
		for _, tb := range r.Tables() {
			specs[tb.Name] = model.NewTable(tb, "m", model.TableOptions{Naming: r.Naming})
		}
		main, het := specs[""], specs["heterogeneity"]
		eff, ci := specCell(t, main, "summary", "effect"), specCell(t, main, "summary", "ci_low")
		if !strings.Contains(r.Highlight(), eff+" "+ci) {
			t.Errorf("the finding %q does not read the table's summary %s %s", r.Highlight(), eff, ci)
		}
		for _, col := range []string{"effect", "se", "ci_low"} {
			if a, b := specCell(t, main, "summary", col), specCell(t, het, "all", col); a != b {
				t.Errorf("summary %s: %s in the effects table, %s in the heterogeneity table", col, a, b)
			}
		}
		figs, err := Meta("m", "m", r)
		if err != nil {
			t.Fatal(err)
		}
		svg := string(figs[0].SVG)
		if w := specCell(t, main, "summary", "weight") + "%"; !strings.Contains(svg, ">"+w+"<") {
			t.Errorf("the forest plot's summary does not read the table's weight %s", w)
		}
		if i2 := "I² = " + specCell(t, het, "all", "I2") + "%"; !strings.Contains(r.Highlight(), i2) {
			t.Errorf("the finding %q does not read the table's %s", r.Highlight(), i2)
		}
		het2 := "τ² = " + specCell(t, het, "all", "tau2") + ", I² = " + specCell(t, het, "all", "I2") + "%"
		if !strings.Contains(string(figs[0].Chart), het2) {
			t.Errorf("the forest plot's summary does not read the table's %s", het2)
		}
		funnel, drawn, err := MetaFunnel("m", "m", r)
		if err != nil {
			t.Fatal(err)
		}
		funnels += len(funnel.Chart)
		for _, row := range r.Rows {
			if !row.Included {
				continue
			}
			d := row.Dataset
			line := minus.Replace(specCell(t, main, d, "effect") + " " + specCell(t, main, d, "ci_low"))
			if !strings.Contains(svg, line) {
				t.Errorf("%s: the forest plot does not read the table's %s", d, line)
			}
			if w := specCell(t, main, d, "weight") + "%"; !strings.Contains(svg, w) {
				t.Errorf("%s: the forest plot does not read the table's weight %s", d, w)
			}
			tip := minus.Replace("effect " + specCell(t, main, d, "effect") + ", SE " + specCell(t, main, d, "se"))
			if drawn && !strings.Contains(string(funnel.Chart), tip) {
				t.Errorf("%s: the funnel plot's tooltip does not read the table's %s", d, tip)
			}
			if r.Form == meta.Generic {
				if a, b := specCell(t, specs["inputs"], d, "yi"), specCell(t, main, d, "effect"); a != b {
					t.Errorf("%s: yi %s as given, effect %s", d, a, b)
				}
			}
		}
	}
	if funnels == 0 {
		t.Error("no funnel plot drawn: its tooltips are not checked")
	}
}
