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

// miWithinScan counts |v − c| ≤ r over every value.
func miWithinScan(s []float64, c, r float64) int {
	n := 0
	for _, v := range s {
		if math.Abs(v-c) <= r {
			n++
		}
	}
	return n
}

// TestMutualInfoKthIdentical: the 2-d tree finds the same k-th
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
			tree := newMiTree(xs, ys)
			sx := slices.Sorted(slices.Values(xs))
			for k := 1; k <= 5 && k < n; k++ {
				a, b := make([]float64, k), make([]float64, k)
				for i := range n {
					got, _ := tree.kth(i, a)
					want := miKthBrute(xs, ys, i, b)
					if math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("%s, n = %d, k = %d, point %d: %v, the scan of every point %v", name, n, k, i, got, want)
					}
					r := math.Nextafter(got, 0)
					if w, s := miWithin(sx, xs[i], r), miWithinScan(sx, xs[i], r); w != s {
						t.Fatalf("%s, n = %d, point %d: %d values within %v, the scan counts %d", name, n, i, w, r, s)
					}
				}
			}
		}
	}
}

// TestMutualInfoKthWork counts the distances the neighbour search
// computes on 10 000 and 100 000 points (k = 3): the scan of every point
// computed n(n − 1); the sorted walk along one variable about n·√(kn) on
// continuous data and n² on a tied one; the 2-d tree a bounded number per
// point (issue 31: the characteristics analysis over 10 000 datasets,
// pooled over 10 methods).
func TestMutualInfoKthWork(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 31))
	for _, n := range []int{10_000, 100_000} {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
			y[i] = x[i] + rng.NormFloat64()
		}
		// A dataset feature pooled over every method: n/10 distinct values
		// (the datasets'), each repeated 10 times, against a continuous
		// metric; and 10 values, each repeated n/10 times.
		pooledX, pooledY, fewX := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range pooledX {
			pooledX[i] = float64(i % (n / 10))
			fewX[i] = float64(i % 10)
			pooledY[i] = rng.Float64()
		}
		for name, xy := range map[string][2][]float64{"continuous": {x, y}, "pooled": {pooledX, pooledY}, "ten values": {fewX, pooledY}} {
			tree := newMiTree(miScale(xy[0]), miScale(xy[1]))
			kth := make([]float64, 3)
			total := 0
			for i := range n {
				_, v := tree.kth(i, kth)
				total += v
			}
			t.Logf("%s, n = %d: %d distances (%.1f per point; the full scan: %d)", name, n, total, float64(total)/float64(n), n*(n-1))
			if limit := 64 * n; total > limit {
				t.Errorf("%s, n = %d: %d distances, above 64 per point", name, n, total)
			}
		}
	}
}
