package offline

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

type compareFixture struct {
	Fisher []struct {
		A, B  []float64
		P     float64
		Exact bool
	}
	Student []struct {
		A, B []float64
		P    float64
	}
	Adjust []struct {
		P          []float64
		Holm       []float64
		Bonferroni []float64
	}
}

func readCompareFixture(t *testing.T) compareFixture {
	t.Helper()
	raw, err := os.ReadFile("testdata/oracle/compare/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx compareFixture
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	return fx
}

func diffs(a, b []float64) []float64 {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return d
}

// Fisher's randomization test against testdata/oracle/compare/gen.py:
// exact enumeration (n ≤ 12 here, 2ⁿ ≤ 10,000 permutations) to 1e-12;
// Monte Carlo at 100,000 permutations within 0.01 of numpy's exact
// enumeration (n = 20) or its own 100,000-draw estimate (n = 200); the
// p-value does not depend on the number of workers.
func TestFisherRandomizationOracle(t *testing.T) {
	t.Parallel()
	fx := readCompareFixture(t)
	if len(fx.Fisher) < 6 {
		t.Fatalf("only %d cases", len(fx.Fisher))
	}
	for i, c := range fx.Fisher {
		d := diffs(c.A, c.B)
		if len(d) <= 12 {
			p, exact := FisherRandomization(d, 10000, 1, 2)
			if !exact || math.Abs(p-c.P) > 1e-12 {
				t.Errorf("case %d (n=%d): exact p = %v (exact %v), oracle %v", i, len(d), p, exact, c.P)
			}
			continue
		}
		p1, exact := FisherRandomization(d, 100000, 3, 1)
		p2, _ := FisherRandomization(d, 100000, 3, 2)
		if exact || math.Abs(p1-c.P) > 0.01 {
			t.Errorf("case %d (n=%d): Monte Carlo p = %v (exact %v), oracle %v", i, len(d), p1, exact, c.P)
		}
		if p1 != p2 {
			t.Errorf("case %d: p %v with 1 worker, %v with 2", i, p1, p2)
		}
	}
}

func TestStudentPairedOracle(t *testing.T) {
	t.Parallel()
	fx := readCompareFixture(t)
	for i, c := range fx.Student {
		p, ok := StudentPaired(diffs(c.A, c.B))
		if !ok || math.Abs(p-c.P) > 1e-9*math.Max(1, c.P) {
			t.Errorf("case %d: p = %v, scipy %v", i, p, c.P)
		}
	}
	if _, ok := StudentPaired([]float64{0.1, 0.1, 0.1}); ok {
		t.Error("constant differences: the t test must be undefined")
	}
}

func TestAdjustOracle(t *testing.T) {
	t.Parallel()
	fx := readCompareFixture(t)
	for i, c := range fx.Adjust {
		for method, want := range map[string][]float64{CorrectHolm: c.Holm, CorrectBonferroni: c.Bonferroni} {
			got := Adjust(c.P, method)
			for j := range want {
				if math.Abs(got[j]-want[j]) > 1e-12 {
					t.Errorf("case %d %s[%d] = %v, statsmodels %v", i, method, j, got[j], want[j])
				}
			}
		}
	}
}

// Compare, end to end on three runs: the table has the columns the issue
// fixes, the ranx table marks the run that wins significantly, the LaTeX
// export is a booktabs tabular with one row per pair.
func TestCompareTables(t *testing.T) {
	t.Parallel()
	n := 300
	mk := func(method string, shift float64) PerQuery {
		pq := PerQuery{Dataset: "robust04", Method: method, Values: [][]float64{make([]float64, n)}, Has: make([]bool, n)}
		for q := range n {
			pq.Values[0][q] = math.Mod(float64(q)*0.37, 0.5) + shift + 0.01*math.Sin(float64(q)*float64(len(method)))
			pq.Has[q] = true
		}
		return pq
	}
	runs := []PerQuery{mk("bm25", 0), mk("dense", 0.2), mk("bm25_rm3", 0.0001)}
	o := CompareOptions{}
	o.Defaults()
	cs, warn := Compare(o, []string{"map"}, runs, 42, 2)
	if len(warn.List) > 0 {
		t.Fatal(warn.List)
	}
	tb := CompareTable(cs)
	if got := strings.Join(tb.Columns, ","); got != "dataset,metric,a,b,mean_a,mean_b,p,p_adjusted,significant" {
		t.Fatalf("columns %s", got)
	}
	if len(tb.Rows) != 3 {
		t.Fatalf("%d rows", len(tb.Rows))
	}
	sig := map[string]bool{}
	for _, c := range cs {
		sig[c.A+"/"+c.B] = c.Significant
	}
	if !sig["bm25/dense"] || !sig["dense/bm25_rm3"] {
		t.Errorf("dense must beat both: %v", sig)
	}
	rt := RanxTable(cs, []string{"map"}, runs)
	if s := rt.Rows[1][3].(string); !strings.HasSuffix(s, "^ac") {
		t.Errorf("dense's cell %q, want superscripts a and c", s)
	}
	tex := string(CompareLaTeX(cs))
	for _, want := range []string{"\\toprule", "\\midrule", "\\bottomrule", "bm25\\_rm3", "robust04 & map & bm25 & dense"} {
		if !strings.Contains(tex, want) {
			t.Errorf("LaTeX lacks %q:\n%s", want, tex)
		}
	}
	again, _ := Compare(o, []string{"map"}, runs, 42, 1)
	for i := range cs {
		if cs[i].P != again[i].P {
			t.Errorf("pair %d: p %v, then %v with one worker", i, cs[i].P, again[i].P)
		}
	}
}

// BenchmarkFisherRandomization: one pair, 100,000 queries, 10,000
// permutations (a million queries is ten times this).
func BenchmarkFisherRandomization(b *testing.B) {
	d := make([]float64, 100000)
	for i := range d {
		d[i] = math.Sin(float64(i)) * 0.1
	}
	b.ResetTimer()
	for range b.N {
		FisherRandomization(d, 10000, 1, 2)
	}
}

// A dataset with one run has nothing to compare: a warning, no row.
func TestCompareOneRun(t *testing.T) {
	t.Parallel()
	o := CompareOptions{}
	o.Defaults()
	cs, warn := Compare(o, []string{"map"}, []PerQuery{{Dataset: "d", Method: "m", Values: [][]float64{{1, 0}}, Has: []bool{true, true}}}, 1, 1)
	if len(cs) != 0 || len(warn.List) != 1 || !strings.Contains(warn.List[0], "nothing to compare") {
		t.Errorf("rows %v, warnings %v", cs, warn.List)
	}
}
