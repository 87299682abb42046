package significance

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"

	"github.com/evalbook/evalbook/analyses/internal/testutil"
)

// noNaNCells fails when a table cell is a non-finite float: the page must
// show nil (an empty cell) and a warning instead.
func noNaNCells(t *testing.T, tables []analyses.Table) {
	t.Helper()
	for _, tb := range tables {
		tb.Check()
		for i, r := range tb.Rows {
			for j, c := range r {
				if f, ok := c.(float64); ok && !analyses.Finite(f) {
					t.Errorf("table %q row %d column %s is %v", tb.Name, i, tb.Columns[j], f)
				}
			}
		}
	}
}

func cdInput(q [][]float64, methods ...string) CriticalDifferenceInput {
	ds := make([]string, len(q))
	for i := range ds {
		ds[i] = "d" + strconv.Itoa(i)
	}
	return CriticalDifferenceInput{AggregateInput: leaderboard.AggregateInput{Metric: analyses.Metric{Name: "m", Max: math.Inf(1)},
		Datasets: ds, Methods: methods, Q: q}, Seed: 1, Jobs: 1}
}

func warned(w []string, sub string) bool {
	for _, s := range w {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestCriticalDifferenceShevchenko checks, on the reference data of
// Shevchenko et al. 2024 (ndcg@10), that the mean ranks are the aggregate
// analysis's, that the tests are paired by dataset name (the per-metric
// file lists datasets in a different order per method) and that Friedman
// and every Wilcoxon–Holm pair agree with scipy/statsmodels (fixture from
// gen.py).
func TestCriticalDifferenceShevchenko(t *testing.T) {
	t.Parallel()
	in := shevchenkoMatrix(t, "ndcg", "10")
	c := loadSigCases(t)
	if c.Shevchenko == nil {
		testutil.SkipWithoutReference(t, "the fixture was made without the reference data")
	}
	r, err := CriticalDifference(CriticalDifferenceInput{AggregateInput: in, Seed: 3, Jobs: 2}, CriticalDifferenceOptions{Metric: "ndcg", Bayesian: true, Samples: 2000})
	if err != nil {
		t.Fatal(err)
	}
	agg, err := leaderboard.Aggregate(in, leaderboard.AggregateOptions{Metric: "ndcg", Rules: []string{leaderboard.RuleMeanRank}})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range r.Methods {
		j := slices.Index(agg.Methods, m)
		if r.MeanRanks[i] != agg.Scores[leaderboard.RuleMeanRank][j] {
			t.Errorf("%s: mean rank %v, aggregate %v", m, r.MeanRanks[i], agg.Scores[leaderboard.RuleMeanRank][j])
		}
	}
	if !testutil.Close(*r.FriedmanStatistic, c.Shevchenko.Friedman, 1e-9) || !testutil.Close(*r.FriedmanP, c.Shevchenko.FriedmanP, 1e-9) {
		t.Errorf("friedman %v %v, scipy %v %v", *r.FriedmanStatistic, *r.FriedmanP, c.Shevchenko.Friedman, c.Shevchenko.FriedmanP)
	}
	want := map[[2]string]sigPair{}
	for _, p := range c.Shevchenko.Pairs {
		want[[2]string{p.A, p.B}] = p
		want[[2]string{p.B, p.A}] = p
	}
	var sig []string
	for _, p := range r.Pairs {
		w, ok := want[[2]string{p.A, p.B}]
		if !ok {
			t.Fatalf("pair %s/%s not in the fixture", p.A, p.B)
		}
		if !testutil.Close(*p.Statistic, w.Statistic, 1e-9) || !testutil.Close(*p.P, w.P, 1e-9) || !testutil.Close(*p.PHolm, w.PHolm, 1e-9) {
			t.Errorf("%s vs %s: T=%v p=%v holm=%v, scipy %v %v %v", p.A, p.B, *p.Statistic, *p.P, *p.PHolm, w.Statistic, w.P, w.PHolm)
		}
		if p.Significant != (w.PHolm <= 0.05) {
			t.Errorf("%s vs %s: significant = %v with Holm p %v", p.A, p.B, p.Significant, w.PHolm)
		}
		if p.Significant {
			sig = append(sig, p.A+"/"+p.B)
		}
	}
	t.Logf("Friedman χ² = %.4f (p = %.3g), CD = %.4f; %d of %d pairs significant after Holm: %s",
		*r.FriedmanStatistic, *r.FriedmanP, r.CriticalDifference, len(sig), len(r.Pairs), strings.Join(sig, ", "))

	// Pairing by name: the per-metric slice lists datasets in a different
	// order for each method; the result must be the same.
	path := filepath.Join("..", "..", "..", "shared", "reference", "shevchenko2024", "metrics_ndcg_10.csv")
	f, err := os.Open(path)
	if err != nil {
		testutil.SkipWithoutReference(t, err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var b analyses.ResultsBuilder
	for _, rec := range recs[1:] {
		v, err := strconv.ParseFloat(rec[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		b.Add(rec[1], rec[0], "ndcg", v)
	}
	res := b.Finish()
	in2 := leaderboard.AggregateInput{Metric: in.Metric, Datasets: res.Datasets, Methods: res.Methods, Q: res.Matrix("ndcg", res.Datasets, res.Methods)}
	r2, err := CriticalDifference(CriticalDifferenceInput{AggregateInput: in2, Seed: 3, Jobs: 2}, CriticalDifferenceOptions{Metric: "ndcg"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Cliques, r2.Cliques) || !reflect.DeepEqual(r.Methods, r2.Methods) {
		t.Errorf("other file order: cliques %v vs %v", r2.Cliques, r.Cliques)
	}
	for _, p := range r2.Pairs {
		w := want[[2]string{p.A, p.B}]
		if !testutil.Close(*p.P, w.P, 1e-9) {
			t.Errorf("other file order, %s vs %s: p=%v, scipy %v", p.A, p.B, *p.P, w.P)
		}
	}
}

// sigCases is the part of stats/testdata/oracle/significance/cases.json
// (written by its gen.py with scipy) that checks the wiring of the
// critical-difference and paired-tests analyses.
type sigCases struct {
	Shevchenko *struct {
		Friedman  float64   `json:"friedman"`
		FriedmanP float64   `json:"friedman_p"`
		Pairs     []sigPair `json:"pairs"`
	} `json:"shevchenko"`
	TwoSample []struct {
		A, B    []float64
		WelchP  float64  `json:"welch_p"`
		UP      float64  `json:"u_p"`
		PairedT *float64 `json:"paired_t"`
		PairedP *float64 `json:"paired_p"`
		SignP   *float64 `json:"sign_p"`
	} `json:"two_sample"`
}

func loadSigCases(t *testing.T) *sigCases {
	t.Helper()
	var c sigCases
	testutil.ReadJSON(t, "stats/testdata/oracle/significance/cases.json", &c)
	return &c
}

type sigPair struct {
	A, B      string
	Statistic float64
	P         float64
	PHolm     float64 `json:"p_holm"`
}

func TestCriticalDifferenceDeterministicAcrossJobs(t *testing.T) {
	t.Parallel()
	q := make([][]float64, 12)
	for d := range q {
		q[d] = []float64{0.30 + 0.01*float64(d%3), 0.31 + 0.002*float64(d), 0.29, 0.33 - 0.004*float64(d%5)}
	}
	var first []byte
	for _, jobs := range []int{1, 2, 5} {
		in := cdInput(q, "A", "B", "C", "D")
		in.Seed, in.Jobs = 99, jobs
		r, err := CriticalDifference(in, CriticalDifferenceOptions{Metric: "m", Bayesian: true, Rope: 0.001, Samples: 3000})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r)
		if first == nil {
			first = b
		} else if string(b) != string(first) {
			t.Fatalf("jobs=%d changed the result", jobs)
		}
	}
	in := cdInput(q, "A", "B", "C", "D")
	in.Seed = 100
	r, _ := CriticalDifference(in, CriticalDifferenceOptions{Metric: "m", Bayesian: true, Rope: 0.001, Samples: 3000})
	if b, _ := json.Marshal(r); string(b) == string(first) {
		t.Error("another seed gave the same Monte Carlo result")
	}
}

func TestCriticalDifferenceEdgeCases(t *testing.T) {
	t.Parallel()
	t.Run("three datasets", func(t *testing.T) {
		r, err := CriticalDifference(cdInput([][]float64{{1, 2, 3}, {1, 3, 2}, {2, 1, 3}}, "A", "B", "C"), CriticalDifferenceOptions{Metric: "m"})
		if err != nil {
			t.Fatal(err)
		}
		noNaNCells(t, r.Tables())
		if !warned(r.List, "only 3 datasets") || !warned(r.List, "smallest two-sided Wilcoxon p-value is 0.25") {
			t.Errorf("warnings %q", r.List)
		}
	})
	t.Run("identical methods", func(t *testing.T) {
		q := [][]float64{{0.1, 0.1, 0.3}, {0.2, 0.2, 0.1}, {0.4, 0.4, 0.5}, {0.3, 0.3, 0.2}, {0.25, 0.25, 0.3}, {0.2, 0.2, 0.21}}
		r, err := CriticalDifference(cdInput(q, "A", "A2", "B"), CriticalDifferenceOptions{Metric: "m"})
		if err != nil {
			t.Fatal(err)
		}
		noNaNCells(t, r.Tables())
		if !warned(r.List, "A vs A2 undefined: every difference is zero") {
			t.Errorf("warnings %q", r.List)
		}
		for _, p := range r.Pairs {
			if (p.A == "A" && p.B == "A2") || (p.A == "A2" && p.B == "A") {
				if p.P != nil || p.PHolm != nil || p.Significant {
					t.Errorf("identical pair: %+v", p)
				}
			}
		}
		if _, err := json.Marshal(r); err != nil {
			t.Error(err)
		}
	})
	t.Run("all ties", func(t *testing.T) {
		q := [][]float64{{1, 1}, {2, 2}, {3, 3}}
		r, err := CriticalDifference(cdInput(q, "A", "B"), CriticalDifferenceOptions{Metric: "m"})
		if err != nil {
			t.Fatal(err)
		}
		noNaNCells(t, r.Tables())
		if r.FriedmanStatistic != nil || !warned(r.List, "Friedman's test is undefined") {
			t.Errorf("friedman %v, warnings %q", r.FriedmanStatistic, r.List)
		}
	})
	t.Run("missing method on a dataset", func(t *testing.T) {
		// an error by default (issue 31: it was dropped with a warning
		// only), naming the cell and what each way out costs
		q := [][]float64{{1, 2, 3}, {1, math.NaN(), 2}, {2, 1, 3}, {3, 2, 1}}
		_, err := CriticalDifference(cdInput(q, "A", "B", "C"), CriticalDifferenceOptions{Metric: "m"})
		if want := `metric "m": no value for dataset "d1", method "B"; 1 of 4 datasets lack a value for some method (B lacks 1)`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
		r, err := CriticalDifference(cdInput(q, "A", "B", "C"), CriticalDifferenceOptions{Metric: "m", Missing: "drop"})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.DroppedDatasets, []string{"d1"}) || !warned(r.List, `dataset "d1" left out (missing = "drop"): no m value for method B`) {
			t.Errorf("dropped %v, warnings %q", r.DroppedDatasets, r.List)
		}
		noNaNCells(t, r.Tables())
	})
	t.Run("same ranking everywhere", func(t *testing.T) {
		q := [][]float64{{3, 2, 1}, {5, 4, 3}, {9, 8, 7}, {4, 3, 2}}
		r, err := CriticalDifference(cdInput(q, "A", "B", "C"), CriticalDifferenceOptions{Metric: "m"})
		if err != nil {
			t.Fatal(err)
		}
		if r.ImanDavenportF != nil || *r.ImanDavenportP != 0 || !warned(r.List, "Iman–Davenport F is infinite") {
			t.Errorf("F %v p %v warnings %q", r.ImanDavenportF, r.ImanDavenportP, r.List)
		}
	})
	t.Run("errors", func(t *testing.T) {
		if _, err := CriticalDifference(cdInput([][]float64{{1, 2}}, "A", "B"), CriticalDifferenceOptions{Metric: "m"}); err == nil || !strings.Contains(err.Error(), "at least 2 datasets") {
			t.Errorf("one dataset: %v", err)
		}
		if _, err := CriticalDifference(cdInput([][]float64{{1}, {2}}, "A"), CriticalDifferenceOptions{Metric: "m"}); err == nil {
			t.Error("one method: want an error")
		}
		o := CriticalDifferenceOptions{Metric: "m", ZeroMethod: "prat"}
		o.Defaults()
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), `did you mean "pratt"`) {
			t.Errorf("zero_method typo: %v", err)
		}
	})
}

func TestCliques(t *testing.T) {
	t.Parallel()
	m := []string{"a", "b", "c", "d", "e"}
	sig := make([][]bool, 5)
	for i := range sig {
		sig[i] = make([]bool, 5)
	}
	set := func(i, j int) { sig[i][j], sig[j][i] = true, true }
	// a–c mutually close, b–d close, e apart from everything.
	set(0, 3)
	set(0, 4)
	set(1, 4)
	set(2, 4)
	set(3, 4)
	got := cliques(m, sig)
	want := [][]string{{"a", "b", "c"}, {"b", "c", "d"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cliques %v, want %v", got, want)
	}
}

// shevchenkoMatrix reads a metric from the reference data of Shevchenko et
// al. 2024, or skips.
func shevchenkoMatrix(t testing.TB, metric, k string) leaderboard.AggregateInput {
	t.Helper()
	var b analyses.ResultsBuilder
	for _, v := range testutil.ShevchenkoValues(t, metric, k) {
		b.Add(v.Dataset, v.Method, metric, v.Value)
	}
	res := b.Finish()
	return leaderboard.AggregateInput{Metric: analyses.Metric{Name: metric, Max: math.Inf(1)}, Datasets: res.Datasets, Methods: res.Methods,
		Q: res.Matrix(metric, res.Datasets, res.Methods)}
}
