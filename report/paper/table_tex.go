package paper

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/evalbook/evalbook/figures/model"
)

// Where a table's LaTeX goes in paper/: floats in tables/, longtables
// (a one-column appendix's) in appendix/.
const (
	DirTables   = "tables"
	DirAppendix = "appendix"
)

// TableDir is the folder of paper/ a table's LaTeX goes to.
func TableDir(t *model.Table) string {
	if t.Paper.Placement == model.PlaceAppendix {
		return DirAppendix
	}
	return DirTables
}

// LaTeX writes a table's paper view (model.Table.Paper): booktabs
// rules, \footnotesize, headers that are labels with units (in two lines
// when long), numbers aligned on the decimal point (an r@{}l column pair,
// no package beyond booktabs), each column at its one precision, the best
// cell bold and the second underlined, cells tied for the best marked
// $^{=}$ (not bold: a tie is no win), a significant p-value $^{*}$, and a
// table note that explains every mark used. A table that fits one column
// is a table float, a wider one a table* across both columns (split
// into parts, the keys repeated, when it is wider still), and a table of
// more than model.FloatRows rows a longtable for a one-column
// appendix. The caption says what the table shows; the first part is
// \label{tab:<id>}, the others tab:<id>-2, tab:<id>-3 ….
func LaTeX(t *model.Table) []byte {
	var b bytes.Buffer
	long := t.Paper.Placement == model.PlaceAppendix
	var ids []string
	for _, part := range t.Paper.Parts {
		for _, j := range part {
			c := t.Columns[j]
			if c.Scale != 0 {
				ids = append(ids, c.ID+" ×"+strconv.FormatFloat(c.Scale, 'g', -1, 64)) // a share in percent
				continue
			}
			ids = append(ids, c.ID)
			if c.HighID != "" && c.Role == model.RoleInterval {
				ids = append(ids, c.HighID)
			}
		}
	}
	fmt.Fprintf(&b, "%% %s: written by evalbook from data/%s.csv (columns %s); needs \\usepackage{booktabs}", t.ID, t.ID, strings.Join(dedupe(ids), ", "))
	if long {
		b.WriteString(" and \\usepackage{longtable}, in a one-column appendix")
	}
	b.WriteString("\n")
	for k, part := range t.Paper.Parts {
		notes := tableNotes(t, part)
		label := "tab:" + t.ID
		if k > 0 {
			label += "-" + strconv.Itoa(k+1)
		}
		caption := Escape(t.Caption)
		if len(t.Paper.Parts) > 1 {
			caption = fmt.Sprintf("%s (part %d of %d)", Escape(t.Caption), k+1, len(t.Paper.Parts))
		}
		again := "" // every part is the one table: "Table 3 (part 2 of 2)", not a Table 4
		if k > 0 {
			again = "\\addtocounter{table}{-1}"
		}
		spec, head := columnSpec(t, part), header(t, part)
		if long {
			fmt.Fprintf(&b, "{\\footnotesize\\setlength{\\tabcolsep}{4pt}%s\n\\begin{longtable}{%s}\n\\caption{%s}\\label{%s} \\\\\n\\toprule\n%s\n\\midrule\n\\endfirsthead\n\\toprule\n%s\n\\midrule\n\\endhead\n\\bottomrule\n\\endlastfoot\n",
				again, spec, caption, label, head, head)
			body(&b, t, part)
			b.WriteString("\\end{longtable}\n")
			if notes != "" {
				fmt.Fprintf(&b, "\\noindent %s\\par\n", notes)
			}
			b.WriteString("}\n")
			continue
		}
		env := "table"
		if t.Paper.Placement == model.PlaceWide && !(k < len(t.Paper.Narrow) && t.Paper.Narrow[k]) {
			env = "table*"
		}
		fmt.Fprintf(&b, "\\begin{%s}[tbp]\n\\centering\\footnotesize\\setlength{\\tabcolsep}{4pt}%s\n\\caption{%s}\\label{%s}\n\\begin{tabular}{%s}\n\\toprule\n%s\n\\midrule\n", env, again, caption, label, spec, head)
		body(&b, t, part)
		b.WriteString("\\bottomrule\n\\end{tabular}\n")
		if notes != "" {
			fmt.Fprintf(&b, "\\par\\smallskip\\parbox{\\linewidth}{\\raggedright\\scriptsize %s}\n", notes)
		}
		fmt.Fprintf(&b, "\\end{%s}\n", env)
	}
	return b.Bytes()
}

// dedupe keeps the first of each string.
func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// tableNotes is the note under one part of a table: what each mark used
// in it means, the omitted columns and where the rest is.
func tableNotes(t *model.Table, part []int) string {
	has := func(f func(model.Cell) bool) bool {
		for _, r := range t.Rows {
			for _, j := range part {
				if f(r[j]) {
					return true
				}
			}
		}
		return false
	}
	mark := func(m model.CellMark) bool { return has(func(c model.Cell) bool { return c.Mark == m }) }
	var n, marks []string
	if mark(model.MarkBest) {
		marks = append(marks, "bold: best in its column")
	}
	if mark(model.MarkSecond) {
		marks = append(marks, "\\underline{underlined}: second")
	}
	if mark(model.MarkTied) {
		marks = append(marks, "$^{=}$: tied for the best (no single best)")
	}
	if len(marks) > 0 {
		s := strings.Join(marks, "; ")
		n = append(n, strings.ToUpper(s[:1])+s[1:]+".")
	}
	if t.SigNote != "" && has(func(c model.Cell) bool { return c.Sig }) {
		n = append(n, "$^{*}$ "+Escape(strings.TrimPrefix(t.SigNote, "* ")))
	}
	if t.CountNote != "" && has(model.Cell.Partial) {
		n = append(n, "("+Escape(t.CountNote[:3])+")"+Escape(t.CountNote[3:]))
	}
	if t.UndefinedNote != "" && has(func(c model.Cell) bool { return c.Undefined != "" }) {
		n = append(n, Escape(t.UndefinedNote))
	}
	if t.RankNote != "" {
		n = append(n, Escape(t.RankNote))
	}
	if len(t.Paper.Omitted) > 0 {
		n = append(n, Escape("Not shown here: "+strings.Join(t.Paper.Omitted, ", ")+" (in data/"+t.ID+".csv)."))
	}
	return strings.Join(n, " ")
}

// columnSpec is the tabular's column specification: an r@{}l pair per
// numeric column (aligned on the decimal point), l otherwise.
func columnSpec(t *model.Table, part []int) string {
	var spec strings.Builder
	for _, j := range part {
		if whole(t.Columns[j]) {
			spec.WriteString("r")
		} else if t.Columns[j].Numeric() {
			spec.WriteString("r@{}l")
		} else {
			spec.WriteString("l")
		}
	}
	return spec.String()
}

// header is the table's header row: each column's label with its unit,
// in two lines when long; a numeric column's spans its two cells.
func header(t *model.Table, part []int) string {
	var head strings.Builder
	for k, j := range part {
		if k > 0 {
			head.WriteString(" & ")
		}
		c := t.Columns[j]
		lines := model.HeaderLines(t, j)
		esc := make([]string, len(lines))
		for i, l := range lines {
			esc[i] = Escape(l)
		}
		align := "l"
		if whole(c) {
			align = "r"
		} else if c.Numeric() {
			align = "c"
		}
		h := esc[0]
		if len(esc) > 1 {
			h = `\begin{tabular}[b]{@{}` + align + `@{}}` + strings.Join(esc, ` \\ `) + `\end{tabular}`
		}
		if c.Numeric() && !whole(c) {
			head.WriteString(`\multicolumn{2}{c}{` + h + `}`)
		} else {
			head.WriteString(h)
		}
	}
	head.WriteString(` \\`)
	return head.String()
}

// body writes the table's rows.
func body(b *bytes.Buffer, t *model.Table, part []int) {
	for _, row := range t.Rows {
		for k, j := range part {
			if k > 0 {
				b.WriteString(" & ")
			}
			c := row[j]
			if whole(t.Columns[j]) {
				b.WriteString(wholeCell(c))
			} else if t.Columns[j].Numeric() {
				b.WriteString(numericCell(c))
			} else if t.Columns[j].Role == model.RoleInterval {
				b.WriteString(texCell(intervalTeX(c.Text), c))
			} else {
				b.WriteString(texCell(Escape(c.Text), c))
			}
		}
		b.WriteString(" \\\\\n")
	}
}

// intervalTeX is an interval cell's "[lo, hi]" in LaTeX, each bound as
// the tables' other numbers are set: a math minus, and e-notation as
// ×10^{e} ("[2.38e-04, 7.23e-04]" of τ²'s interval). Other text ("—")
// is escaped.
func intervalTeX(s string) string {
	inner, ok := strings.CutPrefix(s, "[")
	inner, ok2 := strings.CutSuffix(inner, "]")
	lo, hi, ok3 := strings.Cut(inner, ", ")
	if !ok || !ok2 || !ok3 {
		return strings.ReplaceAll(Escape(s), "-", "$-$")
	}
	bound := func(x string) string {
		ip, fr := splitNumber(x)
		return ip + fr
	}
	return "[" + bound(lo) + ", " + bound(hi) + "]"
}

// whole reports whether a numeric column is set right-aligned in one
// cell rather than on the decimal point: p-values, whose forms (0.0114,
// 5.6×10^{-8}, <10^{-15}) share no decimal point worth aligning.
func whole(c model.Column) bool { return c.Role == model.RolePValue && c.Numeric() }

// wholeCell is a cell of a whole column with its marks.
func wholeCell(c model.Cell) string {
	if !c.Num {
		return "---"
	}
	ip, fr := splitNumber(c.Text)
	return style(ip+fr, c) + marks(c)
}

// numericCell is a cell of a numeric column: its two halves (the
// integer part; the decimal point, fraction and exponent) with its marks;
// a cell without a value spans both as ---.
func numericCell(c model.Cell) string {
	if !c.Num {
		return `\multicolumn{2}{c}{---}`
	}
	ip, fr := splitNumber(c.Text)
	ip, fr = style(ip, c), style(fr, c)
	return ip + " & " + fr + marks(c)
}

// texCell is a text cell with its style and marks.
func texCell(s string, c model.Cell) string {
	if c.Undefined != "" {
		return "---"
	}
	return style(s, c) + marks(c)
}

// style sets a cell's text bold (best) or underlined (second).
func style(s string, c model.Cell) string {
	if s == "" {
		return s
	}
	switch c.Mark {
	case model.MarkBest:
		return `\textbf{` + s + `}`
	case model.MarkSecond:
		return `\underline{` + s + `}`
	}
	return s
}

// marks are a cell's superscripts (tie, significance) and its count of
// defined values.
func marks(c model.Cell) string {
	var s string
	if c.Mark == model.MarkTied {
		s += `$^{=}$`
	}
	if c.Sig {
		s += `$^{*}$`
	}
	if c.Partial() {
		s += `\,(` + c.CountText() + `)`
	}
	return s
}

// splitNumber splits a formatted number ("0.1197", "-3.2e-07", "< 1e-15",
// "12") into LaTeX for the two cells of an r@{}l pair.
func splitNumber(s string) (intPart, frac string) {
	if rest, ok := strings.CutPrefix(s, "< "); ok { // a bound: a p-value's underflow, a Monte Carlo resolution
		return bound("<", rest)
	}
	if rest, ok := strings.CutPrefix(s, "> 1 − "); ok {
		return bound(">1-", rest)
	}
	mant, exp := splitExp(s)
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	intPart, frac = mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i:]
	}
	if exp != "" {
		frac += `$\times 10^{` + exp + `}$`
	}
	if neg {
		intPart = "$-$" + intPart
	}
	return intPart, frac
}

// bound is a bound "<" or ">1-" a number ("1e-300", "2e-5", "0.001") in
// math mode, as the two cells of an r@{}l pair.
func bound(rel, num string) (intPart, frac string) {
	m, e := splitExp(num)
	switch {
	case e == "":
		return `$` + rel + `$` + m, ""
	case m == "1":
		return `$` + rel + `10^{` + e + `}$`, ""
	}
	return `$` + rel + `$` + m, `$\times 10^{` + e + `}$`
}

// splitExp splits "3.2e-07" into "3.2" and "-7".
func splitExp(s string) (mant, exp string) {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return s, ""
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return s, ""
	}
	return s[:i], strconv.Itoa(n)
}
