package leaderboard

// Why this file exists: the stability analysis evaluates thousands of
// perturbed matrices. It plans them first (serially, drawing every random
// subset from a stream of its own), then evaluates them on Jobs workers into
// fixed slots, then reduces the slots in plan order. Numbers therefore never
// depend on the number of workers or on scheduling.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/evalbook/evalbook/analyses/internal/parallel"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/analyses/stats"

	"gonum.org/v1/gonum/stat"
)

// Kinds of extra column a job appends to the matrix.
const (
	stabNoExtra = iota
	stabClone   // min(α·q[·][of], max): a method similar to `of`
	stabBest    // min(α·best_d, max): a new best method
)

// stabJob is one perturbed evaluation.
type stabJob struct {
	plan, point int     // plan -1: the full data (Pareto check only)
	rows        []int   // kept datasets; nil = all
	cols        []int   // kept methods; nil = all
	extra, of   int     // extra column kind and, for a clone, its original
	alpha, beta float64 // α of the extra column; β̂ of the DM rules
	rowsB       []int   // subset_pairs: the second, disjoint subset
}

// stabOut is what a job produced, per rule of its plan.
type stabOut struct {
	rho     []float64 // NaN when undefined
	failed  []error   // the rule's error on the perturbed matrix, if any
	viol    []int     // matrices (0, 1 or 2) on which the rule broke Pareto
	first   []string  // description of the job's first violation per rule
	checked int       // matrices evaluated
}

// stabPlan is one perturbation: its points (sizes) and the rules it covers.
type stabPlan struct {
	name       string
	sizes      []float64
	exhaustive []bool
	rules      []int   // indices into engine.rules
	jobs       [][]int // job indices per point
	done       atomic.Int64
	total      int
}

type stabEngine struct {
	q        analyses.Matrix
	nd, nm   int
	higher   bool
	bound    float64
	rules    []string
	ref      map[string][]float64
	opts     StabilityOptions
	score    stabilityScorer
	cache    *stabCache
	seed     uint64
	res      *StabilityResult
	plans    []*stabPlan
	jobs     []stabJob
	out      []stabOut
	allRules []int
	refRanks [][]float64 // per rule, the ranks of its reference scores
	// paretoAll checks Pareto efficacy on every matrix, paretoFull on
	// the full data (stabilityPairwise decides).
	paretoAll, paretoFull bool
}

// stabStream numbers a (perturbation, point) random stream by the
// perturbation's place in AllPerturbations, so choosing fewer
// perturbations leaves the others' numbers unchanged.
func stabStream(pert string, point int) uint64 {
	for i, p := range AllPerturbations {
		if p == pert {
			return uint64(i+1)<<32 | uint64(point)
		}
	}
	panic("leaderboard: unknown perturbation " + pert)
}

func (e *stabEngine) plan() {
	for i, r := range e.rules {
		e.allRules = append(e.allRules, i)
		e.refRanks = append(e.refRanks, stats.RankData(e.ref[r]))
	}
	// The full data, checked for Pareto efficacy first.
	e.jobs = append(e.jobs, stabJob{plan: -1, beta: e.opts.BetaMax})
	for _, name := range e.res.Perturbations {
		p := &stabPlan{name: name, rules: e.allRules}
		switch name {
		case PerturbDropDatasets:
			e.planDropDatasets(p)
		case PerturbDropMethods:
			e.planDropMethods(p)
		case PerturbSimilarMethod:
			e.planSimilar(p)
		case PerturbBestMethod:
			for _, a := range stabSortedUnique(e.opts.AlphaBest) {
				p.add(a, true)
				e.addJob(p, stabJob{extra: stabBest, alpha: a, beta: e.opts.BetaMax})
			}
		case PerturbBeta:
			e.planBeta(p)
		case PerturbSubsetPairs:
			e.planSubsetPairs(p)
		}
		e.plans = append(e.plans, p)
	}
	e.out = make([]stabOut, len(e.jobs))
}

// planDropDatasets plans the matrices without 1 … nd − 2 datasets.
func (e *stabEngine) planDropDatasets(p *stabPlan) {
	if e.nd < 3 {
		e.res.Warnf("drop_datasets needs at least 3 datasets (2 must remain), have %d", e.nd)
	}
	if e.nd-2 > e.opts.CurvePoints {
		e.res.Warnf("drop_datasets is drawn at %d of its %d sizes, evenly spaced (curve_points = %d)", e.opts.CurvePoints, e.nd-2, e.opts.CurvePoints)
	}
	for _, i := range stabCurveSizes(e.nd-2, e.opts.CurvePoints) {
		sets, all := e.subsets(e.nd, i, stabStream(p.name, i))
		p.add(float64(i), all)
		for _, drop := range sets {
			e.addJob(p, stabJob{rows: stabComplement(e.nd, drop), beta: e.opts.BetaMax})
		}
	}
}

// planDropMethods plans the matrices without 1 … nm − 3 methods.
func (e *stabEngine) planDropMethods(p *stabPlan) {
	if e.nm < 4 {
		e.res.Warnf("drop_methods needs at least 4 methods (3 must remain), have %d", e.nm)
	}
	if e.nm-3 > e.opts.CurvePoints {
		e.res.Warnf("drop_methods is drawn at %d of its %d sizes, evenly spaced (curve_points = %d)", e.opts.CurvePoints, e.nm-3, e.opts.CurvePoints)
	}
	for _, i := range stabCurveSizes(e.nm-3, e.opts.CurvePoints) {
		sets, all := e.subsets(e.nm, i, stabStream(p.name, i))
		p.add(float64(i), all)
		for _, drop := range sets {
			e.addJob(p, stabJob{cols: stabComplement(e.nm, drop), beta: e.opts.BetaMax})
		}
	}
}

// planSimilar plans a clone of each method at every α: of every method,
// or of SimilarMethods of them drawn once (the same for every α) when
// there are more.
func (e *stabEngine) planSimilar(p *stabPlan) {
	of := stabIdentity(e.nm)
	if e.nm > e.opts.SimilarMethods {
		rng := rand.New(rand.NewPCG(e.seed, stabStream(p.name, stabSampleStream)))
		of = stabDrawSorted(rng, of, e.opts.SimilarMethods)
		e.res.SimilarSample = make([]string, len(of))
		for i, m := range of {
			e.res.SimilarSample[i] = e.res.Methods[m]
		}
		e.res.Warnf("similar_method clones %d of the %d methods (a seeded sample, similar_methods = %d), not every one", len(of), e.nm, e.opts.SimilarMethods)
	}
	for _, a := range stabSortedUnique(e.opts.AlphaSimilar) {
		exhaustive := len(of) == e.nm
		p.add(a, exhaustive)
		for _, m := range of {
			e.addJob(p, stabJob{extra: stabClone, of: m, alpha: a, beta: e.opts.BetaMax})
		}
	}
}

// stabSampleStream is the point number of similar_method's stream that
// draws its sample of methods (its points are the α, far fewer).
const stabSampleStream = 1<<32 - 1

// stabCurveSizes is 1 … largest, or, past points sizes, points sizes
// evenly spaced from 1 to largest (both included, rounded to the nearest
// integer: distinct, as the step is above 1).
func stabCurveSizes(largest, points int) []int {
	var sizes []int
	if largest <= points {
		for i := 1; i <= largest; i++ {
			sizes = append(sizes, i)
		}
		return sizes
	}
	for j := 0; j < points; j++ {
		sizes = append(sizes, 1+int(math.Round(float64(largest-1)*float64(j)/float64(points-1))))
	}
	return sizes
}

// planBeta plans the full matrix at every β̂, for the dm_* rules only.
func (e *stabEngine) planBeta(p *stabPlan) {
	p.rules = nil
	for i, r := range e.rules {
		if r == RuleDMAUC || r == RuleDMLBO {
			p.rules = append(p.rules, i)
		}
	}
	if len(p.rules) == 0 {
		e.res.Warnf("%s has no curve: it varies β̂ of DM-AUC and DM-LBO, and neither rule is computed", analyses.PerturbationLabels[PerturbBeta])
		return
	}
	for _, b := range stabSortedUnique(e.opts.Betas) {
		p.add(b, true)
		e.addJob(p, stabJob{beta: b})
	}
}

// planSubsetPairs plans pairs of disjoint dataset subsets of each size.
func (e *stabEngine) planSubsetPairs(p *stabPlan) {
	for _, s := range e.opts.SubsetSizes {
		if 2*s > e.nd {
			e.res.Warnf("subset_pairs of size %d need %d datasets, have %d: left out", s, 2*s, e.nd)
			continue
		}
		pairs, all := e.pairs(e.nd, s, stabStream(p.name, s))
		p.add(float64(s), all)
		for _, ab := range pairs {
			e.addJob(p, stabJob{rows: ab[0], rowsB: ab[1], beta: e.opts.BetaMax})
		}
	}
}

func (p *stabPlan) add(size float64, exhaustive bool) {
	p.sizes = append(p.sizes, size)
	p.exhaustive = append(p.exhaustive, exhaustive)
	p.jobs = append(p.jobs, nil)
}

func (e *stabEngine) addJob(p *stabPlan, j stabJob) {
	j.plan = len(e.plans)
	j.point = len(p.sizes) - 1
	p.jobs[j.point] = append(p.jobs[j.point], len(e.jobs))
	p.total++
	e.jobs = append(e.jobs, j)
}

// subsets returns every k-subset of 0…n−1 (lexicographic) when there are at
// most Repeats of them, else Repeats distinct ones drawn uniformly from
// the stream.
func (e *stabEngine) subsets(n, k int, stream uint64) ([][]int, bool) {
	if stabBinomAtMost(n, k, e.opts.Repeats) {
		return stabCombinations(n, k), true
	}
	rng := rand.New(rand.NewPCG(e.seed, stream))
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	seen := map[string]bool{}
	var out [][]int
	for len(out) < e.opts.Repeats {
		s := stabDrawSorted(rng, perm, k)
		key := stabSetKey(s)
		if !seen[key] {
			seen[key] = true
			out = append(out, s)
		}
	}
	return out, false
}

// pairs returns unordered pairs of disjoint s-subsets of 0…n−1: all of
// them when there are at most Repeats, else Repeats distinct ones drawn
// uniformly (a random permutation's first s and next s elements).
func (e *stabEngine) pairs(n, s int, stream uint64) ([][2][]int, bool) {
	var out [][2][]int
	if stabPairsAtMost(n, s, e.opts.Repeats) {
		for _, a := range stabCombinations(n, s) {
			rest := stabComplement(n, a)
			for _, bi := range stabCombinations(len(rest), s) {
				b := make([]int, s)
				for i, x := range bi {
					b[i] = rest[x]
				}
				if stabLessInts(a, b) {
					out = append(out, [2][]int{a, b})
				}
			}
		}
		return out, true
	}
	rng := rand.New(rand.NewPCG(e.seed, stream))
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	seen := map[string]bool{}
	for len(out) < e.opts.Repeats {
		stabShuffleFirst(rng, perm, 2*s)
		a := append([]int(nil), perm[:s]...)
		b := append([]int(nil), perm[s:2*s]...)
		sort.Ints(a)
		sort.Ints(b)
		if stabLessInts(b, a) {
			a, b = b, a
		}
		key := stabSetKey(a) + "|" + stabSetKey(b)
		if !seen[key] {
			seen[key] = true
			out = append(out, [2][]int{a, b})
		}
	}
	return out, false
}

// drawSorted shuffles the first k places of perm (a partial Fisher–Yates
// shuffle, uniform whatever perm's current order) and returns them sorted.
func stabDrawSorted(rng *rand.Rand, perm []int, k int) []int {
	stabShuffleFirst(rng, perm, k)
	s := append([]int(nil), perm[:k]...)
	sort.Ints(s)
	return s
}

// shuffleFirst puts a uniform random k-permutation of perm's elements in
// its first k places.
func stabShuffleFirst(rng *rand.Rand, perm []int, k int) {
	n := len(perm)
	for j := 0; j < k; j++ {
		i := j + rng.IntN(n-j)
		perm[j], perm[i] = perm[i], perm[j]
	}
}

func stabSetKey(s []int) string {
	var b strings.Builder
	for _, v := range s {
		fmt.Fprintf(&b, "%d,", v)
	}
	return b.String()
}

func stabLessInts(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// binomAtMost reports whether C(n, k) ≤ limit, without overflow: the
// partial products C(n−k+i, i) grow with i, so it stops once past limit.
func stabBinomAtMost(n, k, limit int) bool {
	if k > n-k {
		k = n - k
	}
	c := uint64(1)
	for i := 1; i <= k; i++ {
		c = c * uint64(n-k+i) / uint64(i)
		if c > uint64(limit) {
			return false
		}
	}
	return true
}

// pairsAtMost reports whether C(n, s)·C(n−s, s)/2 ≤ limit.
func stabPairsAtMost(n, s, limit int) bool {
	if !stabBinomAtMost(n, s, 2*limit) || !stabBinomAtMost(n-s, s, 2*limit) {
		return false
	}
	return stabBinom(n, s)*stabBinom(n-s, s)/2 <= uint64(limit)
}

func stabBinom(n, k int) uint64 {
	if k > n-k {
		k = n - k
	}
	c := uint64(1)
	for i := 1; i <= k; i++ {
		c = c * uint64(n-k+i) / uint64(i)
	}
	return c
}

// combinations lists the k-subsets of 0…n−1 in lexicographic order.
func stabCombinations(n, k int) [][]int {
	var out [][]int
	c := make([]int, k)
	for i := range c {
		c[i] = i
	}
	for {
		out = append(out, append([]int(nil), c...))
		i := k - 1
		for i >= 0 && c[i] == n-k+i {
			i--
		}
		if i < 0 {
			return out
		}
		c[i]++
		for j := i + 1; j < k; j++ {
			c[j] = c[j-1] + 1
		}
	}
}

// complement returns 0…n−1 without the sorted set s.
func stabComplement(n int, s []int) []int {
	out := make([]int, 0, n-len(s))
	j := 0
	for i := 0; i < n; i++ {
		if j < len(s) && s[j] == i {
			j++
			continue
		}
		out = append(out, i)
	}
	return out
}

func stabSortedUnique(x []float64) []float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// run evaluates every job on `workers` goroutines.
func (e *stabEngine) run(workers int, progress func(string, int, int)) error {
	return parallel.For(len(e.jobs), workers, func(j int) {
		e.out[j] = e.eval(&e.jobs[j])
		if pl := e.jobs[j].plan; pl >= 0 && progress != nil {
			// about 200 reports per perturbation: a terminal
			// redraw per matrix would cost more than the matrix
			p := e.plans[pl]
			done := int(p.done.Add(1))
			if done == p.total || done%max(1, p.total/200) == 0 {
				progress("stability: "+p.name, done, p.total)
			}
		}
	})
}

// matrix builds the perturbed matrix of a job over the given rows.
func (e *stabEngine) matrix(j *stabJob, rows []int) analyses.Matrix {
	if rows == nil {
		rows = stabIdentity(e.nd)
	}
	m := make(analyses.Matrix, len(rows))
	if j.cols == nil && j.extra == stabNoExtra {
		for i, d := range rows {
			m[i] = e.q[d]
		}
		return m
	}
	cols := j.cols
	if cols == nil {
		cols = stabIdentity(e.nm)
	}
	width := len(cols)
	if j.extra != stabNoExtra {
		width++
	}
	for i, d := range rows {
		row := make([]float64, width)
		for k, c := range cols {
			row[k] = e.q[d][c]
		}
		switch j.extra {
		case stabClone:
			row[width-1] = e.clamp(j.alpha * e.q[d][j.of])
		case stabBest:
			best := e.q[d][0]
			for _, v := range e.q[d] {
				if (e.higher && v > best) || (!e.higher && v < best) {
					best = v
				}
			}
			// "α times better": α·best for higher-is-better metrics,
			// best/α for lower-is-better ones (every rule flips for them).
			if e.higher {
				row[width-1] = e.clamp(j.alpha * best)
			} else {
				row[width-1] = e.clamp(best / j.alpha)
			}
		}
		m[i] = row
	}
	return m
}

func (e *stabEngine) clamp(v float64) float64 {
	if e.bound != 0 && !math.IsNaN(e.bound) && v > e.bound {
		return e.bound
	}
	return v
}

func stabIdentity(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func (e *stabEngine) eval(j *stabJob) stabOut {
	rules := e.allRules
	if j.plan >= 0 {
		rules = e.plans[j.plan].rules
	}
	o := stabOut{
		rho:    make([]float64, len(rules)),
		failed: make([]error, len(rules)),
		viol:   make([]int, len(rules)),
		first:  make([]string, len(rules)),
	}
	qa := e.matrix(j, j.rows)
	sa := e.scoreAll(j, qa, j.rows, rules, &o)
	if j.rowsB != nil {
		qb := e.matrix(j, j.rowsB)
		sb := e.scoreAll(j, qb, j.rowsB, rules, &o)
		for k := range rules {
			o.rho[k] = math.NaN()
			if sa[k] != nil && sb[k] != nil {
				o.rho[k] = stats.Spearman(sa[k], sb[k])
			}
		}
		return o
	}
	for k, r := range rules {
		o.rho[k] = math.NaN()
		s := sa[k]
		if s == nil {
			continue
		}
		if j.cols == nil {
			// the reference's ranks are the same for every such job
			o.rho[k] = stats.Pearson(e.refRanks[r], stats.RankData(s[:e.nm]))
			continue
		}
		ref := e.ref[e.rules[r]]
		sub := make([]float64, len(j.cols))
		for i, c := range j.cols {
			sub[i] = ref[c]
		}
		o.rho[k] = stats.Spearman(sub, s[:len(sub)])
	}
	return o
}

// scoreAll scores one matrix under every rule of the job and checks each
// rule for Pareto efficacy on it.
func (e *stabEngine) scoreAll(j *stabJob, q analyses.Matrix, rows []int, rules []int, o *stabOut) [][]float64 {
	var dom [][2]int
	if e.paretoAll || (e.paretoFull && j.plan < 0) {
		o.checked++
		dom = stabDominance(q, e.higher)
	}
	names := make([]string, len(rules))
	for k, r := range rules {
		names[k] = e.rules[r]
	}
	view := stabView{cache: e.cache, rows: rows, cols: j.cols, extra: j.extra != stabNoExtra}
	out, errs := e.score(names, q, view, j.beta)
	for k, rule := range names {
		s, err := out[k], errs[k]
		if err != nil {
			out[k] = nil
			if o.failed[k] == nil {
				o.failed[k] = err
			}
			continue
		}
		if len(dom) == 0 {
			continue
		}
		rank := analyses.RankScores(s, RuleScoreHigherBetter(rule, e.higher))
		for _, ab := range dom {
			a, b := ab[0], ab[1] // a dominates b
			if rank[b] < rank[a] {
				if o.first[k] == "" {
					o.first[k] = e.describe(j, q, a, b, rank)
				}
				o.viol[k]++
				break
			}
		}
	}
	return out
}

// dominance lists the pairs (a, b) where a is at least as good as b on
// every dataset of q and better on one.
func stabDominance(q analyses.Matrix, higher bool) [][2]int {
	nm := len(q[0])
	var out [][2]int
	for a := 0; a < nm; a++ {
		for b := 0; b < nm; b++ {
			if a == b {
				continue
			}
			strict, ok := false, true
			for _, row := range q {
				x, y := row[a], row[b]
				if !higher {
					x, y = -x, -y
				}
				if x < y {
					ok = false
					break
				}
				if x > y {
					strict = true
				}
			}
			if ok && strict {
				out = append(out, [2]int{a, b})
			}
		}
	}
	return out
}

// name returns the name of column c of a job's matrix.
func (e *stabEngine) name(j *stabJob, c int) string {
	cols := j.cols
	if cols == nil {
		cols = stabIdentity(e.nm)
	}
	if c < len(cols) {
		return e.res.Methods[cols[c]]
	}
	switch j.extra {
	case stabClone:
		return fmt.Sprintf("a copy of %s ×%g", e.res.Methods[j.of], j.alpha)
	case stabBest:
		return fmt.Sprintf("a new best method (α = %g)", j.alpha)
	}
	panic("leaderboard: stability column out of range")
}

func (e *stabEngine) describe(j *stabJob, q analyses.Matrix, a, b int, rank []float64) string {
	where := "on all data"
	if j.plan >= 0 {
		p := e.plans[j.plan]
		where = fmt.Sprintf("%s at size %g (%d datasets × %d methods)", p.name, p.sizes[j.point], len(q), len(q[0]))
	}
	return fmt.Sprintf("%s: %s (rank %g) above %s (rank %g), which is at least as good on every dataset",
		where, e.name(j, b), rank[b], e.name(j, a), rank[a])
}

// collect reduces the job outputs, in plan order, into curves, the
// summary and the Pareto check.
func (e *stabEngine) collect() {
	res := e.res
	pareto := e.collectPareto()
	res.Pareto = pareto
	summary := e.newSummaries(pareto)
	for _, p := range e.plans {
		for k, r := range p.rules {
			c := e.curve(p, k, r)
			res.Curves = append(res.Curves, c)
			e.summarise(&summary[r], p, c)
		}
	}
	res.Summary = summary
	if e.hasPlan(PerturbBeta) && len(e.rules) > 2 {
		res.Warnf("%s applies to DM-AUC and DM-LBO alone, the rules with a β̂: its area is empty for the other rules (NA in Table 3 of Shevchenko et al. 2024)", analyses.PerturbationLabels[PerturbBeta])
	}
	if e.hasPlan(PerturbSubsetPairs) {
		for _, s := range e.opts.SubsetSizes {
			if 2*s > e.nd {
				res.Warnf("%s is empty: two disjoint subsets of %d datasets need %d", analyses.Naming{}.Column(fmt.Sprintf("rho_subsets_%d", s)), s, 2*s)
			}
		}
	}
	for _, p := range pareto {
		if p.Violations > 0 {
			res.Warnf("%s is not Pareto efficient here: %d of %d matrices rank a dominated method above its dominator; first %s", p.Rule, p.Violations, p.Checked, p.First)
		}
	}
}

// collectPareto adds up every job's Pareto checks per rule.
func (e *stabEngine) collectPareto() []StabilityPareto {
	pareto := make([]StabilityPareto, len(e.rules))
	for r := range pareto {
		pareto[r].Rule = e.rules[r]
	}
	for j := range e.jobs {
		rules := e.allRules
		if pl := e.jobs[j].plan; pl >= 0 {
			rules = e.plans[pl].rules
		}
		o := &e.out[j]
		for k, r := range rules {
			pareto[r].Checked += o.checked
			pareto[r].Violations += o.viol[k]
			if o.first[k] != "" && pareto[r].First == "" {
				pareto[r].First = o.first[k]
			}
		}
	}
	return pareto
}

// newSummaries returns a summary per rule with every cell undefined until
// a curve fills it.
func (e *stabEngine) newSummaries(pareto []StabilityPareto) []StabilitySummary {
	summary := make([]StabilitySummary, len(e.rules))
	for r := range summary {
		summary[r] = StabilitySummary{Rule: e.rules[r], Area: map[string]OptFloat{}, SubsetRho: map[string]OptFloat{}, VsAll: map[string]OptFloat{},
			ParetoChecked: pareto[r].Checked, ParetoViolate: pareto[r].Violations}
		for _, p := range e.res.Perturbations {
			if p != PerturbSubsetPairs {
				summary[r].Area[p] = OptFloat(math.NaN())
			}
		}
		for _, s := range e.opts.SubsetSizes {
			summary[r].SubsetRho[fmt.Sprint(s)] = OptFloat(math.NaN())
			summary[r].VsAll[fmt.Sprint(s)] = OptFloat(math.NaN())
		}
	}
	return summary
}

// curve is the curve of plan p for its k-th rule (r in e.rules): the mean
// and spread of ρ at each point, with warnings for the matrices where the
// rule failed or ρ is undefined.
func (e *stabEngine) curve(p *stabPlan, k, r int) StabilityCurve {
	c := StabilityCurve{Perturbation: p.name, Rule: e.rules[r]}
	undefined, failed, total := 0, 0, 0
	var firstErr error
	for pt, jobs := range p.jobs {
		var xs []float64
		pnt := StabilityPoint{Size: p.sizes[pt], Exhaustive: p.exhaustive[pt]}
		for _, j := range jobs {
			o := &e.out[j]
			total++
			if o.failed[k] != nil {
				failed++
				if firstErr == nil {
					firstErr = o.failed[k]
				}
			}
			if math.IsNaN(o.rho[k]) {
				pnt.Undefined++
				continue
			}
			xs = append(xs, o.rho[k])
		}
		pnt.Count = len(xs)
		pnt.Mean, pnt.SD = OptFloat(math.NaN()), OptFloat(math.NaN())
		if len(xs) > 0 {
			pnt.Mean = OptFloat(stat.Mean(xs, nil))
		}
		if len(xs) > 1 {
			pnt.SD = OptFloat(stat.StdDev(xs, nil))
		}
		undefined += pnt.Undefined
		c.Points = append(c.Points, pnt)
	}
	if failed > 0 {
		e.res.Warnf("`%s`, `%s`: the rule could not be computed on %d of %d perturbed matrices (first: %v); those are left out", p.name, e.rules[r], failed, total, firstErr)
	}
	if undefined-failed > 0 {
		empty := 0
		for _, pt := range c.Points {
			if pt.Count == 0 {
				empty++
			}
		}
		also := ""
		if empty > 0 && p.name != PerturbSubsetPairs {
			also = fmt.Sprintf("; at %d of %d sizes no ρ is defined at all, so `%s_area` covers only the other sizes", empty, len(c.Points), p.name)
		}
		e.res.Warnf("`%s`, `%s`: ρ is undefined for %d of %d perturbed matrices (a constant score vector), left out of the means and counted as Undefined%s", p.name, e.rules[r], undefined-failed, total, also)
	}
	return c
}

// summarise puts curve c of plan p into its rule's summary: the area
// under it, or the subset ρ per size, and the ρ against all datasets.
func (e *stabEngine) summarise(sum *StabilitySummary, p *stabPlan, c StabilityCurve) {
	if p.name == PerturbSubsetPairs {
		for _, pt := range c.Points {
			sum.SubsetRho[fmt.Sprint(pt.Size)] = pt.Mean
		}
	} else {
		sum.Area[p.name] = OptFloat(stabCurveArea(c.Points))
	}
	if p.name == PerturbDropDatasets {
		for _, s := range e.opts.SubsetSizes {
			for _, pt := range c.Points {
				if pt.Size == float64(e.nd-s) {
					sum.VsAll[fmt.Sprint(s)] = pt.Mean
				}
			}
		}
	}
}

func (e *stabEngine) hasPlan(name string) bool {
	for _, p := range e.plans {
		if p.name == name {
			return true
		}
	}
	return false
}

// curveArea is the trapezoid area under the finite points of a curve
// divided by the x range they span (the curve's mean height); a lone
// point is its own value; NaN when no point is finite.
func stabCurveArea(pts []StabilityPoint) float64 {
	var xs, ys []float64
	for _, p := range pts {
		if analyses.Finite(float64(p.Mean)) {
			xs = append(xs, p.Size)
			ys = append(ys, float64(p.Mean))
		}
	}
	switch len(xs) {
	case 0:
		return math.NaN()
	case 1:
		return ys[0]
	}
	var a float64
	for i := 1; i < len(xs); i++ {
		a += (xs[i] - xs[i-1]) * (ys[i] + ys[i-1]) / 2
	}
	return a / (xs[len(xs)-1] - xs[0])
}
