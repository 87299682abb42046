package report

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
)

// readers are the calls that read a file's bytes or list a directory.
// Only report/input (and the few files named in allowedReaders) may make
// them; everything else reads through it, so the cache, serve's watch
// list and the provenance can never miss a file (issues 14 and 19).
var readers = map[string]bool{
	"os.Open": true, "os.OpenFile": true, "os.ReadFile": true, "os.ReadDir": true, "os.DirFS": true,
	"filepath.Glob": true, "filepath.WalkDir": true, "filepath.Walk": true, "fs.ReadFile": true,
	"fs.ReadDir": true, "fs.Glob": true, "fs.WalkDir": true,
	// report/input's openers (and report/input/runs'), called only by the
	// files allowed below; report/input/parquet's Open, called by none
	// (a Parquet file opens through input.OpenTable)
	"input.OpenTable": true, "input.OpenTableCapped": true, "input.OpenTableHashing": true, "parquet.Open": true, "input.OpenRegular": true, "input.SHA256File": true,
	"runs.OpenCapped": true, "runs.OpenGrouping": true, "runs.ScanTruthCapped": true, "input.OpenLines": true,
	"zip.OpenReader": true,
	// report/input's readers of evalbook's own files (own.go): cache
	// entries, the built site, the output directory, what verify is given
	"input.ReadOwn": true, "input.OpenOwn": true, "input.ListOwn": true, "input.OpenLock": true, "input.OpenZip": true, "input.OpenSupplied": true,
}

// readerExempt are the directories (relative to the module root, slash
// separated) where no file may read: every package of the tool but
// report/input, which is the layer, and cmd, which only hands paths on.
// sites/ holds the generators of the demo and bench studies (they write
// studies, they are not part of a build), and analyses/internal/testutil
// is imported only by tests, to read reference data (checked: no
// non-test file imports it).
var readerExempt = map[string]string{
	"report/input":               "the input layer itself",
	"cmd":                        "the command line: flags, paths, and its own tests",
	"sites":                      "generators of the demo and bench studies, not part of a build",
	"analyses/internal/testutil": "imported only by tests, to read published reference data",
	"figures/internal/imgtest":   "imported only by tests, to render and compare PDF pages",
	"node_modules":               "npm's, not Go",
	"internal/tools":             "developer tools that read the module's Go source and export data, not part of a build",
}

// allowedReaders: file (relative to the module root) → why it may call
// an os-level reader itself. Neither reads a file: one writes, one reads
// what is compiled into the binary.
var allowedReaders = map[string]string{
	"report/scaffold.go": "evalbook init writes a new study's files (os.OpenFile, write-only, never over an existing file)",
	"themes/themes.go":   "reads its own embedded assets (embed.FS), not files",
}

// openerCallers: file → why it may call report/input's openers and
// readers (the input.* entries of readers), though never the os-level
// readers: the views of the input layer that have not moved to
// report/input yet, which check and record every file before opening
// it, and the readers of evalbook's own files (report/input/own.go).
var openerCallers = map[string]string{
	"report/load/inputs.go":       "the input layer's per-analysis views (checkFile, noteFile, then open), until they move to report/input",
	"report/manifest/manifest.go": "the manifest itself, read before there are inputs (and hashed into the provenance)",
	"report/diskcache.go":         "the cache directory's own entries and the tool binary's hash, not study inputs",
	"report/sitecache.go":         "the cache directory's entries of rendered sites, not study inputs",
	"report/serve.go":             "serves the built site, not study inputs",
	"report/output.go":            "checks what the output directory holds and locks it, not study inputs",
	"report/archive_build.go":     "evalbook pack and verify: the files as the build recorded them, the zip and the inputs given with --inputs",
	"report/archive_include.go":   "evalbook pack --include: hashes the raw files and scripts it adds (input.ExpandIncludes checked them)",
}

// inputImporters are the packages that may import report/input: the
// build, and the manifest, which reads study.toml through it and shares
// its rules for names (formula starts, bad bytes).
var inputImporters = map[string]string{
	"report":              "the build and its per-analysis views",
	"report/manifest":     "reads study.toml (input.OpenRegular) and checks names by the input layer's rules",
	"report/load":         "the per-build input state: per-analysis views over the readers",
	"report/load/engines": "positioned errors (input.InputError) at an engine entry's manifest line; opens no file",
	"report/kinds":        "the readers' types and positioned errors (a Job's OpenTable gives an *input.TableReader); no opener is called (checked below)",
}

// goFiles lists the module's non-test Go files outside readerExempt,
// relative to the module root.
func goFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if _, ok := readerExempt[rel]; ok || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") && !strings.HasSuffix(rel, "buildtest.go") {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEveryReadGoesThroughTheInputLayer fails when code outside the input
// layer opens, reads, lists or globs files (the bypass that made cached
// builds stale): add the read to report/input instead. It also fails when
// a package other than report (or report/manifest) imports report/input: the kinds and the
// analyses read through report's declared inputs, never the readers.
func TestEveryReadGoesThroughTheInputLayer(t *testing.T) {
	root := ".."
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	files := goFiles(t, root)
	var bad []string
	seen := map[string]bool{}
	for _, rel := range files {
		seen[rel] = true
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			layer := im.Path.Value == `"github.com/evalbook/evalbook/report/input"` || strings.HasPrefix(im.Path.Value, `"github.com/evalbook/evalbook/report/input/`)
			if layer && inputImporters[path.Dir(rel)] == "" {
				bad = append(bad, rel+": imports "+im.Path.Value+" (only the packages of inputImporters read through the input layer)")
			}
			for _, testOnly := range []string{"analyses/internal/testutil", "figures/internal/imgtest"} {
				if im.Path.Value == `"github.com/evalbook/evalbook/`+testOnly+`"` {
					bad = append(bad, rel+": imports "+testOnly+", which reads files and is for tests only (readerExempt)")
				}
			}
		}
		if _, ok := allowedReaders[rel]; ok {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var fn string
			switch x := call.Fun.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok {
					fn = id.Name + "." + x.Sel.Name
				}
			case *ast.Ident:
				fn = x.Name
			}
			layer := strings.HasPrefix(fn, "input.") || strings.HasPrefix(fn, "runs.") // report/input, report/input/runs
			if readers[fn] && !(layer && openerCallers[rel] != "") {
				bad = append(bad, fset.Position(call.Pos()).String()+": "+fn)
			}
			return true
		})
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("files read outside the input layer (read them through report/input):\n%s", strings.Join(bad, "\n"))
	}
	// Every exception names a file that exists, so none outlives its
	// reason unnoticed.
	for rel := range allowedReaders {
		if !seen[rel] {
			t.Errorf("allowedReaders names %s, which is not a Go file of the module", rel)
		}
	}
	for rel := range openerCallers {
		if !seen[rel] {
			t.Errorf("openerCallers names %s, which is not a Go file of the module", rel)
		}
	}
	// The walk saw the packages it guards.
	for _, want := range []string{"report/build.go", "report/kinds/kind_meta.go", "analyses/result.go", "analyses/meta/meta.go", "figures/aggregate.go"} {
		if !seen[want] {
			t.Errorf("the walk missed %s", want)
		}
	}
}

// TestValidateAgreesWithBuild: validate succeeds exactly when build does,
// with the same messages — including a study whose aggregate needs a
// metric that only an offline_metrics analysis derives (validate used to
// read the results before the derivation and reject it).
func TestValidateAgreesWithBuild(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	everyKindStudy(t, dir)
	opts := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", NoCache: true, Out: filepath.Join(t.TempDir(), "site")}
	check := func(name string) {
		t.Helper()
		_, verr := Validate(context.Background(), opts)
		_, berr := Build(context.Background(), opts)
		vs, bs := "", ""
		if verr != nil {
			vs = verr.Error()
		}
		if berr != nil {
			bs = berr.Error()
		}
		if vs != bs {
			t.Errorf("%s: validate says %q, build says %q", name, vs, bs)
		}
	}
	check("every kind of file (an aggregate over a derived metric)")
	// Plant faults of every stage: a bad value, an unknown metric, a
	// missing page, a bad truth file.
	faults := []struct{ file, from, to string }{
		{"results/part1.csv", "d1,A,ndcg@10,", "d1,A,ndcg@10,x"},
		{"study.toml", `metric = "ndcg@5"`, `metric = "ndcg@50"`},
		{"study.toml", `source = "notes.md"`, `source = "missing.md"`},
		{"truth/o1.csv", "u0,i0,", "u0,i0,abc"},
		{"notes.md", "{{value agg", "{{value nope"},
	}
	if raceEnabled {
		// The race pass plants one fault, the one that fails on the feeding
		// phase's goroutines; the full pass plants every one.
		faults = faults[3:4]
	}
	for _, f := range faults {
		p := filepath.Join(dir, f.file)
		orig, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(orig), f.from) {
			t.Fatalf("%s has no %q", f.file, f.from)
		}
		os.WriteFile(p, []byte(strings.Replace(string(orig), f.from, f.to, 1)), 0o644)
		check(f.file + ": " + f.to)
		if _, err := Validate(context.Background(), opts); err == nil {
			t.Errorf("%s: %q was accepted", f.file, f.to)
		}
		os.WriteFile(p, orig, 0o644)
	}
}

// The decompressed-size cap reaches the ranked-run and truth readers too.
func TestDecompressedCapReachesRuns(t *testing.T) {
	dir := t.TempDir()
	everyKindStudy(t, dir)
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write([]byte("user,item,relevance\n"))
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(w, "u%d,i%d,1\n", i, i)
	}
	w.Close()
	os.Remove(filepath.Join(dir, "truth", "o1.csv"))
	os.WriteFile(filepath.Join(dir, "truth", "o1.csv.gz"), buf.Bytes(), 0o644)
	src, _ := os.ReadFile(filepath.Join(dir, "study.toml"))
	os.WriteFile(filepath.Join(dir, "study.toml"), bytes.Replace(src, []byte(`truth = "truth/{dataset}.csv"`), []byte(`truth = "truth/{dataset}.csv*"`), 1), 0o644)
	_, err := Validate(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml"), NoCache: true, MaxDecompressed: 64 << 10})
	if err == nil || !strings.Contains(err.Error(), "o1.csv.gz") || !strings.Contains(err.Error(), "decompresses to more than 64 KiB") {
		t.Fatalf("want the cap to name truth/o1.csv.gz, got %v", err)
	}
}

// A warm build stats its inputs and hashes none of them; an edit that
// keeps size and modification time is hashed again (its change time
// moved), and a file written within the racy window is hashed again.
func TestWarmBuildDoesNotRehash(t *testing.T) {
	dir, cacheDir := t.TempDir(), t.TempDir()
	everyKindStudy(t, dir)
	opts := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", CacheDir: cacheDir, Out: filepath.Join(t.TempDir(), "site")}
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	// What the next build does with a store loaded from disk, the clock
	// having moved past the racy window.
	h := input.LoadHashStore(cacheDir)
	h.SetRacyWindow(0)
	study, _ := manifest.LoadStudy(opts.Manifest, kinds.Kinds())
	files := 0
	for _, p := range []string{"results/part1.csv", "units/A_d1.csv", "runs/A_o1.csv", "notes.md"} {
		if _, err := h.Sum(filepath.Join(study.Dir, p)); err != nil {
			t.Fatal(err)
		}
		files++
	}
	if h.Hashed() != 0 {
		t.Fatalf("a warm store hashed %d of %d unchanged files", h.Hashed(), files)
	}
	editSameSize(t, filepath.Join(dir, "units", "A_d1.csv"))
	if _, err := h.Sum(filepath.Join(dir, "units", "A_d1.csv")); err != nil || h.Hashed() != 1 {
		t.Fatalf("an edit keeping size and mtime was not hashed again (%d hashed, %v)", h.Hashed(), err)
	}
	h.SetRacyWindow(input.RacyWindow) // the file was just written: hashed again every time
	h.Sum(filepath.Join(dir, "units", "A_d1.csv"))
	if h.Hashed() != 2 {
		t.Fatalf("a file written within the racy window was trusted (%d hashed)", h.Hashed())
	}
}

// A model id with a control character is an error at its line, as every
// other name is.
func TestMultiObjectiveModelNames(t *testing.T) {
	dir := t.TempDir()
	everyKindStudy(t, dir)
	p := filepath.Join(dir, "submissions.csv")
	src, _ := os.ReadFile(p)
	os.WriteFile(p, bytes.Replace(src, []byte("teal,"), []byte("te\x1bal,"), 1), 0o644)
	_, err := Validate(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml"), NoCache: true})
	if err == nil || !strings.Contains(err.Error(), "submissions.csv:5") || strings.Contains(err.Error(), "\x1b") {
		t.Fatalf("want an error at submissions.csv:5 without the raw escape, got %v", err)
	}
}
