// Command gen writes a large synthetic study for `make bench`:
//
//	go run ./sites/bench/gen [-datasets 100] [-methods 50] [-users 200000] DIR
//
// results for datasets × methods × 10 metrics × 3 runs, and long per-user
// units (dataset,method,unit,metric,value) for 30 datasets × 2 methods ×
// users × 2 metrics. The manifest aggregates every metric and, where the
// analysis types are registered, runs the unit-level analyses.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

func main() {
	datasets := flag.Int("datasets", 100, "datasets in results")
	methods := flag.Int("methods", 50, "methods in results")
	users := flag.Int("users", 200000, "users per (dataset, method) in units")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gen [flags] DIR")
		os.Exit(2)
	}
	if err := generate(flag.Arg(0), *datasets, *methods, *users); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

var metrics = []string{"ndcg", "precision", "recall", "map", "mrr", "hitrate", "coverage", "novelty", "rmse", "mae"}

func generate(dir string, nd, nm, nu int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(7, 7))
	if err := writeResults(dir, rng, nd, nm); err != nil {
		return err
	}
	if err := writeUnits(dir, rng, nu); err != nil {
		return err
	}
	return writeManifest(dir)
}

// writeCSV writes a file through a buffer: header, then fill.
func writeCSV(path, header string, fill func(w *bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, header)
	fill(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeResults writes results.csv: nd datasets × nm methods × every
// metric × 3 runs, a method's skill plus a dataset's difficulty plus noise.
func writeResults(dir string, rng *rand.Rand, nd, nm int) error {
	return writeCSV(filepath.Join(dir, "results.csv"), "dataset,method,metric,k,run,value", func(w *bufio.Writer) {
		skill := make([]float64, nm)
		for m := range skill {
			skill[m] = rng.Float64() * 0.1
		}
		for d := 0; d < nd; d++ {
			diff := rng.Float64() * 0.1
			for m := 0; m < nm; m++ {
				for _, metric := range metrics {
					k := "10"
					if metric == "rmse" || metric == "mae" {
						k = ""
					}
					for run := 1; run <= 3; run++ {
						v := 0.01 + skill[m] + diff + 0.01*rng.Float64()
						fmt.Fprintf(w, "d%03d,m%02d,%s,%s,%d,%s\n", d, m, metric, k, run, strconv.FormatFloat(v, 'g', 6, 64))
					}
				}
			}
		}
	})
}

// writeUnits writes units.csv: 30 datasets × treatment and control × nu
// users × two metrics, the treatment 0.01 better.
func writeUnits(dir string, rng *rand.Rand, nu int) error {
	return writeCSV(filepath.Join(dir, "units.csv"), "dataset,method,unit,metric,value", func(w *bufio.Writer) {
		var buf []byte
		for d := 0; d < 30; d++ {
			for _, m := range []string{"treatment", "control"} {
				shift := 0.0
				if m == "treatment" {
					shift = 0.01
				}
				for u := 0; u < nu; u++ {
					for _, metric := range []string{"ndcg@10", "rmse"} {
						buf = buf[:0]
						buf = fmt.Appendf(buf, "d%03d,%s,u%d,%s,", d, m, u, metric)
						buf = strconv.AppendFloat(buf, 0.2+shift+0.1*rng.NormFloat64(), 'g', 6, 64)
						buf = append(buf, '\n')
						w.Write(buf)
					}
				}
			}
		}
	})
}

// writeManifest writes study.toml: one aggregate analysis per metric.
func writeManifest(dir string) error {
	manifest := `title = "Benchmark study"
seed  = 1

[[metrics]]
name   = "rmse"
better = "lower"

[[metrics]]
name   = "mae"
better = "lower"

[inputs]
results = "results.csv"
units   = "units.csv"
`
	for _, m := range metrics {
		name := m + "@10"
		if m == "rmse" || m == "mae" {
			name = m
		}
		manifest += fmt.Sprintf("\n[[analyses]]\nid = \"agg-%s\"\ntype = \"aggregate\"\nmetric = %q\n", m, name)
	}
	return os.WriteFile(filepath.Join(dir, "study.toml"), []byte(manifest), 0o644)
}
