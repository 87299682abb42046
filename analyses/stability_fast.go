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
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// stabView tells the scorer how its matrix derives from the full one, so
// that work done once on the full matrix (stabCache) can be reused.
type stabView struct {
	cache *stabCache // nil: nothing to reuse
	rows  []int      // the matrix's rows are these rows of the full matrix (nil: all)
	cols  []int      // its first columns are these columns (nil: all)
	extra bool       // it has one more, last, column that the full matrix lacks
}

// stabCache holds what the rules need of each row of the full matrix:
// per-row ranks, who beats whom on which rows (bit sets), and each cell's
// Dolan–Moré grid index at β̂ = beta_max. A row's values do not change when
// other rows are left out, nor does a pair's comparison when other methods
// are, so drop_datasets, drop_methods and subset_pairs only sum them.
type stabCache struct {
	q       Matrix
	higher  bool
	fast    bool // every value finite and ≥ 0 (else RuleScores is used)
	betaMax float64
	grid    stabilityGrid
	ranks   [][]float64
	words   int
	gt      []uint64 // (a·nm + b)·words + w: bit d set when a is strictly better than b on row d
	wins    [][]int
	idx     []int     // d·nm + m: first grid index admitting the ratio; len(grid) when none
	best    []float64 // best value of each row
}

func newStabCache(q Matrix, higher bool, betaMax float64) *stabCache {
	c := &stabCache{q: q, higher: higher, betaMax: betaMax, fast: stabilityFastOK(q)}
	if !c.fast {
		return c
	}
	nd, nm := len(q), len(q[0])
	c.ranks = stabilityRanks(q, higher)
	c.words = (nd + 63) / 64
	c.gt = make([]uint64, nm*nm*c.words)
	c.wins = stabilityWins(q, higher)
	for d, row := range q {
		for a := 0; a < nm; a++ {
			for b := 0; b < nm; b++ {
				if (higher && row[a] > row[b]) || (!higher && row[a] < row[b]) {
					c.gt[(a*nm+b)*c.words+d/64] |= 1 << (d % 64)
				}
			}
		}
	}
	c.grid = newStabilityGrid(betaMax)
	c.idx = make([]int, nd*nm)
	c.best = make([]float64, nd)
	for d, row := range q {
		best := row[0]
		for _, v := range row {
			if (higher && v > best) || (!higher && v < best) {
				best = v
			}
		}
		c.best[d] = best
		for m, v := range row {
			c.idx[d*nm+m] = c.grid.index(v, best, higher)
		}
	}
	return c
}

func stabilityFastOK(q Matrix) bool {
	for _, row := range q {
		for _, v := range row {
			if !(v >= 0) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// stabilityScores returns the scores of each rule on q (nil and an error
// where the rule cannot be computed), identical to RuleScores.
func stabilityScores(rules []string, q Matrix, higher bool, betaMax float64, v stabView) ([][]float64, []error) {
	out := make([][]float64, len(rules))
	errs := make([]error, len(rules))
	fast := stabilityFastOK(q)
	c := v.cache
	usable := fast && c != nil && c.fast && c.higher == higher
	rowsOnly := usable && v.cols == nil && !v.extra
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
				if rowsOnly {
					ranks = c.rowRanks(v.rows)
				} else {
					ranks = stabilityRanks(q, higher)
				}
			}
			out[k] = stabilityRankRule(rule, ranks)
		case RuleCopeland, RuleMinimax:
			if wins == nil {
				switch {
				case rowsOnly:
					wins = c.rowWins(v.rows)
				case usable && v.rows == nil && v.cols != nil && !v.extra:
					wins = c.colWins(v.cols)
				case usable && v.rows == nil && v.cols == nil && v.extra:
					wins = c.extraWins(q)
				default:
					wins = stabilityWins(q, higher)
				}
			}
			out[k] = stabilityMajority(rule, wins)
		case RuleDMAUC:
			if rowsOnly && betaMax == c.betaMax {
				out[k] = c.rowDMAUC(v.rows)
			} else {
				out[k] = stabilityDMAUC(q, higher, betaMax)
			}
		case RuleDMLBO:
			if rowsOnly && betaMax == c.betaMax {
				out[k] = stabilityDMLBO(q, higher, betaMax, c, v.rows)
			} else {
				out[k] = stabilityDMLBO(q, higher, betaMax, nil, nil)
			}
		default:
			out[k], errs[k] = RuleScores(rule, q, higher, betaMax)
		}
	}
	return out, errs
}

func (c *stabCache) rowRanks(rows []int) [][]float64 {
	if rows == nil {
		return c.ranks
	}
	r := make([][]float64, len(rows))
	for i, d := range rows {
		r[i] = c.ranks[d]
	}
	return r
}

func (c *stabCache) rowWins(rows []int) [][]int {
	if rows == nil {
		return c.wins
	}
	mask := make([]uint64, c.words)
	for _, d := range rows {
		mask[d/64] |= 1 << (d % 64)
	}
	nm := len(c.q[0])
	flat := make([]int, nm*nm)
	w := make([][]int, nm)
	for a := range w {
		w[a] = flat[a*nm : (a+1)*nm]
		for b := 0; b < nm; b++ {
			bits := c.gt[(a*nm+b)*c.words : (a*nm+b+1)*c.words]
			n := 0
			for i, x := range bits {
				n += stabOnes(x & mask[i])
			}
			w[a][b] = n
		}
	}
	return w
}

func (c *stabCache) colWins(cols []int) [][]int {
	w := make([][]int, len(cols))
	for i, a := range cols {
		w[i] = make([]int, len(cols))
		for j, b := range cols {
			w[i][j] = c.wins[a][b]
		}
	}
	return w
}

// extraWins extends the full matrix's wins by q's last column.
func (c *stabCache) extraWins(q Matrix) [][]int {
	nm := len(c.q[0])
	w := make([][]int, nm+1)
	for a := range w {
		w[a] = make([]int, nm+1)
		if a < nm {
			copy(w[a], c.wins[a])
		}
	}
	for _, row := range q {
		x := row[nm]
		for b := 0; b < nm; b++ {
			y := row[b]
			if (c.higher && x > y) || (!c.higher && x < y) {
				w[nm][b]++
			} else if (c.higher && y > x) || (!c.higher && y < x) {
				w[b][nm]++
			}
		}
	}
	return w
}

func (c *stabCache) rowDMAUC(rows []int) []float64 {
	if rows == nil {
		rows = stabIdentity(len(c.q))
	}
	nm, nb := len(c.q[0]), len(c.grid.beta)
	counts := make([]int, nm*nb)
	for _, d := range rows {
		for m := 0; m < nm; m++ {
			if i := c.idx[d*nm+m]; i < nb {
				counts[m*nb+i]++
			}
		}
	}
	area := make([]float64, nm)
	for m := range area {
		area[m] = c.grid.area(counts[m*nb:(m+1)*nb], len(rows))
	}
	return stabilityNormalise(area)
}

// stabilityRanks is perDatasetRanks of aggregate.go (RankBest of each row:
// 1 = best, ties get the average rank) with a typed sort.
func stabilityRanks(q Matrix, higher bool) [][]float64 {
	nm := len(q[0])
	flat := make([]float64, len(q)*nm)
	out := make([][]float64, len(q))
	idx := make([]int, nm)
	for d, row := range q {
		for i := range idx {
			idx[i] = i
		}
		if higher {
			slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(row[b], row[a]) })
		} else {
			slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(row[a], row[b]) })
		}
		r := flat[d*nm : (d+1)*nm]
		for i := 0; i < nm; {
			j := i + 1
			for j < nm && row[idx[j]] == row[idx[i]] {
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

func stabOnes(x uint64) int { return bits.OnesCount64(x) }

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
		best := row[0]
		for _, v := range row {
			if v < best {
				best = v
			}
		}
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

// index returns the first grid index whose threshold admits the ratio of
// v to the best value (as DolanMore forms it), len(beta) when none does.
func (g stabilityGrid) index(v, best float64, higher bool) int {
	var r float64
	switch {
	case v == best:
		r = 1 // also covers 0/0 when every method scores 0
	case higher:
		r = best / v // +Inf when v = 0
	default:
		r = v / best // +Inf when best = 0 < v
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

// area is DolanMore's trapezoid area from the number of datasets first
// admitted at each grid point, summed in the same order.
func (g stabilityGrid) area(counts []int, nd int) float64 {
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

func stabilityNormalise(area []float64) []float64 {
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

// stabilityDMAUC is RuleScores(dm_auc): areas normalised to sum to 1.
func stabilityDMAUC(q Matrix, higher bool, betaMax float64) []float64 {
	g := newStabilityGrid(betaMax)
	nm, nb := len(q[0]), len(g.beta)
	counts := make([]int, nm*nb)
	for _, row := range q {
		best := row[0]
		for _, v := range row {
			if (higher && v > best) || (!higher && v < best) {
				best = v
			}
		}
		for m, v := range row {
			if i := g.index(v, best, higher); i < nb {
				counts[m*nb+i]++
			}
		}
	}
	area := make([]float64, nm)
	for m := range area {
		area[m] = g.area(counts[m*nb:(m+1)*nb], len(q))
	}
	return stabilityNormalise(area)
}

// stabilityDMLBO is dmLeaveBestOut of aggregate.go, computed
// incrementally: a method's ratio on a dataset depends only on its value
// and the best value among the remaining methods, so after removing the
// winners only the datasets whose best value changed are recounted. The
// counts are integers, and the areas are summed from them as DolanMore
// sums them, so the ranks are identical.
//
// When c is not nil, q is c's full matrix restricted to rows (nil: all)
// and betaMax is c's: the starting grid indices are then c's.
func stabilityDMLBO(q Matrix, higher bool, betaMax float64, c *stabCache, rows []int) []float64 {
	var g stabilityGrid
	if c != nil {
		g = c.grid
	} else {
		g = newStabilityGrid(betaMax)
	}
	nd, nm, nb := len(q), len(q[0]), len(g.beta)
	alive := make([]bool, nm)
	for m := range alive {
		alive[m] = true
	}
	best := make([]float64, nd)
	idx := make([]int, nd*nm)    // grid index of (d, m); nb = never within the grid
	counts := make([]int, nm*nb) // per method, datasets first admitted at each β
	better := func(v, b float64) bool { return (higher && v > b) || (!higher && v < b) }
	recount := func(d int) {
		row := q[d]
		for m := 0; m < nm; m++ {
			if !alive[m] {
				continue
			}
			if old := idx[d*nm+m]; old < nb {
				counts[m*nb+old]--
			}
			i := g.index(row[m], best[d], higher)
			idx[d*nm+m] = i
			if i < nb {
				counts[m*nb+i]++
			}
		}
	}
	for d, row := range q {
		if c != nil {
			src := d
			if rows != nil {
				src = rows[d]
			}
			best[d] = c.best[src]
			copy(idx[d*nm:(d+1)*nm], c.idx[src*nm:(src+1)*nm])
			for m, i := range idx[d*nm : (d+1)*nm] {
				if i < nb {
					counts[m*nb+i]++
				}
			}
			continue
		}
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
			a := g.area(counts[m*nb:(m+1)*nb], nd)
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
