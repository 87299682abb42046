package main

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/themes"
)

// The chart library is a bundle of ECharts' modular entry
// (themes/src/echarts.js, built by `make assets`), which registers only
// the series types, components and features the site's charts use.
// ECharts skips a series of an unregistered type without a word (the
// chart draws, empty) and ignores an unregistered component, so the
// tests below read every chart option of the demo and check it against
// what the entry registers.

// requireChartAsset skips a test that needs the chart library when the
// test binary was built without it (go test without `make assets` first:
// the site then has static figures only), and fails it under CI, whose
// run builds the assets.
func requireChartAsset(t testing.TB) []byte {
	t.Helper()
	lib := themes.ECharts()
	if len(lib) > 0 {
		return lib
	}
	if os.Getenv("CI") != "" {
		t.Fatal("the chart library (themes/assets/echarts.min.js) was not built into this test binary; CI must run `make assets` before go test")
	}
	t.Skip("the chart library (themes/assets/echarts.min.js) was not built into this test binary (plain go test in a fresh clone): run `make assets` first, as make test does")
	return nil
}

// chartEntry is the bundle's entry file.
const chartEntry = "themes/src/echarts.js"

// entryModulesRe finds the entry's list of registered modules: the
// object literal `const modules = { … };`.
var entryModulesRe = regexp.MustCompile(`(?s)const modules = \{(.*?)\};`)

// entryModules reads the names the entry registers (ECharts' export
// names, e.g. LineChart, TooltipComponent).
func entryModules(t testing.TB) map[string]bool {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(chartEntry)))
	if err != nil {
		t.Fatal(err)
	}
	m := entryModulesRe.FindSubmatch(src)
	if m == nil {
		t.Fatalf("%s: no `const modules = { … };`", chartEntry)
	}
	body := regexp.MustCompile(`//[^\n]*`).ReplaceAll(m[1], nil)
	names := map[string]bool{}
	for _, f := range strings.Split(string(body), ",") {
		if f = strings.TrimSpace(f); f != "" {
			if echartsExports[f] == "" {
				t.Fatalf("%s: %q is not one of ECharts' exports this test knows", chartEntry, f)
			}
			names[f] = true
		}
	}
	return names
}

// echartsExports lists what ECharts 6 exports from echarts/charts,
// echarts/components, echarts/features and echarts/renderers, each with
// the module it comes from.
var echartsExports = func() map[string]string {
	m := map[string]string{}
	for from, names := range map[string]string{
		"charts": "LineChart BarChart PieChart ScatterChart RadarChart MapChart TreeChart TreemapChart GraphChart ChordChart " +
			"GaugeChart FunnelChart ParallelChart SankeyChart BoxplotChart CandlestickChart EffectScatterChart LinesChart " +
			"HeatmapChart PictorialBarChart ThemeRiverChart SunburstChart CustomChart",
		"components": "GridSimpleComponent GridComponent PolarComponent RadarComponent GeoComponent SingleAxisComponent " +
			"ParallelComponent CalendarComponent MatrixComponent GraphicComponent ToolboxComponent TooltipComponent " +
			"AxisPointerComponent BrushComponent TitleComponent TimelineComponent MarkPointComponent MarkLineComponent " +
			"MarkAreaComponent LegendComponent LegendScrollComponent LegendPlainComponent DataZoomComponent " +
			"DataZoomInsideComponent DataZoomSliderComponent VisualMapComponent VisualMapContinuousComponent " +
			"VisualMapPiecewiseComponent ThumbnailComponent AriaComponent TransformComponent DatasetComponent",
		"features":  "UniversalTransition LabelLayout AxisBreak LegacyGridContainLabel ScatterJitter",
		"renderers": "SVGRenderer CanvasRenderer",
	} {
		for _, n := range strings.Fields(names) {
			m[n] = "echarts/" + from
		}
	}
	return m
}()

// seriesCharts maps a series type to the chart that draws it.
var seriesCharts = map[string]string{
	"line": "LineChart", "bar": "BarChart", "pie": "PieChart", "scatter": "ScatterChart", "radar": "RadarChart",
	"map": "MapChart", "tree": "TreeChart", "treemap": "TreemapChart", "graph": "GraphChart", "chord": "ChordChart",
	"gauge": "GaugeChart", "funnel": "FunnelChart", "parallel": "ParallelChart", "sankey": "SankeyChart",
	"boxplot": "BoxplotChart", "candlestick": "CandlestickChart", "effectScatter": "EffectScatterChart",
	"lines": "LinesChart", "heatmap": "HeatmapChart", "pictorialBar": "PictorialBarChart",
	"themeRiver": "ThemeRiverChart", "sunburst": "SunburstChart", "custom": "CustomChart",
}

// defaultCoords is a series type's coordinate system when its option
// names none (ECharts' defaults; a lines series is on a geo map).
var defaultCoords = map[string]string{
	"line": "cartesian2d", "bar": "cartesian2d", "scatter": "cartesian2d", "effectScatter": "cartesian2d",
	"boxplot": "cartesian2d", "candlestick": "cartesian2d", "heatmap": "cartesian2d", "pictorialBar": "cartesian2d",
	"lines": "geo", "parallel": "parallel", "themeRiver": "singleAxis",
}

// coordComponents: the component of each coordinate system.
var coordComponents = map[string][]string{
	"cartesian2d": {"GridComponent", "GridSimpleComponent"}, "polar": {"PolarComponent"},
	"parallel": {"ParallelComponent"}, "geo": {"GeoComponent"}, "singleAxis": {"SingleAxisComponent"},
	"calendar": {"CalendarComponent"}, "matrix": {"MatrixComponent"}, "none": nil, "view": nil,
}

// optionComponents maps a top-level option key to the modules that
// register it (any one will do); nil: a plain setting, no module.
var optionComponents = map[string][]string{
	"color": nil, "backgroundColor": nil, "textStyle": nil, "darkMode": nil, "useUTC": nil, "stateAnimation": nil,
	"blendMode": nil, "hoverLayerThreshold": nil, "animation": nil, "animationThreshold": nil,
	"animationDuration": nil, "animationEasing": nil, "animationDelay": nil, "animationDurationUpdate": nil,
	"animationEasingUpdate": nil, "animationDelayUpdate": nil,
	"grid": {"GridComponent", "GridSimpleComponent"}, "xAxis": {"GridComponent", "GridSimpleComponent"},
	"yAxis": {"GridComponent", "GridSimpleComponent"}, "tooltip": {"TooltipComponent"},
	"axisPointer": {"AxisPointerComponent", "TooltipComponent"}, "title": {"TitleComponent"},
	"toolbox": {"ToolboxComponent"}, "polar": {"PolarComponent"}, "angleAxis": {"PolarComponent"},
	"radiusAxis": {"PolarComponent"}, "parallel": {"ParallelComponent"}, "parallelAxis": {"ParallelComponent"},
	"radar": {"RadarComponent"}, "geo": {"GeoComponent"}, "singleAxis": {"SingleAxisComponent"},
	"calendar": {"CalendarComponent"}, "matrix": {"MatrixComponent"}, "graphic": {"GraphicComponent"},
	"brush": {"BrushComponent"}, "timeline": {"TimelineComponent"}, "dataset": {"DatasetComponent"},
	"aria": {"AriaComponent"}, "thumbnail": {"ThumbnailComponent"},
	// legend, visualMap and dataZoom: by subtype (componentNeeds)
	"legend": {}, "visualMap": {}, "dataZoom": {},
}

// emptyDrawsNothing: components that draw only what their option gives
// (a title's text, a toolbox's features). go-echarts writes them as {}
// into every chart it makes; ECharts ignores such a key when the
// component is not registered, and would draw nothing for it if it were.
var emptyDrawsNothing = map[string]bool{"title": true, "toolbox": true}

// chartNeed is one thing a chart option uses and the modules (any one)
// that provide it.
type chartNeed struct {
	what  string
	anyOf []string
}

// optionNeeds lists what a chart option uses.
func optionNeeds(option map[string]any) ([]chartNeed, error) {
	var needs []chartNeed
	keys := make([]string, 0, len(option))
	for k := range option {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "series" {
			continue
		}
		mods, known := optionComponents[k]
		if !known {
			return nil, fmt.Errorf("option key %q is not known to this test: add it to optionComponents with the module that registers it", k)
		}
		items := asList(option[k])
		if emptyDrawsNothing[k] && allEmpty(items) {
			continue
		}
		switch {
		case k == "legend" || k == "visualMap" || k == "dataZoom":
			for _, it := range items {
				needs = append(needs, subtypeNeed(k, it))
			}
		case mods != nil:
			needs = append(needs, chartNeed{"option " + k, mods})
		}
		if k == "grid" {
			for _, it := range items {
				if it["containLabel"] == true {
					needs = append(needs, chartNeed{"grid.containLabel", []string{"LegacyGridContainLabel"}})
				}
			}
		}
		if k == "xAxis" || k == "yAxis" || k == "singleAxis" {
			for _, it := range items {
				if it["breaks"] != nil {
					needs = append(needs, chartNeed{k + ".breaks", []string{"AxisBreak"}})
				}
				if it["jitter"] != nil {
					needs = append(needs, chartNeed{k + ".jitter", []string{"ScatterJitter"}})
				}
			}
		}
	}
	for _, s := range asList(option["series"]) {
		typ, _ := s["type"].(string)
		chart := seriesCharts[typ]
		if chart == "" {
			return nil, fmt.Errorf("series type %q is not known to this test: add it to seriesCharts", typ)
		}
		needs = append(needs, chartNeed{"series type " + typ, []string{chart}})
		coord, _ := s["coordinateSystem"].(string)
		if coord == "" {
			coord = defaultCoords[typ]
		}
		if coord != "" {
			mods, ok := coordComponents[coord]
			if !ok {
				return nil, fmt.Errorf("series %s: coordinate system %q is not known to this test", typ, coord)
			}
			if mods != nil {
				needs = append(needs, chartNeed{"coordinate system " + coord, mods})
			}
		}
		for key, mod := range map[string]string{"markLine": "MarkLineComponent", "markArea": "MarkAreaComponent",
			"markPoint": "MarkPointComponent", "labelLayout": "LabelLayout", "universalTransition": "UniversalTransition"} {
			if s[key] != nil {
				needs = append(needs, chartNeed{"series " + key, []string{mod}})
			}
		}
	}
	return needs, nil
}

// subtypeNeed: a legend, visualMap or dataZoom needs the module of its
// subtype (given, or ECharts' default for its option) or the one that
// registers both.
func subtypeNeed(key string, it map[string]any) chartNeed {
	typ, _ := it["type"].(string)
	if typ == "" {
		switch key {
		case "legend":
			typ = "plain"
		case "dataZoom":
			typ = "slider"
		case "visualMap": // ECharts' rule (visualMap/installCommon.js)
			pieces, _ := it["pieces"].([]any)
			split, _ := it["splitNumber"].(float64)
			typ = "piecewise"
			if it["categories"] == nil && (!(len(pieces) > 0 || (it["pieces"] == nil && split > 0)) || it["calculable"] == true) {
				typ = "continuous"
			}
		}
	}
	title := strings.ToUpper(typ[:1]) + typ[1:]
	umbrella := strings.ToUpper(key[:1]) + key[1:] + "Component"
	specific := strings.ToUpper(key[:1]) + key[1:] + title + "Component"
	return chartNeed{key + " " + typ, []string{umbrella, specific}}
}

// asList returns a component option (an object or a list of objects)
// as a list.
func asList(v any) []map[string]any {
	switch v := v.(type) {
	case map[string]any:
		return []map[string]any{v}
	case []any:
		var out []map[string]any
		for _, e := range v {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// allEmpty reports whether every item is {} or says show: false.
func allEmpty(items []map[string]any) bool {
	for _, it := range items {
		if len(it) > 0 && it["show"] != false {
			return false
		}
	}
	return true
}

// siteRenderer is the renderer the site's script asks ECharts for.
func siteRenderer(t testing.TB) string {
	t.Helper()
	m := regexp.MustCompile(`renderer: "(\w+)"`).FindAllStringSubmatch(themes.JS(), -1)
	if len(m) != 1 {
		t.Fatalf("site.js: want one `renderer: \"…\"` in ec.init, found %d", len(m))
	}
	return map[string]string{"canvas": "CanvasRenderer", "svg": "SVGRenderer"}[m[0][1]]
}

// demoChartOptions reads every chart option of the demo's pages (inline
// data-option attributes and the option scripts of large charts), by
// where it was found.
func demoChartOptions(t *testing.T) map[string]map[string]any {
	t.Helper()
	site := demoSite(t)
	out := map[string]map[string]any{}
	for name, page := range demoPages(t) {
		for i, m := range optionRe.FindAllStringSubmatch(page, -1) {
			var o map[string]any
			if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &o); err != nil {
				t.Fatalf("%s: chart option %d: %v", name, i+1, err)
			}
			out[fmt.Sprintf("%s chart %d", name, i+1)] = o
		}
		for _, m := range regexp.MustCompile(`data-option-src="([^"]*)"`).FindAllStringSubmatch(page, -1) {
			b, err := os.ReadFile(filepath.Join(site, filepath.FromSlash(m[1])))
			if err != nil {
				t.Fatal(err)
			}
			_, js, ok := strings.Cut(string(b), "]=")
			var o map[string]any
			if err := json.Unmarshal([]byte(strings.TrimRight(js, ";\n")), &o); !ok || err != nil {
				t.Fatalf("%s: %s is not (window.EVALBOOK_CHARTS…)[id]={JSON}: %v", name, m[1], err)
			}
			out[m[1]] = o
		}
	}
	return out
}

// TestChartBundleCoversDemo walks every chart option of the demo and
// fails on a series type, component (by subtype for legends, visual
// maps and data zooms), coordinate system or feature that the bundle's
// entry does not register, and on a module the entry registers that no
// chart of the demo (nor the site's renderer) uses: it would only add
// weight. And the chart library built into this binary is that entry's
// bundle: it carries the entry's list of modules, and no other.
func TestChartBundleCoversDemo(t *testing.T) {
	t.Parallel()
	lib := requireChartAsset(t)
	registered := entryModules(t)
	used := map[string]bool{}
	need := func(where string, n chartNeed) {
		for _, m := range n.anyOf {
			if registered[m] {
				used[m] = true
				return
			}
		}
		t.Errorf("%s: uses %s, which %s does not register (add %s from %s to it)", where, n.what, chartEntry, n.anyOf[0], echartsExports[n.anyOf[0]])
	}
	need("themes/static/site.js", chartNeed{"renderer", []string{siteRenderer(t)}})
	options := demoChartOptions(t)
	if len(options) < 20 {
		t.Fatalf("read %d chart options; the demo has more", len(options))
	}
	wheres := make([]string, 0, len(options))
	for w := range options {
		wheres = append(wheres, w)
	}
	sort.Strings(wheres)
	for _, w := range wheres {
		needs, err := optionNeeds(options[w])
		if err != nil {
			t.Errorf("%s: %v", w, err)
			continue
		}
		for _, n := range needs {
			need(w, n)
		}
	}
	for m := range registered {
		if !used[m] {
			t.Errorf("%s registers %s, which no chart of the demo uses: remove it (it only adds weight) or add a demo chart that needs it", chartEntry, m)
		}
	}
	// The library built into the binary is this entry's bundle: esbuild
	// keeps the names of the entry's modules object ({LineChart:…}).
	for name := range echartsExports {
		in := regexp.MustCompile(`[{,]` + name + `:`).Match(lib)
		switch {
		case registered[name] && !in:
			t.Errorf("the chart library lacks %s, which %s registers: it was not built from it (make assets)", name, chartEntry)
		case !registered[name] && in:
			t.Errorf("the chart library registers %s, which %s does not: it was not built from it (make assets)", name, chartEntry)
		}
	}
}

// TestOptionNeeds: what optionNeeds reads from an option, on the cases
// the demo does not show (defaults of subtypes and coordinate systems).
func TestOptionNeeds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		option string
		want   string // the needs' what and first module, sorted
	}{
		{`{"title":{},"toolbox":{},"series":[{"type":"line"}]}`, "coordinate system cartesian2d=GridComponent|GridSimpleComponent; series type line=LineChart"},
		{`{"title":{"text":"x"}}`, "option title=TitleComponent"},
		{`{"legend":{"type":"scroll"},"visualMap":{"pieces":[{"min":1}]}}`, "legend scroll=LegendComponent|LegendScrollComponent; visualMap piecewise=VisualMapComponent|VisualMapPiecewiseComponent"},
		{`{"legend":{},"visualMap":{"calculable":true},"dataZoom":[{"type":"inside"},{}]}`, "dataZoom inside=DataZoomComponent|DataZoomInsideComponent; dataZoom slider=DataZoomComponent|DataZoomSliderComponent; legend plain=LegendComponent|LegendPlainComponent; visualMap continuous=VisualMapComponent|VisualMapContinuousComponent"},
		{`{"series":[{"type":"lines"},{"type":"lines","coordinateSystem":"cartesian2d","markArea":{}}]}`, "coordinate system cartesian2d=GridComponent|GridSimpleComponent; coordinate system geo=GeoComponent; series markArea=MarkAreaComponent; series type lines=LinesChart; series type lines=LinesChart"},
		{`{"grid":{"containLabel":true},"xAxis":{"breaks":[]}}`, "grid.containLabel=LegacyGridContainLabel; option grid=GridComponent|GridSimpleComponent; option xAxis=GridComponent|GridSimpleComponent; xAxis.breaks=AxisBreak"},
	} {
		var o map[string]any
		if err := json.Unmarshal([]byte(c.option), &o); err != nil {
			t.Fatal(err)
		}
		needs, err := optionNeeds(o)
		if err != nil {
			t.Fatalf("%s: %v", c.option, err)
		}
		var got []string
		for _, n := range needs {
			got = append(got, n.what+"="+strings.Join(n.anyOf, "|"))
		}
		sort.Strings(got)
		if g := strings.Join(got, "; "); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.option, g, c.want)
		}
	}
	for _, bad := range []string{`{"series":[{"type":"wordCloud"}]}`, `{"brandNew":{}}`, `{"series":[{"type":"line","coordinateSystem":"hex"}]}`} {
		var o map[string]any
		json.Unmarshal([]byte(bad), &o)
		if _, err := optionNeeds(o); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
