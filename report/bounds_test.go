package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/report/manifest"
)

// boundsRequired are the keys each type needs before the key under test.
var boundsRequired = map[string][]string{
	"aggregate":           {`metric = "m"`},
	"critical_difference": {`metric = "m"`},
	"paired_tests":        {`metric = "m"`},
	"stability":           {`metric = "m"`},
	"metric_correlation":  nil,
	"characteristics":     nil,
	"clusters":            nil,
	"dataset_selection":   {`metrics = ["m"]`},
	"meta_analysis":       {`treatment = "a"`, `control = "b"`, `metric = "m"`},
	"multi_objective":     {`base = "b"`, `objectives = ["o"]`},
	"offline_metrics":     {`runs = "r/{method}.csv"`, `truth = "t.csv"`},
}

// boundsManifest writes an analysis of type typ whose last line is line
// and returns the manifest and that line's number. A required key that
// line sets is left out.
func boundsManifest(typ, line string) (string, int) {
	lines := []string{`title = "t"`, "", "[[analyses]]", `id = "x"`, fmt.Sprintf("type = %q", typ)}
	key := strings.TrimSpace(line[:strings.IndexByte(line, '=')])
	for _, r := range boundsRequired[typ] {
		if !strings.HasPrefix(r, key+" ") {
			lines = append(lines, r)
		}
	}
	lines = append(lines, "# the key under test", line)
	return strings.Join(lines, "\n") + "\n", len(lines)
}

// list returns a TOML array of n values made by f.
func list(n int, f func(i int) string) string {
	v := make([]string, n)
	for i := range v {
		v[i] = f(i)
	}
	return "[" + strings.Join(v, ", ") + "]"
}

// TestBoundsOptions plants one bad value per option bound (NaN, ±Inf,
// 1e308, just above the limit, duplicates) and checks the error names the
// key's manifest line; the rows with want "" are at the limit and pass.
func TestBoundsOptions(t *testing.T) {
	t.Parallel()
	num := func(i int) string { return fmt.Sprint(i + 1) }
	name := func(i int) string { return fmt.Sprintf("%q", fmt.Sprintf("m%d", i)) }
	cases := []struct {
		typ, line, want string
	}{
		// aggregate
		{"aggregate", "beta_max = nan", "beta_max: NaN is not a finite number"},
		{"aggregate", "beta_max = inf", "beta_max: +Inf is not a finite number"},
		{"aggregate", "beta_max = -inf", "beta_max: -Inf is not a finite number"},
		{"aggregate", "beta_max = 1e308", "beta_max: 1e+308 is above the limit of 1000"},
		{"aggregate", "beta_max = 1e7", "beta_max: 1e+07 is above the limit of 1000"},
		{"aggregate", "beta_max = 1000.5", "beta_max: 1000.5 is above the limit of 1000"},
		{"aggregate", "beta_max = 1000", ""},
		{"aggregate", "beta_max = 0.5", "beta_max: 0.5 is below the minimum of 1"},
		{"aggregate", `rules = ["borda", "mean_rank", "borda"]`, `rules: "borda" is listed twice`},
		{"aggregate", `rules = ["copland"]`, `rules: unknown rule "copland" (did you mean "copeland"?)`},
		{"aggregate", `datasets = ["d1", "d1"]`, `datasets: "d1" is listed twice`},
		{"aggregate", `methods = ["A", "B", "A"]`, `methods: "A" is listed twice`},
		// critical_difference
		{"critical_difference", "samples = 1000001", "samples: 1000001 is above the limit of 1000000"},
		{"critical_difference", "bayesian = true\nsamples = 1000000", ""},
		{"critical_difference", "samples = 99", "samples: 99 is below the minimum of 100"},
		{"critical_difference", "rope = nan", "rope: NaN is not a finite number"},
		{"critical_difference", "rope = inf", "rope: +Inf is not a finite number"},
		{"critical_difference", "alpha = nan", "alpha: must be in (0, 1), got NaN"},
		{"critical_difference", `methods = ["A", "A"]`, `methods: "A" is listed twice`},
		// paired_tests
		{"paired_tests", "alpha = inf", "alpha: must be in (0, 1), got +Inf"},
		{"paired_tests", `methods = ["A", "B", "A"]`, `methods: "A" is listed twice`},
		// stability
		{"stability", "repeats = 1000000000", "repeats: 1000000000 is above the limit of 10000"},
		{"stability", "repeats = 10001", "repeats: 10001 is above the limit of 10000"},
		{"stability", "repeats = 10000", ""},
		{"stability", "repeats = 0", "repeats: 0 is below the minimum of 1"},
		{"stability", "beta_max = nan", "beta_max: NaN is not a finite number"},
		{"stability", "beta_max = 1e7", "beta_max: 1e+07 is above the limit of 1000"},
		{"stability", "betas = [1.5, nan]", "betas: NaN is not a finite number"},
		{"stability", "betas = [1.5, 1000.1]", "betas: 1000.1 is above the limit of 1000"},
		{"stability", "betas = [1.5, 1000]", ""},
		{"stability", "betas = [2, 3, 2]", "betas: 2 is listed twice"},
		{"stability", "betas = " + list(1001, num), "betas: 1001 values is above the limit of 1000"},
		{"stability", "betas = " + list(1000, num), ""},
		{"stability", "alpha_similar = [0.9, inf]", "alpha_similar: +Inf is not a finite number"},
		{"stability", "alpha_similar = [1e308]", "alpha_similar: 1e+308 is above the limit of 1000"},
		{"stability", "alpha_similar = [0]", "alpha_similar: values must be positive, got 0"},
		{"stability", "alpha_best = [2, 2]", "alpha_best: 2 is listed twice"},
		{"stability", "alpha_best = [-inf]", "alpha_best: -Inf is not a finite number"},
		{"stability", "subset_sizes = [5, 5]", "subset_sizes: 5 is listed twice"},
		{"stability", "subset_sizes = [10001]", "subset_sizes: 10001 is above the limit of 10000"},
		{"stability", "subset_sizes = " + list(101, num), "subset_sizes: 101 values is above the limit of 100"},
		{"stability", `rules = ["dm_auc", "dm_auc"]`, `rules: "dm_auc" is listed twice`},
		{"stability", `perturbations = ["beta", "beta"]`, `perturbations: "beta" is listed twice`},
		// metric_correlation
		{"metric_correlation", "metrics = " + list(1001, name), "metrics: 1001 metrics is above the limit of 1000 for one correlation matrix"},
		{"metric_correlation", "metrics = " + list(1000, name), ""},
		{"metric_correlation", `metrics = ["a", "b", "a"]`, `metrics: "a" is listed twice`},
		// characteristics
		{"characteristics", "neighbors = 101", "neighbors: 101 is above the limit of 100"},
		{"characteristics", "metric = \"m\"\nneighbors = 100", ""},
		{"characteristics", "rating_threshold = nan", "rating_threshold: NaN is not a finite number"},
		{"characteristics", `features = ["Density", "Density"]`, `features: "Density" is listed twice`},
		// clusters
		{"clusters", "components = 1001", "components: 1001 is above the limit of 1000"},
		{"clusters", "trees = 10001", "trees: 10001 is above the limit of 10000"},
		{"clusters", "trees = 10000", ""},
		{"clusters", "k = 1001", "k: 1001 is above the limit of 1000"},
		{"clusters", "k = 1000", ""},
		{"clusters", "k_range = [2, 1001]", "k_range: 1001 is above the limit of 1000"},
		{"clusters", "inits = 1001", "inits: 1001 is above the limit of 1000"},
		{"clusters", "max_iter = 10001", "max_iter: 10001 is above the limit of 10000"},
		{"clusters", "contamination = nan", "contamination: want 0"},
		{"clusters", `datasets = ["d", "d"]`, `datasets: "d" is listed twice`},
		// dataset_selection
		{"dataset_selection", "size = 1001", "size: 1001 is above the limit of 1000"},
		{"dataset_selection", "simulations = 50001", "simulations: 50001 is above the limit of 50000"},
		{"dataset_selection", "simulations = 50000", ""},
		{"dataset_selection", "beta_max = inf", "beta_max: +Inf is not a finite number"},
		{"dataset_selection", "epsilon = nan", "epsilon: NaN is not a finite number"},
		{"dataset_selection", "epsilon = -1e-6", "epsilon: must be positive, got -1e-06"},
		{"dataset_selection", "components = 1001", "components: 1001 is above the limit of 1000"},
		{"dataset_selection", `metrics = ["m", "m"]`, `metrics: "m" is listed twice`},
		{"dataset_selection", `strategies = ["random", "random"]`, `strategies: "random" is listed twice`},
		// meta_analysis
		{"meta_analysis", "alpha = nan", "alpha: NaN is not between 0 and 1"},
		{"meta_analysis", `datasets = ["d", "d"]`, `datasets: "d" is listed twice`},
		// multi_objective
		{"multi_objective", "compare = [1, nan]", "compare: NaN is not a finite number"},
		{"multi_objective", "compare = [2, 2]", "compare: 2 is listed twice"},
		{"multi_objective", "compare = " + list(101, num), "compare: 101 values is above the limit of 100"},
		{"multi_objective", "importance = nan", `importance: the importance of "o" must be a finite number ≥ 0, got NaN`},
		{"multi_objective", `objectives = ["o", "p", "o"]`, `objectives: "o" is listed twice`},
		{"multi_objective", "objectives = " + list(101, name), "objectives: 101 values is above the limit of 100"},
		// offline_metrics
		{"offline_metrics", "k = [1048577]", "k: 1048577 is above the limit of 1048576"},
		{"offline_metrics", "k = [1048576]", ""},
		{"offline_metrics", "k = [10, 5, 10]", "k: 10 is listed twice"},
		{"offline_metrics", "k = " + list(101, num), "k: 101 values is above the limit of 100"},
		{"offline_metrics", "relevance_threshold = nan", "relevance_threshold: NaN is not a finite number"},
		{"offline_metrics", "half_life = inf", "half_life: +Inf is not a finite number"},
	}
	for _, c := range cases {
		c := c
		label := c.typ + " " + c.line
		if len(label) > 60 {
			label = label[:60]
		}
		t.Run(label, func(t *testing.T) {
			t.Parallel()
			src, line := boundsManifest(c.typ, c.line)
			err := parse(t, src)
			if c.want == "" {
				if err != nil {
					t.Fatalf("at the limit, got %v", err)
				}
				return
			}
			want := fmt.Sprintf("study.toml:%d: analyses (x): %s", line, c.want)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("got %v\nwant %s", err, want)
			}
		})
	}
}

// TestBoundsNestedKeys: keys of a sub-table ([analyses.evalrs2022]) are
// reported at their own line, and an analysis after it is not confused
// with it.
func TestBoundsNestedKeys(t *testing.T) {
	t.Parallel()
	src := `title = "t"

[[analyses]]
id = "mo"
type = "multi_objective"
base = "b"
objectives = ["o"]

[analyses.evalrs2022]
baseline = { b = 0.1, o = 0.2 }
best = { b = 0.5, o = 0.6 }
groups = { perf = { weight = 1.0, metrics = ["b", "o"] } }
penalty = nan

[[analyses]]
id = "lb"
type = "aggregate"
metric = "m"
penalty = 3
beta_max = inf
`
	err := parse(t, src)
	for _, want := range []string{
		`study.toml:13: analyses (mo): evalrs2022.penalty: NaN is not a finite number`,
		`study.toml:19: analyses[1] (lb): unknown key "penalty"`,
		`study.toml:20: analyses (lb): beta_max: +Inf is not a finite number`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v\nwant %s", err, want)
		}
	}
	src = strings.Replace(src, "penalty = nan", "penalty = -100", 1)
	src = strings.Replace(src, `metrics = ["b", "o"]`, `metrics = ["b", "o", "b"]`, 1)
	err = parse(t, src)
	if want := `study.toml:12: analyses (mo): evalrs2022.groups.perf.metrics: "b" is listed twice`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestBoundsBuild: the values that used to panic (beta_max = nan) or run
// out of memory (beta_max = 1e7, repeats = 1e9) fail the build with a
// manifest error, not a stack trace.
func TestBoundsBuild(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ from, to, want string }{
		{`metric  = "ndcg"`, "metric  = \"ndcg\"\nbeta_max = nan", "study.toml:25: analyses (lb): beta_max: NaN is not a finite number"},
		{`metric  = "ndcg"`, "metric  = \"ndcg\"\nbeta_max = 1e7", "study.toml:25: analyses (lb): beta_max: 1e+07 is above the limit of 1000"},
		{`type    = "aggregate"`, "type    = \"stability\"\nrepeats = 1000000000", "study.toml:22: analyses (lb): repeats: 1000000000 is above the limit of 10000"},
	} {
		_, err := buildStudy(t, strings.Replace(smallStudy, c.from, c.to, 1))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v\nwant %s", err, c.want)
		}
		if err != nil && (strings.Contains(err.Error(), "panic") || strings.Contains(err.Error(), "internal error")) {
			t.Errorf("a bad option crashed the analysis: %v", err)
		}
	}
}

// TestBoundsCorrelationMetrics: the number of metrics of a correlation
// matrix comes from the data, so it is checked when the matrix is formed,
// naming the analysis and the count.
func TestBoundsCorrelationMetrics(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`-- study.toml --
title = "t"
[inputs]
results = "results.csv"

[[analyses]]
id = "agree"
type = "metric_correlation"
-- results.csv --
dataset,method`)
	const n = 1001
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, ",m%d", i)
	}
	b.WriteByte('\n')
	for _, row := range []string{"d1,A", "d1,B", "d2,A", "d2,B"} {
		b.WriteString(row)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, ",%d", (i*7+len(row))%11)
		}
		b.WriteByte('\n')
	}
	_, err := buildStudy(t, b.String())
	want := "study.toml:5: analyses/agree: metric_correlation over 1001 metrics is above the limit of 1000 metrics in one correlation matrix"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// TestBoundsStabilityWork: the perturbed matrices of a stability analysis
// grow with the data as well as with repeats, so they are counted once
// the matrix is known.
func TestBoundsStabilityWork(t *testing.T) {
	t.Parallel()
	opts := func(repeats int) *leaderboard.StabilityOptions {
		o := &leaderboard.StabilityOptions{Metric: "m", Repeats: repeats}
		o.Defaults()
		return o
	}
	if err := manifest.CheckStabilityWork(opts(analyses.MaxRepeats), 30, 11); err != nil {
		t.Errorf("30 datasets × 11 methods at the repeats limit: %v", err)
	}
	if err := manifest.CheckStabilityWork(opts(100), 100, 30); err != nil {
		t.Errorf("100 datasets × 30 methods at the default repeats: %v", err)
	}
	// Past curve_points and similar_methods the matrices stop growing
	// with the data, so 10 datasets × 1 000 methods run; the cells to
	// score still grow with both, and are bounded.
	if err := manifest.CheckStabilityWork(opts(10), 10, 1000); err != nil {
		t.Errorf("10 datasets × 1 000 methods, repeats = 10: %v", err)
	}
	for _, c := range []struct {
		nd, nm, repeats int
		want            string
	}{
		{1000, 50, 100, "stability on 1000 datasets and 50 methods with repeats = 100 needs 11"},
		{10, 10000, 100, "stability on 10 datasets and 10000 methods with repeats = 100 needs "},
	} {
		err := manifest.CheckStabilityWork(opts(c.repeats), c.nd, c.nm)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "cells to score, above the limit of 5e+08; lower repeats or curve_points") {
			t.Errorf("%d datasets × %d methods: got %v\nwant %s…", c.nd, c.nm, err, c.want)
		}
	}
	o := opts(analyses.MaxRepeats)
	o.CurvePoints = 1000
	err := manifest.CheckStabilityWork(o, 1000, 11)
	want := "stability on 1000 datasets and 11 methods with repeats = 10000 needs "
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "above the limit of 1000000") {
		t.Errorf("got %v\nwant %s…", err, want)
	}
}
