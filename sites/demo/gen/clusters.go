package main

// The clusters and dataset_selection analyses of the demo (manifest.d/
// 50-clusters.toml) group datasets by their characteristics. They read
// the `characteristics` input, so the demo derives it from the interaction
// logs it has just written: the size and shape features of Shevchenko et
// al. (2024, §4.3) that need no more than counting.

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// genClusters writes data/characteristics.csv (wide: dataset and one
// column per feature) from data/logs/*.csv. It must run after the logs
// are written, and the manifest needs
// `characteristics = "data/characteristics.csv"` in [inputs]. rng is
// unused: the features are a deterministic function of the logs.
func genClusters(dir string, rng *rand.Rand) error {
	_ = rng
	logs, err := filepath.Glob(filepath.Join(dir, "data", "logs", "*.csv"))
	if err != nil {
		return err
	}
	sort.Strings(logs)
	if len(logs) == 0 {
		return fmt.Errorf("clusters: no interaction logs in %s", filepath.Join(dir, "data", "logs"))
	}
	lines := []string{"dataset,Nu,Ni,Nr,SpaceSize,Shape,Density,Rpu,Rpi,Giniu,Ginii,APB"}
	for _, path := range logs {
		name := strings.TrimSuffix(filepath.Base(path), ".csv")
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		perUser, perItem := map[string]int{}, map[string]int{}
		pairs := map[[2]string]bool{}
		var userItems [][2]string
		sc := bufio.NewScanner(f)
		first := true
		for sc.Scan() {
			if first {
				first = false
				continue
			}
			c := strings.SplitN(sc.Text(), ",", 3)
			if len(c) < 2 {
				continue
			}
			p := [2]string{c[0], c[1]}
			if pairs[p] {
				continue // a repeated pair counts once
			}
			pairs[p] = true
			userItems = append(userItems, p)
			perUser[c[0]]++
			perItem[c[1]]++
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		nu, ni, nr := float64(len(perUser)), float64(len(perItem)), float64(len(userItems))
		// Average popularity bias: mean over users of the mean share of
		// users of their items.
		apbSum := map[string]float64{}
		for _, p := range userItems {
			apbSum[p[0]] += float64(perItem[p[1]]) / nu
		}
		var apb float64
		for u, s := range apbSum {
			apb += s / float64(perUser[u])
		}
		apb /= nu
		lines = append(lines, fmt.Sprintf("%s,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s", name, len(perUser), len(perItem), len(userItems),
			fmtF(nu*ni), fmtF(nu/ni), fmtF(nr/(nu*ni)), fmtF(nr/nu), fmtF(nr/ni), fmtF(clustersGini(perUser)), fmtF(clustersGini(perItem)), fmtF(apb)))
	}
	return writeLines(filepath.Join(dir, "data", "characteristics.csv"), lines)
}

// clustersGini is the Gini coefficient of counts (as the characteristics
// method note defines it): 1 − 2Σ(n+1−i)c₍ᵢ₎/((n+1)Σc) over counts sorted
// ascending.
func clustersGini(counts map[string]int) float64 {
	c := make([]float64, 0, len(counts))
	for _, v := range counts {
		c = append(c, float64(v))
	}
	sort.Float64s(c)
	n := float64(len(c))
	var num, sum float64
	for i, v := range c {
		num += (n - float64(i)) * v // (n + 1 − (i+1))
		sum += v
	}
	if sum == 0 {
		return math.NaN()
	}
	return 1 - 2*num/((n+1)*sum)
}
