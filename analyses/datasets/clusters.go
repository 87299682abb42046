package datasets

// The clusters analysis groups datasets by their characteristics, as
// Shevchenko et al. (2024, §4.4 and Appendix C) do for 30 recommender
// datasets (Table 5, Fig. 8), and shows how the leaderboard changes from
// group to group. Its pipeline is the paper's notebook: StandardScaler →
// PCA → IsolationForest(contamination="auto") → KMeans(k-means++) with k
// chosen by silhouette, then the outliers joined to their nearest centroid.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"

	"github.com/evalbook/evalbook/analyses/stats"
)

// ClustersOptions are the keys of a `clusters` analysis.
type ClustersOptions struct {
	Features   []string `toml:"features"`   // subset of the characteristics; default all
	Datasets   []string `toml:"datasets"`   // subset of datasets; default all with characteristics
	Components int      `toml:"components"` // PCA components; default 3
	Outliers   string   `toml:"outliers"`   // "isolation_forest" (default) or "none"
	Trees      int      `toml:"trees"`      // isolation trees; default 1000
	// Contamination 0 (default) is "auto": an outlier has an anomaly
	// score above 0.5 (Liu et al. 2008). A share in (0, 0.5] flags that
	// share of the datasets instead, as scikit-learn's contamination.
	Contamination float64  `toml:"contamination"`
	KRange        []int    `toml:"k_range"`  // [min, max]; default [2, 8]
	K             int      `toml:"k"`        // fixed number of clusters; 0 = choose by silhouette
	Inits         int      `toml:"inits"`    // k-means++ starts; default 10
	MaxIter       int      `toml:"max_iter"` // Lloyd iterations; default 300
	Metric        string   `toml:"metric"`   // optional: per-cluster leaderboard of this metric
	Methods       []string `toml:"methods"`  // optional subset of methods for the leaderboard
	Compare       string   `toml:"compare"`  // optional dataset attribute to compare clusters with (adjusted Rand index)
	Missing       string   `toml:"missing"`  // "error" (default) or "drop" datasets with a missing feature
	// SilhouetteSample bounds the points of the silhouette, which compares
	// every pair of points: past it the silhouette of each k is computed
	// on one seeded sample of this many datasets (the same for every k),
	// as scikit-learn's silhouette_score(sample_size=…). Default 2000.
	SilhouetteSample int `toml:"silhouette_sample"`
}

// Defaults fills unset options.
func (o *ClustersOptions) Defaults() {
	if o.Components == 0 {
		o.Components = 3
	}
	if o.Outliers == "" {
		o.Outliers = "isolation_forest"
	}
	if o.Trees == 0 {
		o.Trees = 1000
	}
	if len(o.KRange) == 0 {
		o.KRange = []int{2, 8}
	}
	if o.Inits == 0 {
		o.Inits = 10
	}
	if o.MaxIter == 0 {
		o.MaxIter = 300
	}
	if o.Missing == "" {
		o.Missing = "error"
	}
	if o.SilhouetteSample == 0 {
		o.SilhouetteSample = DefaultSilhouetteSample
	}
}

// DefaultSilhouetteSample is the default silhouette_sample: 2 000 points
// are 2 million distances per k.
const DefaultSilhouetteSample = 2000

// Validate checks the options.
func (o *ClustersOptions) Validate() error {
	if err := analyses.CheckInt("silhouette_sample", o.SilhouetteSample, 3, analyses.MaxDatasets); err != nil {
		return err
	}
	if err := analyses.CheckInt("components", o.Components, 1, analyses.MaxComponents); err != nil {
		return err
	}
	if err := analyses.OneOf("outliers", o.Outliers, "isolation_forest", "none"); err != nil {
		return err
	}
	if !(o.Contamination >= 0 && o.Contamination <= 0.5) {
		return analyses.OptionErrorf("contamination", "want 0 (\"auto\": anomaly score > 0.5) or a share in (0, 0.5], got %g", o.Contamination)
	}
	if err := analyses.CheckInt("trees", o.Trees, 1, analyses.MaxTrees); err != nil {
		return err
	}
	if len(o.KRange) != 2 || o.KRange[0] < 2 || o.KRange[1] < o.KRange[0] {
		return analyses.OptionErrorf("k_range", "want [min, max] with 2 ≤ min ≤ max, got %v", o.KRange)
	}
	if err := analyses.CheckInt("k_range", o.KRange[1], 2, analyses.MaxK); err != nil {
		return err
	}
	if o.K < 0 || o.K == 1 {
		return analyses.OptionErrorf("k", "must be at least 2 (or 0 to choose by silhouette), got %d", o.K)
	}
	if err := analyses.CheckInt("k", o.K, 0, analyses.MaxK); err != nil {
		return err
	}
	if err := analyses.CheckInt("inits", o.Inits, 1, analyses.MaxInits); err != nil {
		return err
	}
	if err := analyses.CheckInt("max_iter", o.MaxIter, 1, analyses.MaxIter); err != nil {
		return err
	}
	if err := analyses.OneOf("missing", o.Missing, "error", "drop"); err != nil {
		return err
	}
	return analyses.FirstError(CheckFeatureNames(o.Features), analyses.CheckDistinct("datasets", o.Datasets), analyses.CheckDistinct("methods", o.Methods))
}

// ClustersInput is what the clusters analysis works on.
type ClustersInput struct {
	Datasets []string
	Features []string
	X        [][]float64 // X[d][f]; NaN marks a missing value
	// Optional leaderboard: Q[d][m] of Metric (rows as Datasets; NaN
	// missing).
	Metric  *analyses.Metric
	Methods []string
	Q       analyses.Matrix
	// Optional reference labels (a dataset attribute, "" when absent).
	Reference []string
	Seed      uint64
	Jobs      int
}

// ClustersK is the quality of the clustering of the inliers for one k.
type ClustersK struct {
	K             int      `json:"k"`
	Silhouette    *float64 `json:"silhouette"`
	DaviesBouldin *float64 `json:"davies_bouldin"`
	Inertia       float64  `json:"inertia"`
}

// ClusterBoard is the leaderboard of one cluster.
type ClusterBoard struct {
	Cluster       int        `json:"cluster"`
	Datasets      []string   `json:"datasets"`
	MeanRank      []float64  `json:"mean_rank"`      // per method
	GeometricMean []*float64 `json:"geometric_mean"` // per method; null when undefined
	Rank          []float64  `json:"rank"`           // rank of the mean rank, 1 = best
}

// ClustersResult is the clustering of the datasets.
type ClustersResult struct {
	Datasets               []string       `json:"datasets"`
	Features               []string       `json:"features"`
	ConstantFeatures       []string       `json:"constant_features,omitempty"`
	DroppedDatasets        []string       `json:"dropped_datasets,omitempty"`
	ExplainedVariance      []float64      `json:"explained_variance"`
	ExplainedVarianceRatio []float64      `json:"explained_variance_ratio"`
	Loadings               [][]float64    `json:"loadings"` // [component][feature]
	Scores                 [][]float64    `json:"scores"`   // [dataset][component]
	AnomalyScores          []float64      `json:"anomaly_scores,omitempty"`
	Threshold              float64        `json:"outlier_threshold,omitempty"` // anomaly score above which a dataset is an outlier
	Outlier                []bool         `json:"outlier"`
	Outliers               []string       `json:"outliers"`
	KScan                  []ClustersK    `json:"k_scan"`
	K                      int            `json:"k"`
	KFixed                 bool           `json:"k_fixed"`
	Cluster                []int          `json:"cluster"`         // 1-based, per dataset
	Centroids              [][]float64    `json:"centroids"`       // [cluster−1][component]
	Representatives        []string       `json:"representatives"` // per cluster
	Silhouette             *float64       `json:"silhouette"`
	SilhouetteSample       int            `json:"silhouette_sample,omitempty"` // points of the sampled silhouette; 0: every point
	DaviesBouldin          *float64       `json:"davies_bouldin"`
	Metric                 string         `json:"metric,omitempty"`
	Methods                []string       `json:"methods,omitempty"`
	Leaderboard            []ClusterBoard `json:"leaderboard,omitempty"`
	Compare                string         `json:"compare,omitempty"`
	AdjustedRandIndex      *float64       `json:"adjusted_rand_index,omitempty"`
	// Naming is how the key finding names things, and which methods are
	// baselines (set by the caller; not in JSON).
	Naming analyses.Naming `json:"-"`
	analyses.Warnings
}

// Clusters runs the pipeline (scaling, PCA, Isolation Forest, k-means
// chosen by silhouette, outliers joined to their nearest centroid) on the
// input.
func Clusters(in ClustersInput, opts ClustersOptions) (*ClustersResult, error) {
	opts.Defaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	res := &ClustersResult{Features: in.Features}
	if len(in.Features) == 0 {
		return nil, fmt.Errorf("no dataset features to cluster on")
	}
	x, keep, err := clustersComplete(in, opts, res)
	if err != nil {
		return nil, err
	}
	n := len(x)
	minK := opts.KRange[0]
	if opts.K > 0 {
		minK = opts.K
	}
	if n < minK+1 {
		return nil, fmt.Errorf("%s with features: too few to form %d clusters (need at least %d)", analyses.Count(n, "dataset", "datasets"), minK, minK+1)
	}
	pts, err := clustersProject(in, opts, res, x)
	if err != nil {
		return nil, err
	}
	inliers, err := clustersOutliers(in, opts, res, pts, minK)
	if err != nil {
		return nil, err
	}
	fitPts := make([][]float64, len(inliers))
	for j, i := range inliers {
		fitPts[j] = pts[i]
	}
	fit, err := clustersChooseK(in, opts, res, fitPts, n)
	if err != nil {
		return nil, err
	}
	clustersAssign(res, pts, inliers, fit)
	if in.Metric != nil && len(in.Q) > 0 {
		q := make(analyses.Matrix, n)
		for j, d := range keep {
			q[j] = in.Q[d]
		}
		clustersLeaderboard(res, in, q)
	}
	if len(in.Reference) > 0 {
		clustersCompare(in, opts, res, keep)
	}
	return res, nil
}

// clustersComplete keeps the datasets with every feature: a missing value
// is an error naming the cell, or (missing = "drop") drops the dataset.
// It returns the kept rows and their indices in the input.
func clustersComplete(in ClustersInput, opts ClustersOptions, res *ClustersResult) (x [][]float64, keep []int, err error) {
	for d, row := range in.X {
		miss := ""
		for f, v := range row {
			if !analyses.Finite(v) {
				miss = in.Features[f]
				break
			}
		}
		if miss != "" {
			if opts.Missing != "drop" {
				return nil, nil, fmt.Errorf("dataset %q has no value for feature %q%s", in.Datasets[d], miss, featureDropHint(in.X, in.Features))
			}
			res.DroppedDatasets = append(res.DroppedDatasets, in.Datasets[d])
			continue
		}
		x = append(x, row)
		keep = append(keep, d)
		res.Datasets = append(res.Datasets, in.Datasets[d])
	}
	if len(res.DroppedDatasets) > 0 {
		res.Warnf("%s left out for missing feature values: %s", analyses.Count(len(res.DroppedDatasets), "dataset", "datasets"), strings.Join(res.DroppedDatasets, ", "))
	}
	return x, keep, nil
}

// featureDropHint says what each way out of missing feature values would
// cost: missing = "drop" leaves out every incomplete dataset (suggested
// only while it keeps at least half of them); leaving out the features
// that lack values keeps every dataset.
func featureDropHint(x [][]float64, features []string) string {
	lacks := make([]int, len(features))
	incomplete := 0
	for _, row := range x {
		miss := false
		for f, v := range row {
			if !analyses.Finite(v) {
				lacks[f]++
				miss = true
			}
		}
		if miss {
			incomplete++
		}
	}
	var short, full []string
	for f, n := range lacks {
		if n > 0 {
			short = append(short, fmt.Sprintf("%s lacks %d", features[f], n))
		} else {
			full = append(full, fmt.Sprintf("%q", features[f]))
		}
	}
	total := len(x)
	s := fmt.Sprintf("; %d of %d datasets lack a feature value (%s)", incomplete, total, strings.Join(short, ", "))
	keep := ""
	if len(full) >= 2 {
		keep = fmt.Sprintf("features = [%s]", strings.Join(full, ", "))
	}
	switch {
	case 2*(total-incomplete) >= total && keep != "":
		return s + fmt.Sprintf(": missing = \"drop\" would leave them out and use the other %d, %s would keep every dataset", total-incomplete, keep)
	case 2*(total-incomplete) >= total:
		return s + fmt.Sprintf(": missing = \"drop\" would leave them out and use the other %d", total-incomplete)
	case keep != "":
		return s + fmt.Sprintf(": leave those features out with %s (missing = \"drop\" would keep only %d of %d datasets)", keep, total-incomplete, total)
	}
	return s + fmt.Sprintf(" (missing = \"drop\" would keep only %d of %d datasets)", total-incomplete, total)
}

// clustersProject z-scores the features and returns the datasets' scores
// on the first principal components.
func clustersProject(in ClustersInput, opts ClustersOptions, res *ClustersResult, x [][]float64) ([][]float64, error) {
	n := len(x)
	z, constant := stats.ClustersZScore(x)
	for _, j := range constant {
		res.ConstantFeatures = append(res.ConstantFeatures, in.Features[j])
	}
	if len(constant) > 0 {
		if len(res.ConstantFeatures) == 1 {
			res.Warnf("a feature is constant over the datasets, so it carries no information and is left at 0 after z-scoring: %s", res.ConstantFeatures[0])
		} else {
			res.Warnf("features constant over the datasets carry no information and are left at 0 after z-scoring: %s", strings.Join(res.ConstantFeatures, ", "))
		}
	}
	comps := opts.Components
	if comps > min(n, len(in.Features)) {
		comps = min(n, len(in.Features))
		res.Warnf("components lowered from %d to %d: %d datasets × %d features allow no more", opts.Components, comps, n, len(in.Features))
	}
	pca, err := stats.PCA(z, comps)
	if err != nil {
		return nil, err
	}
	res.ExplainedVariance = pca.ExplainedVariance
	res.ExplainedVarianceRatio = pca.ExplainedVarianceRatio
	res.Loadings = pca.Components
	res.Scores = pca.Scores
	return pca.Scores, nil
}

// clustersOutliers flags outliers with the Isolation Forest (contamination
// "auto": s > 0.5) when asked, and returns the inliers, which the k-means
// fits; every dataset is an inlier without the forest, or when it would
// leave too few to form minK clusters.
func clustersOutliers(in ClustersInput, opts ClustersOptions, res *ClustersResult, pts [][]float64, minK int) ([]int, error) {
	n := len(pts)
	res.Outlier = make([]bool, n)
	var inliers []int
	if opts.Outliers == "isolation_forest" {
		// Stream keys: output 0 of splitmix64(seed) for the forest, output k
		// for k-means with k clusters, so they never share random numbers.
		scores, err := stats.IsolationForest(pts, opts.Trees, stats.SplitMix64(in.Seed, 0), in.Jobs)
		if err != nil {
			return nil, err
		}
		res.AnomalyScores = scores
		inliers = clustersFlag(opts, res, minK)
	} else {
		for i := 0; i < n; i++ {
			inliers = append(inliers, i)
		}
	}
	for i, o := range res.Outlier {
		if o {
			res.Outliers = append(res.Outliers, res.Datasets[i])
		}
	}
	return inliers, nil
}

// clustersFlag marks the datasets whose anomaly score is over the
// threshold and returns the others.
func clustersFlag(opts ClustersOptions, res *ClustersResult, minK int) []int {
	n := len(res.AnomalyScores)
	var inliers []int
	threshold := 0.5
	if opts.Contamination > 0 {
		// scikit-learn: the (1 − contamination) percentile of the scores.
		sorted := append([]float64(nil), res.AnomalyScores...)
		sort.Float64s(sorted)
		threshold = stats.Quantile(sorted, 1-opts.Contamination)
	}
	res.Threshold = threshold
	for i, s := range res.AnomalyScores {
		if s > threshold {
			res.Outlier[i] = true
		} else {
			inliers = append(inliers, i)
		}
	}
	if flagged := n - len(inliers); 3*flagged > n && len(inliers) >= minK+1 && opts.Contamination == 0 {
		res.Warnf("the Isolation Forest flagged %d of %d datasets as outliers: with few, evenly spread datasets the \"auto\" threshold (anomaly score > 0.5) flags many; they still join their nearest cluster, but set contamination (e.g. 0.1) or outliers = \"none\" to let more datasets shape the clusters", flagged, n)
	}
	if len(inliers) < minK+1 {
		res.Warnf("the Isolation Forest flagged %d of %d datasets as outliers, leaving too few to cluster; outliers were kept in the clustering", n-len(inliers), n)
		inliers = inliers[:0]
		for i := range res.Outlier {
			res.Outlier[i] = false
			inliers = append(inliers, i)
		}
	}
	return inliers
}

// clustersChooseK scans k_range (and the fixed k) with k-means on the
// inliers' points, records each k's inertia, silhouette and
// Davies–Bouldin index, and returns the fit of the fixed k, or else of
// the k with the best silhouette. n is the number of datasets.
func clustersChooseK(in ClustersInput, opts ClustersOptions, res *ClustersResult, fitPts [][]float64, n int) (*stats.KMeansFit, error) {
	ni := len(fitPts)
	ks := []int{}
	for k := opts.KRange[0]; k <= opts.KRange[1]; k++ {
		ks = append(ks, k)
	}
	if opts.K > 0 && (opts.K < opts.KRange[0] || opts.K > opts.KRange[1]) {
		ks = append(ks, opts.K)
		sort.Ints(ks)
	}
	fits := map[int]*stats.KMeansFit{}
	sample := silhouetteSample(ni, opts.SilhouetteSample, in.Seed)
	if sample != nil {
		res.SilhouetteSample = len(sample)
		res.Warnf("the silhouette of each k is estimated on a seeded sample of %d of the %d datasets clustered, as scikit-learn's silhouette_score(sample_size=%d); silhouette_sample = %d computes it over all of them", len(sample), ni, len(sample), ni)
	}
	bestK, bestSil := 0, math.Inf(-1)
	var skipped []int
	for _, k := range ks {
		if k > ni-1 {
			skipped = append(skipped, k)
			continue
		}
		f, err := stats.KMeans(fitPts, k, opts.Inits, opts.MaxIter, stats.SplitMix64(in.Seed, uint64(k)))
		if err != nil {
			return nil, err
		}
		fits[k] = f
		row := ClustersK{K: k, Inertia: f.Inertia}
		if s, err := silhouette(fitPts, f.Labels, sample); err == nil {
			row.Silhouette = &s
			if s > bestSil {
				bestK, bestSil = k, s
			}
		}
		if db, err := stats.DaviesBouldin(fitPts, f.Labels); err == nil {
			row.DaviesBouldin = &db
		}
		res.KScan = append(res.KScan, row)
	}
	if len(skipped) > 0 {
		res.Warnf("k = %s left out: the silhouette needs fewer clusters than the %d datasets clustered", joinInts(skipped), ni)
	}
	if opts.K > 0 {
		res.K, res.KFixed = opts.K, true
	} else {
		res.K = bestK
	}
	fit := fits[res.K]
	if fit == nil {
		if res.KFixed {
			return nil, fmt.Errorf("k = %d needs more than %d datasets to cluster, have %d (after %s)", res.K, res.K, ni, analyses.Count(n-ni, "outlier", "outliers"))
		}
		return nil, fmt.Errorf("no k in %v can be chosen for %d datasets (after %s)", opts.KRange, ni, analyses.Count(n-ni, "outlier", "outliers"))
	}
	for _, row := range res.KScan {
		if row.K == res.K {
			res.Silhouette, res.DaviesBouldin = row.Silhouette, row.DaviesBouldin
		}
	}
	return fit, nil
}

// clustersAssign puts every dataset in the cluster of its nearest
// centroid (outliers included; inliers keep their k-means label, the
// same after convergence except for exact ties), numbers the clusters 1…
// in order of first appearance among the datasets, and picks each
// cluster's representative: the dataset nearest its centroid.
func clustersAssign(res *ClustersResult, pts [][]float64, inliers []int, fit *stats.KMeansFit) {
	n := len(pts)
	raw := make([]int, n)
	for i, p := range pts {
		bd := math.Inf(1)
		for c, ctr := range fit.Centers {
			if d := stats.SqDist(p, ctr); d < bd {
				raw[i], bd = c, d
			}
		}
	}
	for j, i := range inliers {
		raw[i] = fit.Labels[j]
	}
	renum := map[int]int{}
	for _, l := range raw {
		if _, ok := renum[l]; !ok {
			renum[l] = len(renum) + 1
		}
	}
	res.Cluster = make([]int, n)
	for i, l := range raw {
		res.Cluster[i] = renum[l]
	}
	res.Centroids = make([][]float64, len(renum))
	for l, c := range renum {
		res.Centroids[c-1] = fit.Centers[l]
	}
	if len(renum) < res.K {
		res.Warnf("only %d of the %d clusters received datasets", len(renum), res.K)
	}
	res.Representatives = make([]string, len(renum))
	for c := 1; c <= len(renum); c++ {
		best, bd := -1, math.Inf(1)
		for i := range pts {
			if res.Cluster[i] != c {
				continue
			}
			if d := stats.SqDist(pts[i], res.Centroids[c-1]); d < bd {
				best, bd = i, d
			}
		}
		res.Representatives[c-1] = res.Datasets[best]
	}
}

// clustersCompare compares the clusters with the datasets' reference
// labels (the compare attribute) by the adjusted Rand index.
func clustersCompare(in ClustersInput, opts ClustersOptions, res *ClustersResult, keep []int) {
	var a, b []int
	ids := map[string]int{}
	var unlabelled []string
	for j, d := range keep {
		ref := in.Reference[d]
		if ref == "" {
			unlabelled = append(unlabelled, res.Datasets[j])
			continue
		}
		if _, ok := ids[ref]; !ok {
			ids[ref] = len(ids)
		}
		a = append(a, ids[ref])
		b = append(b, res.Cluster[j])
	}
	if len(unlabelled) > 0 {
		if len(unlabelled) == 1 {
			res.Warnf("1 dataset has no %q attribute and is left out of the comparison: %s", opts.Compare, unlabelled[0])
		} else {
			res.Warnf("%d datasets have no %q attribute and are left out of the comparison: %s", len(unlabelled), opts.Compare, strings.Join(unlabelled, ", "))
		}
	}
	res.Compare = opts.Compare
	if len(a) >= 2 {
		ari := stats.AdjustedRandIndex(a, b)
		res.AdjustedRandIndex = &ari
	} else {
		res.Warnf("the adjusted Rand index with %q needs at least 2 labelled datasets, have %d", opts.Compare, len(a))
	}
}

// clustersLeaderboard fills the per-cluster leaderboard of the result.
func clustersLeaderboard(res *ClustersResult, in ClustersInput, q analyses.Matrix) {
	res.Metric = in.Metric.Name
	res.Methods = in.Methods
	res.Leaderboard = ClusterLeaderboards(q, res.Cluster, res.Datasets, in.Methods, *in.Metric, &res.Warnings)
}

// ClusterLeaderboards ranks the methods within each cluster (1…max of
// cluster): the mean of the per-dataset ranks (1 = best, ties averaged) and
// the geometric mean of the metric, as Shevchenko et al. 2024, Fig. 8.
// q[d][m] has a row per dataset; rows with a missing value are left out of
// their cluster's board with a warning.
func ClusterLeaderboards(q analyses.Matrix, cluster []int, datasets, methods []string, metric analyses.Metric, w *analyses.Warnings) []ClusterBoard {
	higher := metric.Better == analyses.HigherIsBetter
	if len(methods) < 2 {
		w.Warnf("the per-cluster leaderboard needs at least 2 methods, have %d", len(methods))
		return nil
	}
	k := 0
	for _, c := range cluster {
		k = max(k, c)
	}
	var boards []ClusterBoard
	for c := 1; c <= k; c++ {
		var sub analyses.Matrix
		var names, missing []string
		for i, row := range q {
			if cluster[i] != c {
				continue
			}
			complete := true
			for _, v := range row {
				if math.IsNaN(v) {
					complete = false
				}
			}
			if !complete {
				missing = append(missing, datasets[i])
				continue
			}
			sub = append(sub, row)
			names = append(names, datasets[i])
		}
		if len(missing) > 0 {
			w.Warnf("cluster %d: %s left out of the leaderboard for missing %s values", c, strings.Join(missing, ", "), metric.Name)
		}
		if len(sub) == 0 {
			w.Warnf("cluster %d has no dataset with a %s value for every method, so it has no leaderboard", c, metric.Name)
			continue
		}
		b := ClusterBoard{Cluster: c, Datasets: names}
		b.MeanRank, _ = leaderboard.RuleScores(leaderboard.RuleMeanRank, sub, higher, 3)
		b.Rank = analyses.RankScores(b.MeanRank, false)
		b.GeometricMean = make([]*float64, len(methods))
		if gm, err := leaderboard.RuleScores(leaderboard.RuleGeometricMean, sub, higher, 3); err == nil {
			for m := range gm {
				v := gm[m]
				b.GeometricMean[m] = &v
			}
		} else {
			w.Warnf("cluster %d: no geometric mean of %s: %v", c, metric.Name, err)
		}
		boards = append(boards, b)
	}
	return boards
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// pcName is the column name of component c (0-based).
func pcName(c int) string { return fmt.Sprintf("pc%d", c+1) }

// Tables implements Result: the datasets with their cluster (the columns
// the README lists), the scan over k, the explained variance, the loadings
// and the per-cluster leaderboard.
func (r *ClustersResult) Tables() []analyses.Table {
	cols := []string{"dataset", "cluster", "outlier", "representative"}
	for c := range r.ExplainedVariance {
		cols = append(cols, pcName(c))
	}
	main := analyses.Table{Title: "Datasets by cluster", Columns: cols}
	rep := map[string]bool{}
	for _, d := range r.Representatives {
		rep[d] = true
	}
	order := make([]int, len(r.Datasets))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return r.Cluster[order[a]] < r.Cluster[order[b]] })
	for _, i := range order {
		row := []any{r.Datasets[i], r.Cluster[i], r.Outlier[i], rep[r.Datasets[i]]}
		for _, v := range r.Scores[i] {
			row = append(row, v)
		}
		main.Rows = append(main.Rows, row)
	}
	ks := analyses.Table{Name: "k", Title: "Choice of the number of clusters", Columns: []string{"k", "silhouette", "davies_bouldin", "inertia", "chosen"}}
	for _, k := range r.KScan {
		ks.Rows = append(ks.Rows, []any{k.K, analyses.CellPtr(k.Silhouette), analyses.CellPtr(k.DaviesBouldin), k.Inertia, k.K == r.K})
	}
	pca := analyses.Table{Name: "pca", Title: "Principal components: explained variance", Columns: []string{"component", "explained_variance", "explained_variance_ratio"}}
	for c := range r.ExplainedVariance {
		pca.Rows = append(pca.Rows, []any{pcName(c), r.ExplainedVariance[c], r.ExplainedVarianceRatio[c]})
	}
	lcols := []string{"feature"}
	for c := range r.ExplainedVariance {
		lcols = append(lcols, pcName(c))
	}
	load := analyses.Table{Name: "loadings", Title: "Loadings of the z-scored features on the principal components", Columns: lcols}
	for f, name := range r.Features {
		row := []any{name}
		for c := range r.Loadings {
			row = append(row, r.Loadings[c][f])
		}
		load.Rows = append(load.Rows, row)
	}
	tables := []analyses.Table{main, ks, pca, load}
	if len(r.Leaderboard) > 0 {
		lb := analyses.Table{Name: "leaderboard", Title: "Leaderboard within each cluster (" + r.Naming.Metric(r.Metric) + ")",
			Columns: []string{"cluster", "method", "mean_rank", "geometric_mean", "rank", "datasets"}}
		for _, b := range r.Leaderboard {
			order := make([]int, len(r.Methods))
			for i := range order {
				order[i] = i
			}
			sort.SliceStable(order, func(x, y int) bool { return b.Rank[order[x]] < b.Rank[order[y]] })
			for _, m := range order {
				lb.Rows = append(lb.Rows, []any{b.Cluster, r.Methods[m], b.MeanRank[m], analyses.CellPtr(b.GeometricMean[m]), b.Rank[m], len(b.Datasets)})
			}
		}
		tables = append(tables, lb)
	}
	return tables
}

// silhouetteSample returns the sorted indices of a seeded sample of size
// of n points, or nil when size ≥ n (every point).
func silhouetteSample(n, size int, seed uint64) []int {
	if size >= n {
		return nil
	}
	rng := rand.New(rand.NewPCG(stats.SplitMix64(seed, 1<<20), 0))
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for i := 0; i < size; i++ { // partial Fisher–Yates
		j := i + rng.IntN(n-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	idx := perm[:size]
	sort.Ints(idx)
	return idx
}

// silhouette is stats.Silhouette over the points of sample (all when nil).
func silhouette(x [][]float64, labels []int, sample []int) (float64, error) {
	if sample == nil {
		return stats.Silhouette(x, labels)
	}
	sx, sl := make([][]float64, len(sample)), make([]int, len(sample))
	for p, i := range sample {
		sx[p], sl[p] = x[i], labels[i]
	}
	return stats.Silhouette(sx, sl)
}
