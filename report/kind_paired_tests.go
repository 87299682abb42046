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
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures"
)

func pairedTestsKind() Kind {
	return NewKind("paired_tests",
		"paired vs independent tests, Shapiro–Wilk choice of test, effect sizes and post-hoc power for every pair of methods (seed 003)",
		runPairedTests)
}

func runPairedTests(ctx *Context, o *analyses.PairedTestsOptions) (*Output, error) {
	metric := ctx.Metric(o.Metric)
	var in analyses.PairedTestsInput
	var err error
	if o.Dataset == "" {
		in, err = pairedFromResults(ctx, o, metric)
	} else {
		in, err = pairedFromUnits(ctx, o, metric)
	}
	if err != nil {
		return nil, err
	}
	r, err := analyses.PairedTests(in, *o)
	if err != nil {
		return nil, err
	}
	figs, err := figures.PairedTests(ctx.ID, ctx.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: pairedTestsMethod(r)}, nil
}

func pairedFromResults(ctx *Context, o *analyses.PairedTestsOptions, metric analyses.Metric) (analyses.PairedTestsInput, error) {
	res, err := ctx.Results()
	if err != nil {
		return analyses.PairedTestsInput{}, err
	}
	if err := checkNames("metric", []string{metric.Name}, res.Metrics); err != nil {
		return analyses.PairedTestsInput{}, err
	}
	methods := o.Methods
	if len(methods) == 0 {
		methods = res.Methods
	} else if err := checkNames("method", methods, res.Methods); err != nil {
		return analyses.PairedTestsInput{}, err
	}
	in := analyses.PairedTestsInput{Metric: metric, Over: "datasets", Units: res.Datasets, Methods: methods}
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

func pairedFromUnits(ctx *Context, o *analyses.PairedTestsOptions, metric analyses.Metric) (analyses.PairedTestsInput, error) {
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
		return analyses.PairedTestsInput{}, err
	}
	if !datasets[o.Dataset] {
		return analyses.PairedTestsInput{}, fmt.Errorf("dataset: no units for dataset %q%s", o.Dataset, analyses.DidYouMean(o.Dataset, analyses.SortedKeys(datasets)))
	}
	if !metrics[metric.Name] {
		return analyses.PairedTestsInput{}, fmt.Errorf("metric: no units of metric %q for dataset %q%s", metric.Name, o.Dataset, analyses.DidYouMean(metric.Name, analyses.SortedKeys(metrics)))
	}
	for _, m := range o.Methods {
		if !allMethods[m] {
			return analyses.PairedTestsInput{}, fmt.Errorf("methods: no units of method %q for dataset %q%s", m, o.Dataset, analyses.DidYouMean(m, analyses.SortedKeys(allMethods)))
		}
	}
	in := analyses.PairedTestsInput{Metric: metric, Over: "units of " + o.Dataset, Units: units, Methods: methods}
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

func pairedTestsMethod(r *analyses.PairedTestsResult) string {
	s := fmt.Sprintf(`Every pair of methods (a, b) is compared over the %s they share, paired by name; the differences are a − b.

**Why the paired test is the one to trust** (seed 003, Košir et al. 2013, §2.2): both methods are measured on the same units, so each unit's difficulty affects both alike. A paired test looks at the per-unit differences, where that shared variation cancels; the independent tests (Welch's t, Mann–Whitney U) pool each method's values as if they came from different units, so the unit-to-unit spread swamps a consistent difference and power is lost. They are shown only to make the loss visible: compare **power_paired** with **power_independent**.

Paired tests: the paired t-test (scipy's ttest_rel), the Wilcoxon signed-rank test (zero_method %q; exact p with at most 50 pairs and no zero or tied differences, else the normal approximation with tie correction) and the sign test (exact binomial on the non-zero differences). Independent tests: Welch's t (ttest_ind, equal_var = False) and Mann–Whitney U (two-sided, exact for small samples without ties, else with tie and continuity correction).

**recommended** follows seed 003 §2.3: the Shapiro–Wilk test (Royston's AS R94, as scipy) on the differences; if normality is not rejected at α = %g the paired t-test, otherwise the Wilcoxon signed-rank test. **p_holm** is Holm's adjustment of the recommended test's p over all pairs; a pair is significant when p_holm ≤ α.

Effect sizes: Cohen's d_z = mean(d)/sd(d) and the matched-pairs rank-biserial r = (R+ − R−)/(R+ + R−). Post-hoc power at α is computed from the noncentral t (as statsmodels' TTestPower with d_z and n for the paired test, TTestIndPower with the pooled-sd Cohen's d and n per group for the independent one); post-hoc power describes these data, it is not a planning figure.`,
		r.Over, r.ZeroMethod, r.Alpha)
	var lines []string
	for _, p := range r.Pairs {
		if p.Recommended == "none" {
			continue
		}
		verdict := "not significant"
		if p.Significant {
			verdict = "significant"
		}
		indep := "undefined"
		if p.PWelch != nil && p.PMannWhitney != nil {
			iv := "neither independent test rejects"
			if *p.PWelch <= r.Alpha || *p.PMannWhitney <= r.Alpha {
				iv = "an independent test also rejects"
			}
			indep = fmt.Sprintf("%s (Welch p = %.3g, Mann–Whitney p = %.3g)", iv, *p.PWelch, *p.PMannWhitney)
		}
		ph := math.NaN()
		if p.PHolm != nil {
			ph = *p.PHolm
		}
		test := map[string]string{"paired_t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test"}[p.Recommended]
		lines = append(lines, fmt.Sprintf("- %s vs %s: %s by the %s (Holm p = %.3g); %s.", p.A, p.B, verdict, test, ph, indep))
	}
	if len(lines) > 0 {
		s += "\n\n**Result:**\n\n" + strings.Join(lines, "\n")
	}
	return s
}
