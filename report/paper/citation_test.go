package paper_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/input/bib"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
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
	s, err := manifest.LoadStudy(filepath.Join(study, "study.toml"), kinds.Kinds())
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

// unTeX undoes, on a field as bib.Parse returns it (braces
// removed, \& \% \_ undone, space collapsed), the escapes BibTeX's writer
// uses, so a value can be compared with the manifest's.
var unTeX = strings.NewReplacer(`\textbraceleft`, "{", `\textbraceright`, "}", `\textbackslash`, `\`, `\$`, "$", `\#`, "#",
	`\textasciitilde`, "~", `\textasciicircum`, "^", `\textless`, "<", `\textgreater`, ">", `\textbar`, "|")

// TestBibTeXHoldsHostileValues: a manifest value could end its BibTeX
// field and add others: doi = "10.1/z}, publisher = {Evil" gave
// url = {https://doi.org/10.1/z}, publisher = {Evil}, and Escape's \}
// does not protect a brace from BibTeX, so the doi and title fields were
// unbalanced. Each row goes through citation.bib and back through the
// project's BibTeX parser: the entry has exactly the fields written, each
// holding the manifest's value.
func TestBibTeXHoldsHostileValues(t *testing.T) {
	rows := []paper.Study{
		{Title: "T", Date: "2024-01-02", DOI: "10.1/z}, publisher = {Evil"},
		{Title: "A } title, note = {x", Authors: []string{"Ann }, editor = {Evil", "Bob {"}, DOI: "10.1/a"},
		{Title: `Back\slash {open`, DOI: `10.1/x\}`, License: "MIT}, howpublished = {x"},
		{Title: "T", Links: map[string]string{"paper": "https://example.org/p}, publisher = {Evil"}},
		{Title: "T", Links: map[string]string{"paper": "https://example.org/a b\\c{d"}},
		{Title: "Percent 100%, #1 & co", DOI: "10.1/a%b#c?d"},
	}
	for i, s := range rows {
		text := string(paper.BibTeX(s))
		entries, err := bib.Parse("citation.bib", text)
		if err != nil {
			t.Errorf("row %d: citation.bib does not parse: %v\n%s", i, err, text)
			continue
		}
		e := entries[paper.BibKey(s)]
		if e == nil || len(entries) != 1 {
			t.Errorf("row %d: want one entry %s, got %v\n%s", i, paper.BibKey(s), entries, text)
			continue
		}
		want := map[string]string{"title": s.Title}
		if len(s.Authors) > 0 {
			want["author"] = strings.Join(s.Authors, " and ")
		}
		if s.Date != "" {
			want["year"], want["month"] = s.Date[:4], "1"
		}
		if s.DOI != "" {
			want["doi"] = s.DOI
			want["url"] = ""
		}
		if s.License != "" {
			want["note"] = "License: " + s.License
		}
		if s.Links["paper"] != "" {
			want["url"] = ""
		}
		for k := range e.Fields {
			if _, ok := want[k]; !ok {
				t.Errorf("row %d: a value added the field %s = %q\n%s", i, k, e.Fields[k], text)
			}
		}
		for k, v := range want {
			got, ok := e.Fields[k]
			switch {
			case !ok:
				t.Errorf("row %d: no field %s\n%s", i, k, text)
			case k == "url":
				if strings.ContainsAny(got, "{}\\ ") {
					t.Errorf("row %d: url %q holds a brace, backslash or space", i, got)
				}
			case unTeX.Replace(got) != strings.Join(strings.Fields(v), " "):
				t.Errorf("row %d: %s = %q, want %q\n%s", i, k, unTeX.Replace(got), v, text)
			}
		}
	}
	// The url is the DOI's, percent-encoded.
	if text := string(paper.BibTeX(rows[0])); !strings.Contains(text, "url = {https://doi.org/10.1/z%7D%2C%20publisher%20=%20%7BEvil},") {
		t.Errorf("the DOI's url:\n%s", text)
	}
	if text := string(paper.BibTeX(rows[5])); !strings.Contains(text, "url = {https://doi.org/10.1/a%25b%23c%3Fd},") {
		t.Errorf("the DOI's url:\n%s", text)
	}
}

// TestCFFHoldsHostileValues: CITATION.cff's values are JSON strings,
// which YAML 1.2 reads, but JSON leaves DEL, the C1 controls (NEL, a line
// break to YAML 1.1) and U+FFFE raw, which YAML may not hold. Every
// value reads back as written, and no line holds such a character.
func TestCFFHoldsHostileValues(t *testing.T) {
	s := paper.Study{Title: "A\u0085B\u007fC\u2028D\ufffeE: F # G", Authors: []string{"x\"}\\\n- name: evil"}, DOI: "10.1/a\u0085",
		Links: map[string]string{"paper": "https://e.org/\u0085x"}}
	cff := paper.CFF(s)
	for _, r := range string(cff) {
		if r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0xfffe || r == 0x2028 {
			t.Errorf("CITATION.cff holds %U raw:\n%s", r, cff)
		}
	}
	f, authors := cffFields(t, cff)
	if f["title"] != s.Title || f["doi"] != s.DOI || f["url"] != s.Links["paper"] {
		t.Errorf("title %q doi %q url %q", f["title"], f["doi"], f["url"])
	}
	if len(authors) != 1 || authors[0] != s.Authors[0] {
		t.Errorf("authors %q", authors)
	}
}

// TestBibTeXInjectionCompiles: citation.bib of a study whose title,
// author, DOI and license would each close their field (a brace, then
// ", publisher = {") goes through bibtex and pdflatex, and the reference
// list shows every value as written, braces included.
func TestBibTeXInjectionCompiles(t *testing.T) {
	needTeX(t)
	if _, err := exec.LookPath("bibtex"); err != nil {
		t.Skip("bibtex not found")
	}
	s := paper.Study{Title: `A } title, note = {x \ back {open`, Authors: []string{"Ann }, editor = {Evil"}, Date: "2024-01-02",
		DOI: "10.1/z}, publisher = {Evil", License: "MIT}, howpublished = {y"}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "citation.bib"), paper.BibTeX(s), 0o644)
	doc := "\\documentclass{article}\n\\begin{document}\nSee \\cite{" + paper.BibKey(s) + "}.\n\\bibliographystyle{plain}\n\\bibliography{citation}\n\\end{document}\n"
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
	if blg, _ := os.ReadFile(filepath.Join(dir, "main.blg")); strings.Contains(string(blg), "error message") || strings.Contains(string(blg), "Warning--") && strings.Contains(string(blg), "publisher") {
		t.Fatalf("bibtex:\n%s", blg)
	}
	text := compileTeX(t, dir, doc)
	squeeze := strings.NewReplacer(" ", "", "\n", "").Replace
	for _, want := range []string{s.Title, s.Authors[0], "License: " + s.License} {
		if !strings.Contains(squeeze(text), squeeze(want)) {
			t.Errorf("the reference list does not show %q:\n%s", want, text)
		}
	}
}
