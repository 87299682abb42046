package offline

import (
	"testing"
)

// TestCompareTableResolution: a Fisher p-value estimated from random
// sign vectors is a share of the permutations; 0 of them was printed as
// "< 1e-15". The compare table now gives its p and p_adjusted columns
// their resolution (1/permutations; the family's size over it once
// adjusted), which the pages print as the bound; an exact (enumerated)
// p-value needs none.
func TestCompareTableResolution(t *testing.T) {
	t.Parallel()
	run := func(method string, shift float64, n int) PerQuery {
		q := PerQuery{Dataset: "d", Method: method, Values: [][]float64{make([]float64, n)}, Has: make([]bool, n)}
		for i := range q.Has {
			q.Values[0][i], q.Has[i] = float64(i%7)+shift, true
		}
		return q
	}
	c := CompareOptions{Test: TestFisher, Permutations: 1000, Correction: "holm", Alpha: 0.05}
	// 40 queries: 2⁴⁰ sign vectors are drawn, not enumerated.
	cs, _ := Compare(c, []string{"m"}, []PerQuery{run("A", 0, 40), run("B", 1, 40), run("C", 2, 40)}, 7, 1)
	if len(cs) != 3 {
		t.Fatalf("%d comparisons", len(cs))
	}
	for _, cmp := range cs {
		if cmp.P != 0 || cmp.Exact {
			t.Fatalf("%s vs %s: p = %g, exact %v; the case wants 0 of the draws", cmp.A, cmp.B, cmp.P, cmp.Exact)
		}
	}
	tab := CompareTable(cs)
	if got := tab.Resolution["p"]; got != 1.0/1000 {
		t.Errorf("p's resolution %g, want 1/1000", got)
	}
	if got := tab.Resolution["p_adjusted"]; got != 3.0/1000 {
		t.Errorf("p_adjusted's resolution %g, want 3/1000 (a family of 3)", got)
	}
	// 8 queries with 1000 permutations: the 256 sign vectors are
	// enumerated, the p exact, and no resolution is claimed.
	cs, _ = Compare(c, []string{"m"}, []PerQuery{run("A", 0, 8), run("B", 1, 8)}, 7, 1)
	if tab := CompareTable(cs); !cs[0].Exact || len(tab.Resolution) != 0 {
		t.Errorf("exact p %g (exact %v): resolution %v", cs[0].P, cs[0].Exact, tab.Resolution)
	}
}
