package significance

// critical_difference: are the differences in mean rank over many datasets
// more than chance? It follows Demšar (2006) — Friedman's test, the
// Iman–Davenport F and the Nemenyi critical difference — and the variant of
// Shevchenko et al. 2024, Fig. 4 (after Benavoli et al. 2016 and Ismail
// Fawaz's cd-diagram code): pairwise Wilcoxon signed-rank tests with
// zero_method "pratt", Holm-corrected, whose non-significant neighbours
// form the cliques the diagram joins with thick bars, and the Bayesian
// signed-rank test as dashed bars.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"

	"github.com/evalbook/evalbook/analyses/stats"
)

// CriticalDifferenceOptions are the keys of a `critical_difference`
// analysis.
type CriticalDifferenceOptions struct {
	Metric     string   `toml:"metric"`
	Alpha      float64  `toml:"alpha"`       // 0.05
	ZeroMethod string   `toml:"zero_method"` // "pratt" (the code of Shevchenko et al. 2024), "wilcox", "zsplit"
	Bayesian   bool     `toml:"bayesian"`    // also run the Bayesian signed-rank test
	Rope       float64  `toml:"rope"`        // region of practical equivalence, metric units
	Samples    int      `toml:"samples"`     // Monte Carlo draws of the Bayesian test (50000)
	Datasets   []string `toml:"datasets"`    // optional subset
	Methods    []string `toml:"methods"`     // optional subset
	// Missing is "error" (default: a missing cell names itself) or
	// "drop" (datasets without a value for every method are left out).
	Missing string `toml:"missing"`
	// Test is "friedman" (default: Friedman, Iman–Davenport, Nemenyi and
	// pairwise Wilcoxon–Holm) or "auto": the same, and before them
	// autorank's automatic choice (Auto), which states the branch it took
	// and its own tests, effect sizes and report.
	Test string `toml:"test"`
}

// Tests of critical_difference.
const (
	TestFriedman = "friedman"
	TestAuto     = "auto"
)

// defaultCDSamples is the Bayesian test's number of Monte Carlo draws
// when samples is not given.
const defaultCDSamples = 50000

// Defaults fills unset options.
func (o *CriticalDifferenceOptions) Defaults() {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.ZeroMethod == "" {
		o.ZeroMethod = stats.ZeroPratt
	}
	if o.Samples == 0 {
		o.Samples = defaultCDSamples
	}
	if o.Missing == "" {
		o.Missing = "error"
	}
	if o.Test == "" {
		o.Test = TestFriedman
	}
}

// Validate checks the options.
func (o *CriticalDifferenceOptions) Validate() error {
	if o.Metric == "" {
		return analyses.OptionErrorf("metric", "required")
	}
	if err := analyses.OneOf("test", o.Test, TestFriedman, TestAuto); err != nil {
		return err
	}
	if err := checkAlphaZeroMethod(o.Alpha, o.ZeroMethod); err != nil {
		return err
	}
	if err := analyses.CheckFloat("rope", o.Rope, 0, math.MaxFloat64); err != nil {
		return err
	}
	if err := analyses.CheckInt("samples", o.Samples, 100, analyses.MaxSamples); err != nil {
		return err
	}
	if err := analyses.OneOf("missing", o.Missing, "error", "drop"); err != nil {
		return err
	}
	if o.Rope > 0 && !o.Bayesian {
		return analyses.OptionErrorf("rope", "only used by the Bayesian test; set bayesian = true")
	}
	if o.Samples != defaultCDSamples && !o.Bayesian {
		return analyses.OptionErrorf("samples", "only used by the Bayesian test; set bayesian = true")
	}
	return analyses.FirstError(analyses.CheckDistinct("datasets", o.Datasets), analyses.CheckDistinct("methods", o.Methods))
}

// CriticalDifferenceInput is the matrix to test plus the Monte Carlo
// stream of the Bayesian test.
type CriticalDifferenceInput struct {
	leaderboard.AggregateInput
	Seed uint64
	Jobs int
}

// CDPair is one pairwise comparison; A has the better (or equal) mean
// rank. Differences are A − B with the metric oriented so that higher is
// better.
type CDPair struct {
	A           string   `json:"a"`
	B           string   `json:"b"`
	Statistic   *float64 `json:"statistic"`
	P           *float64 `json:"p"`
	PHolm       *float64 `json:"p_holm"`
	Significant bool     `json:"significant"`
	Method      string   `json:"wilcoxon_method,omitempty"` // exact or approx
	PLeft       *float64 `json:"p_left,omitempty"`          // P(A better), baycomp's p_left
	PRope       *float64 `json:"p_rope,omitempty"`
	PRight      *float64 `json:"p_right,omitempty"` // P(B better)
}

// CriticalDifferenceResult is what critical_difference computes.
type CriticalDifferenceResult struct {
	Metric          string   `json:"metric"`
	HigherIsBetter  bool     `json:"higher_is_better"`
	Alpha           float64  `json:"alpha"`
	ZeroMethod      string   `json:"zero_method"`
	Datasets        []string `json:"datasets"`
	DroppedDatasets []string `json:"dropped_datasets,omitempty"`
	// Methods in mean-rank order, best first, with their mean ranks.
	Methods   []string  `json:"methods"`
	MeanRanks []float64 `json:"mean_ranks"`

	FriedmanStatistic  *float64 `json:"friedman_statistic"`
	FriedmanP          *float64 `json:"friedman_p"`
	ImanDavenportF     *float64 `json:"iman_davenport_f"`
	ImanDavenportP     *float64 `json:"iman_davenport_p"`
	NemenyiQ           float64  `json:"nemenyi_q"`
	CriticalDifference float64  `json:"critical_difference"`
	// Cliques are maximal runs of methods, in mean-rank order, with no
	// significant Holm-corrected Wilcoxon difference inside.
	Cliques [][]string `json:"cliques"`
	// BayesianCliques: the same for the Bayesian test, where a pair
	// differs when P(one is better) ≥ 1 − alpha.
	Bayesian        bool       `json:"bayesian"`
	Rope            float64    `json:"rope,omitempty"`
	Samples         int        `json:"samples,omitempty"`
	BayesianCliques [][]string `json:"bayesian_cliques,omitempty"`
	Pairs           []CDPair   `json:"pairs"`
	// Auto is autorank's automatic choice (test = "auto"), nil otherwise.
	Auto *AutoResult `json:"auto,omitempty"`
	// Naming is how the key finding names methods and the metric, and
	// which methods are baselines (set by the caller; not in JSON; Auto
	// uses the same).
	Naming analyses.Naming `json:"-"`
	analyses.Warnings
}

// CriticalDifference runs Friedman, Iman–Davenport, Nemenyi, pairwise
// Wilcoxon–Holm and (optionally) Bayesian signed-rank tests on the
// datasets × methods matrix. The tests need complete blocks: a dataset
// without a value for every method is an error, or with missing = "drop"
// it is left out with a warning.
func CriticalDifference(in CriticalDifferenceInput, opts CriticalDifferenceOptions) (*CriticalDifferenceResult, error) {
	opts.Defaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	higher := in.Metric.Better == analyses.HigherIsBetter
	res := &CriticalDifferenceResult{Metric: in.Metric.Name, HigherIsBetter: higher, Alpha: opts.Alpha,
		ZeroMethod: opts.ZeroMethod, Bayesian: opts.Bayesian}
	if len(in.Methods) < 2 {
		return nil, fmt.Errorf("metric %q: need at least 2 methods to compare, have %d", in.Metric.Name, len(in.Methods))
	}
	q, err := cdComplete(in, res, opts.Missing == "drop")
	if err != nil {
		return nil, err
	}
	n, k := len(q), len(in.Methods)
	if n < 2 {
		return nil, fmt.Errorf("metric %q: need at least 2 datasets with a value for every method, have %d", in.Metric.Name, n)
	}
	order := cdRank(in, res, q, higher)
	if err := cdOmnibus(in, opts, res, q); err != nil {
		return nil, err
	}
	// Oriented columns, in mean-rank order: higher is better.
	col := func(i int) []float64 {
		c := make([]float64, n)
		for d := range q {
			c[d] = in.Metric.Orient(q[d][order[i]])
		}
		return c
	}
	var pairs []cdPairIdx
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			pairs = append(pairs, cdPairIdx{i, j})
		}
	}
	cdWilcoxonHolm(opts, res, pairs, col, n)
	if opts.Bayesian {
		if err := cdBayesian(in, opts, res, pairs, col); err != nil {
			return nil, err
		}
	}
	if opts.Test == TestAuto {
		a, err := Auto(in.AggregateInput, AutoOptions{Alpha: opts.Alpha, Missing: opts.Missing})
		if err != nil {
			return nil, fmt.Errorf("test = \"auto\": %w", err)
		}
		res.Auto = a
		for _, w := range a.List {
			res.Warnf("automatic choice: %s", w)
		}
	}
	return res, nil
}

// cdPairIdx is a pair of methods by their positions in mean-rank order.
type cdPairIdx struct{ a, b int }

// cdComplete returns the rows of the datasets with a value for every
// method: a missing value is an error naming it (leaderboard.CompleteRows,
// as aggregate and stability), or with drop its dataset is left out with
// a warning.
func cdComplete(in CriticalDifferenceInput, res *CriticalDifferenceResult, drop bool) (analyses.Matrix, error) {
	q, kept, dropped, err := leaderboard.CompleteRows(in.Metric.Name, in.Datasets, in.Methods, in.Q, drop)
	if err != nil {
		return nil, err
	}
	res.Datasets, res.DroppedDatasets = kept, dropped
	for d, row := range in.Q {
		var missing []string
		for m, v := range row {
			if math.IsNaN(v) {
				missing = append(missing, in.Methods[m])
			}
		}
		if len(missing) > 0 {
			what := "method"
			if len(missing) > 1 {
				what = "methods"
			}
			res.Warnf("dataset %q left out (missing = \"drop\"): no %s value for %s %s, and the tests need every method on every dataset",
				in.Datasets[d], in.Metric.Name, what, strings.Join(missing, ", "))
		}
	}
	return q, nil
}

// cdRank sets the methods in order of mean rank, exactly as the aggregate
// analysis computes it, and returns that order (method indices).
func cdRank(in CriticalDifferenceInput, res *CriticalDifferenceResult, q analyses.Matrix, higher bool) []int {
	mr, _ := leaderboard.RuleScores(leaderboard.RuleMeanRank, q, higher, 3) // β̂ is not used by mean_rank
	order := make([]int, len(in.Methods))
	for i := range order {
		order[i] = i
	}
	analyses.SortStable(order, func(a, b int) bool { return analyses.CompareScores(mr[a], mr[b]) < 0 })
	for _, m := range order {
		res.Methods = append(res.Methods, in.Methods[m])
		res.MeanRanks = append(res.MeanRanks, mr[m])
	}
	return order
}

// cdOmnibus runs Friedman's and Iman–Davenport's tests and computes the
// Nemenyi critical difference.
func cdOmnibus(in CriticalDifferenceInput, opts CriticalDifferenceOptions, res *CriticalDifferenceResult, q analyses.Matrix) error {
	n, k := len(q), len(in.Methods)
	fr := stats.Friedman(q)
	if math.IsNaN(fr.Statistic) {
		res.Warnf("Friedman's test is undefined: every method has the same %s on every dataset", in.Metric.Name)
	}
	id := stats.ImanDavenport(fr.Statistic, n, k)
	if math.IsInf(id.Statistic, 1) {
		res.Warnf("the Iman–Davenport F is infinite (p = 0): every dataset ranks the methods the same way")
	}
	res.FriedmanStatistic, res.FriedmanP = analyses.Opt(fr.Statistic), analyses.Opt(fr.P)
	res.ImanDavenportF, res.ImanDavenportP = analyses.Opt(id.Statistic), analyses.Opt(id.P)
	if n < 10 {
		res.Warnf("only %d datasets: Friedman's χ² approximation is rough below 10 (Demšar 2006 §3.2.2)", n)
	}
	qa, err := stats.NemenyiQ(opts.Alpha, k)
	if err != nil {
		return err
	}
	res.NemenyiQ = qa
	res.CriticalDifference = qa * math.Sqrt(float64(k*(k+1))/(6*float64(n)))
	return nil
}

// cdWilcoxonHolm tests every pair with Wilcoxon's signed-rank test over
// the n datasets, corrects the p-values by Holm and finds the cliques.
func cdWilcoxonHolm(opts CriticalDifferenceOptions, res *CriticalDifferenceResult, pairs []cdPairIdx, col func(int) []float64, n int) {
	k := len(res.Methods)
	ps := make([]float64, len(pairs))
	res.Pairs = make([]CDPair, len(pairs))
	for pi, pr := range pairs {
		a, b := col(pr.a), col(pr.b)
		d := make([]float64, n)
		for i := range d {
			d[i] = a[i] - b[i]
		}
		cp := CDPair{A: res.Methods[pr.a], B: res.Methods[pr.b]}
		w, err := stats.Wilcoxon(d, opts.ZeroMethod, stats.WilcoxonAuto, false)
		ps[pi] = math.NaN()
		if err != nil {
			res.Warnf("Wilcoxon test of %s vs %s undefined: %v (they are treated as not different)", cp.A, cp.B, err)
		} else {
			cp.Statistic, cp.P, cp.Method = analyses.Opt(w.Statistic), analyses.Opt(w.P), w.Method
			ps[pi] = w.P
		}
		res.Pairs[pi] = cp
	}
	if n <= 5 {
		res.Warnf("only %d datasets: the smallest two-sided Wilcoxon p-value is %.4g, so no pair can be significant at alpha = %g before correction",
			n, 2/math.Pow(2, float64(n)), opts.Alpha)
	}
	holm := stats.Holm(ps)
	sig := make([][]bool, k)
	for i := range sig {
		sig[i] = make([]bool, k)
	}
	for pi, pr := range pairs {
		res.Pairs[pi].PHolm = analyses.Opt(holm[pi])
		s := !math.IsNaN(holm[pi]) && holm[pi] <= opts.Alpha
		res.Pairs[pi].Significant = s
		sig[pr.a][pr.b], sig[pr.b][pr.a] = s, s
	}
	res.Cliques = cliques(res.Methods, sig)
}

// cdBayesian runs the Bayesian signed-rank test of every pair on in.Jobs
// goroutines and finds the cliques of pairs it does not tell apart.
func cdBayesian(in CriticalDifferenceInput, opts CriticalDifferenceOptions, res *CriticalDifferenceResult, pairs []cdPairIdx, col func(int) []float64) error {
	k := len(res.Methods)
	res.Rope, res.Samples = opts.Rope, opts.Samples
	bp := make([]stats.BayesPair, len(pairs))
	for pi, pr := range pairs {
		bp[pi] = stats.BayesPair{A: col(pr.a), B: col(pr.b)}
	}
	// One stream, from the seed alone, for every pair's draws.
	out, err := stats.BayesianSignedRanks(bp, opts.Rope, opts.Samples, 0.5, rand.NewPCG(in.Seed, 0), in.Jobs)
	if err != nil {
		return err
	}
	bsig := make([][]bool, k)
	for i := range bsig {
		bsig[i] = make([]bool, k)
	}
	for pi, pr := range pairs {
		b := out[pi]
		res.Pairs[pi].PLeft, res.Pairs[pi].PRope, res.Pairs[pi].PRight = analyses.Opt(b.Left), analyses.Opt(b.Rope), analyses.Opt(b.Right)
		s := b.Left >= 1-opts.Alpha || b.Right >= 1-opts.Alpha
		bsig[pr.a][pr.b], bsig[pr.b][pr.a] = s, s
	}
	res.BayesianCliques = cliques(res.Methods, bsig)
	return nil
}

// cliques returns the maximal runs [i, j] of methods (in mean-rank order)
// with no significant pair inside, of two methods or more, as Demšar's
// diagrams draw them (a run contained in a longer one is not repeated).
func cliques(methods []string, sig [][]bool) [][]string {
	k := len(methods)
	var out [][]string
	lastEnd := -1
	for i := 0; i < k; i++ {
		j := i
		for j+1 < k {
			ok := true
			for x := i; x <= j; x++ {
				if sig[x][j+1] {
					ok = false
					break
				}
			}
			if !ok {
				break
			}
			j++
		}
		if j > i && j > lastEnd {
			out = append(out, append([]string(nil), methods[i:j+1]...))
			lastEnd = j
		}
	}
	if out == nil {
		out = [][]string{}
	}
	return out
}

// Tables implements Result: a summary, the mean ranks and the pairs.
func (r *CriticalDifferenceResult) Tables() []analyses.Table {
	val := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	sum := analyses.Table{Title: "Friedman, Iman–Davenport and Nemenyi (" + r.Naming.Metric(r.Metric) + ")", Columns: []string{"quantity", "value"},
		Rows: [][]any{
			{"datasets", len(r.Datasets)},
			{"methods", len(r.Methods)},
			{"friedman_statistic", val(r.FriedmanStatistic)},
			{"friedman_p", val(r.FriedmanP)},
			{"iman_davenport_f", val(r.ImanDavenportF)},
			{"iman_davenport_p", val(r.ImanDavenportP)},
			{"nemenyi_q", r.NemenyiQ},
			{"critical_difference", r.CriticalDifference},
		}}
	ranks := analyses.Table{Name: "ranks", Title: "Mean rank over datasets (1 = best)", Columns: []string{"method", "mean_rank"}}
	for i, m := range r.Methods {
		ranks.Rows = append(ranks.Rows, []any{m, r.MeanRanks[i]})
	}
	cols := []string{"a", "b", "statistic", "p", "p_holm", "significant"}
	if r.Bayesian {
		cols = append(cols, "p_left", "p_rope", "p_right")
	}
	pairs := analyses.Table{Name: "pairs", Title: "Pairwise Wilcoxon signed-rank tests, Holm-corrected", Columns: cols}
	if r.Bayesian && r.Samples > 0 {
		// The Bayesian probabilities are shares of Samples draws.
		res := 1 / float64(r.Samples)
		pairs.Resolution = map[string]float64{"p_left": res, "p_rope": res, "p_right": res}
	}
	for _, p := range r.Pairs {
		row := []any{p.A, p.B, val(p.Statistic), val(p.P), val(p.PHolm), p.Significant}
		if r.Bayesian {
			row = append(row, val(p.PLeft), val(p.PRope), val(p.PRight))
		}
		pairs.Rows = append(pairs.Rows, row)
	}
	tables := []analyses.Table{sum, ranks, pairs}
	if a := r.auto(); a != nil {
		for _, t := range a.Tables() {
			t.Name = strings.TrimSuffix("auto-"+t.Name, "-")
			tables = append(tables, t)
		}
	}
	return tables
}

// auto is Auto with this result's Naming (the caller sets one Naming).
func (r *CriticalDifferenceResult) auto() *AutoResult {
	if r.Auto != nil {
		r.Auto.Naming = r.Naming
	}
	return r.Auto
}

// Report is the automatic choice's report (AutoResult.Report): nil
// unless test = "auto".
func (r *CriticalDifferenceResult) Report() []string {
	if a := r.auto(); a != nil {
		return a.Report()
	}
	return nil
}

// Highlight: the Friedman test, the best mean rank and how many pairs
// differ; with test = "auto", the automatic choice's.
func (r *CriticalDifferenceResult) Highlight() string {
	if len(r.Methods) == 0 {
		return ""
	}
	if a := r.auto(); a != nil {
		return a.Highlight()
	}
	n := r.Naming
	// the leaders: the methods that are not baselines sharing the best
	// mean rank among them (within analyses.Tied)
	var leaders, ahead []string
	best := -1
	for i, m := range r.Methods {
		if n.IsBaseline(m) {
			continue
		}
		if best < 0 {
			best = i
		}
		if analyses.Tied(r.MeanRanks[i], r.MeanRanks[best]) {
			leaders = append(leaders, m)
		}
	}
	if best < 0 { // every method is a baseline
		best, leaders = 0, []string{r.Methods[0]}
		for i := 1; i < len(r.Methods) && analyses.Tied(r.MeanRanks[i], r.MeanRanks[0]); i++ {
			leaders = append(leaders, r.Methods[i])
		}
	}
	for i := 0; i < best; i++ {
		if !analyses.Tied(r.MeanRanks[i], r.MeanRanks[best]) {
			ahead = append(ahead, r.Methods[i])
		}
	}
	verb := " has the best mean rank"
	if len(leaders) > 1 {
		verb = " share the best mean rank"
	}
	if len(ahead) > 0 {
		verb += " among the methods that are not baselines"
	}
	// the mean rank and the critical difference as the tables and the
	// diagram print them ("EASE (3.688)", "CD = 2.946")
	s := fmt.Sprintf("%s%s (%s) on %s over %s", n.MethodList(leaders), verb, analyses.ColumnText(r.MeanRanks[best], r.MeanRanks), n.Metric(r.Metric), analyses.Count(len(r.Datasets), "dataset", "datasets"))
	if len(ahead) > 0 {
		s += fmt.Sprintf(" (the baseline %s ranks higher)", n.MethodList(ahead))
	}
	if r.FriedmanP != nil {
		s += "; Friedman " + analyses.PClause(*r.FriedmanP)
	}
	sig := 0
	for _, p := range r.Pairs {
		if p.Significant {
			sig++
		}
	}
	return s + fmt.Sprintf("; %d of %d pairs differ after Holm (α = %g), critical difference %s.", sig, len(r.Pairs), r.Alpha, r.CDText())
}

// CDText is the critical difference as the table of the test's
// quantities prints it (four significant digits), for the key finding,
// the diagram's label and its caption alike.
func (r *CriticalDifferenceResult) CDText() string {
	return analyses.ValueText(r.CriticalDifference)
}

// Highlight: how many pairs the paired and independent tests separate.
func (r *PairedTestsResult) Highlight() string {
	if len(r.Pairs) == 0 {
		return ""
	}
	paired, indep := 0, 0
	for _, p := range r.Pairs {
		if p.PPairedT != nil && *p.PPairedT < r.Alpha {
			paired++
		}
		if p.PWelch != nil && *p.PWelch < r.Alpha {
			indep++
		}
	}
	return fmt.Sprintf("On %s over %s, the paired t-test finds %d of %d pairs different at α = %g; the independent Welch test finds %d.",
		r.Naming.Metric(r.Metric), r.OverLabel(), paired, len(r.Pairs), r.Alpha, indep)
}

// OverLabel is Over with its dataset named by its label ("units of
// MovieLens 1M").
func (r *PairedTestsResult) OverLabel() string { return overLabel(r.Naming, r.Over) }

func overLabel(n analyses.Naming, over string) string {
	if d, ok := strings.CutPrefix(over, "units of "); ok {
		return "units of " + n.Dataset(d)
	}
	return over
}
