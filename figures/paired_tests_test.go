package figures

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/significance"
)

func TestPairedTestsFigures(t *testing.T) {
	t.Parallel()
	mk := func(n int) significance.PairedTestsInput {
		in := significance.PairedTestsInput{Metric: analyses.Metric{Name: "rmse"}, Over: "folds", Methods: []string{"A", "B", "C"}}
		in.Values = make([][]float64, 3)
		for u := 0; u < n; u++ {
			in.Units = append(in.Units, fmt.Sprintf("fold%02d", u+1))
			f := float64(u)
			in.Values[0] = append(in.Values[0], 1+0.1*math.Sin(f)-0.01)
			in.Values[1] = append(in.Values[1], 1+0.1*math.Sin(f)+0.002*math.Cos(3*f))
			in.Values[2] = append(in.Values[2], math.NaN())
		}
		return in
	}
	for _, n := range []int{10, 300} {
		r, err := significance.PairedTests(mk(n), significance.PairedTestsOptions{Metric: "rmse", Missing: "drop"})
		if err != nil {
			t.Fatal(err)
		}
		figs, err := PairedTests("pt", "", r)
		if err != nil {
			t.Fatal(err)
		}
		// Pairs with C have no shared units: no figure, no NaN.
		if len(figs) != 1 || figs[0].ID != "pt-1" {
			t.Fatalf("n=%d: %d figures", n, len(figs))
		}
		again, _ := PairedTests("pt", "", r)
		if !bytes.Equal(figs[0].SVG, again[0].SVG) {
			t.Error("svg not deterministic")
		}
		if strings.Contains(string(figs[0].Chart), "NaN") || strings.Contains(string(figs[0].SVG), "NaN") {
			t.Error("NaN in figure")
		}
		// the recommended test as the pairs table writes it ("paired t",
		// "Wilcoxon"), not its id ("paired_t"), and each p-value under
		// its column's label in the table ("p (Welch)", not "Welch t p")
		c := figs[0].Caption
		want := map[string]string{"paired_t": "paired t", "wilcoxon": "Wilcoxon"}[r.Pairs[0].Recommended]
		if want == "" || !strings.Contains(c, "; recommended test: "+want+".") {
			t.Errorf("n=%d: recommended %q, caption %q", n, r.Pairs[0].Recommended, c)
		}
		for _, l := range []string{"p (paired t) = ", "p (Wilcoxon) = ", "p (Welch) = ", "p (Mann–Whitney) = "} {
			if !strings.Contains(c, l) {
				t.Errorf("n=%d: no %q in the caption %q", n, l, c)
			}
		}
		// every sentence starts with a capital
		if m := regexp.MustCompile(`\. \p{Ll}`).FindString(c); m != "" {
			t.Errorf("n=%d: a sentence of the caption starts in lower case (%q): %q", n, m, c)
		}
	}
}
