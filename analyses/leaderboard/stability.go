package leaderboard

// Why this file exists: a leaderboard is only as trustworthy as its
// aggregation rule is stable. Shevchenko et al. (2024, §4.2.3 and Appendix
// B, Figures 5, 6, 9 and Table 3) measure how far each rule's ranking moves
// when the input matrix is perturbed; this file implements their
// perturbations, listed below and in the README's `stability`. The rules
// themselves live in aggregate.go (Scorer, RuleScores) and are not repeated
// here.

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// Perturbations of the matrix (after Shevchenko et al. 2024, §4.2.3), in
// the order figures and tables show them.
const (
	PerturbDropDatasets  = "drop_datasets"
	PerturbDropMethods   = "drop_methods"
	PerturbSimilarMethod = "similar_method"
	PerturbBestMethod    = "best_method"
	PerturbBeta          = "beta"
	PerturbSubsetPairs   = "subset_pairs"
)

// AllPerturbations lists every perturbation.
var AllPerturbations = []string{
	PerturbDropDatasets, PerturbDropMethods, PerturbSimilarMethod,
	PerturbBestMethod, PerturbBeta, PerturbSubsetPairs,
}

// StabilityOptions are the keys of a `stability` analysis.
//
// Besides metric, rules, perturbations, repeats and the α and β̂ grids,
// beta_max (the β̂ of the reference DM rankings, default 3 as Shevchenko et
// al. 2024), subset_sizes (default 5 and 10, the rows of Table 3) and the
// datasets/methods/missing keys of `aggregate` are accepted, so a stability
// analysis can study exactly the leaderboard it accompanies.
type StabilityOptions struct {
	Metric        string    `toml:"metric"`
	Rules         []string  `toml:"rules"`         // default: all eleven of aggregate
	Perturbations []string  `toml:"perturbations"` // default: all
	Repeats       int       `toml:"repeats"`       // default 100
	AlphaSimilar  []float64 `toml:"alpha_similar"` // default 0.85, 0.86, …, 1.15
	AlphaBest     []float64 `toml:"alpha_best"`    // default 1, 1.1, …, 4
	Betas         []float64 `toml:"betas"`         // default 1.5, 1.6, …, 10
	BetaMax       float64   `toml:"beta_max"`      // default 3
	SubsetSizes   []int     `toml:"subset_sizes"`  // default 5, 10
	Datasets      []string  `toml:"datasets"`      // optional subset
	Methods       []string  `toml:"methods"`       // optional subset
	Missing       string    `toml:"missing"`       // "error" (default) or "drop"
	// CurvePoints bounds the sizes drop_datasets and drop_methods
	// evaluate: with more datasets (methods) than that, the curve is
	// drawn at CurvePoints sizes evenly spaced from 1 to the largest.
	CurvePoints int `toml:"curve_points"` // default 50
	// SimilarMethods bounds the methods similar_method clones: with more,
	// a seeded sample of that many, the same for every α.
	SimilarMethods int `toml:"similar_methods"` // default 50
}

// Defaults fills unset options. Grids are built from integers so that
// 0.95 is the decimal 0.95 and not 0.85 + 10·0.01.
func (o *StabilityOptions) Defaults() {
	if len(o.Rules) == 0 {
		o.Rules = append([]string(nil), AllRules...)
	}
	if len(o.Perturbations) == 0 {
		o.Perturbations = append([]string(nil), AllPerturbations...)
	}
	if o.Repeats == 0 {
		o.Repeats = 100
	}
	if len(o.AlphaSimilar) == 0 {
		for i := 85; i <= 115; i++ {
			o.AlphaSimilar = append(o.AlphaSimilar, float64(i)/100)
		}
	}
	if len(o.AlphaBest) == 0 {
		for i := 10; i <= 40; i++ {
			o.AlphaBest = append(o.AlphaBest, float64(i)/10)
		}
	}
	if len(o.Betas) == 0 {
		for i := 15; i <= 100; i++ {
			o.Betas = append(o.Betas, float64(i)/10)
		}
	}
	if o.BetaMax == 0 {
		o.BetaMax = 3
	}
	if len(o.SubsetSizes) == 0 {
		o.SubsetSizes = []int{5, 10}
	}
	if o.Missing == "" {
		o.Missing = "error"
	}
	if o.CurvePoints == 0 {
		o.CurvePoints = 50
	}
	if o.SimilarMethods == 0 {
		o.SimilarMethods = 50
	}
}

// Validate checks the options.
func (o *StabilityOptions) Validate() error {
	if o.Metric == "" {
		return analyses.OptionErrorf("metric", "required")
	}
	if err := checkRules("rules", o.Rules); err != nil {
		return err
	}
	for _, p := range o.Perturbations {
		if !isPerturbation(p) {
			return analyses.OptionErrorf("perturbations", "unknown perturbation %q%s", p, analyses.NameHint(p, AllPerturbations))
		}
	}
	if err := analyses.CheckDistinct("perturbations", o.Perturbations); err != nil {
		return err
	}
	if err := analyses.CheckInt("repeats", o.Repeats, 1, analyses.MaxRepeats); err != nil {
		return err
	}
	for _, g := range []struct {
		key  string
		list []float64
	}{{"alpha_similar", o.AlphaSimilar}, {"alpha_best", o.AlphaBest}} {
		if err := analyses.CheckFloats(g.key, g.list, 0, analyses.MaxGridFactor, analyses.MaxGridValues); err != nil {
			return err
		}
		for _, a := range g.list {
			if a <= 0 {
				return analyses.OptionErrorf(g.key, "values must be positive, got %g", a)
			}
		}
	}
	if err := analyses.CheckFloats("betas", o.Betas, 1, analyses.MaxBetaMax, analyses.MaxGridValues); err != nil {
		return err
	}
	if err := analyses.CheckFloat("beta_max", o.BetaMax, 1, analyses.MaxBetaMax); err != nil {
		return err
	}
	if err := analyses.CheckLen("subset_sizes", len(o.SubsetSizes), analyses.MaxSubsetSizes); err != nil {
		return err
	}
	for _, s := range o.SubsetSizes {
		if err := analyses.CheckInt("subset_sizes", s, 1, analyses.MaxSubsetSize); err != nil {
			return err
		}
	}
	if err := analyses.CheckDistinct("subset_sizes", o.SubsetSizes); err != nil {
		return err
	}
	if err := analyses.OneOf("missing", o.Missing, "error", "drop"); err != nil {
		return err
	}
	if err := analyses.CheckInt("curve_points", o.CurvePoints, 2, analyses.MaxCurvePoints); err != nil {
		return err
	}
	if err := analyses.CheckInt("similar_methods", o.SimilarMethods, 1, analyses.MaxMethods); err != nil {
		return err
	}
	return analyses.FirstError(analyses.CheckDistinct("datasets", o.Datasets), analyses.CheckDistinct("methods", o.Methods))
}

func isPerturbation(p string) bool {
	for _, q := range AllPerturbations {
		if p == q {
			return true
		}
	}
	return false
}

// StabilityInput is the matrix a stability analysis perturbs, plus how to
// run: its random stream and the number of workers.
type StabilityInput struct {
	// Metric gives the direction and the bound used by similar_method and
	// best_method. A Max of 0 (the zero value) or +Inf means unbounded.
	Metric   analyses.Metric
	Datasets []string
	Methods  []string
	Q        analyses.Matrix // q[d][m]; NaN marks a missing cell
	// Seed is the analysis's stream; each (perturbation, size) draws its
	// subsets from its own PCG stream (Seed, index), so numbers do not
	// depend on Jobs.
	Seed uint64
	Jobs int // workers; < 1 means 1
	// Progress, when not nil, is told how many perturbed matrices of a
	// perturbation are done. It is called from several goroutines.
	Progress func(label string, done, total int)
}

// StabilityResult holds every curve, the per-rule summary (Table 3 of
// Shevchenko et al. 2024) and the Pareto-efficacy check.
type StabilityResult struct {
	Metric         string   `json:"metric"`
	HigherIsBetter bool     `json:"higher_is_better"`
	Datasets       []string `json:"datasets"`
	Methods        []string `json:"methods"`
	Rules          []string `json:"rules"`
	Perturbations  []string `json:"perturbations"`
	Repeats        int      `json:"repeats"`
	BetaMax        float64  `json:"beta_max"`
	SubsetSizes    []int    `json:"subset_sizes"`
	CurvePoints    int      `json:"curve_points"`
	SimilarMethods int      `json:"similar_methods"`
	// SimilarSample lists the methods similar_method cloned when it
	// cloned a sample of them (more than SimilarMethods methods).
	SimilarSample []string `json:"similar_sample,omitempty"`
	// ParetoScope is where the Pareto-efficacy check ran: "all" (the
	// full data and every perturbed matrix), "full" (the full data only:
	// every perturbed matrix would compare more pairs of methods than
	// analyses.MaxStabilityPairwise) or "none".
	ParetoScope     string               `json:"pareto_scope"`
	DroppedDatasets []string             `json:"dropped_datasets,omitempty"`
	Reference       map[string][]float64 `json:"reference_scores"` // rule -> score per method on all data
	Curves          []StabilityCurve     `json:"curves"`
	Summary         []StabilitySummary   `json:"summary"`
	Pareto          []StabilityPareto    `json:"pareto"`
	// Naming is how the key finding names rules (set by the caller; not
	// in JSON).
	Naming analyses.Naming `json:"-"`
	analyses.Warnings
}

// StabilityCurve is mean ρ against the perturbation size for one rule.
type StabilityCurve struct {
	Perturbation string           `json:"perturbation"`
	Rule         string           `json:"rule"`
	Points       []StabilityPoint `json:"points"`
}

// StabilityPoint is one point of a curve: the mean and sample sd of
// Spearman's ρ over Count perturbed matrices; Undefined more matrices
// gave a constant score vector (ρ undefined) and are left out.
type StabilityPoint struct {
	Size      float64  `json:"size"`
	Mean      OptFloat `json:"mean_rho"`
	SD        OptFloat `json:"sd_rho"`
	Count     int      `json:"count"`
	Undefined int      `json:"undefined"`
	// Exhaustive is true when every subset was enumerated (drop_datasets,
	// drop_methods, subset_pairs) rather than Repeats drawn.
	Exhaustive bool `json:"exhaustive"`
}

// StabilitySummary is one row of the summary table: the normalised area
// under each curve (the mean height of the curve over its x range, so
// 1 = perfectly stable) and the mean ρ between disjoint subsets.
type StabilitySummary struct {
	Rule      string              `json:"rule"`
	Area      map[string]OptFloat `json:"area"`       // perturbation -> normalised area
	SubsetRho map[string]OptFloat `json:"subset_rho"` // subset size -> mean ρ between disjoint subsets
	// VsAll is the mean ρ between the ranking on a subset of that many
	// datasets and the reference (the drop_datasets point at D − size):
	// what the Table 3 rows of Shevchenko et al. 2024 turn out to report
	// (see the method note).
	VsAll         map[string]OptFloat `json:"rho_vs_all"`
	ParetoChecked int                 `json:"pareto_checked"` // matrices checked
	ParetoViolate int                 `json:"pareto_violations"`
}

// StabilityPareto reports the Pareto-efficacy check of one rule: on how
// many matrices (the full one and every perturbed one) the rule ranked a
// dominated method strictly above a method dominating it.
type StabilityPareto struct {
	Rule       string `json:"rule"`
	Checked    int    `json:"checked"`
	Violations int    `json:"violations"`
	// First describes the first violation in a fixed order (full data,
	// then perturbations in order), "" when none.
	First string `json:"first_violation,omitempty"`
}

// OptFloat is a float that is written as null in JSON when not finite
// (encoding/json refuses NaN).
type OptFloat float64

// MarshalJSON implements json.Marshaler.
func (f OptFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if !analyses.Finite(v) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// Value returns the float, or nil when it is not finite, for table cells.
func (f OptFloat) Value() any {
	if !analyses.Finite(float64(f)) {
		return nil
	}
	return float64(f)
}

// Tables implements Result: the summary (one row per rule), the curves
// (the `-curves` columns the README lists) and the Pareto check.
func (r *StabilityResult) Tables() []analyses.Table {
	cols := []string{"rule"}
	for _, p := range r.Perturbations {
		if p != PerturbSubsetPairs {
			cols = append(cols, p+"_area")
		}
	}
	hasPairs := r.has(PerturbSubsetPairs)
	if hasPairs {
		for _, s := range r.SubsetSizes {
			cols = append(cols, fmt.Sprintf("rho_subsets_%d", s))
		}
	}
	hasDrop := r.has(PerturbDropDatasets)
	if hasDrop {
		for _, s := range r.SubsetSizes {
			cols = append(cols, fmt.Sprintf("rho_vs_all_%d", s))
		}
	}
	cols = append(cols, "pareto_checked", "pareto_violations", "pareto_efficient")
	main := analyses.Table{Title: "Stability of each aggregation rule (" + r.Naming.Metric(r.Metric) + ")", Columns: cols}
	for _, s := range r.Summary {
		row := []any{s.Rule}
		for _, p := range r.Perturbations {
			if p != PerturbSubsetPairs {
				row = append(row, s.Area[p].Value())
			}
		}
		if hasPairs {
			for _, sz := range r.SubsetSizes {
				row = append(row, s.SubsetRho[fmt.Sprint(sz)].Value())
			}
		}
		if hasDrop {
			for _, sz := range r.SubsetSizes {
				row = append(row, s.VsAll[fmt.Sprint(sz)].Value())
			}
		}
		row = append(row, s.ParetoChecked, s.ParetoViolate, s.ParetoViolate == 0)
		main.Rows = append(main.Rows, row)
	}
	curves := analyses.Table{Name: "curves", Title: "Mean Spearman ρ against the reference ranking, per perturbation size",
		Columns: []string{"perturbation", "rule", "size", "mean_rho", "sd_rho", "count", "undefined"}}
	for _, c := range r.Curves {
		for _, p := range c.Points {
			curves.Rows = append(curves.Rows, []any{c.Perturbation, c.Rule, p.Size, p.Mean.Value(), p.SD.Value(), p.Count, p.Undefined})
		}
	}
	par := analyses.Table{Name: "pareto", Title: "Pareto-efficacy check: a dominated method ranked above its dominator",
		Columns: []string{"rule", "checked", "violations", "first_violation"}}
	for _, p := range r.Pareto {
		var first any
		if p.First != "" {
			first = p.First
		}
		par.Rows = append(par.Rows, []any{p.Rule, p.Checked, p.Violations, first})
	}
	return []analyses.Table{main, curves, par}
}

func (r *StabilityResult) has(p string) bool {
	for _, q := range r.Perturbations {
		if q == p {
			return true
		}
	}
	return false
}

// Curve returns the curve of a perturbation and rule, or nil.
func (r *StabilityResult) Curve(perturbation, rule string) *StabilityCurve {
	for i := range r.Curves {
		if r.Curves[i].Perturbation == perturbation && r.Curves[i].Rule == rule {
			return &r.Curves[i]
		}
	}
	return nil
}

// Stability measures how each rule's ranking reacts to the perturbations
// (Shevchenko et al. 2024, §4.2.3 and Appendix B). The reference ranking of
// a rule is its score vector on all data (DM rules at beta_max); similarity
// is Spearman's ρ between score vectors, as scipy.stats.spearmanr (average
// ranks for ties). A perturbed matrix on which a rule's score vector (or
// the reference restricted to the kept methods) is constant has no ρ: it is
// left out of the mean and counted in the point's Undefined, and a note
// says how many.
//
// Every point of every curve matches, to 1e-12, the brute-force Python
// implementation in testdata/oracle/stability/gen.py (itertools
// enumeration, scipy.stats.spearmanr, numpy sample sd).
func Stability(in StabilityInput, opts StabilityOptions) (*StabilityResult, error) {
	opts.Defaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	higher := in.Metric.Better == analyses.HigherIsBetter
	score := func(rules []string, q analyses.Matrix, v stabView, betaMax float64) ([][]float64, []error) {
		return stabilityScores(rules, q, higher, betaMax, v)
	}
	return stability(in, opts, score, analyses.MaxStabilityPairwise)
}

// stabilityScorer computes the scores of several rules on one matrix (as
// RuleScores would, one error per rule); the view says how q derives from
// the full matrix, so the scorer can reuse work done once on it. Tests
// replace it to plant a rule that is not Pareto efficient.
type stabilityScorer func(rules []string, q analyses.Matrix, v stabView, betaMax float64) ([][]float64, []error)

func stability(in StabilityInput, opts StabilityOptions, score stabilityScorer, pairwise float64) (*StabilityResult, error) {
	higher := in.Metric.Better == analyses.HigherIsBetter
	opts.SubsetSizes = stabUnique(opts.SubsetSizes)
	res := &StabilityResult{
		Metric:         in.Metric.Name,
		HigherIsBetter: higher,
		Methods:        in.Methods,
		Repeats:        opts.Repeats,
		BetaMax:        opts.BetaMax,
		SubsetSizes:    opts.SubsetSizes,
		CurvePoints:    opts.CurvePoints,
		SimilarMethods: opts.SimilarMethods,
		Reference:      map[string][]float64{},
	}
	stabCheckInput(in)
	q, kept, dropped, err := CompleteRows(in.Metric.Name, in.Datasets, in.Methods, in.Q, opts.Missing == "drop")
	if err != nil {
		return nil, err
	}
	res.Datasets, res.DroppedDatasets = kept, dropped
	if len(dropped) > 0 {
		res.Warnf("%s left out for missing values: %s", analyses.Count(len(dropped), "dataset", "datasets"), strings.Join(dropped, ", "))
	}
	nd, nm := len(q), len(in.Methods)
	if nd < 2 {
		return nil, fmt.Errorf("metric %q: stability needs at least 2 complete datasets, have %d", in.Metric.Name, nd)
	}
	if nm < 3 {
		return nil, fmt.Errorf("metric %q: stability needs at least 3 methods (Spearman's ρ of two is always ±1), have %d", in.Metric.Name, nm)
	}
	if b := in.Metric.Max; b != 0 && !math.IsInf(b, 1) && !math.IsNaN(b) {
		// A perturbed value is clamped at the bound: a value of the data
		// above it means the data or the bound is wrong, and clamping
		// would change the stability numbers without a word.
		for i, row := range in.Q {
			for j, v := range row {
				if v > b {
					return nil, fmt.Errorf("metric %q: %s on %s is %g, above the metric's declared max = %g ([[metrics]]): the data or the bound is wrong", in.Metric.Name, in.Methods[j], in.Datasets[i], v, b)
				}
			}
		}
	}
	rules, scope, err := stabilityPairwise(stabUnique(opts.Rules), StabilityMatrices(opts, nd, nm), nd, nm, pairwise, &res.Warnings)
	if err != nil {
		return nil, err
	}
	res.ParetoScope = scope
	cache := newStabCache(q, higher, opts.BetaMax, slices.ContainsFunc(rules, isMajorityRule))
	stabReference(res, rules, q, cache, score, opts.BetaMax)
	if len(res.Rules) == 0 {
		return nil, fmt.Errorf("metric %q: no rule could be computed: %s", in.Metric.Name, strings.Join(res.List, "; "))
	}
	res.Perturbations = stabUnique(opts.Perturbations)
	e := &stabEngine{
		q: q, nd: nd, nm: nm, higher: higher, bound: in.Metric.Max,
		rules: res.Rules, ref: res.Reference, opts: opts, score: score, seed: in.Seed, res: res, cache: cache,
		paretoAll: scope == "all", paretoFull: scope != "none",
	}
	e.plan()
	if err := e.run(in.Jobs, in.Progress); err != nil {
		return nil, err
	}
	e.collect()
	return res, nil
}

// stabCheckInput panics when the matrix does not match the datasets and
// methods: a broken invariant of the caller.
func stabCheckInput(in StabilityInput) {
	if len(in.Q) != len(in.Datasets) {
		panic("leaderboard: StabilityInput has " + fmt.Sprint(len(in.Q)) + " rows for " + fmt.Sprint(len(in.Datasets)) + " datasets")
	}
	for _, row := range in.Q {
		if len(row) != len(in.Methods) {
			panic("leaderboard: StabilityInput row length does not match the methods")
		}
	}
}

// stabUnique returns list without repeats, in order of first appearance.
func stabUnique[T comparable](list []T) []T {
	var out []T
	for _, v := range list {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// stabReference scores the rules on all data: the reference rankings
// every perturbed one is compared with. A rule that fails is left out
// with a warning.
func stabReference(res *StabilityResult, rules []string, q analyses.Matrix, cache *stabCache, score stabilityScorer, betaMax float64) {
	refScores, refErrs := score(rules, q, stabView{cache: cache}, betaMax)
	for k, rule := range rules {
		s, err := refScores[k], refErrs[k]
		if err != nil {
			res.Warnf("%s left out: %v", rule, err)
			continue
		}
		res.Rules = append(res.Rules, rule)
		res.Reference[rule] = s
		if stabConstant(s) {
			res.Warnf("%s gives every method the same score on all data, so no ρ against it is defined", rule)
		}
	}
}

func stabConstant(x []float64) bool {
	for _, v := range x[1:] {
		if v != x[0] {
			return false
		}
	}
	return true
}
