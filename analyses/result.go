package analyses

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Result is what every analysis returns. Tables lists the tables in the
// order they are shown; the first is the analysis's main table. The result
// struct itself is marshalled to JSON (its exported fields with json tags)
// next to id, type, params and tables, so keep extra summary fields
// readable.
type Result interface {
	Tables() []Table
	Notes() []string // warnings for the reader: small n, ties, dropped cells
}

// Highlighter is an optional interface of a Result: one sentence with the
// analysis's key finding, shown on the site's overview.
type Highlighter interface {
	Highlight() string
}

// Table is a finished table model: renderers never change a number.
type Table struct {
	// Name is "" for the analysis's main table (id "<analysis-id>") and a
	// short suffix otherwise (id "<analysis-id>-<name>").
	Name    string
	Title   string
	Columns []string
	// Rows hold float64, int, string, bool or nil (missing). Non-finite
	// floats are written as empty cells in CSV and null in JSON.
	Rows [][]any
	// Better optionally names, per column, which end is best ("higher" or
	// "lower"); pages mark the best value of such columns.
	Better map[string]string
	// Compact, when set, is how a page may show a wide table in a few
	// columns: each entry pairs a score column with its rank column, shown
	// as one cell (the rank, with the score on hover or a toggle) headed
	// by the entry's label. The CSV and JSON keep every column.
	Compact []CompactColumn `json:"compact,omitempty"`
	// Resolution optionally gives, per column of Monte Carlo estimates
	// (a posterior probability from draws, a permutation p-value), the
	// estimate's resolution, 1/draws (for an adjusted p, the family's
	// size over the draws). Pages print an estimate of 0 as
	// "< resolution" and of 1 as "> 1 − resolution", never as a
	// certainty or a bound the draws cannot give; CSV and JSON keep
	// the raw estimate.
	Resolution map[string]float64 `json:"resolution,omitempty"`
	// Decimals optionally gives, per column, the decimals the analysis
	// writes that quantity with wherever it prints it (its figures, its
	// findings, its other tables); pages print the column with them
	// rather than choose from its values, so one number reads the same
	// everywhere. An interval is keyed by its lower bound's column.
	Decimals map[string]int `json:"decimals,omitempty"`
	// Mixed optionally names columns whose rows are each on a scale of
	// their own (a slope per objective, in that objective's units): pages
	// write each of their cells with four significant digits (FormatSig),
	// as captions quote them, not one number of decimals for the column.
	Mixed map[string]bool `json:"mixed,omitempty"`
}

// PValueZero is how a computed p-value of 0 is written: every p-value
// is computed in its upper tail (erfc, the complemented incomplete beta
// and gamma functions), so 0 means the tail underflowed float64, and "0"
// would claim a certainty the arithmetic cannot give.
const PValueZero = "< 1e-300"

// FormatP writes a p-value, the one way tables, figures and findings all
// write it: four decimals, e-notation with two significant digits below
// 0.001 (as far as float64 goes: p-values keep their tail), and a
// computed 0 as the bound "< 1e-300" (never "0").
func FormatP(p float64) string {
	switch {
	case p == 0:
		return PValueZero
	case p < 1e-3:
		return strconv.FormatFloat(p, 'e', 1, 64)
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

// PClause is a p-value in a sentence: "p = 0.0114", "p = 7.9e-06" or
// "p < 1e-300".
func PClause(p float64) string {
	s := FormatP(p)
	if strings.HasPrefix(s, "<") {
		return "p " + s
	}
	return "p = " + s
}

// Count is n with the noun that agrees with it: "1 dataset", "4
// datasets" (never "4 dataset(s)").
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// FormatSig writes x with n significant digits in a sentence, keeping
// the zeros that are significant (0.04200 beside 0.1206, where %g writes
// 0.042 and the number reads as less precise than its neighbours); a
// number that fewer digits write exactly is written so, as a table
// column's rule does (a Borda count of 245 or 5.5, a mean of 0.29).
func FormatSig(x float64, n int) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	short := strconv.FormatFloat(x, 'g', -1, 64)
	if math.IsNaN(x) || math.IsInf(x, 0) || significant(short) <= n {
		return short
	}
	return strings.TrimSuffix(fmt.Sprintf("%#.*g", n, x), ".") // 1234.56 is 1235, not "1235."
}

// significant counts the significant digits of a number's shortest text
// (its mantissa's digits from the first that is not 0).
func significant(s string) int {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimLeft(strings.NewReplacer("-", "", ".", "").Replace(s), "0")
	return len(s)
}

// Display rules of a column of numbers, in one place.
const (
	// significantDigits is how many significant digits a column's typical
	// value (the median magnitude) shows.
	significantDigits = 4
	// maxDecimals bounds the decimals of a fixed column; a column whose
	// typical value needs more is written in e-notation.
	maxDecimals = 6
)

// ColumnDecimals is the one number of decimals a table column of the
// finite numbers vals is written with: enough for its typical value (the
// median magnitude of its distinct values: a penalty or a cap many rows
// share, such as EvalRS 2022's -100, counts once) to show four
// significant digits, or fewer when they write every value exactly (half
// ranks: 1.5, 2.0). It is false when the column is written in e-notation
// instead (values of 10⁶ or more, or a typical value that needs more
// than six decimals). A finding quoting a number of a table column
// formats it with the column's decimals (ColumnText), so the two read
// alike.
func ColumnDecimals(vals []float64) (int, bool) {
	var mags []float64
	for _, v := range vals {
		if v != 0 {
			mags = append(mags, math.Abs(v))
		}
	}
	if len(mags) == 0 {
		return 0, true
	}
	slices.Sort(mags)
	mags = slices.Compact(mags)
	if mags[len(mags)-1] >= 1e6 {
		return 0, false
	}
	d := significantDigits - 1 - int(math.Floor(math.Log10(mags[len(mags)/2])))
	if d > maxDecimals {
		return 0, false
	}
	d = max(d, 0)
	for short := 0; short < d; short++ {
		exact := true
		for _, v := range vals {
			if r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', short, 64), 64); r != v {
				exact = false
				break
			}
		}
		if exact {
			return short, true
		}
	}
	return d, true
}

// ShareDecimals has columns cols of t print with the one number of
// decimals of the numbers vals (ColumnDecimals): the cells of a matrix of
// one quantity (correlations between metrics, mean ρ by strategy and
// metric) read alike in every column, as the key finding quotes them
// (ColumnText over the same vals). Nothing is set when vals are written
// in e-notation.
func (t *Table) ShareDecimals(vals []float64, cols ...string) {
	d, ok := ColumnDecimals(vals)
	if !ok {
		return
	}
	if t.Decimals == nil {
		t.Decimals = map[string]int{}
	}
	for _, c := range cols {
		t.Decimals[c] = d
	}
}

// PercentDecimals is how many decimals a share shown in percent is
// written with, in tables and figures alike: a meta-analysis's weights
// (11.5%), a principal component's share of variance, how often a
// selection chose a dataset.
const PercentDecimals = 1

// ColumnText writes x as a table column of the numbers vals (x among
// them) writes it: with the column's decimals (ColumnDecimals), else in
// e-notation. A finding that quotes a number of a table reads as the
// table does.
func ColumnText(x float64, vals []float64) string {
	if d, ok := ColumnDecimals(vals); ok {
		return FixedText(x, d)
	}
	return ScientificText(x)
}

// ValueText writes x as a column holding x alone writes it: a value of a
// table of named quantities (the critical difference, a residual τ²),
// quoted in a caption or a finding.
func ValueText(x float64) string { return ColumnText(x, []float64{x}) }

// FixedText writes x with d decimals, but a non-zero x that d decimals
// would write as a zero in e-notation (1.0e-07, -2.0e-04): never as a
// zero, which would hide on which side of zero an interval's bound lies.
// A zero has no sign.
func FixedText(x float64, d int) string {
	if x == 0 {
		x = 0 // not -0
	}
	s := strconv.FormatFloat(x, 'f', d, 64)
	if x != 0 && strings.Trim(s, "-0.") == "" {
		return strconv.FormatFloat(x, 'e', 1, 64)
	}
	return s
}

// ScientificText writes x in e-notation with three significant digits,
// as a column of very large or very small numbers is written.
func ScientificText(x float64) string { return strconv.FormatFloat(x, 'e', 2, 64) }

// DecimalsFor is how many decimals tell the ends of an interval of
// width w apart (two significant digits of w), from 2 to 6; 2 for a
// width that is not a positive number.
func DecimalsFor(w float64) int {
	if !(w > 0) || math.IsInf(w, 0) {
		return 2
	}
	return max(2, min(6, 1-int(math.Floor(math.Log10(w)))))
}

// FormatInterval writes an estimate and its interval with d decimals
// each, "-0.062 [-0.089, -0.035]": one precision for the three numbers,
// as a paper prints them, and as the tables print them (FixedText: a
// bound that d decimals would write as 0.000 is written in e-notation,
// -1.0e-04, so its side of zero shows).
func FormatInterval(e, lo, hi float64, d int) string {
	return FixedText(e, d) + " [" + FixedText(lo, d) + ", " + FixedText(hi, d) + "]"
}

// ResolutionText writes a Monte Carlo resolution for a bound: two
// significant digits rounded up, e-notation without a padded exponent
// (1/50000 is "2e-5", 1/30000 "3.4e-5", 1/1000 "0.001").
func ResolutionText(r float64) string {
	if !(r > 0) {
		return "0"
	}
	e := math.Floor(math.Log10(r))
	m := math.Ceil(r/math.Pow(10, e-1)-1e-9) / 10 // mantissa in [1, 10), rounded up to 0.1
	if m >= 10 {
		m, e = m/10, e+1
	}
	text := strconv.FormatFloat(m, 'f', -1, 64) + "e" + strconv.Itoa(int(e))
	if e >= -3 && e <= 0 {
		v, _ := strconv.ParseFloat(text, 64)
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return text
}

// CompactColumn is a score column and its rank column shown as one
// (Table.Compact).
type CompactColumn struct {
	Label string `json:"label"`
	Score string `json:"score"`
	Rank  string `json:"rank"`
}

// ID returns the table id for an analysis id.
func (t Table) ID(analysisID string) string {
	if t.Name == "" {
		return analysisID
	}
	return analysisID + "-" + t.Name
}

// Check panics when a row does not match the columns: a broken invariant of
// the analysis, not bad data.
func (t Table) Check() {
	for i, r := range t.Rows {
		if len(r) != len(t.Columns) {
			panic(fmt.Sprintf("analyses: table %q row %d has %d cells for %d columns", t.Name, i, len(r), len(t.Columns)))
		}
	}
}

// Warnings collects notes for the reader; analyses embed it in results.
type Warnings struct {
	List []string `json:"warnings,omitempty"`
}

// Warnf adds a note.
func (w *Warnings) Warnf(format string, args ...any) {
	w.List = append(w.List, fmt.Sprintf(format, args...))
}

// Notes implements part of Result.
func (w *Warnings) Notes() []string { return w.List }

// Finite reports whether x is neither NaN nor infinite.
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Opt returns a pointer to x, or nil when x is not finite: an optional
// number of a result, null in JSON.
func Opt(x float64) *float64 {
	if !Finite(x) {
		return nil
	}
	return &x
}

// CellValue returns v as a table cell, or nil (an empty cell) when it is
// not finite: a reader never sees NaN.
func CellValue(v float64) any {
	if !Finite(v) {
		return nil
	}
	return v
}

// CellPtr returns *p as a table cell, or nil (an empty cell) when p is
// nil or *p is not finite.
func CellPtr(p *float64) any {
	if p == nil || !Finite(*p) {
		return nil
	}
	return *p
}
