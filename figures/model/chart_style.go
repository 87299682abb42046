package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The interactive charts take their colours from their figure specs:
// each styles a method or rule from the study-wide map (Styles, from the
// study's naming order), so a name has one colour, dash and symbol on
// every page and in the SVG, PDF and PNG alike. StyleChart only lays out
// legends and rounds numbers, for the site's pages and the Explore page
// alike.

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
		option["color"] = paletteHex()
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
// ChartDigits significant digits.
func encodeOption(option map[string]any) ([]byte, error) {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(roundNumbers(option)); err != nil {
		return nil, err
	}
	return bytes.TrimRight(out.Bytes(), "\n"), nil
}

// ChartDigits is the significant digits of numbers in chart options
// (labels, tooltips, axis bounds). Table cells are formatted by their
// presentation (Table), one rule per column.
const ChartDigits = 6

// StyleChart is a figure's ECharts option as a page draws it: the
// palette as its default colours (a series keeps the colour its figure
// gave it), its legend unpaged in rows under the plot (height, when not
// nil, grown for them), and its numbers rounded to ChartDigits
// significant digits.
func StyleChart(raw []byte, height *int) ([]byte, error) {
	option, err := decodeOption(raw)
	if err != nil {
		return nil, err
	}
	apply(option, height)
	return encodeOption(option)
}

// roundNumbers rounds every non-integer number of a decoded chart option
// (numbers as json.Number) to ChartDigits significant digits, so that
// axis bounds, labels and tooltips never show float noise
// (0.6799999999999999) or 16 digits; the exact values are in the data
// files. Integers and strings are kept.
func roundNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = roundNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = roundNumbers(e)
		}
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			return x
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return x
		}
		return json.Number(shortFloat(f, ChartDigits))
	}
	return v
}

// shortFloat writes x with at most digits significant digits, in the
// shortest form that reads back as the rounded value.
func shortFloat(x float64, digits int) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', digits, 64), 64)
	return strconv.FormatFloat(r, 'g', -1, 64)
}
