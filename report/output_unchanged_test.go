package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"syscall"
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
		"a page removed":                      func() { os.Remove(index) },
		"a page made private":                 func() { os.Chmod(index, 0o600) },
		"a page made set-user-ID":             func() { os.Chmod(index, 0o644|os.ModeSetuid) },
		"a page given an access control list": func() { setACL(t, index) },
		"a page owned by another user":        func() { chownOther(t, index) },
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
			if !st.IsDir() {
				checkFresh(t, name, p, st)
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
// of one name again): the site is byte for byte a fresh build's. A file
// that is not as a fresh write would leave it — a second name elsewhere,
// made private or set-user-ID, a byte changed in place, an access
// control list, another owner, behind a directory turned into a link to
// a copy — is written anew, and the user's other name or copy is left
// as it was. In rounds, each a change of the input and a few plants.
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
	site := filepath.Join(dir, "site")
	build(site)
	res := filepath.Join(dir, "data", "results.csv")
	original, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	type plant = func(t *testing.T, p string) (check func())
	secondName := func(t *testing.T, p string) func() {
		backup := filepath.Join(dir, "backup-"+filepath.Base(p))
		if err := os.Link(p, backup); err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadFile(backup)
		return func() {
			if now, err := os.ReadFile(backup); err != nil || string(now) != string(before) || !input.SingleLink(statOf(t, backup)) {
				t.Errorf("the user's second name of %s changed or still shares the site's file", p)
			}
		}
	}
	mode := func(m os.FileMode) plant {
		return func(t *testing.T, p string) func() { os.Chmod(p, m); return func() {} }
	}
	flip := func(t *testing.T, p string) func() {
		b, _ := os.ReadFile(p)
		b[len(b)/2] ^= 1
		os.WriteFile(p, b, 0o644)
		return func() {}
	}
	acl := func(t *testing.T, p string) func() { setACL(t, p); return func() {} }
	owner := func(t *testing.T, p string) func() { chownOther(t, p); return func() {} }
	for round, plants := range [][]plant{{secondName, mode(0o600)}, {flip, mode(0o644 | os.ModeSetuid)}, {acl}, {owner}, {nil}} {
		body := append(bytes.Clone(original), fmt.Sprintf("d3,A,m,%d\nd3,B,m,4\n", 5+round)...)
		if err := os.WriteFile(res, body, 0o644); err != nil {
			t.Fatal(err)
		}
		fresh := filepath.Join(dir, fmt.Sprint("fresh", round))
		build(fresh)
		rebuildKeeping(t, site, tree(t, fresh), plants, func() { build(site) })
	}
}

// rebuildKeeping plants each of plants on a file of site that the next
// build leaves unchanged (a nil plant: turns data/ into a link to a
// copy, whose files then count as planted), rebuilds (build) and checks
// that the site is want, that the files not planted were kept and the
// planted ones written anew, each of one name and as a fresh write
// leaves it.
func rebuildKeeping(t *testing.T, site string, want map[string]string, plants []func(*testing.T, string) func(), build func()) {
	t.Helper()
	before := tree(t, site)
	infos := map[string]os.FileInfo{}
	var same []string // unchanged by the next build
	for _, rel := range analyses.SortedKeys(before) {
		if st, err := os.Lstat(filepath.Join(site, rel)); err == nil && st.Mode().IsRegular() {
			infos[rel] = st
			if want[rel] == before[rel] && rel != SiteMarker {
				same = append(same, rel)
			}
		}
	}
	var planted []string
	var checks []func()
	for i, plant := range plants {
		if plant == nil {
			for _, rel := range linkDirToCopy(t, site, "data") {
				planted = append(planted, rel)
				delete(infos, rel) // removed: its inode may be reused
			}
			continue
		}
		if i >= len(same)-1 {
			t.Fatalf("only %d files unchanged by the change: %v", len(same), same)
		}
		planted = append(planted, same[i])
		checks = append(checks, plant(t, filepath.Join(site, same[i])))
	}
	build()
	if got := tree(t, site); !reflect.DeepEqual(got, want) {
		t.Fatalf("the rebuilt site is not a fresh build's:\n got %v\nwant %v", analyses.SortedKeys(got), analyses.SortedKeys(want))
	}
	kept := 0
	for rel, old := range infos {
		st, err := os.Lstat(filepath.Join(site, rel))
		if err != nil {
			continue // not in the new site
		}
		mayKeep := slices.Contains(same, rel) && !slices.Contains(planted, rel)
		switch isOld := os.SameFile(st, old); {
		case isOld && !mayKeep:
			t.Errorf("%s: kept, but it changed or was not as a fresh write leaves it", rel)
		case isOld:
			kept++
		case mayKeep:
			t.Errorf("%s: written again, though unchanged", rel)
		}
		if !input.SingleLink(st) {
			t.Errorf("%s: more than one name after the rebuild", rel)
		}
		checkFresh(t, "after the change", filepath.Join(site, rel), st)
	}
	if kept == 0 {
		t.Errorf("no file kept; planted %v of %v", planted, same)
	}
	for _, check := range checks {
		check()
	}
}

// linkDirToCopy replaces the directory name of site with a link to a
// copy of it beside the site, and returns the copied files' names in
// the site; after the rebuild they must be the user's still, of one name.
func linkDirToCopy(t *testing.T, site, name string) []string {
	t.Helper()
	d, copied := filepath.Join(site, name), filepath.Join(filepath.Dir(site), name+"-copy")
	if err := os.CopyFS(copied, os.DirFS(d)); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(d)
	if err := os.Symlink(copied, d); err != nil {
		t.Fatal(err)
	}
	var rels []string
	files, _ := filepath.Glob(filepath.Join(copied, "*"))
	for _, f := range files {
		rels = append(rels, filepath.Join(name, filepath.Base(f)))
		t.Cleanup(func() {
			if st, err := os.Lstat(f); err != nil || !input.SingleLink(st) {
				t.Errorf("%s: %v, or it shares its inode with the new site", f, err)
			}
		})
	}
	return rels
}

// checkFresh fails t unless the file at p (st) is as a fresh write
// leaves it: no set-user-ID, set-group-ID or sticky bit, the build's
// owner, no access control list.
func checkFresh(t *testing.T, where, p string, st os.FileInfo) {
	t.Helper()
	if st.Mode()&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky) != 0 {
		t.Errorf("%s: %s is %v after the rebuild", where, p, st.Mode())
	}
	if uid, _, ok := input.Owner(st); ok && int(uid) != os.Geteuid() {
		t.Errorf("%s: %s is owned by %d after the rebuild", where, p, uid)
	}
	if input.HasACL(p) {
		t.Errorf("%s: %s keeps an access control list after the rebuild", where, p)
	}
}

// setACL gives the file at p an access control list letting user 1234
// read it (its mode unchanged), or skips t where the file system has
// none.
func setACL(t *testing.T, p string) {
	t.Helper()
	// version 2; user::rw-, user:1234:r--, group::r--, mask::r--, other::r--
	acl := []byte{2, 0, 0, 0, 1, 0, 6, 0, 255, 255, 255, 255, 2, 0, 4, 0, 0xd2, 4, 0, 0,
		4, 0, 4, 0, 255, 255, 255, 255, 16, 0, 4, 0, 255, 255, 255, 255, 32, 0, 4, 0, 255, 255, 255, 255}
	if err := syscall.Setxattr(p, "system.posix_acl_access", acl, 0); err != nil {
		t.Skip("no access control lists here:", err)
	}
	if !input.HasACL(p) {
		t.Fatalf("%s: the access control list set is not seen", p)
	}
}

// chownOther gives the file at p another owner, or skips t when the
// test does not run as root.
func chownOther(t *testing.T, p string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	if err := os.Lchown(p, 1234, 1234); err != nil {
		t.Fatal(err)
	}
}

// TestLinkKeptRefusesSwaps: a file that keptFiles checked and that is
// swapped before it is linked — for a link to a secret, given a third
// name, or reached through a directory turned into a link to a copy —
// is not kept in the new site: the link is removed, for the build to
// write the file, and the user's files keep their names and bytes.
func TestLinkKeptRefusesSwaps(t *testing.T) {
	t.Parallel()
	if _, ok := input.Links(statOf(t, t.TempDir())); !ok {
		t.Skip("no link counts here")
	}
	dir := t.TempDir()
	old, site, user := filepath.Join(dir, "old"), filepath.Join(dir, "new"), filepath.Join(dir, "user")
	for _, d := range []string{old, site, user, filepath.Join(old, "d")} {
		os.MkdirAll(d, 0o755)
	}
	write := func(p, body string) os.FileInfo {
		t.Helper()
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return statOf(t, p)
	}
	checked := map[string]os.FileInfo{}
	for _, n := range []string{"kept", "swapped", "third", "d/e"} {
		checked[n] = write(filepath.Join(old, n), "page "+n)
	}
	// What happens between the check and the link:
	secret := write(filepath.Join(user, "secret"), "secret")
	os.Remove(filepath.Join(old, "swapped"))
	os.Symlink(filepath.Join(user, "secret"), filepath.Join(old, "swapped"))
	os.Link(filepath.Join(old, "third"), filepath.Join(user, "third-name"))
	copied := write(filepath.Join(user, "e"), "page d/e")
	os.Rename(filepath.Join(old, "d"), filepath.Join(dir, "d-moved"))
	os.Symlink(user, filepath.Join(old, "d"))

	for name, want := range map[string]bool{"kept": true, "swapped": false, "third": false, "d/e": false} {
		p := filepath.Join(site, filepath.Base(name))
		kept, err := linkKept(filepath.Join(old, filepath.FromSlash(name)), checked[name], p)
		if err != nil || kept != want {
			t.Errorf("%s: kept %v, %v; want %v", name, kept, err, want)
		}
		if _, err := os.Lstat(p); (err == nil) != want {
			t.Errorf("%s: in the new site: %v; want %v", name, err == nil, want)
		}
	}
	for p, st := range map[string]os.FileInfo{filepath.Join(user, "secret"): secret, filepath.Join(user, "e"): copied} {
		if now := statOf(t, p); !os.SameFile(now, st) || !input.SingleLink(now) {
			t.Errorf("%s: no longer the user's file of one name", p)
		}
	}
	if n, _ := input.Links(statOf(t, filepath.Join(user, "third-name"))); n != 2 {
		t.Errorf("the user's third name: %d names, want 2 (the old site's and the user's)", n)
	}
}

func statOf(t *testing.T, p string) os.FileInfo {
	t.Helper()
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
