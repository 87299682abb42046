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
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// readers are the calls that read a file's bytes. Only the input layer
// (and the few places named in allowedReaders) may make them; everything
// else reads through it, so the cache, serve's watch list and the
// provenance can never miss a file.
var readers = map[string]bool{
	"os.Open": true, "os.OpenFile": true, "os.ReadFile": true, "os.ReadDir": true,
	"filepath.Glob": true, "filepath.WalkDir": true, "filepath.Walk": true, "fs.ReadFile": true,
	// the low-level readers, which open what they are given
	"OpenTable": true, "OpenParquet": true, "openRun": true, "readTruth": true, "scanTruth": true, "openLines": true, "sha256File": true,
}

// allowedReaders: file → why it may read files itself.
var allowedReaders = map[string]string{
	"inputs.go":     "the input layer",
	"filehash.go":   "the input layer's content hashes",
	"table.go":      "low-level CSV/TSV reader, opened only by inputs.openMapped",
	"parquet.go":    "low-level Parquet reader, opened only by OpenTable",
	"runs.go":       "low-level run/truth reader, opened only by inputs.openRun/readTruth/scanTruth",
	"manifest.go":   "the manifest itself, read before there are inputs (and hashed into the provenance)",
	"provenance.go": "hashes the manifest",
	"diskcache.go":  "the cache's own entries and the tool binary's hash, not study inputs",
	"serve.go":      "serves the built site, not study inputs",
	"scaffold.go":   "evalbook init writes files",
	"output.go":     "checks and writes the output directory, not study inputs",
}

// TestEveryReadGoesThroughTheInputLayer fails when code outside the input
// layer opens, reads or globs files (the bypass that made cached builds
// stale): add the read to the layer instead.
func TestEveryReadGoesThroughTheInputLayer(t *testing.T) {
	var bad []string
	for _, dir := range []string{".", "../cmd/evalbook", "../analyses", "../figures"} {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "buildtest.go") {
				continue
			}
			base := filepath.Base(name)
			if dir == "." {
				if _, ok := allowedReaders[base]; ok {
					continue
				}
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
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
				if readers[fn] {
					bad = append(bad, fset.Position(call.Pos()).String()+": "+fn)
				}
				return true
			})
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("files read outside the input layer (read them through report/inputs.go):\n%s", strings.Join(bad, "\n"))
	}
	// cmd/evalbook may stat the manifest path to accept a directory.
	if _, err := os.Stat("../cmd/evalbook/main.go"); err != nil {
		t.Fatal(err)
	}
}

// TestValidateAgreesWithBuild: validate succeeds exactly when build does,
// with the same messages — including a study whose aggregate needs a
// metric that only an offline_metrics analysis derives (validate used to
// read the results before the derivation and reject it).
func TestValidateAgreesWithBuild(t *testing.T) {
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
	h := loadHashStore(cacheDir)
	h.window = 0
	study, _ := LoadStudy(opts.Manifest, Kinds())
	files := 0
	for _, p := range []string{"results/part1.csv", "units/A_d1.csv", "runs/A_o1.csv", "notes.md"} {
		if _, err := h.sum(filepath.Join(study.Dir, p)); err != nil {
			t.Fatal(err)
		}
		files++
	}
	if h.hashed != 0 {
		t.Fatalf("a warm store hashed %d of %d unchanged files", h.hashed, files)
	}
	editSameSize(t, filepath.Join(dir, "units", "A_d1.csv"))
	if _, err := h.sum(filepath.Join(dir, "units", "A_d1.csv")); err != nil || h.hashed != 1 {
		t.Fatalf("an edit keeping size and mtime was not hashed again (%d hashed, %v)", h.hashed, err)
	}
	h.window = racyWindow // the file was just written: hashed again every time
	h.sum(filepath.Join(dir, "units", "A_d1.csv"))
	if h.hashed != 2 {
		t.Fatalf("a file written within the racy window was trusted (%d hashed)", h.hashed)
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
