package report

import (
	"context"
	"errors"
	"fmt"
	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// tinyStudy builds in a few milliseconds: one analysis, one page.
var tinyStudy = studyFixture("tiny")

// writeTiny writes tinyStudy into dir and returns its manifest.
func writeTiny(t testing.TB, dir string) string {
	t.Helper()
	if err := ParseArchive([]byte(tinyStudy)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "study.toml")
}

// tree describes everything under root: files by content, directories
// and symbolic links (not followed) by kind and target.
func tree(t testing.TB, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			dest, err := os.Readlink(p)
			m[rel] = "symlink -> " + dest
			return err
		case d.IsDir():
			m[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			m[rel] = string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sameTree reports every difference between two trees.
func sameTree(t testing.TB, what string, before, after map[string]string) {
	t.Helper()
	var diffs []string
	for name, b := range before {
		if a, ok := after[name]; !ok {
			diffs = append(diffs, "removed "+name)
		} else if a != b {
			diffs = append(diffs, "changed "+name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			diffs = append(diffs, "added "+name)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%s: the files changed: %s", what, strings.Join(diffs, ", "))
	}
}

// leftovers lists what an interrupted or concurrent swap could leave in
// dir next to an output named base.
func leftovers(t testing.TB, dir, base string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), base+".old-") || strings.HasPrefix(e.Name(), "."+base+".new-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestOutputRefused plants every output that must not be replaced and
// checks the build refuses it with a message naming the problem,
// without changing a byte anywhere (no lock file either).
func TestOutputRefused(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		out  func(root, study string) string
		want string
	}{
		{"study directory", func(_, s string) string { return s }, "refusing to write the site into the study directory {study}, which it would replace; choose a directory of its own, such as {study}/site"},
		{"study directory through ..", func(_, s string) string { return s + "/data/.." }, "refusing to write the site into the study directory"},
		{"link to the study directory", func(root, s string) string {
			link := filepath.Join(root, "link")
			os.Symlink(s, link)
			return link
		}, "refusing to write the site into the study directory"},
		{"inputs directory", func(_, s string) string { return filepath.Join(s, "data") }, "it holds the study's input {study}/data/results.csv"},
		{"directory of a linked input", func(root, s string) string {
			// data/results.csv is a link to a file elsewhere: replacing
			// data would lose the link.
			os.MkdirAll(filepath.Join(root, "elsewhere"), 0o755)
			os.Rename(filepath.Join(s, "data", "results.csv"), filepath.Join(root, "elsewhere", "results.csv"))
			os.Symlink(filepath.Join(root, "elsewhere", "results.csv"), filepath.Join(s, "data", "results.csv"))
			manifest := filepath.Join(s, "study.toml")
			src, _ := os.ReadFile(manifest)
			os.WriteFile(manifest, append([]byte("allow_outside = true\n"), src...), 0o644)
			return filepath.Join(s, "data")
		}, "it holds the study's input {study}/data/results.csv"},
		{"directory of two inputs", func(_, s string) string { return moreInputs(s, 1) }, "it holds the study's input {study}/data/more0.csv and 1 other file of the study;"},
		{"directory of three inputs", func(_, s string) string { return moreInputs(s, 2) }, "it holds the study's input {study}/data/more0.csv and 2 other files of the study;"},
		{"pages directory", func(_, s string) string { return filepath.Join(s, "pages") }, "it holds the study's page {study}/pages/notes.md"},
		{"parent of the study", func(root, _ string) string { return root }, "refusing to replace {root}: it holds the study directory {study}"},
		{"input outside the study", func(root, s string) string {
			shared := filepath.Join(root, "shared")
			os.MkdirAll(shared, 0o755)
			os.WriteFile(filepath.Join(shared, "extra.csv"), []byte("dataset,method,metric,value\nd3,A,m,1\nd3,B,m,2\n"), 0o644)
			manifest := filepath.Join(s, "study.toml")
			src, _ := os.ReadFile(manifest)
			os.WriteFile(manifest, []byte("allow_outside = true\n"+strings.Replace(string(src), `results = "data/results.csv"`, `results = ["data/results.csv", "../shared/extra.csv"]`, 1)), 0o644)
			// A marker does not make a directory holding an input replaceable.
			os.WriteFile(filepath.Join(shared, SiteMarker), nil, 0o644)
			return shared
		}, "refusing to replace {root}/shared: it holds the study's input {root}/shared/extra.csv"},
		{"existing file", func(root, _ string) string { return filepath.Join(root, "notes.txt") }, "{root}/notes.txt is an existing file, not a site directory"},
		{"unmarked directory", func(root, _ string) string { return filepath.Join(root, "other") }, "{root}/other is a non-empty directory that evalbook did not write (it has no .evalbook-site file)"},
		{"link to an unmarked directory", func(root, _ string) string {
			link := filepath.Join(root, "other-link")
			os.Symlink(filepath.Join(root, "other"), link)
			return link
		}, "{root}/other is a non-empty directory that evalbook did not write"},
		{"link to a file", func(root, _ string) string {
			link := filepath.Join(root, "notes-link")
			os.Symlink("notes.txt", link)
			return link
		}, "{root}/notes.txt is an existing file, not a site directory"},
		{"dangling link into the study", func(root, s string) string {
			link := filepath.Join(root, "dangling")
			os.Symlink(filepath.Join(s, "data", "nowhere", ".."), link)
			return link
		}, "refusing to replace {study}/data: it holds the study's input {study}/data/results.csv"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := realTempDir(t)
			study := filepath.Join(root, "study")
			manifest := writeTiny(t, study)
			os.WriteFile(filepath.Join(root, "notes.txt"), []byte("my notes\n"), 0o644)
			os.MkdirAll(filepath.Join(root, "other"), 0o755)
			os.WriteFile(filepath.Join(root, "other", "thesis.tex"), []byte("\\documentclass{article}\n"), 0o644)
			out := c.out(root, study)
			before := tree(t, root)
			_, err := Build(context.Background(), Options{Manifest: manifest, Out: out, Version: "test"})
			var oe *OutputError
			if !errors.As(err, &oe) {
				t.Fatalf("build into %s: %v, want a refused output", out, err)
			}
			want := strings.NewReplacer("{root}", root, "{study}", study).Replace(c.want)
			if !strings.HasPrefix(err.Error(), "output "+out+": ") || !strings.Contains(err.Error(), want) {
				t.Errorf("message %q\nwant it to start with %q and hold %q", err, "output "+out+": ", want)
			}
			sameTree(t, c.name, before, tree(t, root))
		})
	}
}

// TestOutputRefusesRootAndHome: the root directory, the home directory
// and any ancestor of it are refused, even with a marker; nothing is
// written. (HOME is set, so the test does not run in parallel.)
func TestOutputRefusesRootAndHome(t *testing.T) {
	manifestPath := writeTiny(t, t.TempDir())
	study, err := manifest.LoadStudy(manifestPath, kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkOutput("/", study, nil); err == nil || !strings.Contains(err.Error(), "refusing to replace the root directory /") {
		t.Errorf("-o /: %v", err)
	}
	top := realTempDir(t)
	home := filepath.Join(top, "home")
	os.MkdirAll(home, 0o755)
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("export X=1\n"), 0o644)
	os.WriteFile(filepath.Join(home, SiteMarker), nil, 0o644)
	t.Setenv("HOME", home)
	for out, want := range map[string]string{
		home:              "refusing to replace your home directory " + home,
		home + "/.":       "refusing to replace your home directory " + home,
		top:               "refusing to replace " + top + ": it holds your home directory " + home,
		filepath.Dir(top): "it holds your home directory " + home,
	} {
		before := tree(t, top)
		_, err := Build(context.Background(), Options{Manifest: manifestPath, Out: out, Version: "test"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("-o %s: %v, want %q", out, err, want)
		}
		sameTree(t, out, before, tree(t, top))
	}
	// A directory of its own under the home is fine.
	if _, err := Build(context.Background(), Options{Manifest: manifestPath, Out: filepath.Join(home, "site"), Version: "test"}); err != nil {
		t.Errorf("-o ~/site: %v", err)
	}
}

// TestOutputReplacesOnlyMarkedOrEmpty: a new path, an empty directory and
// a marked site are written; the marker goes into every site and a
// marked site's stale files disappear.
func TestOutputReplacesOnlyMarkedOrEmpty(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	manifest := writeTiny(t, filepath.Join(root, "study"))
	for _, out := range []string{filepath.Join(root, "new", "deeper", "site"), filepath.Join(root, "empty")} {
		if out == filepath.Join(root, "empty") {
			os.Mkdir(out, 0o755)
		}
		if _, err := Build(context.Background(), Options{Manifest: manifest, Out: out, Version: "test"}); err != nil {
			t.Fatalf("-o %s: %v", out, err)
		}
		marker := readFile(t, out, SiteMarker)
		if !strings.HasPrefix(marker, "evalbook site\nstudy: Tiny\nmanifest: study.toml\n") {
			t.Errorf("marker of %s: %q", out, marker)
		}
		if strings.Contains(marker, root) {
			t.Errorf("the marker holds an absolute path: %q", marker)
		}
	}
	site := filepath.Join(root, "empty")
	// A page the previous build wrote (its marker lists it) that this
	// build does not write: removed with the old site.
	os.WriteFile(filepath.Join(site, "stale.html"), []byte("old"), 0o644)
	marker := readFile(t, site, SiteMarker)
	os.WriteFile(filepath.Join(site, SiteMarker), []byte(marker+"stale.html\n"), 0o644)
	if _, err := Build(context.Background(), Options{Manifest: manifest, Out: site, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(site, "stale.html")); err == nil {
		t.Error("a stale file survived the rebuild of a marked site")
	}
	if got := leftovers(t, root, "empty"); len(got) > 0 {
		t.Errorf("leftovers: %v", got)
	}
}

// TestOutputRecovers plants what a build killed between its two renames
// leaves: no site, the previous one as a marked site.old-X, and a marked
// .site.new-Y. The next build puts the previous site back (restoring
// only a directory a build retired: marked, and named in its retiredBy
// file) and removes the rest; directories without the marker, and a
// user's own marked copy (site.old-2023), are left alone.
func TestOutputRecovers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	manifest := writeTiny(t, dir)
	o := Options{Manifest: manifest, Version: "test"}
	if _, err := Build(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "site")
	want := tree(t, site)
	plant := func() {
		t.Helper()
		os.RemoveAll(site)
		for _, d := range []string{"site.old-X", ".site.new-Y", "site.old-mine", ".site.new-mine", ".site.new-empty"} {
			os.MkdirAll(filepath.Join(dir, d), 0o755)
		}
		os.WriteFile(filepath.Join(dir, "site.old-X", SiteMarker), []byte("evalbook site\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "site.old-X", retiredBy), []byte("site.old-X\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "site.old-X", "index.html"), []byte("previous site"), 0o644)
		// A user's own copy of a site: marked, but not retired by a build.
		os.MkdirAll(filepath.Join(dir, "site.old-2023"), 0o755)
		os.WriteFile(filepath.Join(dir, "site.old-2023", SiteMarker), []byte("evalbook site\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "site.old-2023", "keep.txt"), []byte("not evalbook's"), 0o644)
		os.WriteFile(filepath.Join(dir, ".site.new-Y", SiteMarker), []byte("evalbook site\n"), 0o644)
		os.WriteFile(filepath.Join(dir, ".site.new-Y", "half.html"), []byte("half written"), 0o644)
		os.WriteFile(filepath.Join(dir, "site.old-mine", "keep.txt"), []byte("not evalbook's"), 0o644)
		os.WriteFile(filepath.Join(dir, ".site.new-mine", "keep.txt"), []byte("not evalbook's"), 0o644)
	}
	unmarked := func() {
		t.Helper()
		for _, d := range []string{"site.old-mine", ".site.new-mine", "site.old-2023"} {
			if b, err := os.ReadFile(filepath.Join(dir, d, "keep.txt")); err != nil || string(b) != "not evalbook's" {
				t.Errorf("%s (no marker) was touched: %v", d, err)
			}
		}
		for _, d := range []string{"site.old-X", ".site.new-Y", ".site.new-empty"} {
			if _, err := os.Stat(filepath.Join(dir, d)); err == nil {
				t.Errorf("%s was left behind", d)
			}
		}
	}

	// The repair on its own: the previous site is back.
	plant()
	target, _ := input.ResolvePath(site)
	if err := recoverLeftovers(target); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, site, "index.html"); got != "previous site" {
		t.Errorf("restored index.html: %q", got)
	}
	unmarked()

	// A build repairs, then replaces the site as usual.
	plant()
	if _, err := Build(context.Background(), o); err != nil {
		t.Fatalf("build after an interrupted swap: %v", err)
	}
	sameTree(t, "rebuilt site", want, tree(t, site))
	unmarked()

	// A build that fails before writing puts the previous site back too
	// (and still fails): the site is not left missing until a build
	// succeeds.
	plant()
	results := filepath.Join(dir, "data", "results.csv")
	good, _ := os.ReadFile(results)
	os.WriteFile(results, []byte("dataset,method,metric,value\nd1,A,m,NaN\n"), 0o644)
	if _, err := Build(context.Background(), o); err == nil || !strings.Contains(err.Error(), "not a number") {
		t.Fatalf("a failing build: %v", err)
	}
	if got := readFile(t, site, "index.html"); got != "previous site" {
		t.Errorf("after a failed build, index.html: %q", got)
	}
	unmarked()
	// Nothing to repair: a failed build creates nothing (not even the
	// lock file) next to the site.
	before := tree(t, dir)
	if _, err := Build(context.Background(), o); err == nil {
		t.Fatal("the failing build succeeded")
	}
	sameTree(t, "the study after a failed build", before, tree(t, dir))
	os.WriteFile(results, good, 0o644)
	if _, err := Build(context.Background(), o); err != nil {
		t.Fatal(err)
	}

	// With the site present, a marked site.old-X is removed, not restored.
	os.MkdirAll(filepath.Join(dir, "site.old-Z"), 0o755)
	os.WriteFile(filepath.Join(dir, "site.old-Z", SiteMarker), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "site.old-Z", retiredBy), []byte("site.old-Z\n"), 0o644)
	if _, err := Build(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "site.old-Z")); err == nil {
		t.Error("site.old-Z was left behind")
	}
	sameTree(t, "rebuilt site", want, tree(t, site))
}

// TestOutputSymlink: an output that is a symbolic link to a directory
// keeps the link; the directory it points to receives the new site (and
// is created, or restored after an interrupted swap, when missing).
func TestOutputSymlink(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	manifest := writeTiny(t, filepath.Join(root, "study"))
	real := filepath.Join(root, "www", "real")
	os.MkdirAll(real, 0o755) // empty: may be replaced
	link := filepath.Join(root, "study", "site")
	if err := os.Symlink(filepath.Join("..", "www", "real"), link); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 2; round++ { // the second replaces a marked site
		sum, err := Build(context.Background(), Options{Manifest: manifest, Version: "test"})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if sum.Out != link {
			t.Errorf("summary names %s, want the link %s", sum.Out, link)
		}
		st, err := os.Lstat(link)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("round %d: the link was replaced: %v", round, err)
		}
		if dest, _ := os.Readlink(link); dest != filepath.Join("..", "www", "real") {
			t.Errorf("the link now points to %s", dest)
		}
		if !strings.Contains(readFile(t, real, "notes.html"), "Some prose.") || !marked(real) {
			t.Errorf("round %d: the link's target did not receive the site", round)
		}
		if got := append(leftovers(t, filepath.Dir(real), "real"), leftovers(t, filepath.Dir(link), "site")...); len(got) > 0 {
			t.Errorf("leftovers: %v", got)
		}
	}
	want := tree(t, real)

	// Interrupted swap: the link dangles, the previous site is real.old-X.
	os.Rename(real, real+".old-X")
	os.WriteFile(filepath.Join(real+".old-X", retiredBy), []byte("real.old-X\n"), 0o644)
	os.WriteFile(filepath.Join(real+".old-X", "index.html"), []byte("previous"), 0o644)
	os.MkdirAll(real+".keep", 0o755)
	if _, err := Build(context.Background(), Options{Manifest: manifest, Version: "test"}); err != nil {
		t.Fatalf("build through a dangling link after an interrupted swap: %v", err)
	}
	sameTree(t, "site behind the link", want, tree(t, real))
	if got := leftovers(t, filepath.Dir(real), "real"); len(got) > 0 {
		t.Errorf("leftovers: %v", got)
	}

	// A link to a directory that does not exist yet: it is created.
	os.Remove(link)
	os.Symlink(filepath.Join(root, "www", "new", "site"), link)
	if _, err := Build(context.Background(), Options{Manifest: manifest, Version: "test"}); err != nil {
		t.Fatalf("build through a link to a missing directory: %v", err)
	}
	sameTree(t, "new site behind the link", want, tree(t, filepath.Join(root, "www", "new", "site")))
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
}

// TestOutputConcurrentBuilds: 6 builds into one output at once, 50
// rounds (15 under the race detector, which needs the interleaving once,
// not often): none fails, nothing is left behind, the final site is
// complete.
func TestOutputConcurrentBuilds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	manifest := writeTiny(t, dir)
	ref := filepath.Join(t.TempDir(), "ref")
	cache := NewCache()
	if _, err := Build(context.Background(), Options{Manifest: manifest, Out: ref, Format: "md", Version: "test", Cache: cache}); err != nil {
		t.Fatal(err)
	}
	want := tree(t, ref)
	site := filepath.Join(dir, "site")
	builders, rounds := 6, 50
	switch {
	case raceEnabled:
		rounds = 15
	case testing.Short(): // make test-short's quick loop; make test runs 50
		rounds = 10
	}
	errs := make(chan error, builders*rounds)
	for round := 0; round < rounds; round++ {
		var wg sync.WaitGroup
		for b := 0; b < builders; b++ {
			wg.Add(1)
			go func(b int) {
				defer wg.Done()
				if _, err := Build(context.Background(), Options{Manifest: manifest, Format: "md", Version: "test", Cache: cache, Jobs: 1}); err != nil {
					errs <- fmt.Errorf("round %d, builder %d: %w", round, b, err)
				}
			}(b)
		}
		wg.Wait()
		if len(errs) > 0 {
			break
		}
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := leftovers(t, dir, "site"); len(got) > 0 {
		t.Errorf("leftovers: %v", got)
	}
	sameTree(t, "final site", want, tree(t, site))
}

// TestOutputResolvesPaths: an input folder given with a trailing slash,
// with .. or through a symbolic link is still recognised (paths are
// resolved before comparing), and a fine output resolves to the real
// directory that will be written.
func TestOutputResolvesPaths(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	manifestPath := writeTiny(t, filepath.Join(root, "study"))
	study, err := manifest.LoadStudy(manifestPath, kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	files := []string{filepath.Join(root, "study", "data", "results.csv")}
	os.Symlink(filepath.Join(root, "study", "data"), filepath.Join(root, "data-link"))
	for _, out := range []string{
		filepath.Join(root, "study", "data") + "/",
		filepath.Join(root, "study", "pages", "..", "data"),
		filepath.Join(root, "data-link"),
	} {
		if _, err := checkOutput(out, study, files); err == nil || !strings.Contains(err.Error(), "it holds the study's input") {
			t.Errorf("-o %s: %v", out, err)
		}
	}
	os.Symlink(filepath.Join(root, "study"), filepath.Join(root, "study-link"))
	got, err := checkOutput(filepath.Join(root, "study-link", "site"), study, files)
	if err != nil || got != filepath.Join(root, "study", "site") {
		t.Errorf("a fine output resolves to %q, %v", got, err)
	}
}

// realTempDir is t.TempDir with symbolic links resolved, as the messages
// name paths.
func realTempDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReplaceableDuringSwap: the check before the lock sees a site that
// another build is swapping (target named retired and renamed away, the
// new one renamed in, the old one removed). Whatever moment it looks at,
// a marked site stays replaceable.
func TestReplaceableDuringSwap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "site")
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(p, "data"), 0o755); err != nil {
			t.Error(err)
		}
		os.WriteFile(filepath.Join(p, SiteMarker), nil, 0o644)
		os.WriteFile(filepath.Join(p, "index.html"), []byte("x"), 0o644)
	}
	mk(target)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tmp := filepath.Join(dir, fmt.Sprintf(".site.new-%d", i))
			old := filepath.Join(dir, fmt.Sprintf("site.old-%d", i))
			mk(tmp)
			// as writeAtomically does: the old site named retired, moved aside,
			// the new one moved in, the old removed marker last
			// (removeRetired; a plain RemoveAll could leave, for a look,
			// an old site without its marker and not yet empty)
			os.WriteFile(filepath.Join(target, retiredBy), []byte(filepath.Base(old)+"\n"), 0o644)
			os.Rename(target, old)
			os.Rename(tmp, target)
			removeRetired(old)
		}
	}()
	n := 20000
	if testing.Short() {
		n = 5000
	}
	for i := 0; i < n; i++ {
		if err := replaceable(target); err != nil {
			t.Errorf("look %d: %v", i, err)
			break
		}
	}
	close(stop)
	<-done
}

// TestOutputKeepsForeignFiles: files a user put into a built site (a
// CNAME for GitHub Pages, the .git of a published copy) were deleted by
// the next build with the old site. The marker lists what a build wrote;
// a site holding anything else is not replaced: the build fails naming
// the files, and every byte stays. A marker without a list (an older
// evalbook's) still lets the build replace the site.
func TestOutputKeepsForeignFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	manifest := writeTiny(t, filepath.Join(root, "study"))
	site := filepath.Join(root, "site")
	build := func() error {
		_, err := Build(context.Background(), Options{Manifest: manifest, Out: site, Version: "test"})
		return err
	}
	if err := build(); err != nil {
		t.Fatal(err)
	}
	if m := readFile(t, site, SiteMarker); !strings.Contains(m, "\nfiles:\n") || !strings.Contains(m, "\nindex.html\n") {
		t.Fatalf("the marker lists no files:\n%s", m)
	}
	os.WriteFile(filepath.Join(site, "CNAME"), []byte("example.org\n"), 0o644)
	os.MkdirAll(filepath.Join(site, ".git", "objects"), 0o755)
	os.WriteFile(filepath.Join(site, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(site, "data", "notes.txt"), []byte("mine\n"), 0o644)
	before := tree(t, root)
	err := build()
	if err == nil || !strings.Contains(err.Error(), "holds files evalbook did not write (.git/, CNAME, data/notes.txt)") {
		t.Fatalf("a site with a user's files: %v", err)
	}
	sameTree(t, "a refused rebuild", before, tree(t, root))
	for _, f := range []string{"CNAME", ".git", filepath.Join("data", "notes.txt")} {
		os.RemoveAll(filepath.Join(site, f))
	}
	if err := build(); err != nil {
		t.Fatalf("with the user's files moved out: %v", err)
	}
	// An older evalbook's marker, without a list: replaced as before.
	os.WriteFile(filepath.Join(site, SiteMarker), []byte("evalbook site\nstudy: Tiny\nmanifest: study.toml\n"), 0o644)
	os.WriteFile(filepath.Join(site, "old.html"), []byte("x"), 0o644)
	if err := build(); err != nil {
		t.Fatalf("an older marker: %v", err)
	}
	if _, err := os.Stat(filepath.Join(site, "old.html")); err == nil {
		t.Error("a site with an older marker was not replaced")
	}
}

// TestOutputKeepsDirMode: a rebuild reset the site directory to 0755,
// making a site its user had made private world-readable.
func TestOutputKeepsDirMode(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	manifest := writeTiny(t, filepath.Join(root, "study"))
	for _, c := range []struct {
		out  string
		mode os.FileMode
	}{{"private", 0o700}, {"shared", 0o770 | os.ModeSetgid}} {
		out := filepath.Join(root, c.out)
		os.Mkdir(out, 0o755)
		os.Chmod(out, c.mode)
		for i := 0; i < 2; i++ { // into the empty directory, then over the site
			if _, err := Build(context.Background(), Options{Manifest: manifest, Out: out, Version: "test"}); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode() & (os.ModePerm | os.ModeSetgid); got != c.mode&(os.ModePerm|os.ModeSetgid) {
				t.Errorf("%s after build %d: mode %v, want %v", c.out, i+1, got, c.mode)
			}
		}
	}
}

// moreInputs adds n results files beside the tiny study's
// data/results.csv (data/more0.csv, …), declares them all in its
// manifest and returns the data directory.
func moreInputs(study string, n int) string {
	files := []string{`"data/results.csv"`}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("more%d.csv", i)
		os.WriteFile(filepath.Join(study, "data", name), []byte(fmt.Sprintf("dataset,method,metric,value\nd%d,A,m,1\nd%d,B,m,2\n", i+3, i+3)), 0o644)
		files = append(files, `"data/`+name+`"`)
	}
	manifest := filepath.Join(study, "study.toml")
	src, _ := os.ReadFile(manifest)
	os.WriteFile(manifest, []byte(strings.Replace(string(src), `results = "data/results.csv"`, "results = ["+strings.Join(files, ", ")+"]", 1)), 0o644)
	return filepath.Join(study, "data")
}
