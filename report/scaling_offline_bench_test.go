package report

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkScalingOfflineMetrics is BenchmarkScaling's growth over
// methods (runs, on 10 datasets) and datasets (truth files, 10 methods)
// for offline_metrics: one small run file per (method, dataset) of 5
// users × 5 ranked items, the truth 3 relevant items per user. Printed,
// never asserted (issue 31: no kind faster than n log n).
func BenchmarkScalingOfflineMetrics(b *testing.B) {
	sizes := scalingSizes(b)
	for _, axis := range []string{"methods", "datasets"} {
		b.Run(axis, func(b *testing.B) {
			var prevN int
			var prev time.Duration
			for _, n := range sizes {
				nd, nm := 10, n
				if axis == "datasets" {
					nd, nm = n, 10
				}
				dir := b.TempDir()
				writeOfflineScalingStudy(b, dir, nd, nm)
				start, cpu0 := time.Now(), processCPU()
				_, err := Build(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml"), Format: "html", NoCache: true, Version: "bench", Quiet: true})
				wall, cpu := time.Since(start), processCPU()-cpu0
				d := cpu
				if cpu <= 0 {
					d = wall
				}
				if err != nil {
					msg, _, _ := strings.Cut(err.Error(), "\n")
					b.Logf("offline_metrics over %d %s: stopped after %v: %s", n, axis, wall.Round(time.Millisecond), msg)
					prevN = 0
					continue
				}
				slope := ""
				if prevN > 0 {
					slope = fmt.Sprintf(", exponent %.2f", math.Log(float64(d)/float64(prev))/math.Log(float64(n)/float64(prevN)))
				}
				b.Logf("offline_metrics over %d %s: %v wall, %v CPU%s", n, axis, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), slope)
				prevN, prev = n, d
			}
		})
	}
}

// writeOfflineScalingStudy writes nd truth files and nd × nm run files.
func writeOfflineScalingStudy(b testing.TB, dir string, nd, nm int) {
	for _, sub := range []string{"runs", "truth"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	write := func(name string, fill func(w *bufio.Writer)) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriter(f)
		fill(w)
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	for d := range nd {
		write(fmt.Sprintf("truth/d%d.csv", d), func(w *bufio.Writer) {
			w.WriteString("user,item\n")
			for u := range 5 {
				for i := range 3 {
					fmt.Fprintf(w, "u%d,i%d\n", u, (u+d+2*i)%9)
				}
			}
		})
		for m := range nm {
			write(fmt.Sprintf("runs/m%d_d%d.csv", m, d), func(w *bufio.Writer) {
				w.WriteString("user,item,rank\n")
				for u := range 5 {
					for r := range 5 {
						fmt.Fprintf(w, "u%d,i%d,%d\n", u, (u+m+3*r)%9+r*9, r+1)
					}
				}
			})
		}
	}
	manifest := "title = \"scaling\"\n[[analyses]]\nid = \"a\"\ntype = \"offline_metrics\"\nruns = \"runs/{method}_{dataset}.csv\"\ntruth = \"truth/{dataset}.csv\"\nk = [5]\n"
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(manifest), 0o644); err != nil {
		b.Fatal(err)
	}
}
