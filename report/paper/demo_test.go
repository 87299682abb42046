package paper_test

import (
	"context"
	"encoding/csv"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/evalbook/evalbook/figures/model"
	"github.com/evalbook/evalbook/report"
	"github.com/evalbook/evalbook/report/paper"
)

var (
	demoOnce sync.Once
	demoDir  string // the generated study
	demoSite string // its site, built in both formats
	demoErr  error
)

// builtDemo generates the demo study (as make demo does) and builds it
// once per test binary with --format latex (the site and paper/).
func builtDemo(t *testing.T) (study, site string) {
	t.Helper()
	if raceEnabled {
		t.Skip("the demo-sized tests run in the full pass, not under the race detector")
	}
	demoOnce.Do(func() {
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			demoErr = err
			return
		}
		if demoDir, demoErr = os.MkdirTemp("", "evalbook-paper-demo-"); demoErr != nil {
			return
		}
		cmd := exec.Command("go", "run", "./sites/demo/gen", demoDir, filepath.Join(root, "sites", "demo", "manifest.d"))
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			demoErr = err
			t.Logf("%s", out)
			return
		}
		demoSite = filepath.Join(demoDir, "site")
		_, demoErr = report.Build(context.Background(), report.Options{Manifest: filepath.Join(demoDir, "study.toml"), Out: demoSite, Exports: true,
			NoCache: true, Quiet: true, Version: "test", Format: "latex"})
	})
	if demoErr != nil {
		t.Fatalf("demo: %v", demoErr)
	}
	return demoDir, demoSite
}

func TestMain(m *testing.M) {
	code := m.Run()
	if demoDir != "" {
		os.RemoveAll(demoDir)
	}
	os.Exit(code)
}

// number matches a number as pdftotext shows a table cell: digits with
// an optional fraction (its digits captured), and an optional "× 10^n"
// exponent.
var number = regexp.MustCompile(`-?\d+(?:\.(\d+))?(?:\s*×\s*10\s*(-?\s*\d+))?`)

// shownNumber is a number of the PDF and half the unit of its last
// digit: the value it stands for is within that of it.
type shownNumber struct{ v, half float64 }

// shownColumns are the data columns a table's LaTeX shows, from its
// first line ("% id: written by evalbook from data/id.csv (columns a, b,
// c ×100); …"), each with the factor its numbers are shown multiplied by.
func shownColumns(t *testing.T, tex []byte) map[string]float64 {
	t.Helper()
	first, _, _ := strings.Cut(string(tex), "\n")
	_, list, ok := strings.Cut(first, "(columns ")
	list, _, ok2 := strings.Cut(list, ")")
	if !ok || !ok2 {
		t.Fatalf("no list of columns in %q", first)
	}
	cols := map[string]float64{}
	for _, c := range strings.Split(list, ", ") {
		name, scale, ok := strings.Cut(c, " ×")
		cols[name] = 1
		if ok {
			f, err := strconv.ParseFloat(scale, 64)
			if err != nil {
				t.Fatalf("column %q: %v", c, err)
			}
			cols[name] = f
		}
	}
	return cols
}

// TestDemoTablesCompile: every data/<table-id>.tex of the demo compiles
// with pdflatex in one document, and the PDF's text (pdftotext) of each
// table shows each number of the columns it shows (its first line lists
// them) of the table's CSV (the site's full-precision data file, written
// independently of the LaTeX) at the precision it is printed with (its
// column's one format); a p-value below 1e-15 is shown as that bound.
// The parts of a table split for the page carry its one number.
// With -short, the first 15 rows of each table are checked.
func TestDemoTablesCompile(t *testing.T) {
	needTeX(t)
	_, site := builtDemo(t)
	texs, err := filepath.Glob(filepath.Join(site, "data", "*.tex"))
	if err != nil || len(texs) < 20 {
		t.Fatalf("%d LaTeX tables in the demo site (%v)", len(texs), err)
	}
	dir := t.TempDir()
	var doc strings.Builder
	doc.WriteString("\\documentclass{article}\n\\usepackage{booktabs,longtable}\n\\usepackage[margin=1cm,paperwidth=150cm,paperheight=60cm]{geometry}\n\\begin{document}\n")
	var ids []string
	cols := map[string]map[string]float64{}
	for _, p := range texs {
		id := strings.TrimSuffix(filepath.Base(p), ".tex")
		ids = append(ids, id)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `\label{tab:`+id+`}`) || !strings.Contains(string(data), `\toprule`) {
			t.Errorf("%s: no \\label{tab:%s} or no booktabs rule", id, id)
		}
		cols[id] = shownColumns(t, data)
		os.WriteFile(filepath.Join(dir, id+".tex"), data, 0o644)
		// the marker after the table, on a page of its own: a float
		// placed at the top of a page is never before its marker
		doc.WriteString("\\input{" + id + "}\n\\clearpage\nEVALBOOKTABLE " + strings.ReplaceAll(id, "-", "X") + "\n\\clearpage\n")
	}
	doc.WriteString("\\end{document}\n")
	text := compileTeX(t, dir, doc.String())
	sections := map[string]string{}
	parts := strings.Split(text, "EVALBOOKTABLE ")
	body := parts[0] // the text before a marker is its table's
	for _, p := range parts[1:] {
		name, rest, _ := strings.Cut(p, "\n")
		sections[strings.ReplaceAll(strings.TrimSpace(name), "X", "-")] = body
		body = rest
	}
	// The parts of a table too wide for the page are one table: "Table
	// 7 (part 2 of 2)", never a Table 8 of their own.
	numbered, split := regexp.MustCompile(`Table (\d+):`), 0
	for id, body := range sections {
		nums := map[string]bool{}
		for _, m := range numbered.FindAllStringSubmatch(body, -1) {
			nums[m[1]] = true
		}
		if len(nums) > 1 {
			t.Errorf("%s: its parts are numbered as %d tables (%v)", id, len(nums), nums)
		}
		if strings.Contains(body, "part 2 of") {
			split++
		}
	}
	if split == 0 {
		t.Error("no table of the demo is split into parts: their numbering is not checked")
	}
	checked := 0
	for _, id := range ids {
		body, ok := sections[id]
		if !ok {
			t.Errorf("%s: not found in the PDF", id)
			continue
		}
		var shown []shownNumber
		for _, m := range number.FindAllStringSubmatch(body, -1) {
			s := strings.ReplaceAll(m[0], " ", "")
			v, err := strconv.ParseFloat(strings.Split(s, "×")[0], 64)
			if err != nil {
				continue
			}
			half := math.Pow(10, -float64(len(m[1]))) / 2
			if m[2] != "" {
				e, _ := strconv.Atoi(strings.ReplaceAll(m[2], " ", ""))
				v *= math.Pow(10, float64(e))
				half *= math.Pow(10, float64(e))
			}
			shown = append(shown, shownNumber{v, half})
		}
		f, err := os.Open(filepath.Join(site, "data", id+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatalf("%s.csv: %v", id, err)
		}
		for i, row := range rows[1:] {
			if testing.Short() && i >= 15 {
				break
			}
			for j, cell := range row {
				v, err := strconv.ParseFloat(cell, 64)
				scale := cols[id][rows[0][j]]
				if err != nil || math.IsInf(v, 0) || scale == 0 {
					continue
				}
				v *= scale
				name := rows[0][j]
				if rows[0][0] == "quantity" { // each row its own quantity
					name = row[0]
				}
				if model.IsPValueColumn(name) && v == 0 {
					continue // shown as the bound
				}
				if !shows(shown, v) {
					t.Errorf("%s row %d column %s: %v is not in the PDF", id, i+1, rows[0][j], v)
				}
				checked++
			}
		}
	}
	if checked < 500 {
		t.Errorf("only %d numbers checked", checked)
	}
}

// shows reports whether a shown number stands for v: v rounds to it.
func shows(shown []shownNumber, v float64) bool {
	for _, s := range shown {
		if math.Abs(s.v-v) <= s.half*(1+1e-9)+1e-15 {
			return true
		}
	}
	return false
}

// TestDemoPaperFormat: --format latex writes paper/ with every table of
// data/ (the same bytes) in tables/ (a float) or appendix/ (a longtable,
// never in tables/), the macros and the citation, and its example.tex —
// two columns, the longtables in a one-column appendix — compiles.
func TestDemoPaperFormat(t *testing.T) {
	needTeX(t)
	_, site := builtDemo(t)
	texs, _ := filepath.Glob(filepath.Join(site, "data", "*.tex"))
	inTables, _ := filepath.Glob(filepath.Join(site, "paper", "tables", "*.tex"))
	inAppendix, _ := filepath.Glob(filepath.Join(site, "paper", "appendix", "*.tex"))
	if len(texs) == 0 || len(texs) != len(inTables)+len(inAppendix) || len(inTables) < 20 {
		t.Fatalf("%d tables in data/, %d in paper/tables/, %d in paper/appendix/", len(texs), len(inTables), len(inAppendix))
	}
	for _, p := range texs {
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(site, "paper", "tables", filepath.Base(p)))
		if err != nil {
			b, err = os.ReadFile(filepath.Join(site, "paper", "appendix", filepath.Base(p)))
		}
		if err != nil || string(a) != string(b) {
			t.Errorf("paper/…/%s differs from data/ (%v)", filepath.Base(p), err)
		}
	}
	for _, p := range inTables {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), "longtable") {
			t.Errorf("paper/tables/%s is a longtable", filepath.Base(p))
		}
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(site, "paper"))); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "example.tex"))
	if err != nil {
		t.Fatal(err)
	}
	text := compileTeX(t, dir, string(src))
	if !strings.Contains(text, "Twelve Recommenders") {
		t.Errorf("the example's title is not in the PDF")
	}
	// Every figure fits its page: none is larger than the page (its last
	// rows and its caption would fall off the bottom), and each caption
	// is in the PDF.
	log, _ := os.ReadFile(filepath.Join(dir, "main.log"))
	lines := strings.Split(string(src), "\n")
	for _, m := range floatLineRe.FindAllStringSubmatch(string(log), -1) {
		n, _ := strconv.Atoi(m[1])
		fig := "?"
		for i := min(n, len(lines)) - 1; i >= 0; i-- {
			if strings.Contains(lines[i], "\\includegraphics") {
				fig = lines[i]
				break
			}
		}
		t.Errorf("example.tex line %s: %s (%s)", m[1], m[0], fig)
	}
	checkExampleCaptions(t, string(src), site)
	figs := strings.Count(string(src), "\\includegraphics")
	if got := len(captionRe.FindAllString(text, -1)); figs < 30 || got != figs {
		t.Errorf("example.tex includes %d figures; the PDF shows %d captions", figs, got)
	}
	// the recipe example.tex states (bibtex, then pdflatex) resolves its
	// citation of the study from citation.bib
	if !strings.Contains(string(src), "bibtex example") {
		t.Error("example.tex does not say to run bibtex")
	}
	bib := exec.Command("bibtex", "main")
	bib.Dir = dir
	if out, err := bib.CombinedOutput(); err != nil {
		t.Fatalf("bibtex: %v\n%s", err, out)
	}
	text = compileTeX(t, dir, string(src))
	if strings.Contains(text, "[?]") || !strings.Contains(text, "[1]") {
		t.Errorf("after bibtex the citation is not resolved: %q", text[:min(len(text), 300)])
	}
}

// floatLineRe is pdflatex's warning of a float larger than the page,
// with the line it was met on, and captionRe a figure's caption in the
// text of the PDF.
var (
	floatLineRe = regexp.MustCompile(`Float too large for page by [0-9.]+pt on input line (\d+)`)
	captionRe   = regexp.MustCompile(`(?m)^Figure \d+: `)
)

// checkExampleCaptions: each figure of example.tex carries the caption
// its page prints under it, not its title or id.
func checkExampleCaptions(t *testing.T, src, site string) {
	t.Helper()
	pages, _ := filepath.Glob(filepath.Join(site, "*.html"))
	htmlCaps := map[string]string{}
	figRe := regexp.MustCompile(`(?s)<figure class="figure" id="fig-([^"]+)".*?<figcaption><a class="num"[^>]*>Figure \d+\.</a> (.*?) <a class="dl"`)
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range figRe.FindAllStringSubmatch(string(b), -1) {
			htmlCaps[m[1]] = html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[2], ""))
		}
	}
	texRe := regexp.MustCompile(`\\caption\{(.*)\}\\label\{fig:([^}]+)\}`)
	checked := 0
	for _, m := range texRe.FindAllStringSubmatch(src, -1) {
		want, ok := htmlCaps[m[2]]
		if !ok {
			continue // a figure of the Explore page or a page not parsed
		}
		checked++
		if m[1] != paper.Escape(want) {
			t.Errorf("example.tex: figure %s is captioned %q; its page says %q", m[2], m[1], want)
		}
	}
	if checked < 20 {
		t.Errorf("only %d figure captions of example.tex checked against their pages", checked)
	}
}
