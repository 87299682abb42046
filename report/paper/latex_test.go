package paper_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures/model"
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
	tex := paper.LaTeX(model.NewTable(analyses.Table{Name: "names", Title: tab.Title, Columns: tab.Columns, Rows: tab.Rows, Better: tab.Better}, "odd", model.TableOptions{}))
	dir := t.TempDir()
	text := compileTeX(t, dir, "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"+string(tex)+"\\end{document}\n")
	want := []string{`a_b`, `50% off`, `R&D`, `#1`, `$cost`, `{set}`, `~home`, `x^2`, `back\slash`, `<a|b>`, `Iman-Davenport ρ`,
		`Method name`, `Scores of {odd} & "special" names_%`}
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
// direction is bold when it is alone and the second underlined; values
// tied with the best under analyses.Tied (a last-bit difference from
// summing in another order) are marked $^{=}$ and none is bold, since a
// tie is no win (nor is any cell second then); a value 1e-6 away is not
// tied.
func TestLaTeXBestIsBoldWithTies(t *testing.T) {
	best := 0.08490566037735849
	tab := analyses.Table{Columns: []string{"method", "mean", "error", "recall"},
		Better: map[string]string{"mean": "higher", "error": "lower", "recall": "higher"},
		Rows: [][]any{
			{"A", best, 0.3, 0.5},
			{"B", 0.08490566037735850, 0.1, 0.4},  // mean tied with A (relative difference ~1e-16)
			{"C", best * (1 - 1e-6), 0.2, 0.3},    // not tied
			{"D", nil, math.NaN(), nil},           // missing
			{"E", 0.01, 0.10000000000000001, 0.1}, // error tied with B
		}}
	tex := string(paper.LaTeX(model.NewTable(tab, "t", model.TableOptions{})))
	rows := map[string]string{}
	for _, line := range strings.Split(tex, "\n") {
		if i := strings.Index(line, " & "); i > 0 {
			rows[line[:i]] = line
		}
	}
	for row, want := range map[string][3]int{"A": {1, 0, 1}, "B": {0, 1, 2}, "C": {0, 0, 0}, "D": {0, 0, 0}, "E": {0, 0, 1}} {
		got := [3]int{strings.Count(rows[row], `\textbf{`) / 2, strings.Count(rows[row], `\underline{`) / 2, strings.Count(rows[row], `$^{=}$`)}
		if got != want {
			t.Errorf("row %s: %d bold, %d underlined, %d tied cells, want %v: %s", row, got[0], got[1], got[2], want, rows[row])
		}
	}
	if !strings.Contains(rows["D"], `\multicolumn{2}{c}{---}`) {
		t.Errorf("a missing value is not a dash: %s", rows["D"])
	}
	if !strings.Contains(tex, `$^{=}$: tied for the best`) || !strings.Contains(tex, `\underline{underlined}: second`) {
		t.Errorf("the marks are not explained:\n%s", tex)
	}
}

// TestLaTeXSignificanceMarker: in a table that says which rows are
// significant, their Holm-corrected p carries $^{*}$ and a note explains
// it at the analysis's level; the others do not, and the significant
// column itself is left out of the paper.
func TestLaTeXSignificanceMarker(t *testing.T) {
	tab := analyses.Table{Columns: []string{"a", "b", "p", "p_holm", "significant"}, Rows: [][]any{
		{"X", "Y", 0.001, 0.003, true},
		{"X", "Z", 0.2, 0.4, false},
	}}
	tex := string(paper.LaTeX(model.NewTable(tab, "pairs", model.TableOptions{Alpha: 0.05})))
	if !strings.Contains(tex, `0.0030$^{*}$`) || strings.Contains(tex, `0.4000$^{*}$`) || strings.Contains(tex, `0.0010$^{*}$`) {
		t.Errorf("markers:\n%s", tex)
	}
	if !strings.Contains(tex, `$^{*}$ significant at $\alpha$ = 0.05 (p (Holm))`) {
		t.Errorf("no note explaining the marker:\n%s", tex)
	}
	if strings.Contains(tex, "Significant") {
		t.Errorf("the significant column is in the paper view:\n%s", tex)
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
	// significant zeros are kept, as the key findings keep them; a value
	// that fewer digits write exactly is written so
	for x, want := range map[float64]string{0.0419996: "0.04200", 0.042: "0.042", 2.5: "2.5", 0.99996: "1.000"} {
		if got := paper.Number(x); got != want {
			t.Errorf("paper.Number(%v) = %q, want %q", x, got, want)
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
	tex := string(paper.LaTeX(model.NewTable(tab, "pairs", model.TableOptions{})))
	for _, want := range []string{`$<$2$\times 10^{-5}$`, `$>1-$2$\times 10^{-5}$`, "0.2500", "0.7500"} {
		if !strings.Contains(tex, want) {
			t.Errorf("want %q in\n%s", want, tex)
		}
	}
	for _, bad := range []string{"& 0 &", "& 0 \\\\", "& 1 \\\\"} {
		if strings.Contains(tex, bad) {
			t.Errorf("a Monte Carlo 0 or 1 written as a number (%q) in\n%s", bad, tex)
		}
	}
}

// Prose ties relations to what they relate and writes a number's minus
// as a minus sign; a hyphen inside a name stays one.
func TestProse(t *testing.T) {
	for in, want := range map[string]string{
		"(M = -0.45, 95% CI [-1.2, 0.3], p < 0.001)": `(M~=~$-$0.45, 95\% CI [$-$1.2, 0.3], p~\textless{}~0.001)`,
		"C4.5-m+cf = x-1 and -2":                     `C4.5-m+cf~=~x-1 and $-$2`,
		"-3 ≥ -4":                                    `$-$3~$\ge$~$-$4`,
	} {
		if got := paper.Prose(in); got != want {
			t.Errorf("Prose(%q) = %q, want %q", in, got, want)
		}
	}
}
