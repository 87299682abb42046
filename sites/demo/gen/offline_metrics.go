package main

// Raw ranked runs for the offline_metrics demo: three small datasets on
// which three recommenders produced top-20 lists, with the held-out truth
// (ratings 1–5, relevant from 4) and rating predictions, so the demo shows
// a study that starts from lists rather than from metric tables. Users
// belong to taste clusters; items have a cluster and a Zipf popularity.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// offlineDatasets are three of the demo's datasets, for which raw lists
// exist too; the metrics computed from them (at k = 5 and 20) join the
// study's results and units without colliding with data/results.csv (@10).
var offlineDatasets = []struct {
	name          string
	users, items  int
	clusters      int
	popularitySkw float64
}{
	{"movielens-1m", 400, 300, 6, 1.0},
	{"goodreads-young", 350, 500, 10, 0.8},
	{"lastfm-1k", 300, 250, 5, 1.2},
}

// offlineMethods: MostPop ranks by popularity, EASE by a noisy taste
// score (a stand-in for the personalised model), Random at random.
var offlineMethods = []string{"MostPop", "EASE", "Random"}

// genOfflineMetrics writes data/offline/{truth,runs,predictions}/….
func genOfflineMetrics(dir string, rng *rand.Rand) error {
	base := filepath.Join(dir, "data", "offline")
	for _, sub := range []string{"truth", "runs", "predictions"} {
		if err := os.MkdirAll(filepath.Join(base, sub), 0o755); err != nil {
			return err
		}
	}
	const topN = 20
	for _, d := range offlineDatasets {
		pop := make([]float64, d.items)
		cluster := make([]int, d.items)
		for i := range pop {
			pop[i] = 1 / math.Pow(float64(i+1), d.popularitySkw)
			cluster[i] = rng.IntN(d.clusters)
		}
		userCluster := make([]int, d.users)
		for u := range userCluster {
			userCluster[u] = rng.IntN(d.clusters)
		}
		affinity := func(u, i int) float64 {
			a := math.Log(pop[i])
			if cluster[i] == userCluster[u] {
				a += 2.5
			}
			return a
		}
		truth := []string{"user,item,relevance"}
		trueRating := make([]map[int]int, d.users)
		for u := range d.users {
			trueRating[u] = map[int]int{}
			n := 5 + rng.IntN(11)
			for len(trueRating[u]) < n {
				// Sample by affinity with Gumbel noise (one draw at a time).
				best, bestV := -1, math.Inf(-1)
				for i := range d.items {
					if _, ok := trueRating[u][i]; ok {
						continue
					}
					if v := affinity(u, i) - math.Log(-math.Log(rng.Float64())); v > bestV {
						best, bestV = i, v
					}
				}
				r := 3 + rng.IntN(2)
				if cluster[best] == userCluster[u] {
					r++
				}
				if rng.Float64() < 0.2 {
					r -= 2
				}
				trueRating[u][best] = min(5, max(1, r))
			}
			for _, i := range sortedInts(trueRating[u]) {
				truth = append(truth, fmt.Sprintf("u%d,i%d,%d", u, i, trueRating[u][i]))
			}
		}
		if err := writeLines(filepath.Join(base, "truth", d.name+".csv"), truth); err != nil {
			return err
		}
		for _, m := range offlineMethods {
			lines := []string{"user,item,rank,score"}
			preds := []string{"user,item,prediction"}
			for u := range d.users {
				type scored struct {
					item  int
					score float64
				}
				var list []scored
				for i := range d.items {
					var s float64
					switch m {
					case "MostPop":
						s = pop[i]
					case "EASE":
						s = affinity(u, i) + 1.2*rng.NormFloat64()
					default:
						s = rng.Float64()
					}
					list = append(list, scored{i, s})
				}
				sort.SliceStable(list, func(a, b int) bool {
					if list[a].score != list[b].score {
						return list[a].score > list[b].score
					}
					return list[a].item < list[b].item
				})
				for r, x := range list[:topN] {
					lines = append(lines, fmt.Sprintf("u%d,i%d,%d,%s", u, x.item, r+1, strconv.FormatFloat(x.score, 'g', 6, 64)))
				}
				if m == "Random" {
					continue // a random ranker predicts no ratings
				}
				for _, i := range sortedInts(trueRating[u]) {
					p := 3.6 + 0.3*rng.NormFloat64()
					if m == "EASE" {
						p = float64(trueRating[u][i]) + 0.8*rng.NormFloat64()
					}
					preds = append(preds, fmt.Sprintf("u%d,i%d,%s", u, i, fmtF(clamp(p, 1, 5))))
				}
			}
			name := m + "_" + d.name + ".csv"
			if err := writeLines(filepath.Join(base, "runs", name), lines); err != nil {
				return err
			}
			if m != "Random" {
				if err := writeLines(filepath.Join(base, "predictions", name), preds); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func sortedInts(m map[int]int) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}
