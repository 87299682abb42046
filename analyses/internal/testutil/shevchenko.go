package testutil

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// Value is one row of a reference results file.
type Value struct {
	Dataset, Method string
	Value           float64
}

// ShevchenkoValues reads the values of metric@k from the reference data of
// Shevchenko et al. 2024 (shared/reference/shevchenko2024/agg_metrics.csv),
// in file order. It skips the test when the data is absent (fails under
// CI).
func ShevchenkoValues(t testing.TB, metric, k string) []Value {
	t.Helper()
	path := filepath.Join(Shared(), "reference", "shevchenko2024", "agg_metrics.csv")
	f, err := os.Open(path)
	if err != nil {
		SkipWithoutReference(t, err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []Value
	for _, r := range recs[1:] {
		if r[2] != metric || r[3] != k || r[4] == "" {
			continue
		}
		v, err := strconv.ParseFloat(r[4], 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Value{Dataset: r[1], Method: r[0], Value: v})
	}
	return out
}
