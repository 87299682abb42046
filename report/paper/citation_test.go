package paper_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report"
	"github.com/evalbook/evalbook/report/paper"
)

var hostile = paper.Study{
	Title: `Ranking 100% of {RecSys} & "friends" #1_x`, Subtitle: "a ~ companion ^ site", Date: "2025-03-07",
	DOI: "10.1000/abc_def", License: "CC-BY-4.0", Abstract: "Line one:\nline \"two\" \\ three.",
	Authors: []string{"Zoë O'Brien", "J. van der Berg"}, Links: map[string]string{"code": "https://example.org/a?b=c&d=%20", "paper": "https://example.org/p#x"},
}

// cffFields reads the scalar fields and author names of CITATION.cff as
// written (every value a double-quoted YAML scalar, which is JSON).
func cffFields(t *testing.T, cff []byte) (map[string]string, []string) {
	t.Helper()
	fields := map[string]string{}
	var authors []string
	for _, l := range strings.Split(string(cff), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- ")), ": ")
		if !ok {
			continue
		}
		var s string
		if strings.HasPrefix(v, `"`) {
			if err := json.Unmarshal([]byte(v), &s); err != nil {
				t.Fatalf("CITATION.cff line %q: value is not a quoted scalar: %v", l, err)
			}
		} else {
			s = v
		}
		if k == "name" {
			authors = append(authors, s)
		} else if !strings.HasPrefix(l, " ") {
			fields[k] = s
		}
	}
	return fields, authors
}

// TestCFF: CITATION.cff holds the manifest's title, authors, date, DOI,
// license and links exactly, whatever characters they hold.
func TestCFF(t *testing.T) {
	f, authors := cffFields(t, paper.CFF(hostile))
	for k, want := range map[string]string{"cff-version": "1.2.0", "type": "dataset", "title": hostile.Title, "date-released": "2025-03-07",
		"doi": hostile.DOI, "license": "CC-BY-4.0", "repository-code": hostile.Links["code"], "url": hostile.Links["paper"],
		"abstract": `Line one: line "two" \ three.`} {
		if f[k] != want {
			t.Errorf("%s: %q, want %q", k, f[k], want)
		}
	}
	if strings.Join(authors, "|") != strings.Join(hostile.Authors, "|") {
		t.Errorf("authors %q", authors)
	}
	odd := hostile
	odd.Date = "spring 2025"
	if f, _ := cffFields(t, paper.CFF(odd)); f["date-released"] != "" {
		t.Errorf("a date CFF cannot hold was written as %q", f["date-released"])
	}
}

// TestBibTeXCompiles: citation.bib of a study with LaTeX's special
// characters in every field goes through bibtex and pdflatex, and the
// reference list shows the title and authors.
func TestBibTeXCompiles(t *testing.T) {
	needTeX(t)
	if _, err := exec.LookPath("bibtex"); err != nil {
		t.Skip("bibtex not found")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "citation.bib"), paper.BibTeX(hostile), 0o644)
	key := paper.BibKey(hostile)
	if key != "obrien2025ranking" {
		t.Errorf("key %q", key)
	}
	doc := "\\documentclass{article}\n\\begin{document}\nSee \\cite{" + key + "}.\n\\bibliographystyle{plain}\n\\bibliography{citation}\n\\end{document}\n"
	os.WriteFile(filepath.Join(dir, "main.tex"), []byte(doc), 0o644)
	run := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
	}
	run("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex")
	run("bibtex", "main")
	if blg, _ := os.ReadFile(filepath.Join(dir, "main.blg")); strings.Contains(string(blg), "error message") {
		t.Fatalf("bibtex:\n%s", blg)
	}
	text := compileTeX(t, dir, doc)
	squeeze := strings.NewReplacer(" ", "", "\n", "", "_", "", "-", "", "’", "'").Replace
	for _, want := range []string{`Ranking 100% of {RecSys} & "friends" #1_x`, "a ~ companion ^ site", "O'Brien", "J. van der Berg", "2025"} {
		if !strings.Contains(squeeze(text), squeeze(want)) {
			t.Errorf("the reference list does not show %q:\n%s", want, text)
		}
	}
}

// TestDemoCitation: the demo site's CITATION.cff and citation.bib carry
// the demo manifest's title, authors, date and DOI.
func TestDemoCitation(t *testing.T) {
	study, site := builtDemo(t)
	s, err := report.LoadStudy(filepath.Join(study, "study.toml"), report.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	cff, err := os.ReadFile(filepath.Join(site, "CITATION.cff"))
	if err != nil {
		t.Fatal(err)
	}
	f, authors := cffFields(t, cff)
	if f["title"] != s.Title || f["doi"] != s.DOI || f["date-released"] != s.Date || f["license"] != s.License ||
		strings.Join(authors, "|") != strings.Join(s.Authors, "|") {
		t.Errorf("CITATION.cff %v %q does not match the manifest", f, authors)
	}
	bib, err := os.ReadFile(filepath.Join(site, "citation.bib"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"doi = {" + s.DOI + "}", "year = {" + s.Date[:4] + "}", s.Authors[0]} {
		if !strings.Contains(string(bib), want) {
			t.Errorf("citation.bib has no %q", want)
		}
	}
}
