package report

import (
	"strings"
	"testing"
)

// Ten folds of one dataset in wide per-file form ({method}_{dataset}.csv,
// unit column "fold"): a consistent gain hidden by the fold-to-fold
// spread (Košir et al. 2013, Fig. 2). C lacks fold 4, D equals A.
var pairedStudy = studyFixture("paired")

func TestPairedTestsKindBuild(t *testing.T) {
	t.Parallel()
	dir := mustBuild(t, pairedStudy)
	csv := readFile(t, dir, "data/pt.csv")
	header := "a,b,n,mean_diff,p_paired_t,p_wilcoxon,p_sign,p_welch,p_mannwhitney,p_shapiro,recommended,power_paired,power_independent,p_holm"
	if !strings.HasPrefix(csv, header) {
		t.Fatalf("header %q", strings.SplitN(csv, "\n", 2)[0])
	}
	js := readJSON(t, dir, "data/pt.json")
	pairs := js["pairs"].([]any)
	if len(pairs) != 6 {
		t.Fatalf("%d pairs, want 6", len(pairs))
	}
	first := pairs[0].(map[string]any)
	// B's file lists the folds in reverse order: pairing is by fold id.
	if first["a"] != "B" || first["b"] != "A" || first["n"] != 10.0 || first["mean_diff"].(float64) >= 0 {
		t.Errorf("first pair %v", first)
	}
	if first["p_paired_t"].(float64) > 0.001 || first["p_welch"].(float64) < 0.3 {
		t.Errorf("paired p %v, welch p %v: the paired test should see the gain the independent one misses", first["p_paired_t"], first["p_welch"])
	}
	html := readFile(t, dir, "pt.html")
	for _, want := range []string{
		"B vs C: 1 of the units of cv has no RMSE value (0 for B only, 1 for C only, 0 for both) and is left out of this pair",
		"A vs D over 10 units of cv: every difference is zero",
		"Why the paired test is the one to trust",
		"figures/pt-1.svg",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("pt.html lacks %q", want)
		}
	}
	if strings.Contains(html, "NaN") || strings.Contains(csv, "NaN") {
		t.Error("NaN on the page")
	}
	// Over datasets (from results), paired by dataset name.
	dj := readJSON(t, dir, "data/pt-datasets.json")
	if dj["over"] != "datasets" || dj["pairs"].([]any)[0].(map[string]any)["n"] != 4.0 {
		t.Errorf("over datasets: %v", dj)
	}
}

func TestPairedTestsKindErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ edit, want string }{
		{`dataset = "cv"`, ""},
		{`dataset = "cvv"`, `no units for dataset "cvv" (did you mean "cv"?)`},
		{`dataset = "cv"
alpha = 2.0`, "alpha: must be in (0, 1)"},
	} {
		study := strings.Replace(pairedStudy, `dataset = "cv"`, c.edit, 1)
		_, err := buildStudy(t, study)
		if c.want == "" {
			if err != nil {
				t.Errorf("unexpected error %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.edit, err, c.want)
		}
	}
	dup := strings.Replace(pairedStudy, "f02,1.02\nf03,0.88", "f02,1.02\nf02,0.88", 1)
	if _, err := buildStudy(t, dup); err == nil || !strings.Contains(err.Error(), `unit "f02" of method "A" on dataset "cv" appears twice`) {
		t.Errorf("duplicate unit: %v", err)
	}
}
