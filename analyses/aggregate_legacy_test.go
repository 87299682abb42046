package analyses

import (
	"fmt"
	"math"
	"testing"
)

// The rules as aggregate.go computed them before the Scorer (one pass per
// rule, DolanMore recomputed for every leave-best-out step), kept verbatim
// as the oracle of TestScorerMatchesLegacy: the shared, incremental
// computation must give the same bits, errors included. (Copeland and
// Minimax from the wins, and the means, are the same code as before and
// are not copied.)

// xorshift returns a deterministic generator of integers in [0, n).
func xorshift(seed uint64) func(n int) int {
	x := seed
	return func(n int) int {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int(x % uint64(n))
	}
}

// RuleScores computes one rule's score per method on a complete matrix.
// Scores rank as RuleScoreHigherBetter says.
func legacyRuleScores(rule string, q Matrix, higherBetter bool, betaMax float64) ([]float64, error) {
	switch rule {
	case RuleMeanRank:
		return legacyMeanRank(q, higherBetter), nil
	case RuleMean:
		return columnMean(q, func(v float64) float64 { return v }, func(s float64, n int) float64 { return s / float64(n) }), nil
	case RuleGeometricMean:
		return geometricMean(q)
	case RuleHarmonicMean:
		return harmonicMean(q)
	case RuleDMAUC:
		p, err := legacyDolanMore(q, higherBetter, betaMax)
		if err != nil {
			return nil, err
		}
		return p.AUC, nil
	case RuleDMLBO:
		return legacyDmLeaveBestOut(q, higherBetter, betaMax)
	case RuleCopeland, RuleMinimax:
		return majority(rule, legacyPairwiseWins(q, higherBetter)), nil // majority itself is unchanged
	case RuleBorda, RulePlurality, RuleDowdall:
		return legacyPositional(rule, q, higherBetter), nil
	}
	panic("analyses: unknown rule " + rule)
}

// perDatasetRanks returns r[d][m], 1 = best, average ties.
func legacyPerDatasetRanks(q Matrix, higherBetter bool) [][]float64 {
	r := make([][]float64, len(q))
	for d, row := range q {
		r[d] = RankBest(row, higherBetter)
	}
	return r
}

func legacyMeanRank(q Matrix, higherBetter bool) []float64 {
	r := legacyPerDatasetRanks(q, higherBetter)
	return columnMean(r, func(v float64) float64 { return v }, func(s float64, n int) float64 { return s / float64(n) })
}

// DolanMore computes the performance profiles of every method. Ratios are
// r = best/q for higher-is-better metrics and q/best otherwise; r = ∞ when
// the method's value is 0 (or the best is 0 for lower-is-better).
func legacyDolanMore(q Matrix, higherBetter bool, betaMax float64) (*Profile, error) {
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
func legacyDmLeaveBestOut(q Matrix, higherBetter bool, betaMax float64) ([]float64, error) {
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
		p, err := legacyDolanMore(sub, higherBetter, betaMax)
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
func legacyPairwiseWins(q Matrix, higherBetter bool) [][]int {
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

// positional computes Borda Σ(M − rank), Plurality (datasets won, a tie
// for first shared equally) and Dowdall Σ 1/rank.
func legacyPositional(rule string, q Matrix, higherBetter bool) []float64 {
	r := legacyPerDatasetRanks(q, higherBetter)
	nm := len(q[0])
	out := make([]float64, nm)
	for _, row := range r {
		winners := 0
		for _, v := range row {
			if v == legacyMinOf(row) {
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
				if v == legacyMinOf(row) {
					out[m] += 1 / float64(winners)
				}
			}
		}
	}
	return out
}

func legacyMinOf(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = math.Min(m, v)
	}
	return m
}

// TestScorerMatchesLegacy: RuleScores, ScoreAll and DolanMore give exactly
// (==, bit for bit) what the previous implementation gave, with the same
// errors, on random matrices with ties, zeros, −0, ±Inf, NaN and negative
// values, in both metric directions and for β̂ on and off the 0.1 grid.
func TestScorerMatchesLegacy(t *testing.T) {
	t.Parallel()
	next := xorshift(0x9e3779b97f4a7c15)
	odd := []float64{0, math.Copysign(0, -1), 0.1, 0.11, 0.5, 1, 1.1, 3.3, math.Inf(1), math.NaN(), -0.5, math.Inf(-1)}
	same := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
				return false
			}
		}
		return true
	}
	cases := 0
	for it := 0; it < 600; it++ {
		nd, nm := 1+next(10), 2+next(8)
		if it%25 == 4 {
			nd = 70 + next(20)
		}
		q := make(Matrix, nd)
		for d := range q {
			q[d] = make([]float64, nm)
			for m := range q[d] {
				switch {
				case it%4 == 0 && next(5) == 0:
					q[d][m] = odd[next(len(odd))]
				case it%4 == 1 && next(8) == 0:
					q[d][m] = odd[next(9)] // no negatives
				case it%2 == 0:
					q[d][m] = odd[2+next(5)]
				default:
					q[d][m] = float64(1+next(1000)) / 997
				}
			}
		}
		for _, higher := range []bool{true, false} {
			for _, beta := range []float64{1, 1.5, 2.35, 3, 10} {
				all, allErrs := ScoreAll(q, higher, beta, AllRules)
				for k, rule := range AllRules {
					want, werr := legacyRuleScores(rule, q, higher, beta)
					got, err := RuleScores(rule, q, higher, beta)
					for _, g := range []struct {
						s   []float64
						err error
					}{{got, err}, {all[k], allErrs[k]}} {
						if (werr == nil) != (g.err == nil) || (werr != nil && werr.Error() != g.err.Error()) {
							t.Fatalf("%s on %v (higher %v, β̂ %g): error %v, legacy %v", rule, q, higher, beta, g.err, werr)
						}
						if !same(g.s, want) {
							t.Fatalf("%s on %v (higher %v, β̂ %g): %v, legacy %v", rule, q, higher, beta, g.s, want)
						}
					}
					cases++
				}
				want, werr := legacyDolanMore(q, higher, beta)
				got, err := DolanMore(q, higher, beta)
				if (werr == nil) != (err == nil) {
					t.Fatalf("DolanMore on %v: error %v, legacy %v", q, err, werr)
				}
				if err == nil {
					ok := same(got.Beta, want.Beta) && same(got.Area, want.Area) && same(got.AUC, want.AUC) && len(got.Rho) == len(want.Rho)
					for m := range want.Rho {
						ok = ok && same(got.Rho[m], want.Rho[m])
					}
					if !ok {
						t.Fatalf("DolanMore on %v (higher %v, β̂ %g): %+v, legacy %+v", q, higher, beta, got, want)
					}
				}
			}
		}
	}
	t.Logf("%d rule evaluations identical", cases)
}
