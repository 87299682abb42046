package site

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// renderModel is a site of one analysis (docResult) and one page that
// cites a number of it and a paper; no file of it exists on disk.
func renderModel(page string) Model {
	r := newDocResult(0.125)
	return Model{
		Study: Study{Title: "Pure", Manifest: "study.toml", Abstract: "Score {{value lb score %.2f}}."},
		Pages: []Page{{Title: "Findings", Slug: "findings", Source: "no/such/dir/findings.md", Markdown: []byte(page)}},
		Bibliography: map[string]*BibEntry{"doe20": {Key: "doe20", Type: "article",
			Fields: map[string]string{"author": "Doe, Jane and Roe, Rick", "year": "2020", "title": "On scores"}}},
		Analyses:       []Analysis{*docAnalysis(r)},
		ProvenanceJSON: []byte("{}\n"),
		Options:        Options{Format: "both"},
	}
}

// TestRenderFromModel: the site is rendered from the model alone (the
// page's source path does not exist): {{value}} reads the analysis's
// document, citations the model's bibliography, and data/<id>.json is
// the document's bytes.
func TestRenderFromModel(t *testing.T) {
	t.Parallel()
	m := renderModel("# Findings\n\nThe score is {{value lb score %.3f}}, at {{value lb rows[method=B].v %.1f}} [@doe20].\n")
	files, err := Render(m)
	if err != nil {
		t.Fatal(err)
	}
	page := string(files["findings.html"])
	for _, want := range []string{`title="lb score">0.125</span>`, `title="lb rows[method=B].v">1.0</span>`,
		`<a class="cite" href="#ref-doe20">Doe &amp; Roe 2020</a>`, "On scores"} {
		if !strings.Contains(page, want) {
			t.Errorf("findings.html lacks %s", want)
		}
	}
	if md := string(files["findings.md"]); !strings.Contains(md, "The score is 0.125, at 1.0 ([Doe &amp; Roe 2020](#ref-doe20))") {
		t.Errorf("findings.md:\n%s", md)
	}
	if !strings.Contains(string(files["index.html"]), `title="lb score">0.12</span>`) {
		t.Error("the abstract's value is missing")
	}
	doc, _, err := analysisDoc(&m.Analyses[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(files["data/lb.json"], writeDoc(doc)) || !bytes.Equal(files["data/provenance.json"], m.ProvenanceJSON) {
		t.Error("data files differ from the model's documents")
	}
}

// TestRenderPageErrors: a broken directive or citation is an error at
// the page's path (as the manifest writes it) and line.
func TestRenderPageErrors(t *testing.T) {
	t.Parallel()
	_, err := Render(renderModel("# Findings\n\n{{value lb scor}}\n\n[@nobody]\n"))
	for _, want := range []string{
		`no/such/dir/findings.md:3: {{value lb scor}}: lb has no key "scor" (did you mean "score"?)`,
		`no/such/dir/findings.md:5: [@nobody]: no bibliography entry "nobody"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v\nwant %s", err, want)
		}
	}
}

// TestRenderCheck: rendered for validate (Options.Check), the site has
// the same files, every page byte for byte, and a broken directive is
// the same error; only the data files' bytes (CSV, JSON, chart scripts)
// are left unmade.
func TestRenderCheck(t *testing.T) {
	t.Parallel()
	m := renderModel("# Findings\n\nThe score is {{value lb score %.3f}} [@doe20].\n")
	full, err := Render(m)
	if err != nil {
		t.Fatal(err)
	}
	m.Options.Check = true
	check, err := Render(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(check) != len(full) {
		t.Errorf("checked: %d files, built: %d", len(check), len(full))
	}
	skipped := 0
	for name, b := range full {
		c, ok := check[name]
		switch {
		case !ok:
			t.Errorf("checked: no %s", name)
		case strings.HasPrefix(name, "data/") && name != "data/provenance.json":
			if len(c) != 0 {
				t.Errorf("checked: %s was made (%d bytes)", name, len(c))
			}
			skipped++
		case !bytes.Equal(c, b):
			t.Errorf("checked: %s differs from the build's", name)
		}
	}
	if skipped == 0 {
		t.Error("no data file in the model: the test checks nothing")
	}
	m.Pages[0].Markdown = []byte("{{value lb nosuch %.3f}}\n")
	_, errCheck := Render(m)
	m.Options.Check = false
	_, errFull := Render(m)
	if errCheck == nil || errFull == nil || errCheck.Error() != errFull.Error() {
		t.Errorf("a broken directive: checked %v, built %v", errCheck, errFull)
	}
}

// shownResult is docResult with a table whose column prints its numbers
// with fewer digits than four significant ones.
type shownResult struct{ *docResult }

func (r shownResult) Tables() []analyses.Table {
	return []analyses.Table{{Name: "main", Title: "Main", Columns: []string{"method", "v"},
		Rows: [][]any{{"A", 0.001234567}, {"B", 0.5}, {"C", 0.25}}}}
}

// TestValueReadsAsItsTable: {{value}} without a format prints a number
// a table of the analysis shows as that table prints it, in the page and
// the Markdown; a number no table shows keeps four significant digits,
// and a format the author gives wins.
func TestValueReadsAsItsTable(t *testing.T) {
	t.Parallel()
	m := renderModel("# Findings\n\nA {{value lb tables.lb-main[method=A].v}}, {{value lb tables.lb-main[method=A].v %.5f}}; score {{value lb score}}.\n")
	r := shownResult{newDocResult(0.123456)}
	m.Analyses[0] = *docAnalysis(r)
	files, err := Render(m)
	if err != nil {
		t.Fatal(err)
	}
	cell := regexp.MustCompile(`<td[^>]*title="0.001234567"[^>]*>([^<]*)</td>`).FindStringSubmatch(string(files["lb.html"]))
	if cell == nil || cell[1] == "0.001235" {
		t.Fatalf("the table's cell of 0.001234567: %q (want one that is not four significant digits)", cell)
	}
	t.Logf("the table prints 0.001234567 as %s", cell[1])
	page, md := string(files["findings.html"]), string(files["findings.md"])
	for _, want := range []string{`title="lb tables.lb-main[method=A].v">` + cell[1] + `</span>`, `">0.00123</span>`, `title="lb score">0.1235</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("findings.html lacks %s", want)
		}
	}
	if want := "A " + cell[1] + ", 0.00123; score 0.1235."; !strings.Contains(md, want) {
		t.Errorf("findings.md lacks %q:\n%s", want, md)
	}
}
