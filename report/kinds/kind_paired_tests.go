package kinds

// Registration of paired_tests: the values of each listed
// method either over one dataset's units (folds, users; streamed from the
// `units` inputs and paired by unit id, or by row number when the files
// have no unit column) or over datasets (from `results`, paired by
// dataset name).

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/significance"
	"github.com/evalbook/evalbook/figures"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

func init() { register(pairedTestsKind) }

func pairedTestsKind() Kind {
	k := NewKind("paired_tests",
		"paired vs independent tests, Shapiro–Wilk choice of test, effect sizes and post-hoc power for every pair of methods (Košir et al. 2013)",
		runPairedTests)
	k.Units = func(ctx *Job, opts any) load.UnitsSink {
		if o := opts.(*significance.PairedTestsOptions); o.Dataset != "" {
			return newPairedSink(o, ctx.Metric(o.Metric).Name)
		}
		return nil
	}
	return Titled(k, func(s *manifest.Study, o *significance.PairedTestsOptions) string {
		subject := metricLabel(s, o.Metric)
		if o.Dataset != "" && subject != "" {
			subject += " on " + s.Label(manifest.LabelDataset, o.Dataset)
		}
		return titleOf("Paired tests", subject)
	})
}

func runPairedTests(ctx *Job, o *significance.PairedTestsOptions) (*Output, error) {
	metric := ctx.Metric(o.Metric)
	var in significance.PairedTestsInput
	var err error
	if o.Dataset == "" {
		in, err = pairedFromResults(ctx, o, metric)
	} else {
		in, err = pairedFromUnits(ctx, o, metric)
	}
	if err != nil {
		return nil, err
	}
	in.Naming = ctx.Study.Naming()
	if o.Dataset == "" {
		// the study's results give the methods' order, so each keeps
		// the style it has in the leaderboard's figures
		if res, err := ctx.Results(); err == nil {
			in.Naming = ctx.Study.NamingWith(res)
		}
	}
	if err := analyses.CheckMatrixSize(0, len(in.Methods), true); err != nil {
		return nil, err
	}
	r, err := significance.PairedTests(in, *o)
	if err != nil {
		return nil, err
	}
	r.Naming = in.Naming
	figs, err := figures.PairedTests(ctx.ID, ctx.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: PairedTestsMethod(r)}, nil
}

func pairedFromResults(ctx *Job, o *significance.PairedTestsOptions, metric analyses.Metric) (significance.PairedTestsInput, error) {
	res, err := ctx.Results()
	if err != nil {
		return significance.PairedTestsInput{}, err
	}
	if err := manifest.CheckNames("metric", []string{metric.Name}, res.Metrics); err != nil {
		return significance.PairedTestsInput{}, err
	}
	methods := o.Methods
	if len(methods) == 0 {
		methods = res.Methods
	} else if err := manifest.CheckNames("method", methods, res.Methods); err != nil {
		return significance.PairedTestsInput{}, err
	}
	if err := analyses.CheckMatrixSize(len(res.Datasets), len(methods), true); err != nil {
		return significance.PairedTestsInput{}, err
	}
	in := significance.PairedTestsInput{Metric: metric, Over: "datasets", Units: res.Datasets, Methods: methods}
	q := res.Matrix(metric.Name, res.Datasets, methods)
	in.Values = make([][]float64, len(methods))
	for m := range methods {
		in.Values[m] = make([]float64, len(res.Datasets))
		for d := range res.Datasets {
			in.Values[m][d] = q[d][m]
		}
	}
	return in, nil
}

// pairedSink collects one dataset's per-unit values of the metric for
// the listed methods (all methods when none is listed) from the shared
// units pass. It wants every file: which datasets, metrics and methods
// exist is part of its messages. A unit is its index in units (one map
// lookup a value); each method's values, and where each came from, are
// slices by that index.
type pairedSink struct {
	o        *significance.PairedTestsOptions
	metric   string
	want     map[string]int
	methods  []string
	vals     []pairedVals // by method
	units    []string
	unitIdx  map[string]int
	files    []string // where a value came from: files[pairedVals.file-1]
	fileIdx  map[string]int32
	lastFile int32 // the file of the last value (its index + 1), or 0
	// what the files hold, for the messages when something is missing
	datasets, metrics, allMethods map[string]bool
	lastDataset                   string    // the dataset of the last value, in datasets
	last                          [2]string // the metric and method of the last value of the dataset, in metrics and allMethods
}

// pairedVals are one method's values by unit index, with their files
// (an index + 1 into pairedSink.files; 0: no value yet) and lines.
type pairedVals struct {
	v    []float64
	file []int32
	line []int64
}

func newPairedSink(o *significance.PairedTestsOptions, metric string) *pairedSink {
	p := &pairedSink{o: o, metric: metric, want: map[string]int{}, methods: append([]string(nil), o.Methods...),
		vals: make([]pairedVals, len(o.Methods)), unitIdx: map[string]int{}, fileIdx: map[string]int32{},
		datasets: map[string]bool{}, metrics: map[string]bool{}, allMethods: map[string]bool{}}
	for i, m := range o.Methods {
		p.want[m] = i
	}
	return p
}

func (p *pairedSink) Metric() string         { return p.metric }
func (p *pairedSink) Wants(string) bool      { return true }
func (p *pairedSink) Seen(dataset, _ string) { p.datasets[dataset] = true }

func (p *pairedSink) OtherMetric(dataset, method, metric string) {
	p.datasets[dataset] = true
	if dataset == p.o.Dataset {
		p.metrics[metric] = true
		p.allMethods[method] = true
	}
}

func (p *pairedSink) Add(u *load.UnitRow) error {
	if u.Dataset != p.lastDataset || len(p.datasets) == 0 {
		p.datasets[u.Dataset] = true
		p.lastDataset = u.Dataset
	}
	if u.Dataset != p.o.Dataset {
		return nil
	}
	if u.Metric != p.last[0] || u.Method != p.last[1] || len(p.metrics) == 0 {
		p.metrics[u.Metric] = true
		p.allMethods[u.Method] = true
		p.last = [2]string{u.Metric, u.Method}
	}
	mi, ok := p.want[u.Method]
	if !ok {
		if len(p.o.Methods) > 0 {
			return nil
		}
		mi = len(p.methods)
		p.want[u.Method] = mi
		p.methods = append(p.methods, u.Method)
		p.vals = append(p.vals, pairedVals{})
	}
	id := u.Unit
	if id == "" {
		id = strconv.FormatInt(u.Row+1, 10)
	}
	ui, ok := p.unitIdx[id]
	if !ok {
		id = strings.Clone(id) // u.Unit lives for this call only
		ui = len(p.units)
		p.unitIdx[id] = ui
		p.units = append(p.units, id)
	}
	if p.lastFile == 0 || u.File != p.files[p.lastFile-1] {
		fi, ok := p.fileIdx[u.File]
		if !ok {
			p.files = append(p.files, u.File)
			fi = int32(len(p.files))
			p.fileIdx[u.File] = fi
		}
		p.lastFile = fi
	}
	if f, line := p.vals[mi].set(ui, u.Value, p.lastFile, u.Line); f != 0 {
		return input.Errorf(u.File, int(u.Line), "unit %q of method %q on dataset %q appears twice (first at %s:%d)", p.units[ui], u.Method, u.Dataset, p.files[f-1], line)
	}
	return nil
}

// set gives unit ui its value, from file and line, unless it has one:
// then it returns the file and line of that one.
func (s *pairedVals) set(ui int, v float64, file int32, line int64) (int32, int64) {
	for len(s.v) <= ui {
		s.v, s.file, s.line = append(s.v, math.NaN()), append(s.file, 0), append(s.line, 0)
	}
	if s.file[ui] != 0 {
		return s.file[ui], s.line[ui]
	}
	s.v[ui], s.file[ui], s.line[ui] = v, file, line
	return 0, 0
}

func pairedFromUnits(ctx *Job, o *significance.PairedTestsOptions, metric analyses.Metric) (significance.PairedTestsInput, error) {
	sink, err := ctx.ReadUnits(newPairedSink(o, metric.Name))
	if err != nil {
		return significance.PairedTestsInput{}, err
	}
	p := sink.(*pairedSink)
	datasets, metrics, allMethods := p.datasets, p.metrics, p.allMethods
	methods, units := p.methods, p.units
	if !datasets[o.Dataset] {
		return significance.PairedTestsInput{}, fmt.Errorf("dataset: no units for dataset %q%s", o.Dataset, analyses.DidYouMean(o.Dataset, analyses.SortedKeys(datasets)))
	}
	if !metrics[metric.Name] {
		return significance.PairedTestsInput{}, fmt.Errorf("metric: no units of metric %q for dataset %q%s", metric.Name, o.Dataset, analyses.DidYouMean(metric.Name, analyses.SortedKeys(metrics)))
	}
	for _, m := range o.Methods {
		if !allMethods[m] {
			return significance.PairedTestsInput{}, fmt.Errorf("methods: no units of method %q for dataset %q%s", m, o.Dataset, analyses.DidYouMean(m, analyses.SortedKeys(allMethods)))
		}
	}
	in := significance.PairedTestsInput{Metric: metric, Over: "units of " + o.Dataset, Units: units, Methods: methods}
	in.Values = make([][]float64, len(methods))
	for m := range methods {
		vals := p.vals[m].v
		for len(vals) < len(units) {
			vals = append(vals, math.NaN())
		}
		in.Values[m] = vals
	}
	return in, nil
}

// PairedTestsMethod is the method note (notes/paired_tests.md), ending
// with the verdict on every pair that has a recommended test.
func PairedTestsMethod(r *significance.PairedTestsResult) string {
	type pair struct {
		A, B, Test                  string // Test: paired_t or wilcoxon
		Significant, HasIndependent bool
		IndependentRejects          bool // Welch's or Mann–Whitney's p ≤ α
		PHolm, PWelch, PMannWhitney float64
	}
	d := struct {
		Over, ZeroMethod string
		Alpha            float64
		Pairs            []pair
	}{Over: r.OverLabel(), ZeroMethod: r.ZeroMethod, Alpha: r.Alpha}
	for _, p := range r.Pairs {
		if p.Recommended == "none" {
			continue
		}
		x := pair{A: markdownText(r.Naming.Method(p.A)), B: markdownText(r.Naming.Method(p.B)), Test: p.Recommended, Significant: p.Significant, PHolm: math.NaN()}
		if p.PHolm != nil {
			x.PHolm = *p.PHolm
		}
		if p.PWelch != nil && p.PMannWhitney != nil {
			x.HasIndependent, x.PWelch, x.PMannWhitney = true, *p.PWelch, *p.PMannWhitney
			x.IndependentRejects = *p.PWelch <= r.Alpha || *p.PMannWhitney <= r.Alpha
		}
		d.Pairs = append(d.Pairs, x)
	}
	return methodNote("paired_tests", d)
}
