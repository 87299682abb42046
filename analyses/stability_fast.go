package analyses

// Why this file exists: the stability analysis scores every rule on tens of
// thousands of perturbed matrices, and RuleScores recomputes shared work
// per rule (per-dataset ranks four times, pairwise wins twice) and counts
// Dolan–Moré profiles in O(datasets × β grid) per method, which made a
// 100 × 50 study take minutes. stabilityScores computes the same numbers —
// bit for bit, TestStabilityFastScoresIdentical checks it against
// RuleScores on random matrices with ties and zeros — sharing that work and
// counting profiles by binary search over the β grid. It falls back to
// RuleScores for the means and for any matrix with a negative or
// non-finite value, so every error message stays aggregate.go's.

import (
	"math"
)

// stabilityScores returns the scores of each rule on q (nil and an error
// where the rule cannot be computed), identical to RuleScores.
func stabilityScores(rules []string, q Matrix, higher bool, betaMax float64) ([][]float64, []error) {
	out := make([][]float64, len(rules))
	errs := make([]error, len(rules))
	fast := true
	for _, row := range q {
		for _, v := range row {
			if !(v >= 0) || math.IsInf(v, 0) {
				fast = false
			}
		}
	}
	var ranks [][]float64
	var wins [][]int
	for k, rule := range rules {
		if !fast {
			out[k], errs[k] = RuleScores(rule, q, higher, betaMax)
			continue
		}
		switch rule {
		case RuleMeanRank, RuleBorda, RulePlurality, RuleDowdall:
			if ranks == nil {
				ranks = perDatasetRanks(q, higher)
			}
			out[k] = stabilityRankRule(rule, ranks)
		case RuleCopeland, RuleMinimax:
			if wins == nil {
				wins = stabilityWins(q, higher)
			}
			out[k] = stabilityMajority(rule, wins)
		case RuleDMAUC:
			out[k] = stabilityDMAUC(q, higher, betaMax)
		case RuleDMLBO:
			out[k] = stabilityDMLBO(q, higher, betaMax)
		default:
			out[k], errs[k] = RuleScores(rule, q, higher, betaMax)
		}
	}
	return out, errs
}

// stabilityRankRule is meanRank and positional of aggregate.go, from
// per-dataset ranks computed once, with the same summation order.
func stabilityRankRule(rule string, r [][]float64) []float64 {
	nm := len(r[0])
	out := make([]float64, nm)
	if rule == RuleMeanRank {
		for m := range out {
			var s float64
			for d := range r {
				s += r[d][m]
			}
			out[m] = s / float64(len(r))
		}
		return out
	}
	for _, row := range r {
		best := minOf(row)
		winners := 0
		for _, v := range row {
			if v == best {
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
				if v == best {
					out[m] += 1 / float64(winners)
				}
			}
		}
	}
	return out
}

// stabilityWins is pairwiseWins of aggregate.go (w[a][b] = datasets where
// a is strictly better than b) with each pair compared once per dataset.
func stabilityWins(q Matrix, higher bool) [][]int {
	nm := len(q[0])
	flat := make([]int, nm*nm)
	w := make([][]int, nm)
	for a := range w {
		w[a] = flat[a*nm : (a+1)*nm]
	}
	o := make([]float64, nm)
	for _, row := range q {
		for m, v := range row {
			if higher {
				o[m] = v
			} else {
				o[m] = -v
			}
		}
		for a := 0; a < nm; a++ {
			x := o[a]
			wa := w[a]
			for b := a + 1; b < nm; b++ {
				if y := o[b]; x > y {
					wa[b]++
				} else if y > x {
					w[b][a]++
				}
			}
		}
	}
	return w
}

// stabilityMajority is majority of aggregate.go from shared pairwise wins.
func stabilityMajority(rule string, w [][]int) []float64 {
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

// stabilityGrid is a β grid with the thresholds DolanMore compares
// against (β·(1+1e-12), the same expression).
type stabilityGrid struct {
	beta, thr []float64
}

func newStabilityGrid(betaMax float64) stabilityGrid {
	g := stabilityGrid{beta: BetaGrid(betaMax)}
	g.thr = make([]float64, len(g.beta))
	for i, b := range g.beta {
		g.thr[i] = b * (1 + 1e-12)
	}
	return g
}

// areas returns DolanMore's raw trapezoid area of each method in cols
// (indices into q's columns): ratios against the best of cols, counts
// per β found by binary search (thresholds increase), summed as DolanMore
// sums them.
func (g stabilityGrid) areas(q Matrix, cols []int, higher bool, counts []int, area []float64) {
	nd := len(q)
	nb := len(g.beta)
	for j := range cols {
		c := counts[j*nb : (j+1)*nb]
		for i := range c {
			c[i] = 0
		}
	}
	for _, row := range q {
		best := row[cols[0]]
		for _, m := range cols {
			v := row[m]
			if (higher && v > best) || (!higher && v < best) {
				best = v
			}
		}
		for j, m := range cols {
			v := row[m]
			var r float64
			switch {
			case v == best:
				r = 1
			case higher:
				r = best / v
			default:
				r = v / best
			}
			// first grid index whose threshold admits r
			lo, hi := 0, nb
			for lo < hi {
				mid := (lo + hi) / 2
				if r <= g.thr[mid] {
					hi = mid
				} else {
					lo = mid + 1
				}
			}
			if lo < nb {
				counts[j*nb+lo]++
			}
		}
	}
	for j := range cols {
		c := counts[j*nb : (j+1)*nb]
		cum := 0
		var a, prev float64
		for i := range g.beta {
			cum += c[i]
			rho := float64(cum) / float64(nd)
			if i > 0 {
				a += (g.beta[i] - g.beta[i-1]) * (rho + prev) / 2
			}
			prev = rho
		}
		area[j] = a
	}
}

// stabilityDMAUC is RuleScores(dm_auc): areas normalised to sum to 1.
func stabilityDMAUC(q Matrix, higher bool, betaMax float64) []float64 {
	g := newStabilityGrid(betaMax)
	nm := len(q[0])
	cols := identity(nm)
	area := make([]float64, nm)
	g.areas(q, cols, higher, make([]int, nm*len(g.beta)), area)
	var total float64
	for _, a := range area {
		total += a
	}
	out := make([]float64, nm)
	for m := range out {
		if total > 0 {
			out[m] = area[m] / total
		} else {
			out[m] = 1 / float64(nm)
		}
	}
	return out
}

// stabilityDMLBO is dmLeaveBestOut of aggregate.go, computed
// incrementally: a method's ratio on a dataset depends only on its value
// and the best value among the remaining methods, so after removing the
// winners only the datasets whose best value changed are recounted. The
// counts are integers, and the areas are summed from them as DolanMore
// sums them, so the ranks are identical.
func stabilityDMLBO(q Matrix, higher bool, betaMax float64) []float64 {
	g := newStabilityGrid(betaMax)
	nd, nm, nb := len(q), len(q[0]), len(g.beta)
	alive := make([]bool, nm)
	for m := range alive {
		alive[m] = true
	}
	best := make([]float64, nd)
	idx := make([]int, nd*nm)    // grid index of (d, m); nb = never within the grid
	counts := make([]int, nm*nb) // per method, datasets first admitted at each β
	better := func(v, b float64) bool { return (higher && v > b) || (!higher && v < b) }
	index := func(v, b float64) int {
		var r float64
		switch {
		case v == b:
			r = 1
		case higher:
			r = b / v
		default:
			r = v / b
		}
		lo, hi := 0, nb
		for lo < hi {
			mid := (lo + hi) / 2
			if r <= g.thr[mid] {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return lo
	}
	recount := func(d int) {
		row := q[d]
		for m := 0; m < nm; m++ {
			if !alive[m] {
				continue
			}
			if old := idx[d*nm+m]; old < nb {
				counts[m*nb+old]--
			}
			i := index(row[m], best[d])
			idx[d*nm+m] = i
			if i < nb {
				counts[m*nb+i]++
			}
		}
	}
	for d, row := range q {
		best[d] = row[0]
		for _, v := range row {
			if better(v, best[d]) {
				best[d] = v
			}
		}
		for m := range row {
			idx[d*nm+m] = nb
		}
		recount(d)
	}
	rank := make([]float64, nm)
	area := make([]float64, nm)
	left := nm
	next := 1
	for left > 0 {
		top := math.Inf(-1)
		for m := 0; m < nm; m++ {
			if !alive[m] {
				continue
			}
			cum := 0
			var a, prev float64
			for i := range g.beta {
				cum += counts[m*nb+i]
				rho := float64(cum) / float64(nd)
				if i > 0 {
					a += (g.beta[i] - g.beta[i-1]) * (rho + prev) / 2
				}
				prev = rho
			}
			area[m] = a
			top = math.Max(top, a)
		}
		var winners []int
		for m := 0; m < nm; m++ {
			if alive[m] && area[m] >= top-1e-12*math.Max(1, math.Abs(top)) {
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
			held := false // did a winner hold the best value?
			for _, w := range winners {
				if row[w] == best[d] {
					held = true
				}
			}
			if !held {
				continue
			}
			first := true
			var nb2 float64
			for m := 0; m < nm; m++ {
				if alive[m] && (first || better(row[m], nb2)) {
					nb2, first = row[m], false
				}
			}
			if nb2 != best[d] {
				best[d] = nb2
				recount(d)
			}
		}
	}
	return rank
}
