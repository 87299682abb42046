package model

import (
	"strings"
	"unicode/utf8"
)

// Placement is where a table goes in a paper.
type Placement int

// The placements of a table in a paper.
const (
	// PlaceColumn: a float one column wide (table).
	PlaceColumn Placement = iota
	// PlaceWide: a float across both columns of a two-column page
	// (table*), split into parts when one would not fit.
	PlaceWide
	// PlaceAppendix: too long for a float: a longtable in a one-column
	// appendix (paper/appendix/), never in paper/tables/.
	PlaceAppendix
)

// Paper page measures, in points, at the \footnotesize a paper's tables
// are set in: what one column (ACM sigconf 241 pt, IEEEtran 252 pt) and
// the text width (ACM 506 pt, IEEEtran 516 pt) hold, with a margin for
// the estimate.
const (
	ColumnWidthPt = 236
	TextWidthPt   = 496
	// FloatRows is the most rows a float holds; a longer table is a
	// longtable of the appendix.
	FloatRows = 40
	// tabColSepPt is the space on each side of a cell (\tabcolsep).
	tabColSepPt = 4
	// fontPt is the table's font size (\footnotesize).
	fontPt = 8
)

// PaperView is what of a table belongs in a paper, and where.
type PaperView struct {
	Placement Placement
	// Parts are the spec's columns of each part, the key columns in
	// every part; one part when the table fits whole.
	Parts [][]int
	// Narrow says, per part of a PlaceWide table, that the part fits
	// one column (a table, not a table*).
	Narrow []bool
	// Omitted are the labels of the columns left out (they stay on the
	// site and in the data files).
	Omitted []string
}

// paperView chooses the columns and the placement of a table's paper
// view: the detail columns and the "significant" flag (shown as a mark)
// left out, one column wide when it fits, else across both columns,
// split into parts (the keys repeated) when it does not fit either; a
// table of more than FloatRows rows goes to the appendix.
func paperView(t *Table) PaperView {
	var keys, vals []int
	var v PaperView
	for j, c := range t.Columns {
		switch {
		case c.ID == "significant" && t.SigNote != "": // shown as the p-value's mark
		case c.Detail, c.Role == RoleText && c.ID == "note":
			v.Omitted = append(v.Omitted, c.Label)
		case c.Role == RoleKey:
			keys = append(keys, j)
		default:
			vals = append(vals, j)
		}
	}
	widths := make([]float64, len(t.Columns))
	for j := range t.Columns {
		widths[j] = columnWidthPt(t, j)
	}
	sum := func(cols []int) float64 {
		s := 0.0
		for _, j := range cols {
			s += widths[j]
		}
		return s
	}
	all := append(append([]int{}, keys...), vals...)
	switch {
	case sum(all) <= ColumnWidthPt:
		v.Placement = PlaceColumn
	default:
		v.Placement = PlaceWide
	}
	if len(t.Rows) > FloatRows {
		v.Placement = PlaceAppendix
	}
	defer func() {
		for _, p := range v.Parts {
			v.Narrow = append(v.Narrow, sum(p) <= ColumnWidthPt)
		}
	}()
	if sum(all) <= TextWidthPt {
		v.Parts = [][]int{all}
		return v
	}
	// As few parts as the text width allows, each as wide as the
	// others: the narrowest width that still gives that many parts
	// (filling to the text width alone left one column, Dowdall, as a
	// part of its own beside eleven).
	split := func(width float64) [][]int {
		var parts [][]int
		part := append([]int{}, keys...)
		for _, j := range vals {
			if len(part) > len(keys) && sum(part)+widths[j] > width {
				parts = append(parts, part)
				part = append([]int{}, keys...)
			}
			part = append(part, j)
		}
		return append(parts, part)
	}
	n := len(split(TextWidthPt))
	lo, hi := 0.0, float64(TextWidthPt)
	for range 40 {
		if mid := (lo + hi) / 2; len(split(mid)) <= n {
			hi = mid
		} else {
			lo = mid
		}
	}
	v.Parts = split(hi)
	return v
}

// columnWidthPt estimates a column's width in a paper: its widest cell or
// header line, with the marks LaTeX adds, and the space around it.
func columnWidthPt(t *Table, j int) float64 {
	w := cellsWidthPt(t, j)
	for _, line := range headerLines(t.Columns[j].Header(), w) {
		w = max(w, textWidthPt(line))
	}
	return w + 2*tabColSepPt
}

// cellsWidthPt is the width of column j's widest cell, with the marks
// LaTeX adds.
func cellsWidthPt(t *Table, j int) float64 {
	w := 0.0
	for _, r := range t.Rows {
		c := r[j]
		cw := textWidthPt(c.Text)
		if c.Num || t.Columns[j].Role == RoleInterval {
			// a number's minus is a math minus, twice a hyphen
			cw += float64(strings.Count(c.Text, "-")) * 0.45 * fontPt
		}
		if c.Num && strings.ContainsAny(c.Text, "e") {
			cw += fontPt // "e-04" is printed as "×10^{-4}"
		}
		if c.Sig || c.Mark == MarkTied {
			cw += 0.5 * fontPt
		}
		if c.Partial() {
			cw += textWidthPt(" ("+c.CountText()+")") * 0.8
		}
		w = max(w, cw)
	}
	return w
}

// HeaderLines is column j's header in at most two lines, split at the
// space that makes the wider line narrowest, where the header is wider
// than the column's cells (a long label does not widen its column
// beyond its numbers); a header no wider than its cells stays whole
// ("95% CI" over its intervals was split into "95%" and "CI").
func HeaderLines(t *Table, j int) []string {
	return headerLines(t.Columns[j].Header(), cellsWidthPt(t, j))
}

// headerLines is header h over cells of width cells (see HeaderLines).
func headerLines(h string, cells float64) []string {
	words := strings.Fields(h)
	if len(words) < 2 || textWidthPt(h) <= cells {
		return []string{h}
	}
	best, bestW := []string{h}, textWidthPt(h)
	for i := 1; i < len(words); i++ {
		a, b := strings.Join(words[:i], " "), strings.Join(words[i:], " ")
		if w := max(textWidthPt(a), textWidthPt(b)); w < bestW {
			best, bestW = []string{a, b}, w
		}
	}
	return best
}

// textWidthPt estimates the printed width of s at the table's font size,
// from the widths of Computer Modern glyphs (wider than Times and Linux
// Libertine, the fonts of IEEE's and ACM's formats).
func textWidthPt(s string) float64 {
	em := 0.0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			em += 0.5
		case strings.ContainsRune("ilj.,:;'|!()[]", r):
			em += 0.3
		case strings.ContainsRune("ft-/ r", r):
			em += 0.36
		case strings.ContainsRune("mwMW@%", r):
			em += 0.9
		case r >= 'A' && r <= 'Z':
			em += 0.72
		case r < utf8.RuneSelf:
			em += 0.52
		default:
			em += 0.62
		}
	}
	return em * fontPt
}
