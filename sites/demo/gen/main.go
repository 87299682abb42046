// Command gen writes the demo study: a deterministic, realistic synthetic
// benchmark of recommenders over many datasets, and its manifest.
//
//	go run ./sites/demo/gen sites/demo [sites/demo/manifest.d]
//
// writes sites/demo/study.toml (base manifest + every manifest.d/*.toml
// in name order) and sites/demo/data/…. The same command always writes
// the same bytes.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 2 && len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen DIR [MANIFEST.D]")
		os.Exit(2)
	}
	frags := filepath.Join(os.Args[1], "manifest.d")
	if len(os.Args) == 3 {
		frags = os.Args[2]
	}
	if err := generate(os.Args[1], frags); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// A domain shifts methods' strengths: sequential-heavy domains favour
// SASRec, sparse retail favours item-based methods, and so on.
type domain struct {
	name  string
	bonus map[string]float64
}

var domains = []domain{
	{"movies", map[string]float64{"EASE": 0.04, "MultiVAE": 0.05, "LightGCN": 0.02, "SASRec": 0.01}},
	{"books", map[string]float64{"ItemKNN": 0.04, "SLIM": 0.05, "EASE": 0.02, "ALS": -0.01}},
	{"retail", map[string]float64{"ItemKNN": 0.03, "BPR": 0.03, "LightGCN": 0.04, "MultiVAE": -0.03}},
	{"music", map[string]float64{"SASRec": 0.06, "ALS": 0.03, "MostPop": 0.02}},
	{"news", map[string]float64{"MostPop": 0.05, "SASRec": 0.04, "ItemKNN": -0.02, "LightFM": 0.03}},
	{"pois", map[string]float64{"LightGCN": 0.05, "NeuMF": 0.03, "BPR": 0.02, "EASE": -0.02}},
}

// methods with their base quality (added to a dataset's difficulty).
var methods = []struct {
	name  string
	skill float64
	cover float64 // catalogue coverage tendency
}{
	{"EASE", 0.10, 0.45}, {"MultiVAE", 0.085, 0.40}, {"LightGCN", 0.09, 0.35}, {"SASRec", 0.075, 0.50},
	{"SLIM", 0.07, 0.40}, {"ItemKNN", 0.065, 0.60}, {"ALS", 0.07, 0.30}, {"BPR", 0.06, 0.25},
	{"LightFM", 0.06, 0.30}, {"NeuMF", 0.055, 0.25}, {"MostPop", 0.02, 0.01}, {"Random", -0.09, 0.95},
}

// unitMethods have per-user values in data/units.
var unitMethods = []string{"EASE", "LightGCN", "ALS", "MostPop"}

type dataset struct {
	name, domain   string
	users, items   int
	interactions   int
	difficulty     float64 // shifts every method's nDCG
	noise          float64
	ratingScale    bool
	popularitySkew float64
}

func datasets(rng *rand.Rand) []dataset {
	prefixes := map[string][]string{
		"movies": {"movielens-100k", "movielens-1m", "netflix-small", "filmtrust", "douban-movies", "kinopoisk-mini"},
		"books":  {"goodreads-young", "bookcrossing", "amazon-books", "librarything", "anobii"},
		"retail": {"amazon-toys", "amazon-beauty", "amazon-office", "retailrocket", "ta-feng", "instacart-mini"},
		"music":  {"lastfm-1k", "yelp-music", "million-song", "spotify-mpd-mini", "amazon-digital-music"},
		"news":   {"mind-small", "adressa", "globo", "plista", "yahoo-r6"},
		"pois":   {"foursquare-nyc", "foursquare-tky", "gowalla", "brightkite", "yelp-pois"},
	}
	var out []dataset
	for _, d := range domains {
		for _, name := range prefixes[d.name] {
			users := 150 + rng.IntN(450)
			items := 80 + rng.IntN(400)
			density := 0.01 + rng.Float64()*0.06
			out = append(out, dataset{
				name: name, domain: d.name, users: users, items: items,
				interactions:   int(float64(users*items) * density),
				difficulty:     -0.04 + rng.Float64()*0.12,
				noise:          0.004 + rng.Float64()*0.012,
				ratingScale:    d.name == "movies" || d.name == "books",
				popularitySkew: 0.6 + rng.Float64()*0.8,
			})
		}
	}
	return out
}

// generate writes the demo study into dir: the data files, the pages and
// the manifest (base + the fragments in name order). Each step draws from
// the one random stream in turn, so the order of the steps is part of
// the output.
func generate(dir, fragments string) error {
	if err := checkTarget(dir, fragments); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(20240825, 1))
	data := filepath.Join(dir, "data")
	if err := cleanDataDir(data); err != nil {
		return err
	}
	ds := datasets(rng)
	bonus := map[string]map[string]float64{}
	for _, d := range domains {
		bonus[d.name] = d.bonus
	}
	unitMean, err := writeUnits(data, ds, bonus, rng)
	if err != nil {
		return err
	}
	if err := writeResults(data, ds, bonus, unitMean, rng); err != nil {
		return err
	}
	// Interaction logs with a popularity long tail, repeated pairs and
	// ratings on explicit-feedback domains.
	for _, d := range ds {
		if err := writeLog(filepath.Join(data, "logs", d.name+".csv"), d, rng); err != nil {
			return err
		}
	}
	if err := genAnalysesData(dir, rng); err != nil {
		return err
	}
	if err := writePages(dir); err != nil {
		return err
	}
	return writeManifest(dir, fragments, ds)
}

// generatedHeader opens every study.toml the generator writes; a
// directory whose study.toml lacks it is someone's study.
const generatedHeader = "# Generated by sites/demo/gen"

// checkTarget refuses what generating would lose or get wrong: a
// directory holding a study.toml the generator did not write (its data/
// would be emptied and its manifest replaced), and manifest fragments
// that do not exist (the study would have no analyses).
func checkTarget(dir, fragments string) error {
	if st, err := os.Stat(fragments); err != nil || !st.IsDir() {
		return fmt.Errorf("no manifest fragments at %s: give them as the second argument (gen DIR sites/demo/manifest.d)", fragments)
	}
	b, err := os.ReadFile(filepath.Join(dir, "study.toml"))
	if err == nil && !strings.HasPrefix(string(b), generatedHeader) {
		return fmt.Errorf("%s holds a study.toml the generator did not write: refusing to replace it and empty %s; choose a new directory", dir, filepath.Join(dir, "data"))
	}
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// No study.toml: the generator's own directory (sites/demo holds
	// only gen/ and manifest.d/ in a fresh clone) or a new one; a data/
	// with files in it is someone's, and would be emptied.
	if entries, _ := os.ReadDir(filepath.Join(dir, "data")); len(entries) > 0 {
		return fmt.Errorf("%s holds files of its own and no generated study.toml: refusing to empty it; choose a new directory", filepath.Join(dir, "data"))
	}
	return nil
}

// cleanDataDir empties data and makes it with its units and logs folders.
func cleanDataDir(data string) error {
	// Start clean: files of an older generator must not linger.
	if err := os.RemoveAll(data); err != nil {
		return err
	}
	for _, sub := range []string{"", "units", "logs"} {
		if err := os.MkdirAll(filepath.Join(data, sub), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// writeUnits writes data/units/<method>_<dataset>.csv: per-user values
// for a few methods, paired by row (same users in the same order), from a
// user difficulty shared across methods. It returns each (dataset,
// method)'s mean nDCG over the users with a value.
func writeUnits(data string, ds []dataset, bonus map[string]map[string]float64, rng *rand.Rand) (map[[2]string]float64, error) {
	unitMean := map[[2]string]float64{}
	for _, d := range ds {
		n := d.users
		userEase := make([]float64, n)
		for u := range userEase {
			userEase[u] = rng.NormFloat64()
		}
		noRelevant := make([]bool, n)
		for u := range noRelevant {
			noRelevant[u] = rng.Float64() < 0.03
		}
		for _, m := range unitMethods {
			rows, mean := unitRows(quality(d, m, bonus, rng), userEase, noRelevant, rng)
			unitMean[[2]string{d.name, m}] = mean
			if err := writeLines(filepath.Join(data, "units", m+"_"+d.name+".csv"), rows); err != nil {
				return nil, err
			}
		}
	}
	return unitMean, nil
}

// unitRows draws the per-user nDCG@10 and RMSE of a method of expected
// nDCG mean: the lines of its units file and the mean nDCG of the users
// with a value (users with no relevant item have none).
func unitRows(mean float64, userEase []float64, noRelevant []bool, rng *rand.Rand) ([]string, float64) {
	n := len(userEase)
	var sum float64
	var cnt int
	rows := make([]string, 0, n+1)
	rows = append(rows, "user,ndcg@10,rmse")
	for u := 0; u < n; u++ {
		z := 0.8*userEase[u] + 0.6*rng.NormFloat64()
		v := clamp(mean+0.12*z, 0, 1)
		if rng.Float64() < 0.25 {
			v = 0 // no hit in the top 10
		}
		rmse := 0.8 + 0.25*math.Abs(z) + 0.3*(0.1-mean) + 0.05*rng.NormFloat64()
		cell := fmtF(v)
		if noRelevant[u] {
			cell = "" // user with no held-out item: missing
		} else {
			sum += v
			cnt++
		}
		rows = append(rows, fmt.Sprintf("u%04d,%s,%s", u, cell, fmtF(rmse)))
	}
	return rows, sum / float64(cnt)
}

// writeResults writes data/results.csv: three runs per cell, long form
// with a k column. A method with units takes their mean as its quality.
func writeResults(data string, ds []dataset, bonus map[string]map[string]float64, unitMean map[[2]string]float64, rng *rand.Rand) error {
	res := []string{"dataset,method,metric,k,run,value"}
	for _, d := range ds {
		for _, m := range methods {
			base := quality(d, m.name, bonus, rng)
			if v, ok := unitMean[[2]string{d.name, m.name}]; ok {
				base = v
			}
			for run := 1; run <= 3; run++ {
				res = appendRun(res, d, m.name, m.cover, base, run, rng)
			}
		}
	}
	return writeLines(filepath.Join(data, "results.csv"), res)
}

// appendRun appends to res the metrics of one run of method m (of
// catalogue coverage tendency cover and expected nDCG base) on d.
func appendRun(res []string, d dataset, m string, cover, base float64, run int, rng *rand.Rand) []string {
	jit := func(s float64) float64 { return s * rng.NormFloat64() }
	ndcg := clamp(base+jit(d.noise/3), 0.0005, 1)
	prec := clamp(ndcg*0.55+jit(0.004), 0.0001, 1)
	rec := clamp(ndcg*1.3+jit(0.01), 0.0001, 1)
	mapv := clamp(ndcg*0.7+jit(0.005), 0.0001, 1)
	mrr := clamp(ndcg*1.6+jit(0.01), 0.0001, 1)
	hit := clamp(ndcg*2.8+jit(0.02), 0.0001, 1)
	cov := clamp(cover+0.1*rng.NormFloat64()*0.3, 0.001, 1)
	nov := clamp(6+8*cover-2*ndcg+0.3*rng.NormFloat64(), 0.1, 30)
	rmse := clamp(0.95-1.2*base+0.02*rng.NormFloat64()+0.1*d.difficulty, 0.5, 2)
	mae := clamp(rmse*0.78+0.01*rng.NormFloat64(), 0.3, 2)
	for _, mv := range []struct {
		metric, k string
		v         float64
	}{
		{"ndcg", "10", ndcg}, {"precision", "10", prec}, {"recall", "10", rec}, {"map", "10", mapv},
		{"mrr", "10", mrr}, {"hitrate", "10", hit}, {"coverage", "10", cov}, {"novelty", "10", nov},
		{"rmse", "", rmse}, {"mae", "", mae},
	} {
		res = append(res, fmt.Sprintf("%s,%s,%s,%s,%d,%s", d.name, m, mv.metric, mv.k, run, fmtF(mv.v)))
	}
	return res
}

// genAnalysesData writes the extra data of individual analyses (each in
// its own file); the offline runs and the meta-analysis papers draw from
// streams of their own.
func genAnalysesData(dir string, rng *rand.Rand) error {
	for _, gen := range []func(string, *rand.Rand) error{
		genSignificance,
		genClusters,
		genMultiObjective,
	} {
		if err := gen(dir, rng); err != nil {
			return err
		}
	}
	if err := genOfflineMetrics(dir, rand.New(rand.NewPCG(20240825, 10))); err != nil {
		return err
	}
	if err := genMetaPapers(dir, rand.New(rand.NewPCG(20240825, 30))); err != nil {
		return err
	}
	return genMetaTrials(dir, rand.New(rand.NewPCG(20240825, 40)))
}

// quality is a method's expected nDCG@10 on a dataset.
func quality(d dataset, m string, bonus map[string]map[string]float64, rng *rand.Rand) float64 {
	var skill float64
	for _, x := range methods {
		if x.name == m {
			skill = x.skill
		}
	}
	if m == "Random" {
		return 0.002 + 0.004*rng.Float64()
	}
	return clamp(skill+bonus[d.domain][m]+d.difficulty+0.015*rng.NormFloat64(), 0.003, 0.6)
}

func writeLog(path string, d dataset, rng *rand.Rand) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "user,item,rating,timestamp")
	// Zipf-like item popularity.
	weights := make([]float64, d.items)
	var total float64
	for i := range weights {
		weights[i] = 1 / math.Pow(float64(i+1), d.popularitySkew)
		total += weights[i]
	}
	cum := make([]float64, d.items)
	acc := 0.0
	for i, w := range weights {
		acc += w / total
		cum[i] = acc
	}
	ts := int64(1_600_000_000)
	for n := 0; n < d.interactions; n++ {
		u := rng.IntN(d.users)
		i := sort.SearchFloat64s(cum, rng.Float64())
		if i >= d.items {
			i = d.items - 1
		}
		rating := "1"
		if d.ratingScale {
			rating = strconv.Itoa(1 + rng.IntN(5))
		}
		ts += int64(1 + rng.IntN(600))
		fmt.Fprintf(w, "u%04d,i%04d,%s,%d\n", u, i, rating, ts)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writePages writes the demo's pages (pages/*.md) and its bibliography
// (refs.bib).
func writePages(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "pages"), 0o755); err != nil {
		return err
	}
	for name, text := range map[string]string{"intro.md": demoIntroPage, "setup.md": demoSetupPage, "findings.md": demoFindingsPage} {
		if err := os.WriteFile(filepath.Join(dir, "pages", name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "refs.bib"), []byte(demoRefsBib), 0o644)
}

// demoIntroPage is pages/intro.md: what the study is and asks.
const demoIntroPage = `# Introduction

This companion site accompanies a (synthetic) benchmark of twelve recommender
algorithms on 32 public-style datasets from six domains. Every number on these
pages is computed by evalbook from the raw results in ` + "`data/`" + `, so the text
and the figures cannot drift apart.

The study asks three questions:

1. Which method is best **overall**, and does the answer depend on how the
   per-dataset results are aggregated?
2. How **stable** are such leaderboards when datasets or methods change?
3. Which **dataset characteristics** explain where methods succeed?

| Domain | Datasets |
| --- | ---: |
| movies | 6 |
| books | 5 |
| retail | 6 |
| music | 5 |
| news | 5 |
| pois | 5 |

The data are generated by ` + "`sites/demo/gen`" + ` with a fixed seed[^seed].

[^seed]: Seed 20240825; regenerate with ` + "`make demo`" + `.
`

// demoSetupPage is pages/setup.md: how the runs and metrics were made.
const demoSetupPage = `# Experimental setup

Each method was trained three times per dataset with different random seeds;
evalbook averages the runs and keeps their spread. Metrics are computed on the
top ten recommendations (` + "`@10`" + `) except the rating errors RMSE and MAE,
for which **lower is better**.

Per-user values of nDCG@10 and RMSE are kept for EASE, LightGCN, ALS and
MostPop, so that paired comparisons and effect sizes can use the users of each
dataset as units.
`

// demoFindingsPage is pages/findings.md: prose whose numbers are read
// from the analyses when the site is built.
const demoFindingsPage = `# Findings

Every number on this page is read from the analyses' data when the site is
built, so the prose cannot drift from the results.

## One leaderboard, many rules

EASE has the best mean rank over the datasets,
{{value leaderboard tables.leaderboard[method=EASE].mean_rank %.2f}}, ahead of
LightGCN at {{value leaderboard tables.leaderboard[method=LightGCN].mean_rank %.2f}}
({{ref tab:leaderboard}}). The Dolan–Moré performance profile [@dolan2002] of a
method $m$ is

$$
\rho_m(\beta) = \frac{1}{|D|} \left|\{ d \in D : r_{d,m} \le \beta \}\right|,
\qquad r_{d,m} = \frac{\max_{m'} q_{d,m'}}{q_{d,m}},
$$

and the area under it ranks EASE first with a normalised AUC of
{{value leaderboard tables.leaderboard[method=EASE].dm_auc %.3f}}
({{ref fig:leaderboard}}), as in the study this demo imitates [@shevchenko2024].

{{figure leaderboard}}

On rating error, where lower is better, the rules disagree more
({{ref tab:leaderboard-rmse}}).
`

// demoRefsBib is refs.bib, the references the pages cite.
const demoRefsBib = `@inproceedings{shevchenko2024,
  author    = {Shevchenko, Valeriy and Belousov, Nikita and Vasilev, Alexey and Zholobov, Vladimir and Sosedka, Artyom and Semenova, Natalia and Volodkevich, Anna and Savchenko, Andrey and Zaytsev, Alexey},
  title     = {From Variability to Stability: Advancing {RecSys} Benchmarking Practices},
  booktitle = {Proceedings of the 30th ACM SIGKDD Conference on Knowledge Discovery and Data Mining},
  year      = {2024},
  doi       = {10.1145/3637528.3671655}
}

@article{dolan2002,
  author  = {Dolan, Elizabeth D. and Mor{\'e}, Jorge J.},
  title   = {Benchmarking optimization software with performance profiles},
  journal = {Mathematical Programming},
  volume  = {91},
  pages   = {201--213},
  year    = {2002},
  doi     = {10.1007/s101070100263}
}

@article{demsar2006,
  author  = {Dem{\v{s}}ar, Janez},
  title   = {Statistical Comparisons of Classifiers over Multiple Data Sets},
  journal = {Journal of Machine Learning Research},
  volume  = {7},
  pages   = {1--30},
  year    = {2006}
}
`

// manifestHead is the demo manifest's study, metrics, methods, inputs
// and pages; the datasets and the analyses (manifest.d) follow it.
const manifestHead = `# Generated by sites/demo/gen: edit the generator or manifest.d/*.toml, not this file.
title    = "Twelve Recommenders, Thirty-Two Datasets"
subtitle = "Companion site of a synthetic multi-dataset benchmark"
authors  = ["A. Researcher", "B. Reviewer", "C. Maintainer"]
date     = "2024-08-25"
doi      = "10.1145/3637528.3671655"
links    = { paper = "https://arxiv.org/abs/2402.09766", code = "https://github.com/evalbook/evalbook" }
license  = "CC-BY-4.0"
seed     = 42
bibliography = "refs.bib"
abstract = """
Which recommender is best depends on how results over many datasets are combined.
This demo study compares twelve algorithms on thirty-two datasets from six domains
and shows every analysis evalbook offers: leaderboards under eleven aggregation rules,
their stability, significance tests, effect sizes, dataset characteristics and more.
"""

[[metrics]]
name   = "rmse"
label  = "RMSE"
better = "lower"

[[metrics]]
name   = "mae"
label  = "MAE"
better = "lower"

[[metrics]]
name  = "ndcg@10"
label = "nDCG@10"
max   = 1.0

[[metrics]]
name  = "hitrate@10"
label = "HitRate@10"
max   = 1.0

[[metrics]]
name  = "coverage@10"
label = "Coverage@10"
max   = 1.0

# Baselines: findings never make them their headline.
[[methods]]
name     = "Random"
baseline = true

[[methods]]
name     = "MostPop"
label    = "Most popular"
baseline = true

[inputs]
results = ["data/results.csv"]
units   = [{ path = "data/units/{method}_{dataset}.csv", columns = { unit = "user" } }]
characteristics = "data/characteristics.csv"

[[pages]]
title  = "Introduction"
source = "pages/intro.md"

[[pages]]
title  = "Experimental setup"
source = "pages/setup.md"

[[pages]]
title  = "Findings"
source = "pages/findings.md"

`

func writeManifest(dir, fragments string, ds []dataset) error {
	var b strings.Builder
	b.WriteString(manifestHead)
	for _, d := range ds {
		fmt.Fprintf(&b, "[[datasets]]\nname         = %q\ndomain       = %q\nsize         = %q\ninteractions = %q\n\n",
			d.name, d.domain, sizeClass(d.interactions), "data/logs/"+d.name+".csv")
	}
	// The cross-validation dataset of the paired-tests example (folds.go).
	b.WriteString("[[datasets]]\nname   = \"comoda-cv\"\ndomain = \"movies\"\nsize   = \"small\"\n\n")
	frags, err := filepath.Glob(filepath.Join(fragments, "*.toml"))
	if err != nil {
		return err
	}
	sort.Strings(frags)
	for _, f := range frags {
		src, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "# --- %s\n", filepath.Base(f))
		b.Write(src)
		if !strings.HasSuffix(string(src), "\n") {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(filepath.Join(dir, "study.toml"), []byte(b.String()), 0o644)
}

func sizeClass(n int) string {
	switch {
	case n < 2000:
		return "small"
	case n < 6000:
		return "medium"
	}
	return "large"
}

func writeLines(path string, lines []string) error {
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// genMetaPapers writes data/meta/papers.csv: the numbers a reader would
// copy from 14 papers that compare LightGCN with BPR (nDCG@20, mean and
// sd over the runs of each method, and the number of runs), in the
// column names of a hand-made extraction sheet. Smaller studies report
// larger gains (a small-study effect Egger's test should see) and one
// paper reports an implausibly large one (an influential dataset).
func genMetaPapers(dir string, rng *rand.Rand) error {
	papers := []string{"He2020-gowalla", "He2020-yelp2018", "He2020-amazon-book", "Wu2021-ml-1m", "Mao2021-gowalla",
		"Yu2022-yelp2018", "Lin2022-amazon-book", "Cai2023-tmall", "Zhang2023-ml-1m", "Liu2023-lastfm",
		"Chen2023-douban", "Kim2024-gowalla", "Park2024-yelp2018", "Rossi2024-steam"}
	runs := []int{5, 5, 5, 3, 10, 5, 3, 20, 30, 3, 10, 50, 100, 3}
	rows := []string{"paper,lightgcn_mean,lightgcn_sd,lightgcn_runs,bpr_mean,bpr_sd,bpr_runs"}
	for i, name := range papers {
		n := runs[i]
		base := 0.03 + 0.15*rng.Float64() // BPR's nDCG@20
		gain := 0.08 + 0.04*rng.NormFloat64() + 0.35/math.Sqrt(float64(n))
		if name == "Liu2023-lastfm" {
			gain += 0.45 // the outlier
		}
		sd2 := base * (0.03 + 0.05*rng.Float64())
		sd1 := base * math.Exp(gain) * (0.03 + 0.05*rng.Float64())
		m2 := base + sd2/math.Sqrt(float64(n))*rng.NormFloat64()
		m1 := base*math.Exp(gain) + sd1/math.Sqrt(float64(n))*rng.NormFloat64()
		rows = append(rows, fmt.Sprintf("%s,%.4f,%.4f,%d,%.4f,%.4f,%d", name, m1, sd1, n, m2, sd2, n))
	}
	if err := os.MkdirAll(filepath.Join(dir, "data", "meta"), 0o755); err != nil {
		return err
	}
	return writeLines(filepath.Join(dir, "data", "meta", "papers.csv"), rows)
}

// genMetaTrials writes data/meta/abtests.csv: 16 online A/B tests of a
// new recommender against the old one, as a trial report gives them:
// users who churned and users in each arm (escalc's ai, n1i, ci, n2i),
// the weeks each test ran, the platform and the day it started
// (20240315: the order of a cumulative meta-analysis). Longer tests see a
// smaller reduction (a moderator to find), and the smallest tests report
// the largest ones (the funnel's asymmetry trim and fill fills).
func genMetaTrials(dir string, rng *rand.Rand) error {
	rows := []string{"test,churned_new,users_new,churned_old,users_old,weeks,platform,started"}
	for i := range 16 {
		n := []int{120, 150, 200, 250, 300, 400, 500, 600, 800, 1000, 1500, 2000, 3000, 5000, 8000, 12000}[i]
		weeks := 1 + (i*5)%8
		platform := []string{"web", "app"}[i%2]
		p0 := 0.18 + 0.04*rng.Float64()
		logOR := -0.25 + 0.03*float64(weeks) - 1.2/math.Sqrt(float64(n)) + 0.06*rng.NormFloat64()
		odds1 := p0 / (1 - p0) * math.Exp(logOR)
		p1 := odds1 / (1 + odds1)
		binom := func(n int, p float64) int {
			k := 0
			for range n {
				if rng.Float64() < p {
					k++
				}
			}
			return k
		}
		started := 20240000 + 100*(1+(i*7)%12) + 1 + (i*11)%28
		rows = append(rows, fmt.Sprintf("T%02d-%s,%d,%d,%d,%d,%d,%s,%d", i+1, platform, binom(n, p1), n, binom(n, p0), n, weeks, platform, started))
	}
	if err := os.MkdirAll(filepath.Join(dir, "data", "meta"), 0o755); err != nil {
		return err
	}
	return writeLines(filepath.Join(dir, "data", "meta", "abtests.csv"), rows)
}
