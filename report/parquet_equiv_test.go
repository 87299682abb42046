package report

import (
	"context"
	"fmt"
	"github.com/evalbook/evalbook/internal/pqtest"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestParquetCSVSameNumbers builds one study twice, from CSV files and
// from Parquet copies of them (integer k and unit ids, nulls for the
// empty cells, dictionary-encoded names, files crossing pages, row groups
// and batches), and asserts that every data file of the two sites is the
// same.
func TestParquetCSVSameNumbers(t *testing.T) {
	t.Parallel()
	type resRow struct {
		Dataset string  `parquet:"dataset,dict"`
		Method  string  `parquet:"method,dict"`
		Metric  string  `parquet:"metric,dict"`
		K       int32   `parquet:"k"`
		Value   float64 `parquet:"value"`
	}
	type unitRow struct {
		Dataset string   `parquet:"dataset,dict"`
		Method  string   `parquet:"method,dict"`
		Unit    int64    `parquet:"unit"`
		Metric  string   `parquet:"metric,dict"`
		Value   *float64 `parquet:"value,optional"`
	}
	rng := rand.New(rand.NewPCG(3, 14))
	datasets := []string{"ml-1m", "amazon-books", "yelp"}
	methods := []string{"EASE", "itemKNN", "LightGCN"}
	var res []resRow
	resCSV := []string{"dataset,method,metric,k,value"}
	for _, d := range datasets {
		for mi, m := range methods {
			for _, metric := range []string{"ndcg", "recall"} {
				v := 0.1 + 0.05*float64(mi) + rng.Float64()/50
				res = append(res, resRow{d, m, metric, 10, v})
				resCSV = append(resCSV, fmt.Sprintf("%s,%s,%s,10,%s", d, m, metric, strconv.FormatFloat(v, 'g', -1, 64)))
			}
		}
	}
	var units []unitRow
	unitsCSV := []string{"dataset,method,unit,metric,value"}
	for _, d := range datasets[:2] {
		for mi, m := range methods {
			for u := range 1500 {
				id := int64(u)*7919 + 1<<40 // ids as a pandas int64 column holds them
				row := unitRow{d, m, id, "ndcg@10", nil}
				cell := ""
				if (u+mi)%97 != 0 { // a few missing values
					v := float64(rng.IntN(1000))/1000*(1+0.1*float64(mi)) + rng.Float64()/1e6
					row.Value = &v
					cell = strconv.FormatFloat(v, 'g', -1, 64)
				}
				units = append(units, row)
				unitsCSV = append(unitsCSV, fmt.Sprintf("%s,%s,%d,ndcg@10,%s", d, m, id, cell))
			}
		}
	}
	const manifest = `title = "Same numbers"
[inputs]
results = "results.%[1]s"
units   = [{ path = "units.%[1]s", missing = "drop" }]
[[analyses]]
id     = "lb"
type   = "aggregate"
metric = "ndcg@10"
[[analyses]]
id      = "pt"
type    = "paired_tests"
metric  = "ndcg@10"
dataset = "ml-1m"
missing = "drop"
[[analyses]]
id      = "pt2"
type    = "paired_tests"
metric  = "ndcg@10"
dataset = "amazon-books"
missing = "drop"
`
	csvDir, pqDir := t.TempDir(), t.TempDir()
	for _, f := range []struct{ dir, name, text string }{
		{csvDir, "study.toml", fmt.Sprintf(manifest, "csv")},
		{csvDir, "results.csv", strings.Join(resCSV, "\n") + "\n"},
		{csvDir, "units.csv", strings.Join(unitsCSV, "\n") + "\n"},
		{pqDir, "study.toml", fmt.Sprintf(manifest, "parquet")},
	} {
		if err := os.WriteFile(filepath.Join(f.dir, f.name), []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pqtest.Write(t, filepath.Join(pqDir, "results.parquet"), res)
	pqtest.Write(t, filepath.Join(pqDir, "units.parquet"), units)
	build := func(dir string) map[string]string {
		sum, err := Build(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		files, _ := filepath.Glob(filepath.Join(sum.Out, "data", "*"))
		for _, f := range files {
			if strings.HasPrefix(filepath.Base(f), "provenance") {
				continue // names the input files, which differ
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[filepath.Base(f)] = string(b)
		}
		return out
	}
	a, b := build(csvDir), build(pqDir)
	var names []string
	for n := range a {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(a) != len(b) || len(a) < 3 {
		t.Fatalf("data files: CSV %d, Parquet %d", len(a), len(b))
	}
	for _, n := range names {
		if a[n] != b[n] {
			t.Errorf("%s differs between CSV (got) and Parquet (want):\n%s", n, firstDiff(a[n], b[n]))
		}
	}
	// The numbers are really there: the units of both datasets went in.
	if !strings.Contains(a["pt.json"], "EASE") || !strings.Contains(a["pt2.json"], "LightGCN") {
		t.Errorf("paired tests without the methods:\n%.300s", a["pt.json"])
	}
	t.Logf("%d data files identical: %s", len(names), strings.Join(names, " "))
}
