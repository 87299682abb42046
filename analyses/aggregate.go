package analyses

import (
	"fmt"
	"math"
	"strings"
)

// Aggregation rules of SPEC §5.1 (seed 001 §3.4, Table 2; the voting
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

// Matrix is q[d][m]: one value per dataset (row) and method (column),
// complete (no NaN).
type Matrix [][]float64

// AggregateOptions are the keys of an `aggregate` analysis.
type AggregateOptions struct {
	Metric   string   `toml:"metric"`
	Rules    []string `toml:"rules"`    // default: all
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
		return fmt.Errorf("metric: required")
	}
	for _, r := range o.Rules {
		if !IsRule(r) {
			return fmt.Errorf("rules: unknown rule %q%s", r, DidYouMean(r, AllRules))
		}
	}
	if o.BetaMax < 1 {
		return fmt.Errorf("beta_max: must be at least 1, got %g", o.BetaMax)
	}
	if o.Missing != "error" && o.Missing != "drop" {
		return fmt.Errorf("missing: unknown value %q%s", o.Missing, DidYouMean(o.Missing, []string{"error", "drop"}))
	}
	return nil
}

// AggregateInput is the matrix an aggregate analysis works on.
type AggregateInput struct {
	Metric   Metric
	Datasets []string
	Methods  []string
	Q        Matrix // q[d][m]; NaN marks a missing cell
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
	Warnings
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
		HigherIsBetter: in.Metric.Better == HigherIsBetter,
		Methods:        in.Methods,
		Scores:         map[string][]float64{},
		Ranks:          map[string][]float64{},
	}
	// Missing cells: an error naming the cell, or drop the dataset.
	var q Matrix
	for d, row := range in.Q {
		var missing []string
		for m, v := range row {
			if math.IsNaN(v) {
				missing = append(missing, in.Methods[m])
			}
		}
		if len(missing) > 0 {
			if opts.Missing != "drop" {
				return nil, fmt.Errorf("metric %q: no value for dataset %q, method %q (set missing = \"drop\" to leave such datasets out)",
					in.Metric.Name, in.Datasets[d], missing[0])
			}
			res.DroppedDatasets = append(res.DroppedDatasets, in.Datasets[d])
			continue
		}
		q = append(q, row)
		res.Datasets = append(res.Datasets, in.Datasets[d])
	}
	if len(res.DroppedDatasets) > 0 {
		res.Warnf("%d dataset(s) left out for missing values: %s", len(res.DroppedDatasets), strings.Join(res.DroppedDatasets, ", "))
	}
	if len(q) == 0 {
		return nil, fmt.Errorf("metric %q: no dataset has a value for every method", in.Metric.Name)
	}
	if len(in.Methods) < 2 {
		return nil, fmt.Errorf("metric %q: need at least 2 methods to rank, have %d", in.Metric.Name, len(in.Methods))
	}
	higher := res.HigherIsBetter
	for _, rule := range opts.Rules {
		s, err := RuleScores(rule, q, higher, opts.BetaMax)
		if err != nil {
			res.Warnf("%s left out: %v", rule, err)
			continue
		}
		res.Rules = append(res.Rules, rule)
		res.Scores[rule] = s
		res.Ranks[rule] = RankBest(s, RuleScoreHigherBetter(rule, higher))
	}
	if len(res.Rules) == 0 {
		return nil, fmt.Errorf("metric %q: no rule could be computed: %s", in.Metric.Name, strings.Join(res.List, "; "))
	}
	if p, err := DolanMore(q, higher, opts.BetaMax); err == nil {
		res.Profile = p
	}
	return res, nil
}

// RuleScores computes one rule's score per method on a complete matrix.
// Scores rank as RuleScoreHigherBetter says.
func RuleScores(rule string, q Matrix, higherBetter bool, betaMax float64) ([]float64, error) {
	switch rule {
	case RuleMeanRank:
		return meanRank(q, higherBetter), nil
	case RuleMean:
		return columnMean(q, func(v float64) float64 { return v }, func(s float64, n int) float64 { return s / float64(n) }), nil
	case RuleGeometricMean:
		return geometricMean(q)
	case RuleHarmonicMean:
		return harmonicMean(q)
	case RuleDMAUC:
		p, err := DolanMore(q, higherBetter, betaMax)
		if err != nil {
			return nil, err
		}
		return p.AUC, nil
	case RuleDMLBO:
		return dmLeaveBestOut(q, higherBetter, betaMax)
	case RuleCopeland, RuleMinimax:
		return majority(rule, q, higherBetter), nil
	case RuleBorda, RulePlurality, RuleDowdall:
		return positional(rule, q, higherBetter), nil
	}
	panic("analyses: unknown rule " + rule)
}

// perDatasetRanks returns r[d][m], 1 = best, average ties.
func perDatasetRanks(q Matrix, higherBetter bool) [][]float64 {
	r := make([][]float64, len(q))
	for d, row := range q {
		r[d] = RankBest(row, higherBetter)
	}
	return r
}

func meanRank(q Matrix, higherBetter bool) []float64 {
	r := perDatasetRanks(q, higherBetter)
	return columnMean(r, func(v float64) float64 { return v }, func(s float64, n int) float64 { return s / float64(n) })
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
func geometricMean(q Matrix) ([]float64, error) {
	if err := checkNonNegative(q, "geometric mean"); err != nil {
		return nil, err
	}
	return columnMean(q, math.Log, func(s float64, n int) float64 { return math.Exp(s / float64(n)) }), nil
}

// harmonicMean is scipy.stats.hmean per column: n / Σ 1/q; a zero gives 0.
func harmonicMean(q Matrix) ([]float64, error) {
	if err := checkNonNegative(q, "harmonic mean"); err != nil {
		return nil, err
	}
	out := make([]float64, len(q[0]))
	for m := range out {
		var s float64
		zero := false
		for d := range q {
			if q[d][m] == 0 {
				zero = true
				break
			}
			s += 1 / q[d][m]
		}
		if !zero {
			out[m] = float64(len(q)) / s
		}
	}
	return out, nil
}

func checkNonNegative(q Matrix, what string) error {
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

// DolanMore computes the performance profiles of every method. Ratios are
// r = best/q for higher-is-better metrics and q/best otherwise; r = ∞ when
// the method's value is 0 (or the best is 0 for lower-is-better).
func DolanMore(q Matrix, higherBetter bool, betaMax float64) (*Profile, error) {
	nd, nm := len(q), len(q[0])
	ratio := make([][]float64, nm)
	for m := range ratio {
		ratio[m] = make([]float64, nd)
	}
	for d, row := range q {
		best := row[0]
		for _, v := range row {
			if v < 0 {
				return nil, fmt.Errorf("performance ratios need values ≥ 0; dataset row %d has %g", d+1, v)
			}
			if (higherBetter && v > best) || (!higherBetter && v < best) {
				best = v
			}
		}
		for m, v := range row {
			var r float64
			switch {
			case v == best:
				r = 1 // also covers 0/0 when every method scores 0
			case higherBetter:
				r = best / v // +Inf when v = 0
			default:
				r = v / best // +Inf when best = 0 < v
			}
			ratio[m][d] = r
		}
	}
	beta := BetaGrid(betaMax)
	p := &Profile{Beta: beta, Rho: make([][]float64, nm), Area: make([]float64, nm), AUC: make([]float64, nm)}
	var total float64
	for m := 0; m < nm; m++ {
		rho := make([]float64, len(beta))
		for i, b := range beta {
			c := 0
			for _, r := range ratio[m] {
				// a small tolerance keeps r = 1.1 computed as 1.1000000000000002 inside β = 1.1
				if r <= b*(1+1e-12) {
					c++
				}
			}
			rho[i] = float64(c) / float64(nd)
		}
		var area float64
		for i := 1; i < len(beta); i++ {
			area += (beta[i] - beta[i-1]) * (rho[i] + rho[i-1]) / 2
		}
		p.Rho[m] = rho
		p.Area[m] = area
		total += area
	}
	for m := range p.AUC {
		if total > 0 {
			p.AUC[m] = p.Area[m] / total
		} else {
			p.AUC[m] = 1 / float64(nm)
		}
	}
	return p, nil
}

// dmLeaveBestOut repeats DM-AUC over the remaining methods and gives the
// best the next rank; tied best methods share the average of their ranks.
func dmLeaveBestOut(q Matrix, higherBetter bool, betaMax float64) ([]float64, error) {
	nm := len(q[0])
	rank := make([]float64, nm)
	left := make([]int, nm)
	for i := range left {
		left[i] = i
	}
	next := 1
	for len(left) > 0 {
		sub := make(Matrix, len(q))
		for d := range q {
			sub[d] = make([]float64, len(left))
			for j, m := range left {
				sub[d][j] = q[d][m]
			}
		}
		p, err := DolanMore(sub, higherBetter, betaMax)
		if err != nil {
			return nil, err
		}
		best := math.Inf(-1)
		for _, a := range p.Area {
			best = math.Max(best, a)
		}
		var winners, rest []int
		for j, m := range left {
			if p.Area[j] >= best-1e-12*math.Max(1, math.Abs(best)) {
				winners = append(winners, m)
			} else {
				rest = append(rest, m)
			}
		}
		avg := float64(next) + float64(len(winners)-1)/2
		for _, m := range winners {
			rank[m] = avg
		}
		next += len(winners)
		left = rest
	}
	return rank, nil
}

// beats[a][b] = number of datasets where a is strictly better than b.
func pairwiseWins(q Matrix, higherBetter bool) [][]int {
	nm := len(q[0])
	w := make([][]int, nm)
	for a := range w {
		w[a] = make([]int, nm)
	}
	for _, row := range q {
		for a := 0; a < nm; a++ {
			for b := 0; b < nm; b++ {
				if (higherBetter && row[a] > row[b]) || (!higherBetter && row[a] < row[b]) {
					w[a][b]++
				}
			}
		}
	}
	return w
}

// majority computes Copeland (wins − losses of the majority relation) or
// Minimax (−max over the methods that beat A of s(B, A), 0 when none).
func majority(rule string, q Matrix, higherBetter bool) []float64 {
	w := pairwiseWins(q, higherBetter)
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
// for first shared equally) and Dowdall Σ 1/rank.
func positional(rule string, q Matrix, higherBetter bool) []float64 {
	r := perDatasetRanks(q, higherBetter)
	nm := len(q[0])
	out := make([]float64, nm)
	for _, row := range r {
		winners := 0
		for _, v := range row {
			if v == minOf(row) {
				winners++
			}
		}
		for m, v := range row {
			switch rule {
			case RuleBorda:
				out[m] += float64(nm) - v
			case RuleDowdall:
				out[m] += 1 / v
			case RulePlurality:
				if v == minOf(row) {
					out[m] += 1 / float64(winners)
				}
			}
		}
	}
	return out
}

func minOf(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = math.Min(m, v)
	}
	return m
}

// Tables implements Result: the main leaderboard with one score and one
// rank column per rule, and the performance profiles.
func (r *AggregateResult) Tables() []Table {
	cols := []string{"method"}
	for _, rule := range r.Rules {
		cols = append(cols, rule, RankColumn(rule))
	}
	main := Table{Title: "Leaderboard under each aggregation rule (" + r.Metric + ")", Columns: cols, Better: map[string]string{}}
	for _, rule := range r.Rules {
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
	tables := []Table{main}
	if r.Profile != nil {
		prof := Table{Name: "profiles", Title: "Dolan–Moré performance profiles", Columns: []string{"method", "beta", "rho"}}
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
	sortStable(order, func(a, b int) bool {
		if rk[a] != rk[b] {
			return rk[a] < rk[b]
		}
		return r.Methods[a] < r.Methods[b]
	})
	return order
}

// Highlight names the method(s) ranked first under each rule.
func (r *AggregateResult) Highlight() string {
	winners := map[string][]string{}
	var order []string
	for _, rule := range r.Rules {
		for m, rk := range r.Ranks[rule] {
			if rk == 1 {
				if winners[r.Methods[m]] == nil {
					order = append(order, r.Methods[m])
				}
				winners[r.Methods[m]] = append(winners[r.Methods[m]], rule)
			}
		}
	}
	parts := make([]string, 0, len(order))
	for _, m := range order {
		parts = append(parts, m+" ranks first under "+strings.Join(winners[m], ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}
