// Package paper writes what a manuscript takes from a study: every table
// as a LaTeX table (booktabs), and the key numbers of every analysis as
// LaTeX macros (evalbook.tex). It only formats: every number comes from
// the analyses' own tables and results, and is printed as the site prints
// it (four significant digits).
package paper

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// LongRows is the row count above which a table is written as a
// longtable (which breaks across pages) instead of a table float.
const LongRows = 40

// Table is one table to write.
type Table struct {
	ID      string // the table id: data/<ID>.tex, \label{tab:<ID>}
	Caption string
	Table   analyses.Table
}

// Number formats a number as the site's tables show it: an integer as
// it is, four significant digits in fixed notation between 1e-3 and 1e6,
// else four significant digits in scientific notation (Go's %g).
func Number(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e9 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	if math.Abs(x) >= 1e-3 && math.Abs(x) < 1e6 {
		digits := 4 - int(math.Floor(math.Log10(math.Abs(x)))) - 1
		if digits < 0 {
			digits = 0
		}
		s := strconv.FormatFloat(x, 'f', digits, 64)
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		return s
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// numberCell splits a formatted number into the two cells of an r@{}l
// column pair (integer part; decimal point, fraction and exponent), so
// the column aligns on the decimal point with no package beyond
// booktabs.
func numberCell(x float64, bold bool) (intPart, frac string) {
	s := Number(x)
	mant, exp := s, ""
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant, exp = s[:i], s[i+1:]
	}
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	intPart, frac = mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i:]
	}
	if exp != "" {
		n, _ := strconv.Atoi(exp)
		frac += fmt.Sprintf("$\\times 10^{%d}$", n)
	}
	if neg {
		intPart = "$-$" + intPart
	}
	if bold {
		intPart = `\textbf{` + intPart + `}`
		if frac != "" {
			frac = `\textbf{` + frac + `}`
		}
	}
	return intPart, frac
}

// Escape makes text safe in LaTeX's text mode: the ten special
// characters, the characters OT1 fonts print as other glyphs (< > |),
// and the non-ASCII symbols evalbook's own titles use, which pdflatex's
// UTF-8 input does not know, become commands.
func Escape(s string) string {
	var units []string // one per rune, so a combining accent can wrap the last
	for _, r := range s {
		if acc, ok := accents[r]; ok {
			if len(units) > 0 { // an accent on nothing is dropped
				units[len(units)-1] = accent(units[len(units)-1], acc)
			}
			continue
		}
		units = append(units, escapeRune(r))
	}
	return strings.Join(units, "")
}

// accents are the combining accents (ŷ, β̂, x̄ …) as LaTeX's math and
// text accents.
var accents = map[rune][2]string{
	'\u0302': {`\hat`, `\^`}, '\u0303': {`\tilde`, `\~`}, '\u0304': {`\bar`, `\=`}, '\u0307': {`\dot`, `\.`},
	'\u0301': {`\acute`, `\'`}, '\u0300': {`\grave`, "\\`"}, '\u0308': {`\ddot`, `\"`},
}

// accent puts a combining accent on one escaped character: a math
// symbol ($\beta$) takes the math accent inside its $…$, other text the
// text accent.
func accent(unit string, acc [2]string) string {
	if len(unit) > 2 && strings.HasPrefix(unit, "$") && strings.HasSuffix(unit, "$") {
		return "$" + acc[0] + "{" + unit[1:len(unit)-1] + "}$"
	}
	return acc[1] + "{" + unit + "}"
}

// escapeRune is one character in LaTeX's text mode.
func escapeRune(r rune) string {
	switch r {
	case '\\':
		return `\textbackslash{}`
	case '{', '}', '$', '&', '#', '%', '_':
		return `\` + string(r)
	case '~':
		return `\textasciitilde{}`
	case '^':
		return `\textasciicircum{}`
	case '<':
		return `\textless{}`
	case '>':
		return `\textgreater{}`
	case '|':
		return `\textbar{}`
	case '\n', '\r', '\t':
		return " "
	}
	if m, ok := symbols[r]; ok {
		return m
	}
	if r < ' ' {
		return "" // control characters print nothing in LaTeX
	}
	return string(r)
}

// symbols are non-ASCII characters LaTeX's utf8 input cannot print in
// text mode, as commands that can.
var symbols = map[rune]string{
	'–': "--", '—': "---", '−': "$-$", '×': `$\times$`, '±': `$\pm$`, '≤': `$\le$`, '≥': `$\ge$`,
	'≠': `$\ne$`, '≈': `$\approx$`, '→': `$\rightarrow$`, '·': `$\cdot$`, '…': `\ldots{}`, '²': `$^{2}$`,
	'α': `$\alpha$`, 'β': `$\beta$`, 'γ': `$\gamma$`, 'δ': `$\delta$`, 'ε': `$\varepsilon$`, 'η': `$\eta$`,
	'θ': `$\theta$`, 'κ': `$\kappa$`, 'λ': `$\lambda$`, 'μ': `$\mu$`, 'ν': `$\nu$`, 'π': `$\pi$`,
	'ρ': `$\rho$`, 'σ': `$\sigma$`, 'τ': `$\tau$`, 'φ': `$\varphi$`, 'χ': `$\chi$`, 'ω': `$\omega$`,
	'Δ': `$\Delta$`, 'Σ': `$\Sigma$`, 'Ω': `$\Omega$`, '‘': "`", '’': "'", '“': "``", '”': "''",
	'\u00a0': "~",
}

// significance returns, for a table with a boolean column "significant",
// the index of the p-value column its marker goes on (p_holm if present,
// else p) and of the significant column; -1, -1 otherwise.
func significance(t analyses.Table) (pCol, sigCol int) {
	pCol, sigCol = -1, -1
	for j, c := range t.Columns {
		switch c {
		case "significant":
			sigCol = j
		case "p_holm":
			pCol = j
		case "p":
			if pCol < 0 {
				pCol = j
			}
		}
	}
	if pCol < 0 || sigCol < 0 {
		return -1, -1
	}
	return pCol, sigCol
}

// Best returns, per column with a Better direction, the best finite
// value (nil for other columns); a cell is the best when it ties with it
// (analyses.Tied), as on the site.
func Best(t analyses.Table) []*float64 {
	best := make([]*float64, len(t.Columns))
	for j, c := range t.Columns {
		dir := t.Better[c]
		if dir != "higher" && dir != "lower" {
			continue
		}
		for _, row := range t.Rows {
			f, ok := row[j].(float64)
			if !ok || !analyses.Finite(f) {
				continue
			}
			if best[j] == nil || (dir == "higher" && f > *best[j]) || (dir == "lower" && f < *best[j]) {
				v := f
				best[j] = &v
			}
		}
	}
	return best
}

// numericColumns reports which columns hold numbers (and missing values)
// only, with at least one number: those are aligned on the decimal point.
func numericColumns(t analyses.Table) []bool {
	num := make([]bool, len(t.Columns))
	for j := range t.Columns {
		seen, ok := false, true
		for _, row := range t.Rows {
			switch row[j].(type) {
			case float64, int, int64:
				seen = true
			case nil:
			default:
				ok = false
			}
		}
		num[j] = seen && ok
	}
	return num
}

// LaTeX writes one table: booktabs rules, numbers aligned on the decimal
// point, the best value of a column in bold as on the page, a $^{*}$ on
// the p-value of a significant row when the table says which are, the
// caption and \label{tab:<id>}. Tables longer than LongRows are
// longtables. Needs \usepackage{booktabs} (and longtable for those).
func LaTeX(t Table) []byte {
	tab := t.Table
	var b bytes.Buffer
	num := numericColumns(tab)
	long := len(tab.Rows) > LongRows
	caption := `\caption{` + Escape(t.Caption) + `}\label{tab:` + t.ID + `}`
	fmt.Fprintf(&b, "%% %s: written by evalbook from data/%s.csv; needs \\usepackage{booktabs}", t.ID, t.ID)
	if long {
		b.WriteString(" and \\usepackage{longtable}")
	}
	b.WriteString("\n")
	spec, head := columnSpec(tab.Columns, num), header(tab.Columns, num)
	if long {
		fmt.Fprintf(&b, "\\begin{longtable}{%s}\n%s \\\\\n\\toprule\n%s\n\\midrule\n\\endfirsthead\n\\toprule\n%s\n\\midrule\n\\endhead\n\\bottomrule\n\\endlastfoot\n",
			spec, caption, head, head)
	} else {
		fmt.Fprintf(&b, "\\begin{table}[htbp]\n\\centering\n%s\n\\begin{tabular}{%s}\n\\toprule\n%s\n\\midrule\n", caption, spec, head)
	}
	marked := body(&b, tab, num)
	if long {
		b.WriteString("\\end{longtable}\n")
		if marked {
			b.WriteString("\\noindent{\\footnotesize $^{*}$ significant (column \\emph{significant}).}\n")
		}
		return b.Bytes()
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	if marked {
		b.WriteString("\\par\\smallskip{\\footnotesize $^{*}$ significant (column \\emph{significant}).}\n")
	}
	b.WriteString("\\end{table}\n")
	return b.Bytes()
}

// columnSpec is the tabular's column specification: an r@{}l pair per
// numeric column (aligned on the decimal point), l otherwise.
func columnSpec(columns []string, num []bool) string {
	var spec strings.Builder
	for j := range columns {
		if num[j] {
			spec.WriteString("r@{}l")
		} else {
			spec.WriteString("l")
		}
	}
	return spec.String()
}

// header is the table's header row; a numeric column's name spans its
// two cells.
func header(columns []string, num []bool) string {
	var head strings.Builder
	for j, c := range columns {
		if j > 0 {
			head.WriteString(" & ")
		}
		if num[j] {
			head.WriteString(`\multicolumn{2}{c}{` + Escape(c) + `}`)
		} else {
			head.WriteString(Escape(c))
		}
	}
	head.WriteString(` \\`)
	return head.String()
}

// body writes the table's rows and reports whether a row carries the
// significance marker.
func body(b *bytes.Buffer, tab analyses.Table, num []bool) (marked bool) {
	best := Best(tab)
	pCol, sigCol := significance(tab)
	for _, row := range tab.Rows {
		for j, c := range row {
			if j > 0 {
				b.WriteString(" & ")
			}
			star := j == pCol && row[sigCol] == true
			if bound, ok := estimateBound(c, tab.Resolution[tab.Columns[j]]); ok {
				// a Monte Carlo estimate of 0 or 1: a bound at its
				// resolution, as the pages print it
				b.WriteString(`\multicolumn{2}{c}{` + bound + `}`)
				continue
			}
			if num[j] {
				cell, starred := numericCell(c, best[j], star)
				b.WriteString(cell)
				marked = marked || starred
				continue
			}
			b.WriteString(textCell(c))
			if star {
				b.WriteString(`$^{*}$`)
				marked = true
			}
		}
		b.WriteString(" \\\\\n")
	}
	return marked
}

// estimateBound is a Monte Carlo estimate of resolution res (1/draws)
// that the draws cannot resolve, 0 or 1, as a bound in LaTeX ("$<$
// 2e-5"); ok is false for any other cell.
func estimateBound(c any, res float64) (string, bool) {
	p, isFloat := c.(float64)
	if !isFloat || !(res > 0) || !analyses.Finite(p) {
		return "", false
	}
	switch {
	case p < res:
		return `$<$\,` + analyses.ResolutionText(res), true
	case p > 1-res:
		return `$>$\,1$-$` + analyses.ResolutionText(res), true
	}
	return "", false
}

// numericCell is a cell of a numeric column: its two halves, the value
// in bold when tied with the column's best, the marker when star; a
// missing or non-finite value spans both halves as ---, without the
// marker (starred reports whether the cell carries it).
func numericCell(c any, best *float64, star bool) (cell string, starred bool) {
	var f float64
	switch x := c.(type) {
	case float64:
		f = x
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	default:
		return `\multicolumn{2}{c}{---}`, false
	}
	if !analyses.Finite(f) {
		return `\multicolumn{2}{c}{---}`, false
	}
	ip, fr := numberCell(f, best != nil && analyses.Tied(f, *best))
	if star {
		fr += `$^{*}$`
	}
	return ip + " & " + fr, star
}

// textCell writes a non-numeric cell as the page shows it.
func textCell(c any) string {
	switch x := c.(type) {
	case nil:
		return "---"
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case string:
		return Escape(x)
	case float64:
		if !analyses.Finite(x) {
			return "---"
		}
		return Number(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return Escape(fmt.Sprint(c))
}
