package main

import (
	"bytes"
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
	demoOnce.Do(func() {
		dir, err := os.MkdirTemp("", "evalbook-demo-")
		if err != nil {
			demoErr = err
			return
		}
		root := repoRoot(t)
		cmd := exec.Command("go", "run", "./sites/demo/gen", dir, filepath.Join(root, "sites", "demo", "manifest.d"))
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			demoErr = err
			t.Logf("%s", out)
		}
		demoDir = dir
	})
	if demoErr != nil {
		t.Fatalf("demo generator: %v", demoErr)
	}
	return demoDir
}

func TestMain(m *testing.M) {
	// The disk cache of these tests' builds lives and dies with them.
	cache, err := os.MkdirTemp("", "evalbook-cache-")
	if err == nil {
		os.Setenv("XDG_CACHE_HOME", cache)
	}
	code := m.Run()
	os.RemoveAll(cache)
	if demoDir != "" {
		os.RemoveAll(demoDir)
	}
	os.Exit(code)
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

// TestDemoDeterministic: two builds of the demo are byte-identical, and
// so are builds with --jobs 1 and --jobs 8, and a build whose analyses
// come from the disk cache; the build takes under 5 s.
func TestDemoDeterministic(t *testing.T) {
	demo := generatedDemo(t)
	out := t.TempDir()
	// An empty cache of our own: builds a, b and j1 compute everything
	// (--no-cache); c1 computes and fills the cache, c2 reads it back.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	builds := []struct {
		name string
		jobs string
		flag string
	}{{"a", "8", "--no-cache"}, {"b", "8", "--no-cache"}, {"j1", "1", "--no-cache"}, {"c1", "2", ""}, {"c2", "2", ""}}
	sites := map[string]map[string]string{}
	for _, b := range builds {
		dir := filepath.Join(out, b.name)
		start := time.Now()
		args := []string{"build", filepath.Join(demo, "study.toml"), "-o", dir, "--jobs", b.jobs, "--quiet", "--format", "both"}
		if b.flag != "" {
			args = append(args, b.flag)
		}
		code, _, errOut := runCLI(args...)
		elapsed := time.Since(start)
		if code != 0 {
			t.Fatalf("build %s: exit %d: %s", b.name, code, errOut)
		}
		t.Logf("demo build --jobs %s: %v", b.jobs, elapsed)
		if elapsed > 5*time.Second {
			t.Errorf("demo build took %v, want under 5 s", elapsed)
		}
		sites[b.name] = readTree(t, dir)
	}
	if len(sites["a"]) < 10 {
		t.Fatalf("demo site has only %d files", len(sites["a"]))
	}
	for _, other := range []string{"b", "j1", "c1", "c2"} {
		if len(sites[other]) != len(sites["a"]) {
			t.Errorf("build %s has %d files, build a %d", other, len(sites[other]), len(sites["a"]))
		}
		for name, body := range sites["a"] {
			if sites[other][name] != body {
				t.Errorf("%s differs between build a and build %s", name, other)
			}
		}
	}
	t.Logf("%d files compared, GOMAXPROCS %d", len(sites["a"]), runtime.GOMAXPROCS(0))
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
	if code, _, errOut := runCLI("build", dir, "--quiet"); code != 0 {
		t.Fatalf("build of the scaffold: exit %d: %s", code, errOut)
	}
	if code, _, _ := runCLI("init", dir); code != 1 {
		t.Errorf("init over an existing study: exit %d, want 1", code)
	}
}

// TestDemoFindings: the overview lists a key finding for every analysis
// that offers one, and the demo exercises every registered analysis type.
func TestDemoFindings(t *testing.T) {
	demo := generatedDemo(t)
	out := filepath.Join(t.TempDir(), "site")
	if code, _, errOut := runCLI("build", filepath.Join(demo, "study.toml"), "-o", out, "--quiet"); code != 0 {
		t.Fatal(errOut)
	}
	index, _ := os.ReadFile(filepath.Join(out, "index.html"))
	manifest, _ := os.ReadFile(filepath.Join(demo, "study.toml"))
	for _, typ := range report.Kinds().Types() {
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
