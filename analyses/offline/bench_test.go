package offline

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// BenchmarkOfflineCore is the pure core alone: 20,000 users' top-100
// lists (10 relevant items each, over a 50,000-item catalog), all metrics
// at k = 5, 10, 20, 100. ns/item × 10⁸ is the core's share of the issue's
// million-user benchmark (report.BenchmarkOfflineMetrics adds reading).
func BenchmarkOfflineCore(b *testing.B) {
	const users, catalog = 20000, 50000
	rng := rand.New(rand.NewPCG(3, 4))
	name := func(prefix byte, i int) []byte { return strconv.AppendInt([]byte{prefix}, int64(i), 10) }
	truth := NewTruth()
	lists := make([][][]byte, users)
	for u := range users {
		seen := map[int]bool{}
		for len(lists[u]) < 100 {
			i := rng.IntN(catalog)
			if !seen[i] {
				seen[i] = true
				lists[u] = append(lists[u], name('i', i))
			}
		}
		rel := map[int]bool{}
		for len(rel) < 10 {
			i := rng.IntN(catalog)
			if rng.IntN(10) < 3 {
				i = int(mustAtoi(lists[u][rng.IntN(100)][1:]))
			}
			if !rel[i] {
				rel[i] = true
				truth.Add(name('u', u), name('i', i), float64(1+rng.IntN(3)))
			}
		}
	}
	if err := truth.Finish(1); err != nil {
		b.Fatal(err)
	}
	o := Options{Runs: "{method}", Truth: "t", K: []int{5, 10, 20, 100}}
	o.Defaults()
	userNames := make([][]byte, users)
	for u := range users {
		userNames[u] = name('u', u)
	}
	b.ResetTimer()
	for range b.N {
		run := NewRun("d", "m", truth, o)
		for u := range users {
			if err := run.AddUser(userNames[u], lists[u]); err != nil {
				b.Fatal(err)
			}
		}
		if err := run.Finish(); err != nil {
			b.Fatal(err)
		}
		FinishDataset([]*Run{run})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(users*100), "ns/item")
}

func mustAtoi(b []byte) int64 {
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		panic(err)
	}
	return v
}
