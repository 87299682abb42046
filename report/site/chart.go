package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/evalbook/evalbook/figures"
)

// The site's interactive charts share one colour map (docs/READING.md):
// a series named by a method, rule, cluster… keeps the same colour, line
// style and symbol on every page, in the order names first appear on the
// site. The figures package draws each chart on its own; the site writer
// restyles the options once it has seen them all.

// Palette is the colour of the n-th name, cycling: figures.Palette,
// each colour with at least 3:1 contrast against the light theme's
// background (#fdfdfc); against the dark background (#16181b) the page's
// script lightens the two that fall short (purple, near-black) until they
// reach 3:1 — dark mode draws light marks where the light theme draws
// dark ones.
var Palette = func() []string {
	out := make([]string, len(figures.Palette))
	for i := range out {
		out[i] = figures.Hex(i)
	}
	return out
}()

// siteLineTypes and siteSymbols tell apart names that share a colour:
// the (k+1)-th time round the palette a name gets the next dash and symbol.
var (
	siteLineTypes = []string{"solid", "dashed", "dotted"}
	siteSymbols   = []string{"circle", "rect", "triangle", "diamond", "pin", "arrow", "roundRect"}
)

// seriesStyle is one name's place in the colour map.
type seriesStyle struct {
	Colour, LineType, Symbol string
}

func styleOf(i int) seriesStyle {
	n := len(Palette)
	return seriesStyle{
		Colour:   Palette[i%n],
		LineType: siteLineTypes[(i/n)%len(siteLineTypes)],
		Symbol:   siteSymbols[(i/n)%len(siteSymbols)],
	}
}

// nameSuffixRe strips what a series name adds to the name it stands for:
// "EASE (AUC 0.087)" is EASE.
var nameSuffixRe = regexp.MustCompile(`\s*\([^)]*\)\s*$`)

// styledTypes are the series types whose colour identifies a name.
var styledTypes = map[string]bool{"line": true, "scatter": true, "bar": true, "boxplot": true, "effectScatter": true}

// colourMap assigns each series name of the site's charts its style, in
// order of first appearance over the options (each a decoded option).
type colourMap struct {
	index map[string]int
}

func newColourMap() *colourMap { return &colourMap{index: map[string]int{}} }

// styledSeries returns the series of an option that the map styles: the
// named series of styled types, when the chart has two or more (a single
// series keeps the colours its figure chose).
func styledSeries(option map[string]any) []map[string]any {
	list, _ := option["series"].([]any)
	var out []map[string]any
	for _, e := range list {
		s, ok := e.(map[string]any)
		if !ok {
			continue
		}
		t, _ := s["type"].(string)
		name, _ := s["name"].(string)
		if styledTypes[t] && name != "" {
			out = append(out, s)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

func baseName(name string) string { return nameSuffixRe.ReplaceAllString(name, "") }

// see records the names of an option's styled series.
func (m *colourMap) see(option map[string]any) {
	for _, s := range styledSeries(option) {
		k := baseName(s["name"].(string))
		if _, ok := m.index[k]; !ok {
			m.index[k] = len(m.index)
		}
	}
}

// seriesColour is the colour a figure gave a styled series (its item's,
// else its line's), upper-case as gonum/plot writes it into an SVG.
func seriesColour(s map[string]any) string {
	for _, k := range []string{"itemStyle", "lineStyle"} {
		if st, ok := s[k].(map[string]any); ok {
			if c, ok := st["color"].(string); ok && len(c) == 7 && c[0] == '#' {
				return strings.ToUpper(c)
			}
		}
	}
	return ""
}

// recolouring maps the colours a figure gave its styled series to the
// colours of the site's map, for the figure's static SVG. It is nil when
// the colours cannot be mapped one to one (a series without a colour of
// its own, two series sharing one, two names sharing a site colour).
func (m *colourMap) recolouring(option map[string]any) map[string]string {
	out := map[string]string{}
	used := map[string]bool{}
	for _, s := range styledSeries(option) {
		from := seriesColour(s)
		to := strings.ToUpper(styleOf(m.index[baseName(s["name"].(string))]).Colour)
		if from == "" || used[to] {
			return nil
		}
		if prev, ok := out[from]; ok && prev != to {
			return nil
		}
		out[from] = to
		used[to] = true
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// recolourSVG swaps colours in a gonum/plot SVG (stroke:#RRGGBB,
// fill:#RRGGBB), all at once, so that two swapped colours do not merge.
func recolourSVG(svg []byte, mapping map[string]string) []byte {
	var pairs []string
	for _, from := range sortedKeys(mapping) {
		to := mapping[from]
		pairs = append(pairs, "stroke:"+from, "stroke:"+to, "fill:"+from, "fill:"+to)
	}
	return []byte(strings.NewReplacer(pairs...).Replace(string(svg)))
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// apply restyles an option's series with the map, sets the palette as
// the option's default colours, and lays out its legend unpaged.
func (m *colourMap) apply(option map[string]any, height *int) {
	option["color"] = append([]string(nil), Palette...)
	for _, s := range styledSeries(option) {
		st := styleOf(m.index[baseName(s["name"].(string))])
		item := mapAt(s, "itemStyle")
		item["color"] = st.Colour
		if s["type"] == "boxplot" { // a translucent box in the name's colour, outlined
			item["color"] = st.Colour + "59"
			item["borderColor"] = st.Colour
		}
		if s["type"] == "line" {
			line := mapAt(s, "lineStyle")
			line["color"] = st.Colour
			line["type"] = st.LineType
		}
		if s["type"] == "scatter" || s["type"] == "line" {
			if _, set := s["symbol"]; !set {
				s["symbol"] = st.Symbol
			}
		}
	}
	unpageLegend(option, height)
}

func mapAt(m map[string]any, key string) map[string]any {
	if v, ok := m[key].(map[string]any); ok {
		return v
	}
	v := map[string]any{}
	m[key] = v
	return v
}

// Legend layout: a paged ("scroll") legend hides names behind "1/2";
// every legend is laid out in full, in rows under the plot, and the plot
// leaves room for them. legendWidth is the chart width the rows are
// counted for (the content column on a desktop); legendRow the height of
// a row.
const (
	legendWidth = 1000
	legendRow   = 24
)

// unpageLegend turns a paged legend into a plain one, in rows at the
// bottom, with the grid's bottom margin (and the chart's height) grown to
// hold them.
func unpageLegend(option map[string]any, height *int) {
	legend, ok := option["legend"].(map[string]any)
	if !ok {
		return
	}
	delete(legend, "type")
	var names []string
	for _, s := range styledSeries(option) {
		names = append(names, s["name"].(string))
	}
	if len(names) == 0 {
		return
	}
	rows, width := 1, 0
	for _, n := range names {
		w := 7*len([]rune(n)) + 40 // symbol, gap and text at 12 px
		if width+w > legendWidth && width > 0 {
			rows++
			width = 0
		}
		width += w
	}
	if _, top := legend["top"]; top {
		return
	}
	legend["bottom"] = 0
	grid := mapAt(option, "grid")
	need := 40 + legendRow*rows
	if b, ok := number(grid["bottom"]); !ok || b < float64(need) {
		grid["bottom"] = need
	}
	if height != nil && rows > 1 {
		*height += legendRow * (rows - 1)
	}
	// the page's script counts the rows again at the chart's real width
	// (a phone's are more) and grows the chart by the difference
	legend["evalbookRows"] = rows
}

// number reads a JSON number or a numeric string ("70").
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	case int:
		return float64(x), true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

// decodeOption decodes a chart option with its numbers kept as written.
func decodeOption(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var option map[string]any
	if err := dec.Decode(&option); err != nil {
		return nil, err
	}
	if option == nil {
		return nil, fmt.Errorf("not an object")
	}
	return option, nil
}

// encodeOption writes an option back with its numbers rounded to
// chartDigits significant digits.
func encodeOption(option map[string]any) ([]byte, error) {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(roundNumbers(option)); err != nil {
		return nil, err
	}
	return bytes.TrimRight(out.Bytes(), "\n"), nil
}

// styleCharts gives every chart of the site its colours from one map,
// unpaged legends and rounded numbers.
func (b *siteBuild) styleCharts() error {
	m := newColourMap()
	type decoded struct {
		fig    *figureView
		option map[string]any
	}
	var all []decoded
	for _, v := range b.views {
		for i := range v.Figures {
			f := &v.Figures[i]
			if f.Chart == "" {
				continue
			}
			option, err := decodeOption([]byte(f.Chart))
			if err != nil {
				return fmt.Errorf("%s: figure %s: chart option: %w", v.ID, f.ID, err)
			}
			m.see(option)
			all = append(all, decoded{f, option})
		}
	}
	for _, d := range all {
		// the static figure takes the same colours, where its series'
		// colours map one to one
		if mapping := m.recolouring(d.option); mapping != nil {
			d.fig.svg = recolourSVG(d.fig.fig.SVG, mapping)
		}
		m.apply(d.option, &d.fig.Height)
		out, err := encodeOption(d.option)
		if err != nil {
			return fmt.Errorf("figure %s: chart option: %w", d.fig.ID, err)
		}
		d.fig.Chart = string(out)
		if len(out) > chartInlineLimit && !b.m.Options.SingleFile {
			d.fig.ChartSrc = "data/charts/" + d.fig.ID + ".js"
		}
	}
	return nil
}

// chartInlineLimit is the size above which a chart's option leaves the
// page for a script of its own (data/charts/<figure>.js), loaded when the
// chart is drawn: the page's HTML stays small and parses fast. A script,
// not JSON, so that it loads from file:// where fetch cannot.
const chartInlineLimit = 16 << 10

// chartScript is data/charts/<id>.js: it registers the option under the
// figure's id.
func chartScript(id, option string) []byte {
	key, _ := json.Marshal(id)
	return []byte("(window.EVALBOOK_CHARTS=window.EVALBOOK_CHARTS||{})[" + string(key) + "]=" + option + ";\n")
}
