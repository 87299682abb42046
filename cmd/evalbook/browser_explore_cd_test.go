package main

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// exploreCDJS reads the CD diagram the Explore page drew: its figure's
// id, whether its ECharts instance painted its canvas, each series as the
// instance holds it (name, type, points as [x, y] with null for a break,
// and each point's name: a text mark's label), and the option the module
// computed (from which the chart was drawn).
const exploreCDJS = `(function () {
  var fig = document.querySelector('#explore-results figure[id^="x-fig-"]');
  if (!fig) return {error: "no figure on the page"};
  var el = fig.querySelector(".echart");
  var inst = window.echarts && el && echarts.getInstanceByDom(el);
  if (!inst) return {id: fig.id, error: "no ECharts instance"};
  var canvas = el.querySelector("canvas"), painted = false;
  if (canvas && canvas.width > 0 && canvas.height > 0) {
    var px = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    for (var i = 3; i < px.length; i += 4) if (px[i] !== 0) { painted = true; break; }
  }
  var num = function (x) { return typeof x === "number" && isFinite(x) ? x : null; };
  var series = (inst.getOption().series || []).map(function (s) {
    return {name: s.name || "", type: s.type, data: (s.data || []).map(function (d) {
      var v = Array.isArray(d) ? d : (d && d.value) || [];
      return {v: v.map(num), n: (d && !Array.isArray(d) && d.name) || ""};
    })};
  });
  var f = (window.evalbookExploreLast.result.figures || [])[0];
  return {id: fig.id, painted: painted, series: series, option: f && f.option};
})()`

// drawnCD is the CD diagram as exploreCDJS read it.
type drawnCD struct {
	ID      string `json:"id"`
	Error   string `json:"error"`
	Painted bool   `json:"painted"`
	Series  []struct {
		Name string `json:"name"`
		Type string `json:"type"`
		Data []struct {
			V []*float64 `json:"v"`
			N string     `json:"n"`
		} `json:"data"`
	} `json:"series"`
	Option map[string]any `json:"option"`
}

// builtCD is what the CD diagram shows of a build's
// data/critical-difference.json.
type builtCD struct {
	Methods            []string   `json:"methods"`
	MeanRanks          []float64  `json:"mean_ranks"`
	CriticalDifference *float64   `json:"critical_difference"`
	Alpha              float64    `json:"alpha"`
	Cliques            [][]string `json:"cliques"`
}

// readExploreCD waits until the Explore page's CD diagram is drawn (an
// ECharts instance with a painted canvas) and returns it.
func readExploreCD(t *testing.T, b *browser) drawnCD {
	t.Helper()
	var got drawnCD
	b.until(t, "the CD diagram drawn", exploreCDJS, &got, func() bool { return got.Painted && len(got.Series) > 0 },
		func() string {
			return fmt.Sprintf("figure %q: %s, painted %v, %d series", got.ID, got.Error, got.Painted, len(got.Series))
		})
	return got
}

// cdRank is the mean rank a method's label ends with: "EASE (2.35)".
var cdRank = regexp.MustCompile(`\((\d+(?:\.\d+)?)\)$`)

// checkExploreCD compares the CD diagram the Explore page drew with a
// build of the view (its site directory): the mean rank of each method
// (the connectors' x, to the chart's six digits, and the printed label), the critical
// difference (its bar's end and its label) and the Wilcoxon–Holm
// cliques (each a bar from the first method's rank to the last's) equal
// the build's data/critical-difference.json, and the option the page drew
// from is the analysis page's chart option.
func checkExploreCD(t *testing.T, got drawnCD, site, view string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(site, "data", "critical-difference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want builtCD
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	for _, p := range cdProblems(got, want) {
		t.Errorf("view %s: the CD diagram: %s", view, p)
	}
	if opt := builtChartOption(t, site); !reflect.DeepEqual(got.Option, opt) {
		t.Errorf("view %s: the CD diagram's option differs from the analysis page's chart:\nExplore: %v\n  build: %v", view, mustJSON(got.Option), mustJSON(opt))
	}
}

// cdProblems lists where the drawn diagram disagrees with the build's
// result.
func cdProblems(got drawnCD, want builtCD) []string {
	var out []string
	// the points of each series by name and type (a text mark is a
	// scatter series), and the text marks' labels
	series := map[string][][]*float64{}
	var texts []string
	cdLabel := ""
	for _, s := range got.Series {
		for _, d := range s.Data {
			series[s.Name+"/"+s.Type] = append(series[s.Name+"/"+s.Type], d.V)
			switch {
			case s.Name == "methods (better half)" || s.Name == "methods":
				texts = append(texts, d.N)
			case s.Name == "critical difference" && s.Type == "scatter":
				cdLabel = d.N
			}
		}
	}
	// the connectors (the unnamed line): each method's rank on the axis (y = 0)
	var ranks []float64
	for _, p := range series["/line"] {
		if len(p) == 2 && p[0] != nil && p[1] != nil && *p[1] == 0 {
			ranks = append(ranks, *p[0])
		}
	}
	if !reflect.DeepEqual(ranks, chartRounded(want.MeanRanks...)) {
		out = append(out, fmt.Sprintf("mean ranks %v, want %v (methods %v)", ranks, want.MeanRanks, want.Methods))
	}
	if len(texts) != len(want.Methods) {
		out = append(out, fmt.Sprintf("%d method labels, want %d", len(texts), len(want.Methods)))
	} else {
		for i, tx := range texts {
			// the mean rank as the table of mean ranks prints it
			m := cdRank.FindStringSubmatch(tx)
			if w := analyses.ColumnText(want.MeanRanks[i], want.MeanRanks); m == nil || m[1] != w {
				out = append(out, fmt.Sprintf("method %s labelled %q, mean rank %s", want.Methods[i], tx, w))
			}
		}
	}
	out = append(out, cdBarProblems(series["critical difference/line"], cdLabel, want)...)
	return append(out, cliqueProblems(series["not significantly different (Wilcoxon–Holm)/line"], want)...)
}

// cdBarProblems compares the critical difference's bar (from rank 1 to
// 1 + CD, within the axis) and its label with the build's.
func cdBarProblems(bar [][]*float64, label string, want builtCD) []string {
	if want.CriticalDifference == nil || !(*want.CriticalDifference > 0) {
		if len(bar) > 0 || label != "" {
			return []string{"a critical difference drawn where the build has none"}
		}
		return nil
	}
	cd := *want.CriticalDifference
	end := chartRounded(math.Min(1+cd, math.Max(2, float64(len(want.Methods)))))[0]
	var out []string
	if len(bar) != 2 || bar[0][0] == nil || *bar[0][0] != 1 || bar[1][0] == nil || *bar[1][0] != end {
		out = append(out, fmt.Sprintf("the critical difference's bar %v, want it from 1 to %v (CD %v)", bar, end, cd))
	}
	// the critical difference as the quantities table prints it
	if w := fmt.Sprintf("CD = %s (Nemenyi, α = %g)", analyses.ValueText(cd), want.Alpha); label != w {
		out = append(out, fmt.Sprintf("the critical difference labelled %q, want %q", label, w))
	}
	return out
}

// cliqueProblems compares the Wilcoxon–Holm groups' bars with the
// build's cliques: one bar per clique, from its first method's mean rank
// to its last's.
func cliqueProblems(bars [][]*float64, want builtCD) []string {
	at := map[string]int{}
	for i, m := range want.Methods {
		at[m] = i
	}
	var got, exp [][2]float64
	for i := 0; i+1 < len(bars); i += 3 { // each bar: two points and a break
		if bars[i][0] == nil || bars[i+1][0] == nil {
			return []string{fmt.Sprintf("clique bars %v", bars)}
		}
		got = append(got, [2]float64{*bars[i][0], *bars[i+1][0]})
	}
	for _, c := range want.Cliques {
		r := chartRounded(want.MeanRanks[at[c[0]]]-0.03, want.MeanRanks[at[c[len(c)-1]]]+0.03)
		exp = append(exp, [2]float64{r[0], r[1]})
	}
	if !reflect.DeepEqual(got, exp) && (len(got) > 0 || len(exp) > 0) {
		return []string{fmt.Sprintf("clique bars %v, want %v (cliques %v)", got, exp, want.Cliques)}
	}
	return nil
}

// chartRounded is xs as a chart option holds them: six significant
// digits (the site's charts, and the Explore page's, round their numbers).
func chartRounded(xs ...float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i], _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	}
	return out
}

// builtChartOption is the chart option of the CD diagram on a build's
// critical-difference.html.
func builtChartOption(t *testing.T, site string) map[string]any {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(site, "critical-difference.html"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`id="chart-critical-difference"[^>]*data-option="([^"]*)"`).FindSubmatch(page)
	if m == nil {
		t.Fatal("critical-difference.html: no chart option of the CD diagram")
	}
	var opt map[string]any
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &opt); err != nil {
		t.Fatalf("critical-difference.html: the chart option: %v", err)
	}
	return opt
}

// exploreStabilityFiguresJS reads the stability figures the Explore page
// drew: per figure id, the option it was drawn from and whether its
// ECharts instance has series.
const exploreStabilityFiguresJS = `(function () {
  var out = {};
  document.querySelectorAll('#explore-stability-results figure[id^="x-fig-"]').forEach(function (f) {
    var el = f.querySelector(".echart"), inst = window.echarts && echarts.getInstanceByDom(el);
    out[f.id.slice(6)] = {option: JSON.parse(el.getAttribute("data-option")), drawn: !!inst && (inst.getOption().series || []).length > 0};
  });
  return out;
})()`

// checkExploreStabilityFigures compares the stability curves the Explore
// page drew with the charts of a build's stability.html: the same
// figures, each drawn (an ECharts instance with series), from the same
// option.
func checkExploreStabilityFigures(t *testing.T, b *browser, site, view string) {
	t.Helper()
	var got map[string]struct {
		Option map[string]any `json:"option"`
		Drawn  bool           `json:"drawn"`
	}
	b.until(t, "the stability figures drawn", exploreStabilityFiguresJS, &got, func() bool {
		for _, f := range got {
			if !f.Drawn {
				return false
			}
		}
		return len(got) > 0
	}, func() string { return fmt.Sprintf("%d figures", len(got)) })
	want := builtChartOptions(t, site, "stability.html")
	if len(got) != len(want) {
		t.Errorf("view %s: %d stability figures, the build %d", view, len(got), len(want))
	}
	for id, w := range want {
		if g, ok := got[id]; !ok {
			t.Errorf("view %s: the stability figure %s is not on the Explore page", view, id)
		} else if !reflect.DeepEqual(g.Option, w) {
			t.Errorf("view %s: the stability figure %s differs from the build's chart:\nExplore: %.600s\n  build: %.600s", view, id, mustJSON(g.Option), mustJSON(w))
		}
	}
}

// builtChartOptions are the chart options of a build's page by figure
// id, inline (data-option) or in the figure's option script
// (data/charts/<id>.js).
func builtChartOptions(t *testing.T, site, name string) map[string]map[string]any {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(site, name))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	re := regexp.MustCompile(`<figure class="figure" id="fig-([^"]+)">[\s\S]*?<div class="echart"[^>]*?(?:data-option-src="([^"]*)"|data-option="([^"]*)")`)
	for _, m := range re.FindAllSubmatch(page, -1) {
		text := html.UnescapeString(string(m[3]))
		if src := string(m[2]); src != "" {
			b, err := os.ReadFile(filepath.Join(site, filepath.FromSlash(html.UnescapeString(src))))
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			text = strings.TrimSuffix(strings.TrimSpace(s[strings.Index(s, "]=")+2:]), ";")
		}
		var opt map[string]any
		if err := json.Unmarshal([]byte(text), &opt); err != nil {
			t.Fatalf("%s: figure %s: the chart option: %v", name, m[1], err)
		}
		out[string(m[1])] = opt
	}
	return out
}
