package offline

// Run comparison as ranx does it (Bassani 2022, `ranx.compare`): per
// metric, every pair of runs of a dataset is tested on its per-query
// differences — paired Student t, or Fisher's randomization test (Smucker,
// Allan & Carterette 2007) — and the p-values of a (dataset, metric) are
// corrected for the number of pairs (Holm 1979 or Bonferroni).
//
// Fisher's test on a million queries with 10,000 permutations is 10¹⁰
// sign flips per pair done naively. Here a permutation's statistic
// Σ sᵢdᵢ = Σ dᵢ − 2·Σ_{i flipped} dᵢ is summed over tiles of 64 queries:
// each tile keeps, for each of its 8 bytes of queries, the 256 subset sums
// of those 8 differences (16 KiB, in L1), and one 64-bit random word per
// (tile, permutation) picks 8 of them. That is 8 table reads instead of
// 64 additions; permutations are spread over the cores, each owning a
// contiguous range, and the random word of (tile t, permutation j) is
// SplitMix64(seed, t·P + j), so the outcome does not depend on the
// number of workers.

import (
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/internal/parallel"
	"github.com/evalbook/evalbook/analyses/stats"
)

// Values of CompareOptions.
const (
	TestStudent       = "student"
	TestFisher        = "fisher"
	CorrectHolm       = "holm"
	CorrectBonferroni = "bonferroni"
)

// CompareOptions is the `compare` table of an offline_metrics analysis.
type CompareOptions struct {
	Test         string  `toml:"test"`         // "student" | "fisher" (default)
	Permutations int     `toml:"permutations"` // Fisher's permutations (default 10,000)
	Correction   string  `toml:"correction"`   // "holm" (default) | "bonferroni"
	Alpha        float64 `toml:"alpha"`        // default 0.05
	// Metrics lists the per-user metrics to compare (default: every one).
	Metrics []string `toml:"metrics"`
	// zero lists the keys the manifest gives as 0 (permutations, alpha):
	// Defaults reads 0 as "unset", so without it a permutations = 0
	// ran 10,000 permutations while the manifest said none.
	zero []string
}

// compareKeys are the keys of the compare table.
var compareKeys = []string{"alpha", "correction", "metrics", "permutations", "test"}

// UnmarshalTOML decodes the compare table strictly: an unknown key (a
// typo such as `permutation`) is an error, not an ignored setting. It
// meets the TOML decoder's Unmarshaler interface without importing it.
func (c *CompareOptions) UnmarshalTOML(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("want a table such as { test = \"fisher\", permutations = 10000 }, got %v", v)
	}
	str := func(k string) (string, error) {
		s, ok := m[k].(string)
		if !ok {
			return "", fmt.Errorf("%s: want a string, got %v", k, m[k])
		}
		return s, nil
	}
	var err error
	for _, k := range analyses.SortedKeys(m) {
		switch k {
		case "test":
			c.Test, err = str(k)
		case "correction":
			c.Correction, err = str(k)
		case "permutations":
			n, ok := m[k].(int64)
			if !ok {
				return fmt.Errorf("permutations: want an integer, got %v", m[k])
			}
			c.Permutations = int(n)
			if n == 0 {
				c.zero = append(c.zero, "permutations")
			}
		case "alpha":
			switch x := m[k].(type) {
			case float64:
				c.Alpha = x
			case int64:
				c.Alpha = float64(x)
			default:
				return fmt.Errorf("alpha: want a number, got %v", m[k])
			}
			if c.Alpha == 0 {
				c.zero = append(c.zero, "alpha")
			}
		case "metrics":
			list, ok := m[k].([]any)
			if !ok {
				return fmt.Errorf("metrics: want a list of metric names, got %v", m[k])
			}
			c.Metrics = nil
			for _, x := range list {
				s, ok := x.(string)
				if !ok {
					return fmt.Errorf("metrics: want metric names, got %v", x)
				}
				c.Metrics = append(c.Metrics, s)
			}
		default:
			return fmt.Errorf("unknown key %q%s", k, analyses.DidYouMean(k, compareKeys))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Defaults fills unset options.
func (c *CompareOptions) Defaults() {
	if c.Test == "" {
		c.Test = TestFisher
	}
	if c.Permutations == 0 {
		c.Permutations = 10000
	}
	if c.Correction == "" {
		c.Correction = CorrectHolm
	}
	if c.Alpha == 0 {
		c.Alpha = 0.05
	}
}

// Validate checks the options; names are the per-user metrics a compare
// may name.
func (c *CompareOptions) Validate(names []string) error {
	for _, k := range c.zero {
		switch k {
		case "permutations":
			return analyses.OptionErrorf("compare.permutations", "0 permutations test nothing; give at least 100, or leave the key out for 10,000")
		case "alpha":
			return analyses.OptionErrorf("compare.alpha", "0 is not between 0 and 1; leave the key out for 0.05")
		}
	}
	if err := analyses.OneOf("compare.test", c.Test, TestStudent, TestFisher); err != nil {
		return err
	}
	if err := analyses.CheckInt("compare.permutations", c.Permutations, 100, 10_000_000); err != nil {
		return err
	}
	if err := analyses.OneOf("compare.correction", c.Correction, CorrectHolm, CorrectBonferroni); err != nil {
		return err
	}
	if !(c.Alpha > 0 && c.Alpha < 1) {
		return analyses.OptionErrorf("compare.alpha", "must be in (0, 1), got %g", c.Alpha)
	}
	for _, m := range c.Metrics {
		if !slices.Contains(names, m) {
			return analyses.OptionErrorf("compare.metrics", "unknown per-user metric %q%s", m, analyses.DidYouMean(m, names))
		}
	}
	return nil
}

// FisherExactMax is the largest number of queries whose 2ⁿ sign vectors
// are all enumerated when 2ⁿ is at most the permutations asked for.
const FisherExactMax = 24

// FisherRandomization returns the two-sided p-value of Fisher's
// randomization test on paired differences d: the share of sign vectors s
// with |Σ sᵢdᵢ| ≥ |Σ dᵢ| (ranx's statistic, |mean(a) − mean(b)|, times n).
// With 2ⁿ ≤ perms every sign vector is enumerated (exact = true);
// otherwise perms random ones are drawn from seed (ranx's p = count/perms,
// the observed vector not added). Ties are judged with a relative
// tolerance of 1e-9 of Σ|dᵢ|, since the sums are added in other orders.
func FisherRandomization(d []float64, perms int, seed uint64, jobs int) (p float64, exact bool) {
	n := len(d)
	var total, scale float64
	for _, x := range d {
		total += x
		scale += math.Abs(x)
	}
	obs := math.Abs(total)
	tol := 1e-9 * scale
	if n <= FisherExactMax && (1<<n) <= perms {
		count := 0
		for mask := 0; mask < 1<<n; mask++ {
			s := 0.0
			for i, x := range d {
				if mask&(1<<i) != 0 {
					s -= x
				} else {
					s += x
				}
			}
			if math.Abs(s) >= obs-tol {
				count++
			}
		}
		return float64(count) / float64(int(1)<<n), true
	}
	tiles := (n + 63) / 64
	pad := make([]float64, tiles*64)
	copy(pad, d)
	if jobs < 1 {
		jobs = runtime.GOMAXPROCS(0)
	}
	parts := min(jobs, perms)
	counts := make([]int, parts)
	_ = parallel.For(parts, jobs, func(w int) {
		lo, hi := w*perms/parts, (w+1)*perms/parts
		acc := make([]float64, hi-lo) // Σ_{flipped} dᵢ per permutation
		var sub [8][256]float64
		for t := range tiles {
			tile := pad[t*64 : t*64+64]
			for g := range 8 {
				tab := &sub[g]
				x := tile[g*8 : g*8+8]
				for b := 1; b < 256; b++ {
					low := b & -b
					tab[b] = tab[b^low] + x[bits.TrailingZeros(uint(low))]
				}
			}
			base := uint64(t) * uint64(perms)
			for j := lo; j < hi; j++ {
				r := stats.SplitMix64(seed, base+uint64(j))
				// a tree of additions: 3 dependent adds instead of 8
				acc[j-lo] += ((sub[0][r&255] + sub[1][r>>8&255]) + (sub[2][r>>16&255] + sub[3][r>>24&255])) +
					((sub[4][r>>32&255] + sub[5][r>>40&255]) + (sub[6][r>>48&255] + sub[7][r>>56]))
			}
		}
		c := 0
		for _, a := range acc {
			if math.Abs(total-2*a) >= obs-tol {
				c++
			}
		}
		counts[w] = c
	})
	count := 0
	for _, c := range counts {
		count += c
	}
	return float64(count) / float64(perms), false
}

// StudentPaired returns the two-sided p-value of the paired Student t
// test on differences d (scipy.stats.ttest_rel): t = mean/(sd/√n), n − 1
// degrees of freedom. ok is false when it is undefined (fewer than two
// pairs, or every difference equal so that sd = 0).
func StudentPaired(d []float64) (p float64, ok bool) {
	n := len(d)
	if n < 2 {
		return math.NaN(), false
	}
	var mean float64
	for _, x := range d {
		mean += x
	}
	mean /= float64(n)
	var ss float64
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(n-1))
	if sd == 0 || sd <= 1e-15*math.Abs(mean) {
		return math.NaN(), false
	}
	t := mean / (sd / math.Sqrt(float64(n)))
	return stats.StudentTwoSidedP(t, float64(n-1)), true
}

// Adjust corrects a family of p-values (NaN: undefined, left out of the
// family and kept NaN): Bonferroni min(1, m·p), or Holm's step-down
// max_{j≤i} min(1, (m − j + 1)·p₍ⱼ₎).
func Adjust(p []float64, method string) []float64 {
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	m := float64(len(idx))
	if method == CorrectBonferroni {
		for _, i := range idx {
			out[i] = min(1, m*p[i])
		}
		return out
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	run := 0.0
	for j, i := range idx {
		run = max(run, min(1, (m-float64(j))*p[i]))
		out[i] = run
	}
	return out
}

// PerQuery holds one run's per-query values of the compared metrics,
// indexed by query (the truth's user ids); Has marks evaluated queries.
type PerQuery struct {
	Dataset, Method string
	Values          [][]float64 // [metric][query]
	Has             []bool
}

// Comparison is one tested pair.
type Comparison struct {
	Dataset, Metric string
	A, B            string
	MeanA, MeanB    float64
	N               int
	P, PAdjusted    float64 // NaN: undefined
	Significant     bool
	Exact           bool
	// Draws is the number of random sign vectors a Monte Carlo p-value
	// was estimated from (0 for an exact or a Student p), Family the
	// number of p-values adjusted together.
	Draws, Family int
}

// Compare tests every pair of runs of each dataset on each metric
// (metrics[i] names Values[i]); runs are grouped by dataset in the order
// given. Pairs use the queries both runs evaluated.
func Compare(c CompareOptions, metrics []string, runs []PerQuery, seed uint64, jobs int) ([]Comparison, analyses.Warnings) {
	var out []Comparison
	var warn analyses.Warnings
	for start := 0; start < len(runs); {
		end := start
		for end < len(runs) && runs[end].Dataset == runs[start].Dataset {
			end++
		}
		group := runs[start:end]
		if len(group) < 2 {
			warn.Warnf("dataset %q has one run (%s): nothing to compare", group[0].Dataset, group[0].Method)
		}
		for mi, metric := range metrics {
			var family []Comparison
			for i := range group {
				for j := i + 1; j < len(group); j++ {
					a, b := group[i], group[j]
					var d []float64
					var sa, sb float64
					for q := range a.Has {
						if a.Has[q] && q < len(b.Has) && b.Has[q] {
							x, y := a.Values[mi][q], b.Values[mi][q]
							d = append(d, x-y)
							sa += x
							sb += y
						}
					}
					cmp := Comparison{Dataset: a.Dataset, Metric: metric, A: a.Method, B: b.Method, N: len(d), P: math.NaN()}
					if len(d) > 0 {
						cmp.MeanA, cmp.MeanB = sa/float64(len(d)), sb/float64(len(d))
					}
					if c.Test == TestStudent {
						cmp.P, _ = StudentPaired(d)
					} else if len(d) > 0 {
						// one stream per (dataset, metric, pair), all from the study seed
						key := stats.SplitMix64(seed, uint64(len(out)+len(family)))
						cmp.P, cmp.Exact = FisherRandomization(d, c.Permutations, key, jobs)
						if !cmp.Exact {
							cmp.Draws = c.Permutations
						}
					}
					if math.IsNaN(cmp.P) {
						warn.Warnf("dataset %q, %s: %s vs %s: the %s test is undefined (%d paired queries%s)", a.Dataset, metric, a.Method, b.Method, c.Test, len(d), map[bool]string{true: ", every difference equal", false: ""}[len(d) > 1])
					}
					family = append(family, cmp)
				}
			}
			ps := make([]float64, len(family))
			for i, f := range family {
				ps[i] = f.P
			}
			adj := Adjust(ps, c.Correction)
			for i := range family {
				family[i].PAdjusted = adj[i]
				family[i].Family = len(family)
				family[i].Significant = !math.IsNaN(adj[i]) && adj[i] <= c.Alpha
			}
			out = append(out, family...)
		}
		start = end
	}
	return out, warn
}

// CompareTable is the table `<id>-compare`.
func CompareTable(cs []Comparison) analyses.Table {
	t := analyses.Table{Name: "compare", Title: "Pairwise per-query tests between the runs of each dataset",
		Columns: []string{"dataset", "metric", "a", "b", "mean_a", "mean_b", "p", "p_adjusted", "significant"}}
	for _, c := range cs {
		var p, pa any
		if !math.IsNaN(c.P) {
			p = c.P
		}
		if !math.IsNaN(c.PAdjusted) {
			pa = c.PAdjusted
		}
		t.Rows = append(t.Rows, []any{c.Dataset, c.Metric, c.A, c.B, c.MeanA, c.MeanB, p, pa, c.Significant})
		if c.Draws > 0 {
			// A p of 0 of the draws is below 1/draws; adjusted, below
			// the family's size over the draws (Holm's and Bonferroni's
			// largest factor).
			if t.Resolution == nil {
				t.Resolution = map[string]float64{}
			}
			t.Resolution["p"] = max(t.Resolution["p"], 1/float64(c.Draws))
			t.Resolution["p_adjusted"] = max(t.Resolution["p_adjusted"], float64(max(c.Family, 1))/float64(c.Draws))
		}
	}
	return t
}

// supLetters labels runs in the ranx table: a, b, c, …, z, then aa, ab, ….
func supLetter(i int) string {
	if i < 26 {
		return string(rune('a' + i))
	}
	return supLetter(i/26-1) + supLetter(i%26)
}

// RanxTable is ranx's report: per dataset, one row per run (labelled a,
// b, …) and one column per metric holding the run's mean over the
// compared queries with, as superscripts, the labels of the runs it
// significantly beats (a higher mean and a significant adjusted p).
func RanxTable(cs []Comparison, metrics []string, runs []PerQuery) analyses.Table {
	t := analyses.Table{Name: "compare-summary", Title: "Runs with the runs each significantly beats (superscripts)",
		Columns: append([]string{"dataset", "run", "label"}, metrics...)}
	label := map[[2]string]string{}
	order := map[string]int{}
	for _, r := range runs {
		k := [2]string{r.Dataset, r.Method}
		label[k] = supLetter(order[r.Dataset])
		order[r.Dataset]++
	}
	type cell struct {
		mean float64
		has  bool
		sup  []string
	}
	cells := map[[3]string]*cell{}
	get := func(ds, run, m string) *cell {
		k := [3]string{ds, run, m}
		if cells[k] == nil {
			cells[k] = &cell{}
		}
		return cells[k]
	}
	for _, c := range cs {
		ca, cb := get(c.Dataset, c.A, c.Metric), get(c.Dataset, c.B, c.Metric)
		if !ca.has {
			ca.mean, ca.has = c.MeanA, true
		}
		if !cb.has {
			cb.mean, cb.has = c.MeanB, true
		}
		if c.Significant && c.MeanA > c.MeanB {
			ca.sup = append(ca.sup, label[[2]string{c.Dataset, c.B}])
		}
		if c.Significant && c.MeanB > c.MeanA {
			cb.sup = append(cb.sup, label[[2]string{c.Dataset, c.A}])
		}
	}
	for _, r := range runs {
		row := []any{r.Dataset, r.Method, label[[2]string{r.Dataset, r.Method}]}
		for _, m := range metrics {
			c := get(r.Dataset, r.Method, m)
			if !c.has {
				row = append(row, nil)
				continue
			}
			slices.Sort(c.sup)
			s := fmt.Sprintf("%.4f", c.mean)
			if len(c.sup) > 0 {
				s += "^" + strings.Join(c.sup, "")
			}
			row = append(row, s)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// CompareLaTeX writes the compare table as a plain booktabs tabular.
func CompareLaTeX(cs []Comparison) []byte {
	esc := func(s string) string {
		r := strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`, "{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`)
		return r.Replace(s)
	}
	num := func(v float64) string {
		if math.IsNaN(v) {
			return "--"
		}
		return fmt.Sprintf("%.4f", v)
	}
	var b strings.Builder
	b.WriteString("% Pairwise per-query tests between runs (evalbook offline_metrics compare).\n")
	b.WriteString("\\begin{tabular}{llllrrrrl}\n\\toprule\n")
	b.WriteString("dataset & metric & a & b & mean\\_a & mean\\_b & $p$ & $p_{\\mathrm{adj}}$ & significant \\\\\n\\midrule\n")
	for _, c := range cs {
		sig := "no"
		if c.Significant {
			sig = "yes"
		}
		fmt.Fprintf(&b, "%s & %s & %s & %s & %s & %s & %s & %s & %s \\\\\n", esc(c.Dataset), esc(c.Metric), esc(c.A), esc(c.B),
			num(c.MeanA), num(c.MeanB), num(c.P), num(c.PAdjusted), sig)
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	return []byte(b.String())
}
