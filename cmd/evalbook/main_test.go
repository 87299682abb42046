package main

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalbook/evalbook/report"
	"github.com/evalbook/evalbook/report/kinds"
)

// repoRoot is the module root, two levels up from this package.
func repoRoot(t testing.TB) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

var (
	demoOnce sync.Once
	demoDir  string
	demoErr  error
)

// generatedDemo runs the demo generator once per test binary into a
// temporary directory (not the repository's sites/demo).
func generatedDemo(t testing.TB) string {
	t.Helper()
	demoOnce.Do(generateDemo)
	if demoErr != nil {
		t.Fatalf("demo generator: %v", demoErr)
	}
	return demoDir
}

func generateDemo() {
	dir, err := os.MkdirTemp("", "evalbook-demo-")
	if err != nil {
		demoErr = err
		return
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		demoErr = err
		return
	}
	cmd := exec.Command("go", "run", "./sites/demo/gen", dir, filepath.Join(root, "sites", "demo", "manifest.d"))
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		demoErr = fmt.Errorf("%v: %s", err, out)
	}
	demoDir = dir
}

func TestMain(m *testing.M) {
	// This test binary is evalbook too: tests that run the command as a
	// user would (the pages workflow's steps) call it under the name
	// evalbook with this variable set, instead of building the command a
	// second time (20-30 s of compiling and linking).
	if os.Getenv(asCommandEnv) == "1" {
		main()
	}
	// The go command keeps its build cache under XDG_CACHE_HOME unless
	// GOCACHE says otherwise: pin it before XDG_CACHE_HOME moves, or the
	// demo generator's `go run` compiles the standard library again into
	// an empty cache (40 s on the project machine, once per test binary).
	if os.Getenv("GOCACHE") == "" {
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
			os.Setenv("GOCACHE", strings.TrimSpace(string(out)))
		}
	}
	// The disk cache of these tests' builds lives and dies with them.
	cache, err := os.MkdirTemp("", "evalbook-cache-")
	if err == nil {
		os.Setenv("XDG_CACHE_HOME", cache)
	}
	// A full run (no -run, no -short) starts what most tests wait for
	// while the first tests run: the demo's build (demoSite, then
	// singleFileSite) and the shared Chromium.
	flag.Parse()
	if run := flag.Lookup("test.run"); !testing.Short() && run != nil && run.Value.String() == "" {
		go singleFileSiteOnce()
		go startChromium()
	}
	code := m.Run()
	stopChromium()
	os.RemoveAll(cache)
	if demoDir != "" {
		os.RemoveAll(demoDir)
	}
	for _, site := range []string{demoSiteDir, singleFileDir} {
		if site != "" {
			os.RemoveAll(filepath.Dir(site))
		}
	}
	os.Exit(code)
}

// asCommandEnv makes the test binary run as the evalbook command.
const asCommandEnv = "EVALBOOK_TEST_AS_COMMAND"

// commandOnPath writes bin/evalbook, a script that runs this test binary
// as the evalbook command, and returns bin.
func commandOnPath(t *testing.T, dir string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\n" + asCommandEnv + "=1 exec '" + self + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "evalbook"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func runCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	if code, _, _ := runCLI(); code != 2 {
		t.Errorf("no command: exit %d, want 2", code)
	}
	if code, _, errOut := runCLI("bild"); code != 2 || !strings.Contains(errOut, `unknown command "bild"`) {
		t.Errorf("unknown command: exit %d, %q", code, errOut)
	}
	if code, _, _ := runCLI("build", "--format", "pdf"); code != 2 {
		t.Errorf("bad --format: exit %d, want 2", code)
	}
	if code, _, _ := runCLI("build", "--nope"); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
	if code, _, _ := runCLI("build", "a.toml", "b.toml"); code != 2 {
		t.Errorf("two manifests: exit %d, want 2", code)
	}
	if code, out, _ := runCLI("version"); code != 0 || !strings.HasPrefix(out, "evalbook ") {
		t.Errorf("version: exit %d, %q", code, out)
	}
	if code, _, errOut := runCLI("build", filepath.Join(t.TempDir(), "none.toml")); code != 1 || !strings.Contains(errOut, "none.toml") {
		t.Errorf("missing manifest: exit %d, %q", code, errOut)
	}
}

// TestBadValueExitCode: `abc` in a results file exits 1 naming
// results.csv:LINE:COLUMN and leaves the existing site as it was.
func TestBadValueExitCode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "study.toml"), []byte("title = \"t\"\n[inputs]\nresults = \"results.csv\"\n[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"m\"\n"), 0o644)
	good := "dataset,method,metric,value\nd1,A,m,1\nd1,B,m,2\nd2,A,m,3\nd2,B,m,1\n"
	os.WriteFile(filepath.Join(dir, "results.csv"), []byte(good), 0o644)
	if code, _, errOut := runCLI("build", filepath.Join(dir, "study.toml"), "--quiet"); code != 0 {
		t.Fatalf("good build: exit %d: %s", code, errOut)
	}
	index, _ := os.ReadFile(filepath.Join(dir, "site", "lb.html"))
	os.WriteFile(filepath.Join(dir, "results.csv"), []byte(strings.Replace(good, "d2,A,m,3", "d2,A,m,abc", 1)), 0o644)
	code, _, errOut := runCLI("build", filepath.Join(dir, "study.toml"))
	if code != 1 || !strings.Contains(errOut, `results.csv:4:8: not a number: "abc"`) {
		t.Fatalf("bad value: exit %d, stderr %q", code, errOut)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "site", "lb.html"))
	if !bytes.Equal(index, after) || len(after) == 0 {
		t.Fatal("the previous site was changed by a failed build")
	}
	if code, _, errOut := runCLI("validate", filepath.Join(dir, "study.toml")); code != 1 || !strings.Contains(errOut, "results.csv:4:8") {
		t.Fatalf("validate: exit %d, %q", code, errOut)
	}
}

// demoSiteArgs is how demoSite builds the demo: concurrently, HTML and
// Markdown, with the disk cache of the test binary (empty when the
// binary starts, see TestMain: demoSite computes every analysis and
// fills it; the builds after it read it back).
var demoSiteArgs = []string{"--jobs", "8", "--format", "both"}

var (
	demoSiteOnce sync.Once
	demoSiteDir  string
	demoSiteErr  string

	singleFileOnce sync.Once
	singleFileDir  string
	singleFileErr  string
)

// demoSite builds the generated demo once per test binary (demoSiteArgs)
// into a temporary directory and returns the site, for the tests that
// only read it. A test that writes to a site builds its own.
func demoSite(t testing.TB) string {
	t.Helper()
	generatedDemo(t)
	demoSiteOnce.Do(buildDemoSite)
	if demoSiteErr != "" {
		t.Fatalf("demo build: %s", demoSiteErr)
	}
	return demoSiteDir
}

func buildDemoSite() {
	demoOnce.Do(generateDemo)
	if demoErr != nil {
		demoSiteErr = demoErr.Error()
		return
	}
	dir, err := os.MkdirTemp("", "evalbook-demo-site-")
	if err != nil {
		demoSiteErr = err.Error()
		return
	}
	demoSiteDir = filepath.Join(dir, "site")
	args := append([]string{"build", filepath.Join(demoDir, "study.toml"), "-o", demoSiteDir, "--quiet"}, demoSiteArgs...)
	if code, _, errOut := runCLI(args...); code != 0 {
		demoSiteErr = fmt.Sprintf("exit %d: %s", code, errOut)
	}
}

// singleFileSite builds the demo with --single-file once per test binary
// (after demoSite, whose analyses it reads from the cache) and returns
// the site, for the tests that only read it.
func singleFileSite(t testing.TB) string {
	t.Helper()
	demoSite(t)
	singleFileSiteOnce()
	if singleFileErr != "" {
		t.Fatalf("single-file demo build: %s", singleFileErr)
	}
	return singleFileDir
}

func singleFileSiteOnce() {
	demoSiteOnce.Do(buildDemoSite)
	singleFileOnce.Do(func() {
		if demoSiteErr != "" {
			singleFileErr = demoSiteErr
			return
		}
		dir, err := os.MkdirTemp("", "evalbook-demo-single-")
		if err != nil {
			singleFileErr = err.Error()
			return
		}
		singleFileDir = filepath.Join(dir, "site")
		if code, _, errOut := runCLI("build", filepath.Join(demoDir, "study.toml"), "-o", singleFileDir, "--quiet", "--single-file"); code != 0 {
			singleFileErr = fmt.Sprintf("exit %d: %s", code, errOut)
		}
	})
}

// TestDemoDeterministic: builds of the demo are byte-identical whatever
// their concurrency and wherever their analyses come from: demoSite's
// (--jobs 8, computing every analysis and filling the cache), one with
// --jobs 1 computing everything again (--no-cache), and one with --jobs 2
// reading every analysis back from the cache; validate accepts the demo
// as build does. The two builds and validate run at once. With -short
// (the quick loop) it makes the cache read alone.
func TestDemoDeterministic(t *testing.T) {
	t.Parallel()
	demo := generatedDemo(t)
	ref := readTree(t, demoSite(t))
	type build struct{ name, jobs, flag string }
	builds := []build{{"j1", "1", "--no-cache"}, {"c2", "2", ""}}
	if testing.Short() {
		builds = builds[1:]
	}
	out := t.TempDir()
	var wg sync.WaitGroup
	failures := make([]string, len(builds)+1)
	sites := make([]map[string]string, len(builds))
	for i, b := range builds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := filepath.Join(out, b.name)
			args := []string{"build", filepath.Join(demo, "study.toml"), "-o", dir, "--jobs", b.jobs, "--quiet", "--format", "both"}
			if b.flag != "" {
				args = append(args, b.flag)
			}
			start := time.Now()
			if code, _, errOut := runCLI(args...); code != 0 {
				failures[i] = fmt.Sprintf("build %s: exit %d: %s", b.name, code, errOut)
				return
			}
			t.Logf("demo build --jobs %s %s: %v", b.jobs, b.flag, time.Since(start)) // printed, never asserted: the machines are shared
			sites[i] = readTree(t, dir)
		}()
	}
	if !testing.Short() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code, _, errOut := runCLI("validate", filepath.Join(demo, "study.toml")); code != 0 {
				failures[len(builds)] = fmt.Sprintf("validate rejects the demo that build accepts: exit %d: %s", code, errOut)
			}
		}()
	}
	wg.Wait()
	for _, f := range failures {
		if f != "" {
			t.Fatal(f)
		}
	}
	if len(ref) < 10 {
		t.Fatalf("demo site has only %d files", len(ref))
	}
	for i, b := range builds {
		other := sites[i]
		if len(other) != len(ref) {
			t.Errorf("build %s has %d files, demoSite's %d", b.name, len(other), len(ref))
		}
		for name, body := range ref {
			if other[name] != body {
				t.Errorf("%s differs between demoSite's build and build %s", name, b.name)
			}
		}
	}
	t.Logf("%d files compared, GOMAXPROCS %d", len(ref), runtime.GOMAXPROCS(0))
	// The demo's meta-analysis of published numbers shows its sensitivity
	// analysis (issue 15): the funnel plot and the leave-one-out table.
	for _, f := range []string{"figures/meta-lightgcn-vs-bpr-papers-funnel.svg", "data/meta-lightgcn-vs-bpr-papers-leave-one-out.csv", "data/meta-lightgcn-vs-bpr-papers-influence.csv"} {
		if ref[f] == "" {
			t.Errorf("the demo site has no %s", f)
		}
	}
	if !strings.Contains(ref["meta-lightgcn-vs-bpr-papers.html"], "funnel") {
		t.Error("the demo's meta-analysis page does not show the funnel plot")
	}
}

func readTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = string(b)
		return err
	})
	return m
}

func TestInitThenBuild(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "study")
	if code, out, errOut := runCLI("init", dir); code != 0 || !strings.Contains(out, "evalbook build") {
		t.Fatalf("init: exit %d: %s %s", code, out, errOut)
	}
	if code, out, errOut := runCLI("build", dir); code != 0 || strings.Contains(out, "from the cache") {
		t.Fatalf("build of the scaffold: exit %d: %s %s", code, out, errOut)
	}
	// built again: the build says its analyses came from the cache
	code, out, errOut := runCLI("build", dir)
	m := regexp.MustCompile(`built (\d+) analys[a-z]+ and \d+ pages? in [0-9.]+s \((\d+) from the cache\)\n`).FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] != m[2] {
		t.Fatalf("build of the scaffold again: exit %d: %q %s", code, out, errOut)
	}
	if code, _, _ := runCLI("init", dir); code != 1 {
		t.Errorf("init over an existing study: exit %d, want 1", code)
	}
}

// TestDemoFindings: the overview lists a key finding for every analysis
// that offers one, and the demo exercises every registered analysis type.
// It checks a site and runs nothing concurrently: not in the race pass.
func TestDemoFindings(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs without -short: it reads a demo build, which the race pass need not make again")
	}
	demo := generatedDemo(t)
	out := demoSite(t)
	index, _ := os.ReadFile(filepath.Join(out, "index.html"))
	manifest, _ := os.ReadFile(filepath.Join(demo, "study.toml"))
	for _, typ := range kinds.Kinds().Types() {
		if !regexp.MustCompile(`(?m)^type\s*=\s*"` + typ + `"`).Match(manifest) {
			t.Errorf("the demo study has no %s analysis", typ)
		}
	}
	if n := strings.Count(string(index), `<section class="findings">`); n != 1 {
		t.Fatalf("overview has %d findings sections", n)
	}
	section := string(index)[strings.Index(string(index), `<section class="findings">`):]
	section = section[:strings.Index(section, "</section>")]
	if items := strings.Count(section, "<li>"); items < 5 {
		t.Errorf("only %d key findings on the overview", items)
	}
}

// treeOf describes everything under root: files by content, directories
// and symbolic links by kind.
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&os.ModeSymlink != 0:
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

func sameTreeOf(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for name, b := range before {
		if a, ok := after[name]; !ok || a != b {
			t.Errorf("%s: %s was removed or changed", what, name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("%s: %s was added", what, name)
		}
	}
}

// writeSmallStudy writes a study with its data and pages in folders.
func writeSmallStudy(t *testing.T, dir string) {
	t.Helper()
	for name, body := range map[string]string{
		"study.toml":       "title = \"t\"\n[inputs]\nresults = \"data/results.csv\"\n[[pages]]\ntitle = \"Notes\"\nsource = \"pages/notes.md\"\n[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"m\"\n",
		"data/results.csv": "dataset,method,metric,value\nd1,A,m,1\nd1,B,m,2\nd2,A,m,3\nd2,B,m,1\n",
		"pages/notes.md":   "# Notes\n\nProse.\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBuildRefusesUnsafeOutput: `build -o` with the study directory, its
// data folder, its parent, an existing file or a directory evalbook did
// not write exits 1 with a message saying why, and changes no byte of
// the study, its neighbours or the would-be output.
func TestBuildRefusesUnsafeOutput(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	study := filepath.Join(root, "study")
	writeSmallStudy(t, study)
	os.WriteFile(filepath.Join(root, "notes.txt"), []byte("my notes\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "other"), 0o755)
	os.WriteFile(filepath.Join(root, "other", "thesis.tex"), []byte("\\documentclass{article}\n"), 0o644)
	for _, c := range []struct{ out, want string }{
		{study, "refusing to write the site into the study directory " + study + ", which it would replace; choose a directory of its own, such as " + filepath.Join(study, "site")},
		{filepath.Join(study, "data"), "refusing to replace " + filepath.Join(study, "data") + ": it holds the study's input " + filepath.Join(study, "data", "results.csv")},
		{filepath.Join(study, "pages"), "it holds the study's page " + filepath.Join(study, "pages", "notes.md")},
		{root, "refusing to replace " + root + ": it holds the study directory " + study},
		{filepath.Join(root, "notes.txt"), filepath.Join(root, "notes.txt") + " is an existing file, not a site directory"},
		{filepath.Join(root, "other"), filepath.Join(root, "other") + " is a non-empty directory that evalbook did not write (it has no .evalbook-site file)"},
	} {
		before := treeOf(t, root)
		code, stdout, stderr := runCLI("build", study, "-o", c.out)
		if code != 1 || !strings.HasPrefix(stderr, "evalbook: output "+c.out+": ") || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("build -o %s: exit %d, stdout %q, stderr %q\nwant exit 1 and %q", c.out, code, stdout, stderr, c.want)
		}
		sameTreeOf(t, "build -o "+c.out, before, treeOf(t, root))
	}
	// The default output is fine, built twice (the second replaces the
	// marked site of the first).
	for i := 0; i < 2; i++ {
		if code, _, stderr := runCLI("build", study, "--quiet"); code != 0 {
			t.Fatalf("build %d: exit %d: %s", i, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(study, "site", report.SiteMarker)); err != nil {
		t.Errorf("the site has no marker: %v", err)
	}
}

// TestServeBusyPortExits: serve on an address already in use exits 1
// naming the address, without building or touching the site.
func TestServeBusyPortExits(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	writeSmallStudy(t, dir)
	before := treeOf(t, dir)
	code, _, stderr := runCLI("serve", dir, "--addr", busy.Addr().String())
	if code != 1 || !strings.Contains(stderr, "evalbook: serve: listen tcp "+busy.Addr().String()) || !strings.Contains(stderr, "address already in use") ||
		!strings.Contains(stderr, "choose another with --addr") {
		t.Errorf("serve on a busy port: exit %d, %q", code, stderr)
	}
	sameTreeOf(t, "serve on a busy port", before, treeOf(t, dir))
}

// TestInitRefusesExistingFiles: init into a directory that already holds
// one of the example's files (here a page, with no study.toml) exits 1
// naming it and writes nothing.
func TestInitRefusesExistingFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pages"), 0o755)
	os.WriteFile(filepath.Join(dir, "pages", "findings.md"), []byte("# My own findings\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	os.WriteFile(filepath.Join(dir, "data", "results.csv"), []byte("my,own,data\n"), 0o644)
	before := treeOf(t, dir)
	code, stdout, stderr := runCLI("init", dir)
	want := "evalbook: init: " + dir + " already has pages/findings.md, data/results.csv; init never overwrites a file, so nothing was written"
	if code != 1 || !strings.Contains(stderr, want) || stdout != "" {
		t.Errorf("init over existing files: exit %d, stdout %q, stderr %q\nwant %q", code, stdout, stderr, want)
	}
	sameTreeOf(t, "init", before, treeOf(t, dir))
}

// --allow-outside lets a study read a file beside it; without it the
// build fails naming the file, and a bad --max-decompressed is a usage
// error (exit 2).
func TestInputFlags(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	study := filepath.Join(root, "s")
	os.MkdirAll(study, 0o755)
	os.WriteFile(filepath.Join(root, "results.csv"), []byte("dataset,method,metric,value\nd1,A,m,1\nd1,B,m,2\nd2,A,m,2\nd2,B,m,1\n"), 0o644)
	os.WriteFile(filepath.Join(study, "study.toml"), []byte("title = \"t\"\n[inputs]\nresults = \"../results.csv\"\n[[analyses]]\nid = \"a\"\ntype = \"aggregate\"\nmetric = \"m\"\n"), 0o644)
	code, _, errOut := runCLI("build", filepath.Join(study, "study.toml"), "--no-cache", "--quiet")
	if code != 1 || !strings.Contains(errOut, "../results.csv: outside the study directory") {
		t.Fatalf("without --allow-outside: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI("build", filepath.Join(study, "study.toml"), "--no-cache", "--quiet", "--allow-outside"); code != 0 {
		t.Fatalf("with --allow-outside: exit %d: %s", code, errOut)
	}
	prov, err := os.ReadFile(filepath.Join(study, "site", "data", "provenance.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(prov), root) || !strings.Contains(string(prov), `"path": "results.csv"`) {
		t.Errorf("provenance publishes a host path or lacks the file:\n%s", prov)
	}
	if code, _, errOut := runCLI("validate", filepath.Join(study, "study.toml"), "--allow-outside", "--max-decompressed", "12Q"); code != 2 || !strings.Contains(errOut, "--max-decompressed") {
		t.Errorf("bad size: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI("validate", filepath.Join(study, "study.toml"), "--allow-outside", "--max-decompressed", "8G"); code != 0 {
		t.Errorf("8G: exit %d: %s", code, errOut)
	}
}
