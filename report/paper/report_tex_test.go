package paper_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report"
)

// autoReportStudy is a study of one critical_difference with test =
// "auto" over a datasets × methods matrix of metric m.
func autoReportStudy(matrix string) string {
	return "-- study.toml --\ntitle = \"auto\"\n[inputs]\nresults = { path = \"r.csv\", layout = \"matrix\", metric = \"m\" }\n" +
		"[[analyses]]\nid = \"cd\"\ntype = \"critical_difference\"\nmetric = \"m\"\ntest = \"auto\"\n-- r.csv --\n" + matrix
}

// texNumber is a number in the report's LaTeX or the PDF's text, with
// its sign ($-$ in LaTeX, − in the PDF).
var texNumber = regexp.MustCompile(`(?:\$-\$|−|-)?\d+(?:\.\d+)?`)

// TestAutoReportTeXCompiles: the LaTeX paragraph of critical_difference
// with test = "auto" (data/reports/<id>.tex) compiles in a minimal
// document for each branch the procedure takes (the ANOVA on Demšar's
// Table 6, Friedman on values with outliers, the paired t-test on
// negative values), and the PDF shows it as written: every number of the
// file in order, a negative number with a minus sign (not a hyphen), no
// line that starts or ends with a relation ("p =" then "0.012" on the
// next line), and no stray LaTeX.
func TestAutoReportTeXCompiles(t *testing.T) {
	needTeX(t)
	demsar, err := os.ReadFile(filepath.Join("..", "testdata", "demsar2006", "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var outliers, negative strings.Builder
	outliers.WriteString("dataset,A,B,C,D\n")
	for d := range 12 {
		fmt.Fprintf(&outliers, "d%d", d)
		for j := range 4 {
			v := 0.5 + 0.01*float64((d*7+j*3)%11) + 0.02*float64(j)
			if d == (3*j)%12 {
				v += 40 // one far outlier per method: not normal
			}
			fmt.Fprintf(&outliers, ",%.4f", v)
		}
		outliers.WriteString("\n")
	}
	negative.WriteString("dataset,A,B\n")
	for d := range 20 {
		fmt.Fprintf(&negative, "d%d,%.4f,%.4f\n", d, -0.5+0.05*float64(d%10)-0.02*float64(d/10), -0.45+0.05*float64((d*3)%10)-0.01*float64(d/10))
	}
	for _, c := range []struct{ name, matrix, branch string }{
		{"anova", string(demsar), "anova_tukey"},
		{"friedman", outliers.String(), "friedman_nemenyi"},
		{"paired-t", negative.String(), "paired_t"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := report.ParseArchive([]byte(autoReportStudy(c.matrix))).WriteDir(dir); err != nil {
				t.Fatal(err)
			}
			site := filepath.Join(dir, "site")
			if _, err := report.Build(context.Background(), report.Options{Manifest: filepath.Join(dir, "study.toml"), Out: site, NoCache: true, Quiet: true, Version: "test"}); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Auto struct{ Branch string } `json:"auto"`
			}
			if b, err := os.ReadFile(filepath.Join(site, "data", "cd.json")); err != nil || json.Unmarshal(b, &doc) != nil || doc.Auto.Branch != c.branch {
				t.Fatalf("branch %q (%v), want %q", doc.Auto.Branch, err, c.branch)
			}
			tex, err := os.ReadFile(filepath.Join(site, "data", "reports", "cd.tex"))
			if err != nil {
				t.Fatal(err)
			}
			tdir := t.TempDir()
			os.WriteFile(filepath.Join(tdir, "cd.tex"), tex, 0o644)
			compileTeX(t, tdir, "\\documentclass{article}\n\\pagestyle{empty}\n\\begin{document}\n\\input{cd}\n\\end{document}\n")
			raw, err := exec.Command("pdftotext", "-raw", filepath.Join(tdir, "main.pdf"), "-").Output()
			if err != nil {
				t.Fatal(err)
			}
			text := strings.TrimSpace(string(raw))
			_, body, _ := strings.Cut(string(tex), "\n") // the first line is a comment
			var want, got []string
			for _, n := range texNumber.FindAllString(body, -1) {
				want = append(want, strings.Replace(n, "$-$", "−", 1))
			}
			got = texNumber.FindAllString(text, -1)
			if !slices.Equal(got, want) {
				t.Errorf("the PDF shows the numbers\n%q\nthe LaTeX has\n%q", got, want)
			}
			if c.name == "paired-t" && !strings.Contains(text, "−0.") {
				t.Errorf("no negative number in the paired t-test's report:\n%s", text)
			}
			for _, line := range strings.Split(text, "\n") {
				line = strings.TrimSpace(line)
				for _, rel := range []string{"=", "<", ">"} {
					if strings.HasPrefix(line, rel) || strings.HasSuffix(line, rel) {
						t.Errorf("a line breaks at a relation %q:\n%s", rel, line)
					}
				}
				if strings.ContainsAny(line, `$\{}`) {
					t.Errorf("stray LaTeX in the PDF: %s", line)
				}
			}
		})
	}
}
