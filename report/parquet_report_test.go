package report

import (
	"context"
	"fmt"
	"github.com/evalbook/evalbook/internal/pqtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// TestParquetResultsAndUnits: results and units inputs read Parquet files
// through the same loaders and column mapping as CSV.
func TestParquetResultsAndUnits(t *testing.T) {
	t.Parallel()
	type resRow struct {
		Dataset string  `parquet:"dataset"`
		Model   string  `parquet:"model"`
		Metric  string  `parquet:"metric"`
		Value   float64 `parquet:"value"`
	}
	type unitRow struct {
		User string  `parquet:"user"`
		NDCG float64 `parquet:"ndcg"`
	}
	dir := t.TempDir()
	pqtest.Write(t, filepath.Join(dir, "results.parquet"), []resRow{{"d1", "A", "ndcg", 0.5}, {"d1", "B", "ndcg", 0.25}, {"d2", "A", "ndcg", 0.1}, {"d2", "B", "ndcg", 0.2}})
	os.MkdirAll(filepath.Join(dir, "u"), 0o755)
	pqtest.Write(t, filepath.Join(dir, "u", "A_d1.parquet"), []unitRow{{"x", 0.5}, {"y", 0.75}})
	os.WriteFile(filepath.Join(dir, "study.toml"), []byte(`title = "p"
[inputs]
results = { path = "results.parquet", columns = { method = "model" } }
units   = { path = "u/{method}_{dataset}.parquet", columns = { unit = "user" } }
[[analyses]]
id = "lb"
type = "aggregate"
metric = "ndcg"
`), 0o644)
	s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	in := newInputs(s)
	r, err := in.Results()
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := r.Get("d2", "B", "ndcg"); !ok || c.Value != 0.2 {
		t.Fatalf("results from Parquet: %+v %v", c, ok)
	}
	var units []string
	if err := in.Units(func(u *load.UnitRow) error {
		units = append(units, fmt.Sprintf("%s/%s/%s/%s=%g", u.Dataset, u.Method, u.Unit, u.Metric, u.Value))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(units, " ") != "d1/A/x/ndcg=0.5 d1/A/y/ndcg=0.75" {
		t.Fatalf("units from Parquet: %v", units)
	}
	if _, err := Build(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml"), Version: "t"}); err != nil {
		t.Fatal(err)
	}
}
