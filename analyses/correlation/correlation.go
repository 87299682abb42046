package correlation

// Metric correlation (Shevchenko et al. 2024, §4.1, Fig. 2). The paper asks
// which metrics tell the same story: on each dataset it correlates the
// metrics across methods, then averages the per-dataset coefficients. A
// per-dataset correlation is the right unit because metric scales differ
// wildly between datasets; pooling raw values would mostly measure that.

import (
	"fmt"
	"math"
	"sort"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/analyses/stats"
)

// Correlation methods of a metric_correlation analysis.
const (
	Spearman = "spearman"
	Pearson  = "pearson"
	Kendall  = "kendall"
)

var corrMethods = []string{Spearman, Pearson, Kendall}

// Options are the keys of a `metric_correlation` analysis.
type Options struct {
	Metrics []string `toml:"metrics"` // default: every metric of the results
	Method  string   `toml:"method"`  // spearman (default), pearson, kendall (tau-b)
	// Raw correlates the values as given. By default a lower-is-better
	// metric is negated first, so that a positive coefficient always means
	// "the metrics agree on which methods are better".
	Raw bool `toml:"raw"`
}

// Defaults fills unset options.
func (o *Options) Defaults() {
	if o.Method == "" {
		o.Method = Spearman
	}
}

// Validate checks the options.
func (o *Options) Validate() error {
	if err := analyses.OneOf("method", o.Method, corrMethods...); err != nil {
		return err
	}
	if err := analyses.CheckDistinct("metrics", o.Metrics); err != nil {
		return err
	}
	if len(o.Metrics) == 1 {
		return analyses.OptionErrorf("metrics", "need at least two metrics to correlate, got %q", o.Metrics[0])
	}
	if len(o.Metrics) > analyses.MaxCorrelationMetrics {
		return analyses.OptionErrorf("metrics", "%d metrics is above the limit of %d for one correlation matrix", len(o.Metrics), analyses.MaxCorrelationMetrics)
	}
	return nil
}

// Input holds one value per (dataset, method, metric):
// Values[k][d][m] for Metrics[k]; NaN marks a missing cell.
type Input struct {
	Metrics  []analyses.Metric
	Datasets []string
	Methods  []string
	Values   [][][]float64
}

// Result is the averaged correlation matrix.
type Result struct {
	Method  string   `json:"method"`
	Raw     bool     `json:"raw"`
	Metrics []string `json:"metrics"` // in input order
	// Rho[a][b] is the mean over datasets of the per-dataset coefficient
	// (NaN when no dataset defines it); Count[a][b] the number of datasets
	// behind it.
	// Both are in the -matrix table (JSON cannot hold NaN).
	Rho   [][]float64 `json:"-"`
	Count [][]int     `json:"-"`
	// Order lists metric indices so that correlated metrics sit together:
	// the leaf order of an average-linkage clustering on 1 − rho;
	// Clustered names them.
	Order     []int    `json:"-"`
	Clustered []string `json:"order"`
	// Naming is how the key finding names things (set by the caller; not
	// in JSON).
	Naming analyses.Naming `json:"-"`
	analyses.Warnings
}

// Analyze correlates every pair of metrics across methods on each dataset
// and averages the coefficients over the datasets where both metrics are
// defined (Shevchenko et al. 2024, §4.1: "Spearman's correlation for each
// dataset and subsequently computing the average"). On a dataset, only
// methods with both values present take part; a pair is undefined there
// when fewer than two methods remain or either side is constant. The
// coefficients match scipy.stats spearmanr, pearsonr and kendalltau (tau-b)
// to 1e-12.
func Analyze(in Input, opts Options) (*Result, error) {
	opts.Defaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	K := len(in.Metrics)
	if K < 2 {
		return nil, fmt.Errorf("metric correlation needs at least two metrics, got %d", K)
	}
	if len(in.Values) != K {
		panic("correlation: Analyze's values do not match metrics")
	}
	r := &Result{Method: opts.Method, Raw: opts.Raw}
	for _, m := range in.Metrics {
		r.Metrics = append(r.Metrics, m.Name)
	}
	sum := make([][]float64, K)
	r.Rho = make([][]float64, K)
	r.Count = make([][]int, K)
	for a := range K {
		sum[a] = make([]float64, K)
		r.Rho[a] = make([]float64, K)
		r.Count[a] = make([]int, K)
	}
	x := make([]float64, 0, len(in.Methods))
	y := make([]float64, 0, len(in.Methods))
	for d := range in.Datasets {
		for a := range K {
			for b := a; b < K; b++ {
				x, y = pairValues(in, opts, d, a, b, x[:0], y[:0])
				rho := Correlate(opts.Method, x, y)
				if math.IsNaN(rho) {
					continue
				}
				if a == b {
					rho = 1 // defined (not constant): exactly 1, not 1 − ulp
				}
				sum[a][b] += rho
				r.Count[a][b]++
			}
		}
	}
	for a := range K {
		for b := a; b < K; b++ {
			v := math.NaN()
			if n := r.Count[a][b]; n > 0 {
				v = sum[a][b] / float64(n)
			}
			r.Rho[a][b], r.Rho[b][a] = v, v
			r.Count[b][a] = r.Count[a][b]
		}
	}
	warnUndefined(r, len(in.Datasets))
	r.Order = Order(r.Rho)
	for _, k := range r.Order {
		r.Clustered = append(r.Clustered, r.Metrics[k])
	}
	return r, nil
}

// pairValues appends to x and y the values of metrics a and b on dataset
// d of every method that has both (oriented unless opts.Raw).
func pairValues(in Input, opts Options, d, a, b int, x, y []float64) ([]float64, []float64) {
	for m := range in.Methods {
		va, vb := in.Values[a][d][m], in.Values[b][d][m]
		if !analyses.Finite(va) || !analyses.Finite(vb) {
			continue
		}
		if !opts.Raw {
			va, vb = in.Metrics[a].Orient(va), in.Metrics[b].Orient(vb)
		}
		x, y = append(x, va), append(y, vb)
	}
	return x, y
}

// warnUndefined warns of the metrics and pairs whose correlation is
// undefined, and of the pairs averaged over fewer than all n datasets.
func warnUndefined(r *Result, n int) {
	K := len(r.Metrics)
	for a := range K {
		if r.Count[a][a] == 0 {
			r.Warnf("metric %s: no dataset has two methods with different values, so its correlations are undefined", r.Metrics[a])
			continue
		}
		for b := a + 1; b < K; b++ {
			if r.Count[a][b] == 0 && r.Count[b][b] > 0 {
				r.Warnf("%s and %s: no dataset where both vary across at least two common methods; their correlation is undefined", r.Metrics[a], r.Metrics[b])
			}
		}
	}
	if n == 0 {
		return
	}
	short := 0
	for a := range K {
		for b := a + 1; b < K; b++ {
			if c := r.Count[a][b]; c > 0 && c < n {
				short++
			}
		}
	}
	if short > 0 {
		r.Warnf("%d metric pairs are averaged over fewer than all %d datasets (a missing value or a constant metric on some datasets); the datasets column gives each count", short, n)
	}
}

// Correlate returns the coefficient of method (spearman, pearson, kendall)
// between x and y; NaN when undefined.
func Correlate(method string, x, y []float64) float64 {
	switch method {
	case Spearman:
		return stats.Spearman(x, y)
	case Pearson:
		return stats.Pearson(x, y)
	case Kendall:
		return stats.KendallTauB(x, y)
	}
	panic("correlation: unknown correlation method " + method)
}

// Order returns a leaf order of an agglomerative clustering
// (average linkage, distance 1 − rho; an undefined rho counts as 0) so
// that a heatmap shows correlated variables side by side. Merges take the
// closest pair of clusters, ties broken by the smaller indices; a merged
// cluster lists the cluster holding the lower original index first. The
// order is deterministic.
func Order(rho [][]float64) []int {
	n := len(rho)
	dist := func(a, b int) float64 {
		v := rho[a][b]
		if math.IsNaN(v) {
			v = 0
		}
		return 1 - v
	}
	type cluster struct {
		leaves []int
		min    int
	}
	cl := make([]*cluster, n)
	for i := range n {
		cl[i] = &cluster{leaves: []int{i}, min: i}
	}
	// d[i][j] is the average linkage between clusters i and j (sum of
	// pairwise distances / size product), updated with the Lance–Williams
	// rule for average linkage.
	d := make([][]float64, n)
	for i := range n {
		d[i] = make([]float64, n)
		for j := range n {
			if i != j {
				d[i][j] = dist(i, j)
			}
		}
	}
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	for left := n; left > 1; left-- {
		bi, bj, best := -1, -1, math.Inf(1)
		for i := range n {
			if !alive[i] {
				continue
			}
			for j := i + 1; j < n; j++ {
				if alive[j] && d[i][j] < best {
					bi, bj, best = i, j, d[i][j]
				}
			}
		}
		a, b := cl[bi], cl[bj]
		na, nb := float64(len(a.leaves)), float64(len(b.leaves))
		for k := range n {
			if alive[k] && k != bi && k != bj {
				v := (na*d[bi][k] + nb*d[bj][k]) / (na + nb)
				d[bi][k], d[k][bi] = v, v
			}
		}
		first, second := a, b
		if b.min < a.min {
			first, second = b, a
		}
		cl[bi] = &cluster{leaves: append(append([]int{}, first.leaves...), second.leaves...), min: min(a.min, b.min)}
		alive[bj] = false
	}
	for i := range n {
		if alive[i] {
			return cl[i].leaves
		}
	}
	return nil
}

// Tables implements Result: the matrix in clustered order (main table) and
// the long table -matrix (every ordered pair, input order).
func (r *Result) Tables() []analyses.Table {
	cols := []string{"metric"}
	for _, k := range r.Order {
		cols = append(cols, r.Metrics[k])
	}
	main := analyses.Table{Title: fmt.Sprintf("Mean %s correlation between metrics across methods (clustered order)", r.Naming.Term(r.Method)), Columns: cols}
	for _, a := range r.Order {
		row := []any{r.Metrics[a]}
		for _, b := range r.Order {
			row = append(row, analyses.CellValue(r.Rho[a][b]))
		}
		main.Rows = append(main.Rows, row)
	}
	long := analyses.Table{Name: "matrix", Title: "Every ordered pair of metrics: mean coefficient and number of datasets behind it",
		Columns: []string{"metric_a", "metric_b", "rho", "datasets"}}
	for a := range r.Metrics {
		for b := range r.Metrics {
			long.Rows = append(long.Rows, []any{r.Metrics[a], r.Metrics[b], analyses.CellValue(r.Rho[a][b]), r.Count[a][b]})
		}
	}
	vals := r.rhoValues()
	main.ShareDecimals(vals, cols[1:]...)
	long.ShareDecimals(vals, "rho")
	return []analyses.Table{main, long}
}

// rhoValues are the finite coefficients of the matrix: the tables print
// them, and the key finding quotes them, with their one precision.
func (r *Result) rhoValues() []float64 {
	var vals []float64
	for _, row := range r.Rho {
		for _, v := range row {
			if analyses.Finite(v) {
				vals = append(vals, v)
			}
		}
	}
	return vals
}

// Highlight: the most and least concordant pairs of metrics.
func (r *Result) Highlight() string {
	type pair struct {
		a, b string
		rho  float64
	}
	var ps []pair
	for i := range r.Metrics {
		for j := i + 1; j < len(r.Metrics); j++ {
			if i < len(r.Rho) && j < len(r.Rho[i]) && !math.IsNaN(r.Rho[i][j]) {
				ps = append(ps, pair{r.Metrics[i], r.Metrics[j], r.Rho[i][j]})
			}
		}
	}
	if len(ps) == 0 {
		return ""
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].rho > ps[j].rho })
	hi, lo := ps[0], ps[len(ps)-1]
	n := r.Naming
	vals := r.rhoValues()
	if len(ps) == 1 { // one pair: nothing agrees "most" or "least"
		return fmt.Sprintf("%s and %s: mean %s %s.", n.Metric(hi.a), n.Metric(hi.b), n.Term(r.Method), analyses.ColumnText(hi.rho, vals))
	}
	return fmt.Sprintf("%s and %s agree most (%s %s); %s and %s least (%s).", n.Metric(hi.a), n.Metric(hi.b), n.Term(r.Method), analyses.ColumnText(hi.rho, vals),
		n.Metric(lo.a), n.Metric(lo.b), analyses.ColumnText(lo.rho, vals))
}
