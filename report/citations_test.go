package report

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// Issue 33's house rule, kept by a test: the code, its messages, the docs
// and the README cite papers by author and year. A reader has never seen
// the project's internal specification or its numbered seed papers, so no
// text file of the repository may point at them, and a § is a section of a
// paper: a year comes just before it ("Košir et al. 2013, §2.2").

// refsExemptUntilFiguresMerge lists the path prefixes (slash separated,
// from the repository root) left out of TestTextCitesPapersNotSpec while
// another branch rewrites them. The lead empties it when that branch is
// merged; the test logs what the exemption hides meanwhile.
var refsExemptUntilFiguresMerge = []string{}

var (
	// refsBanned: the specification by name or by its short name with an
	// article (a figure's spec's columns are fine), a seed paper by number
	// (in prose or in an identifier) or by possessive, a section of one.
	refsBanned  = regexp.MustCompile(`\bSPEC\b|(?i:\bseed ?0\d\d|\bseed ?§|\bthe spec\b(?:[^'’]|$)|\bseed(?:'|’|&#39;)s\b)`)
	refsSection = regexp.MustCompile(`§\s*\d`)
	refsYear    = regexp.MustCompile(`\b(?:19|20)\d\d\b`)
)

// refsTextExt are the extensions of the text files a contributor reads:
// source, docs, manifests, templates, styles and scripts.
var refsTextExt = map[string]bool{
	".go": true, ".md": true, ".toml": true, ".html": true, ".tmpl": true, ".js": true, ".css": true,
	".py": true, ".R": true, ".sh": true, ".txt": true, ".golden": true, ".yml": true, ".yaml": true,
}

// refsChecked reports whether the file at rel (slash separated) is a text
// file the rule covers, given its first bytes: by extension, Makefiles and
// extension-less scripts (#!). Minified bundles and data under testdata
// (trec_eval runs and qrels) are not prose.
func refsChecked(rel string, head []byte) bool {
	base := path.Base(rel)
	ext := path.Ext(base)
	switch {
	case strings.HasSuffix(base, ".min.js"):
		return false
	case ext == ".txt" && strings.Contains("/"+rel, "/testdata/"):
		return false
	case refsTextExt[ext], base == "Makefile":
		return true
	case ext == "":
		return bytes.HasPrefix(head, []byte("#!"))
	}
	return false
}

// repoTextFiles lists the repository's tracked files (git ls-files), or,
// without git, every file under root outside hidden directories other
// than .ci, node_modules and the generated themes/assets.
func repoTextFiles(t *testing.T, root string) []string {
	t.Helper()
	if out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output(); err == nil && len(out) > 0 {
		var files []string
		for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			files = append(files, filepath.ToSlash(f))
		}
		return files
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			return nil // node_modules is a link to a shared folder
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci" || d.Name() == "node_modules" || rel == "themes/assets") {
				return filepath.SkipDir
			}
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// refsFindings returns "file:line: …" for every internal reference in
// text (a file's content, named rel).
func refsFindings(rel, text string) []string {
	type finding struct {
		at  int
		msg string
	}
	var found []finding
	at := func(i int, why string) {
		start := strings.LastIndexByte(text[:i], '\n') + 1
		end := strings.IndexByte(text[i:], '\n')
		if end < 0 {
			end = len(text) - i
		}
		line := strings.TrimSpace(text[start : i+end])
		found = append(found, finding{i, fmt.Sprintf("%s:%d: %s%q", rel, strings.Count(text[:i], "\n")+1, why, line)})
	}
	for _, m := range refsBanned.FindAllStringIndex(text, -1) {
		at(m[0], "")
	}
	for _, m := range refsSection.FindAllStringIndex(text, -1) {
		before := []rune(text[:m[0]])
		if !refsYear.MatchString(string(before[max(0, len(before)-12):])) {
			at(m[0], "a § without a paper's year before it: ")
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].at < found[j].at })
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.msg
	}
	return out
}

// TestTextCitesPapersNotSpec walks every tracked text file of the
// repository (Go including tests, Markdown, TOML, templates, JS, CSS,
// Makefile, scripts, golden pages) and fails naming file:line for each
// reference to the internal specification or a numbered seed paper.
func TestTextCitesPapersNotSpec(t *testing.T) {
	t.Parallel()
	skipUnderRace(t, "reads the repository's text files")
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var bad, exempt []string
	checked := 0
	for _, rel := range repoTextFiles(t, root) {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) {
			continue // tracked but deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		if !refsChecked(rel, b[:min(len(b), 2)]) {
			continue
		}
		checked++
		found := refsFindings(rel, string(b))
		if hasAnyPrefix(rel, refsExemptUntilFiguresMerge) {
			exempt = append(exempt, found...)
			continue
		}
		bad = append(bad, found...)
	}
	if checked < 300 {
		t.Errorf("only %d text files checked: the walk missed the repository", checked)
	}
	if len(bad) > 0 {
		t.Errorf("%d references to the internal specification or a numbered seed paper; cite the paper by author and year (Shevchenko et al. 2024, §4.4), or say what is meant:\n%s",
			len(bad), strings.Join(bad, "\n"))
	}
	if len(exempt) > 0 {
		t.Logf("exempt until the figures branch is merged (refsExemptUntilFiguresMerge), %d:\n%s", len(exempt), strings.Join(exempt, "\n"))
	}
}

// hasAnyPrefix reports whether s starts with one of prefixes.
func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// TestRefsFindingsCatchEachForm checks the patterns on one line of each
// form the rule bans, and on the forms it allows.
func TestRefsFindingsCatchEachForm(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		"// as SP" + "EC §" + "5.6 says", "see SP" + "EC.md", "(seed" + " 001 §" + "4.4)", "bench-seed" + "000",
		"as the see" + "d's code", "the " + "spec says", "rules of §" + "5.1", "(seed" + " §" + "4.2.3)",
	} {
		if got := refsFindings("x.go", bad); len(got) == 0 {
			t.Errorf("%q: not caught", bad)
		} else if !strings.HasPrefix(got[0], "x.go:1: ") {
			t.Errorf("%q: %q does not name file:line", bad, got[0])
		}
	}
	for _, ok := range []string{
		"(Shevchenko et al. 2024, §4.4)", "Košir et al.\n// (2013, §2.2)", "Demšar 2006 §3.2.2",
		"the spec's columns", "seed = 42", "derived from the analysis seed", "a figure spec",
	} {
		if got := refsFindings("x.go", ok); len(got) > 0 {
			t.Errorf("%q: caught %v", ok, got)
		}
	}
}
