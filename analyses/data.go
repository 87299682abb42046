package analyses

import (
	"math"
	"sort"
)

// Direction of a metric.
type Direction int

const (
	HigherIsBetter Direction = iota
	LowerIsBetter
)

// Metric describes one metric of the study.
type Metric struct {
	Name   string
	Better Direction
	Max    float64 // upper bound used when perturbing values; +Inf when none
}

// Orient returns v so that higher is better.
func (m Metric) Orient(v float64) float64 {
	if m.Better == LowerIsBetter {
		return -v
	}
	return v
}

// Dataset is a dataset of the study with its manifest attributes
// (domain and any other string key).
type Dataset struct {
	Name  string
	Attrs map[string]string
}

// Cell is one (dataset, method, metric) value of the results; repeated
// runs are averaged and their spread kept.
type Cell struct {
	Value float64 // mean over runs
	SD    float64 // sample sd over runs; 0 with one run
	Runs  int
}

// CellKey names a results cell.
type CellKey struct{ Dataset, Method, Metric string }

// Results holds one value per (dataset, method, metric). It is small (the
// number of cells), so it is kept whole. Build it with a ResultsBuilder.
type Results struct {
	Datasets []string // in first-seen order unless the manifest orders them
	Methods  []string
	Metrics  []string
	Cells    map[CellKey]Cell
}

// Get returns the cell and whether it is present.
func (r *Results) Get(dataset, method, metric string) (Cell, bool) {
	c, ok := r.Cells[CellKey{dataset, method, metric}]
	return c, ok
}

// Matrix returns q[d][m] for a metric over the given datasets and methods;
// a missing cell is NaN.
func (r *Results) Matrix(metric string, datasets, methods []string) [][]float64 {
	q := make([][]float64, len(datasets))
	for i, d := range datasets {
		q[i] = make([]float64, len(methods))
		for j, m := range methods {
			if c, ok := r.Cells[CellKey{d, m, metric}]; ok {
				q[i][j] = c.Value
			} else {
				q[i][j] = math.NaN()
			}
		}
	}
	return q
}

// ResultsBuilder collects results rows (Add), averaging repeated runs with
// Welford's algorithm, then Finish returns the Results.
type ResultsBuilder struct {
	acc                        map[CellKey]*welford
	datasets, methods, metrics orderedSet
}

type welford struct {
	n        int
	mean, m2 float64
}

type orderedSet struct {
	seen map[string]bool
	list []string
}

func (s *orderedSet) add(v string) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if !s.seen[v] {
		s.seen[v] = true
		s.list = append(s.list, v)
	}
}

// Add records one value (one run) of a cell.
func (b *ResultsBuilder) Add(dataset, method, metric string, v float64) {
	if b.acc == nil {
		b.acc = map[CellKey]*welford{}
	}
	k := CellKey{dataset, method, metric}
	w := b.acc[k]
	if w == nil {
		w = &welford{}
		b.acc[k] = w
		b.datasets.add(dataset)
		b.methods.add(method)
		b.metrics.add(metric)
	}
	w.n++
	d := v - w.mean
	w.mean += d / float64(w.n)
	w.m2 += d * (v - w.mean)
}

// Keys returns the set of cells added so far.
func (b *ResultsBuilder) Keys() map[CellKey]bool {
	out := make(map[CellKey]bool, len(b.acc))
	for k := range b.acc {
		out[k] = true
	}
	return out
}

// Finish returns the collected results.
func (b *ResultsBuilder) Finish() *Results {
	r := &Results{
		Datasets: b.datasets.list,
		Methods:  b.methods.list,
		Metrics:  b.metrics.list,
		Cells:    make(map[CellKey]Cell, len(b.acc)),
	}
	for k, w := range b.acc {
		c := Cell{Value: w.mean, Runs: w.n}
		if w.n > 1 {
			c.SD = math.Sqrt(w.m2 / float64(w.n-1))
		}
		r.Cells[k] = c
	}
	return r
}

// SortedKeys returns the keys of a string-keyed map in sorted order; used
// wherever map iteration would make output depend on Go's random order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
