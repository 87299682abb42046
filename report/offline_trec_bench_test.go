package report

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/evalbook/evalbook/analyses/offline"

	"github.com/evalbook/evalbook/report/input/runs"
	"github.com/evalbook/evalbook/report/kinds"
)

// make bench-offline:
//
//	go test ./report -run '^$' -bench 'BenchmarkOfflineTREC' -benchtime 1x -offline.trec.queries 1000000
var (
	offlineTRECQueries = flag.Int("offline.trec.queries", 20000, "queries in BenchmarkOfflineTRECCompare (100-deep runs, 3 runs)")
	offlineTRECLines   = flag.Int("offline.trec.lines", 1000000, "lines of the interleaved run of BenchmarkOfflineTRECInterleaved")
)

// writeTRECBench writes qrels (10 judged documents per query, levels
// 0…3) and a 100-deep run per method; interleaved shuffles the queries'
// lines in blocks, so that no query's lines are contiguous.
func writeTRECBench(b *testing.B, dir string, queries int, methods []string, interleaved bool) {
	b.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	qf, err := os.Create(filepath.Join(dir, "qrels.txt"))
	if err != nil {
		b.Fatal(err)
	}
	qw := bufio.NewWriterSize(qf, 1<<20)
	var line []byte
	for q := range queries {
		for j := range 10 {
			line = strconv.AppendInt(line[:0], int64(q), 10)
			line = append(line, " 0 d"...)
			line = strconv.AppendInt(line, int64(j*7), 10)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(rng.IntN(4)), 10)
			line = append(line, '\n')
			qw.Write(line)
		}
	}
	qw.Flush()
	qf.Close()
	os.MkdirAll(filepath.Join(dir, "runs"), 0o755)
	for mi, m := range methods {
		f, err := os.Create(filepath.Join(dir, "runs", m+".run"))
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		write := func(q, r int) {
			line = strconv.AppendInt(line[:0], int64(q), 10)
			line = append(line, " Q0 d"...)
			line = strconv.AppendInt(line, int64((q*13+r*(1+mi%2)+mi*37)%1000), 10)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(r+1), 10)
			line = append(line, ' ')
			line = strconv.AppendFloat(line, float64(100-r)+rng.Float64()*0.5, 'f', 3, 64)
			line = append(line, ' ')
			line = append(line, m...)
			line = append(line, '\n')
			w.Write(line)
		}
		if interleaved {
			// rank-major: query 0's rank 1, query 1's rank 1, …, then rank 2, …
			for r := range 100 {
				for q := range queries {
					write(q, r)
				}
			}
		} else {
			for q := range queries {
				for r := range 100 {
					write(q, r)
				}
			}
		}
		w.Flush()
		f.Close()
	}
}

// cpuSeconds is the process's user + system time: on a shared machine
// a steadier measure than the wall clock.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

func maxRSSMiB() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Maxrss) / 1024
}

// BenchmarkOfflineTRECCompare: queries × 100-deep TREC runs for 3 runs,
// every measure at k = 10, compare = fisher with 10,000 permutations on
// map and ndcg@10, through OfflineMetricsDerived and Compare as a build
// runs them. Prints the time of each stage and the peak RSS.
func BenchmarkOfflineTRECCompare(b *testing.B) {
	n := *offlineTRECQueries
	dir := b.TempDir()
	t0 := time.Now()
	writeTRECBench(b, dir, n, []string{"bm25", "dense", "splade"}, false)
	gen := time.Since(t0)
	files := map[string]string{}
	ctx := offlineTestCtx(b, files)
	ctx.Study.Dir = dir
	ctx.Workers = runtime.GOMAXPROCS(0)
	o := &offline.Options{Runs: "runs/{method}.run", Truth: "qrels.txt", K: []int{10},
		Compare: &offline.CompareOptions{Test: offline.TestFisher, Permutations: 10000, Metrics: []string{"map", "ndcg@10"}}}
	o.Defaults()
	if err := o.Validate(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		t1, c1 := time.Now(), cpuSeconds()
		d, err := kinds.OfflineMetricsDerived(ctx, o, nil)
		if err != nil {
			b.Fatal(err)
		}
		read, readCPU := time.Since(t1), cpuSeconds()-c1
		t2, c2 := time.Now(), cpuSeconds()
		cs, _ := offline.Compare(*o.Compare, o.CompareMetrics(), d.PerQuery, 7, ctx.Workers)
		cmp, cmpCPU := time.Since(t2), cpuSeconds()-c2
		fmt.Printf("offline TREC: %d queries x 100 x 3 runs (%d lines): generate %.1f s; read+evaluate %.1f s wall (%.1f s CPU); compare (fisher, 10,000 permutations, %d tests) %.1f s wall (%.1f s CPU); total %.1f s wall; peak RSS %.0f MiB\n",
			n, 300*n, gen.Seconds(), read.Seconds(), readCPU, len(cs), cmp.Seconds(), cmpCPU, (read + cmp).Seconds(), maxRSSMiB())
	}
}

// BenchmarkOfflineTRECInterleaved reads a rank-major (fully interleaved)
// TREC run through the external sort and prints the peak RSS.
func BenchmarkOfflineTRECInterleaved(b *testing.B) {
	queries := max(*offlineTRECLines/100, 1)
	dir := b.TempDir()
	writeTRECBench(b, dir, queries, []string{"mixed"}, true)
	b.ResetTimer()
	for range b.N {
		t0, c0 := time.Now(), cpuSeconds()
		rr, err := runs.OpenCapped(filepath.Join(dir, "runs", "mixed.run"), "mixed.run", runs.FormatTREC, false, 0)
		if err != nil {
			b.Fatal(err)
		}
		blocks := 0
		for {
			_, items, err := rr.Next()
			if err != nil {
				break
			}
			if len(items) != 100 {
				b.Fatalf("a block of %d lines", len(items))
			}
			blocks++
		}
		rr.Close()
		if blocks != queries {
			b.Fatalf("%d blocks, want %d", blocks, queries)
		}
		fmt.Printf("offline TREC interleaved: %d lines (%d queries, rank-major) grouped in %.1f s wall (%.1f s CPU), peak RSS %.0f MiB\n",
			100*queries, queries, time.Since(t0).Seconds(), cpuSeconds()-c0, maxRSSMiB())
	}
}
