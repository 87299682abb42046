package datasets

import (
	"math"
	"strings"
	"testing"
)

// The silhouette compares every pair of points: past silhouette_sample
// it is computed on one seeded sample (the same for every k), says so,
// and still finds the planted clusters; at or under it, it is exact.
func TestClustersSilhouetteSample(t *testing.T) {
	t.Parallel()
	datasets, features, x, _ := blobFeatures(4, 100, 11) // 400 datasets
	in := ClustersInput{Datasets: datasets, Features: features, X: x, Seed: 5, Jobs: 1}
	exact, err := Clusters(in, ClustersOptions{Outliers: "none", KRange: []int{2, 6}})
	if err != nil {
		t.Fatal(err)
	}
	if exact.SilhouetteSample != 0 || strings.Contains(strings.Join(exact.List, " "), "sample") {
		t.Errorf("400 datasets under the default sample of %d: sample %d, warnings %v; want the exact silhouette", DefaultSilhouetteSample, exact.SilhouetteSample, exact.List)
	}
	sampled, err := Clusters(in, ClustersOptions{Outliers: "none", KRange: []int{2, 6}, SilhouetteSample: 150})
	if err != nil {
		t.Fatal(err)
	}
	if sampled.SilhouetteSample != 150 || !strings.Contains(strings.Join(sampled.List, " "), "sample of 150 of the 400 datasets") {
		t.Errorf("silhouette_sample = 150: sample %d, warnings %v; want a warning naming the sample", sampled.SilhouetteSample, sampled.List)
	}
	if sampled.K != exact.K || exact.K != 4 {
		t.Errorf("k chosen on the sample %d, exact %d, planted 4", sampled.K, exact.K)
	}
	// The estimate is the exact silhouette of the sampled points: near the
	// silhouette of them all, and not equal to it (it is a sample).
	se, ss := *exact.Silhouette, *sampled.Silhouette
	if math.Abs(se-ss) > 0.05 || se == ss {
		t.Errorf("sampled silhouette %v, exact %v", ss, se)
	}
	idx := silhouetteSample(400, 150, 5)
	if len(idx) != 150 || silhouetteSample(400, 400, 5) != nil {
		t.Fatalf("sample of 150 of 400: %d points", len(idx))
	}
	for p := 1; p < len(idx); p++ {
		if idx[p] <= idx[p-1] {
			t.Fatalf("sample not sorted and distinct: %v", idx)
		}
	}
	err = (&ClustersOptions{SilhouetteSample: 2, KRange: []int{2, 8}, Components: 3, Outliers: "none", Trees: 1, Inits: 1, MaxIter: 1, Missing: "error"}).Validate()
	if err == nil || !strings.Contains(err.Error(), "silhouette_sample") {
		t.Errorf("silhouette_sample = 2: %v, want an error at the key", err)
	}
}
