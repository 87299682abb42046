package report

import (
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestNotesParse: every embedded note parses (a broken template fails
// here, not in a user's build).
func TestNotesParse(t *testing.T) {
	if _, err := kinds.ParseNotes(); err != nil {
		t.Fatal(err)
	}
}

// TestNotesMatchKinds: every registered kind has notes/<type>.md, and
// every notes file belongs to a kind.
func TestNotesMatchKinds(t *testing.T) {
	files, err := fs.Glob(kinds.NotesFS, "notes/*")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range files {
		have[path.Base(f)] = true
	}
	reg := kinds.Kinds()
	for _, typ := range reg.Types() {
		if !have[typ+".md"] {
			t.Errorf("kind %s has no notes/%s.md", typ, typ)
		}
	}
	var stray []string
	for f := range have {
		if _, ok := reg[strings.TrimSuffix(f, ".md")]; !ok || !strings.HasSuffix(f, ".md") {
			stray = append(stray, f)
		}
	}
	sort.Strings(stray)
	if len(stray) > 0 {
		t.Errorf("notes files of no kind: %s", strings.Join(stray, ", "))
	}
	// Sub-templates share one namespace: each is named <type>/<name>.
	set, err := kinds.ParseNotes()
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range set.Templates() {
		name := tm.Name()
		typ, _, sub := strings.Cut(name, "/")
		if name == "notes" || (!sub && have[name]) {
			continue
		}
		if _, ok := reg[typ]; !ok || !sub {
			t.Errorf("template %q: a note's sub-template is named <type>/<name>", name)
		}
	}
}

// TestDemoNotes checks the pages of the demo study's build (builtDemo).
func TestDemoNotes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the whole demo study")
	}
	t.Parallel()
	study, site := builtDemo(t)
	t.Run("execute", func(t *testing.T) { testNotesExecuteOnDemo(t, study, site) })
	t.Run("cite-papers", func(t *testing.T) { testPagesCitePapersNotSpec(t, site) })
}

// testNotesExecuteOnDemo: the demo study has an analysis of every kind,
// and each analysis page carries its executed method note. (A note that
// fails to execute fails the build: methodNote's panic becomes the
// analysis's error.)
func testNotesExecuteOnDemo(t *testing.T, study *manifest.Study, site string) {
	seen := map[string]bool{}
	for _, a := range study.Analyses {
		seen[a.Type] = true
		for _, page := range []string{a.ID + ".md", a.ID + ".html"} {
			b, err := os.ReadFile(filepath.Join(site, page))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), "Method</h2>") && !strings.Contains(string(b), "## Method\n\n") {
				t.Errorf("%s (%s) has no method note", page, a.Type)
			}
			if strings.Contains(string(b), "{{") || strings.Contains(string(b), "<no value>") {
				t.Errorf("%s (%s): template syntax or <no value> on the page", page, a.Type)
			}
		}
	}
	for _, typ := range kinds.Kinds().Types() {
		if !seen[typ] {
			t.Errorf("the demo has no %s analysis: its method note is not executed by this test", typ)
		}
	}
}

// testPagesCitePapersNotSpec: no published page (HTML, Markdown, the search
// index) points readers at documents they have never seen — the project's
// internal specification, its sections, or its numbered seed papers. Papers
// are cited by author and year, and a § is a section of such a paper: a
// year comes just before it ("Košir et al. 2013, §2.2").
func testPagesCitePapersNotSpec(t *testing.T, site string) {
	banned := regexp.MustCompile(`\bSPEC\b|(?i:\bseed 0|\bthe spec\b|\bseed(?:'|&#39;)s\b)`)
	section := regexp.MustCompile(`§\s*\d`)
	year := regexp.MustCompile(`\b(?:19|20)\d\d\b`)
	pages := 0
	err := filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name, _ := filepath.Rel(site, p)
		if ext := path.Ext(p); ext != ".html" && ext != ".md" && name != filepath.Join("assets", "search.js") {
			return nil
		}
		pages++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := string(b)
		for _, m := range banned.FindAllStringIndex(s, -1) {
			t.Errorf("%s: %q", name, excerpt(s, m[0], m[1]))
		}
		for _, m := range section.FindAllStringIndex(s, -1) {
			before := []rune(s[:m[0]])
			if !year.MatchString(string(before[max(0, len(before)-12):])) {
				t.Errorf("%s: a § without a paper's year before it: %q", name, excerpt(s, m[0], m[1]))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages < 20 {
		t.Errorf("only %d pages checked", pages)
	}
}

func excerpt(s string, i, j int) string {
	return s[max(0, i-60):min(len(s), j+60)]
}
