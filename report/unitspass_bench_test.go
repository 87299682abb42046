package report

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/manifest"
)

// BenchmarkUnitsRangeParse parses a long units file laid out as make
// bench-1g's (dataset,method,unit,metric,value, sorted by dataset and
// unit) into the pass's batches, on one core, in ranges of 256 KiB as a worker of a
// file read in byte ranges does (parseChunk), its batches recycled, and reports CPU ns/row (the process's, so GC included): the per-row cost
// of the input layer, without the sinks and the hashing.
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
	s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), Kinds())
	if err != nil {
		b.Fatal(err)
	}
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	in := newInputs(s)
	free := make(chan *unitsBatchOf, 1<<10)
	var buf []byte
	b.ResetTimer()
	cpu0 := processCPUSeconds()
	for range b.N {
		uf, err := in.openUnits(s.Inputs.Units[0], input.Match{Path: path})
		if err != nil {
			b.Fatal(err)
		}
		start, size, _ := uf.t.DataRange()
		n := 0
		for start < size {
			end := uf.t.LineEndAfter(start+256<<10, size)
			c := &unitsChunk{start: start, end: end}
			in.parseChunk(uf, c, buf, batchPool(free, rangeBatch), make(chan struct{}))
			if c.err != nil {
				b.Fatal(c.err)
			}
			buf = c.raw
			for _, bt := range c.batches {
				n += len(bt.rows)
				bt.home <- bt
			}
			start = end
		}
		if n != rows {
			b.Fatalf("%d rows, want %d", n, rows)
		}
		uf.t.Close()
	}
	b.ReportMetric(1e9*(processCPUSeconds()-cpu0)/float64(b.N)/rows, "cpu-ns/row")
}
