package datasets

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/analyses/stats"
)

// blobFeatures makes nPer datasets around each of k centres in 6
// features (two of them on very different scales), plus the truth.
func blobFeatures(k, nPer int, seed uint64) (datasets, features []string, x [][]float64, truth []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	features = []string{"Nu", "Ni", "Density", "Gini", "APB", "LT"}
	centres := make([][]float64, k)
	for c := range centres {
		for range features {
			centres[c] = append(centres[c], 12*rng.NormFloat64())
		}
	}
	for c := 0; c < k; c++ {
		for i := 0; i < nPer; i++ {
			row := make([]float64, len(features))
			for j := range row {
				row[j] = centres[c][j] + 0.5*rng.NormFloat64()
			}
			row[0] *= 1e4 // scale must not matter after z-scoring
			row[2] *= 1e-3
			datasets = append(datasets, fmt.Sprintf("d%02d", len(datasets)))
			x = append(x, row)
			truth = append(truth, c)
		}
	}
	return
}

func TestClustersPlantedBlobs(t *testing.T) {
	t.Parallel()
	datasets, features, x, truth := blobFeatures(4, 7, 3)
	in := ClustersInput{Datasets: datasets, Features: features, X: x, Seed: 5, Jobs: 1}
	res, err := Clusters(in, ClustersOptions{Outliers: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if res.K != 4 {
		t.Errorf("k = %d, planted 4; scan %+v", res.K, res.KScan)
	}
	if ari := stats.AdjustedRandIndex(res.Cluster, truth); ari != 1 {
		t.Errorf("ARI with the planted blobs = %g", ari)
	}
	// Clusters numbered by first appearance; representatives are the
	// members nearest their centroid.
	if res.Cluster[0] != 1 {
		t.Errorf("first dataset in cluster %d, want 1", res.Cluster[0])
	}
	for c, rep := range res.Representatives {
		best, bd := "", math.Inf(1)
		for i, d := range res.Datasets {
			if res.Cluster[i] == c+1 {
				if dd := stats.SqDist(res.Scores[i], res.Centroids[c]); dd < bd {
					best, bd = d, dd
				}
			}
		}
		if rep != best {
			t.Errorf("cluster %d: representative %s, nearest is %s", c+1, rep, best)
		}
	}
	tab := res.Tables()
	if got, want := strings.Join(tab[0].Columns, ","), "dataset,cluster,outlier,representative,pc1,pc2,pc3"; got != want {
		t.Errorf("main columns %s, the README lists %s", got, want)
	}
	for _, tb := range tab {
		tb.Check()
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("result does not marshal: %v", err)
	}
}

func TestClustersOutliersJoinNearestCentroid(t *testing.T) {
	t.Parallel()
	datasets, features, x, _ := blobFeatures(3, 10, 8)
	// Two far-away datasets.
	far1 := append([]float64(nil), x[0]...)
	far2 := append([]float64(nil), x[12]...)
	for j := range far1 {
		far1[j] *= 6
		far2[j] *= -5
	}
	x = append(x, far1, far2)
	datasets = append(datasets, "far1", "far2")
	a, err := Clusters(ClustersInput{Datasets: datasets, Features: features, X: x, Seed: 9, Jobs: 1}, ClustersOptions{Trees: 500})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Outlier[30] || !a.Outlier[31] {
		t.Errorf("far datasets not flagged: scores %g, %g; outliers %v", a.AnomalyScores[30], a.AnomalyScores[31], a.Outliers)
	}
	for i := 30; i < 32; i++ {
		best, bd := 0, math.Inf(1)
		for c, ctr := range a.Centroids {
			if d := stats.SqDist(a.Scores[i], ctr); d < bd {
				best, bd = c+1, d
			}
		}
		if a.Cluster[i] != best {
			t.Errorf("outlier %s in cluster %d, nearest centroid is %d", datasets[i], a.Cluster[i], best)
		}
	}
	// Same seed, any number of workers: the same result.
	b, err := Clusters(ClustersInput{Datasets: datasets, Features: features, X: x, Seed: 9, Jobs: 4}, ClustersOptions{Trees: 500})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("result depends on Jobs")
	}
}

func TestClustersLeaderboardAndCompare(t *testing.T) {
	t.Parallel()
	datasets, features, x, truth := blobFeatures(3, 5, 4)
	methods := []string{"A", "B", "C"}
	q := make(analyses.Matrix, len(datasets))
	ref := make([]string, len(datasets))
	for i := range q {
		// A best in cluster 0, C best elsewhere; RMSE-like: lower is better.
		q[i] = []float64{1 + float64(truth[i]), 2, 2.5 - float64(truth[i])}
		ref[i] = fmt.Sprint("g", truth[i])
	}
	q[3][1] = math.NaN()
	ref[0] = ""
	res, err := Clusters(ClustersInput{Datasets: datasets, Features: features, X: x, Metric: &analyses.Metric{Name: "rmse", Better: analyses.LowerIsBetter},
		Methods: methods, Q: q, Reference: ref, Seed: 1}, ClustersOptions{Outliers: "none", K: 3, Compare: "domain"})
	if err != nil {
		t.Fatal(err)
	}
	if res.AdjustedRandIndex == nil || *res.AdjustedRandIndex != 1 {
		t.Errorf("ARI with the domain = %v", res.AdjustedRandIndex)
	}
	notes := strings.Join(res.Notes(), "\n")
	for _, want := range []string{"d03 left out of the leaderboard", `no "domain" attribute`} {
		if !strings.Contains(notes, want) {
			t.Errorf("warnings lack %q:\n%s", want, notes)
		}
	}
	for _, b := range res.Leaderboard {
		g := truth[slices.Index(res.Datasets, b.Datasets[0])]
		wantBest := 2 // C
		if g == 0 {
			wantBest = 0 // A: 1 < 2 < 2.5
		}
		if b.Rank[wantBest] != 1 {
			t.Errorf("cluster %d (group %d): ranks %v", b.Cluster, g, b.Rank)
		}
	}
	lb := res.Tables()[4]
	if lb.Name != "leaderboard" || strings.Join(lb.Columns, ",") != "cluster,method,mean_rank,geometric_mean,rank,datasets" {
		t.Errorf("leaderboard table %q %v", lb.Name, lb.Columns)
	}
}

func TestClustersEdgeCases(t *testing.T) {
	t.Parallel()
	datasets, features, x, _ := blobFeatures(2, 4, 2)
	x[2][1] = math.NaN()
	if _, err := Clusters(ClustersInput{Datasets: datasets, Features: features, X: x}, ClustersOptions{}); err == nil ||
		!strings.Contains(err.Error(), `dataset "d02" has no value for feature "Ni"`) {
		t.Errorf("missing value: %v", err)
	}
	for i := range x {
		x[i][3] = 7 // constant feature
	}
	res, err := Clusters(ClustersInput{Datasets: datasets, Features: features, X: x}, ClustersOptions{Missing: "drop", Outliers: "none"})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(res.Notes(), "\n")
	if !strings.Contains(notes, "d02") || !strings.Contains(notes, "constant") || !strings.Contains(notes, "k = 7, 8 left out") {
		t.Errorf("warnings:\n%s", notes)
	}
	if _, err := Clusters(ClustersInput{Datasets: datasets[:2], Features: features, X: x[:2]}, ClustersOptions{}); err == nil {
		t.Error("2 datasets: no error")
	}
	if _, err := Clusters(ClustersInput{Datasets: datasets, Features: features, X: x}, ClustersOptions{Missing: "drop", Outliers: "none", K: 7}); err == nil ||
		!strings.Contains(err.Error(), "too few to form 7 clusters") {
		t.Errorf("k = 7 of 7 datasets: %v", err)
	}
	for _, o := range []ClustersOptions{{K: 1}, {KRange: []int{1, 4}}, {KRange: []int{5, 3}}, {Outliers: "lof"}, {Missing: "zero"}} {
		o.Defaults()
		if o.Validate() == nil {
			t.Errorf("%+v: no validation error", o)
		}
	}
}

func TestClustersContamination(t *testing.T) {
	t.Parallel()
	datasets, features, x, _ := blobFeatures(3, 10, 6)
	res, err := Clusters(ClustersInput{Datasets: datasets, Features: features, X: x, Seed: 2}, ClustersOptions{Contamination: 0.1, Trees: 300})
	if err != nil {
		t.Fatal(err)
	}
	// 30 scores: the 90% quantile falls between the 27th and 28th, so
	// exactly the 3 highest are outliers (scikit-learn's rule).
	if len(res.Outliers) != 3 {
		t.Errorf("%d outliers at contamination 0.1 of 30 datasets: %v", len(res.Outliers), res.Outliers)
	}
	for i, s := range res.AnomalyScores {
		if res.Outlier[i] != (s > res.Threshold) {
			t.Errorf("dataset %d: score %g, threshold %g, outlier %v", i, s, res.Threshold, res.Outlier[i])
		}
	}
	o := ClustersOptions{Contamination: 0.6}
	o.Defaults()
	if o.Validate() == nil {
		t.Error("contamination 0.6: no error")
	}
}
