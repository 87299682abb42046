package report

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSertkan2023Split builds make bench-sertkan2023's study (five
// meta-analyses over the per-user runs of Sertkan et al. 2023, from
// ../shared/reference, skipped when absent) cold, in this process, three ways, and reports the
// CPU and wall time of each build: "site" (what a build must do: read,
// analyse, SVG figures, render, write), "exports" (plus the figures' PDF
// and PNG for a manuscript, as evalbook build always does) and "validate"
// (the same pipeline, writing nothing). Its difference tells which part
// of the cold build the manuscript's figures take. A build in a process
// of its own (make bench-sertkan2023) adds the start-up and, for the PDFs,
// reading each font face once (this process keeps them after its first
// build). Printed, never asserted.
func BenchmarkSertkan2023Split(b *testing.B) {
	runs, err := filepath.Abs("../../shared/reference/sertkan2023/runs")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(runs); err != nil {
		b.Skip("no ../shared/reference/sertkan2023/runs:", err)
	}
	manifest, err := os.ReadFile("../sites/bench/sertkan2023/study.toml")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := os.Symlink(runs, filepath.Join(dir, "runs")); err != nil {
		b.Skip("no symlinks:", err)
	}
	manifest = append([]byte("allow_outside = true\n"), manifest...)
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), manifest, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name             string
		exports, writing bool
	}{{"site", false, true}, {"exports", true, true}, {"validate", true, false}} {
		b.Run(c.name, func(b *testing.B) {
			o := Options{Manifest: filepath.Join(dir, "study.toml"), Out: filepath.Join(dir, "site-"+c.name), NoCache: true, Exports: c.exports, Quiet: true, Version: "bench"}
			cpu0, wall0 := processCPUSeconds(), time.Now()
			for i := 0; i < b.N; i++ {
				var err error
				if c.writing {
					_, err = Build(context.Background(), o)
				} else {
					_, err = Validate(context.Background(), o)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			cpu, wall := processCPUSeconds()-cpu0, time.Since(wall0).Seconds()
			b.ReportMetric(1000*cpu/float64(b.N), "cpu-ms/build")
			b.ReportMetric(1000*wall/float64(b.N), "wall-ms/build")
		})
	}
}
