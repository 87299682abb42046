package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// miKthBrute is the k-th neighbour distance as MutualInfoKSG computed it
// before the sorted walk: every other point, in index order.
func miKthBrute(xs, ys []float64, i int, kth []float64) float64 {
	k, m := len(kth), 0
	for j := range xs {
		if j == i {
			continue
		}
		d := math.Max(math.Abs(xs[i]-xs[j]), math.Abs(ys[i]-ys[j]))
		if m < k {
			kth[m] = d
			m++
			for p := m - 1; p > 0 && kth[p] < kth[p-1]; p-- {
				kth[p], kth[p-1] = kth[p-1], kth[p]
			}
			continue
		}
		if d < kth[k-1] {
			kth[k-1] = d
			for p := k - 1; p > 0 && kth[p] < kth[p-1]; p-- {
				kth[p], kth[p-1] = kth[p-1], kth[p]
			}
		}
	}
	return kth[k-1]
}

// TestMutualInfoKthIdentical: the sorted walk finds the same k-th
// neighbour distance, bit for bit, as the scan of every point, on
// continuous, tied, constant and correlated seeded data and k = 1 … 5.
func TestMutualInfoKthIdentical(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 7))
	gens := map[string]func(i int) (float64, float64){
		"uniform":    func(int) (float64, float64) { return rng.Float64(), rng.Float64() },
		"ties":       func(int) (float64, float64) { return float64(rng.IntN(5)), float64(rng.IntN(3)) },
		"constant x": func(int) (float64, float64) { return 2, rng.NormFloat64() },
		"correlated": func(i int) (float64, float64) { x := rng.NormFloat64(); return x, x + 0.01*rng.NormFloat64() },
		"spread":     func(i int) (float64, float64) { return math.Exp(10 * rng.NormFloat64()), float64(i) },
	}
	for name, gen := range gens {
		for _, n := range []int{4, 17, 300} {
			x, y := make([]float64, n), make([]float64, n)
			for i := range x {
				x[i], y[i] = gen(i)
			}
			xs, ys := miScale(x), miScale(y)
			// Walking along either variable finds the scan's distance.
			for _, axes := range [][2][]float64{{xs, ys}, {ys, xs}} {
				order, pos := miOrder(axes[0])
				for k := 1; k <= 5 && k < n; k++ {
					a, b := make([]float64, k), make([]float64, k)
					for i := range n {
						got, _ := miKth(axes[0], axes[1], order, pos, i, a)
						want := miKthBrute(xs, ys, i, b)
						if math.Float64bits(got) != math.Float64bits(want) {
							t.Fatalf("%s, n = %d, k = %d, point %d: %v, the scan of every point %v", name, n, k, i, got, want)
						}
					}
				}
			}
		}
	}
}

// TestMutualInfoKthWork counts the distances the neighbour search
// computes on 10 000 continuous points (k = 3): the scan of every point
// computed n(n − 1), about 10⁸; the sorted walk computes about n·√(kn)
// (issue 31: the characteristics analysis over 10 000 datasets).
func TestMutualInfoKthWork(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 31))
	const n = 10000
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
		y[i] = x[i] + rng.NormFloat64()
	}
	// A dataset feature pooled over every method: 10 distinct values
	// (the datasets'), each repeated 1 000 times, against a continuous
	// metric. Walking along the tied feature prunes nothing.
	pooledX, pooledY := make([]float64, n), make([]float64, n)
	for i := range pooledX {
		pooledX[i] = float64(i % 10)
		pooledY[i] = rng.Float64()
	}
	for name, xy := range map[string][2][]float64{"continuous": {x, y}, "pooled": {pooledX, pooledY}} {
		xs, ys := miScale(xy[0]), miScale(xy[1])
		sx, sy := slices.Clone(xs), slices.Clone(ys)
		slices.Sort(sx)
		slices.Sort(sy)
		wa, wb := miWalkAxes(xs, ys, sx, sy)
		order, pos := miOrder(wa)
		kth := make([]float64, 3)
		total := 0
		for i := range n {
			_, v := miKth(wa, wb, order, pos, i, kth)
			total += v
		}
		t.Logf("%s: %d distances for %d points (%.1f per point; the full scan: %d)", name, total, n, float64(total)/n, n*(n-1))
		if limit := 4 * n * int(math.Sqrt(3*n)); total > limit {
			t.Errorf("%s: %d distances for %d points, above 4·n·√(3n) = %d", name, total, n, limit)
		}
	}
}
