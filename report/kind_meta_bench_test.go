package report

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
)

// metaBenchStudy writes a study with one meta-analysis of k two-group
// summaries (as published papers give them) and sensitivity = true.
func metaBenchStudy(tb testing.TB, k int) string {
	tb.Helper()
	dir := tb.TempDir()
	rng := rand.New(rand.NewPCG(3, 5))
	var b strings.Builder
	b.WriteString("dataset,m1i,sd1i,n1i,m2i,sd2i,n2i\n")
	for i := 0; i < k; i++ {
		m2 := 0.1 + 0.2*rng.Float64()
		g := 0.1 + 0.1*rng.NormFloat64()
		fmt.Fprintf(&b, "study-%05d,%.5f,%.5f,%d,%.5f,%.5f,%d\n", i, m2*math.Exp(g), 0.02+0.05*rng.Float64(), 5+rng.IntN(200),
			m2, 0.02+0.05*rng.Float64(), 5+rng.IntN(200))
	}
	if err := os.WriteFile(filepath.Join(dir, "papers.csv"), []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	toml := `title = "bench"
[[analyses]]
id = "meta"
type = "meta_analysis"
title = "many summaries"
summary = "papers.csv"
better = "higher"
effect = "smd"
sensitivity = true
`
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(toml), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// BenchmarkMetaSummary10k: a DL meta-analysis of 10,000 two-group
// summaries with sensitivity = true. It reports, per run, the analysis
// alone (reading the summary file, effects, the model, leave-one-out,
// influence, Egger's test) as analysis-ms, the kind's whole run with the
// forest and funnel plots as run-ms, and the complete site build (HTML
// tables of 10,000 rows included) as build-ms. Times are printed, never
// asserted.
func BenchmarkMetaSummary10k(b *testing.B) {
	dir := metaBenchStudy(b, 10000)
	manifestPath := filepath.Join(dir, "study.toml")
	s, err := manifest.LoadStudy(manifestPath, kinds.Kinds())
	if err != nil {
		b.Fatal(err)
	}
	a := s.Analyses[0]
	o := a.Options.(*meta.Options)
	var analysis, run, build time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		ctx := &kinds.Job{ID: a.ID, Title: a.Title, Study: s, Workers: runtime.GOMAXPROCS(0), Inputs: newInputs(s), ProgressTo: kinds.NoProgress{}}
		studies, err := kinds.MetaReadSummary(ctx, o.Summary)
		if err != nil {
			b.Fatal(err)
		}
		r, err := meta.Analyze(meta.Input{Studies: studies}, *o)
		if err != nil || len(r.Influence) != 10000 {
			b.Fatal(err)
		}
		analysis += time.Since(start)
		start = time.Now()
		ctx = &kinds.Job{ID: a.ID, Title: a.Title, Study: s, Workers: runtime.GOMAXPROCS(0), Inputs: newInputs(s), ProgressTo: kinds.NoProgress{}}
		if _, err := kinds.Kinds()[a.Type].Run(ctx, a.Options); err != nil {
			b.Fatal(err)
		}
		run += time.Since(start)
		start = time.Now()
		if _, err := Build(context.Background(), Options{Manifest: manifestPath, Format: "html", NoCache: true, Quiet: true}); err != nil {
			b.Fatal(err)
		}
		build += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(analysis.Microseconds())/1e3/n, "analysis-ms")
	b.ReportMetric(float64(run.Microseconds())/1e3/n, "run-ms")
	b.ReportMetric(float64(build.Microseconds())/1e3/n, "build-ms")
}
