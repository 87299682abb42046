package report

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestMetaBenchStudy writes the benchmark study of issue 3 when
// EVALBOOK_META_BENCH names a directory: 30 datasets × 2 methods ×
// 1,000,000 units × 2 metrics as one long CSV (dataset,method,unit,
// metric,value; 120 million rows), sorted by dataset and unit
// (EVALBOOK_META_BENCH_ORDER=method sorts by dataset and method
// instead), plus a study.toml with one meta-analysis per metric. Build
// it with the binary under /usr/bin/time -v to measure time, throughput
// and peak memory. EVALBOOK_META_BENCH_UNITS overrides the units per
// dataset.
func TestMetaBenchStudy(t *testing.T) {
	dir := os.Getenv("EVALBOOK_META_BENCH")
	if dir == "" {
		t.Skip("set EVALBOOK_META_BENCH=DIR to write the benchmark study")
	}
	units := 1_000_000
	if s := os.Getenv("EVALBOOK_META_BENCH_UNITS"); s != "" {
		units, _ = strconv.Atoi(s)
	}
	byMethod := os.Getenv("EVALBOOK_META_BENCH_ORDER") == "method"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "units.csv"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<22)
	w.WriteString("dataset,method,unit,metric,value\n")
	rng := rand.New(rand.NewPCG(3, 1))
	methods := []string{"treat", "ctrl"}
	metrics := []string{"ndcg@10", "rmse"}
	var buf []byte
	row := func(d int, m string, u int, metric string, v float64) {
		buf = buf[:0]
		buf = append(buf, "ds"...)
		buf = strconv.AppendInt(buf, int64(d), 10)
		buf = append(buf, ',')
		buf = append(buf, m...)
		buf = append(buf, ",u"...)
		buf = strconv.AppendInt(buf, int64(u), 10)
		buf = append(buf, ',')
		buf = append(buf, metric...)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, v, 'f', 6, 64)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	val := func(d, mi, k int, base float64) float64 {
		if k == 0 {
			return math.Max(0, math.Min(1, base+0.01*float64(mi)*float64(d%3-1)+0.05*rng.NormFloat64()))
		}
		return 0.9 + 0.2*base - 0.02*float64(mi) + 0.05*rng.NormFloat64()
	}
	for d := 0; d < 30; d++ {
		if byMethod {
			bases := make([]float64, units)
			for u := range bases {
				bases[u] = rng.Float64() * 0.6
			}
			for mi, m := range methods {
				for u := 0; u < units; u++ {
					for k, metric := range metrics {
						row(d, m, u, metric, val(d, mi, k, bases[u]))
					}
				}
			}
			continue
		}
		for u := 0; u < units; u++ {
			base := rng.Float64() * 0.6
			for mi, m := range methods {
				for k, metric := range metrics {
					row(d, m, u, metric, val(d, mi, k, base))
				}
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	study := `title = "meta benchmark"
[[metrics]]
name = "rmse"
better = "lower"
[inputs]
units = ["units.csv"]
[[analyses]]
id = "ndcg"
type = "meta_analysis"
title = "treat vs ctrl on nDCG@10"
treatment = "treat"
control = "ctrl"
metric = "ndcg@10"
[[analyses]]
id = "rmse"
type = "meta_analysis"
title = "treat vs ctrl on RMSE"
treatment = "treat"
control = "ctrl"
metric = "rmse"
effect = "hedges_g"
`
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(study), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Println("wrote", dir)
}
