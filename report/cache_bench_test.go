package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"
)

// BenchmarkSertkan2023Cache: the cache on the five meta-analyses of Sertkan et al. 2023 in
// one process (make bench-cache; no process start, which
// sites/bench/cachebench times with it): a build without the cache, a
// warm one, one after a value of runs/MF_movielens-10M.csv (read by four
// of the five) changed to one never built before, and one after that
// edit was undone. The build without the cache is of the same edit, over
// the site of the original: each ratio compares a rebuild that writes a
// changed site with the same rebuild without the cache. Only those builds are timed (CPU from the kernel's
// accounting of the process, and wall), each from a collected heap, as
// a new process starts; printed with their ratios to the build without
// the cache, never asserted.
func BenchmarkSertkan2023Cache(b *testing.B) {
	src, err := filepath.Abs("../../shared/reference/sertkan2023/runs")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(src); err != nil {
		b.Skip("no ../shared/reference/sertkan2023/runs:", err)
	}
	dir := b.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "runs"), os.DirFS(src)); err != nil {
		b.Fatal(err)
	}
	// A study's files were written before today's builds, not within
	// the hash store's racy window of them (as the copy just did): the
	// file the rounds edit is the only one a build must hash again.
	past := time.Now().Add(-time.Hour)
	copied, _ := filepath.Glob(filepath.Join(dir, "runs", "*"))
	for _, f := range copied {
		if err := os.Chtimes(f, past, past); err != nil {
			b.Fatal(err)
		}
	}
	manifest, err := os.ReadFile("../sites/bench/sertkan2023/study.toml")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), manifest, 0o644); err != nil {
		b.Fatal(err)
	}
	edited := filepath.Join(dir, "runs", "MF_movielens-10M.csv")
	os.Chmod(edited, 0o644)
	original, err := os.ReadFile(edited)
	if err != nil {
		b.Fatal(err)
	}
	line := bytes.IndexByte(original, '\n') + 1
	comma := bytes.IndexByte(original[line:], ',') + line // 4647,0.7107011065953418,0.0
	// edit(i) is the file with the first value's digits after the
	// fourth decimal replaced by i: a content no build has seen.
	edit := func(i int) []byte {
		v := fmt.Appendf(nil, "0.7107%012d", i)
		end := bytes.IndexByte(original[comma+1:], ',') + comma + 1
		out := append(bytes.Clone(original[:comma+1]), v...)
		return append(out, original[end:]...)
	}
	write := func(body []byte) {
		if err := os.WriteFile(edited, body, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Out: filepath.Join(dir, "site"), Quiet: true, Version: "bench", CacheDir: filepath.Join(dir, "cache")}
	build := func(o Options) {
		if _, err := Build(context.Background(), o); err != nil {
			b.Fatal(err)
		}
	}
	// The four builds are timed in turn in every round, so that a phase
	// of the shared machine (its speed drifts by a quarter over minutes)
	// weighs on each alike and the ratios compare like with like.
	steps := []string{"nocache", "warm", "edit", "undo"}
	cpu := make([]float64, len(steps))
	wall := make([]time.Duration, len(steps))
	n := 0 // edit(n): a content no build has seen, across b.N's runs
	for i := 0; i < b.N; i++ {
		n++
		for k, step := range steps {
			write(original)
			oi := o
			switch step {
			case "nocache":
				// The edit built without the cache, over the site of the
				// original: it reads, computes and writes what the edit's
				// rebuild and the undo's do.
				oi.NoCache = true
				build(o)
				write(edit(n))
			case "warm":
				build(o)
			case "edit":
				build(o)
				write(edit(n))
			case "undo":
				write(edit(n))
				build(o)
				write(original)
			}
			runtime.GC() // the set-up's garbage is not the timed build's
			cpu0, t0 := processCPUSeconds(), time.Now()
			pprof.Do(context.Background(), pprof.Labels("timed", step), func(context.Context) { build(oi) })
			cpu[k], wall[k] = cpu[k]+processCPUSeconds()-cpu0, wall[k]+time.Since(t0)
		}
	}
	for k, step := range steps {
		b.ReportMetric(1000*cpu[k]/float64(b.N), step+"-cpu-ms")
	}
	for k, step := range steps[1:] {
		b.ReportMetric(cpu[k+1]/cpu[0], step+"/nocache-cpu")
		b.ReportMetric(wall[k+1].Seconds()/wall[0].Seconds(), step+"/nocache-wall")
	}
}
