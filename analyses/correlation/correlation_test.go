package correlation

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/internal/testutil"

	"github.com/evalbook/evalbook/analyses"

	"gonum.org/v1/gonum/floats/scalar"
)

// corrCases is testdata/oracle/correlation/cases.json, written by gen.py
// with scipy.stats spearmanr, pearsonr and kendalltau (tau-b).
type corrCases struct {
	Pairs []struct {
		Note                       string
		X, Y                       []float64
		Spearman, Pearson, Kendall *float64
	}
	Studies []struct {
		Name     string
		Metrics  []string
		Better   map[string]string
		Datasets []string
		Methods  []string
		Values   map[string][][]*float64
		Expected map[string]struct {
			Rho      [][]*float64
			Datasets [][]int
		}
	}
}

func loadCorrCases(t *testing.T) corrCases {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "oracle", "correlation", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c corrCases
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// checkCoef compares a coefficient with the oracle (nil = undefined) to 1e-12.
func checkCoef(t *testing.T, what string, got float64, want *float64) {
	t.Helper()
	if want == nil {
		if !math.IsNaN(got) {
			t.Errorf("%s = %v, want undefined (NaN)", what, got)
		}
		return
	}
	if !testutil.Close(got, *want, 1e-12) {
		t.Errorf("%s = %.17g, want %.17g (scipy)", what, got, *want)
	}
}

func TestCorrelationCoefficientsScipy(t *testing.T) {
	t.Parallel()
	c := loadCorrCases(t)
	if len(c.Pairs) < 20 {
		t.Fatalf("only %d oracle pairs", len(c.Pairs))
	}
	for _, p := range c.Pairs {
		checkCoef(t, "spearman "+p.Note, Correlate(Spearman, p.X, p.Y), p.Spearman)
		checkCoef(t, "pearson "+p.Note, Correlate(Pearson, p.X, p.Y), p.Pearson)
		checkCoef(t, "kendall "+p.Note, Correlate(Kendall, p.X, p.Y), p.Kendall)
	}
}

func TestMetricCorrelationScipy(t *testing.T) {
	t.Parallel()
	c := loadCorrCases(t)
	for _, s := range c.Studies {
		in := Input{Datasets: s.Datasets, Methods: s.Methods}
		for _, m := range s.Metrics {
			met := analyses.Metric{Name: m, Max: math.Inf(1)}
			if s.Better[m] == "lower" {
				met.Better = analyses.LowerIsBetter
			}
			in.Metrics = append(in.Metrics, met)
			q := make([][]float64, len(s.Datasets))
			for d, row := range s.Values[m] {
				for _, v := range row {
					if v == nil {
						q[d] = append(q[d], math.NaN())
					} else {
						q[d] = append(q[d], *v)
					}
				}
			}
			in.Values = append(in.Values, q)
		}
		for key, want := range s.Expected {
			method, raw := strings.CutSuffix(key, "-raw")
			r, err := Analyze(in, Options{Method: method, Raw: raw})
			if err != nil {
				t.Fatalf("%s %s: %v", s.Name, key, err)
			}
			// The -matrix table holds every ordered pair, input order.
			tabs := r.Tables()
			long := tabs[1]
			if long.Name != "matrix" || !slices.Equal(long.Columns, []string{"metric_a", "metric_b", "rho", "datasets"}) {
				t.Fatalf("matrix table: %q %v", long.Name, long.Columns)
			}
			if len(long.Rows) != len(s.Metrics)*len(s.Metrics) {
				t.Fatalf("%s: %d rows in -matrix, want %d", key, len(long.Rows), len(s.Metrics)*len(s.Metrics))
			}
			for i, row := range long.Rows {
				a, b := i/len(s.Metrics), i%len(s.Metrics)
				what := s.Name + " " + key + " " + s.Metrics[a] + "~" + s.Metrics[b]
				if row[0] != s.Metrics[a] || row[1] != s.Metrics[b] {
					t.Fatalf("%s: row %d names %v %v", what, i, row[0], row[1])
				}
				if row[3] != want.Datasets[a][b] {
					t.Errorf("%s: datasets = %v, want %d", what, row[3], want.Datasets[a][b])
				}
				if want.Rho[a][b] == nil {
					if row[2] != nil {
						t.Errorf("%s: rho = %v, want empty", what, row[2])
					}
					continue
				}
				got, ok := row[2].(float64)
				if !ok {
					t.Fatalf("%s: rho cell %v", what, row[2])
				}
				checkCoef(t, what, got, want.Rho[a][b])
			}
		}
	}
}

func TestMetricCorrelationUndefinedWarns(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	in := Input{
		Metrics:  []analyses.Metric{{Name: "a"}, {Name: "b"}, {Name: "flat"}},
		Datasets: []string{"d1", "d2"},
		Methods:  []string{"x", "y", "z"},
		Values: [][][]float64{
			{{1, 2, 3}, {3, 1, 2}},
			{{1, 2, nan}, {3, 2, 1}},
			{{5, 5, 5}, {7, 7, 7}},
		},
	}
	r, err := Analyze(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Count[0][1] != 2 || r.Count[0][2] != 0 || !math.IsNaN(r.Rho[0][2]) {
		t.Errorf("counts %v rho %v", r.Count, r.Rho)
	}
	// d1: only x and y have both values: (1,2) vs (1,2) → 1; d2: (3,1,2)
	// vs (3,2,1) → 1 − 6·2/(3·8) = 0.5; mean 0.75.
	if !scalar.EqualWithinAbs(r.Rho[0][1], 0.75, 1e-15) {
		t.Errorf("rho a~b = %v, want 0.75", r.Rho[0][1])
	}
	notes := strings.Join(r.Notes(), "\n")
	if !strings.Contains(notes, "flat") || !strings.Contains(notes, "undefined") {
		t.Errorf("no warning for the constant metric: %q", notes)
	}
	for _, tab := range r.Tables() {
		for _, row := range tab.Rows {
			for _, c := range row {
				if f, ok := c.(float64); ok && !analyses.Finite(f) {
					t.Errorf("table %q holds %v", tab.Name, f)
				}
			}
		}
	}
	if _, err := Analyze(in, Options{Method: "spearmann"}); err == nil || !strings.Contains(err.Error(), `did you mean "spearman"`) {
		t.Errorf("bad method: %v", err)
	}
}

func TestCorrelationOrderGroupsCorrelated(t *testing.T) {
	t.Parallel()
	// Two blocks, interleaved: {0,2,4} correlate strongly, {1,3} too, the
	// blocks do not. The order must keep each block contiguous.
	n := 5
	rho := make([][]float64, n)
	for i := range rho {
		rho[i] = make([]float64, n)
		for j := range rho[i] {
			switch {
			case i == j:
				rho[i][j] = 1
			case i%2 == j%2:
				rho[i][j] = 0.9 - 0.01*float64(i+j)
			default:
				rho[i][j] = 0.1
			}
		}
	}
	order := Order(rho)
	pos := map[int]int{}
	for p, k := range order {
		pos[k] = p
	}
	if len(order) != n {
		t.Fatalf("order %v", order)
	}
	evens := []int{pos[0], pos[2], pos[4]}
	slices.Sort(evens)
	if evens[2]-evens[0] != 2 {
		t.Errorf("order %v splits the correlated block {0,2,4}", order)
	}
	if !slices.Equal(Order(rho), order) {
		t.Error("order is not deterministic")
	}
}
