package offline

// offline_metrics (after Jannach et al. 2010, ch. 7, and the lecture slides
// "Evaluating Recommender Systems" that accompany it): a study may start
// from the raw recommendation lists and the held-out truth instead of
// metric tables. This file holds the options and the per-user metric
// arithmetic; offline_truth.go holds the truth, and offline_run.go the
// per-run accumulation (coverage, novelty, means) that the streaming
// readers of package report feed one user at a time, so memory is bounded
// by the truth and the catalog, never by the runs.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// Per-user ranking metrics at a cutoff k ("ndcg@10"), in the order of
// every table and value slice. success is trec_eval's success_k (equal to
// hitrate: both names are kept, one for each community).
var UserMetrics = []string{"precision", "recall", "f1", "ndcg", "map", "mrr", "hitrate", "success", "rankscore", "liftindex"}

// Per-user ranking metrics over the whole list, without a cutoff
// (trec_eval's map, recip_rank, Rprec, bpref), after the cutoff ones.
var ListMetrics = []string{"map", "mrr", "rprec", "bpref"}

// RecallLevels are the 11 recall levels of iprec@recall (trec_eval's
// iprec_at_recall), named "iprec@0.0" … "iprec@1.0". They are written as
// decimal literals, as trec_eval's parameters are, so that level·R rounds
// the same way here and in the oracle.
var RecallLevels = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}

// IprecName is the metric name of recall level i.
func IprecName(i int) string { return fmt.Sprintf("iprec@%.1f", RecallLevels[i]) }

// GMMAP is the per-run geometric mean of the users' average precision
// (trec_eval's gm_map): exp of the mean of log(max(AP, MinGeoMean)).
const GMMAP = "gm_map"

// MinGeoMean is trec_eval's floor of an AP before its logarithm.
const MinGeoMean = 0.00001

// Per-run metrics computed from the lists as a whole.
var RunMetrics = []string{"coverage", "novelty"}

// Rating metrics computed from rating predictions.
var RatingMetrics = []string{"mae", "rmse"}

// Values of the options.
const (
	NDCGTrecEval = "trec_eval" // 1/log2(rank+1): trec_eval 9 ndcg_cut, Burges et al. 2005
	NDCGJarvelin = "jarvelin"  // rel_1 + Σ_{i≥2} rel_i/log2 i: Jannach et al. 2010, Järvelin & Kekäläinen 2002
	GainGraded   = "graded"
	GainBinary   = "binary"
	RuleSkip     = "skip"
	RuleZero     = "zero"
	TrecEval9    = "9"  // iprec cut: the integer part of L·R + 0.9 (trec_eval 9.x, pytrec_eval)
	TrecEval10   = "10" // iprec cut: L·R rounded half away from zero (trec_eval 10)
)

// Options are the keys of an `offline_metrics` analysis.
type Options struct {
	// Runs names the run files, in any form of an [inputs] entry: a path
	// pattern ({method} required unless the entry fixes method, {dataset}
	// optional, globs allowed), a table {path, columns, method, dataset},
	// or a list of them. Without a dataset the one dataset is named after
	// the study. Decoded by the build (report), which reports each entry's
	// problems at its line.
	Runs any `toml:"runs"`
	// Truth names the held-out truth, in the same forms; {dataset} when
	// the runs have it.
	Truth any `toml:"truth"`
	// Predictions optionally names rating predictions
	// (`user,item,prediction`, in the same forms); the truth's relevance
	// column is the true rating. Gives mae and rmse.
	Predictions any `toml:"predictions"`
	// Format of runs and truth: "auto" (by extension: .csv/.tsv[.gz] are
	// tables, anything else is TREC), "csv" (tables) or "trec".
	Format string `toml:"format"`
	// K lists the cutoffs (default 5, 10, 20).
	K []int `toml:"k"`
	// RelevanceThreshold: a truth item is relevant when its relevance is
	// at least this (default 1, trec_eval's relevance_level).
	RelevanceThreshold float64 `toml:"relevance_threshold"`
	NDCGDiscount       string  `toml:"ndcg_discount"` // "trec_eval" (default) | "jarvelin"
	NDCGGain           string  `toml:"ndcg_gain"`     // "graded" (default: the relevance value) | "binary"
	HalfLife           float64 `toml:"half_life"`     // RankScore half-life α (default 5, Breese et al. 1998)
	// NoRelevant: a user of the truth without a relevant item is left out
	// ("skip", default) or scores 0 on every metric ("zero").
	NoRelevant string `toml:"no_relevant"`
	// MissingUsers: a truth user with a relevant item but no list in a run
	// scores 0 ("zero", default: trec_eval -c) or is left out ("skip").
	MissingUsers string `toml:"missing_users"`
	// TrecEval is the trec_eval release whose cut of a recall level L in
	// relevant documents iprec@L follows: "10" (default, round(L·R)) or
	// "9" (the integer part of L·R + 0.9, trec_eval 9.x and pytrec_eval).
	// No other measure differs between the two.
	TrecEval string `toml:"trec_eval"`
	// Compare, when set, tests every pair of runs of a dataset on the
	// per-user values (see CompareOptions).
	Compare *CompareOptions `toml:"compare"`
}

// Defaults fills unset options.
func (o *Options) Defaults() {
	if o.Format == "" {
		o.Format = "auto"
	}
	if len(o.K) == 0 {
		o.K = []int{5, 10, 20}
	}
	if o.RelevanceThreshold == 0 {
		o.RelevanceThreshold = 1 // 0 is not a valid threshold (Validate)
	}
	if o.NDCGDiscount == "" {
		o.NDCGDiscount = NDCGTrecEval
	}
	if o.NDCGGain == "" {
		o.NDCGGain = GainGraded
	}
	if o.HalfLife == 0 {
		o.HalfLife = 5
	}
	if o.NoRelevant == "" {
		o.NoRelevant = RuleSkip
	}
	if o.MissingUsers == "" {
		o.MissingUsers = RuleZero
	}
	if o.TrecEval == "" {
		o.TrecEval = TrecEval10
	}
}

// Validate checks the options.
func (o *Options) Validate() error {
	for _, check := range []func() error{o.validateInputs, o.validateCutoffs, o.validateRules} {
		if err := check(); err != nil {
			return err
		}
	}
	if o.Compare != nil {
		o.Compare.Defaults()
		if err := o.Compare.Validate(NewEvaluator(*o).Names()); err != nil {
			return err
		}
	}
	return nil
}

// validateInputs checks runs, truth and predictions: present, of an entry
// form, and their patterns' placeholders consistent.
func (o *Options) validateInputs() error {
	runs, runsIsPath := o.Runs.(string)
	if o.Runs == nil || (runsIsPath && runs == "") {
		return analyses.OptionErrorf("runs", "required (a path pattern with {method}, e.g. \"runs/{method}_{dataset}.csv\", or a table {path = …, method = …})")
	}
	if runsIsPath && !strings.Contains(runs, "{method}") {
		return analyses.OptionErrorf("runs", "the pattern %q has no {method} placeholder", runs)
	}
	truth, truthIsPath := o.Truth.(string)
	if o.Truth == nil || (truthIsPath && truth == "") {
		return analyses.OptionErrorf("truth", "required (a path, with {dataset} when runs has it)")
	}
	if runsIsPath && truthIsPath && strings.Contains(runs, "{dataset}") != strings.Contains(truth, "{dataset}") {
		return analyses.OptionErrorf("truth", "%q and runs %q must both hold {dataset} or neither", truth, runs)
	}
	if p, ok := o.Predictions.(string); ok && p != "" && !strings.Contains(p, "{method}") {
		return analyses.OptionErrorf("predictions", "the pattern %q has no {method} placeholder", p)
	}
	for _, e := range []struct {
		key string
		v   any
	}{{"runs", o.Runs}, {"truth", o.Truth}, {"predictions", o.Predictions}} {
		switch e.v.(type) {
		case nil, string, map[string]any, []any:
		default:
			return analyses.OptionErrorf(e.key, "want a path, a table {path = …} or a list of them, got %v", e.v)
		}
	}
	return analyses.OneOf("format", o.Format, "auto", "csv", "trec")
}

// validateCutoffs checks k: at least one, each in range, no repeats.
func (o *Options) validateCutoffs() error {
	if len(o.K) == 0 {
		return analyses.OptionErrorf("k", "at least one cutoff is needed")
	}
	if err := analyses.CheckLen("k", len(o.K), analyses.MaxCutoffs); err != nil {
		return err
	}
	for _, k := range o.K {
		if err := analyses.CheckInt("k", k, 1, analyses.MaxCutoff); err != nil {
			return err
		}
	}
	return analyses.CheckDistinct("k", o.K)
}

// validateRules checks the threshold, the nDCG choices, the RankScore
// half-life and the rules for users without relevant items or lists.
func (o *Options) validateRules() error {
	if err := analyses.CheckFloat("relevance_threshold", o.RelevanceThreshold, math.Inf(-1), math.MaxFloat64); err != nil {
		return err
	}
	if o.RelevanceThreshold <= 0 {
		return analyses.OptionErrorf("relevance_threshold", "must be positive, got %g (relevance 0 marks a judged non-relevant item)", o.RelevanceThreshold)
	}
	if err := analyses.OneOf("ndcg_discount", o.NDCGDiscount, NDCGTrecEval, NDCGJarvelin); err != nil {
		return err
	}
	if err := analyses.OneOf("ndcg_gain", o.NDCGGain, GainGraded, GainBinary); err != nil {
		return err
	}
	if err := analyses.CheckPositive("half_life", o.HalfLife, math.MaxFloat64); err != nil {
		return err
	}
	if err := analyses.OneOf("no_relevant", o.NoRelevant, RuleSkip, RuleZero); err != nil {
		return err
	}
	if err := analyses.OneOf("missing_users", o.MissingUsers, RuleZero, RuleSkip); err != nil {
		return err
	}
	return analyses.OneOf("trec_eval", o.TrecEval, TrecEval10, TrecEval9)
}

// CompareMetrics are the per-user metrics compare tests: its metrics, or
// every per-user metric.
func (o *Options) CompareMetrics() []string {
	if o.Compare == nil {
		return nil
	}
	if len(o.Compare.Metrics) > 0 {
		return o.Compare.Metrics
	}
	return NewEvaluator(*o).Names()
}

// Evaluator computes one user's ranking metrics at every cutoff.
// It keeps scratch space: use one per goroutine.
type Evaluator struct {
	ks       []int     // sorted, distinct
	maxK     int       //
	thr      float64   // relevance threshold
	binary   bool      // binary nDCG gain
	te9      bool      // iprec cuts as trec_eval 9 (L·R + 0.9, truncated)
	disc     []float64 // disc[r-1]: nDCG discount of rank r
	half     []float64 // half[r-1] = 2^{-(r-1)/α}
	halfCum  []float64 // halfCum[m] = Σ_{i<m} half[i]: RankScore's best for m relevant items
	names    []string
	ideal    []float64 // scratch: the user's gains, sorted descending
	relRanks []int     // scratch: ranks of the relevant items of the list
	nMetrics int
	nK       int
	list0    int // index of the first ListMetrics value
	iprec0   int // index of iprec@0.0
}

// NotJudged is the relevance Eval reads for a listed item that is not in
// the user's truth at all (trec_eval's RELVALUE_NONPOOL): not relevant,
// and, unlike a judged item, not counted by bpref.
var NotJudged = math.Inf(-1)

// NewEvaluator prepares the discount tables for the options
// (which must be valid).
func NewEvaluator(o Options) *Evaluator {
	ks := slices.Clone(o.K)
	slices.Sort(ks)
	ks = slices.Compact(ks)
	e := &Evaluator{ks: ks, maxK: ks[len(ks)-1], thr: o.RelevanceThreshold, binary: o.NDCGGain == GainBinary,
		te9: o.TrecEval == TrecEval9, nMetrics: len(UserMetrics), nK: len(ks)}
	e.disc = make([]float64, e.maxK)
	e.half = make([]float64, e.maxK)
	e.halfCum = make([]float64, e.maxK+1)
	for r := 1; r <= e.maxK; r++ {
		switch {
		case o.NDCGDiscount == NDCGJarvelin && r == 1:
			e.disc[0] = 1
		case o.NDCGDiscount == NDCGJarvelin:
			e.disc[r-1] = 1 / math.Log2(float64(r))
		default:
			e.disc[r-1] = 1 / math.Log2(float64(r+1))
		}
		e.half[r-1] = math.Exp2(-float64(r-1) / o.HalfLife)
		e.halfCum[r] = e.halfCum[r-1] + e.half[r-1]
	}
	for _, m := range UserMetrics {
		for _, k := range ks {
			e.names = append(e.names, fmt.Sprintf("%s@%d", m, k))
		}
	}
	e.list0 = len(e.names)
	e.names = append(e.names, ListMetrics...)
	e.iprec0 = len(e.names)
	for i := range RecallLevels {
		e.names = append(e.names, IprecName(i))
	}
	return e
}

// Names returns the per-user metric names ("ndcg@10", …) in the order of
// Eval's values: the cutoff metrics metric-major with cutoffs ascending,
// then map, mrr, rprec, bpref, then iprec@0.0 … iprec@1.0.
func (e *Evaluator) Names() []string { return e.names }

// Index returns the position of metric m at cutoff index ki in Eval's
// values.
func (e *Evaluator) Index(m, ki int) int { return m*e.nK + ki }

// APIndex is the position of "map" (average precision over the whole
// list) in Eval's values.
func (e *Evaluator) APIndex() int { return e.list0 }

// gain is the nDCG gain of a relevance value. Graded (trec_eval's
// ndcg_cut, "gain values are the relevance values in the qrels file"):
// the value itself for every positive value, whatever the relevance
// threshold — the threshold applies to the binary measures only. Binary:
// 1 for a relevant value (at least the threshold).
func (e *Evaluator) gain(rel float64) float64 {
	if e.binary {
		if rel >= e.thr {
			return 1
		}
		return 0
	}
	if rel > 0 {
		return rel
	}
	return 0
}

// Eval computes one user's metrics. list[r-1] is the relevance of the
// item at rank r, the whole list (NotJudged when the item is not in the
// user's truth; a negative value is judged but unjudged-in-pool, as in
// trec_eval qrels); truth holds the relevance of every truth item of the
// user. out (len(Names())) receives the values; Eval returns the number
// of relevant truth items (relevance ≥ threshold). With none, the binary
// measures are 0 and nDCG still counts the positive gains, as trec_eval.
//
// At cutoff k, with hits the relevant items among the first k ranks and
// R = |T| the user's relevant items (Jannach et al. 2010; trec_eval 10's P_k,
// recall_k, map_cut_k, ndcg_cut_k, success_k):
//
//	precision = hits/k (k even when the list is shorter, as trec_eval)
//	recall    = hits/R
//	f1        = 2·P·R/(P+R), 0 when both are 0
//	ndcg      = DCG@k/IDCG@k, gains sorted descending for the ideal list
//	map@k     = Σ_{relevant r≤k} (hits at r)/r / R   (the AP@N of Jannach et al. 2010, m = R)
//	mrr@k     = 1/rank of the first relevant item within k, else 0
//	hitrate   = success = 1 when hits > 0
//	rankscore = Σ_{hits} 2^{-(r-1)/α} / Σ_{i=1}^{min(R,k)} 2^{-(i-1)/α}
//	liftindex = Σ_{hits} (1 − (r−1)/k) / hits, 0 without hits
//
// Over the whole list (trec_eval's map, recip_rank, Rprec, bpref,
// iprec_at_recall):
//
//	map   = Σ_{relevant r} (hits at r)/r / R
//	mrr   = 1/rank of the first relevant item, else 0
//	rprec = hits in the first R ranks / R
//	bpref = Σ_{relevant r} (1 − min(n_r, R)/min(N, R)) / R, n_r the judged
//	        non-relevant items above r, N the user's judged non-relevant
//	        items (relevance in [0, threshold)); a term is 1 when n_r = 0
//	iprec@L = the largest precision at a rank whose hits reach the
//	        cut c(L) (best precision at any hit when c(L) = 0), 0 when the
//	        list never reaches c(L); c(L) = round(L·R) (half away from
//	        zero, trec_eval 10) or ⌊L·R + 0.9⌋ (trec_eval 9)
func (e *Evaluator) Eval(list, truth []float64, out []float64) int {
	numRel, numNonrel := 0, 0
	e.ideal = e.ideal[:0]
	for _, v := range truth {
		switch {
		case v >= e.thr:
			numRel++
		case v >= 0:
			numNonrel++
		}
		if g := e.gain(v); g > 0 {
			e.ideal = append(e.ideal, g)
		}
	}
	clear(out)
	if len(e.ideal) > 1 {
		slices.Sort(e.ideal)
		slices.Reverse(e.ideal)
	}
	var a evalState
	a.numRel = numRel
	ki := 0
	nonrel := 0
	var bpref float64
	e.relRanks = e.relRanks[:0]
	rprecHits := 0
	for r := 1; r <= len(list); r++ {
		v := list[r-1]
		if r <= e.maxK {
			if g := e.gain(v); g > 0 {
				a.dcg += g * e.disc[r-1]
			}
		}
		switch {
		case v >= e.thr:
			a.hits++
			a.ap += float64(a.hits) / float64(r)
			if a.first == 0 {
				a.first = r
			}
			if r <= e.maxK {
				a.rs += e.half[r-1]
				a.sumR1 += float64(r - 1)
			}
			if r <= numRel {
				rprecHits++
			}
			e.relRanks = append(e.relRanks, r)
			if nonrel > 0 {
				bpref += 1 - float64(min(nonrel, numRel))/float64(min(numNonrel, numRel))
			} else {
				bpref++
			}
		case v >= 0:
			nonrel++ // judged, not relevant (NotJudged and negative levels are not counted)
		}
		for ki < e.nK && e.ks[ki] == r {
			e.record(out, ki, &a)
			ki++
		}
	}
	for ; ki < e.nK; ki++ {
		e.record(out, ki, &a)
	}
	if numRel == 0 {
		return 0
	}
	nT := float64(numRel)
	out[e.list0] = a.ap / nT
	if a.first > 0 {
		out[e.list0+1] = 1 / float64(a.first)
	}
	out[e.list0+2] = float64(rprecHits) / nT
	out[e.list0+3] = bpref / nT
	e.iprec(out[e.iprec0:e.iprec0+len(RecallLevels)], numRel)
	return numRel
}

// iprec fills the interpolated precision at each recall level from the
// ranks of the relevant items (trec_eval's iprec_at_recall: the precision
// at a level's cut in hits and every later hit, maximised).
func (e *Evaluator) iprec(out []float64, numRel int) {
	n := len(e.relRanks)
	best := 0.0
	var cuts [11]int
	for i, level := range RecallLevels {
		cuts[i] = IprecCut(level, numRel, e.te9)
	}
	// Walk the hits from the last one up, as trec_eval does.
	ci := len(cuts) - 1
	for ci >= 0 && cuts[ci] > n {
		ci--
	}
	for j := n; j >= 1; j-- {
		p := float64(j) / float64(e.relRanks[j-1])
		best = max(best, p)
		for ci >= 0 && cuts[ci] == j {
			out[ci] = best
			ci--
		}
	}
	for ; ci >= 0; ci-- {
		out[ci] = best // cut 0: the best precision at any hit
	}
}

// IprecCut is the number of relevant documents a recall level stands for
// among numRel, as trec_eval's m_iprec_at_recall.c computes it:
//
//   - trec_eval 10 (v10.0, m_iprec_at_recall.c line 71):
//     cutoffs[i] = lround(cutoff_percents[i] * rr.num_rel);
//   - trec_eval 9 (v9.0.8, m_iprec_at_recall.c line 65, the same in every
//     9.0.x tag): cutoffs[i] = (long) (cutoff_percents[i] * rr.num_rel+0.9);
//
// Both in IEEE double arithmetic. The product is rounded to a double
// before 0.9 is added (the conversion forbids a fused multiply–add), as
// on x86-64, where trec_eval 9 and pytrec_eval are built; trec_eval 10's
// change note calls the old rule "not platform-safe" for that reason.
// With R = 7 and L = 0.1: 10 gives round(0.7) = 1, 9 gives ⌊1.6⌋ = 1; with
// R = 4 and L = 0.3: 10 gives round(1.2) = 1, 9 gives ⌊2.1⌋ = 2.
func IprecCut(level float64, numRel int, trecEval9 bool) int {
	if trecEval9 {
		return int(float64(level*float64(numRel)) + 0.9)
	}
	return int(math.Round(level * float64(numRel)))
}

// evalState is what Eval has summed over a list's first ranks.
type evalState struct {
	numRel, hits, first int // relevant items, hits so far, rank of the first hit
	dcg, ap, rs, sumR1  float64
}

// record writes every metric at cutoff e.ks[ki] from the sums so far.
func (e *Evaluator) record(out []float64, ki int, a *evalState) {
	k := e.ks[ki]
	kf := float64(k)
	var idcg float64
	for i := range min(k, len(e.ideal)) {
		idcg += e.ideal[i] * e.disc[i]
	}
	if idcg > 0 {
		out[e.Index(3, ki)] = a.dcg / idcg
	}
	if a.numRel == 0 {
		return // every binary measure is 0
	}
	h := float64(a.hits)
	nT := float64(a.numRel)
	p := h / kf
	r := h / nT
	f1 := 0.0
	if p+r > 0 {
		f1 = 2 * p * r / (p + r)
	}
	mrr, hit, lift := 0.0, 0.0, 0.0
	if a.first > 0 {
		mrr = 1 / float64(a.first)
	}
	if a.hits > 0 {
		hit = 1
		lift = (h - a.sumR1/kf) / h
	}
	out[e.Index(0, ki)] = p
	out[e.Index(1, ki)] = r
	out[e.Index(2, ki)] = f1
	out[e.Index(4, ki)] = a.ap / nT
	out[e.Index(5, ki)] = mrr
	out[e.Index(6, ki)] = hit
	out[e.Index(7, ki)] = hit
	out[e.Index(8, ki)] = a.rs / e.halfCum[min(a.numRel, k)]
	out[e.Index(9, ki)] = lift
}

// Result is what an offline_metrics analysis shows: one
// value per (dataset, method, metric) — the `results` shape other
// analyses read — with counts of users and a per-user summary.
type Result struct {
	K            []int    `json:"k"`
	Metrics      []string `json:"metrics"`
	NDCGDiscount string   `json:"ndcg_discount"`
	// TrecEval is the iprec convention, "9" or "10" (the option trec_eval).
	TrecEval string      `json:"trec_eval"`
	HalfLife float64     `json:"half_life"`
	Runs     []RunValues `json:"runs"`
	// UnitRows holds the per-user values (dataset, method, user, metric,
	// value) when they are few enough for a data file; see DataTables.
	UnitRows [][]any `json:"-"`
	// Comparisons are compare's pairs (nil without compare), over
	// CompareMetrics, the runs in CompareRuns' order (no values kept).
	Comparisons    []Comparison `json:"-"`
	CompareMetrics []string     `json:"-"`
	CompareRuns    []PerQuery   `json:"-"`
	// Naming names methods and metrics in Highlight (set by the kind).
	Naming analyses.Naming `json:"-"`
	analyses.Warnings
}

// DataFiles are extra files written beside the tables: the compare table
// as LaTeX (`<id>-compare.tex`).
func (r *Result) DataFiles() map[string][]byte {
	if r.Comparisons == nil {
		return nil
	}
	return map[string][]byte{"compare.tex": CompareLaTeX(r.Comparisons)}
}

// DataTables returns the tables written as data files but not shown on
// the page: the per-user values ("units"), when kept.
func (r *Result) DataTables() []analyses.Table {
	if r.UnitRows == nil {
		return nil
	}
	return []analyses.Table{{Name: "units", Title: "Per-user values", Columns: []string{"dataset", "method", "unit", "metric", "value"}, Rows: r.UnitRows}}
}

// Metrics assembles the result from every run's values (in the
// order given: datasets, then methods). It warns about undefined values
// and users left out, naming the run.
func Metrics(o Options, runs []RunValues, predictions bool) *Result {
	ev := NewEvaluator(o)
	res := &Result{K: ev.ks, Metrics: MetricNames(o, predictions), NDCGDiscount: o.NDCGDiscount,
		HalfLife: o.HalfLife, Runs: runs}
	for _, r := range runs {
		if r.NoRelevant > 0 {
			what := "left out (no_relevant = \"skip\")"
			if o.NoRelevant == RuleZero {
				what = "scored 0 (no_relevant = \"zero\")"
			}
			res.Warnf("dataset %q, method %q: %s no item with relevance ≥ %g: %s", r.Dataset, r.Method, analyses.Count(r.NoRelevant, "user of the truth has", "users of the truth have"), o.RelevanceThreshold, what)
		}
		if r.Missing > 0 {
			what := "scored 0 (missing_users = \"zero\")"
			if o.MissingUsers == RuleSkip {
				what = "left out (missing_users = \"skip\")"
			}
			res.Warnf("dataset %q, method %q: %s no list in the run: %s", r.Dataset, r.Method, analyses.Count(r.Missing, "user with relevant items has", "users with relevant items have"), what)
		}
		if r.Unknown > 0 {
			res.Warnf("dataset %q, method %q: %d quer(ies) of the run are not in the qrels (first %q) and were ignored, as trec_eval ignores them", r.Dataset, r.Method, r.Unknown, r.FirstUnknown)
		}
		var undefined []string
		for _, m := range res.Metrics {
			// A method without predictions simply has no mae/rmse rows.
			if r.Values[m] == nil && !slices.Contains(RatingMetrics, m) {
				undefined = append(undefined, m)
			}
		}
		if len(undefined) > 0 {
			res.Warnf("dataset %q, method %q: no value for %s (no user was evaluated)", r.Dataset, r.Method, strings.Join(undefined, ", "))
		}
	}
	return res
}

// Tables implements Result: the per-run values (main table, the `results`
// shape: dataset, method, metric, value), the per-user summary ("users")
// and the counts of users per run ("lists").
func (r *Result) Tables() []analyses.Table {
	main := analyses.Table{Title: "Per-run values", Columns: []string{"dataset", "method", "metric", "value"}}
	users := analyses.Table{Name: "users", Title: "Per-user values, summarised over the users of each run",
		Columns: []string{"dataset", "method", "metric", "users", "mean", "sd", "min", "max"}}
	lists := analyses.Table{Name: "lists", Title: "Users per run",
		Columns: []string{"dataset", "method", "users_listed", "users_evaluated", "users_no_relevant", "users_missing", "mean_list_length", "catalog_items"}}
	for _, run := range r.Runs {
		for _, m := range r.Metrics {
			var v any
			if p := run.Values[m]; p != nil {
				v = *p
			} else if slices.Contains(RatingMetrics, m) {
				continue
			}
			main.Rows = append(main.Rows, []any{run.Dataset, run.Method, m, v})
		}
		for _, s := range run.Users {
			row := []any{run.Dataset, run.Method, s.Metric, s.N, nil, nil, nil, nil}
			if s.Defined {
				row[4], row[6], row[7] = s.Mean, s.Min, s.Max
			}
			if s.HasSD {
				row[5] = s.SD
			}
			users.Rows = append(users.Rows, row)
		}
		lists.Rows = append(lists.Rows, []any{run.Dataset, run.Method, run.Listed, run.Evaluated, run.NoRelevant, run.Missing, run.MeanLength, run.Catalog})
	}
	out := []analyses.Table{main, users, lists, r.IprecTable()}
	if r.Comparisons != nil {
		out = append(out, CompareTable(r.Comparisons), RanxTable(r.Comparisons, r.CompareMetrics, r.CompareRuns))
	}
	return out
}

// IprecTable is the 11-point interpolated precision of every run (the
// precision–recall curve, trec_eval's iprec_at_recall averaged).
func (r *Result) IprecTable() analyses.Table {
	t := analyses.Table{Name: "iprec", Title: "Interpolated precision at 11 recall levels",
		Columns: []string{"dataset", "method", "recall", "iprec"}}
	for _, run := range r.Runs {
		for i, level := range RecallLevels {
			var v any
			if p := run.Values[IprecName(i)]; p != nil {
				v = *p
			}
			t.Rows = append(t.Rows, []any{run.Dataset, run.Method, level, v})
		}
	}
	return t
}

// Highlight: how many runs were scored, and which method wins most
// datasets on nDCG at the largest cut-off.
func (r *Result) Highlight() string {
	if len(r.Runs) == 0 || len(r.K) == 0 {
		return ""
	}
	metric := fmt.Sprintf("ndcg@%d", r.K[len(r.K)-1])
	best := map[string]string{}
	bestV := map[string]float64{}
	var datasets []string
	users := 0
	for _, run := range r.Runs {
		users += run.Evaluated
		v := run.Values[metric]
		if _, seen := bestV[run.Dataset]; !seen {
			datasets = append(datasets, run.Dataset)
			bestV[run.Dataset] = math.Inf(-1)
		}
		if v != nil && *v > bestV[run.Dataset] {
			best[run.Dataset], bestV[run.Dataset] = run.Method, *v
		}
	}
	wins := map[string]int{}
	for _, d := range datasets {
		if m := best[d]; m != "" {
			wins[m]++
		}
	}
	leader, n := "", 0
	for _, m := range analyses.SortedKeys(wins) {
		if wins[m] > n {
			leader, n = m, wins[m]
		}
	}
	their := "their"
	if len(r.Runs) == 1 {
		their = "its"
	}
	text := fmt.Sprintf("%s on %s scored from %s ranked lists (%s evaluated)", analyses.Count(len(r.Runs), "run", "runs"), analyses.Count(len(datasets), "dataset", "datasets"), their, analyses.Count(users, "user list", "user lists"))
	if leader != "" {
		text += fmt.Sprintf("; %s has the best %s on %d of %d datasets", r.Naming.Method(leader), r.Naming.Metric(metric), n, len(datasets))
	}
	return text + "."
}
