package report

import (
	"bufio"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/evalbook/evalbook/analyses/offline"

	"github.com/evalbook/evalbook/report/input/runs"
)

// The benchmark is 1,000,000 users; CI runs a small one:
//
//	go test ./report -run XXX -bench BenchmarkOfflineMetrics -benchtime 1x -offline.users 1000000
var offlineBenchUsers = flag.Int("offline.users", 20000, "users in BenchmarkOfflineMetrics")

// writeOfflineBench writes a truth (10 relevant items per user) and a run
// (top-100 per user, about 3 hits) for n users over a 50,000-item catalog.
func writeOfflineBench(b *testing.B, dir string, n int) (truth, run string) {
	b.Helper()
	truth, run = filepath.Join(dir, "truth.csv"), filepath.Join(dir, "run.csv")
	tf, err := os.Create(truth)
	if err != nil {
		b.Fatal(err)
	}
	rf, err := os.Create(run)
	if err != nil {
		b.Fatal(err)
	}
	tw, rw := bufio.NewWriterSize(tf, 1<<20), bufio.NewWriterSize(rf, 1<<20)
	tw.WriteString("user,item,relevance\n")
	rw.WriteString("user,item,rank,score\n")
	rng := rand.New(rand.NewPCG(1, 2))
	const catalog = 50000
	var line []byte
	list := make([]int, 0, 100)
	seen := map[int]bool{}
	for u := range n {
		clear(seen)
		list = list[:0]
		for len(list) < 100 {
			i := rng.IntN(catalog)
			if !seen[i] {
				seen[i] = true
				list = append(list, i)
			}
		}
		for r, i := range list {
			line = append(line[:0], 'u')
			line = strconv.AppendInt(line, int64(u), 10)
			line = append(line, ",i"...)
			line = strconv.AppendInt(line, int64(i), 10)
			line = append(line, ',')
			line = strconv.AppendInt(line, int64(r+1), 10)
			line = append(line, ",0.5\n"...)
			rw.Write(line)
		}
		// 10 relevant items: about 3 from the list, the rest elsewhere.
		rel := map[int]bool{}
		for len(rel) < 10 {
			var i int
			if rng.IntN(10) < 3 {
				i = list[rng.IntN(100)]
			} else {
				i = rng.IntN(catalog)
			}
			if !rel[i] {
				rel[i] = true
				line = append(line[:0], 'u')
				line = strconv.AppendInt(line, int64(u), 10)
				line = append(line, ",i"...)
				line = strconv.AppendInt(line, int64(i), 10)
				line = append(line, ',')
				line = strconv.AppendInt(line, int64(1+rng.IntN(3)), 10)
				line = append(line, '\n')
				tw.Write(line)
			}
		}
	}
	for _, w := range []*bufio.Writer{tw, rw} {
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	tf.Close()
	rf.Close()
	return truth, run
}

// BenchmarkOfflineMetrics reads the truth and the run with the streaming
// readers and computes every metric at k = 5, 10, 20, 100 (one op = the
// whole run). The target: 1,000,000 users in under 20 s. Measured
// on the shared 2-core EPYC (load average 7–10 from other jobs): 14.1 s
// wall, 16.4 s CPU (3.1 s of it the truth), 613 MB max RSS — the truth's
// 10 million judgements; the run itself streams.
func BenchmarkOfflineMetrics(b *testing.B) {
	n := *offlineBenchUsers
	truthPath, runPath := writeOfflineBench(b, b.TempDir(), n)
	o := offline.Options{Runs: "{method}", Truth: "t", K: []int{5, 10, 20, 100}}
	o.Defaults()
	cpu0 := offlineCPUTime()
	b.ResetTimer()
	var lines int64
	var truthCPU float64
	for range b.N {
		c0 := offlineCPUTime()
		truth := offline.NewTruth()
		if _, err := runs.ScanTruthCapped(truthPath, "truth.csv", runs.FormatTable, 0, func(user, item []byte, rel float64, _ int) error { return truth.Add(user, item, rel) }); err != nil {
			b.Fatal(err)
		}
		if err := truth.Finish(o.RelevanceThreshold); err != nil {
			b.Fatal(err)
		}
		truthCPU += offlineCPUTime() - c0
		run := offline.NewRun("d", "m", truth, o)
		rr, err := runs.OpenCapped(runPath, "run.csv", runs.FormatTable, false, 0)
		if err != nil {
			b.Fatal(err)
		}
		err = rr.Stream(func(blk *runs.Block) error {
			if err := run.AddUser(blk.User(), blk.Items()); err != nil {
				return rr.BlockError(blk, err)
			}
			return nil
		})
		rr.Close()
		if err != nil {
			b.Fatal(err)
		}
		if err := run.Finish(); err != nil {
			b.Fatal(err)
		}
		vals := offline.FinishDataset([]*offline.Run{run})
		if vals[0].Evaluated != n {
			b.Fatalf("%d users evaluated, want %d", vals[0].Evaluated, n)
		}
		lines = rr.Rows
	}
	b.ReportMetric((offlineCPUTime()-cpu0)/float64(b.N), "cpu-s/op")
	b.ReportMetric(truthCPU/float64(b.N), "truth-cpu-s/op")
	b.ReportMetric(float64(lines), "run-lines/op")
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "maxRSS-MB")
	}
}

// offlineCPUTime is the process's user+system CPU time in seconds: on a
// shared machine it says more than the wall clock.
func offlineCPUTime() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
