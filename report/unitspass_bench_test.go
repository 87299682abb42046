package report

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// BenchmarkUnitsRangeParse parses a long units file laid out as make
// bench-1g's (dataset,method,unit,metric,value, sorted by dataset and
// unit) into the pass's batches, on one core, in ranges of 256 KiB as a worker of a
// file read in byte ranges does (parseChunk), its batches recycled, and reports CPU ns/row (the process's, so GC included): the per-row cost
// of the input layer, without the sinks and the hashing: through the
// fast path (fast) and through the record path alone (records).
func BenchmarkUnitsRangeParse(b *testing.B) {
	const rows = 1 << 20
	dir := b.TempDir()
	path := filepath.Join(dir, "units.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "dataset,method,unit,metric,value")
	for i := 0; i < rows; i++ {
		// 4 rows per unit: two methods × two metrics
		fmt.Fprintf(w, "ds%d,%s,u%d,%s,%.6f\n", i/(rows/8), []string{"treat", "ctrl"}[i/2%2], i/4, []string{"ndcg@10", "rmse"}[i%2], float64((i*7919)%1000003)/1000003)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	os.WriteFile(filepath.Join(dir, "study.toml"), []byte("title = \"b\"\n[inputs]\nunits = \"units.csv\"\n"), 0o644)
	s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"fast", "records"} {
		b.Run(mode, func(b *testing.B) {
			in := newInputs(s)
			in.UnitsFastOff = mode == "records"
			rangeParse(b, in, s, path, rows)
		})
	}
}

// rangeParse is BenchmarkUnitsRangeParse for one reading path.
func rangeParse(b *testing.B, in *load.Inputs, s *manifest.Study, path string, rows int) {
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	free := make(chan *load.UnitsBatchOf, 1<<10)
	var buf []byte
	b.ResetTimer()
	cpu0 := processCPUSeconds()
	for range b.N {
		uf, err := in.OpenUnits(in.Study.Inputs.Units[0], input.Match{Path: path})
		if err != nil {
			b.Fatal(err)
		}
		start, size, _ := uf.T.DataRange()
		n := 0
		for start < size {
			end := uf.T.LineEndAfter(start+256<<10, size)
			c := &load.UnitsChunk{Start: start, End: end}
			in.ParseChunk(uf, c, buf, load.BatchPool(free, load.RangeBatch), make(chan struct{}))
			if c.Err != nil {
				b.Fatal(c.Err)
			}
			buf = c.Raw
			for _, bt := range c.Batches {
				n += len(bt.Rows)
				bt.Home <- bt
			}
			start = end
		}
		if n != rows {
			b.Fatalf("%d rows, want %d", n, rows)
		}
		uf.T.Close()
	}
	b.ReportMetric(1e9*(processCPUSeconds()-cpu0)/float64(b.N)/float64(rows), "cpu-ns/row")
}
