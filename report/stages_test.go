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
// readers (report/input), the engine's SQL, and the pure writers
// (report/paper, then report/site, whose model types such as BibEntry
// the later stages fill). Then the manifest, the per-build input state
// (report/load), the build (orchestration with, for now, the kinds as
// files of an earlier stage, fileStage), and pack and verify.
var packageStages = map[string]int{
	"report/input":    0,
	"report/engine":   0,
	"report/paper":    0,
	"report/site":     1,
	"report/manifest": 1,
	"report/load":     2,
	"report":          3,
	"report/archive":  4,
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

// fileStage orders the files of package report: the kinds (2:
// per-analysis glue), the orchestration (3). (Stage 1, the per-build
// input state, is report/load.)
// A file may use declarations of its own or an earlier stage only, so
// each group can move to a package of its own.
func fileStage(name string) (int, bool) {
	switch {
	case kindFiles[name] || strings.HasPrefix(name, "kind_"):
		return 2, true
	case orchestrationFiles[name]:
		return 3, true
	}
	return 0, false
}

var kindFiles = map[string]bool{"kind.go": true, "kinds.go": true, "job.go": true, "notes.go": true}

var orchestrationFiles = map[string]bool{
	"doc.go": true, "build.go": true, "cache.go": true, "diskcache.go": true, "provenance.go": true,
	"sitemodel.go": true, "output.go": true, "output_unix.go": true, "output_windows.go": true,
	"serve.go": true, "scaffold.go": true, "archive_build.go": true, "archive_include.go": true,
	"buildtest.go": true, "page_limits.go": true,
}

// TestFileStageOrder type-checks package report and fails when a file
// uses a declaration of a file of a later stage (fileStage), or when a
// file has no stage. The graph is internal/tools/filedeps's: print it
// with `go run ./internal/tools/filedeps/cmd ./report`.
func TestFileStageOrder(t *testing.T) {
	p, err := filedeps.Load(".")
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for name := range p.Files {
		if _, ok := fileStage(name); !ok {
			bad = append(bad, name+": a file without a stage (add it to fileStage's lists)")
		}
	}
	for _, e := range p.Edges() {
		from, _ := fileStage(e.From)
		to, _ := fileStage(e.To)
		if from < to {
			bad = append(bad, e.From+" uses "+e.To+" (a later stage): "+strings.Join(e.Names, ", "))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		t.Errorf("report's files against the stage order:\n%s", strings.Join(bad, "\n"))
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
