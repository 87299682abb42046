package input

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMatchPattern(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "u"), 0o755)
	for _, n := range []string{"A_d1.csv", "B_d2.csv", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, "u", n), nil, 0o644)
	}
	got, err := MatchPattern(dir, "u/{method}_{dataset}.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []Match{{filepath.Join(dir, "u", "A_d1.csv"), "d1", "A"}, {filepath.Join(dir, "u", "B_d2.csv"), "d2", "B"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if _, err := MatchPattern(dir, "u/*.tsv"); err == nil || !strings.Contains(err.Error(), `no file matches "u/*.tsv"`) {
		t.Errorf("no match: %v", err)
	}
	if AbsPath(dir, "u/x.csv") != filepath.Join(dir, "u", "x.csv") || AbsPath(dir, "/abs/x") != "/abs/x" {
		t.Error("AbsPath")
	}
}

func TestCheckFileAndReadText(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "study")
	os.MkdirAll(dir, 0o755)
	in, out := filepath.Join(dir, "page.md"), filepath.Join(root, "secret.md")
	os.WriteFile(in, []byte("# ok\n"), 0o644)
	os.WriteFile(out, []byte("x"), 0o644)
	if err := CheckFile(dir, in, "page.md", false, "study.toml"); err != nil {
		t.Fatal(err)
	}
	if err := CheckFile(dir, out, "../secret.md", false, "study.toml"); err == nil || !strings.Contains(err.Error(), "../secret.md: outside the study directory") {
		t.Errorf("outside: %v", err)
	}
	if err := CheckFile(dir, out, "secret.md", true, "study.toml"); err != nil {
		t.Errorf("allow_outside: %v", err)
	}
	if err := CheckFile(dir, dir, "study", false, "study.toml"); err == nil || !strings.Contains(err.Error(), "a directory, not a file") {
		t.Errorf("directory: %v", err)
	}
	if err := CheckFile(dir, filepath.Join(dir, "none"), "none", false, "study.toml"); err == nil || err.Error() != "none: no such file" {
		t.Errorf("missing: %v", err)
	}
	// A missing file outside the study is refused as outside, as one
	// that exists is: the message tells nothing of what lies there.
	gone := filepath.Join(root, "gone.md")
	if err := CheckFile(dir, gone, "../gone.md", false, "study.toml"); err == nil || !strings.Contains(err.Error(), "../gone.md: outside the study directory") {
		t.Errorf("missing outside: %v", err)
	}
	if err := CheckFile(dir, gone, "../gone.md", true, "study.toml"); err == nil || err.Error() != "../gone.md: no such file" {
		t.Errorf("missing outside, allowed: %v", err)
	}
	if b, err := ReadText(in, "page.md", 0); err != nil || string(b) != "# ok\n" {
		t.Errorf("ReadText: %q %v", b, err)
	}
	os.WriteFile(in, []byte("a\ncaf\xe9\n"), 0o644)
	if _, err := ReadText(in, "page.md", 0); err == nil || !strings.Contains(err.Error(), "page.md:2") || !strings.Contains(err.Error(), "invalid UTF-8 (byte 0xE9)") {
		t.Errorf("Latin-1: %v", err)
	}
}

// TestPseudoFilesystemsRefused: a /proc file passes for a regular file,
// so results = "/proc/kmsg" with allow_outside hung the build (its hash
// read never returns). CheckFile, OpenRegular and the hash store now
// refuse any file on a kernel pseudo-filesystem, whatever allow_outside
// says, and a link into /proc from inside the study too.
func TestPseudoFilesystemsRefused(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "results.csv")
	if err := os.Symlink("/proc/kmsg", link); err != nil {
		t.Fatal(err)
	}
	rows := []struct{ path, shown, fs string }{
		{"/proc/kmsg", "kmsg", "proc"},
		{"/proc/self/status", "status", "proc"},
		{link, "results.csv", "proc"},
		{"/sys/kernel/mm/transparent_hugepage/enabled", "enabled", "sysfs"},
	}
	for _, r := range rows {
		st, err := os.Stat(r.path)
		if err != nil || !st.Mode().IsRegular() {
			t.Logf("%s: not here as a regular file (%v); row skipped", r.path, err)
			continue
		}
		want := r.shown + ": on the kernel's " + r.fs + " pseudo-filesystem, not a stored file"
		for _, outside := range []bool{true, false} {
			if err := CheckFile(dir, r.path, r.shown, outside, "study.toml"); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("CheckFile(%s, allowOutside %v) = %v, want %q", r.path, outside, err, want)
			}
		}
		if f, err := OpenRegular(r.path, r.shown); err == nil || !strings.Contains(err.Error(), want) {
			if f != nil {
				f.Close()
			}
			t.Errorf("OpenRegular(%s) = %v, want %q", r.path, err, want)
		}
		if _, err := NewHashStore().Sum(r.path); err == nil || !strings.Contains(err.Error(), "pseudo-filesystem") {
			t.Errorf("HashStore.Sum(%s) = %v, want a refusal", r.path, err)
		}
	}
	// A file of the study is read as before.
	ok := filepath.Join(dir, "ok.csv")
	os.WriteFile(ok, []byte("a\n"), 0o644)
	if err := CheckFile(dir, ok, "ok.csv", false, "study.toml"); err != nil {
		t.Errorf("a study file: %v", err)
	}
}

// TestResolverResolvesAsEvalSymlinks resolves every path of a tree of
// links with one Resolver, twice (the second time from what it
// remembers), and with filepath.EvalSymlinks: the same path or an error
// for the same paths. Links to directories, to files, to links, out of
// the tree and dangling; relative paths and paths through "..". Then
// CheckFile with the Resolver refuses the file behind a directory link
// that leaves the study, as CheckFile does.
func TestResolverResolvesAsEvalSymlinks(t *testing.T) {
	root := t.TempDir()
	study, outside := filepath.Join(root, "study"), filepath.Join(root, "outside")
	for _, d := range []string{"study/runs/deep", "outside/data"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"study/runs/a.csv", "study/runs/deep/b.csv", "outside/data/c.csv"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"study/linkdir":       "runs",                         // a directory, relative
		"study/out":           filepath.Join(outside, "data"), // out of the study
		"study/runs/l.csv":    "a.csv",                        // a file
		"study/runs/ll.csv":   "l.csv",                        // a link to a link
		"study/runs/dangling": "nothing.csv",
		"study/runs/deep/up":  "..",
		"study/linkdir2":      "linkdir", // a directory link to a directory link
		"study/runs/deep/far": filepath.Join(outside, "data", "c.csv"),
	}
	for l, to := range links {
		if err := os.Symlink(to, filepath.Join(root, l)); err != nil {
			t.Skip("no symlinks:", err)
		}
	}
	paths := []string{
		"study/runs/a.csv", "study/linkdir/a.csv", "study/linkdir2/deep/b.csv", "study/out/c.csv",
		"study/runs/l.csv", "study/runs/ll.csv", "study/runs/dangling", "study/runs/missing.csv",
		"study/runs/deep/up/a.csv", "study/runs/deep/far", "study/runs/deep/../a.csv", "study/runs/",
		"study/linkdir", "study", "study/runs/a.csv/x",
	}
	var r Resolver
	for round := 0; round < 2; round++ {
		for _, p := range paths {
			for _, path := range []string{filepath.Join(root, p), filepath.Join(root, p) + "/", root + "/" + p} {
				want, wantErr := filepath.EvalSymlinks(path)
				got, err := r.Path(path)
				if got != want || (err == nil) != (wantErr == nil) {
					t.Errorf("round %d: %s: got %q, %v; filepath.EvalSymlinks: %q, %v", round, path, got, err, want, wantErr)
				}
			}
		}
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(root); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"study/linkdir/a.csv", "study/runs/../out/c.csv", "."} {
		want, _ := filepath.EvalSymlinks(rel)
		if got, _ := r.Path(rel); got != want {
			t.Errorf("%s: got %q, filepath.EvalSymlinks %q", rel, got, want)
		}
	}
	for _, c := range []struct {
		path    string
		outside bool
	}{{"study/linkdir/a.csv", false}, {"study/out/c.csv", true}, {"study/runs/deep/far", true}, {"study/runs/ll.csv", false}} {
		path := filepath.Join(root, c.path)
		err := r.CheckFile(study, path, c.path, false, "study.toml")
		plain := CheckFile(study, path, c.path, false, "study.toml")
		if (err != nil) != c.outside || (plain != nil) != c.outside {
			t.Errorf("%s: CheckFile with the resolver: %v; without: %v; want outside = %v", c.path, err, plain, c.outside)
		}
	}
}
