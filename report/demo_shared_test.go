package report

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
)

// sharedDemo is the demo study generated once per test binary (go run
// ./sites/demo/gen, as make demo does: compiling and running the
// generator costs seconds of CPU, once instead of once per test) and
// its one build in both formats with paper/ (site), which the tests
// that only read the demo's site share. TestMain removes root.
var sharedDemo struct {
	genOnce, buildOnce sync.Once
	root               string // the temporary directory holding both
	study              string // the generated study's directory
	genErr             string
	site               string
	parsed             *manifest.Study
	buildErr           string
}

// generateSharedDemo runs the demo generator once.
func generateSharedDemo() {
	d := &sharedDemo
	root, err := filepath.Abs("..")
	if err != nil {
		d.genErr = err.Error()
		return
	}
	if d.root, err = os.MkdirTemp("", "evalbook-report-demo-"); err != nil {
		d.genErr = err.Error()
		return
	}
	d.study = filepath.Join(d.root, "study")
	cmd := exec.Command("go", "run", "./sites/demo/gen", d.study, filepath.Join(root, "sites", "demo", "manifest.d"))
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		d.genErr = "demo generator: " + err.Error() + "\n" + string(out)
	}
}

// generatedDemo writes the demo study (its manifest and data, as the
// generator wrote them) into dir, a directory of the test's own.
func generatedDemo(t *testing.T, dir string) {
	t.Helper()
	sharedDemo.genOnce.Do(generateSharedDemo)
	if sharedDemo.genErr != "" {
		t.Fatal(sharedDemo.genErr)
	}
	if err := copyDir(sharedDemo.study, dir); err != nil {
		t.Fatalf("copying the generated demo: %v", err)
	}
}

// builtDemo returns the demo study and its site, built once per test
// binary in both formats (HTML and Markdown) with paper/, without the
// cache, with the tool version "test". The site is shared: a test only
// reads it.
func builtDemo(t *testing.T) (study *manifest.Study, site string) {
	t.Helper()
	d := &sharedDemo
	d.buildOnce.Do(func() {
		d.genOnce.Do(generateSharedDemo)
		if d.genErr != "" {
			d.buildErr = d.genErr
			return
		}
		dir := filepath.Join(d.root, "built")
		if err := os.Mkdir(dir, 0o755); err != nil {
			d.buildErr = err.Error()
			return
		}
		// the build's own copy: the generator's stays as written
		if err := copyDir(d.study, dir); err != nil {
			d.buildErr = err.Error()
			return
		}
		manifestPath := filepath.Join(dir, "study.toml")
		d.site = filepath.Join(dir, "site")
		if _, err := Build(context.Background(), Options{Manifest: manifestPath, Out: d.site, Format: "both", Paper: true, NoCache: true, Quiet: true, Version: "test"}); err != nil {
			d.buildErr = "demo build: " + err.Error()
			return
		}
		var err error
		if d.parsed, err = manifest.LoadStudy(manifestPath, kinds.Kinds()); err != nil {
			d.buildErr = err.Error()
		}
	})
	if d.buildErr != "" {
		t.Fatal(d.buildErr)
	}
	return d.parsed, d.site
}

// copyDir copies the tree src into dst.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}

// removeSharedDemo removes what generatedDemo and builtDemo wrote.
func removeSharedDemo() {
	if sharedDemo.root != "" {
		os.RemoveAll(sharedDemo.root)
	}
}
