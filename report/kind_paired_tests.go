package report

// Registration of paired_tests (SPEC §5.3): the values of each listed
// method either over one dataset's units (folds, users; streamed from the
// `units` inputs and paired by unit id, or by row number when the files
// have no unit column) or over datasets (from `results`, paired by
// dataset name).

import (
	"fmt"
	"math"
	"strconv"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/significance"
	"github.com/evalbook/evalbook/figures"
)

func pairedTestsKind() Kind {
	return NewKind("paired_tests",
		"paired vs independent tests, Shapiro–Wilk choice of test, effect sizes and post-hoc power for every pair of methods (seed 003)",
		runPairedTests)
}

func runPairedTests(ctx *Context, o *significance.PairedTestsOptions) (*Output, error) {
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
	r, err := significance.PairedTests(in, *o)
	if err != nil {
		return nil, err
	}
	figs, err := figures.PairedTests(ctx.ID, ctx.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: pairedTestsMethod(r)}, nil
}

func pairedFromResults(ctx *Context, o *significance.PairedTestsOptions, metric analyses.Metric) (significance.PairedTestsInput, error) {
	res, err := ctx.Results()
	if err != nil {
		return significance.PairedTestsInput{}, err
	}
	if err := checkNames("metric", []string{metric.Name}, res.Metrics); err != nil {
		return significance.PairedTestsInput{}, err
	}
	methods := o.Methods
	if len(methods) == 0 {
		methods = res.Methods
	} else if err := checkNames("method", methods, res.Methods); err != nil {
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

func pairedFromUnits(ctx *Context, o *significance.PairedTestsOptions, metric analyses.Metric) (significance.PairedTestsInput, error) {
	want := map[string]int{}
	for i, m := range o.Methods {
		want[m] = i
	}
	methods := append([]string(nil), o.Methods...)
	type key struct {
		method int
		unit   string
	}
	vals := map[key]float64{}
	where := map[key]string{}
	var units []string
	unitSeen := map[string]bool{}
	datasets := map[string]bool{}
	metrics := map[string]bool{}
	allMethods := map[string]bool{}
	err := ctx.Units(func(u *UnitRow) error {
		datasets[u.Dataset] = true
		if u.Dataset != o.Dataset {
			return nil
		}
		metrics[u.Metric] = true
		allMethods[u.Method] = true
		if u.Metric != metric.Name {
			return nil
		}
		mi, ok := want[u.Method]
		if !ok {
			if len(o.Methods) > 0 {
				return nil
			}
			mi = len(methods)
			want[u.Method] = mi
			methods = append(methods, u.Method)
		}
		id := u.Unit
		if id == "" {
			id = strconv.FormatInt(u.Row+1, 10)
		}
		k := key{mi, id}
		if prev, dup := where[k]; dup {
			return fmt.Errorf("%s:%d: unit %q of method %q on dataset %q appears twice (first at %s)", u.File, u.Line, id, u.Method, u.Dataset, prev)
		}
		where[k] = fmt.Sprintf("%s:%d", u.File, u.Line)
		vals[k] = u.Value
		if !unitSeen[id] {
			unitSeen[id] = true
			units = append(units, id)
		}
		return nil
	})
	if err != nil {
		return significance.PairedTestsInput{}, err
	}
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
		in.Values[m] = make([]float64, len(units))
		for u, id := range units {
			v, ok := vals[key{m, id}]
			if !ok {
				v = math.NaN()
			}
			in.Values[m][u] = v
		}
	}
	return in, nil
}

// pairedTestsMethod is the method note (notes/paired_tests.md), ending
// with the verdict on every pair that has a recommended test.
func pairedTestsMethod(r *significance.PairedTestsResult) string {
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
	}{Over: r.Over, ZeroMethod: r.ZeroMethod, Alpha: r.Alpha}
	for _, p := range r.Pairs {
		if p.Recommended == "none" {
			continue
		}
		x := pair{A: p.A, B: p.B, Test: p.Recommended, Significant: p.Significant, PHolm: math.NaN()}
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
