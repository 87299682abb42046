package report

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// Long-format units files as pandas/pyarrow write them: dictionary-encoded
// names, float64 values, unit ids as integers or as text.
type benchUnitInt struct {
	Dataset string  `parquet:"dataset,dict"`
	Method  string  `parquet:"method,dict"`
	Unit    int64   `parquet:"unit"`
	Metric  string  `parquet:"metric,dict"`
	Value   float64 `parquet:"value"`
}

type benchUnitText struct {
	Dataset string  `parquet:"dataset,dict"`
	Method  string  `parquet:"method,dict"`
	Unit    string  `parquet:"unit,dict"`
	Metric  string  `parquet:"metric,dict"`
	Value   float64 `parquet:"value"`
}

// benchUnitsRows is 2 datasets × 4 methods × 5 metrics × 100,000 units.
const benchUnits = 100_000

var (
	benchDatasets = []string{"ml-1m", "amazon-books"}
	benchMethods  = []string{"itemknn", "ease", "lightgcn", "sasrec"}
	benchMetrics  = []string{"ndcg@10", "recall@10", "mrr@10", "hit@10", "map@10"}
)

const benchUnitsRows = 2 * 4 * 5 * benchUnits

// writeBenchUnits writes the units file with the given row type, snappy
// compressed in row groups of a million rows (pyarrow's default).
func writeBenchUnits[T any](b *testing.B, path string, row func(d, m, k string, u int, v float64) T) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(1<<20))
	batch := make([]T, 0, benchUnits)
	for _, d := range benchDatasets {
		for _, m := range benchMethods {
			for _, k := range benchMetrics {
				batch = batch[:0]
				for u := range benchUnits {
					batch = append(batch, row(d, m, k, u, float64((u*7919)%1000)/1000))
				}
				if _, err := w.Write(batch); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkParquetUnits reads a long-format units file of 4 million rows
// the way the units loader does (input.OpenTable, Next, the name columns as
// text, Float of the value), and through the loader itself ("loader") and reports rows per second of wall clock
// and of the process's CPU time (all threads, the collector's too). It
// prints figures; it never fails on time.
func BenchmarkParquetUnits(b *testing.B) {
	dir := b.TempDir()
	intPath := filepath.Join(dir, "units-int.parquet")
	textPath := filepath.Join(dir, "units-text.parquet")
	writeBenchUnits(b, intPath, func(d, m, k string, u int, v float64) benchUnitInt {
		return benchUnitInt{d, m, int64(u), k, v}
	})
	writeBenchUnits(b, textPath, func(d, m, k string, u int, v float64) benchUnitText {
		return benchUnitText{d, m, "u" + strconv.Itoa(u), k, v}
	})
	for _, c := range []struct{ name, path string }{{"int-unit", intPath}, {"text-unit", textPath}, {"loader", intPath}, {"pass", intPath}, {"pass-text", textPath}} {
		b.Run(c.name, func(b *testing.B) {
			read := benchReadUnits
			switch c.name {
			case "loader":
				read = benchLoadUnits
			case "pass", "pass-text":
				read = benchPassUnits
			}
			st, _ := os.Stat(c.path)
			b.SetBytes(st.Size())
			b.ReportAllocs()
			cpu := processCPUSeconds()
			for range b.N {
				n, err := read(c.path)
				if err != nil {
					b.Fatal(err)
				}
				if n != benchUnitsRows {
					b.Fatalf("%d rows, want %d", n, benchUnitsRows)
				}
			}
			rows := float64(benchUnitsRows) * float64(b.N)
			b.ReportMetric(rows/b.Elapsed().Seconds(), "rows/s")
			// The CPU the process used, not the wall clock: the machine is
			// shared, and this figure is what the reader costs.
			if used := processCPUSeconds() - cpu; used > 0 {
				b.ReportMetric(rows/used, "rows/cpu-s")
			}
		})
	}
}

// benchReadUnits reads a units file as readUnitsFile does and returns the
// number of rows.
func benchReadUnits(path string) (int, error) {
	t, err := input.OpenTable(path, filepath.Base(path), nil)
	if err != nil {
		return 0, err
	}
	defer t.Close()
	dcol, mcol, ucol, kcol, vcol := t.Col("dataset"), t.Col("method"), t.Col("unit"), t.Col("metric"), t.Col("value")
	if dcol < 0 || mcol < 0 || ucol < 0 || kcol < 0 || vcol < 0 {
		return 0, fmt.Errorf("columns missing: %v", t.Header)
	}
	n := 0
	var sum float64
	var names int
	for {
		rec, err := t.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		names += len(rec[dcol]) + len(rec[mcol]) + len(rec[ucol]) + len(rec[kcol])
		v, ok, err := t.Float(vcol)
		if err != nil {
			return n, err
		}
		if ok {
			sum += v
		}
		n++
	}
	if names == 0 || sum == 0 {
		return n, fmt.Errorf("nothing read")
	}
	return n, nil
}

// unitsStudy writes and loads a study of one units file beside it.
func unitsStudy(path string) (*manifest.Study, error) {
	manifestPath := filepath.Join(filepath.Dir(path), "study.toml")
	text := fmt.Sprintf("title = \"b\"\n[inputs]\nunits = %q\n", filepath.Base(path))
	if err := os.WriteFile(manifestPath, []byte(text), 0o644); err != nil {
		return nil, err
	}
	return manifest.LoadStudy(manifestPath, kinds.Kinds())
}

// benchLoadUnits reads a units file through the real loader
// (inputs.units over a one-file study), interning and all.
func benchLoadUnits(path string) (int, error) {
	s, err := unitsStudy(path)
	if err != nil {
		return 0, err
	}
	n := 0
	err = newInputs(s).Units(func(u *load.UnitRow) error {
		n++
		return nil
	})
	return n, err
}

// benchCountSink counts the values of one metric the units pass hands it.
type benchCountSink struct {
	metric string
	n      int
}

func (s *benchCountSink) Metric() string                     { return s.metric }
func (s *benchCountSink) Wants(string) bool                  { return true }
func (s *benchCountSink) Add(*load.UnitRow) error            { s.n++; return nil }
func (s *benchCountSink) OtherMetric(string, string, string) {}
func (s *benchCountSink) Seen(string, string)                {}

// benchPassUnits reads a units file through the units pass of a build
// (a sink per metric) and returns the number of values the sinks got.
func benchPassUnits(path string) (int, error) {
	s, err := unitsStudy(path)
	if err != nil {
		return 0, err
	}
	var sinks []load.UnitsSink
	var counts []*benchCountSink
	for _, m := range benchMetrics {
		c := &benchCountSink{metric: m}
		sinks, counts = append(sinks, c), append(counts, c)
	}
	n := 0
	for i, err := range newInputs(s).UnitsPass(context.Background(), sinks) {
		if err != nil {
			return n, err
		}
		n += counts[i].n
	}
	return n, nil
}
