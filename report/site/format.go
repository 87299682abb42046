package site

import (
	"encoding/json"
	"html"
	"html/template"
	"strconv"
	"strings"
)

// chartDigits is the significant digits of numbers in chart options
// (labels, tooltips, axis bounds). Table cells are formatted by their
// presentation (model.Table), one rule per column.
const chartDigits = 6

// inlineCode is text for a page with `code spans` set as <code>: notes
// and captions name columns and options that way.
func inlineCode(s string) template.HTML {
	parts := strings.Split(s, "`")
	if len(parts) < 3 {
		return template.HTML(html.EscapeString(s))
	}
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1:
			b.WriteString("<code>" + html.EscapeString(p) + "</code>")
		case i%2 == 1: // an unpaired backtick stays as written
			b.WriteString("`" + html.EscapeString(p))
		default:
			b.WriteString(html.EscapeString(p))
		}
	}
	return template.HTML(b.String())
}

// roundNumbers rounds every non-integer number of a decoded chart option
// (numbers as json.Number) to chartDigits significant digits, so that
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
		return json.Number(shortFloat(f, chartDigits))
	}
	return v
}

// shortFloat writes x with at most digits significant digits, in the
// shortest form that reads back as the rounded value.
func shortFloat(x float64, digits int) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', digits, 64), 64)
	return strconv.FormatFloat(r, 'g', -1, 64)
}
