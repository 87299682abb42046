package datasets

// The dataset_selection analysis asks which few datasets give the same
// leaderboard as all of them (Shevchenko et al. 2024, §4.4, Appendix C,
// Table 4): a benchmark that can only afford six datasets should pick them
// so that the ranking of methods barely moves. Four ways of picking are
// compared over many seeded simulations by Spearman's ρ between the ranking
// on the chosen datasets and the ranking on all.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"

	"github.com/evalbook/evalbook/analyses/internal/parallel"
	"github.com/evalbook/evalbook/analyses/stats"

	"gonum.org/v1/gonum/stat"
)

// Selection strategies (Shevchenko et al. 2024, Table 4).
const (
	StrategyRandom   = "random"
	StrategyKMeans   = "kmeans"
	StrategyDOptimal = stats.DesignD
	StrategyAOptimal = stats.DesignA
)

// AllStrategies lists the strategies in the order of Table 4 of Shevchenko
// et al. 2024.
var AllStrategies = []string{StrategyRandom, StrategyDOptimal, StrategyAOptimal, StrategyKMeans}

// strategyStream fixes each strategy's random stream, so that adding or
// removing a strategy from the options never changes another's numbers.
var strategyStream = map[string]uint64{StrategyRandom: 0, StrategyKMeans: 1, StrategyDOptimal: 2, StrategyAOptimal: 3}

// SelectionOptions are the keys of a `dataset_selection` analysis.
type SelectionOptions struct {
	Metrics     []string `toml:"metrics"`     // required
	Size        int      `toml:"size"`        // datasets chosen; default 6
	Strategies  []string `toml:"strategies"`  // default all four
	Simulations int      `toml:"simulations"` // default 500
	Rule        string   `toml:"rule"`        // ranking rule; default mean_rank
	BetaMax     float64  `toml:"beta_max"`    // for the dm_* rules; default 3
	Epsilon     float64  `toml:"epsilon"`     // ridge ε of XᵀX + εI; default 1e-6
	Start       int      `toml:"start"`       // random datasets the greedy designs start from; default 1
	Components  int      `toml:"components"`  // 0 (default): all standardised features; k > 0: the first k principal components
	Features    []string `toml:"features"`    // subset of characteristics; default all
	Datasets    []string `toml:"datasets"`    // subset; default all
	Methods     []string `toml:"methods"`     // subset; default all
	Missing     string   `toml:"missing"`     // "error" (default) or "drop"
}

// Defaults fills unset options.
func (o *SelectionOptions) Defaults() {
	if o.Size == 0 {
		o.Size = 6
	}
	if len(o.Strategies) == 0 {
		o.Strategies = append([]string(nil), AllStrategies...)
	}
	if o.Simulations == 0 {
		o.Simulations = 500
	}
	if o.Rule == "" {
		o.Rule = leaderboard.RuleMeanRank
	}
	if o.BetaMax == 0 {
		o.BetaMax = 3
	}
	if o.Epsilon == 0 {
		o.Epsilon = 1e-6
	}
	if o.Start == 0 {
		o.Start = 1
	}
	if o.Missing == "" {
		o.Missing = "error"
	}
}

// Validate checks the options.
func (o *SelectionOptions) Validate() error {
	if len(o.Metrics) == 0 {
		return analyses.OptionErrorf("metrics", "required (the metrics whose rankings are compared)")
	}
	if err := analyses.CheckDistinct("metrics", o.Metrics); err != nil {
		return err
	}
	if err := analyses.CheckInt("size", o.Size, 2, analyses.MaxSelect); err != nil {
		return err
	}
	for _, s := range o.Strategies {
		if _, ok := strategyStream[s]; !ok {
			return analyses.OptionErrorf("strategies", "unknown strategy %q%s", s, analyses.NameHint(s, AllStrategies))
		}
	}
	if err := analyses.CheckDistinct("strategies", o.Strategies); err != nil {
		return err
	}
	if err := analyses.CheckInt("simulations", o.Simulations, 1, analyses.MaxSimulations); err != nil {
		return err
	}
	if !leaderboard.IsRule(o.Rule) {
		return analyses.OptionErrorf("rule", "unknown rule %q%s", o.Rule, analyses.NameHint(o.Rule, leaderboard.AllRules))
	}
	if err := analyses.CheckFloat("beta_max", o.BetaMax, 1, analyses.MaxBetaMax); err != nil {
		return err
	}
	if err := analyses.CheckPositive("epsilon", o.Epsilon, math.MaxFloat64); err != nil {
		return err
	}
	if o.Start < 1 || o.Start >= o.Size {
		return analyses.OptionErrorf("start", "must be between 1 and size − 1 = %d, got %d", o.Size-1, o.Start)
	}
	if err := analyses.CheckInt("components", o.Components, 0, analyses.MaxComponents); err != nil {
		return err
	}
	if err := analyses.OneOf("missing", o.Missing, "error", "drop"); err != nil {
		return err
	}
	return analyses.FirstError(CheckFeatureNames(o.Features), analyses.CheckDistinct("datasets", o.Datasets), analyses.CheckDistinct("methods", o.Methods))
}

// SelectionInput is what dataset_selection works on.
type SelectionInput struct {
	Datasets []string
	Features []string
	X        [][]float64 // X[d][f]; NaN missing
	Methods  []string
	Metrics  []analyses.Metric
	Q        []analyses.Matrix // per metric, Q[k][d][m]; NaN missing
	Seed     uint64
	Jobs     int
	// Progress, when not nil, is told how many simulations are done; it
	// may be called from several goroutines.
	Progress func(done, total int)
}

// SelectionSummary is the distribution of ρ for one strategy and metric.
type SelectionSummary struct {
	Strategy  string   `json:"strategy"`
	Metric    string   `json:"metric"`
	Mean      *float64 `json:"mean_rho"` // null when ρ is never defined
	SD        *float64 `json:"sd_rho"`   // sample sd; null with fewer than 2 values
	Min       *float64 `json:"min_rho"`
	Q05       *float64 `json:"q05_rho"`
	Q25       *float64 `json:"q25_rho"`
	Median    *float64 `json:"median_rho"`
	Q75       *float64 `json:"q75_rho"`
	Q95       *float64 `json:"q95_rho"`
	Max       *float64 `json:"max_rho"`
	Defined   int      `json:"simulations"` // simulations with a defined ρ
	Undefined int      `json:"undefined"`   // ρ undefined (a constant ranking on the chosen datasets)
}

// SelectionResult is the comparison of the strategies.
type SelectionResult struct {
	Datasets        []string                      `json:"datasets"`
	DroppedDatasets []string                      `json:"dropped_datasets,omitempty"`
	Features        []string                      `json:"features"`
	Methods         []string                      `json:"methods"`
	Metrics         []string                      `json:"metrics"`
	Strategies      []string                      `json:"strategies"`
	Rule            string                        `json:"rule"`
	Size            int                           `json:"size"`
	Simulations     int                           `json:"simulations"`
	Summary         []SelectionSummary            `json:"summary"`
	MeanRho         map[string]map[string]float64 `json:"mean_rho"`      // strategy → metric → mean ρ (Table 4)
	ChosenCounts    map[string][]int              `json:"chosen_counts"` // strategy → per dataset
	// Naming is how the key finding names things, and which methods are
	// baselines (set by the caller; not in JSON).
	Naming analyses.Naming `json:"-"`
	analyses.Warnings
}

// Selection runs the simulations of the dataset_selection analysis.
// Simulation s and strategy t draw from rand.NewPCG(seed, 4s + stream(t)),
// and simulations are summarised in their order, so the result depends on
// the seed only, not on in.Jobs.
func Selection(in SelectionInput, opts SelectionOptions) (*SelectionResult, error) {
	opts.Defaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(in.Features) == 0 {
		return nil, fmt.Errorf("no dataset features to select by")
	}
	if len(in.Methods) < 2 {
		return nil, fmt.Errorf("need at least 2 methods to rank, have %d", len(in.Methods))
	}
	res := &SelectionResult{Features: in.Features, Methods: in.Methods, Strategies: opts.Strategies,
		Rule: opts.Rule, Size: opts.Size, Simulations: opts.Simulations}
	for _, m := range in.Metrics {
		res.Metrics = append(res.Metrics, m.Name)
	}
	keep, err := selectionComplete(in, opts, res)
	if err != nil {
		return nil, err
	}
	n := len(keep)
	if n <= opts.Size {
		return nil, fmt.Errorf("choosing %d of %d datasets leaves nothing to choose: size must be below the number of datasets", opts.Size, n)
	}
	z, q, err := selectionSpace(in, opts, res, keep)
	if err != nil {
		return nil, err
	}
	// The rankings on all datasets.
	full := make([][]float64, len(in.Metrics))
	for k, m := range in.Metrics {
		s, err := leaderboard.RuleScores(opts.Rule, q[k], m.Better == analyses.HigherIsBetter, opts.BetaMax)
		if err != nil {
			return nil, fmt.Errorf("metric %q: %s on all datasets: %v", m.Name, opts.Rule, err)
		}
		full[k] = s
	}
	rho, chosen, err := selectionSimulate(in, opts, z, q, full)
	if err != nil {
		return nil, err
	}
	selectionSummarise(in, opts, res, rho, chosen, n)
	return res, nil
}

// selectionComplete keeps the datasets with every feature and every
// (method, metric) value; a missing one is an error, or (missing = "drop")
// drops the dataset. It returns the kept datasets' indices.
func selectionComplete(in SelectionInput, opts SelectionOptions, res *SelectionResult) ([]int, error) {
	var keep []int
	incomplete := 0
	for d := range in.Datasets {
		if selectionMissing(in, d) != "" {
			incomplete++
		}
	}
	for d, name := range in.Datasets {
		if why := selectionMissing(in, d); why != "" {
			if opts.Missing != "drop" {
				total := len(in.Datasets)
				hint := fmt.Sprintf("; %d of %d datasets lack a value: missing = \"drop\" would leave them out and select from the other %d", incomplete, total, total-incomplete)
				if 2*(total-incomplete) < total {
					hint = fmt.Sprintf("; %d of %d datasets lack a value: missing = \"drop\" would keep only %d of them; leave out the features, methods or metrics that lack values (features, methods, metrics)", incomplete, total, total-incomplete)
				}
				return nil, fmt.Errorf("dataset %q has no value for %s%s", name, why, hint)
			}
			res.DroppedDatasets = append(res.DroppedDatasets, name)
			continue
		}
		keep = append(keep, d)
		res.Datasets = append(res.Datasets, name)
	}
	if len(res.DroppedDatasets) > 0 {
		res.Warnf("%s left out for missing values: %s", analyses.Count(len(res.DroppedDatasets), "dataset", "datasets"), strings.Join(res.DroppedDatasets, ", "))
	}
	return keep, nil
}

// selectionMissing names the first missing value of dataset d (a feature,
// or a metric of a method), or returns "".
func selectionMissing(in SelectionInput, d int) string {
	for f, v := range in.X[d] {
		if !analyses.Finite(v) {
			return "feature " + in.Features[f]
		}
	}
	for k := range in.Metrics {
		for m, v := range in.Q[k][d] {
			if math.IsNaN(v) {
				return fmt.Sprintf("%s of method %s", in.Metrics[k].Name, in.Methods[m])
			}
		}
	}
	return ""
}

// selectionSpace returns the kept datasets' standardised features (or
// their first principal components) and their metric matrices.
func selectionSpace(in SelectionInput, opts SelectionOptions, res *SelectionResult, keep []int) ([][]float64, []analyses.Matrix, error) {
	n := len(keep)
	x := make([][]float64, n)
	q := make([]analyses.Matrix, len(in.Metrics))
	for k := range q {
		q[k] = make(analyses.Matrix, n)
	}
	for j, d := range keep {
		x[j] = in.X[d]
		for k := range q {
			q[k][j] = in.Q[k][d]
		}
	}
	z, constant := stats.ClustersZScore(x)
	if len(constant) > 0 {
		var names []string
		for _, j := range constant {
			names = append(names, in.Features[j])
		}
		if len(names) == 1 {
			res.Warnf("a feature constant over the datasets carries no information: %s", names[0])
		} else {
			res.Warnf("features constant over the datasets carry no information: %s", strings.Join(names, ", "))
		}
	}
	if opts.Components > 0 {
		c := min(opts.Components, n, len(in.Features))
		pca, err := stats.PCA(z, c)
		if err != nil {
			return nil, nil, err
		}
		z = pca.Scores
	}
	return z, q, nil
}

// selectionSimulate runs the simulations on in.Jobs goroutines: each
// strategy picks datasets, and every metric's ranking on them is compared
// with the full ranking by Spearman's ρ. It returns ρ
// [strategy][metric][simulation] and the picks [strategy][simulation].
func selectionSimulate(in SelectionInput, opts SelectionOptions, z [][]float64, q []analyses.Matrix, full [][]float64) ([][][]float64, [][][]int, error) {
	ns, nt, nk := opts.Simulations, len(opts.Strategies), len(in.Metrics)
	rho := make([][][]float64, nt) // [strategy][metric][simulation]
	chosen := make([][][]int, nt)  // [strategy][simulation]
	for t := range rho {
		rho[t] = make([][]float64, nk)
		for k := range rho[t] {
			rho[t][k] = make([]float64, ns)
		}
		chosen[t] = make([][]int, ns)
	}
	errs := make([]error, ns)
	var done atomic.Int64
	perr := parallel.For(ns, in.Jobs, func(s int) {
		sub := make(analyses.Matrix, opts.Size)
		for t, strat := range opts.Strategies {
			rng := rand.New(rand.NewPCG(in.Seed, uint64(s)*4+strategyStream[strat]))
			pick, err := selectDatasets(strat, z, opts, rng)
			if err != nil {
				errs[s] = fmt.Errorf("simulation %d, %s: %v", s+1, strat, err)
				return
			}
			chosen[t][s] = pick
			for k, m := range in.Metrics {
				for i, d := range pick {
					sub[i] = q[k][d]
				}
				sc, err := leaderboard.RuleScores(opts.Rule, sub, m.Better == analyses.HigherIsBetter, opts.BetaMax)
				if err != nil {
					rho[t][k][s] = math.NaN()
					continue
				}
				rho[t][k][s] = stats.Spearman(sc, full[k])
			}
		}
		if in.Progress != nil {
			in.Progress(int(done.Add(1)), ns)
		}
	})
	if perr != nil {
		return nil, nil, perr
	}
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return rho, chosen, nil
}

// selectionSummarise fills the result's mean ρ, summaries and counts of
// how often each of the n datasets was chosen.
func selectionSummarise(in SelectionInput, opts SelectionOptions, res *SelectionResult, rho [][][]float64, chosen [][][]int, n int) {
	res.MeanRho = map[string]map[string]float64{}
	res.ChosenCounts = map[string][]int{}
	for t, strat := range opts.Strategies {
		res.MeanRho[strat] = map[string]float64{}
		counts := make([]int, n)
		for _, pick := range chosen[t] {
			for _, d := range pick {
				counts[d]++
			}
		}
		res.ChosenCounts[strat] = counts
		for k, m := range in.Metrics {
			sm := summariseRho(rho[t][k])
			sm.Strategy, sm.Metric = strat, m.Name
			if sm.Undefined > 0 {
				res.Warnf("%s, %s: ρ undefined in %d of %d simulations (the %s scores were all equal on the chosen datasets); those simulations are left out of the summary", strat, m.Name, sm.Undefined, opts.Simulations, opts.Rule)
			}
			if sm.Mean != nil {
				res.MeanRho[strat][m.Name] = *sm.Mean
			}
			res.Summary = append(res.Summary, sm)
		}
	}
}

// selectDatasets picks opts.Size rows of z by one strategy.
func selectDatasets(strat string, z [][]float64, opts SelectionOptions, rng *rand.Rand) ([]int, error) {
	n := len(z)
	switch strat {
	case StrategyRandom:
		return rng.Perm(n)[:opts.Size], nil
	case StrategyKMeans:
		// One k-means++ start per simulation: the simulations then show
		// how much the choice depends on the start.
		f, err := stats.KMeans(z, opts.Size, 1, 300, rng.Uint64())
		if err != nil {
			return nil, err
		}
		pick := make([]int, 0, opts.Size)
		for c, ctr := range f.Centers {
			best, bd := -1, math.Inf(1)
			for i, r := range z {
				if f.Labels[i] != c {
					continue
				}
				if d := stats.SqDist(r, ctr); d < bd {
					best, bd = i, d
				}
			}
			if best >= 0 {
				pick = append(pick, best)
			}
		}
		if len(pick) < opts.Size {
			return nil, fmt.Errorf("k-means left %d of %d clusters empty", opts.Size-len(pick), opts.Size)
		}
		return pick, nil
	case StrategyDOptimal, StrategyAOptimal:
		start := rng.Perm(n)[:opts.Start]
		return stats.GreedyDesign(z, start, opts.Size, strat, opts.Epsilon)
	}
	panic("datasets: unknown selection strategy " + strat)
}

func summariseRho(v []float64) SelectionSummary {
	var ok []float64
	for _, x := range v {
		if !math.IsNaN(x) {
			ok = append(ok, x)
		}
	}
	s := SelectionSummary{Defined: len(ok), Undefined: len(v) - len(ok)}
	if len(ok) == 0 {
		return s
	}
	sort.Float64s(ok)
	f := func(v float64) *float64 { return &v }
	s.Mean = f(stat.Mean(ok, nil))
	if len(ok) > 1 {
		s.SD = f(stat.StdDev(ok, nil))
	}
	s.Min, s.Max = f(ok[0]), f(ok[len(ok)-1])
	s.Q05 = f(stats.Quantile(ok, 0.05))
	s.Q25 = f(stats.Quantile(ok, 0.25))
	s.Median = f(stats.Quantile(ok, 0.5))
	s.Q75 = f(stats.Quantile(ok, 0.75))
	s.Q95 = f(stats.Quantile(ok, 0.95))
	return s
}

// Tables implements Result: strategy × metric with the mean ρ and its
// spread, the means laid out as Table 4 of Shevchenko et al. 2024, and how
// often each dataset was chosen.
func (r *SelectionResult) Tables() []analyses.Table {
	main := analyses.Table{Title: "Spearman's ρ between the ranking on the chosen datasets and on all",
		Columns: []string{"strategy", "metric", "mean_rho", "sd_rho", "q05_rho", "median_rho", "q95_rho", "simulations"}}
	for _, s := range r.Summary {
		main.Rows = append(main.Rows, []any{s.Strategy, s.Metric, analyses.CellPtr(s.Mean), analyses.CellPtr(s.SD), analyses.CellPtr(s.Q05), analyses.CellPtr(s.Median), analyses.CellPtr(s.Q95), s.Defined})
	}
	ch := analyses.Table{Name: "chosen", Title: "How often each dataset was chosen", Columns: []string{"strategy", "dataset", "times_chosen", "share"}}
	for _, strat := range r.Strategies {
		counts := r.ChosenCounts[strat]
		order := make([]int, len(counts))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool {
			if counts[order[a]] != counts[order[b]] {
				return counts[order[a]] > counts[order[b]]
			}
			return r.Datasets[order[a]] < r.Datasets[order[b]]
		})
		for _, d := range order {
			if counts[d] == 0 {
				continue
			}
			ch.Rows = append(ch.Rows, []any{strat, r.Datasets[d], counts[d], float64(counts[d]) / float64(r.Simulations)})
		}
	}
	wide := analyses.Table{Name: "means", Title: "Mean ρ by strategy and metric (as Table 4 of Shevchenko et al. 2024)", Columns: append([]string{"strategy"}, r.Metrics...)}
	for _, strat := range r.Strategies {
		row := []any{strat}
		for _, m := range r.Metrics {
			if v, ok := r.MeanRho[strat][m]; ok {
				row = append(row, v)
			} else {
				row = append(row, nil)
			}
		}
		wide.Rows = append(wide.Rows, row)
	}
	vals := r.meanRhos()
	main.ShareDecimals(vals, "mean_rho")
	wide.ShareDecimals(vals, r.Metrics...)
	return []analyses.Table{main, wide, ch}
}

// meanRhos are the finite mean ρ of every strategy and metric: the
// tables print them, and the key finding quotes them, with their one
// precision.
func (r *SelectionResult) meanRhos() []float64 {
	var vals []float64
	for _, st := range r.Strategies {
		for _, m := range r.Metrics {
			if v, ok := r.MeanRho[st][m]; ok && analyses.Finite(v) {
				vals = append(vals, v)
			}
		}
	}
	return vals
}
