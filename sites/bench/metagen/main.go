// Command metagen writes the benchmark study of the meta-analysis issue:
// 30 datasets × 2 methods × UNITS units × 2 metrics as one long CSV
// (dataset,method,unit,metric,value; 120 million rows at the default),
// sorted by dataset and unit (-order method: by dataset and method), and a
// study.toml with one meta-analysis per metric. With -format parquet it
// writes the same rows (the same values: each is the float64 of its CSV
// text) as units.parquet instead, as pandas/pyarrow would: dictionary-
// encoded names, plain unit ids, float64 values, snappy, row groups of
// 1,048,576 rows.
//
//	go run ./sites/bench/metagen [-units 1000000] [-order unit|method] [-format csv|parquet] DIR
//
// Build it with the binary under /usr/bin/time to measure time,
// throughput and peak memory (make bench-issues does).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

func main() {
	units := flag.Int("units", 1_000_000, "units per (dataset, method)")
	order := flag.String("order", "unit", "row order within a dataset: unit or method")
	format := flag.String("format", "csv", "units file format: csv or parquet")
	flag.Parse()
	if flag.NArg() != 1 || (*order != "unit" && *order != "method") || (*format != "csv" && *format != "parquet") {
		fmt.Fprintln(os.Stderr, "usage: metagen [-units N] [-order unit|method] [-format csv|parquet] DIR")
		os.Exit(2)
	}
	if err := generate(flag.Arg(0), *units, *order == "method", *format == "parquet"); err != nil {
		fmt.Fprintln(os.Stderr, "metagen:", err)
		os.Exit(1)
	}
}

func generate(dir string, units int, byMethod, asParquet bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := "units.csv"
	if asParquet {
		name = "units.parquet"
	}
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	g := &unitsWriter{w: bufio.NewWriterSize(f, 1<<22), rng: rand.New(rand.NewPCG(3, 1))}
	if asParquet {
		g.pq = parquet.NewGenericWriter[pqRow](g.w, parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(1<<20))
	} else {
		g.w.WriteString("dataset,method,unit,metric,value\n")
	}
	for d := 0; d < 30; d++ {
		if byMethod {
			g.datasetByMethod(d, units)
		} else {
			g.datasetByUnit(d, units)
		}
	}
	if err := g.close(); err != nil || g.err != nil {
		if err == nil {
			err = g.err
		}
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "study.toml"), []byte(strings.Replace(study, "units.csv", name, 1)), 0o644)
}

// pqRow is a row of units.parquet.
type pqRow struct {
	Dataset string  `parquet:"dataset,dict"`
	Method  string  `parquet:"method,dict"`
	Unit    string  `parquet:"unit"`
	Metric  string  `parquet:"metric,dict"`
	Value   float64 `parquet:"value"`
}

// close writes what is buffered and the Parquet footer.
func (g *unitsWriter) close() error {
	if g.pq != nil {
		if err := g.flushRows(); err != nil {
			return err
		}
		if err := g.pq.Close(); err != nil {
			return err
		}
	}
	return g.w.Flush()
}

// flushRows hands the buffered Parquet rows to the writer.
func (g *unitsWriter) flushRows() error {
	_, err := g.pq.Write(g.rows)
	g.rows = g.rows[:0]
	return err
}

var (
	methods = []string{"treat", "ctrl"}
	metrics = []string{"ndcg@10", "rmse"}
)

// unitsWriter writes the rows of units.csv.
type unitsWriter struct {
	w   *bufio.Writer
	rng *rand.Rand
	buf []byte
	// pq writes units.parquet instead (-format parquet), rows at a time
	pq   *parquet.GenericWriter[pqRow]
	rows []pqRow
	err  error
}

// datasetByUnit writes a dataset's rows unit after unit (both methods of
// a unit together).
func (g *unitsWriter) datasetByUnit(d, units int) {
	for u := 0; u < units; u++ {
		base := g.rng.Float64() * 0.6
		for mi, m := range methods {
			for k, metric := range metrics {
				g.row(d, m, u, metric, g.val(d, mi, k, base))
			}
		}
	}
}

// datasetByMethod writes a dataset's rows method after method.
func (g *unitsWriter) datasetByMethod(d, units int) {
	bases := make([]float64, units)
	for u := range bases {
		bases[u] = g.rng.Float64() * 0.6
	}
	for mi, m := range methods {
		for u := 0; u < units; u++ {
			for k, metric := range metrics {
				g.row(d, m, u, metric, g.val(d, mi, k, bases[u]))
			}
		}
	}
}

func (g *unitsWriter) row(d int, m string, u int, metric string, v float64) {
	b := g.buf[:0]
	b = append(b, "ds"...)
	b = strconv.AppendInt(b, int64(d), 10)
	b = append(b, ',')
	b = append(b, m...)
	b = append(b, ",u"...)
	b = strconv.AppendInt(b, int64(u), 10)
	b = append(b, ',')
	b = append(b, metric...)
	b = append(b, ',')
	b = strconv.AppendFloat(b, v, 'f', 6, 64)
	if g.pq != nil {
		// the value the CSV's text reads as, and the names as its cells
		x, _ := strconv.ParseFloat(string(b[bytes.LastIndexByte(b, ',')+1:]), 64)
		g.rows = append(g.rows, pqRow{dsNames[d], m, "u" + strconv.Itoa(u), metric, x})
		if len(g.rows) == cap(g.rows) || len(g.rows) >= 1<<16 {
			if err := g.flushRows(); err != nil && g.err == nil {
				g.err = err
			}
		}
		g.buf = b
		return
	}
	b = append(b, '\n')
	g.w.Write(b)
	g.buf = b
}

// dsNames are the datasets' names.
var dsNames = func() []string {
	var n []string
	for d := range 30 {
		n = append(n, "ds"+strconv.Itoa(d))
	}
	return n
}()

// val is a unit's value of metric k for method mi: nDCG around the unit's
// base, RMSE falling with it, the treatment a little better.
func (g *unitsWriter) val(d, mi, k int, base float64) float64 {
	if k == 0 {
		return math.Max(0, math.Min(1, base+0.01*float64(mi)*float64(d%3-1)+0.05*g.rng.NormFloat64()))
	}
	return 0.9 + 0.2*base - 0.02*float64(mi) + 0.05*g.rng.NormFloat64()
}

const study = `title = "meta benchmark"
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
