package stats

import (
	"math"
	"slices"
	"sort"
)

// miTree is a static 2-d tree over points (x, y) for the k-nearest-
// neighbour distance in the max norm, as scikit-learn's KDTree answers it
// for mutual_info_regression. Each node splits its points at the median
// of its wider side; a leaf holds at most miLeaf points. A query visits
// the nearer child first and skips a node whose box is at least the k-th
// smallest distance found so far away: about log n nodes per query on any
// data, where walking outward along one variable visited √(kn) points on
// continuous data and up to n on tied data.
type miTree struct {
	xs, ys []float64 // the points, by input index
	id     []int     // input indices in tree order: a node holds id[lo:hi]
	nodes  []miNode
}

// miNode is one node: its points id[lo:hi], its children (left < 0 for a
// leaf) and the bounding box of its points.
type miNode struct {
	lo, hi, left, right    int
	minX, maxX, minY, maxY float64
}

const miLeaf = 8

// newMiTree builds the tree over (xs[i], ys[i]).
func newMiTree(xs, ys []float64) *miTree {
	t := &miTree{xs: xs, ys: ys, id: make([]int, len(xs))}
	for i := range t.id {
		t.id[i] = i
	}
	t.nodes = make([]miNode, 0, 2*len(xs)/miLeaf+2)
	t.build(0, len(xs))
	return t
}

// build adds the node over id[lo:hi] and its subtree; it returns the
// node's index.
func (t *miTree) build(lo, hi int) int {
	nd := miNode{lo: lo, hi: hi, left: -1, right: -1, minX: math.Inf(1), maxX: math.Inf(-1), minY: math.Inf(1), maxY: math.Inf(-1)}
	for _, i := range t.id[lo:hi] {
		nd.minX, nd.maxX = math.Min(nd.minX, t.xs[i]), math.Max(nd.maxX, t.xs[i])
		nd.minY, nd.maxY = math.Min(nd.minY, t.ys[i]), math.Max(nd.maxY, t.ys[i])
	}
	at := len(t.nodes)
	t.nodes = append(t.nodes, nd)
	if hi-lo <= miLeaf {
		return at
	}
	key := t.xs
	if nd.maxY-nd.minY > nd.maxX-nd.minX {
		key = t.ys
	}
	slices.SortFunc(t.id[lo:hi], func(a, b int) int {
		if c := cmpFloat(key[a], key[b]); c != 0 {
			return c
		}
		return a - b
	})
	mid := (lo + hi) / 2
	left := t.build(lo, mid)
	right := t.build(mid, hi)
	t.nodes[at].left, t.nodes[at].right = left, right
	return at
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// gap is the max-norm distance from (x, y) to the node's box: no point of
// the node is nearer. Rounding is monotonic, so each point's computed
// distance |x − x_j| is at least the computed gap too.
func (nd *miNode) gap(x, y float64) float64 {
	var dx, dy float64
	if x < nd.minX {
		dx = nd.minX - x
	} else if x > nd.maxX {
		dx = x - nd.maxX
	}
	if y < nd.minY {
		dy = nd.minY - y
	} else if y > nd.maxY {
		dy = y - nd.maxY
	}
	return math.Max(dx, dy)
}

// kth returns the distance (max norm) from point i to its k-th nearest
// other point, k = len(kth), and how many distances it computed. The
// distances are computed as the scan of every point computes them and
// ε is the k-th smallest of them whatever order they are met in, so it
// is the same bit for bit.
func (t *miTree) kth(i int, kth []float64) (float64, int) {
	q := miQuery{t: t, i: i, x: t.xs[i], y: t.ys[i], kth: kth}
	q.visit(0)
	return kth[len(kth)-1], q.visited
}

// miQuery is one k-nearest-neighbour search in progress: m distances of
// the k smallest found so far, ascending in kth[:m].
type miQuery struct {
	t          *miTree
	i          int
	x, y       float64
	kth        []float64
	m, visited int
}

func (q *miQuery) visit(n int) {
	nd := &q.t.nodes[n]
	if q.m == len(q.kth) && nd.gap(q.x, q.y) >= q.kth[q.m-1] {
		return // only a strictly smaller distance changes the k smallest
	}
	if nd.left < 0 {
		for _, j := range q.t.id[nd.lo:nd.hi] {
			if j != q.i {
				q.visited++
				q.add(math.Max(math.Abs(q.x-q.t.xs[j]), math.Abs(q.y-q.t.ys[j])))
			}
		}
		return
	}
	a, b := nd.left, nd.right
	if q.t.nodes[b].gap(q.x, q.y) < q.t.nodes[a].gap(q.x, q.y) {
		a, b = b, a
	}
	q.visit(a)
	q.visit(b)
}

// add keeps d if it is among the k smallest distances so far.
func (q *miQuery) add(d float64) {
	k := len(q.kth)
	if q.m < k {
		q.kth[q.m] = d
		q.m++
	} else if d < q.kth[k-1] {
		q.kth[k-1] = d
	} else {
		return
	}
	for p := min(q.m, k) - 1; p > 0 && q.kth[p] < q.kth[p-1]; p-- {
		q.kth[p], q.kth[p-1] = q.kth[p-1], q.kth[p]
	}
}

// miWithin counts the values v of sorted s with |v − c| ≤ r, computing
// the distance exactly as the KD-tree does (|v − c|, not c ± r bounds,
// which round differently). Rounding is monotonic, so the values within r
// are one run of s, found by two binary searches.
func miWithin(s []float64, c, r float64) int {
	p := sort.SearchFloat64s(s, c) // s[:p] < c ≤ s[p:]
	lo := sort.Search(p, func(j int) bool { return c-s[j] <= r })
	hi := p + sort.Search(len(s)-p, func(j int) bool { return s[p+j]-c > r })
	return hi - lo
}
