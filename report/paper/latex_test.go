package paper_test

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/report/paper"
)

// TestLaTeXSpecialCharacters: names holding every LaTeX special
// character compile with pdflatex, and pdftotext reads them back as
// written, with the table's numbers.
func TestLaTeXSpecialCharacters(t *testing.T) {
	needTeX(t)
	names := []string{`a_b`, `50% off`, `R&D`, `#1`, `$cost`, `{set}`, `~home`, `x^2`, `back\slash`, `<a|b>`, `Iman–Davenport ρ`}
	tab := analyses.Table{Title: `Scores of {odd} & "special" names_%`, Columns: []string{"method_name", "score", "rank"},
		Better: map[string]string{"score": "higher"}}
	for i, n := range names {
		tab.Rows = append(tab.Rows, []any{n, 0.5 + float64(i)/100, i + 1})
	}
	tex := paper.LaTeX(paper.Table{ID: "odd-names", Caption: tab.Title, Table: tab})
	dir := t.TempDir()
	text := compileTeX(t, dir, "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"+string(tex)+"\\end{document}\n")
	want := []string{`a_b`, `50% off`, `R&D`, `#1`, `$cost`, `{set}`, `~home`, `x^2`, `back\slash`, `<a|b>`, `Iman-Davenport ρ`,
		`method_name`, `Scores of {odd} & "special" names_%`}
	// OT1 fonts draw \_ as a rule, which pdftotext reads as a space or
	// nothing: compare without underscores and spaces.
	squeeze := strings.NewReplacer("_", "", " ", "", "\n", "").Replace
	for _, w := range want {
		if !strings.Contains(squeeze(text), squeeze(w)) {
			t.Errorf("the PDF does not show %q:\n%s", w, text)
		}
	}
	for i := range names {
		if s := paper.Number(0.5 + float64(i)/100); !strings.Contains(text, s) {
			t.Errorf("the PDF does not show the number %s", s)
		}
	}
	if !strings.Contains(string(tex), `\label{tab:odd-names}`) {
		t.Error("no \\label{tab:odd-names}")
	}
}

// TestLaTeXBestIsBoldWithTies: the best value of a column with a Better
// direction is bold, and so is every value tied with it under
// analyses.Tied (a last-bit difference from summing in another order);
// a value 1e-6 away is not.
func TestLaTeXBestIsBoldWithTies(t *testing.T) {
	best := 0.08490566037735849
	tab := analyses.Table{Columns: []string{"method", "mean", "error"}, Better: map[string]string{"mean": "higher", "error": "lower"},
		Rows: [][]any{
			{"A", best, 0.3},
			{"B", 0.08490566037735850, 0.2},  // tied with A (relative difference ~1e-16)
			{"C", best * (1 - 1e-6), 0.2},    // not tied
			{"D", nil, math.NaN()},           // missing
			{"E", 0.01, 0.20000000000000001}, // error tied with B and C
		}}
	tex := string(paper.LaTeX(paper.Table{ID: "t", Caption: "c", Table: tab}))
	rows := map[string]string{}
	for _, line := range strings.Split(tex, "\n") {
		if i := strings.Index(line, " & "); i > 0 {
			rows[line[:i]] = line
		}
	}
	bold := regexp.MustCompile(`\\textbf\{[^}]*\} & \\textbf\{[^}]*\}`)
	count := func(row string) int { return len(bold.FindAllString(rows[row], -1)) }
	for row, want := range map[string]int{"A": 1, "B": 2, "C": 1, "D": 0, "E": 1} {
		if got := count(row); got != want {
			t.Errorf("row %s: %d bold cells, want %d: %s", row, got, want, rows[row])
		}
	}
	if !strings.Contains(rows["D"], `\multicolumn{2}{c}{---}`) {
		t.Errorf("a missing value is not a dash: %s", rows["D"])
	}
}

// TestLaTeXSignificanceMarker: in a table that says which rows are
// significant, their Holm-corrected p carries $^{*}$ and a note explains
// it; the others do not.
func TestLaTeXSignificanceMarker(t *testing.T) {
	tab := analyses.Table{Columns: []string{"a", "b", "p", "p_holm", "significant"}, Rows: [][]any{
		{"X", "Y", 0.001, 0.003, true},
		{"X", "Z", 0.2, 0.4, false},
	}}
	tex := string(paper.LaTeX(paper.Table{ID: "pairs", Caption: "c", Table: tab}))
	if !strings.Contains(tex, `0 & .003$^{*}$`) || strings.Contains(tex, `.4$^{*}$`) || strings.Contains(tex, `.001$^{*}$`) {
		t.Errorf("markers:\n%s", tex)
	}
	if !strings.Contains(tex, `$^{*}$ significant`) {
		t.Errorf("no note explaining the marker:\n%s", tex)
	}
}

// TestNumberMatchesTheSite: Number prints four significant digits as the
// site's cells do; the printed value is within half a unit of the last
// digit of the full value.
func TestNumberMatchesTheSite(t *testing.T) {
	for _, x := range []float64{0.123456, -0.0123456, 12.3456, 1234.56, 123456.7, 1e-5 * 1.23456, 3, -7, 2.5e7 + 0.5, 0.99996} {
		s := paper.Number(x)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%v: %q does not parse", x, s)
		}
		unit := math.Pow(10, math.Floor(math.Log10(math.Abs(x)))-3)
		if math.Abs(v-x) > unit/2*(1+1e-9) {
			t.Errorf("paper.Number(%v) = %q: off by %v, more than half of %v", x, s, math.Abs(v-x), unit)
		}
	}
}

// TestLaTeXMonteCarloBound: a Bayesian probability of 0 of 50,000
// draws was written "0" in the LaTeX table, a certainty the draws cannot
// give. A column with a resolution (Table.Resolution) writes 0 and 1 as
// bounds at it, as the pages do; other values as numbers.
func TestLaTeXMonteCarloBound(t *testing.T) {
	tab := analyses.Table{Columns: []string{"a", "b", "p_left", "p_right"}, Rows: [][]any{
		{"X", "Y", 0.0, 1.0},
		{"X", "Z", 0.25, 0.75},
	}, Resolution: map[string]float64{"p_left": 1.0 / 50000, "p_right": 1.0 / 50000}}
	tex := string(paper.LaTeX(paper.Table{ID: "pairs", Caption: "c", Table: tab}))
	for _, want := range []string{`X & Y & \multicolumn{2}{c}{$<$\,2e-5} & \multicolumn{2}{c}{$>$\,1$-$2e-5} \\`, `X & Z & 0 & .25 & 0 & .75 \\`} {
		if !strings.Contains(tex, want) {
			t.Errorf("want %q in\n%s", want, tex)
		}
	}
}
