package report

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// BenchmarkUnitsRepeatCheck runs the units pass of two meta-analyses
// over a long units file of 2 million rows (8 datasets × 2 methods × 2
// metrics × 62,500 units, laid out as make bench-1g's file) with and
// without the check of repeated unit ids, in turn, and reports the CPU
// of each per row (the process's, collector included) and their ratio.
// "sorted" lists the units of a dataset in order (the check compares
// each id with the one before); "shuffled" in a random order (the check
// uses its filter and its spill of hashes), "pieces" in 4 increasing
// runs, each over the whole range of ids (parts of a sharded export
// concatenated: the ids before each break go into the filter). It
// prints figures; it never fails on time.
func BenchmarkUnitsRepeatCheck(b *testing.B) {
	const datasets, units = 8, 62_500
	const rows = datasets * 2 * 2 * units
	for _, layout := range []string{"sorted", "shuffled", "pieces"} {
		b.Run(layout, func(b *testing.B) {
			dir := b.TempDir()
			path := filepath.Join(dir, "units.csv")
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			w := bufio.NewWriterSize(f, 1<<20)
			fmt.Fprintln(w, "dataset,method,unit,metric,value")
			rng := rand.New(rand.NewPCG(1, 2))
			for d := range datasets {
				order := make([]int, units)
				for i := range order {
					order[i] = i
				}
				switch layout {
				case "shuffled":
					rng.Shuffle(units, func(i, j int) { order[i], order[j] = order[j], order[i] })
				case "pieces": // 4 sorted pieces, each over the whole range of ids
					for i := range order {
						order[i] = i%(units/4)*4 + i/(units/4)
					}
				}
				for _, u := range order {
					for _, m := range []string{"treat", "ctrl"} {
						for _, k := range []string{"ndcg@10", "rmse"} {
							fmt.Fprintf(w, "ds%d,%s,%d,%s,%.6f\n", d, m, 100000+u, k, rng.Float64())
						}
					}
				}
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
			pass := func(off bool) float64 {
				runtime.GC() // the garbage of the pass before is not this one's
				in := newInputs(s)
				in.RepeatOff = off
				job := &kinds.Job{ID: "m", Study: s, Inputs: in, ProgressTo: kinds.NoProgress{}}
				var sinks []load.UnitsSink
				for _, k := range []string{"ndcg@10", "rmse"} {
					sinks = append(sinks, kinds.NewMetaSink(job, &meta.Options{Treatment: "treat", Control: "ctrl", Metric: k, Missing: "drop"}))
				}
				cpu := processCPUSeconds()
				for _, err := range in.UnitsPass(context.Background(), sinks) {
					if err != nil {
						b.Fatal(err)
					}
				}
				return processCPUSeconds() - cpu
			}
			pass(false) // the page cache
			var off, on float64
			b.ResetTimer()
			for i := range b.N { // in turn, each first every other time
				if i%2 == 0 {
					off += pass(true)
					on += pass(false)
				} else {
					on += pass(false)
					off += pass(true)
				}
			}
			b.ReportMetric(1e9*off/float64(b.N)/rows, "off-cpu-ns/row")
			b.ReportMetric(1e9*on/float64(b.N)/rows, "on-cpu-ns/row")
			if off > 0 {
				b.ReportMetric(on/off, "cpu-ratio")
			}
		})
	}
}
