package meta

import "math"

// Why this file exists: a meta-regression on a single numeric moderator
// is drawn as metafor's regplot() draws it, a bubble plot: each dataset's
// effect against its moderator value, its point growing with its weight,
// and the fitted line with its confidence band (predict() over the
// moderator's range). The numbers are computed here; figures draws them.

// BubbleSteps is the number of points of the fitted line and its band,
// evenly spaced over the moderator's range (R's seq(min, max, length.out
// = BubbleSteps)).
const BubbleSteps = 50

// Bubble is what the bubble plot draws.
type Bubble struct {
	Moderator string
	Points    []BubblePoint
	Line      []BubbleFit
}

// BubblePoint is one dataset: its moderator value, effect and weight in
// the meta-regression (1/(vᵢ + τ²) as a fraction of their sum).
type BubblePoint struct {
	Dataset       string
	X, Y, Weight  float64
	SE            float64
	CILow, CIHigh float64 // the dataset's own interval
}

// BubbleFit is the fitted value at X with its confidence interval, as
// predict(rma(…), newmods = X): b₀ + b₁X ± crit·√(x'Vx), crit the z or
// t(k − p) quantile of the test.
type BubbleFit struct {
	X, Pred, CILow, CIHigh float64
}

// newBubble is the bubble plot of the meta-regression reg on the single
// numeric moderator m of the included rows idx.
func newBubble(res *Result, idx []int, m Moderator, reg *Regression) *Bubble {
	b := &Bubble{Moderator: m.Name}
	var sw float64
	for _, i := range idx {
		sw += 1 / (res.Rows[i].Variance + reg.Tau2)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for j, i := range idx {
		row := res.Rows[i]
		x := m.Numeric[j]
		lo, hi = math.Min(lo, x), math.Max(hi, x)
		b.Points = append(b.Points, BubblePoint{Dataset: row.Dataset, X: x, Y: row.Effect, SE: row.SE, CILow: row.CILow, CIHigh: row.CIHigh,
			Weight: 1 / (row.Variance + reg.Tau2) / sw})
	}
	for s := 0; s < BubbleSteps; s++ {
		x := lo + float64(s)*(hi-lo)/float64(BubbleSteps-1)
		if s == BubbleSteps-1 {
			x = hi
		}
		b.Line = append(b.Line, reg.predict1(x))
	}
	return b
}

// predict1 is the fitted value of a model with one moderator at x and its
// confidence interval.
func (r *Regression) predict1(x float64) BubbleFit {
	pred := r.Coefs[0].Est + r.Coefs[1].Est*x
	v := r.vb[0][0] + 2*x*r.vb[0][1] + x*x*r.vb[1][1]
	se := math.Sqrt(math.Max(v, 0))
	return BubbleFit{X: x, Pred: pred, CILow: pred - r.crit*se, CIHigh: pred + r.crit*se}
}
