package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/evalbook/evalbook/figures"
)

// The site's interactive charts take their colours from their figures:
// each figure's spec styles a method or rule from the study-wide map
// (figures.Styles, from the study's naming order), so a name has one
// colour, dash and symbol on every page and in the SVG, PDF and PNG
// alike. The site writer only lays out legends and rounds numbers.

// Palette is the charts' default colour list (figures.Palette), each
// colour with at least 3:1 contrast against the light theme's background
// (#fdfdfc); against the dark background (#16181b) the page's script
// lightens the two that fall short (purple, near-black) until they reach
// 3:1 — dark mode draws light marks where the light theme draws dark
// ones.
var Palette = func() []string {
	out := make([]string, len(figures.Palette))
	for i := range out {
		out[i] = figures.Hex(i)
	}
	return out
}()

// styledTypes are the series types whose names a legend lists.
var styledTypes = map[string]bool{"line": true, "scatter": true, "bar": true, "boxplot": true, "effectScatter": true}

// legendNames are the names an option's legend shows: its data's, else
// its named series' (once each).
func legendNames(option map[string]any) []string {
	legend, _ := option["legend"].(map[string]any)
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if data, ok := legend["data"].([]any); ok && len(data) > 0 {
		for _, d := range data {
			switch v := d.(type) {
			case string:
				add(v)
			case map[string]any:
				n, _ := v["name"].(string)
				add(n)
			}
		}
		return names
	}
	list, _ := option["series"].([]any)
	for _, e := range list {
		se, ok := e.(map[string]any)
		if !ok {
			continue
		}
		t, _ := se["type"].(string)
		n, _ := se["name"].(string)
		if styledTypes[t] {
			add(n)
		}
	}
	return names
}

// apply sets the palette as the option's default colours (a series
// keeps the colour its figure gave it) and lays out its legend unpaged.
func apply(option map[string]any, height *int) {
	if _, ok := option["color"]; !ok {
		option["color"] = append([]string(nil), Palette...)
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
	names := legendNames(option)
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
	need := 40 + legendRow*rows
	grids := []map[string]any{}
	if list, ok := option["grid"].([]any); ok { // one grid per panel
		for _, g := range list {
			if gm, ok := g.(map[string]any); ok {
				grids = append(grids, gm)
			}
		}
	} else {
		grids = append(grids, mapAt(option, "grid"))
	}
	for _, grid := range grids {
		if b, ok := number(grid["bottom"]); !ok || b < float64(need) {
			grid["bottom"] = need
		}
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

// styleCharts gives every chart of the site the palette as its default
// colours, unpaged legends and rounded numbers.
func (b *siteBuild) styleCharts() error {
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
			apply(option, &f.Height)
			out, err := encodeOption(option)
			if err != nil {
				return fmt.Errorf("figure %s: chart option: %w", f.ID, err)
			}
			f.Chart = string(out)
			if len(out) > chartInlineLimit && !b.m.Options.SingleFile {
				f.ChartSrc = "data/charts/" + f.ID + ".js"
			}
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
