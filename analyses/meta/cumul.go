package meta

// Cumulative meta-analysis: metafor's cumul() (Lau et al. 1992), the
// model refitted as the studies are added one at a time in a given
// order.

import (
	"fmt"
	"math"
	"sort"
)

// CumulStep is the model fitted to the first K studies of the order;
// Study is the row (0-based, in the input) added at this step.
type CumulStep struct {
	Study, K            int
	Est, SE, Stat, P    float64
	CILow, CIHigh       float64
	Q, Qp, Tau2, I2, H2 float64
	Warnings            []string
}

// Cumulative is metafor's cumul(rma(yi, vi, method, test), order =
// by[, decreasing]): the studies are sorted by the column by (stably:
// ties keep the input order; nil keeps the input order), and for i = 1 … k
// the intercept-only model is fitted to the first i of them with o
// (a single study as metafor fits one: τ² = 0 and the z-test). A value of
// by that is not a number is refused, naming the row.
func Cumulative(yi, vi, by []float64, decreasing bool, o RegOptions) ([]CumulStep, error) {
	if err := checkYV(yi, vi); err != nil {
		return nil, err
	}
	k := len(yi)
	if k == 0 {
		return nil, fmt.Errorf("no studies")
	}
	ord := make([]int, k)
	for i := range ord {
		ord[i] = i
	}
	if by != nil {
		if len(by) != k {
			return nil, fmt.Errorf("the order has %d values for %d studies", len(by), k)
		}
		for i, x := range by {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, rowErr(i, "order value %v is not a number", x)
			}
		}
		sort.SliceStable(ord, func(a, b int) bool {
			if decreasing {
				return by[ord[a]] > by[ord[b]]
			}
			return by[ord[a]] < by[ord[b]]
		})
	}
	steps := make([]CumulStep, k)
	y := make([]float64, 0, k)
	v := make([]float64, 0, k)
	for i, s := range ord {
		y, v = append(y, yi[s]), append(v, vi[s])
		d, _ := NewDesign(i+1, nil)
		r, err := MetaRegression(y, v, d, o)
		if err != nil {
			return nil, fmt.Errorf("the first %d studies: %w", i+1, err)
		}
		c := r.Coefs[0]
		steps[i] = CumulStep{Study: s, K: i + 1, Est: c.Est, SE: c.SE, Stat: c.Stat, P: c.P, CILow: c.CILow, CIHigh: c.CIHigh,
			Q: r.QE, Qp: r.QEp, Tau2: r.Tau2, I2: r.I2, H2: r.H2, Warnings: r.Warnings}
	}
	return steps, nil
}
