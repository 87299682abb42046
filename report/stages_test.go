package report

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/internal/tools/filedeps"
)

// packageStages orders report's packages as a build runs through them
// (docs/ARCHITECTURE.md): a package may import only packages of an
// earlier stage. The libraries no stage precedes come first: the
// readers (report/input/parquet, then report/input over it, then the
// ranked runs' report/input/runs), the engine's SQL (then
// report/load/engines, its glue to a build), and the pure writers
// (report/paper, then report/site, whose model types such as BibEntry
// the later stages fill; report/site/explore, the Explore page's pure core,
// before both the site and its WebAssembly command). Then the manifest, the per-build input state
// (report/load), the kinds (report/kinds), the build (report: phases,
// cache, provenance, output, serve), and pack and verify.
var packageStages = map[string]int{
	"report/input/parquet":     0,
	"report/input":             1,
	"report/input/runs":        2,
	"report/input/bib":         2,
	"report/engine":            0,
	"report/cachefmt":          0,
	"report/paper":             0,
	"report/site":              1,
	"report/site/explore":      0,
	"report/site/explore/wasm": 1,
	"report/manifest":          2,
	"report/load/engines":      2,
	"report/load":              3,
	"report/kinds":             4,
	"report":                   5,
	"report/archive":           6,
}

// TestPackageStageOrder fails when a report package imports one of a
// later (or the same) stage, or when a report package has no stage.
func TestPackageStageOrder(t *testing.T) {
	const mod = "github.com/evalbook/evalbook/"
	var bad []string
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" || d.Name() == "notes" {
			return filepath.SkipDir
		}
		pkg := filepath.ToSlash(filepath.Join("report", p))
		imports, n := packageImports(t, p)
		if n == 0 {
			return nil
		}
		stage, ok := packageStages[pkg]
		if !ok {
			bad = append(bad, pkg+": a package without a stage (add it to packageStages)")
			return nil
		}
		for _, im := range imports {
			dep, ok := strings.CutPrefix(im, mod)
			if !ok || !(dep == "report" || strings.HasPrefix(dep, "report/")) {
				continue
			}
			if ds, ok := packageStages[dep]; !ok || ds >= stage {
				bad = append(bad, pkg+" imports "+dep+": a later stage")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		t.Errorf("report's packages against the stage order:\n%s", strings.Join(bad, "\n"))
	}
}

// manifestFree are the input stage's packages, which take a plain config
// (load.Config, built by report from the manifest) and must not see the
// manifest at all, not even through another package.
var manifestFree = []string{"report/input", "report/input/runs", "report/load", "report/load/engines"}

// TestInputStageWithoutManifest fails when a package of manifestFree
// imports report/manifest, directly or through the module's other
// packages (as go list -deps would show it).
func TestInputStageWithoutManifest(t *testing.T) {
	const mod = "github.com/evalbook/evalbook/"
	for _, pkg := range manifestFree {
		seen := map[string]string{pkg: ""} // package → the package that imports it
		queue := []string{pkg}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			if p == "report/manifest" {
				var path []string
				for q := p; q != ""; q = seen[q] {
					path = append([]string{q}, path...)
				}
				t.Errorf("%s imports report/manifest (%s): the input stage takes load.Config, built in report", pkg, strings.Join(path, " → "))
				break
			}
			imports, _ := packageImports(t, filepath.Join("..", filepath.FromSlash(p)))
			for _, im := range imports {
				dep, ok := strings.CutPrefix(im, mod)
				if _, done := seen[dep]; ok && !done {
					seen[dep] = p
					queue = append(queue, dep)
				}
			}
		}
	}
}

// packageImports lists the imports of a directory's non-test Go files
// and how many such files it has.
func packageImports(t *testing.T, dir string) ([]string, int) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	n := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		n++
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			out = append(out, strings.Trim(im.Path.Value, `"`))
		}
	}
	return out, n
}

// fileStages orders the files of a package whose files come in stages:
// a file may use declarations of its own or an earlier stage only, so
// each stage reads without the later ones and could move out whole.
var fileStages = map[string]func(name string) (int, bool){
	// report/kinds: the per-analysis glue (Kind, Job, method notes, the
	// register each kind's file calls) < one file per analysis type < the
	// registry they fill.
	"kinds": func(name string) (int, bool) {
		switch {
		case name == "kind.go" || name == "job.go" || name == "notes.go":
			return 1, true
		case strings.HasPrefix(name, "kind_"):
			return 2, true
		case name == "kinds.go":
			return 3, true
		}
		return 0, false
	},
	// report: the build (phases, cache, provenance, site model, output
	// swap) < the commands over it (serve, init, pack and verify, the
	// test helpers).
	".": func(name string) (int, bool) {
		switch name {
		case "doc.go", "build.go", "cache.go", "diskcache.go", "provenance.go", "sitecache.go", "sitemodel.go", "siteexplore.go",
			"output.go", "output_unix.go", "output_windows.go":
			return 1, true
		case "serve.go", "scaffold.go", "archive_build.go", "archive_include.go", "buildtest.go":
			return 2, true
		}
		return 0, false
	},
}

// TestFileStageOrder type-checks report and report/kinds and fails when
// a file uses a declaration of a file of a later stage (fileStages), or
// when a file has no stage. The graph is internal/tools/filedeps's:
// print it with `go run ./internal/tools/filedeps/cmd ./report`.
func TestFileStageOrder(t *testing.T) {
	for dir, stage := range fileStages {
		p, err := filedeps.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		var bad []string
		for name := range p.Files {
			if _, ok := stage(name); !ok {
				bad = append(bad, name+": a file without a stage (add it to fileStages)")
			}
		}
		for _, e := range p.Edges() {
			from, _ := stage(e.From)
			to, _ := stage(e.To)
			if from < to {
				bad = append(bad, e.From+" uses "+e.To+" (a later stage): "+strings.Join(e.Names, ", "))
			}
		}
		if len(bad) > 0 {
			sort.Strings(bad)
			t.Errorf("report/%s: files against the stage order:\n%s", dir, strings.Join(bad, "\n"))
		}
	}
}

// TestOptionsWalk prints how a reader following the build's Options from
// Build goes through the files (filedeps.Walk) and fails when the walk
// returns to a file it had left more than 10 times.
func TestOptionsWalk(t *testing.T) {
	p, err := filedeps.Load(".")
	if err != nil {
		t.Fatal(err)
	}
	steps, returns := p.Walk("Build", "Options")
	var b strings.Builder
	for _, s := range steps {
		mark := ""
		if s.Return {
			mark = "  (back)"
		}
		b.WriteString(s.File + "  " + s.Func + mark + "\n")
	}
	t.Logf("the walk from Build following Options:\n%s%d returns to a file it had left", b.String(), returns)
	if len(steps) < 10 {
		t.Fatalf("the walk found %d functions: it no longer follows the options", len(steps))
	}
	if returns > 10 {
		t.Errorf("following the options from Build returns to a file it had left %d times (at most 10):\n%s", returns, b.String())
	}
}

// maxPackageLines bounds a report package's non-test lines, so a stage
// stays one concern a reader can hold; report itself, the orchestration,
// gets less.
const maxPackageLines, maxReportLines = 5000, 4000

// oversized are the packages allowed past maxPackageLines, with why
// (none today: the Parquet reader left report/input for
// report/input/parquet).
var oversized = map[string]string{}

// TestPackageSizes fails when a report package's non-test Go files pass
// maxPackageLines lines (report: maxReportLines), unless oversized names
// it; and when oversized names a package back under the bound.
func TestPackageSizes(t *testing.T) {
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		pkg := filepath.ToSlash(filepath.Join("report", p))
		lines := packageLines(t, p)
		max := maxPackageLines
		if pkg == "report" {
			max = maxReportLines
		}
		switch why, ok := oversized[pkg]; {
		case lines > max && !ok:
			t.Errorf("%s: %d non-test lines, over %d: split it into stages", pkg, lines, max)
		case lines <= max && ok:
			t.Errorf("%s: %d non-test lines, under %d: drop it from oversized (%s)", pkg, lines, max, why)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// packageLines counts the lines of a directory's non-test Go files.
func packageLines(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		n += strings.Count(string(b), "\n")
	}
	return n
}
