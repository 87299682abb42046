package figures

// OutputProblems holds a figure's outputs against its spec: the ECharts
// option and the static drawing must show the same panels, series,
// mark types, axis titles, legend entries and colours, and the caption
// may name only what is drawn.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"gonum.org/v1/plot/vg/draw"
)

// OutputProblems reports, one line each, where a figure's chart or static
// drawing departs from its spec (nil for a figure without a spec).
func OutputProblems(f Figure) []string {
	s := f.Spec
	if s == nil {
		return nil
	}
	out := append([]string(nil), s.CaptionProblems()...)
	if f.Caption != s.Caption {
		out = append(out, "the figure's caption is not its spec's")
	}
	out = append(out, chartProblems(s, f.Chart)...)
	if f.Drawing != nil {
		out = append(out, drawingProblems(s, *f.Drawing, f.SVG)...)
	}
	return out
}

// asList is a JSON value that is an object or a list of objects as a list.
func asList(v any) []map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return []map[string]any{x}
	case []any:
		var out []map[string]any
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// echartsKind is the mark kind an ECharts series draws ("" for the lower
// half of a band, which draws nothing).
func echartsKind(se map[string]any) MarkKind {
	switch se["type"] {
	case "scatter":
		if l, ok := se["label"].(map[string]any); ok && l["show"] == true {
			return MarkText
		}
		return MarkPoints
	case "bar":
		return MarkBars
	case "heatmap":
		return MarkCells
	case "line":
		if _, ok := se["areaStyle"]; ok {
			return MarkArea
		}
		if _, ok := se["stack"]; ok {
			return ""
		}
		if se["silent"] == true {
			return MarkRefLine
		}
		if data, ok := se["data"].([]any); ok && len(data) >= 3 && data[2] != nil {
			if p, ok := data[2].([]any); ok && len(p) == 2 && p[1] == nil {
				if q, ok := data[0].([]any); ok && len(q) == 2 && fmt.Sprint(q[0]) == fmt.Sprint(p[0]) {
					return MarkInterval
				}
			}
		}
		return MarkLine
	}
	return MarkKind(fmt.Sprint(se["type"]))
}

func str(m map[string]any, keys ...string) string {
	for i, k := range keys {
		if i == len(keys)-1 {
			v, _ := m[k].(string)
			return v
		}
		next, ok := m[k].(map[string]any)
		if !ok {
			return ""
		}
		m = next
	}
	return ""
}

func index(se map[string]any, key string) int {
	if v, ok := se[key].(float64); ok {
		return int(v)
	}
	return 0
}

// chartProblems holds an ECharts option against the figure spec.
func chartProblems(s *Spec, chart []byte) []string {
	var opt map[string]any
	if err := json.Unmarshal(chart, &opt); err != nil {
		return []string{fmt.Sprintf("chart option: %v", err)}
	}
	var out []string
	bad := func(format string, a ...any) { out = append(out, "chart: "+fmt.Sprintf(format, a...)) }
	grids, xs, ys := asList(opt["grid"]), asList(opt["xAxis"]), asList(opt["yAxis"])
	if len(grids) != len(s.Panels) || len(xs) != len(s.Panels) || len(ys) != len(s.Panels) {
		bad("%d grids, %d x axes, %d y axes for %d panels", len(grids), len(xs), len(ys), len(s.Panels))
		return out
	}
	var titles []string
	for _, t := range asList(opt["title"]) {
		titles = append(titles, str(t, "text"))
	}
	var want []string
	for i, p := range s.Panels {
		if p.Title != "" {
			want = append(want, p.Title)
		}
		if got := str(xs[i], "name"); got != p.X.Title {
			bad("panel %d: x axis %q, spec %q", i+1, got, p.X.Title)
		}
		if got := str(ys[i], "name"); got != p.Y.Title {
			bad("panel %d: y axis %q, spec %q", i+1, got, p.Y.Title)
		}
	}
	if strings.Join(titles, "|") != strings.Join(want, "|") {
		bad("panel titles %q, spec %q", titles, want)
	}
	out = append(out, seriesProblems(s, opt)...)
	// legend entries, in order
	var legend []string
	if l, ok := opt["legend"].(map[string]any); ok {
		for _, d := range asList(l["data"]) {
			legend = append(legend, str(d, "name"))
		}
	}
	var entries []string
	for _, e := range s.LegendEntries() {
		entries = append(entries, e.Name)
	}
	if strings.Join(legend, "|") != strings.Join(entries, "|") {
		bad("legend %q, spec %q", legend, entries)
	}
	if (s.Scale != nil) != (opt["visualMap"] != nil) {
		bad("colour scale: spec %v, chart %v", s.Scale != nil, opt["visualMap"] != nil)
	}
	return out
}

// seriesProblems holds the chart's series against the spec's marks: per
// panel, each mark's series of its kind, name, colour, dash and symbol.
func seriesProblems(s *Spec, opt map[string]any) []string {
	var out []string
	badf := func(format string, a ...any) { out = append(out, "chart: "+fmt.Sprintf(format, a...)) }
	// series: per panel, the kinds and (name, colour, dash, symbol) of each
	type key struct {
		panel int
		kind  MarkKind
		name  string
	}
	got := map[key][]map[string]any{}
	for _, se := range asList(opt["series"]) {
		k := echartsKind(se)
		if k == "" {
			continue
		}
		name, _ := se["name"].(string)
		kk := key{index(se, "xAxisIndex"), k, name}
		got[kk] = append(got[kk], se)
	}
	wantN := map[key]int{}
	for i, p := range s.Panels {
		for _, m := range p.Marks {
			kk := key{i, m.Kind, m.Series}
			wantN[kk]++
			n := wantN[kk]
			if len(got[kk]) < n {
				badf("panel %d: no %s series %q", i+1, m.Kind, m.Series)
				continue
			}
			se := got[kk][n-1]
			colour := strings.ToLower(str(se, "itemStyle", "color"))
			if m.Kind == MarkLine || m.Kind == MarkRefLine {
				colour = strings.ToLower(str(se, "lineStyle", "color"))
				dash := Dash(str(se, "lineStyle", "type"))
				if want := m.Style.Dash; want != "" && dash != want || want == "" && dash != Solid {
					badf("panel %d: %s %q is %s, spec %s", i+1, m.Kind, m.Series, dash, m.Style.Dash)
				}
			}
			if m.Kind == MarkArea {
				colour = strings.ToLower(str(se, "areaStyle", "color"))
			}
			if m.Kind != MarkCells && m.Kind != MarkText && colour != m.Style.Hex() {
				badf("panel %d: %s %q in %s, spec %s", i+1, m.Kind, m.Series, colour, m.Style.Hex())
			}
			if m.Kind == MarkPoints || m.Kind == MarkLine && m.WithPoints {
				if sym := SymbolOfECharts(str(se, "symbol")); sym != m.Style.Symbol {
					badf("panel %d: %s %q drawn as %q, spec %s", i+1, m.Kind, m.Series, str(se, "symbol"), m.Style.Symbol)
				}
			}
		}
	}
	for kk, list := range got {
		if len(list) > wantN[kk] {
			badf("panel %d: %d %s series %q, spec %d", kk.panel+1, len(list), kk.kind, kk.name, wantN[kk])
		}
	}
	return out
}

// drawingProblems holds the static drawing (as recorded and as SVG)
// against the figure spec.
func drawingProblems(s *Spec, d Drawing, svg []byte) []string {
	var out []string
	bad := func(format string, a ...any) { out = append(out, "static: "+fmt.Sprintf(format, a...)) }
	rec := &layoutRecorder{w: d.Width, h: d.Height, m: identity}
	d.Draw(draw.New(rec))
	texts := map[string]bool{}
	for _, t := range rec.texts {
		texts[t.s] = true
	}
	if d.dataAreas != nil {
		if n := len(d.dataAreas(draw.New(&layoutRecorder{w: d.Width, h: d.Height, m: identity}))); n != len(s.Panels) {
			bad("%d data areas for %d panels", n, len(s.Panels))
		}
	}
	for i, p := range s.Panels {
		for _, m := range panelTextProblems(p, texts) {
			bad("panel %d: %s", i+1, m)
		}
	}
	entries := s.LegendEntries()
	for _, e := range entries {
		if !texts[e.Name] {
			bad("no legend entry %q", e.Name)
		}
	}
	if want := min(len(entries), 1); len(rec.legends) != want {
		bad("%d legends drawn, spec %d", len(rec.legends), want)
	}
	upper := bytes.ToUpper(svg)
	var missing []string
	dashed := false
	for _, m := range s.Marks() {
		switch m.Kind {
		case MarkLine, MarkRefLine, MarkPoints, MarkInterval:
			if m.Opacity > 0 && m.Opacity < 1 {
				continue
			}
			if !bytes.Contains(upper, []byte(strings.ToUpper(m.Style.Hex()))) {
				missing = append(missing, m.Style.Hex()+" ("+m.Series+")")
			}
			dashed = dashed || m.Kind != MarkPoints && (m.Style.Dash == Dashed || m.Style.Dash == Dotted)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		bad("colours not in the SVG: %s", strings.Join(missing, ", "))
	}
	if dashed && !bytes.Contains(svg, []byte("stroke-dasharray")) {
		bad("the figure spec has dashed or dotted lines, the SVG none")
	}
	return out
}

// panelTextProblems lists a panel's titles and categories that the
// static drawing does not show.
func panelTextProblems(p Panel, texts map[string]bool) []string {
	var out []string
	for _, t := range []string{p.Title, p.X.Title, p.Y.Title} {
		if t != "" && !texts[t] && !drawnInTwoLines(texts, t) {
			out = append(out, fmt.Sprintf("no text %q", t))
		}
	}
	for _, c := range append(append([]string(nil), p.X.Categories...), p.Y.Categories...) {
		if strings.TrimSpace(c) != "" && !texts[c] {
			out = append(out, fmt.Sprintf("no category %q", c))
		}
	}
	return out
}

// drawnInTwoLines reports whether t was drawn as two lines broken at one
// of its spaces (a long vertical axis title, wrapAxisTitle).
func drawnInTwoLines(texts map[string]bool, t string) bool {
	for i, r := range t {
		if r == ' ' && texts[t[:i]] && texts[t[i+1:]] {
			return true
		}
	}
	return false
}
