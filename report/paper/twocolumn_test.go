package paper_test

import (
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures/model"
)

// twoColumnClasses are the conference formats every table of
// paper/tables/ must fit: ACM's acmart (sigconf) and IEEEtran
// (conference), each with the files it needs beyond texlive-latex-*.
var twoColumnClasses = []struct {
	name, preamble string
	needs          []string
}{
	{"acmart sigconf", "\\documentclass[sigconf]{acmart}\n\\settopmatter{printacmref=false}\\setcopyright{none}\n",
		[]string{"acmart.cls", "xstring.sty", "totpages.sty", "environ.sty", "hyperxmp.sty", "manyfoot.sty", "comment.sty"}},
	{"IEEEtran conference", "\\documentclass[conference]{IEEEtran}\n\\usepackage{booktabs}\n",
		[]string{"IEEEtran.cls", "ptmr7t.tfm"}},
}

// needFiles skips a test when TeX lacks one of the files (failing
// under CI, where `make deps` installs them).
func needFiles(t *testing.T, files []string) {
	t.Helper()
	for _, f := range files {
		if out, err := exec.Command("kpsewhich", f).Output(); err != nil || len(strings.TrimSpace(string(out))) == 0 {
			msg := f + " not found: run `make deps` (Debian texlive-publishers, texlive-latex-extra, texlive-plain-generic, texlive-fonts-recommended)"
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

// overfullRe is an overfull box in pdflatex's log, and floatRe a float
// larger than the page.
var (
	overfullRe = regexp.MustCompile(`Overfull \\[hv]box \(([0-9.]+)pt too (?:wide|high)\)`)
	floatRe    = regexp.MustCompile(`Float too large`)
)

// TestDemoTablesTwoColumn: every table of the demo's paper/tables/, set
// in an ACM sigconf and an IEEE conference paper (two columns), compiles
// with no overfull box over 1 pt and no float larger than the page: a
// table is one column wide, or a table* across both, or split into
// parts that each fit. The log names the table of each fault.
func TestDemoTablesTwoColumn(t *testing.T) {
	needTeX(t)
	_, site := builtDemo(t)
	tables, _ := filepath.Glob(filepath.Join(site, "paper", "tables", "*.tex"))
	if len(tables) < 20 {
		t.Fatalf("%d tables in paper/tables/", len(tables))
	}
	for _, class := range twoColumnClasses {
		t.Run(class.name, func(t *testing.T) {
			needFiles(t, class.needs)
			dir := t.TempDir()
			var doc strings.Builder
			doc.WriteString(class.preamble + "\\begin{document}\n\\title{Tables}\n\\maketitle\n")
			for _, p := range tables {
				id := strings.TrimSuffix(filepath.Base(p), ".tex")
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(dir, id+".tex"), data, 0o644)
				doc.WriteString("\\typeout{EVALBOOKTABLE " + id + "}\n\\input{" + id + "}\nText beside the table.\n\\clearpage\n")
			}
			doc.WriteString("\\end{document}\n")
			os.WriteFile(filepath.Join(dir, "main.tex"), []byte(doc.String()), 0o644)
			cmd := exec.Command("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			log, _ := os.ReadFile(filepath.Join(dir, "main.log"))
			if err != nil {
				t.Fatalf("pdflatex: %v\n%s", err, tail(string(out), 3000))
			}
			current := "(before the first table)"
			for _, line := range strings.Split(string(log), "\n") {
				if id, ok := strings.CutPrefix(line, "EVALBOOKTABLE "); ok {
					current = id
				}
				if m := overfullRe.FindStringSubmatch(line); m != nil {
					if pt, _ := strconv.ParseFloat(m[1], 64); pt > 1 {
						t.Errorf("%s: %s", current, line)
					}
				}
				if floatRe.MatchString(line) {
					t.Errorf("%s: %s", current, line)
				}
			}
		})
	}
}

// Parts of a table's LaTeX the checks below read.
var (
	multicolRe = regexp.MustCompile(`\\multicolumn\{\d+\}\{[a-z]\}\{(.*)\}$`)
	nestedRe   = regexp.MustCompile(`\\begin\{tabular\}\[b\]\{@\{\}[lcr]@\{\}\}(.*)\\end\{tabular\}`)
	specRe     = regexp.MustCompile(`\\begin\{(?:tabular|longtable)\}\{([lr@{}]+)\}`)
	fracRe     = regexp.MustCompile(`^\.(\d+)`)
	pFixedRe   = regexp.MustCompile(`^0\.(\d+)`)
	styleRe    = regexp.MustCompile(`\\(?:textbf|underline)\{([^}]*)\}`)
)

// texTable is one tabular of a table's LaTeX: its column kinds, header
// cells and body rows (cells as written).
type texTable struct {
	kinds  []string // "l", "r" (a whole number) or "rl" (a decimal-point pair)
	header []string
	rows   [][]string
}

// parseTeXTables reads the tabulars (or longtables) of a table's LaTeX.
func parseTeXTables(t *testing.T, name, tex string) []texTable {
	t.Helper()
	var out []texTable
	for _, chunk := range strings.Split(tex, `\toprule`)[1:] {
		before := tex[:strings.Index(tex, chunk)]
		specs := specRe.FindAllStringSubmatch(before, -1)
		if len(specs) == 0 {
			t.Fatalf("%s: no column specification", name)
		}
		var tt texTable
		for s := specs[len(specs)-1][1]; s != ""; {
			if strings.HasPrefix(s, "r@{}l") {
				tt.kinds, s = append(tt.kinds, "rl"), s[5:]
			} else {
				tt.kinds, s = append(tt.kinds, s[:1]), s[1:]
			}
		}
		head, rest, _ := strings.Cut(chunk, `\midrule`)
		for _, c := range strings.Split(strings.TrimSuffix(strings.TrimSpace(head), `\\`), " & ") {
			c = strings.TrimSpace(c)
			if m := multicolRe.FindStringSubmatch(c); m != nil {
				c = m[1]
			}
			if m := nestedRe.FindStringSubmatch(c); m != nil {
				c = strings.ReplaceAll(m[1], ` \\ `, " ")
			}
			tt.header = append(tt.header, c)
		}
		if strings.Contains(rest, `\endlastfoot`) {
			_, rest, _ = strings.Cut(rest, `\endlastfoot`)
		} else if strings.Contains(rest, `\endfirsthead`) {
			continue // the repeated head of a longtable
		}
		body, _, _ := strings.Cut(rest, `\bottomrule`)
		body, _, _ = strings.Cut(body, `\end{longtable}`)
		for _, line := range strings.Split(body, "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasSuffix(line, `\\`) {
				continue
			}
			var cells []string
			for _, c := range strings.Split(strings.TrimSuffix(line, ` \\`), " & ") {
				cells = append(cells, c)
				if strings.HasPrefix(c, `\multicolumn{2}`) {
					cells = append(cells, "") // it spans a decimal-point pair
				}
			}
			tt.rows = append(tt.rows, cells)
		}
		out = append(out, tt)
	}
	return out
}

// TestDemoTablesCameraReady: every table of the demo's paper/tables/
// and paper/appendix/ is one an author pastes unchanged: its headers are
// labels (no id that has a label, no escaped underscore of an id), each
// numeric column is printed with one precision (the same decimals in
// every row; e-notation only for values too small for them), a column
// (but in a table of named quantities, where each row is its own
// quantity) has at most one bold cell and a tie is never bold, every mark used is
// explained in the table's note; the leaderboard's bold cell is the one
// method ranked 1 under a rule and a shared rank 1 is marked tied; a
// paired-test table marks exactly the rows its CSV calls significant.
func TestDemoTablesCameraReady(t *testing.T) {
	_, site := builtDemo(t)
	var files []string
	for _, dir := range []string{"tables", "appendix"} {
		f, _ := filepath.Glob(filepath.Join(site, "paper", dir, "*.tex"))
		files = append(files, f...)
	}
	if len(files) < 40 {
		t.Fatalf("%d tables in paper/", len(files))
	}
	for _, p := range files {
		id := strings.TrimSuffix(filepath.Base(p), ".tex")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		tex := string(data)
		csvRows := readCSV(t, filepath.Join(site, "data", id+".csv"))
		ids := map[string]bool{}
		for _, c := range csvRows[0] {
			if model.ColumnLabel(c, analyses.Naming{}) != c {
				ids[c] = true
			}
		}
		body := tex
		if i := strings.Index(tex, `\par`); i > 0 {
			body = tex[:i]
		}
		for _, tt := range parseTeXTables(t, id, tex) {
			for _, h := range tt.header {
				if strings.Contains(h, `\_`) || ids[h] {
					t.Errorf("%s: header %q is an id, not a label", id, h)
				}
			}
			for k, kind := range tt.kinds {
				col := k
				for kk := 0; kk < k; kk++ {
					if tt.kinds[kk] == "rl" {
						col++
					}
				}
				decimals, sig, bold := map[int]bool{}, map[int]bool{}, 0
				for _, r := range tt.rows {
					if col >= len(r) {
						t.Fatalf("%s: row %q has too few cells", id, r)
					}
					cell := r[col]
					if kind == "rl" {
						cell = r[col+1]
					}
					if strings.Contains(r[col], `\textbf`) {
						bold++
						if strings.Contains(cell, `$^{=}$`) {
							t.Errorf("%s: a tie is bold: %q", id, strings.Join(r, " & "))
						}
					}
					plain := styleRe.ReplaceAllString(cell, "$1")
					if strings.Contains(plain, `\times`) || strings.Contains(r[col], "---") {
						continue
					}
					switch kind {
					case "rl":
						if m := fracRe.FindStringSubmatch(plain); m != nil {
							decimals[len(m[1])] = true
							sig[significantDigits(styleRe.ReplaceAllString(r[col], "$1")+m[1])] = true
						} else if strings.TrimSpace(plain) == "" || strings.HasPrefix(plain, `$^`) || strings.HasPrefix(plain, `\,`) {
							decimals[0] = true
						}
					case "r":
						if m := pFixedRe.FindStringSubmatch(plain); m != nil {
							decimals[len(m[1])] = true
						}
					}
				}
				// a table of named quantities has each row its own precision,
				// and so has a column of rows on scales of their own (four
				// significant digits in every cell)
				if len(decimals) > 1 && tt.header[0] != "Quantity" && !(len(sig) == 1 && sig[4]) {
					t.Errorf("%s: column %d (%s) is printed with %d precisions %v", id, k+1, tt.header[k], len(decimals), decimals)
				}
				if bold > 1 {
					t.Errorf("%s: column %d (%s) has %d bold cells", id, k+1, tt.header[k], bold)
				}
			}
		}
		for mark, note := range map[string]string{`\textbf{`: "Bold: best", `\underline{`: `\underline{underlined}: second`,
			`$^{=}$`: `$^{=}$: tied for the best`, `$^{*}$`: `$^{*}$ significant at`, `\,(`: "(d/n)", "---": "--- no value"} {
			if strings.Contains(body, mark) && !strings.Contains(tex, note) {
				t.Errorf("%s: %s is used but not explained (no %q)", id, mark, note)
			}
		}
	}
	checkLeaderboard(t, site)
	checkSignificant(t, site, "paired-users")
}

// readCSV reads a data file.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// checkLeaderboard: under each rule of paper/tables/leaderboard.tex the
// one method the CSV ranks 1 is bold, methods sharing rank 1 are marked
// tied and none bold.
func checkLeaderboard(t *testing.T, site string) {
	tex, err := os.ReadFile(filepath.Join(site, "paper", "tables", "leaderboard.tex"))
	if err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(site, "data", "leaderboard.csv"))
	cols := shownColumnsList(t, tex)
	tabs := parseTeXTables(t, "leaderboard", string(tex))
	if len(tabs) != 1 || len(tabs[0].rows) != len(rows)-1 {
		t.Fatalf("leaderboard.tex: %d tabulars, want one of %d rows", len(tabs), len(rows)-1)
	}
	checked := 0
	for k, c := range cols[1:] {
		j := indexOf(rows[0], c)
		var first []int
		for i, r := range rows[1:] {
			if v, _ := strconv.ParseFloat(r[j], 64); v == 1 {
				first = append(first, i)
			}
		}
		for i, r := range tabs[0].rows {
			cell := r[1+2*k] + " & " + r[2+2*k]
			isFirst := indexOfInt(first, i) >= 0
			bold, tied := strings.Contains(cell, `\textbf`), strings.Contains(cell, `$^{=}$`)
			if want := isFirst && len(first) == 1; bold != want {
				t.Errorf("leaderboard.tex, %s, %s: bold %v, want %v (%s)", c, rows[i+1][0], bold, want, cell)
			}
			if want := isFirst && len(first) > 1; tied != want {
				t.Errorf("leaderboard.tex, %s, %s: tied %v, want %v (%s)", c, rows[i+1][0], tied, want, cell)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Errorf("only %d leaderboard cells checked", checked)
	}
}

// checkSignificant: the rows of a paired-test table the CSV calls
// significant, and only those, carry the mark.
func checkSignificant(t *testing.T, site, id string) {
	tex, err := os.ReadFile(filepath.Join(site, "paper", "tables", id+".tex"))
	if err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(site, "data", id+".csv"))
	tabs := parseTeXTables(t, id, string(tex))
	sig := indexOf(rows[0], "significant")
	if len(tabs) == 0 || sig < 0 || len(tabs[0].rows) != len(rows)-1 {
		t.Fatalf("%s: no rows to check", id)
	}
	marked := 0
	for i, r := range tabs[0].rows {
		has := strings.Contains(strings.Join(r, " & "), `$^{*}$`)
		if want := rows[i+1][sig] == "true"; has != want {
			t.Errorf("%s row %d: marked %v, significant %v", id, i+1, has, want)
		}
		if has {
			marked++
		}
	}
	if marked == 0 {
		t.Errorf("%s: no significant row to check the mark on", id)
	}
}

// shownColumnsList is shownColumns in order.
func shownColumnsList(t *testing.T, tex []byte) []string {
	first, _, _ := strings.Cut(string(tex), "\n")
	_, list, _ := strings.Cut(first, "(columns ")
	list, _, _ = strings.Cut(list, ")")
	return strings.Split(list, ", ")
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}

func indexOfInt(s []int, x int) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}

// significantDigits counts the significant digits of a number's digits
// ("$-$0" and "0672" are 672: 3).
func significantDigits(s string) int {
	n := 0
	for _, c := range s {
		if c >= '0' && c <= '9' && (n > 0 || c != '0') {
			n++
		}
	}
	return n
}
