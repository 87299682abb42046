package analyses

import (
	"fmt"
	"math"
	"sort"
)

// Direction of a metric.
type Direction int

const (
	HigherIsBetter Direction = iota // larger values are better (ndcg, recall)
	LowerIsBetter                   // smaller values are better (rmse, mae)
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

// ResultsBuilder collects results rows (AddRow, or Add for values that
// cannot repeat), averaging repeated runs with Welford's algorithm, then
// Finish returns the Results.
type ResultsBuilder struct {
	acc                        map[CellKey]*cellAcc
	datasets, methods, metrics orderedSet
}

type welford struct {
	n        int
	mean, m2 float64
}

// add updates the moments; false when the mean or the sum of squared
// deviations overflowed float64.
func (w *welford) add(v float64) bool {
	w.n++
	d := v - w.mean
	w.mean += d / float64(w.n)
	w.m2 += d * (v - w.mean)
	return !math.IsInf(w.mean, 0) && !math.IsNaN(w.mean) && !math.IsInf(w.m2, 0) && !math.IsNaN(w.m2)
}

// cellAcc is a cell being built: its moments, the rule its rows so far
// followed and where its value comes from.
type cellAcc struct {
	welford
	rule DuplicateRule
	at   Source              // the row that gave the value (the first, or the last under DupLast)
	runs map[string]runValue // DupRuns: each run id's value
}

type runValue struct {
	v  float64
	at Source
}

// DuplicateRule says what a results row does to a cell that earlier rows
// already gave.
type DuplicateRule uint8

const (
	// DupError: the same value is counted once, another value is a
	// *DuplicateError.
	DupError DuplicateRule = iota
	// DupRuns: the row is one run (its file has a run column); runs are
	// averaged. A run id given twice follows DupError, and so does a run
	// meeting a cell given without runs.
	DupRuns
	// DupMean: the values are averaged, as runs.
	DupMean
	// DupFirst: the first value stays.
	DupFirst
	// DupLast: the last value replaces the others.
	DupLast
)

// Source is where a value was read: file, line and column (0 when not
// known).
type Source struct {
	File      string
	Line, Col int
}

// DuplicateError is a cell given twice with different values.
type DuplicateError struct {
	Key          CellKey
	Value        float64 // of the row being added
	Other        float64 // the cell's value so far (the mean of OtherN values)
	OtherN       int
	OtherAt      Source
	Run          string // the run id given twice, when both rows are runs
	BothRuns     bool
	MixedWithRun bool // one row is a run, the other is not
}

// Error names the metric, method and dataset and both values.
func (e *DuplicateError) Error() string {
	return fmt.Sprintf("%s of %s on %s is given twice with different values (%v vs %v)", e.Key.Metric, e.Key.Method, e.Key.Dataset, e.Value, e.Other)
}

// OverflowError is a cell whose mean or spread over its values overflows
// float64.
type OverflowError struct {
	Key CellKey
	N   int
}

// Error names the cell and the number of values.
func (e *OverflowError) Error() string {
	return fmt.Sprintf("the mean or spread of %s of %s on %s over %d values overflows float64 (beyond ±1.8e308)", e.Key.Metric, e.Key.Method, e.Key.Dataset, e.N)
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

// cell returns the accumulator of k, creating it (and noting its names)
// when new.
func (b *ResultsBuilder) cell(k CellKey) (c *cellAcc, created bool) {
	if b.acc == nil {
		b.acc = map[CellKey]*cellAcc{}
	}
	if c = b.acc[k]; c != nil {
		return c, false
	}
	c = &cellAcc{}
	b.acc[k] = c
	b.datasets.add(k.Dataset)
	b.methods.add(k.Method)
	b.metrics.add(k.Metric)
	return c, true
}

// Add records one value (one run) of a cell, averaging it with the
// others; for values that are known not to repeat by mistake (those an
// analysis derives). Rows of files go through AddRow.
func (b *ResultsBuilder) Add(dataset, method, metric string, v float64) {
	c, _ := b.cell(CellKey{dataset, method, metric})
	c.rule = DupMean
	c.add(v)
}

// AddRow records one row's value of cell k, read at at, under rule (run
// is the row's run id under DupRuns). It returns a *DuplicateError when
// the row gives a cell another value against the rule, and an
// *OverflowError when averaging overflows.
func (b *ResultsBuilder) AddRow(k CellKey, v float64, run string, rule DuplicateRule, at Source) error {
	c, created := b.cell(k)
	if created {
		if err := b.checkSize(k); err != nil {
			return err
		}
		c.rule, c.at = rule, at
		if rule == DupRuns {
			c.runs = map[string]runValue{run: {v, at}}
		}
		return c.addChecked(k, v)
	}
	switch rule {
	case DupMean:
		c.rule = DupMean
		return c.addChecked(k, v)
	case DupFirst:
		return nil
	case DupLast:
		*c = cellAcc{rule: DupLast, at: at}
		return c.addChecked(k, v)
	case DupRuns:
		if c.rule == DupRuns {
			if prev, seen := c.runs[run]; !seen {
				c.runs[run] = runValue{v, at}
				return c.addChecked(k, v)
			} else if prev.v != v {
				return &DuplicateError{Key: k, Value: v, Other: prev.v, OtherN: 1, OtherAt: prev.at, Run: run, BothRuns: true}
			}
			return nil // the same run twice with the same value: counted once
		}
	}
	if c.n == 1 && c.mean == v {
		return nil // the same value again: counted once
	}
	return &DuplicateError{Key: k, Value: v, Other: c.mean, OtherN: c.n, OtherAt: c.at,
		MixedWithRun: (rule == DupRuns) != (c.rule == DupRuns)}
}

// checkSize refuses a cell whose method or dataset is one more than the
// results may hold (MaxResultsMethods, MaxResultsDatasets): the reading
// stops there instead of filling gigabytes with names no analysis can
// compare.
func (b *ResultsBuilder) checkSize(k CellKey) error {
	if n := len(b.methods.list); n > MaxResultsMethods {
		return fmt.Errorf("method %q would be method number %d of the results, above the limit of %d methods in the results (and %d in one analysis)", k.Method, n, MaxResultsMethods, MaxMethods)
	}
	if n := len(b.datasets.list); n > MaxResultsDatasets {
		return fmt.Errorf("dataset %q would be dataset number %d of the results, above the limit of %d datasets in the results (and %d in one analysis)", k.Dataset, n, MaxResultsDatasets, MaxDatasets)
	}
	return nil
}

func (c *cellAcc) addChecked(k CellKey, v float64) error {
	if !c.add(v) {
		return &OverflowError{Key: k, N: c.n}
	}
	return nil
}

// RunCell is a cell whose rows are runs (DupRuns): how many runs it
// averages and where its first run was read.
type RunCell struct {
	Key  CellKey
	Runs int
	At   Source
}

// RunCells returns the cells whose rows are runs, by dataset, metric and
// method in first-seen order: the caller compares their run counts (a
// mean over 3 runs next to a mean over 5 is not a fair comparison).
func (b *ResultsBuilder) RunCells() []RunCell {
	var out []RunCell
	for k, c := range b.acc {
		if c.rule == DupRuns {
			out = append(out, RunCell{Key: k, Runs: c.n, At: c.at})
		}
	}
	pos := func(s orderedSet) map[string]int {
		m := make(map[string]int, len(s.list))
		for i, v := range s.list {
			m[v] = i
		}
		return m
	}
	d, m, x := pos(b.datasets), pos(b.methods), pos(b.metrics)
	sort.Slice(out, func(i, j int) bool {
		a, c := out[i].Key, out[j].Key
		switch {
		case a.Dataset != c.Dataset:
			return d[a.Dataset] < d[c.Dataset]
		case a.Metric != c.Metric:
			return x[a.Metric] < x[c.Metric]
		}
		return m[a.Method] < m[c.Method]
	})
	return out
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

// Better reports whether v is strictly better than w.
func Better(v, w float64, higherBetter bool) bool {
	c := CompareScores(v, w)
	if math.IsNaN(v) || math.IsNaN(w) {
		return false // as the comparison operators: NaN is never better or worse
	}
	return (higherBetter && c > 0) || (!higherBetter && c < 0)
}

// Matrix is q[d][m]: one value per dataset (row) and method (column),
// complete (no NaN).
type Matrix [][]float64

// DecodeSource decodes an input key that is a path or a table
// {path = …, columns = {expected = "file's name"}}; column checks and
// normalises an expected name. key names the option in messages, example
// is a column shown in the hint.
func DecodeSource(key, example string, v any, column func(string) (string, error)) (string, map[string]string, error) {
	switch x := v.(type) {
	case string:
		return x, nil, nil
	case map[string]any:
		var path string
		var cols map[string]string
		for _, k := range SortedKeys(x) {
			switch k {
			case "path":
				p, ok := x[k].(string)
				if !ok {
					return "", nil, fmt.Errorf("%s.path: want a string, got %T", key, x[k])
				}
				path = p
			case "columns":
				m, ok := x[k].(map[string]any)
				if !ok {
					return "", nil, fmt.Errorf("%s.columns: want a table {%s = \"…\"}, got %T", key, example, x[k])
				}
				cols = map[string]string{}
				for _, c := range SortedKeys(m) {
					want, err := column(c)
					if err != nil {
						return "", nil, err
					}
					name, ok := m[c].(string)
					if !ok {
						return "", nil, fmt.Errorf("%s.columns.%s: want a column name, got %T", key, c, m[c])
					}
					cols[want] = name
				}
			default:
				return "", nil, fmt.Errorf("%s: unknown key %q%s", key, k, NameHint(k, []string{"path", "columns"}))
			}
		}
		if path == "" {
			return "", nil, fmt.Errorf("%s.path: required", key)
		}
		return path, cols, nil
	}
	return "", nil, fmt.Errorf("%s: want a path or a table {path = …, columns = {…}}, got %T", key, v)
}
