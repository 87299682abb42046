package model

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// Numbers for people (docs/READING.md): a table column is formatted as a
// whole, from its values, so that its numbers align and compare at a
// glance. One rule per column, chosen once and used by every backend
// (HTML, Markdown, LaTeX); the exact value stays in the CSV and JSON.

// NumberKind is how a column's numbers are written.
type NumberKind int

// The number kinds of a column.
const (
	NumText        NumberKind = iota // no numbers
	NumInteger                       // every value is a whole number: written as one
	NumFixed                         // fixed decimals, the same for the whole column
	NumScientific                    // three significant digits in e-notation
	NumPValue                        // p-values: 4 decimals, e-notation below 0.001, 0 as a bound
	NumMonteCarlo                    // Monte Carlo estimates: as p-values, 0 and 1 as bounds at the resolution
	NumSignificant                   // each value with four significant digits (rows on scales of their own)
)

// NumberFormat is the one precision rule of a column.
type NumberFormat struct {
	Kind     NumberKind
	Decimals int     // NumFixed
	Res      float64 // NumMonteCarlo: the estimate's resolution, 1/draws
}

// pValueColumnRe recognises p-value columns by name: p, p_value, pvalue,
// p_holm, p_adj, p_mannwhitney, wilcoxon_p, …
var pValueColumnRe = regexp.MustCompile(`(?i)^(p|pvalue|p[_-].*|.*[_-]p|.*[_-]p[_-]?value|p[_-]?value.*)$`)

// IsPValueColumn reports whether a column id names a p-value.
func IsPValueColumn(id string) bool { return pValueColumnRe.MatchString(id) }

// finiteNumbers are the finite numbers among cells of any type.
func finiteNumbers(cells []any) []float64 {
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
	return vals
}

// ChooseFormat picks a column's format from its id and values (cells of
// any type; only finite numbers count): integers as integers; p-values by
// the p-value rule; else analyses.ColumnDecimals (four significant digits
// of the column's typical value, the one rule findings quote by), or
// e-notation when the column's values are too big or too small for that.
func ChooseFormat(id string, cells []any) NumberFormat {
	vals := finiteNumbers(cells)
	if len(vals) == 0 {
		return NumberFormat{Kind: NumText}
	}
	inUnit, integral := true, true
	for _, v := range vals {
		if v < 0 || v > 1 {
			inUnit = false
		}
		if v != math.Trunc(v) || math.Abs(v) >= 1e15 {
			integral = false
		}
	}
	if inUnit && pValueColumnRe.MatchString(id) {
		return NumberFormat{Kind: NumPValue}
	}
	if integral {
		return NumberFormat{Kind: NumInteger}
	}
	if d, ok := analyses.ColumnDecimals(vals); ok {
		return NumberFormat{Kind: NumFixed, Decimals: d}
	}
	return NumberFormat{Kind: NumScientific}
}

// Format writes one finite number by the column's rule.
func (f NumberFormat) Format(x float64) string {
	switch f.Kind {
	case NumInteger:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatFloat(x, 'f', 0, 64)
		}
	case NumPValue:
		return analyses.FormatP(x)
	case NumMonteCarlo:
		return FormatEstimate(x, f.Res)
	case NumFixed:
		return analyses.FixedText(x, f.Decimals)
	case NumSignificant:
		return analyses.FormatSig(x, 4)
	case NumText:
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	return analyses.ScientificText(x)
}

// HeatmapText is a heatmap cell's printed number, in the static figure
// and the interactive chart alike: format ("%.2f" when empty), with a
// zero written without a sign (-0.004 is "0.00", not "-0.00": the
// cell's colour shows which side of zero it lies).
func HeatmapText(format string, v float64) string {
	if format == "" {
		format = "%.2f"
	}
	s := fmt.Sprintf(format, v)
	if isZeroText(s) {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// isZeroText reports whether a fixed-notation number reads as zero
// ("0.000", "-0.00").
func isZeroText(s string) bool {
	return strings.Trim(s, "-0.") == ""
}

// FormatEstimate writes a Monte Carlo probability of resolution res
// (1/draws): as a p-value, but an estimate below the resolution (0 of
// the draws) as "< res" and one within it of 1 as "> 1 − res": the draws
// cannot tell more (0 of 50,000 draws is "< 2e-5").
func FormatEstimate(p, res float64) string {
	switch {
	case p < res:
		return "< " + analyses.ResolutionText(res)
	case p > 1-res:
		return "> 1 − " + analyses.ResolutionText(res)
	}
	return analyses.FormatP(p)
}
