package site

import (
	"encoding/json"
	"html"
	"html/template"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// Numbers for people (docs/READING.md): a table column is formatted as a
// whole, from its values, so that its numbers align and compare at a
// glance. The exact value stays in the cell's title, its data-v (for
// sorting), the CSV and the JSON.

// columnKind is how a column's numbers are written.
type columnKind int

const (
	colText       columnKind = iota // no numbers
	colInteger                      // every value is a whole number: written as one
	colFixed                        // fixed decimals, the same for the column
	colScientific                   // three significant digits in e-notation
	colPValue                       // p-values: 4 decimals, e-notation below 0.001, 0 as a bound
	colMonteCarlo                   // Monte Carlo estimates: as p-values, 0 and 1 as bounds at the resolution
)

// Display rules, in one place.
const (
	// significantDigits is how many significant digits a column's typical
	// value (the median magnitude) shows.
	significantDigits = 4
	// maxDecimals bounds the decimals of a fixed column; a column whose
	// typical value needs more is written in e-notation.
	maxDecimals = 6
	// pValueZero is how a computed p-value of 0 is written: every
	// p-value is computed in its upper tail (erfc, the complemented
	// incomplete beta and gamma functions), so 0 means the tail
	// underflowed float64, and "0" would claim a certainty the
	// arithmetic cannot give.
	pValueZero = "< 1e-300"
	// chartDigits is the significant digits of numbers in chart options
	// (labels, tooltips, axis bounds).
	chartDigits = 6
)

// columnFormat formats the numbers of one column.
type columnFormat struct {
	kind     columnKind
	decimals int     // colFixed
	res      float64 // colMonteCarlo: the estimate's resolution, 1/draws
}

// pValueColumnRe recognises p-value columns by name: p, p_value, pvalue,
// p_holm, p_adj, p_mannwhitney, wilcoxon_p, …
var pValueColumnRe = regexp.MustCompile(`(?i)^(p|pvalue|p[_-].*|.*[_-]p|.*[_-]p[_-]?value|p[_-]?value.*)$`)

// chooseFormat picks a column's format from its name and values (cells of
// any type; only finite numbers count).
func chooseFormat(name string, cells []any) columnFormat {
	var vals []float64
	for _, c := range cells {
		switch x := c.(type) {
		case float64:
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				vals = append(vals, x)
			}
		case int:
			vals = append(vals, float64(x))
		case int64:
			vals = append(vals, float64(x))
		}
	}
	if len(vals) == 0 {
		return columnFormat{kind: colText}
	}
	inUnit, integral := true, true
	var mags []float64
	for _, v := range vals {
		if v < 0 || v > 1 {
			inUnit = false
		}
		if v != math.Trunc(v) || math.Abs(v) >= 1e15 {
			integral = false
		}
		if v != 0 {
			mags = append(mags, math.Abs(v))
		}
	}
	if inUnit && pValueColumnRe.MatchString(name) {
		return columnFormat{kind: colPValue}
	}
	if integral {
		return columnFormat{kind: colInteger}
	}
	slices.Sort(mags)
	typical := mags[len(mags)/2]
	if mags[len(mags)-1] >= 1e6 {
		return columnFormat{kind: colScientific}
	}
	d := significantDigits - 1 - int(math.Floor(math.Log10(typical)))
	if d > maxDecimals {
		return columnFormat{kind: colScientific}
	}
	d = max(d, 0)
	// fewer decimals when they write every value exactly (half ranks:
	// 1.5, 2.0 rather than 1.500, 2.000)
	for short := 0; short < d; short++ {
		exact := true
		for _, v := range vals {
			if r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', short, 64), 64); r != v {
				exact = false
				break
			}
		}
		if exact {
			return columnFormat{kind: colFixed, decimals: short}
		}
	}
	return columnFormat{kind: colFixed, decimals: d}
}

// format writes one finite number of the column.
func (f columnFormat) format(x float64) string {
	switch f.kind {
	case colInteger:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatFloat(x, 'f', 0, 64)
		}
	case colPValue:
		return formatPValue(x)
	case colMonteCarlo:
		return formatEstimate(x, f.res)
	case colFixed:
		s := strconv.FormatFloat(x, 'f', f.decimals, 64)
		if x != 0 && isZeroText(s) {
			// a non-zero value too small for the column's decimals is
			// not written as a zero
			return strconv.FormatFloat(x, 'e', 1, 64)
		}
		return s
	}
	return strconv.FormatFloat(x, 'e', 2, 64)
}

// isZeroText reports whether a fixed-notation number reads as zero
// ("0.000", "-0.00").
func isZeroText(s string) bool {
	return strings.Trim(s, "-0.") == ""
}

// formatPValue writes a p-value: four decimals, e-notation with two
// significant digits below 0.001 (as far as float64 goes: p-values keep
// their tail), and a computed 0 as the bound "< 1e-300" (never "0").
func formatPValue(p float64) string {
	switch {
	case p == 0:
		return pValueZero
	case p < 1e-3:
		return strconv.FormatFloat(p, 'e', 1, 64)
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

// formatEstimate writes a Monte Carlo probability of resolution res
// (1/draws): as a p-value, but an estimate below the resolution (0 of
// the draws) as "< res" and one within it of 1 as "> 1 − res": the
// draws cannot tell more (0 of 50,000 draws is "< 2e-5").
func formatEstimate(p, res float64) string {
	switch {
	case p < res:
		return "< " + analyses.ResolutionText(res)
	case p > 1-res:
		return "> 1 − " + analyses.ResolutionText(res)
	}
	return formatPValue(p)
}

// formatTableCell shows a cell with its column's format; the exact value
// is kept in Full (a title) and Sort.
func formatTableCell(c any, f columnFormat) cellView {
	switch x := c.(type) {
	case nil:
		return cellView{Text: "—"}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return cellView{Text: "—"}
		}
		full := strconv.FormatFloat(x, 'g', -1, 64)
		cv := cellView{Text: f.format(x), Sort: full, Num: true}
		if full != cv.Text {
			cv.Full = full
		}
		return cv
	case int:
		s := strconv.Itoa(x)
		return cellView{Text: s, Sort: s, Num: true}
	case int64:
		s := strconv.FormatInt(x, 10)
		return cellView{Text: s, Sort: s, Num: true}
	}
	return formatCell(c)
}

// markBest marks, in every column with a best value (paper.Best over
// all of the table's rows), each shown cell whose value ties it
// (analyses.Tied): three methods whose scores differ in the 17th digit
// are all marked, none alone. t holds the shown rows.
func markBest(t analyses.Table, rows [][]cellView, best []*float64) {
	for i := range rows {
		for j := range rows[i] {
			if best[j] == nil {
				continue
			}
			if f, ok := t.Rows[i][j].(float64); ok && analyses.Tied(f, *best[j]) {
				rows[i][j].Best = true
			}
		}
	}
}

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
