package meta

import "math"

// Groups accumulates per-unit values of a treatment and a control
// method as two independent groups per dataset (meta_analysis with
// design = "independent"): each method's values are summarised on their
// own (n, mean, sample sd by a shifted Welford update), nothing is
// paired, and Finish returns two-group studies (TwoGroup), exactly
// what a two-group summary table of the same values would hold. Memory
// is per dataset, not per unit.
type Groups struct {
	sides
	cells datasetCells[groupCell]
}

type groupCell struct {
	seen    [2]int
	n       [2]int
	shift   [2]float64 // first value of each side
	mean    [2]float64 // of value − shift
	m2      [2]float64
	dropped int
}

// NewGroups returns an accumulator for a treatment/control pair;
// missing is "zero" or "drop" (how an empty value, NaN, is treated).
func NewGroups(treatment, control, missing string) *Groups {
	return &Groups{sides: newSides(treatment, control, missing)}
}

// Add records one value; values of other methods are ignored, and the
// unit id and row are not used (the groups are independent).
func (g *Groups) Add(dataset, method, _ string, _ int64, v float64) error {
	side, ok := g.side(method)
	if !ok {
		return nil
	}
	c := g.cells.get(dataset)
	c.seen[side]++
	if math.IsNaN(v) {
		if !g.zero {
			c.dropped++
			return nil
		}
		v = 0
	}
	if c.n[side] == 0 {
		c.shift[side] = v
	}
	x := v - c.shift[side]
	c.n[side]++
	d := x - c.mean[side]
	c.mean[side] += d / float64(c.n[side])
	c.m2[side] += d * (x - c.mean[side])
	return nil
}

// Seen registers a dataset on which some method has values of the
// metric, so that a treatment or control missing there is reported.
func (g *Groups) Seen(dataset string) { g.cells.get(dataset) }

// Finish returns one two-group study per dataset seen, in the order
// first seen (group 1 the treatment).
func (g *Groups) Finish() []Study {
	out := make([]Study, 0, len(g.cells.order))
	for _, d := range g.cells.order {
		c := g.cells.byName[d]
		s := Study{Dataset: d, Form: TwoGroup, N1: c.n[0], N2: c.n[1],
			M1: math.NaN(), M2: math.NaN(), SD1: math.NaN(), SD2: math.NaN(),
			MeanDiff: math.NaN(), SDDiff: math.NaN(), R: math.NaN(), MeanT: math.NaN(), MeanC: math.NaN(), SDT: math.NaN(), SDC: math.NaN(),
			TreatmentValues: c.seen[0], ControlValues: c.seen[1], DroppedMissing: c.dropped, FromUnits: true}
		if c.n[0] >= 1 {
			s.M1 = c.shift[0] + c.mean[0]
		}
		if c.n[1] >= 1 {
			s.M2 = c.shift[1] + c.mean[1]
		}
		if c.n[0] >= 2 {
			s.SD1 = math.Sqrt(c.m2[0] / float64(c.n[0]-1))
		}
		if c.n[1] >= 2 {
			s.SD2 = math.Sqrt(c.m2[1] / float64(c.n[1]-1))
		}
		out = append(out, s)
	}
	return out
}
