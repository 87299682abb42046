package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackVerifyCLI: pack then verify exit 0; verify of a zip with one
// changed byte exits 1 naming the file; pack into the study exits 1;
// verify without an archive is a usage error (2).
func TestPackVerifyCLI(t *testing.T) {
	t.Parallel()
	study := filepath.Join(t.TempDir(), "s")
	if code, _, errOut := runCLI("init", study); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	m := filepath.Join(study, "study.toml")
	src, _ := os.ReadFile(m)
	os.WriteFile(m, append([]byte("license = \"CC0-1.0\"\n"), src...), 0o644)
	z := filepath.Join(t.TempDir(), "s.zip")
	if code, out, errOut := runCLI("pack", m, "-o", z); code != 0 || !strings.Contains(out, z) {
		t.Fatalf("pack: exit %d: %s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI("verify", z); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("verify: exit %d: %s%s", code, out, errOut)
	}
	if code, _, errOut := runCLI("pack", m, "-o", filepath.Join(study, "s.zip")); code != 1 || !strings.Contains(errOut, "inside the study directory") {
		t.Errorf("pack into the study: exit %d: %s", code, errOut)
	}
	// One byte in the middle of the zip file (some entry's compressed
	// data): verify names that entry.
	raw, _ := os.ReadFile(z)
	bad := filepath.Join(t.TempDir(), "bad.zip")
	damaged := append([]byte(nil), raw...)
	damaged[len(damaged)/2] ^= 0xff
	os.WriteFile(bad, damaged, 0o644)
	code, _, errOut := runCLI("verify", bad)
	t.Log(errOut)
	if code != 1 || !strings.Contains(errOut, "evalbook: verify "+bad+": site/") && !strings.Contains(errOut, "evalbook: verify "+bad+": study/") {
		t.Errorf("verify of a damaged zip: exit %d: %s", code, errOut)
	}
	if code, _, _ := runCLI("verify"); code != 2 {
		t.Errorf("verify without an archive: exit %d, want 2", code)
	}
}

// TestFormatLatexCLI: build --format latex (and its alias paper) writes
// the HTML site with paper/: macros, tables (floats in tables/,
// longtables in appendix/), citation and example.
func TestFormatLatexCLI(t *testing.T) {
	t.Parallel()
	study := filepath.Join(t.TempDir(), "s")
	if code, _, errOut := runCLI("init", study); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	for _, format := range []string{"latex", "paper"} {
		site := filepath.Join(t.TempDir(), "site")
		if code, _, errOut := runCLI("build", filepath.Join(study, "study.toml"), "-o", site, "--format", format, "--quiet", "--no-cache"); code != 0 {
			t.Fatalf("--format %s: exit %d: %s", format, code, errOut)
		}
		for _, f := range []string{"index.html", "paper/evalbook.tex", "paper/example.tex", "paper/citation.bib", "CITATION.cff"} {
			if _, err := os.Stat(filepath.Join(site, f)); err != nil {
				t.Errorf("--format %s: no %s", format, f)
			}
		}
		tables, _ := filepath.Glob(filepath.Join(site, "paper", "tables", "*.tex"))
		appendix, _ := filepath.Glob(filepath.Join(site, "paper", "appendix", "*.tex"))
		data, _ := filepath.Glob(filepath.Join(site, "data", "*.tex"))
		if len(tables) == 0 || len(tables)+len(appendix) != len(data) {
			t.Errorf("--format %s: %d tables in paper/tables and %d in paper/appendix, %d in data", format, len(tables), len(appendix), len(data))
		}
	}
}
