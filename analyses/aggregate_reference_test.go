package analyses

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// shevchenkoMatrix reads ndcg@10 from the seed 001 reference data, or skips.
func shevchenkoMatrix(t testing.TB, metric, k string) AggregateInput {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "reference", "shevchenko2024", "agg_metrics.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("reference data absent: %v", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var b ResultsBuilder
	for _, r := range recs[1:] {
		if r[2] != metric || r[3] != k || r[4] == "" {
			continue
		}
		v, err := strconv.ParseFloat(r[4], 64)
		if err != nil {
			t.Fatal(err)
		}
		b.Add(r[1], r[0], metric, v)
	}
	res := b.Finish()
	return AggregateInput{Metric: Metric{Name: metric, Max: math.Inf(1)}, Datasets: res.Datasets, Methods: res.Methods,
		Q: res.Matrix(metric, res.Datasets, res.Methods)}
}
