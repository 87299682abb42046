package report

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
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

// TestRebuildLinksUnchangedFiles: a rebuild after an input changed
// writes the files that changed and keeps the others (the same inode,
// now of one name again): the site is byte for byte a fresh build's.
// A file that is not the build's own as it stands — a second name
// elsewhere, other permissions, a byte changed in place, behind a
// directory turned into a link to a copy — is written anew, and the
// user's other name or copy is left as it was, of one name.
func TestRebuildLinksUnchangedFiles(t *testing.T) {
	t.Parallel()
	if _, ok := input.Umask(); !ok {
		t.Skip("no umask to read here: every file is written anew")
	}
	dir := t.TempDir()
	manifest := writeTiny(t, dir)
	build := func(out string) {
		t.Helper()
		if _, err := Build(context.Background(), Options{Manifest: manifest, Out: out, Quiet: true, Version: "test", NoCache: true}); err != nil {
			t.Fatal(err)
		}
	}
	site, fresh := filepath.Join(dir, "site"), filepath.Join(dir, "fresh")
	build(site)
	before := tree(t, site)
	res := filepath.Join(dir, "data", "results.csv")
	r, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(res, append(r, []byte("d3,A,m,5\nd3,B,m,4\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	build(fresh)
	want := tree(t, fresh)
	infos := map[string]os.FileInfo{}
	var same []string // unchanged by the input's change, outside assets/
	for _, rel := range analyses.SortedKeys(before) {
		st, err := os.Lstat(filepath.Join(site, rel))
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		infos[rel] = st
		if want[rel] == before[rel] && rel != SiteMarker && !strings.HasPrefix(rel, "assets"+string(filepath.Separator)) {
			same = append(same, rel)
		}
	}
	if len(same) < 4 {
		t.Fatalf("only %d files outside assets/ unchanged by the change: %v", len(same), same)
	}
	linked, private, changed := same[0], same[1], same[2]
	backup := filepath.Join(dir, "backup")
	if err := os.Link(filepath.Join(site, linked), backup); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(site, private), 0o600)
	b := []byte(before[changed])
	b[len(b)/2] ^= 1
	os.WriteFile(filepath.Join(site, changed), b, 0o644)
	assets, copied := filepath.Join(site, "assets"), filepath.Join(dir, "assets-copy")
	if err := os.CopyFS(copied, os.DirFS(assets)); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(assets)
	if err := os.Symlink(copied, assets); err != nil {
		t.Fatal(err)
	}
	build(site)
	after := tree(t, site)
	if !reflect.DeepEqual(after, want) {
		t.Fatalf("the rebuilt site is not a fresh build's:\n got %v\nwant %v", analyses.SortedKeys(after), analyses.SortedKeys(want))
	}
	kept := 0
	for rel, old := range infos {
		st, err := os.Lstat(filepath.Join(site, rel))
		if err != nil {
			continue // not in the new site
		}
		mayKeep := slices.Contains(same, rel) && rel != linked && rel != private && rel != changed
		switch isOld := os.SameFile(st, old); {
		case isOld && !mayKeep:
			t.Errorf("%s: kept, but it changed or was not the build's own as it stood", rel)
		case isOld:
			kept++
		case mayKeep:
			t.Errorf("%s: written again, though unchanged", rel)
		}
		if !input.SingleLink(st) {
			t.Errorf("%s: more than one name after the rebuild", rel)
		}
	}
	if kept != len(same)-3 {
		t.Errorf("%d files kept, want %d", kept, len(same)-3)
	}
	if st, err := os.Lstat(filepath.Join(site, private)); err != nil || st.Mode().Perm() == 0o600 {
		t.Errorf("%s: %v; still private after the rebuild", private, err)
	}
	copies, _ := filepath.Glob(filepath.Join(copied, "*"))
	if len(copies) == 0 {
		t.Fatal("no assets copied")
	}
	for _, p := range append([]string{backup}, copies...) {
		st, err := os.Lstat(p)
		if err != nil || !input.SingleLink(st) {
			t.Errorf("%s: %v, or it shares its inode with the new site", p, err)
		}
	}
	if got, _ := os.ReadFile(backup); string(got) != before[linked] {
		t.Errorf("the user's second name of %s changed", linked)
	}
}
