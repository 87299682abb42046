package stats

// Numerics behind the clusters and dataset_selection analyses (Shevchenko
// et al. 2024, §4.4 and Appendix C): z-scores, PCA, an Isolation Forest,
// k-means++, silhouette, Davies–Bouldin, the adjusted Rand index and greedy
// D-/A-optimal designs. They are written to agree with scikit-learn 1.2
// where scikit-learn is deterministic (PCA, silhouette, Davies–Bouldin,
// ARI) and to follow its algorithm where it is randomised (k-means++,
// Isolation Forest), because Shevchenko et al. ran scikit-learn and readers
// compare against it. The fixtures in testdata/oracle/clusters are the
// proof.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/evalbook/evalbook/analyses/internal/parallel"

	"gonum.org/v1/gonum/mat"
)

// ClustersZScore standardises the columns of x in place of a copy: mean 0
// and population sd 1 (sklearn.preprocessing.StandardScaler). A constant
// column has sd 0; like StandardScaler it is left centred (all zeros) and
// its index is returned in constant.
func ClustersZScore(x [][]float64) (z [][]float64, constant []int) {
	n := len(x)
	if n == 0 {
		return nil, nil
	}
	p := len(x[0])
	z = make([][]float64, n)
	for i := range z {
		z[i] = make([]float64, p)
	}
	for j := 0; j < p; j++ {
		var mean float64
		for i := 0; i < n; i++ {
			mean += x[i][j]
		}
		mean /= float64(n)
		var ss float64
		for i := 0; i < n; i++ {
			d := x[i][j] - mean
			ss += d * d
		}
		sd := math.Sqrt(ss / float64(n))
		if sd == 0 {
			constant = append(constant, j)
			sd = 1
		}
		for i := 0; i < n; i++ {
			z[i][j] = (x[i][j] - mean) / sd
		}
	}
	return z, constant
}

// PCAFit is a principal component analysis with the conventions of
// sklearn.decomposition.PCA (svd_solver "full"): the data are centred,
// the thin SVD X = U S Vᵀ gives the components (rows of Vᵀ) and scores
// U S; the explained variance is S²/(n−1) and its ratio is taken over all
// min(n, p) components. Signs follow sklearn's svd_flip (u-based): each
// component is oriented so that the score with the largest absolute value
// is positive, so scores and loadings match scikit-learn's, not only up
// to sign.
type PCAFit struct {
	Mean                   []float64   // per feature
	Components             [][]float64 // [component][feature]
	ExplainedVariance      []float64   // per kept component
	ExplainedVarianceRatio []float64
	Scores                 [][]float64 // [row][component]
}

// PCA fits k components to x (n rows × p features). It needs 1 ≤ k ≤
// min(n, p).
func PCA(x [][]float64, k int) (*PCAFit, error) {
	n := len(x)
	if n < 2 {
		return nil, fmt.Errorf("pca needs at least 2 rows, have %d", n)
	}
	p := len(x[0])
	if k < 1 || k > min(n, p) {
		return nil, fmt.Errorf("pca: %d components asked for, but %d rows × %d features allow 1 to %d", k, n, p, min(n, p))
	}
	mean := make([]float64, p)
	for _, r := range x {
		for j, v := range r {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	a := mat.NewDense(n, p, nil)
	for i, r := range x {
		for j, v := range r {
			a.Set(i, j, v-mean[j])
		}
	}
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		return nil, fmt.Errorf("pca: the singular value decomposition did not converge")
	}
	s := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	fit := &PCAFit{Mean: mean}
	var total float64
	for _, sv := range s {
		total += sv * sv / float64(n-1)
	}
	fit.Scores = make([][]float64, n)
	for i := range fit.Scores {
		fit.Scores[i] = make([]float64, k)
	}
	for c := 0; c < k; c++ {
		// svd_flip, u-based: the largest |u| of the column (first on ties) is positive.
		best, arg := -1.0, 0
		for i := 0; i < n; i++ {
			if av := math.Abs(u.At(i, c)); av > best {
				best, arg = av, i
			}
		}
		sign := 1.0
		if u.At(arg, c) < 0 {
			sign = -1
		}
		comp := make([]float64, p)
		for j := 0; j < p; j++ {
			comp[j] = sign * v.At(j, c)
		}
		fit.Components = append(fit.Components, comp)
		ev := s[c] * s[c] / float64(n-1)
		fit.ExplainedVariance = append(fit.ExplainedVariance, ev)
		ratio := 0.0
		if total > 0 {
			ratio = ev / total
		}
		fit.ExplainedVarianceRatio = append(fit.ExplainedVarianceRatio, ratio)
		for i := 0; i < n; i++ {
			fit.Scores[i][c] = sign * u.At(i, c) * s[c]
		}
	}
	return fit, nil
}

// SqDist returns the squared Euclidean distance.
func SqDist(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

// KMeansFit is the outcome of k-means.
type KMeansFit struct {
	Labels     []int
	Centers    [][]float64
	Inertia    float64 // sum of squared distances to the assigned centre
	Iterations int     // of the best initialisation
}

// KMeans clusters x into k groups with Lloyd's algorithm from nInit
// k-means++ starts, keeping the start with the lowest inertia
// (sklearn.cluster.KMeans, algorithm "lloyd"). The seeding is scikit-
// learn's greedy k-means++ (2 + ⌊ln k⌋ candidate centres per step, the one
// that lowers the potential most is kept). Lloyd's iterations run until
// the labels no longer change or maxIter is reached (no early stop on a
// centre-shift tolerance), then Hartigan's single-point moves refine the
// solution, so a start never ends above the inertia Lloyd's iterations
// reach from it. An empty cluster is given the
// point farthest from its centre, as scikit-learn does. Each start draws
// from its own stream rand.NewPCG(seed, start), so the result depends on
// the seed only.
func KMeans(x [][]float64, k, nInit, maxIter int, seed uint64) (*KMeansFit, error) {
	n := len(x)
	if k < 1 || k > n {
		return nil, fmt.Errorf("k-means: k = %d needs 1 ≤ k ≤ %d (the number of points)", k, n)
	}
	if nInit < 1 {
		nInit = 1
	}
	if maxIter < 1 {
		maxIter = 1
	}
	var best *KMeansFit
	for s := 0; s < nInit; s++ {
		rng := rand.New(rand.NewPCG(seed, uint64(s)))
		f := lloyd(x, kmeansPlusPlus(x, k, rng), maxIter)
		if best == nil || f.Inertia < best.Inertia {
			best = f
		}
	}
	return best, nil
}

// kmeansPlusPlus is scikit-learn's _kmeans_plusplus (greedy variant).
func kmeansPlusPlus(x [][]float64, k int, rng *rand.Rand) [][]float64 {
	n := len(x)
	trials := 2 + int(math.Log(float64(k)))
	centers := make([][]float64, 0, k)
	first := rng.IntN(n)
	centers = append(centers, append([]float64(nil), x[first]...))
	closest := make([]float64, n)
	var pot float64
	for i := range x {
		closest[i] = SqDist(x[i], x[first])
		pot += closest[i]
	}
	cum := make([]float64, n)
	cand := make([]float64, n)
	bestD := make([]float64, n)
	for c := 1; c < k; c++ {
		var acc float64
		for i, d := range closest {
			acc += d
			cum[i] = acc
		}
		bestPot, bestID := math.Inf(1), -1
		for t := 0; t < trials; t++ {
			r := rng.Float64() * pot
			id := sort.SearchFloat64s(cum, r) // first index with cum ≥ r (numpy searchsorted, side left)
			if id > n-1 {
				id = n - 1
			}
			var cp float64
			for i := range x {
				cand[i] = math.Min(closest[i], SqDist(x[i], x[id]))
				cp += cand[i]
			}
			if cp < bestPot {
				bestPot, bestID = cp, id
				copy(bestD, cand)
			}
		}
		centers = append(centers, append([]float64(nil), x[bestID]...))
		pot = bestPot
		copy(closest, bestD)
	}
	return centers
}

// lloyd runs Lloyd's iterations from the given centres.
func lloyd(x [][]float64, centers [][]float64, maxIter int) *KMeansFit {
	n, k := len(x), len(centers)
	p := len(x[0])
	labels := make([]int, n)
	for i := range labels {
		labels[i] = -1
	}
	assign := func() bool {
		changed := false
		for i, r := range x {
			bl, bd := 0, math.Inf(1)
			for c, ctr := range centers {
				if d := SqDist(r, ctr); d < bd {
					bl, bd = c, d
				}
			}
			if labels[i] != bl {
				labels[i] = bl
				changed = true
			}
		}
		return changed
	}
	it := 0
	for it < maxIter {
		it++
		if !assign() && it > 1 {
			break
		}
		counts := make([]int, k)
		sums := make([][]float64, k)
		for c := range sums {
			sums[c] = make([]float64, p)
		}
		for i, r := range x {
			counts[labels[i]]++
			for j, v := range r {
				sums[labels[i]][j] += v
			}
		}
		relocateEmpty(x, labels, centers, counts, sums)
		for c := range centers {
			for j := range centers[c] {
				centers[c][j] = sums[c][j] / float64(counts[c])
			}
		}
	}
	assign()
	hartigan(x, labels, centers)
	var inertia float64
	for i, r := range x {
		inertia += SqDist(r, centers[labels[i]])
	}
	return &KMeansFit{Labels: labels, Centers: centers, Inertia: inertia, Iterations: it}
}

// hartigan refines a Lloyd solution by single-point moves (Hartigan &
// Wong 1979): x leaves cluster A for B when nB/(nB+1)·|x−cB|² <
// nA/(nA−1)·|x−cA|², which lowers the inertia by the difference. A
// solution no move improves is also Lloyd-stable (every point is nearest
// its own centre), and it is often a better local optimum: this is what
// lets a start end below scikit-learn's Lloyd-only result. Centres are
// recomputed as exact means at the end.
func hartigan(x [][]float64, labels []int, centers [][]float64) {
	k, p := len(centers), len(x[0])
	counts := make([]int, k)
	for _, l := range labels {
		counts[l]++
	}
	for c := range centers {
		if counts[c] == 0 {
			return // cannot happen after relocation; keep Lloyd's answer
		}
	}
	for pass := 0; pass < 100; pass++ {
		moved := false
		for i, r := range x {
			a := labels[i]
			if counts[a] == 1 {
				continue
			}
			na := float64(counts[a])
			remove := na / (na - 1) * SqDist(r, centers[a])
			best, bestCost := -1, remove
			for b := range centers {
				if b == a {
					continue
				}
				nb := float64(counts[b])
				if cost := nb / (nb + 1) * SqDist(r, centers[b]); cost < bestCost*(1-1e-12) {
					best, bestCost = b, cost
				}
			}
			if best < 0 {
				continue
			}
			nb := float64(counts[best])
			for j := 0; j < p; j++ {
				centers[a][j] = (centers[a][j]*na - r[j]) / (na - 1)
				centers[best][j] = (centers[best][j]*nb + r[j]) / (nb + 1)
			}
			counts[a]--
			counts[best]++
			labels[i] = best
			moved = true
		}
		if !moved {
			break
		}
	}
	for c := range centers {
		for j := range centers[c] {
			centers[c][j] = 0
		}
	}
	for i, r := range x {
		for j, v := range r {
			centers[labels[i]][j] += v
		}
	}
	for c := range centers {
		for j := range centers[c] {
			centers[c][j] /= float64(counts[c])
		}
	}
}

// relocateEmpty gives each empty cluster the point farthest from its
// current centre (scikit-learn's _relocate_empty_clusters).
func relocateEmpty(x [][]float64, labels []int, centers [][]float64, counts []int, sums [][]float64) {
	var empty []int
	for c, m := range counts {
		if m == 0 {
			empty = append(empty, c)
		}
	}
	if len(empty) == 0 {
		return
	}
	order := make([]int, len(x))
	dist := make([]float64, len(x))
	for i, r := range x {
		order[i] = i
		dist[i] = SqDist(r, centers[labels[i]])
	}
	sort.SliceStable(order, func(a, b int) bool { return dist[order[a]] > dist[order[b]] })
	next := 0
	for _, c := range empty {
		for next < len(order) && counts[labels[order[next]]] <= 1 {
			next++
		}
		if next == len(order) {
			return
		}
		i := order[next]
		next++
		old := labels[i]
		counts[old]--
		for j, v := range x[i] {
			sums[old][j] -= v
			sums[c][j] = v
		}
		counts[c] = 1
		labels[i] = c
	}
}

// Silhouette returns the mean silhouette coefficient of a labelling
// (sklearn.metrics.silhouette_score, Euclidean): s = (b − a)/max(a, b)
// per point, 0 for a point alone in its cluster. It needs 2 ≤ number of
// labels ≤ n − 1.
func Silhouette(x [][]float64, labels []int) (float64, error) {
	n := len(x)
	k := labelCount(labels)
	if k < 2 || k > n-1 {
		return math.NaN(), fmt.Errorf("the silhouette needs between 2 and n − 1 = %d clusters, have %d", n-1, k)
	}
	size := make([]int, maxLabel(labels)+1)
	for _, l := range labels {
		size[l]++
	}
	var total float64
	sumTo := make([]float64, len(size))
	for i := range x {
		for c := range sumTo {
			sumTo[c] = 0
		}
		for j := range x {
			if i != j {
				sumTo[labels[j]] += math.Sqrt(SqDist(x[i], x[j]))
			}
		}
		own := labels[i]
		if size[own] == 1 {
			continue // s = 0
		}
		a := sumTo[own] / float64(size[own]-1)
		b := math.Inf(1)
		for c, m := range size {
			if c != own && m > 0 {
				b = math.Min(b, sumTo[c]/float64(m))
			}
		}
		if m := math.Max(a, b); m > 0 {
			total += (b - a) / m
		}
	}
	return total / float64(n), nil
}

// DaviesBouldin returns the Davies–Bouldin index of a labelling
// (sklearn.metrics.davies_bouldin_score): the mean over clusters of the
// largest (sᵢ + sⱼ)/dᵢⱼ, sᵢ the mean distance of cluster i's points to its
// centroid and dᵢⱼ the distance between centroids. Lower is better. It
// needs 2 ≤ number of labels ≤ n − 1.
func DaviesBouldin(x [][]float64, labels []int) (float64, error) {
	n := len(x)
	k := labelCount(labels)
	if k < 2 || k > n-1 {
		return math.NaN(), fmt.Errorf("the Davies–Bouldin index needs between 2 and n − 1 = %d clusters, have %d", n-1, k)
	}
	ids := compactLabels(labels)
	p := len(x[0])
	cent := make([][]float64, k)
	cnt := make([]int, k)
	for c := range cent {
		cent[c] = make([]float64, p)
	}
	for i, r := range x {
		cnt[ids[i]]++
		for j, v := range r {
			cent[ids[i]][j] += v
		}
	}
	for c := range cent {
		for j := range cent[c] {
			cent[c][j] /= float64(cnt[c])
		}
	}
	intra := make([]float64, k)
	for i, r := range x {
		intra[ids[i]] += math.Sqrt(SqDist(r, cent[ids[i]]))
	}
	allIntraZero, allCentZero := true, true
	for c := range intra {
		intra[c] /= float64(cnt[c])
		if math.Abs(intra[c]) > 1e-15 {
			allIntraZero = false
		}
	}
	d := make([][]float64, k)
	for a := range d {
		d[a] = make([]float64, k)
		for b := range d[a] {
			d[a][b] = math.Sqrt(SqDist(cent[a], cent[b]))
			if math.Abs(d[a][b]) > 1e-15 {
				allCentZero = false
			}
		}
	}
	if allIntraZero || allCentZero {
		return 0, nil
	}
	var total float64
	for a := 0; a < k; a++ {
		worst := 0.0
		for b := 0; b < k; b++ {
			if a == b || d[a][b] == 0 {
				continue // scikit-learn sets a zero distance to ∞, so the ratio is 0
			}
			worst = math.Max(worst, (intra[a]+intra[b])/d[a][b])
		}
		total += worst
	}
	return total / float64(k), nil
}

// AdjustedRandIndex compares two labellings of the same points
// (sklearn.metrics.adjusted_rand_score): 1 for the same partition, about
// 0 for independent ones.
func AdjustedRandIndex(a, b []int) float64 {
	if len(a) != len(b) {
		panic("stats: AdjustedRandIndex length mismatch")
	}
	n := len(a)
	ia, ib := compactLabels(a), compactLabels(b)
	ka, kb := labelCount(a), labelCount(b)
	cont := make([][]float64, ka)
	for i := range cont {
		cont[i] = make([]float64, kb)
	}
	for i := 0; i < n; i++ {
		cont[ia[i]][ib[i]]++
	}
	// Pair confusion matrix, as scikit-learn 1.2.
	var sumSq float64
	rows := make([]float64, ka)
	cols := make([]float64, kb)
	for i := range cont {
		for j, v := range cont[i] {
			sumSq += v * v
			rows[i] += v
			cols[j] += v
		}
	}
	var sr, sc float64
	for _, v := range rows {
		sr += v * v
	}
	for _, v := range cols {
		sc += v * v
	}
	nn := float64(n)
	tp := sumSq - nn
	fp := sr - sumSq // pairs together in a, apart in b (up to naming; ARI is symmetric)
	fn := sc - sumSq
	tn := nn*nn - fp - fn - sumSq
	if fn == 0 && fp == 0 {
		return 1
	}
	return 2 * (tp*tn - fn*fp) / ((tp+fn)*(fn+tn) + (tp+fp)*(fp+tn))
}

func labelCount(labels []int) int {
	seen := map[int]bool{}
	for _, l := range labels {
		seen[l] = true
	}
	return len(seen)
}

func maxLabel(labels []int) int {
	m := 0
	for _, l := range labels {
		m = max(m, l)
	}
	return m
}

// compactLabels renumbers labels 0…k−1 in sorted order of the originals.
func compactLabels(labels []int) []int {
	uniq := map[int]bool{}
	for _, l := range labels {
		uniq[l] = true
	}
	keys := make([]int, 0, len(uniq))
	for l := range uniq {
		keys = append(keys, l)
	}
	sort.Ints(keys)
	id := map[int]int{}
	for i, l := range keys {
		id[l] = i
	}
	out := make([]int, len(labels))
	for i, l := range labels {
		out[i] = id[l]
	}
	return out
}

// isoAveragePath is c(n), the average path length of an unsuccessful
// search in a binary search tree of n points (Liu et al. 2008, eq. 1; as
// scikit-learn's _average_path_length).
func isoAveragePath(n int) float64 {
	switch {
	case n <= 1:
		return 0
	case n == 2:
		return 1
	}
	f := float64(n)
	return 2*(math.Log(f-1)+0.5772156649015329) - 2*(f-1)/f
}

type isoNode struct {
	feature     int // −1 for a leaf
	split       float64
	left, right int
	size        int // training points that reached a leaf
}

// IsolationForest returns the anomaly score s(x) = 2^(−E[h(x)]/c(ψ)) of
// every row of x (Liu, Ting & Zhou 2008), computed from `trees` isolation
// trees, each grown on ψ = min(256, n) rows drawn without replacement, to
// the height limit ⌈log₂ ψ⌉, splitting on a feature drawn among those not
// constant in the node at a threshold uniform between its minimum and
// maximum there (scikit-learn's IsolationForest with max_features = 1.0).
// With contamination "auto" a row is an outlier when s > 0.5. Tree t
// draws from rand.NewPCG(seed, t), and trees are summed in their order,
// so the scores depend on the seed only, not on jobs (the number of
// goroutines used).
func IsolationForest(x [][]float64, trees int, seed uint64, jobs int) ([]float64, error) {
	n := len(x)
	if n == 0 {
		return nil, nil
	}
	psi := min(256, n)
	limit := int(math.Ceil(math.Log2(float64(max(psi, 2)))))
	paths := make([][]float64, trees) // paths[t][i]
	err := parallel.For(trees, jobs, func(t int) {
		rng := rand.New(rand.NewPCG(seed, uint64(t)))
		sample := rng.Perm(n)[:psi]
		nodes := growIsoTree(x, sample, limit, rng)
		h := make([]float64, n)
		for i, r := range x {
			h[i] = isoPath(nodes, r)
		}
		paths[t] = h
	})
	if err != nil {
		return nil, err
	}
	cpsi := isoAveragePath(psi)
	scores := make([]float64, n)
	for i := range scores {
		var s float64
		for t := 0; t < trees; t++ {
			s += paths[t][i]
		}
		if cpsi == 0 {
			scores[i] = 0.5 // one point: nothing to isolate it from
			continue
		}
		scores[i] = math.Pow(2, -s/float64(trees)/cpsi)
	}
	return scores, nil
}

func growIsoTree(x [][]float64, idx []int, limit int, rng *rand.Rand) []isoNode {
	var nodes []isoNode
	p := len(x[0])
	var grow func(idx []int, depth int) int
	grow = func(idx []int, depth int) int {
		id := len(nodes)
		nodes = append(nodes, isoNode{feature: -1, size: len(idx)})
		if depth >= limit || len(idx) <= 1 {
			return id
		}
		var usable []int
		lo := make([]float64, p)
		hi := make([]float64, p)
		for j := 0; j < p; j++ {
			lo[j], hi[j] = math.Inf(1), math.Inf(-1)
			for _, i := range idx {
				lo[j] = math.Min(lo[j], x[i][j])
				hi[j] = math.Max(hi[j], x[i][j])
			}
			if hi[j] > lo[j] {
				usable = append(usable, j)
			}
		}
		if len(usable) == 0 {
			return id
		}
		f := usable[rng.IntN(len(usable))]
		split := lo[f] + rng.Float64()*(hi[f]-lo[f])
		if split >= hi[f] {
			split = lo[f]
		}
		var l, r []int
		for _, i := range idx {
			if x[i][f] <= split {
				l = append(l, i)
			} else {
				r = append(r, i)
			}
		}
		li := grow(l, depth+1)
		ri := grow(r, depth+1)
		nodes[id].feature, nodes[id].split, nodes[id].left, nodes[id].right = f, split, li, ri
		return id
	}
	grow(idx, 0)
	return nodes
}

// isoPath is h(x): the depth of the leaf x falls in, plus c(size) for the
// points the height limit left unseparated there.
func isoPath(nodes []isoNode, r []float64) float64 {
	id, depth := 0, 0
	for nodes[id].feature >= 0 {
		if r[nodes[id].feature] <= nodes[id].split {
			id = nodes[id].left
		} else {
			id = nodes[id].right
		}
		depth++
	}
	return float64(depth) + isoAveragePath(nodes[id].size)
}

// Design criteria of the greedy selections (Shevchenko et al. 2024, App. C).
const (
	DesignD = "d_optimal" // maximise det(XᵀX + εI)
	DesignA = "a_optimal" // minimise tr((XᵀX + εI)⁻¹)
)

// GreedyDesign grows the subset start of the rows of x (n × p) to size
// rows, each step adding the row that best improves the criterion of the
// rows chosen so far: for D-optimality the largest det(XₛᵀXₛ + εI), for
// A-optimality the smallest tr((XₛᵀXₛ + εI)⁻¹). By the matrix
// determinant lemma and Sherman–Morrison, with A = XₛᵀXₛ + εI, adding x
// multiplies the determinant by 1 + xᵀA⁻¹x and lowers the trace by
// xᵀA⁻²x / (1 + xᵀA⁻¹x), so those are the gains compared; A⁻¹ is
// recomputed by Cholesky at every step. Ties go to the lower row index.
// It returns the chosen rows in order of choice (start first).
func GreedyDesign(x [][]float64, start []int, size int, criterion string, eps float64) ([]int, error) {
	n := len(x)
	if size > n {
		return nil, fmt.Errorf("cannot choose %d of %d rows", size, n)
	}
	if eps <= 0 {
		return nil, fmt.Errorf("epsilon must be positive, got %g", eps)
	}
	p := len(x[0])
	chosen := append([]int(nil), start...)
	in := make([]bool, n)
	for _, i := range chosen {
		in[i] = true
	}
	a := mat.NewSymDense(p, nil)
	for j := 0; j < p; j++ {
		a.SetSym(j, j, eps)
	}
	add := func(r []float64) {
		xv := mat.NewVecDense(p, append([]float64(nil), r...))
		a.SymRankOne(a, 1, xv)
	}
	for _, i := range chosen {
		add(x[i])
	}
	var chol mat.Cholesky
	var inv mat.SymDense
	v := mat.NewVecDense(p, nil)
	for len(chosen) < size {
		if !chol.Factorize(a) {
			return nil, fmt.Errorf("%s: XᵀX + εI is not positive definite (ε = %g)", criterion, eps)
		}
		if err := chol.InverseTo(&inv); err != nil {
			return nil, fmt.Errorf("%s: %v", criterion, err)
		}
		best, bestGain := -1, math.Inf(-1)
		for i := 0; i < n; i++ {
			if in[i] {
				continue
			}
			xv := mat.NewVecDense(p, x[i])
			v.MulVec(&inv, xv)
			q := mat.Dot(xv, v)
			var gain float64
			switch criterion {
			case DesignD:
				gain = q
			case DesignA:
				gain = mat.Dot(v, v) / (1 + q)
			default:
				panic("stats: unknown design criterion " + criterion)
			}
			if gain > bestGain {
				best, bestGain = i, gain
			}
		}
		chosen = append(chosen, best)
		in[best] = true
		add(x[best])
	}
	return chosen, nil
}
