package paper_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needTeX skips a test when pdflatex or poppler's tools are missing,
// saying what to install; under CI (env CI set) it fails instead, since
// `make deps` installs them.
func needTeX(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"pdflatex", "pdftotext", "pdfinfo"} {
		if _, err := exec.LookPath(tool); err != nil {
			msg := tool + " not found: run `make deps` (Debian texlive-latex-base, texlive-latex-recommended, poppler-utils)"
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

// compileTeX writes doc as main.tex in dir (with the given extra files
// beside it), runs pdflatex twice (longtable settles its widths on the
// second run) and returns the PDF's text (pdftotext) with math minus
// signs as ASCII hyphens and the accents OT1 fonts draw ~ and ^ with as
// those characters.
func compileTeX(t testing.TB, dir, doc string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "main.tex"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		cmd := exec.Command("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "main.log"))
			t.Fatalf("pdflatex: %v\n%s\n%s", err, tail(string(out), 3000), tail(string(log), 2000))
		}
	}
	out, err := exec.Command("pdftotext", "-raw", filepath.Join(dir, "main.pdf"), "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return strings.NewReplacer("\f", "\n", "−", "-", "\u2013", "-", "”", `"`, "“", `"`, "˜", "~", "ˆ", "^").Replace(string(out))
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
