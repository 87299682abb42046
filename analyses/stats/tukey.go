package stats

// The studentized range quantile behind the Nemenyi critical difference
// (Demšar 2006, §3.2.2): Demšar tabulates q_α for up to 10 methods; a
// benchmark of 11 to 100 methods needs it computed. With infinite degrees
// of freedom the range of k standard normals has
//
//	P(R ≤ q) = k ∫ φ(z) [Φ(z + q) − Φ(z)]^(k−1) dz,
//
// integrated here by Gauss–Legendre quadrature (gonum/integrate/quad) on
// panels covering |z| ≤ 9 and inverted by the Illinois method on a bracket. The result
// agrees with R's qtukey(1 − α, k, Inf) (fixture from gen.R).

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/integrate/quad"
)

// rangeIntegrand is the integrand of P(R ≤ q) over z, before the factor
// k: φ(z)·(Φ(z + q) − Φ(z))^(k−1).
func rangeIntegrand(q float64, k int) func(float64) float64 {
	km1 := float64(k - 1)
	return func(z float64) float64 {
		var d float64
		if z > 0 { // upper tails keep precision where both Φ are near 1
			d = normSF(z) - normSF(z+q)
		} else {
			d = normSF(-(z + q)) - normSF(-z) // Φ(z + q) − Φ(z)
		}
		if d <= 0 {
			return 0
		}
		return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) * math.Pow(d, km1)
	}
}

// rangeCDF returns P(R ≤ q) for the range R of k independent standard
// normal values.
func rangeCDF(q float64, k int) float64 {
	if q <= 0 {
		return 0
	}
	f := rangeIntegrand(q, k)
	// The integrand lives on [−9 − q, 9]; 32 panels of 24 nodes each.
	lo, hi := -9-q, 9.0
	const panels = 16
	h := (hi - lo) / panels
	var sum float64
	for i := 0; i < panels; i++ {
		a := lo + float64(i)*h
		sum += quad.Fixed(f, a, a+h, 20, quad.Legendre{}, 0)
	}
	return float64(k) * sum
}

// StudentizedRangeQuantile returns q with P(R ≤ q) = p for the range of
// k standard normals (the studentized range with infinite degrees of
// freedom), k ≥ 2 and 0 < p < 1.
func StudentizedRangeQuantile(p float64, k int) (float64, error) {
	key := quantileKey{p, k}
	quantiles.Lock()
	q, ok := quantiles.m[key]
	quantiles.Unlock()
	if ok {
		return q, nil
	}
	q, err := studentizedRangeQuantile(p, k)
	if err == nil {
		quantiles.Lock()
		if quantiles.m == nil {
			quantiles.m = map[quantileKey]float64{}
		}
		if len(quantiles.m) < maxQuantiles {
			quantiles.m[key] = q
		}
		quantiles.Unlock()
	}
	return q, err
}

// quantiles remembers the studentized range quantiles computed: each
// costs a root search over a numerical integral, and a study asks for
// the same few (its α, its number of methods) again and again — the
// Explore page at every change of view. The value remembered is the
// value computed, bit for bit.
var quantiles struct {
	sync.Mutex
	m map[quantileKey]float64
}

type quantileKey struct {
	p float64
	k int
}

// maxQuantiles bounds what quantiles holds; past it, quantiles are
// computed each time.
const maxQuantiles = 1024

func studentizedRangeQuantile(p float64, k int) (float64, error) {
	if k < 2 {
		return math.NaN(), fmt.Errorf("studentized range needs at least 2 groups, got %d", k)
	}
	if !(p > 0 && p < 1) {
		return math.NaN(), fmt.Errorf("studentized range probability must be in (0, 1), got %g", p)
	}
	lo, hi := 0.0, 2.0
	for rangeCDF(hi, k) < p {
		lo, hi = hi, 2*hi
		if hi > 1e3 {
			return math.NaN(), fmt.Errorf("studentized range quantile not bracketed for k = %d, p = %g", k, p)
		}
	}
	return illinois(func(x float64) float64 { return rangeCDF(x, k) - p }, lo, hi, rangeCDF(lo, k)-p, rangeCDF(hi, k)-p), nil
}

// illinois finds the root of the increasing f in [lo, hi] (flo = f(lo)
// < 0 < fhi = f(hi)) by the Illinois regula falsi: superlinear, it never
// leaves the bracket.
func illinois(f func(float64) float64, lo, hi, flo, fhi float64) float64 {
	side := 0
	for i := 0; i < 200 && hi-lo > 1e-13*math.Max(1, hi); i++ {
		x := (lo*fhi - hi*flo) / (fhi - flo)
		if !(x > lo && x < hi) {
			x = (lo + hi) / 2
		}
		fx := f(x)
		switch {
		case fx == 0:
			return x
		case fx < 0:
			lo, flo = x, fx
			if side == -1 {
				fhi /= 2
			}
			side = -1
		default:
			hi, fhi = x, fx
			if side == 1 {
				flo /= 2
			}
			side = 1
		}
		if math.Abs(fx) < 1e-15 {
			return x
		}
	}
	return (lo + hi) / 2
}

// NemenyiQ returns q_α of the Nemenyi test for k methods: the
// studentized range quantile at 1 − α divided by √2 (Demšar 2006, Table
// 5a: q_0.05 = 2.343 for k = 3).
func NemenyiQ(alpha float64, k int) (float64, error) {
	q, err := StudentizedRangeQuantile(1-alpha, k)
	return q / math.Sqrt2, err
}
