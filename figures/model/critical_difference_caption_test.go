package model

import (
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/significance"
	"github.com/evalbook/evalbook/analyses/stats"
)

// TestCDCaptionSaysHowZerosCount: the caption said "zero_method pratt",
// scipy's option id, to a reader who does not know it; it says in words
// how the Wilcoxon tests treat a zero difference.
func TestCDCaptionSaysHowZerosCount(t *testing.T) {
	for m, want := range map[string]string{
		stats.ZeroPratt:  "(zero differences ranked, then left out, as Pratt (1959) proposed, Holm-corrected at α = 0.05)",
		stats.ZeroWilcox: "(zero differences left out, Holm-corrected at α = 0.05)",
		stats.ZeroZsplit: "(zero differences' ranks split between the signs, Holm-corrected at α = 0.05)",
	} {
		r := &significance.CriticalDifferenceResult{Metric: "m", Alpha: 0.05, Datasets: []string{"a", "b", "c"}, Methods: []string{"A", "B"},
			MeanRanks: []float64{1.25, 1.75}, CriticalDifference: 1.1, ZeroMethod: m}
		caption := CDSpec(r).Caption
		if !strings.Contains(caption, want) || strings.Contains(caption, "zero_method") {
			t.Errorf("zero_method %q: caption %q, want it to say %q", m, caption, want)
		}
	}
}
