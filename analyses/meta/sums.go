package meta

import "math"

// PairedSums are a dataset's sufficient statistics for a paired
// meta-analysis, as an engine computes them in one pass of sums (see
// report/engine): over the N complete pairs, the sums of x − ShiftT,
// y − ShiftC and d − ShiftD (x treatment, y control, d = x − y), of their
// squares and of the cross products. The shifts (any values near the
// means) keep Σx² − (Σx)²/n from cancelling when the values sit far from
// zero relative to their spread.
type PairedSums struct {
	N                          int
	ShiftT, ShiftC, ShiftD     float64
	SumT, SumC, SumD           float64
	SumTT, SumCC, SumTC, SumDD float64
	// Counts reported with the study.
	TreatmentValues, ControlValues       int
	UnmatchedTreatment, UnmatchedControl int
	DroppedMissing                       int
}

// Study returns the dataset's paired study: the same quantities
// Builder.Finish computes from the per-unit values (means, sample sds of
// each side and of the differences, Pearson's r, clamped to [−1, 1], NaN
// when a side has no spread).
func (p PairedSums) Study(dataset string) Study {
	s := Study{Dataset: dataset, N: p.N, MeanDiff: math.NaN(), SDDiff: math.NaN(), R: math.NaN(),
		MeanT: math.NaN(), MeanC: math.NaN(), SDT: math.NaN(), SDC: math.NaN(),
		TreatmentValues: p.TreatmentValues, ControlValues: p.ControlValues,
		UnmatchedTreatment: p.UnmatchedTreatment, UnmatchedControl: p.UnmatchedControl,
		DroppedMissing: p.DroppedMissing, FromUnits: true}
	if p.N < 1 {
		return s
	}
	n := float64(p.N)
	s.MeanT, s.MeanC = p.ShiftT+p.SumT/n, p.ShiftC+p.SumC/n
	s.MeanDiff = p.ShiftD + p.SumD/n
	if p.N < 2 {
		return s
	}
	m2 := func(sum, sq float64) float64 { return math.Max(0, sq-sum*sum/n) }
	m2T, m2C, m2D := m2(p.SumT, p.SumTT), m2(p.SumC, p.SumCC), m2(p.SumD, p.SumDD)
	s.SDDiff = math.Sqrt(m2D / (n - 1))
	s.SDT, s.SDC = math.Sqrt(m2T/(n-1)), math.Sqrt(m2C/(n-1))
	if m2T > 0 && m2C > 0 {
		co := p.SumTC - p.SumT*p.SumC/n
		s.R = math.Max(-1, math.Min(1, co/math.Sqrt(m2T*m2C)))
	}
	return s
}

// GroupSums are one side's sufficient statistics for an independent-groups
// meta-analysis: Values seen, N used, and the sums of v − Shift and of its
// square over them.
type GroupSums struct {
	Values, N      int
	Shift, Sum, SS float64
}

// TwoGroupStudy returns the dataset's two-group study from each side's
// sums (what Groups.Finish computes from the values); dropped counts the
// values left out for being missing.
func TwoGroupStudy(dataset string, t, c GroupSums, dropped int) Study {
	s := Study{Dataset: dataset, Form: TwoGroup, N1: t.N, N2: c.N,
		M1: math.NaN(), M2: math.NaN(), SD1: math.NaN(), SD2: math.NaN(),
		MeanDiff: math.NaN(), SDDiff: math.NaN(), R: math.NaN(), MeanT: math.NaN(), MeanC: math.NaN(), SDT: math.NaN(), SDC: math.NaN(),
		TreatmentValues: t.Values, ControlValues: c.Values, DroppedMissing: dropped, FromUnits: true}
	mean := func(g GroupSums) float64 { return g.Shift + g.Sum/float64(g.N) }
	sd := func(g GroupSums) float64 {
		n := float64(g.N)
		return math.Sqrt(math.Max(0, g.SS-g.Sum*g.Sum/n) / (n - 1))
	}
	if t.N >= 1 {
		s.M1 = mean(t)
	}
	if c.N >= 1 {
		s.M2 = mean(c)
	}
	if t.N >= 2 {
		s.SD1 = sd(t)
	}
	if c.N >= 2 {
		s.SD2 = sd(c)
	}
	return s
}
