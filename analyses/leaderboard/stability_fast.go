package leaderboard

// The stability analysis scores every rule on tens of thousands of
// perturbed views of one matrix. The rules themselves, and the work they
// share on one matrix, are aggregate.go's Scorer; this file only reuses
// work done once on the full matrix across the views derived from it: a
// row's ranks, best value and Dolan–Moré grid places do not change when
// other rows are left out, nor does a pair's comparison when other methods
// are, so drop_datasets, drop_methods, subset_pairs and the extra column of
// similar_method only gather or sum them. TestStabilityFastScoresIdentical
// checks every view against RuleScores, bit for bit.

import (
	"math/bits"

	"github.com/evalbook/evalbook/analyses"
)

// stabView tells the scorer how its matrix derives from the full one, so
// that work done once on the full matrix (stabCache) can be reused.
type stabView struct {
	cache *stabCache // nil: nothing to reuse
	rows  []int      // the matrix's rows are these distinct rows of the full matrix (nil: all)
	cols  []int      // its first columns are these columns (nil: all)
	extra bool       // it has one more, last, column that the full matrix lacks
}

// stabCache is the full matrix's Scorer with every shared part computed
// (it is only read afterwards, by concurrent workers), and who beats whom
// on which rows as bit sets.
type stabCache struct {
	full  *Scorer
	dm    *dmIndex // nil when the DM rules fail on the full matrix
	words int
	gt    []uint64 // (a·nm + b)·words + w: bit d set when a is strictly better than b on row d
}

// newStabCache computes the shared parts of the full matrix's Scorer.
// Who beats whom (the Scorer's wins and the bit sets) costs memory and
// time with the square of the methods and serves only Copeland and
// Minimax: without majority rules it is left out.
func newStabCache(q analyses.Matrix, higher bool, betaMax float64, majority bool) *stabCache {
	s := NewScorer(q, higher)
	nd, nm := len(q), len(q[0])
	c := &stabCache{full: s, words: (nd + 63) / 64}
	s.Ranks()
	s.rowBests()
	c.dm, _ = s.dmIndex(betaMax)
	if !majority {
		return c
	}
	s.Wins()
	c.gt = make([]uint64, nm*nm*c.words)
	for d, row := range q {
		for a := 0; a < nm; a++ {
			for b := 0; b < nm; b++ {
				if analyses.Better(row[a], row[b], higher) {
					c.gt[(a*nm+b)*c.words+d/64] |= 1 << (d % 64)
				}
			}
		}
	}
	return c
}

// stabilityScores returns the scores of each rule on q (nil and an error
// where the rule cannot be computed), identical to RuleScores.
func stabilityScores(rules []string, q analyses.Matrix, higher bool, betaMax float64, v stabView) ([][]float64, []error) {
	return v.scorer(q, higher).ScoreAll(rules, betaMax)
}

// scorer returns a Scorer of q with the parts that v lets it take from the
// full matrix filled in.
func (v stabView) scorer(q analyses.Matrix, higher bool) *Scorer {
	s := NewScorer(q, higher)
	c := v.cache
	if c == nil || c.full.higher != higher {
		return s
	}
	f := c.full
	switch {
	case v.cols == nil && !v.extra:
		if v.rows == nil {
			s.ranks, s.wins, s.dmBest, s.dm = f.ranks, f.wins, f.dmBest, c.dm
			return s
		}
		s.ranks = make([][]float64, len(v.rows))
		for i, d := range v.rows {
			s.ranks[i] = f.ranks[d]
		}
		if c.gt != nil {
			s.wins = c.rowWins(v.rows)
		}
		if c.dm != nil {
			s.dm = c.dm.rows(v.rows, len(q[0]))
		}
	case c.gt == nil:
		// no majority rule: nothing of the pairs to reuse
	case v.rows == nil && !v.extra:
		s.wins = make([][]int, len(v.cols))
		for i, a := range v.cols {
			s.wins[i] = make([]int, len(v.cols))
			for j, b := range v.cols {
				s.wins[i][j] = f.wins[a][b]
			}
		}
	case v.rows == nil && v.cols == nil:
		s.wins = c.extraWins(q)
	}
	return s
}

// rows restricts the grid places to the given rows of the matrix.
func (x *dmIndex) rows(rows []int, nm int) *dmIndex {
	r := &dmIndex{betaMax: x.betaMax, grid: x.grid, best: make([]float64, len(rows)), idx: make([]int, len(rows)*nm)}
	if x.nan != nil {
		r.nan = make([]bool, len(rows))
	}
	for i, d := range rows {
		r.best[i] = x.best[d]
		if x.nan != nil {
			r.nan[i] = x.nan[d]
		}
		copy(r.idx[i*nm:(i+1)*nm], x.idx[d*nm:(d+1)*nm])
	}
	return r
}

// rowWins sums the bit sets over the given rows.
func (c *stabCache) rowWins(rows []int) [][]int {
	mask := make([]uint64, c.words)
	for _, d := range rows {
		mask[d/64] |= 1 << (d % 64)
	}
	nm := len(c.full.q[0])
	flat := make([]int, nm*nm)
	w := make([][]int, nm)
	for a := range w {
		w[a] = flat[a*nm : (a+1)*nm]
		for b := 0; b < nm; b++ {
			set := c.gt[(a*nm+b)*c.words : (a*nm+b+1)*c.words]
			n := 0
			for i, x := range set {
				n += bits.OnesCount64(x & mask[i])
			}
			w[a][b] = n
		}
	}
	return w
}

// extraWins extends the full matrix's wins by q's last column.
func (c *stabCache) extraWins(q analyses.Matrix) [][]int {
	f := c.full
	nm := len(f.q[0])
	w := make([][]int, nm+1)
	for a := range w {
		w[a] = make([]int, nm+1)
		if a < nm {
			copy(w[a], f.wins[a])
		}
	}
	for _, row := range q {
		x := row[nm]
		for b := 0; b < nm; b++ {
			if y := row[b]; analyses.Better(x, y, f.higher) {
				w[nm][b]++
			} else if analyses.Better(y, x, f.higher) {
				w[b][nm]++
			}
		}
	}
	return w
}
