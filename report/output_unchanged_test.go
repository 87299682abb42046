package report

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/report/input"
)

// TestRebuildThatChangesNothingWritesNothing: a build whose site is
// already on disk, byte for byte, leaves every file of it as it is (the
// same inode and modification time); a site changed behind the build's
// back in any way a reader could see (a byte of a page, a page removed,
// a page made private, a directory turned into a link to a copy) is
// written anew, as are permissions taken away, a page given another name
// elsewhere (a hard link through which it could change) and a retired
// site's name left inside; a changed input is built as always.
func TestRebuildThatChangesNothingWritesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	manifest := writeTiny(t, dir)
	site := filepath.Join(dir, "site")
	build := func() {
		t.Helper()
		if _, err := Build(context.Background(), Options{Manifest: manifest, Out: site, Quiet: true, Version: "test", NoCache: true}); err != nil {
			t.Fatal(err)
		}
	}
	stamps := func() map[string]input.FileStamp {
		m := map[string]input.FileStamp{}
		filepath.WalkDir(site, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			m[p], _ = input.Stamp(p) // size, times, inode
			return nil
		})
		return m
	}
	build()
	want := tree(t, site)
	before := stamps()
	build()
	if after := stamps(); !reflect.DeepEqual(after, before) {
		t.Errorf("a rebuild that changed nothing wrote the site again")
	}
	index := filepath.Join(site, "index.html")
	page, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	for name, plant := range map[string]func(){
		"a byte of a page": func() {
			b := append([]byte(nil), page...)
			b[len(b)/2] ^= 1
			os.WriteFile(index, b, 0o644)
		},
		"a page removed":      func() { os.Remove(index) },
		"a page made private": func() { os.Chmod(index, 0o600) },
		"the whole site made private": func() {
			filepath.WalkDir(site, func(p string, d os.DirEntry, err error) error {
				if err == nil && p != site {
					os.Chmod(p, map[bool]os.FileMode{true: 0o700, false: 0o600}[d.IsDir()])
				}
				return err
			})
		},
		"a page hard-linked from elsewhere": func() {
			if err := os.Link(index, filepath.Join(dir, "index-backup.html")); err != nil {
				t.Fatal(err)
			}
		},
		"a retired site's name left inside": func() {
			os.WriteFile(filepath.Join(site, retiredBy), []byte("site.old-1\n"), 0o644)
		},
		"a directory turned into a link to a copy": func() {
			data := filepath.Join(site, "data")
			copyDir := filepath.Join(dir, "data-copy")
			if err := os.CopyFS(copyDir, os.DirFS(data)); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(data)
			if err := os.Symlink(copyDir, data); err != nil {
				t.Fatal(err)
			}
		},
	} {
		plant()
		build()
		if got := tree(t, site); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the rebuild did not write the site anew:\n got %v\nwant %v", name, analyses.SortedKeys(got), analyses.SortedKeys(want))
		}
		umask, ok := input.Umask()
		filepath.WalkDir(site, func(p string, d os.DirEntry, err error) error {
			if err != nil || p == site {
				return err
			}
			st, err := os.Lstat(p)
			if err != nil {
				return err
			}
			want := 0o644 &^ umask
			if st.IsDir() {
				want = 0o755 &^ umask
			}
			if ok && st.Mode().Perm() != want {
				t.Errorf("%s: %s is %v after the rebuild, want %v", name, p, st.Mode().Perm(), want)
			}
			if ok && !st.IsDir() && !input.SingleLink(st) {
				t.Errorf("%s: %s still has another name after the rebuild", name, p)
			}
			return nil
		})
	}
	// An input changed: built as always.
	res := filepath.Join(dir, "data", "results.csv")
	b, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(res, append(b, []byte("d3,A,m,5\nd3,B,m,4\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	build()
	if got := tree(t, site); reflect.DeepEqual(got, want) {
		t.Error("a rebuild after an input changed left the site as it was")
	}
}
