package report

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/evalbook/evalbook/report/input"
)

// TestResolverResolvesAsResolvePath: the resolver checkOutput uses, which
// remembers directories, gives every path the locations input.ResolvePath
// gives it, through links to directories and files, relative and
// absolute, chained, dangling, to a missing place, and paths that do
// not exist yet; a directory replaced by a link between two checks is
// followed by a new resolver.
func TestResolverResolvesAsResolvePath(t *testing.T) {
	root := t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := func(p string) {
		if err := os.WriteFile(filepath.Join(root, p), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(dest, p string) {
		if err := os.Symlink(dest, filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	mk("study/runs")
	mk("elsewhere/deep")
	file("study/runs/a.csv")
	file("study/runs/b.csv")
	file("elsewhere/deep/c.csv")
	link("../elsewhere/deep", "study/linked")     // relative, to a directory
	link(filepath.Join(root, "elsewhere"), "abs") // absolute, to a directory
	link("runs/a.csv", "study/a-link.csv")        // to a file
	link("a-link.csv", "study/chain.csv")         // to a link to a file
	link("missing/site", "study/dangling")        // to a missing place
	link("linked", "study/linked2")               // to a link to a directory
	oracle := func(p string) []string {           // locations before the resolver, from input.ResolvePath alone
		abs, err := filepath.Abs(p)
		if err != nil {
			return []string{p}
		}
		r, err := input.ResolvePath(abs)
		if err != nil {
			r = abs
		}
		out := []string{r}
		if parent, err := input.ResolvePath(filepath.Dir(abs)); err == nil {
			if l := filepath.Join(parent, filepath.Base(abs)); l != r {
				out = append(out, l)
			}
		}
		return out
	}
	paths := []string{
		"study", "study/runs", "study/runs/a.csv", "study/runs/b.csv", "study/runs/none.csv",
		"study/linked", "study/linked/c.csv", "study/linked2/c.csv", "abs/deep/c.csv", "abs/deep",
		"study/a-link.csv", "study/chain.csv", "study/dangling", "study/dangling/index.html",
		"study/new/dir/file", "study/runs/../runs/a.csv", "/", root,
	}
	r := newResolver()
	for round := range 2 { // the second round from what the first remembered
		for _, p := range paths {
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			if got, want := locationsVia(r, p), oracle(p); !slices.Equal(got, want) {
				t.Errorf("round %d: locations(%s) = %q, input.ResolvePath gives %q", round, p, got, want)
			}
		}
	}
	// study/runs becomes a link: a new check sees it.
	if err := os.Rename(filepath.Join(root, "study/runs"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	link("../moved", "study/runs")
	fresh := newResolver()
	p := filepath.Join(root, "study/runs/a.csv")
	if got, want := locationsVia(fresh, p), oracle(p); !slices.Equal(got, want) || got[0] != filepath.Join(root, "moved/a.csv") {
		t.Errorf("after study/runs became a link: locations = %q, want %q (in moved/)", got, want)
	}
}
