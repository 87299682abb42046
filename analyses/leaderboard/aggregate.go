package leaderboard

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// Aggregation rules (Shevchenko et al. 2024, §3.4 and Table 2; the voting
// rules after Rofin et al. 2023, "Vote'n'Rank").
const (
	RuleMeanRank      = "mean_rank"
	RuleMean          = "mean"
	RuleGeometricMean = "geometric_mean"
	RuleHarmonicMean  = "harmonic_mean"
	RuleDMAUC         = "dm_auc"
	RuleDMLBO         = "dm_lbo"
	RuleCopeland      = "copeland"
	RuleMinimax       = "minimax"
	RuleBorda         = "borda"
	RulePlurality     = "plurality"
	RuleDowdall       = "dowdall"
)

// AllRules lists every rule in the order tables show them.
var AllRules = []string{
	RuleDMAUC, RuleDMLBO, RuleMeanRank, RuleMean, RuleGeometricMean, RuleHarmonicMean,
	RuleCopeland, RuleMinimax, RuleBorda, RulePlurality, RuleDowdall,
}

// RuleLabels are the rules' names on pages and figures (ids stay in CSV
// and JSON).
var RuleLabels = map[string]string{
	RuleDMAUC:         "DM-AUC",
	RuleDMLBO:         "DM-LBO",
	RuleMeanRank:      "Mean rank",
	RuleMean:          "Mean",
	RuleGeometricMean: "Geometric mean",
	RuleHarmonicMean:  "Harmonic mean",
	RuleCopeland:      "Copeland",
	RuleMinimax:       "Minimax",
	RuleBorda:         "Borda",
	RulePlurality:     "Plurality",
	RuleDowdall:       "Dowdall",
}

// RuleLowerIsBetter reports whether a rule's score ranks ascending
// (mean_rank and dm_lbo are ranks themselves). For the three means it is
// the metric's direction that decides; see RuleScoreHigherBetter.
func RuleLowerIsBetter(rule string) bool { return rule == RuleMeanRank || rule == RuleDMLBO }

// RuleScoreHigherBetter says how a rule's scores rank, given the metric's
// direction: the means keep the metric's direction, the rest are oriented
// by the rule.
func RuleScoreHigherBetter(rule string, metricHigherBetter bool) bool {
	switch rule {
	case RuleMean, RuleGeometricMean, RuleHarmonicMean:
		return metricHigherBetter
	}
	return !RuleLowerIsBetter(rule)
}

// IsRule reports whether name is a known rule.
func IsRule(name string) bool {
	for _, r := range AllRules {
		if r == name {
			return true
		}
	}
	return false
}

// AggregateOptions are the keys of an `aggregate` analysis.
type AggregateOptions struct {
	Metric   string   `toml:"metric"`
	Rules    []string `toml:"rules"`    // default: all (AllRules; see aggregateRules past 1e8 comparisons)
	BetaMax  float64  `toml:"beta_max"` // default 3
	Datasets []string `toml:"datasets"` // optional subset
	Methods  []string `toml:"methods"`  // optional subset
	Missing  string   `toml:"missing"`  // "error" (default) or "drop": drop datasets with a missing cell
}

// Defaults fills unset options.
func (o *AggregateOptions) Defaults() {
	if len(o.Rules) == 0 {
		o.Rules = append([]string(nil), AllRules...)
	}
	if o.BetaMax == 0 {
		o.BetaMax = 3
	}
	if o.Missing == "" {
		o.Missing = "error"
	}
}

// Validate checks the options.
func (o *AggregateOptions) Validate() error {
	if o.Metric == "" {
		return analyses.OptionErrorf("metric", "required")
	}
	if err := checkRules("rules", o.Rules); err != nil {
		return err
	}
	if err := analyses.CheckFloat("beta_max", o.BetaMax, 1, analyses.MaxBetaMax); err != nil {
		return err
	}
	if err := analyses.OneOf("missing", o.Missing, "error", "drop"); err != nil {
		return err
	}
	return analyses.FirstError(analyses.CheckDistinct("datasets", o.Datasets), analyses.CheckDistinct("methods", o.Methods))
}

// checkRules checks a list of aggregation rules: known, none twice.
func checkRules(key string, rules []string) error {
	for _, r := range rules {
		if !IsRule(r) {
			return analyses.OptionErrorf(key, "unknown rule %q%s", r, analyses.NameHint(r, AllRules))
		}
	}
	return analyses.CheckDistinct(key, rules)
}

// AggregateInput is the matrix an aggregate analysis works on.
type AggregateInput struct {
	Metric   analyses.Metric
	Datasets []string
	Methods  []string
	Q        analyses.Matrix // q[d][m]; NaN marks a missing cell
}

// AggregateResult is the leaderboard under every requested rule.
type AggregateResult struct {
	Metric          string               `json:"metric"`
	HigherIsBetter  bool                 `json:"higher_is_better"`
	Datasets        []string             `json:"datasets"`
	Methods         []string             `json:"methods"`
	Rules           []string             `json:"rules"`
	Scores          map[string][]float64 `json:"scores"` // rule -> score per method
	Ranks           map[string][]float64 `json:"ranks"`  // rule -> rank per method (1 = best)
	DroppedDatasets []string             `json:"dropped_datasets,omitempty"`
	Profile         *Profile             `json:"profile"`
	// Naming is how the key finding names methods, rules and the metric,
	// and which methods are baselines (set by the caller; not in JSON).
	Naming analyses.Naming `json:"-"`
	analyses.Warnings
}

// Profile is a set of Dolan–Moré performance profiles: Rho[m][i] is the
// share of datasets on which method m is within a factor Beta[i] of the
// best; AUC[m] is the trapezoid area, normalised to sum to 1.
type Profile struct {
	Beta []float64   `json:"beta"`
	Rho  [][]float64 `json:"rho"`
	Area []float64   `json:"area"` // raw trapezoid area
	AUC  []float64   `json:"auc"`  // normalised
}

// Aggregate ranks methods over datasets under each rule of opts.
func Aggregate(in AggregateInput, opts AggregateOptions) (*AggregateResult, error) {
	opts.Defaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	res := &AggregateResult{
		Metric:         in.Metric.Name,
		HigherIsBetter: in.Metric.Better == analyses.HigherIsBetter,
		Methods:        in.Methods,
		Scores:         map[string][]float64{},
		Ranks:          map[string][]float64{},
	}
	q, kept, dropped, err := CompleteRows(in.Metric.Name, in.Datasets, in.Methods, in.Q, opts.Missing == "drop")
	if err != nil {
		return nil, err
	}
	res.Datasets, res.DroppedDatasets = kept, dropped
	if len(dropped) > 0 {
		res.Warnf("%s left out for missing values: %s", analyses.Count(len(dropped), "dataset", "datasets"), strings.Join(dropped, ", "))
	}
	if len(q) == 0 {
		return nil, fmt.Errorf("metric %q: no dataset has a value for every method", in.Metric.Name)
	}
	if len(in.Methods) < 2 {
		return nil, fmt.Errorf("metric %q: need at least 2 methods to rank, have %d", in.Metric.Name, len(in.Methods))
	}
	rules, err := aggregateRules(opts.Rules, len(q), len(in.Methods), &res.Warnings)
	if err != nil {
		return nil, err
	}
	higher := res.HigherIsBetter
	sc := NewScorer(q, higher)
	for _, rule := range rules {
		s, err := sc.Scores(rule, opts.BetaMax)
		if err != nil {
			res.Warnf("%s left out: %v", rule, err)
			continue
		}
		res.Rules = append(res.Rules, rule)
		res.Scores[rule] = s
		res.Ranks[rule] = analyses.RankScores(s, RuleScoreHigherBetter(rule, higher))
	}
	if len(res.Rules) == 0 {
		return nil, fmt.Errorf("metric %q: no rule could be computed: %s", in.Metric.Name, strings.Join(res.List, "; "))
	}
	if p, err := sc.Profile(opts.BetaMax); err == nil {
		res.Profile = p
	}
	return res, nil
}

// aggregateRules resolves the rules to compute. Copeland and Minimax
// compare every pair of methods on every dataset; past
// MaxMajorityComparisons they are an error when a rules list names them
// (at the rules key's line), and left out of the default rules (every
// rule, AllRules: Defaults fills it before the manifest is read, so a
// list of all eleven in that order counts as the default) with a warning
// that says so.
func aggregateRules(asked []string, datasets, methods int, w *analyses.Warnings) ([]string, error) {
	comparisons := float64(datasets) * float64(methods) * float64(methods-1) / 2
	if comparisons <= analyses.MaxMajorityComparisons {
		return asked, nil
	}
	limit := fmt.Sprintf("they compare every pair of methods on every dataset, and %d methods on %d datasets are %.3g comparisons, more than the limit of %.0e", methods, datasets, comparisons, float64(analyses.MaxMajorityComparisons))
	if slices.Equal(asked, AllRules) {
		w.Warnf("copeland and minimax left out of the default rules: %s (name the other rules in rules = [...] to keep this warning away, or compare fewer methods with methods = [...])", limit)
		return slices.DeleteFunc(slices.Clone(AllRules), isMajorityRule), nil
	}
	if i := slices.IndexFunc(asked, isMajorityRule); i >= 0 {
		return nil, analyses.OptionErrorf("rules", "%s: %s; leave copeland and minimax out of rules, or compare fewer methods with methods = [...]", asked[i], limit)
	}
	return asked, nil
}

// isMajorityRule reports whether a rule needs the pairwise majority
// relation (Copeland, Minimax).
func isMajorityRule(rule string) bool { return rule == RuleCopeland || rule == RuleMinimax }

// CompleteRows keeps the datasets (rows of q) with a value for every
// method. A missing cell (NaN) is an error naming it, or, with drop, its
// dataset is left out and listed in dropped. The error says how many
// datasets drop would leave out, and when that is most of them it points
// at the methods that lack the values instead of suggesting drop.
func CompleteRows(metric string, datasets, methods []string, q analyses.Matrix, drop bool) (complete analyses.Matrix, kept, dropped []string, err error) {
	firstD, firstM := -1, -1
	lacks := make([]int, len(methods)) // datasets each method has no value on
	for d, row := range q {
		missing := -1
		for m, v := range row {
			if math.IsNaN(v) {
				lacks[m]++
				if missing < 0 {
					missing = m
				}
			}
		}
		if missing >= 0 {
			if firstD < 0 {
				firstD, firstM = d, missing
			}
			dropped = append(dropped, datasets[d])
			continue
		}
		complete = append(complete, row)
		kept = append(kept, datasets[d])
	}
	if firstD >= 0 && !drop {
		return nil, nil, nil, fmt.Errorf("metric %q: no value for dataset %q, method %q%s",
			metric, datasets[firstD], methods[firstM], missingHint(len(dropped), len(q), methods, lacks))
	}
	return complete, kept, dropped, nil
}

// missingHint says what each way out of missing values would cost: drop
// leaves out the incomplete datasets (suggested only when it keeps at
// least half of them), leaving out methods keeps every dataset.
func missingHint(incomplete, total int, methods []string, lacks []int) string {
	var short, keep []string
	for m, n := range lacks {
		if n > 0 {
			short = append(short, fmt.Sprintf("%s lacks %d", methods[m], n))
		} else {
			keep = append(keep, fmt.Sprintf("%q", methods[m]))
		}
	}
	s := fmt.Sprintf("; %d of %d datasets lack a value for some method (%s)", incomplete, total, strings.Join(short, ", "))
	if kept := total - incomplete; 2*kept >= total {
		s += fmt.Sprintf(": missing = \"drop\" would rank on the other %d datasets", kept)
		if len(keep) >= 2 {
			s += fmt.Sprintf(", methods = [%s] on all %d", strings.Join(keep, ", "), total)
		}
		return s
	}
	if len(keep) >= 2 {
		return s + fmt.Sprintf(": leave those methods out with methods = [%s] (missing = \"drop\" would keep only %d of %d datasets)", strings.Join(keep, ", "), total-incomplete, total)
	}
	return s + fmt.Sprintf(" (missing = \"drop\" would keep only %d of %d datasets)", total-incomplete, total)
}

// RuleScores computes one rule's score per method on a complete matrix.
// Scores rank as RuleScoreHigherBetter says. To score several rules on one
// matrix, ScoreAll (or a Scorer) shares the work they have in common.
func RuleScores(rule string, q analyses.Matrix, higherBetter bool, betaMax float64) ([]float64, error) {
	return NewScorer(q, higherBetter).Scores(rule, betaMax)
}

// Scorer computes the rules on one complete matrix, sharing what they have
// in common; each part is computed once, when a rule first needs it:
// per-dataset ranks (mean_rank, borda, plurality, dowdall), pairwise wins
// (copeland, minimax), each dataset's best value and every cell's place on
// the β grid (dm_auc, dm_lbo, Profile). A Scorer is not safe for
// concurrent use.
type Scorer struct {
	q      analyses.Matrix
	higher bool
	ranks  [][]float64          // r[d][m], 1 = best, average ties (RankBest of each row)
	wins   [][]int              // w[a][b]: datasets where a is strictly better than b
	dmBest *dmBest              // best value of each dataset, or the error of a negative value
	dm     *dmIndex             // grid places of the cells, for one β̂
	major  map[string][]float64 // Copeland and Minimax by majorityByRows
}

// NewScorer returns a Scorer of q; q must not change while it is used.
func NewScorer(q analyses.Matrix, higherBetter bool) *Scorer {
	return &Scorer{q: q, higher: higherBetter}
}

// ScoreAll computes the scores of each rule (nil and an error where a rule
// cannot be computed).
func (s *Scorer) ScoreAll(rules []string, betaMax float64) ([][]float64, []error) {
	out := make([][]float64, len(rules))
	errs := make([]error, len(rules))
	for k, rule := range rules {
		out[k], errs[k] = s.Scores(rule, betaMax)
	}
	return out, errs
}

// Scores computes one rule's score per method (see RuleScores).
func (s *Scorer) Scores(rule string, betaMax float64) ([]float64, error) {
	q := s.q
	switch rule {
	case RuleMeanRank:
		return columnMean(s.Ranks(), func(v float64) float64 { return v }, func(s float64, n int) float64 { return s / float64(n) }), nil
	case RuleMean:
		return columnMean(q, func(v float64) float64 { return v }, func(s float64, n int) float64 { return s / float64(n) }), nil
	case RuleGeometricMean:
		return geometricMean(q)
	case RuleHarmonicMean:
		return harmonicMean(q)
	case RuleDMAUC:
		x, err := s.dmIndex(betaMax)
		if err != nil {
			return nil, err
		}
		return dmNormalise(x.areas(len(q[0]))), nil
	case RuleDMLBO:
		x, err := s.dmIndex(betaMax)
		if err != nil {
			return nil, err
		}
		return dmLeaveBestOut(q, s.higher, x), nil
	case RuleCopeland, RuleMinimax:
		if s.wins == nil && len(q[0]) > majorityStoreMax {
			if s.major == nil {
				c, m := majorityByRows(q, s.higher)
				s.major = map[string][]float64{RuleCopeland: c, RuleMinimax: m}
			}
			return s.major[rule], nil
		}
		return majority(rule, s.Wins()), nil
	case RuleBorda, RulePlurality, RuleDowdall:
		return positional(rule, s.Ranks()), nil
	}
	panic("leaderboard: unknown rule " + rule)
}

// Profile computes the Dolan–Moré performance profiles of every method.
// Ratios are r = best/q for higher-is-better metrics and q/best otherwise;
// r = ∞ when the method's value is 0 (or the best is 0 for lower-is-better).
func (s *Scorer) Profile(betaMax float64) (*Profile, error) {
	x, err := s.dmIndex(betaMax)
	if err != nil {
		return nil, err
	}
	nd, nm, nb := len(s.q), len(s.q[0]), len(x.grid.beta)
	counts := x.counts(nm)
	p := &Profile{Beta: x.grid.beta, Rho: make([][]float64, nm), Area: make([]float64, nm)}
	for m := 0; m < nm; m++ {
		rho := make([]float64, nb)
		cum := 0
		for i, c := range counts[m*nb : (m+1)*nb] {
			cum += c
			rho[i] = float64(cum) / float64(nd)
		}
		p.Rho[m] = rho
		p.Area[m] = x.grid.area(counts[m*nb:(m+1)*nb], nd)
	}
	p.AUC = dmNormalise(p.Area)
	return p, nil
}

// Ranks returns the per-dataset ranks r[d][m] (RankBest of each row: 1 =
// best, ties get the average rank, NaN gets NaN). Do not modify them.
func (s *Scorer) Ranks() [][]float64 {
	if s.ranks == nil {
		s.ranks = perDatasetRanks(s.q, s.higher)
	}
	return s.ranks
}

// Wins returns w[a][b], the number of datasets where method a is strictly
// better than method b. Do not modify them.
func (s *Scorer) Wins() [][]int {
	if s.wins == nil {
		s.wins = pairwiseWins(s.q, s.higher)
	}
	return s.wins
}

// perDatasetRanks returns r[d][m] = RankBest(q[d], higherBetter)[m], with
// a typed sort and one backing array.
func perDatasetRanks(q analyses.Matrix, higherBetter bool) [][]float64 {
	nm := len(q[0])
	flat := make([]float64, len(q)*nm)
	out := make([][]float64, len(q))
	idx := make([]int, 0, nm)
	for d, row := range q {
		r := flat[d*nm : (d+1)*nm]
		idx = idx[:0]
		for m, v := range row {
			if math.IsNaN(v) {
				r[m] = math.NaN() // as RankData
			} else {
				idx = append(idx, m)
			}
		}
		if higherBetter {
			slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(row[b], row[a]) })
		} else {
			slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(row[a], row[b]) })
		}
		for i := 0; i < len(idx); {
			j := i + 1
			for j < len(idx) && analyses.Tied(row[idx[j]], row[idx[i]]) {
				j++
			}
			avg := float64(i+j+1) / 2 // ranks i+1 … j, as RankData
			for k := i; k < j; k++ {
				r[idx[k]] = avg
			}
			i = j
		}
		out[d] = r
	}
	return out
}

func columnMean(q [][]float64, f func(float64) float64, fin func(float64, int) float64) []float64 {
	out := make([]float64, len(q[0]))
	for m := range out {
		var s float64
		for d := range q {
			s += f(q[d][m])
		}
		out[m] = fin(s, len(q))
	}
	return out
}

// geometricMean is scipy.stats.gmean per column: exp(mean(log q)); a zero
// gives 0, a negative value is an error.
func geometricMean(q analyses.Matrix) ([]float64, error) {
	if err := checkNonNegative(q, "geometric mean"); err != nil {
		return nil, err
	}
	return columnMean(q, logExact, func(s float64, n int) float64 { return math.Exp(s / float64(n)) }), nil
}

// logExact is math.Log, also exact for subnormal x: Go's math.Log on
// amd64 returns about −709.09 for every subnormal (whose true logarithm
// goes down to −744.44), so the geometric mean of {5e-324, 1} came out
// larger than 1. A subnormal is split into fraction and exponent first.
func logExact(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		frac, exp := math.Frexp(x)
		return math.Log(frac) + float64(exp)*math.Ln2
	}
	return math.Log(x)
}

// harmonicMean is scipy.stats.hmean per column: n / Σ 1/q; a zero gives 0.
// When the column's smallest value m is subnormal, 1/m overflows to +Inf
// (which made the mean 0): it is then computed as n·m / Σ m/q.
func harmonicMean(q analyses.Matrix) ([]float64, error) {
	if err := checkNonNegative(q, "harmonic mean"); err != nil {
		return nil, err
	}
	out := make([]float64, len(q[0]))
	for m := range out {
		var s float64
		zero := false
		small := math.Inf(1)
		for d := range q {
			if q[d][m] == 0 {
				zero = true
				break
			}
			s += 1 / q[d][m]
			small = math.Min(small, q[d][m])
		}
		switch {
		case zero:
		case small < 0x1p-1022:
			var r float64
			for d := range q {
				r += small / q[d][m]
			}
			out[m] = float64(len(q)) * small / r
		default:
			out[m] = float64(len(q)) / s
		}
	}
	return out, nil
}

func checkNonNegative(q analyses.Matrix, what string) error {
	for d := range q {
		for m, v := range q[d] {
			if v < 0 {
				return fmt.Errorf("the %s needs values ≥ 0; row %d, column %d is %g", what, d+1, m+1, v)
			}
		}
	}
	return nil
}

// BetaGrid returns 1, 1.1, …, betaMax (betaMax included when it falls on
// the grid, and appended otherwise so the area spans the whole range).
func BetaGrid(betaMax float64) []float64 {
	n := int(math.Floor((betaMax-1)*10 + 1e-9))
	g := make([]float64, 0, n+2)
	for i := 0; i <= n; i++ {
		g = append(g, 1+float64(i)/10)
	}
	if last := g[len(g)-1]; betaMax-last > 1e-9 {
		g = append(g, betaMax)
	}
	return g
}

// rowBest is the best value of row among the columns alive says (all when
// nil): the first of them, replaced by any strictly better one.
func rowBest(row []float64, higherBetter bool, alive []bool) float64 {
	first := true
	var best float64
	for m, v := range row {
		if (alive == nil || alive[m]) && (first || analyses.Better(v, best, higherBetter)) {
			best, first = v, false
		}
	}
	return best
}

// dmBest is each dataset's best value, or the error of the first negative
// value (performance ratios need values ≥ 0).
type dmBest struct {
	best []float64
	nan  []bool // rows with a NaN value; nil when there is none
	err  error
}

func (s *Scorer) rowBests() *dmBest {
	if s.dmBest != nil {
		return s.dmBest
	}
	b := &dmBest{best: make([]float64, len(s.q))}
	s.dmBest = b
	for d, row := range s.q {
		for _, v := range row {
			if v < 0 {
				b.best, b.nan, b.err = nil, nil, fmt.Errorf("performance ratios need values ≥ 0; dataset row %d has %g", d+1, v)
				return b
			}
			if v != v {
				if b.nan == nil {
					b.nan = make([]bool, len(s.q))
				}
				b.nan[d] = true
			}
		}
		b.best[d] = rowBest(row, s.higher, nil)
	}
	return b
}

// dmGrid is the β grid with the thresholds Profile compares the ratios
// against: β·(1+1e-12), a small tolerance that keeps r = 1.1 computed as
// 1.1000000000000002 inside β = 1.1.
type dmGrid struct {
	beta, thr []float64
}

func newDMGrid(betaMax float64) dmGrid {
	g := dmGrid{beta: BetaGrid(betaMax)}
	g.thr = make([]float64, len(g.beta))
	for i, b := range g.beta {
		g.thr[i] = b * (1 + 1e-12)
	}
	return g
}

// index returns the first grid index whose threshold admits the ratio of
// v to the best value best, len(beta) when none does. The ratio is 1 when
// v = best (also 0/0 when every method scores 0), best/v when higher is
// better (+Inf when v = 0) and v/best otherwise (+Inf when best = 0 < v).
func (g dmGrid) index(v, best float64, higherBetter bool) int {
	var r float64
	switch {
	case v == best:
		r = 1
	case higherBetter:
		r = best / v
	default:
		r = v / best
	}
	nb := len(g.thr)
	if !(r <= g.thr[nb-1]) {
		return nb
	}
	// The grid is 1, 1.1, …: start from the arithmetic guess and step to
	// the first threshold that admits r (thresholds increase).
	i := 0
	if r > 1 {
		i = min(int((r-1)*10), nb-1)
	}
	for i > 0 && r <= g.thr[i-1] {
		i--
	}
	for r > g.thr[i] {
		i++
	}
	return i
}

// area is the trapezoid area under a profile, from the number of datasets
// first admitted at each grid point (ρ_i = admitted up to i / nd).
func (g dmGrid) area(counts []int, nd int) float64 {
	cum := 0
	var a, prev float64
	for i := range g.beta {
		cum += counts[i]
		rho := float64(cum) / float64(nd)
		if i > 0 {
			a += (g.beta[i] - g.beta[i-1]) * (rho + prev) / 2
		}
		prev = rho
	}
	return a
}

// dmNormalise scales areas to sum to 1 (equal shares when all are 0).
func dmNormalise(area []float64) []float64 {
	var total float64
	for _, a := range area {
		total += a
	}
	out := make([]float64, len(area))
	for m := range out {
		if total > 0 {
			out[m] = area[m] / total
		} else {
			out[m] = 1 / float64(len(area))
		}
	}
	return out
}

// dmIndex places every cell of a matrix on the β grid of one β̂.
type dmIndex struct {
	betaMax float64
	grid    dmGrid
	best    []float64 // best value of each dataset
	nan     []bool    // datasets with a NaN value; nil when there is none
	idx     []int     // d·nm + m: first grid index admitting the cell's ratio; len(grid.beta) when none
}

func (s *Scorer) dmIndex(betaMax float64) (*dmIndex, error) {
	if s.dm != nil && s.dm.betaMax == betaMax {
		return s.dm, nil
	}
	b := s.rowBests()
	if b.err != nil {
		return nil, b.err
	}
	nm := len(s.q[0])
	x := &dmIndex{betaMax: betaMax, grid: newDMGrid(betaMax), best: b.best, nan: b.nan, idx: make([]int, len(s.q)*nm)}
	for d, row := range s.q {
		for m, v := range row {
			x.idx[d*nm+m] = x.grid.index(v, b.best[d], s.higher)
		}
	}
	s.dm = x
	return x, nil
}

// counts returns, per method m, counts[m·nb + i]: the datasets first
// admitted at grid index i.
func (x *dmIndex) counts(nm int) []int {
	nb := len(x.grid.beta)
	c := make([]int, nm*nb)
	for k := 0; k < len(x.idx); k += nm {
		for m, i := range x.idx[k : k+nm] {
			if i < nb {
				c[m*nb+i]++
			}
		}
	}
	return c
}

// areas returns each method's raw profile area.
func (x *dmIndex) areas(nm int) []float64 {
	nb, nd := len(x.grid.beta), len(x.idx)/nm
	counts := x.counts(nm)
	a := make([]float64, nm)
	for m := range a {
		a[m] = x.grid.area(counts[m*nb:(m+1)*nb], nd)
	}
	return a
}

// dmLeaveBestOut repeats DM-AUC over the remaining methods and gives the
// best the next rank; tied best methods share the average of their ranks.
//
// It is computed incrementally from x (the grid places on all of q): a
// method's ratio on a dataset depends only on its value and the best value
// among the remaining methods, so after removing the winners only the
// datasets whose best value changed are recounted. The counts are integers
// and the areas are summed from them as on the reduced matrix, so the
// ranks are those of recomputing DM-AUC on it.
func dmLeaveBestOut(q analyses.Matrix, higherBetter bool, x *dmIndex) []float64 {
	g := x.grid
	nd, nm, nb := len(q), len(q[0]), len(g.beta)
	alive := make([]bool, nm)
	for m := range alive {
		alive[m] = true
	}
	best := append([]float64(nil), x.best...)
	idx := append([]int(nil), x.idx...)
	counts := x.counts(nm)
	rank := make([]float64, nm)
	area := make([]float64, nm)
	left, next := nm, 1
	for left > 0 {
		top := math.Inf(-1)
		for m := 0; m < nm; m++ {
			if alive[m] {
				area[m] = g.area(counts[m*nb:(m+1)*nb], nd)
				top = math.Max(top, area[m])
			}
		}
		var winners []int
		for m := 0; m < nm; m++ {
			if alive[m] && analyses.Tied(area[m], top) { // one tolerance for every ranking
				winners = append(winners, m)
			}
		}
		avg := float64(next) + float64(len(winners)-1)/2
		for _, m := range winners {
			rank[m] = avg
			alive[m] = false
		}
		next += len(winners)
		left -= len(winners)
		if left == 0 {
			break
		}
		for d, row := range q {
			// Did a winner hold the best value? (With a NaN in the row
			// the best can change whoever leaves.)
			held := x.nan != nil && x.nan[d]
			for _, w := range winners {
				if row[w] == best[d] {
					held = true
				}
			}
			if !held {
				continue
			}
			nb2 := rowBest(row, higherBetter, alive)
			if math.Float64bits(nb2) == math.Float64bits(best[d]) {
				continue
			}
			best[d] = nb2
			for m := 0; m < nm; m++ {
				if !alive[m] {
					continue
				}
				if old := idx[d*nm+m]; old < nb {
					counts[m*nb+old]--
				}
				i := g.index(row[m], nb2, higherBetter)
				idx[d*nm+m] = i
				if i < nb {
					counts[m*nb+i]++
				}
			}
		}
	}
	return rank
}

// pairwiseWins returns w[a][b] = number of datasets where a is strictly
// better than b, comparing each pair once per dataset.
func pairwiseWins(q analyses.Matrix, higherBetter bool) [][]int {
	nm := len(q[0])
	flat := make([]int, nm*nm)
	w := make([][]int, nm)
	for a := range w {
		w[a] = flat[a*nm : (a+1)*nm]
	}
	for _, row := range q {
		for a := 0; a < nm; a++ {
			x, wa := row[a], w[a]
			for b := a + 1; b < nm; b++ {
				if y := row[b]; analyses.Better(x, y, higherBetter) {
					wa[b]++
				} else if analyses.Better(y, x, higherBetter) {
					w[b][a]++
				}
			}
		}
	}
	return w
}

// majorityStoreMax is the most methods whose pairwise wins are kept as a
// matrix (8·nm² bytes: 32 MB at 2 048); above it Copeland and Minimax are
// computed one method at a time (10 000 methods would need 800 MB).
const majorityStoreMax = 2048

// majorityByRows computes Copeland and Minimax as majority does, from
// the same counts, but one method a at a time: its wins over every b and
// b's over it, in O(nm) memory instead of the nm × nm matrix. The work
// is the same datasets × methods² comparisons (every pair is compared:
// the majority relation has no shortcut), twice over.
func majorityByRows(q analyses.Matrix, higher bool) (copeland, minimax []float64) {
	nm := len(q[0])
	copeland, minimax = make([]float64, nm), make([]float64, nm)
	ab, ba := make([]int, nm), make([]int, nm)
	for a := 0; a < nm; a++ {
		clear(ab)
		clear(ba)
		for _, row := range q {
			x := row[a]
			for b, y := range row {
				if analyses.Better(x, y, higher) {
					ab[b]++
				} else if analyses.Better(y, x, higher) {
					ba[b]++
				}
			}
		}
		var c, m float64
		for b := 0; b < nm; b++ {
			if a == b {
				continue
			}
			if ab[b] > ba[b] {
				c++
			} else if ba[b] > ab[b] {
				c--
			}
			if ba[b] > ab[b] && -float64(ba[b]) < m {
				m = -float64(ba[b])
			}
		}
		copeland[a], minimax[a] = c, m
	}
	return copeland, minimax
}

// majority computes Copeland (wins − losses of the majority relation) or
// Minimax (−max over the methods that beat A of s(B, A), 0 when none)
// from the pairwise wins.
func majority(rule string, w [][]int) []float64 {
	nm := len(w)
	out := make([]float64, nm)
	for a := 0; a < nm; a++ {
		var score float64
		for b := 0; b < nm; b++ {
			if a == b {
				continue
			}
			switch rule {
			case RuleCopeland:
				if w[a][b] > w[b][a] {
					score++
				} else if w[b][a] > w[a][b] {
					score--
				}
			case RuleMinimax:
				if w[b][a] > w[a][b] && -float64(w[b][a]) < score {
					score = -float64(w[b][a])
				}
			}
		}
		out[a] = score
	}
	return out
}

// positional computes Borda Σ(M − rank), Plurality (datasets won, a tie
// for first shared equally) and Dowdall Σ 1/rank from per-dataset ranks.
func positional(rule string, r [][]float64) []float64 {
	nm := len(r[0])
	out := make([]float64, nm)
	for _, row := range r {
		var first float64
		winners := 0
		if rule == RulePlurality {
			first = minOf(row)
			for _, v := range row {
				if v == first {
					winners++
				}
			}
		}
		for m, v := range row {
			switch rule {
			case RuleBorda:
				out[m] += float64(nm) - v
			case RuleDowdall:
				out[m] += 1 / v
			case RulePlurality:
				if v == first {
					out[m] += 1 / float64(winners)
				}
			}
		}
	}
	return out
}

// minOf is the smallest of ranks x, NaN when one is NaN (as math.Min;
// ranks are never ±0, where math.Min would differ).
func minOf(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		if v < m || v != v {
			m = v
		}
	}
	return m
}

// Tables implements Result: the main leaderboard with one score and one
// rank column per rule, and the performance profiles.
func (r *AggregateResult) Tables() []analyses.Table {
	cols := []string{"method"}
	for _, rule := range r.Rules {
		cols = append(cols, rule, RankColumn(rule))
	}
	main := analyses.Table{Title: "Leaderboard under each aggregation rule (" + r.Naming.Metric(r.Metric) + ")", Columns: cols, Better: map[string]string{}}
	for _, rule := range r.Rules {
		main.Compact = append(main.Compact, analyses.CompactColumn{Label: ruleName(r.Naming, rule), Score: rule, Rank: RankColumn(rule)})
		main.Better[rule] = "lower"
		if RuleScoreHigherBetter(rule, r.HigherIsBetter) {
			main.Better[rule] = "higher"
		}
		main.Better[RankColumn(rule)] = "lower"
	}
	order := r.leaderOrder()
	for _, m := range order {
		row := []any{r.Methods[m]}
		for _, rule := range r.Rules {
			row = append(row, r.Scores[rule][m], r.Ranks[rule][m])
		}
		main.Rows = append(main.Rows, row)
	}
	tables := []analyses.Table{main}
	if r.Profile != nil {
		prof := analyses.Table{Name: "profiles", Title: "Dolan–Moré performance profiles", Columns: []string{"method", "beta", "rho"}}
		for _, m := range order {
			for i, b := range r.Profile.Beta {
				prof.Rows = append(prof.Rows, []any{r.Methods[m], b, r.Profile.Rho[m][i]})
			}
		}
		tables = append(tables, prof)
	}
	return tables
}

// RankColumn names a rule's rank column in the main table: "<rule>_rank",
// except for the arithmetic mean, whose "mean_rank" would collide with the
// score column of the mean_rank rule; it is "mean_rule_rank".
func RankColumn(rule string) string {
	if rule == RuleMean {
		return "mean_rule_rank"
	}
	return rule + "_rank"
}

// leaderOrder sorts methods by the first rule's rank, then by name.
func (r *AggregateResult) leaderOrder() []int {
	order := make([]int, len(r.Methods))
	for i := range order {
		order[i] = i
	}
	if len(r.Rules) == 0 {
		return order
	}
	rk := r.Ranks[r.Rules[0]]
	analyses.SortStable(order, func(a, b int) bool {
		if rk[a] != rk[b] {
			return rk[a] < rk[b]
		}
		return r.Methods[a] < r.Methods[b]
	})
	return order
}

// Highlight names, per rule, the method ranked first with its score, or
// the methods that tie for first (ranks share within analyses.Tied). A
// declared baseline is never the headline: the leaders are taken among
// the other methods, and a baseline ranked above them is said so.
func (r *AggregateResult) Highlight() string {
	n := r.Naming
	type group struct {
		leaders []int
		rules   []string
	}
	var groups []*group
	byLeaders := map[string]*group{}
	ahead := map[string][]string{} // baseline label → rules it leads
	var aheadOrder []string
	for _, rule := range r.Rules {
		leaders, above := r.leadersOf(rule)
		if len(leaders) == 0 {
			continue
		}
		key := fmt.Sprint(leaders)
		g := byLeaders[key]
		if g == nil {
			g = &group{leaders: leaders}
			byLeaders[key] = g
			groups = append(groups, g)
		}
		score := r.Scores[rule][leaders[0]]
		g.rules = append(g.rules, fmt.Sprintf("%s (%s)", ruleName(n, rule), formatScore(score)))
		for _, b := range above {
			l := n.Method(r.Methods[b])
			if ahead[l] == nil {
				aheadOrder = append(aheadOrder, l)
			}
			ahead[l] = append(ahead[l], ruleName(n, rule))
		}
	}
	if len(groups) == 0 {
		return ""
	}
	parts := make([]string, 0, len(groups))
	for _, g := range groups {
		ids := make([]string, len(g.leaders))
		for i, m := range g.leaders {
			ids[i] = r.Methods[m]
		}
		verb := " ranks first under "
		if len(ids) > 1 {
			verb = " tie for first under "
		}
		parts = append(parts, n.MethodList(ids)+verb+analyses.JoinAnd(g.rules))
	}
	s := fmt.Sprintf("On %s over %s, %s", n.Metric(r.Metric), analyses.Count(len(r.Datasets), "dataset", "datasets"), strings.Join(parts, "; "))
	if len(n.Baselines) > 0 {
		var bs []string
		for _, b := range aheadOrder {
			bs = append(bs, fmt.Sprintf("the baseline %s ranks above them under %s", b, analyses.JoinAnd(ahead[b])))
		}
		if len(bs) > 0 {
			s += " (among the methods that are not baselines; " + strings.Join(bs, "; ") + ")"
		}
	}
	return s + "."
}

// leadersOf returns the methods that share the best rank under rule among
// the methods that are not baselines (all methods when every one is),
// and the baselines ranked strictly above them.
func (r *AggregateResult) leadersOf(rule string) (leaders, above []int) {
	ranks := r.Ranks[rule]
	var cand []int
	for m := range r.Methods {
		if !r.Naming.IsBaseline(r.Methods[m]) && !math.IsNaN(ranks[m]) {
			cand = append(cand, m)
		}
	}
	if len(cand) == 0 {
		for m := range r.Methods {
			if !math.IsNaN(ranks[m]) {
				cand = append(cand, m)
			}
		}
	}
	best := math.Inf(1)
	for _, m := range cand {
		best = math.Min(best, ranks[m])
	}
	for _, m := range cand {
		if ranks[m] == best {
			leaders = append(leaders, m)
		}
	}
	for m := range r.Methods {
		if r.Naming.IsBaseline(r.Methods[m]) && ranks[m] < best {
			above = append(above, m)
		}
	}
	return leaders, above
}

// ruleName is a rule's label in a finding: the caller's Naming, else the
// built-in RuleLabels.
func ruleName(n analyses.Naming, rule string) string {
	if l, ok := n.Rules[rule]; ok && l != "" {
		return l
	}
	if l, ok := RuleLabels[rule]; ok {
		return l
	}
	return rule
}

// formatScore prints a score in a finding: four significant digits.
func formatScore(v float64) string { return analyses.FormatSig(v, 4) }
