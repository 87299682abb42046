package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// critical_difference with test = "auto" states the automatic choice in
// its method note (the report's sentences, Markdown-escaped: a method
// label "_B_" stays text) and writes the same report as a LaTeX paragraph,
// data/reports/<id>.tex, linked from the page; test = "friedman" writes
// no report.
func TestCriticalDifferenceAutoReport(t *testing.T) {
	t.Parallel()
	var rows strings.Builder
	rows.WriteString("dataset,method,metric,value\n")
	for d := range 8 {
		for m, name := range []string{"A*", "_B_", "C"} {
			fmt.Fprintf(&rows, "d%d,%s,ndcg,%.3f\n", d, name, 0.3+0.05*float64(m)+0.01*float64((d*7+m*3)%5))
		}
	}
	for _, test := range []string{"auto", "friedman"} {
		site := mustBuild(t, "-- study.toml --\ntitle = \"cd\"\n[inputs]\nresults = \"r.csv\"\n[[analyses]]\nid = \"cd\"\ntype = \"critical_difference\"\nmetric = \"ndcg\"\ntest = \""+test+"\"\n-- r.csv --\n"+rows.String())
		page := readFile(t, site, "cd.html")
		tex, err := os.ReadFile(filepath.Join(site, "data", "reports", "cd.tex"))
		if test == "friedman" {
			if err == nil || strings.Contains(page, "report-tex") || strings.Contains(page, "automatic choice of test") {
				t.Errorf("test = friedman wrote a report (%v) or linked one", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("test = auto: no data/reports/cd.tex: %v", err)
		}
		for _, want := range []string{"autorank (Herbold 2020)", `$\alpha$`, `A*`} {
			if !strings.Contains(string(tex), want) {
				t.Errorf("reports/cd.tex lacks %q:\n%s", want, tex)
			}
		}
		if !strings.Contains(page, `href="data/reports/cd.tex" download>The report in LaTeX`) {
			t.Error("the page does not link data/reports/cd.tex")
		}
		if !strings.Contains(page, "The automatic choice of test</strong>") || !strings.Contains(page, "_B_") || strings.Contains(page, "<em>B</em>") {
			t.Errorf("the method note lacks the report (%v), or lacks _B_ (%v) or read it as emphasis (%v)", !strings.Contains(page, "The automatic choice of test</strong>"), !strings.Contains(page, "_B_"), strings.Contains(page, "<em>B</em>"))
		}
	}
}
