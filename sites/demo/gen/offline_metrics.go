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
	for _, d := range offlineDatasets {
		w := newOfflineWorld(d.users, d.items, d.clusters, d.popularitySkw, rng)
		truth, trueRating := w.truth(d.users, d.items, rng)
		if err := writeLines(filepath.Join(base, "truth", d.name+".csv"), truth); err != nil {
			return err
		}
		for _, m := range offlineMethods {
			lines, preds := w.run(m, d.users, d.items, trueRating, rng)
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

// offlineWorld is the taste model of one offline dataset: each item's
// Zipf popularity and cluster, and each user's cluster.
type offlineWorld struct {
	pop         []float64
	cluster     []int
	userCluster []int
}

// newOfflineWorld draws the clusters of the items, then of the users.
func newOfflineWorld(users, items, clusters int, popularitySkw float64, rng *rand.Rand) *offlineWorld {
	w := &offlineWorld{pop: make([]float64, items), cluster: make([]int, items), userCluster: make([]int, users)}
	for i := range w.pop {
		w.pop[i] = 1 / math.Pow(float64(i+1), popularitySkw)
		w.cluster[i] = rng.IntN(clusters)
	}
	for u := range w.userCluster {
		w.userCluster[u] = rng.IntN(clusters)
	}
	return w
}

// affinity is how much user u likes item i: the log popularity, plus a
// bonus when they share a cluster.
func (w *offlineWorld) affinity(u, i int) float64 {
	a := math.Log(w.pop[i])
	if w.cluster[i] == w.userCluster[u] {
		a += 2.5
	}
	return a
}

// truth draws each user's held-out items and ratings, and returns them
// as the lines of the truth file and per user (item → rating).
func (w *offlineWorld) truth(users, items int, rng *rand.Rand) ([]string, []map[int]int) {
	truth := []string{"user,item,relevance"}
	trueRating := make([]map[int]int, users)
	for u := range users {
		trueRating[u] = w.userTruth(u, items, rng)
		for _, i := range sortedInts(trueRating[u]) {
			truth = append(truth, fmt.Sprintf("u%d,i%d,%d", u, i, trueRating[u][i]))
		}
	}
	return truth, trueRating
}

// userTruth draws 5 to 15 distinct items for user u by affinity and rates
// them 1–5, higher within the user's cluster.
func (w *offlineWorld) userTruth(u, items int, rng *rand.Rand) map[int]int {
	rated := map[int]int{}
	n := 5 + rng.IntN(11)
	for len(rated) < n {
		// Sample by affinity with Gumbel noise (one draw at a time).
		best, bestV := -1, math.Inf(-1)
		for i := range items {
			if _, ok := rated[i]; ok {
				continue
			}
			if v := w.affinity(u, i) - math.Log(-math.Log(rng.Float64())); v > bestV {
				best, bestV = i, v
			}
		}
		r := 3 + rng.IntN(2)
		if w.cluster[best] == w.userCluster[u] {
			r++
		}
		if rng.Float64() < 0.2 {
			r -= 2
		}
		rated[best] = min(5, max(1, r))
	}
	return rated
}

// run returns the lines of method m's run file (each user's top 20) and
// of its predictions file (a rating per held-out item; none for Random).
func (w *offlineWorld) run(m string, users, items int, trueRating []map[int]int, rng *rand.Rand) (lines, preds []string) {
	const topN = 20
	lines = []string{"user,item,rank,score"}
	preds = []string{"user,item,prediction"}
	for u := range users {
		list := w.ranking(m, u, items, rng)
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
	return lines, preds
}

// offlineScored is an item and its score in a ranking.
type offlineScored struct {
	item  int
	score float64
}

// ranking scores every item for user u as method m does and sorts them
// by score, best first (ties by item).
func (w *offlineWorld) ranking(m string, u, items int, rng *rand.Rand) []offlineScored {
	var list []offlineScored
	for i := range items {
		var s float64
		switch m {
		case "MostPop":
			s = w.pop[i]
		case "EASE":
			s = w.affinity(u, i) + 1.2*rng.NormFloat64()
		default:
			s = rng.Float64()
		}
		list = append(list, offlineScored{i, s})
	}
	sort.SliceStable(list, func(a, b int) bool {
		if list[a].score != list[b].score {
			return list[a].score > list[b].score
		}
		return list[a].item < list[b].item
	})
	return list
}

func sortedInts(m map[int]int) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}
