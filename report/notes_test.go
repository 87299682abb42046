package report

import (
	"io/fs"
	"path"
	"sort"
	"strings"
	"testing"
)

// TestNotesParse: every embedded note parses (a broken template fails
// here, not in a user's build).
func TestNotesParse(t *testing.T) {
	if _, err := parseNotes(); err != nil {
		t.Fatal(err)
	}
}

// TestNotesMatchKinds: every registered kind has notes/<type>.md, and
// every notes file belongs to a kind.
func TestNotesMatchKinds(t *testing.T) {
	files, err := fs.Glob(notesFS, "notes/*")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range files {
		have[path.Base(f)] = true
	}
	kinds := Kinds()
	for _, typ := range kinds.Types() {
		if !have[typ+".md"] {
			t.Errorf("kind %s has no notes/%s.md", typ, typ)
		}
	}
	var stray []string
	for f := range have {
		if _, ok := kinds[strings.TrimSuffix(f, ".md")]; !ok || !strings.HasSuffix(f, ".md") {
			stray = append(stray, f)
		}
	}
	sort.Strings(stray)
	if len(stray) > 0 {
		t.Errorf("notes files of no kind: %s", strings.Join(stray, ", "))
	}
	// Sub-templates share one namespace: each is named <type>/<name>.
	set, err := parseNotes()
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range set.Templates() {
		name := tm.Name()
		typ, _, sub := strings.Cut(name, "/")
		if name == "notes" || (!sub && have[name]) {
			continue
		}
		if _, ok := kinds[typ]; !ok || !sub {
			t.Errorf("template %q: a note's sub-template is named <type>/<name>", name)
		}
	}
}
