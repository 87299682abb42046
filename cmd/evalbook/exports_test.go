package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/kinds"
)

// figureExports lists the PDF and PNG files under a site.
func figureExports(t *testing.T, site string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(site, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(p); ext == ".pdf" || ext == ".png" {
			rel, _ := filepath.Rel(site, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBuildExportsOnDemand: `evalbook build` writes no figure PDF or PNG
// (they are for a manuscript: exports cost more than the rest of a small
// build); `--format paper` writes both for every drawn figure, and a
// manifest with exports = true offers them beside each figure.
func TestBuildExportsOnDemand(t *testing.T) {
	dir := t.TempDir()
	writeSmallStudy(t, dir)
	manifest := filepath.Join(dir, "study.toml")
	site := filepath.Join(dir, "site")
	if code, _, errOut := runCLI("build", manifest, "--quiet", "--no-cache"); code != 0 {
		t.Fatalf("build: exit %d: %s", code, errOut)
	}
	if got := figureExports(t, site); len(got) != 0 {
		t.Fatalf("a default build wrote %v", got)
	}
	if code, _, errOut := runCLI("build", manifest, "--quiet", "--no-cache", "--format", "paper"); code != 0 {
		t.Fatalf("build --format paper: exit %d: %s", code, errOut)
	}
	got := strings.Join(figureExports(t, site), " ")
	for _, want := range []string{"figures/lb.pdf", "figures/lb.png", "paper/figures/lb.pdf"} {
		if !strings.Contains(got, want) {
			t.Errorf("--format paper: %s missing from %s", want, got)
		}
	}
	src, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, []byte(strings.Replace(string(src), "title = \"t\"\n", "title = \"t\"\nexports = true\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("build", manifest, "--quiet", "--no-cache"); code != 0 {
		t.Fatalf("build with exports = true: exit %d: %s", code, errOut)
	}
	page, err := os.ReadFile(filepath.Join(site, "lb.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `href="figures/lb.pdf"`) || !strings.Contains(string(page), `href="figures/lb.png"`) {
		t.Errorf("exports = true: the page offers no PDF/PNG download beside the figure")
	}
	if got := strings.Join(figureExports(t, site), " "); !strings.Contains(got, "figures/lb.png") || strings.Contains(got, "paper/") {
		t.Errorf("exports = true: wrote %s; want figures/lb.pdf and .png, no paper/", got)
	}
}

// TestSchemaCommand: `evalbook schema` prints the manifest's JSON Schema
// (draft 2020-12) with every analysis type of the binary, and takes no
// argument.
func TestSchemaCommand(t *testing.T) {
	code, out, errOut := runCLI("schema")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		Schema     string         `json:"$schema"`
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if !strings.Contains(s.Schema, "2020-12") || s.Properties["analyses"] == nil || s.Properties["title"] == nil {
		t.Errorf("not the manifest's schema: %.300s", out)
	}
	for _, typ := range kinds.Kinds().Types() {
		if !strings.Contains(out, `"const": "`+typ+`"`) {
			t.Errorf("analysis type %s missing", typ)
		}
	}
	if code, _, _ := runCLI("schema", "extra"); code != 2 {
		t.Errorf("schema extra: exit %d, want 2", code)
	}
}
