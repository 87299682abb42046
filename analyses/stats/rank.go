package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// RankData returns the ranks of x, 1 = smallest, ties getting the average
// rank (scipy.stats.rankdata, method "average"). NaN values get NaN.
func RankData(x []float64) []float64 {
	idx := make([]int, 0, len(x))
	for i, v := range x {
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	// Equal values share one average rank, so their order after the sort
	// does not matter: an unstable sort gives the same ranks.
	// (No NaN is left, so < and > order them: cmp.Compare's NaN checks
	// would cost a quarter of the ranking.)
	slices.SortFunc(idx, func(a, b int) int {
		switch u, v := x[a], x[b]; {
		case u < v:
			return -1
		case u > v:
			return 1
		}
		return 0
	})
	r := make([]float64, len(x))
	for i := range r {
		r[i] = math.NaN()
	}
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && x[idx[j]] == x[idx[i]] {
			j++
		}
		avg := float64(i+j+1) / 2 // ranks i+1 … j
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		i = j
	}
	return r
}

// RankBest ranks scores so that 1 = best: the largest value when
// higherBetter, the smallest otherwise. Ties get the average rank.
func RankBest(x []float64, higherBetter bool) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		if higherBetter {
			y[i] = -v
		} else {
			y[i] = v
		}
	}
	return RankData(y)
}

// Spearman returns Spearman's rank correlation of x and y (Pearson's r of
// their average ranks, as scipy.stats.spearmanr). It is NaN when either
// side is constant or fewer than two pairs are given.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("stats: Spearman length mismatch")
	}
	return Pearson(RankData(x), RankData(y))
}

// Pearson returns Pearson's correlation of x and y; NaN when undefined.
func Pearson(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("stats: Pearson length mismatch")
	}
	if len(x) < 2 {
		return math.NaN()
	}
	mx, my := stat.Mean(x, nil), stat.Mean(y, nil)
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	r := sxy / math.Sqrt(sxx*syy)
	return math.Max(-1, math.Min(1, r))
}

// KendallTauB returns Kendall's tau-b of x and y, as
// scipy.stats.kendalltau(x, y) (variant "b"): (C − D) divided by
// sqrt(n0 − n1)·sqrt(n0 − n2), where n0 = n(n−1)/2 and n1, n2 count the
// pairs tied in x and in y. It is NaN with fewer than two pairs or when
// either side is constant. The count is exact (integers); O(n²), which is
// fine for the dozens of methods it is meant for.
func KendallTauB(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("stats: KendallTauB length mismatch")
	}
	n := len(x)
	if n < 2 {
		return math.NaN()
	}
	var cmd, xtie, ytie int64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			dx, dy := sign3(x[j]-x[i]), sign3(y[j]-y[i])
			if dx == 0 {
				xtie++
			}
			if dy == 0 {
				ytie++
			}
			cmd += int64(dx * dy)
		}
	}
	tot := int64(n) * int64(n-1) / 2
	if xtie == tot || ytie == tot {
		return math.NaN()
	}
	// Same operation order as scipy: con_minus_dis / sqrt(tot-xtie) / sqrt(tot-ytie).
	tau := float64(cmd) / math.Sqrt(float64(tot-xtie)) / math.Sqrt(float64(tot-ytie))
	return math.Max(-1, math.Min(1, tau))
}

func sign3(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// Quantile is numpy's default (linear) quantile of sorted x.
func Quantile(x []float64, p float64) float64 {
	h := p * float64(len(x)-1)
	lo := int(math.Floor(h))
	if lo >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[lo] + (h-float64(lo))*(x[lo+1]-x[lo])
}
