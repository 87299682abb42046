package report

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var cdStudy = studyFixture("cd")

func cdRows() string {
	var b strings.Builder
	// Rows listed in a different dataset order per method: pairing must be
	// by name.
	for mi, m := range []string{"A", "B", "C", "D"} {
		for k := 0; k < 8; k++ {
			d := (k*3 + mi) % 8
			v := 0.30 - 0.02*float64(mi) + 0.01*float64((d*7)%5)
			fmt.Fprintf(&b, "d%d,%s,ndcg,%g\n", d, m, v)
			fmt.Fprintf(&b, "d%d,%s,rmse,%g\n", d, m, 1-v)
		}
	}
	// E misses d3: that dataset is left out, with a note on the page.
	for d := 0; d < 8; d++ {
		if d != 3 {
			fmt.Fprintf(&b, "d%d,E,ndcg,%g\n", d, 0.2+0.003*float64(d))
			fmt.Fprintf(&b, "d%d,E,rmse,%g\n", d, 0.8)
		}
	}
	return b.String()
}

func TestCriticalDifferenceKindBuild(t *testing.T) {
	t.Parallel()
	dir := mustBuild(t, fmt.Sprintf(cdStudy, cdRows()))
	js := readJSON(t, dir, "data/cd.json")
	for _, k := range []string{"friedman_statistic", "friedman_p", "iman_davenport_f", "iman_davenport_p", "critical_difference", "cliques"} {
		if _, ok := js[k]; !ok {
			t.Errorf("data/cd.json lacks %q", k)
		}
	}
	if ds := js["datasets"].([]any); len(ds) != 7 {
		t.Errorf("datasets %v: d3 should be left out", ds)
	}
	ranks := readFile(t, dir, "data/cd-ranks.csv")
	if !strings.HasPrefix(ranks, "method,mean_rank\n") {
		t.Errorf("ranks table: %q", ranks)
	}
	pairs := readFile(t, dir, "data/cd-pairs.csv")
	if !strings.HasPrefix(pairs, "a,b,statistic,p,p_holm,significant,p_left,p_rope,p_right\n") {
		t.Errorf("pairs table header: %q", strings.SplitN(pairs, "\n", 2)[0])
	}
	if !strings.HasPrefix(readFile(t, dir, "data/cd-rmse-pairs.csv"), "a,b,statistic,p,p_holm,significant\n") {
		t.Error("cd-rmse pairs: Bayesian columns without bayesian = true")
	}
	html := readFile(t, dir, "cd.html")
	for _, want := range []string{"): no ndcg value for method E, and the tests need every method", "Holm", "figures/cd.svg"} {
		if !strings.Contains(html, want) {
			t.Errorf("cd.html lacks %q", want)
		}
	}
	if strings.Contains(html, "NaN") || strings.Contains(pairs, "NaN") {
		t.Error("NaN on the page")
	}
	if _, err := os.Stat(filepath.Join(dir, "figures", "cd.svg")); err != nil {
		t.Error(err)
	}
	// Lower is better: the rmse ranking is the ndcg ranking (rmse = 1 − ndcg).
	rj := readJSON(t, dir, "data/cd-rmse.json")
	if fmt.Sprint(rj["methods"]) != fmt.Sprint(js["methods"]) {
		t.Errorf("rmse order %v, ndcg order %v", rj["methods"], js["methods"])
	}
	// Same bytes again, whatever the number of workers.
	dir2 := mustBuild(t, fmt.Sprintf(cdStudy, cdRows()), func(o *Options) { o.Jobs = 3 })
	if readFile(t, dir2, "data/cd.json") != readFile(t, dir, "data/cd.json") {
		t.Error("data/cd.json differs between builds")
	}
}

func TestCriticalDifferenceKindErrors(t *testing.T) {
	t.Parallel()
	bad := strings.Replace(fmt.Sprintf(cdStudy, cdRows()), `bayesian = true`, `bayesian = true
zero_method = "prat"`, 1)
	if _, err := buildStudy(t, bad); err == nil || !strings.Contains(err.Error(), `did you mean "pratt"`) {
		t.Errorf("zero_method typo: %v", err)
	}
	bad = strings.Replace(fmt.Sprintf(cdStudy, cdRows()), `metric   = "ndcg"`, `metric   = "ndgc"`, 1)
	if _, err := buildStudy(t, bad); err == nil || !strings.Contains(err.Error(), `"ndcg"`) {
		t.Errorf("metric typo: %v", err)
	}
}

// TestCriticalDifferenceShevchenkoBuild builds a study on the reference
// results of Shevchenko et al. 2024 (ndcg@10) and checks that the method
// note names the significant pairs; it skips when the reference folder is
// absent.
func TestCriticalDifferenceShevchenkoBuild(t *testing.T) {
	t.Parallel()
	ref, err := filepath.Abs(filepath.Join("..", "..", "shared", "reference", "shevchenko2024", "agg_metrics.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ref); err != nil {
		skipWithoutReference(t, err)
	}
	dir := t.TempDir()
	rel, err := filepath.Rel(dir, ref)
	if err != nil {
		t.Fatal(err)
	}
	study := fmt.Sprintf(`-- study.toml --
title = "Shevchenko et al. 2024"
allow_outside = true
[inputs]
results = %q
[[analyses]]
id     = "cd"
type   = "critical_difference"
metric = "ndcg@10"
`, filepath.ToSlash(rel))
	if err := ParseArchive([]byte(study)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	sum, err := Build(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml"), Format: "html", Version: "test", Command: "evalbook build"})
	if err != nil {
		t.Fatal(err)
	}
	js := readJSON(t, sum.Out, "data/cd.json")
	html := readFile(t, sum.Out, "cd.html")
	var sig []string
	for _, p := range js["pairs"].([]any) {
		p := p.(map[string]any)
		if p["significant"] == true {
			sig = append(sig, p["a"].(string)+" vs "+p["b"].(string))
		}
	}
	if len(sig) == 0 {
		t.Fatal("no significant pair on the reference data")
	}
	if !strings.Contains(html, fmt.Sprintf("%d of 55 pairs differ significantly", len(sig))) {
		t.Errorf("method note does not count the %d significant pairs", len(sig))
	}
	for _, s := range sig {
		if !strings.Contains(html, s) {
			t.Errorf("method note does not name %s", s)
		}
	}
	t.Logf("significant after Holm (%d): %s", len(sig), strings.Join(sig, "; "))
}
