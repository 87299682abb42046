package stats

// The Wilcoxon signed-rank test as scipy 1.10 computes it
// (scipy/stats/_morestats.py, wilcoxon): the code of Shevchenko et al. 2024
// calls scipy.stats.wilcoxon(x, y, zero_method="pratt") for its CD
// diagram, so a reader re-running that code gets these very p-values.

import (
	"fmt"
	"math"
	"strings"
	"sync"
)

// Zero methods of the Wilcoxon signed-rank test (scipy's zero_method).
const (
	ZeroPratt  = "pratt"  // rank zeros with the others, then drop their ranks (Pratt 1959)
	ZeroWilcox = "wilcox" // drop zero differences before ranking
	ZeroZsplit = "zsplit" // split the zeros' ranks evenly between the signs
)

// ZeroMethods lists the valid zero_method values.
var ZeroMethods = []string{ZeroPratt, ZeroWilcox, ZeroZsplit}

// Wilcoxon p-value methods.
const (
	WilcoxonAuto   = "auto"   // exact when n ≤ 50 without zeros or ties, else approx
	WilcoxonExact  = "exact"  // scipy's mode="exact" (switches to approx on zeros)
	WilcoxonApprox = "approx" // normal approximation with tie correction
)

// WilcoxonResult is the outcome of a signed-rank test.
type WilcoxonResult struct {
	Statistic float64 // T = min(R+, R−)
	P         float64
	RPlus     float64 // rank sums after the zero method
	RMinus    float64
	Method    string // "exact" or "approx", the one used
	N         int    // differences ranked (after dropping zeros for "wilcox")
	Zeros     int
	Ties      bool // tied non-zero |d|
}

// Wilcoxon runs the two-sided signed-rank test on the differences d,
// matching scipy.stats.wilcoxon(d, zero_method=zm, correction=correction,
// mode=method) of scipy 1.10 with one deliberate exception for method
// "auto": scipy 1.10 takes the exact distribution for n ≤ 50 even with tied
// |d| (and truncates the fractional rank sum), while this tool takes the
// normal approximation with tie correction then, as later scipy releases do
// (the critical_difference method note says so). With method "exact" the
// scipy 1.10 behaviour, truncation included, is kept. An error is returned
// where scipy raises (every difference zero under "wilcox" or "pratt" with
// the normal approximation) or when d is empty.
func Wilcoxon(d []float64, zm, method string, correction bool) (WilcoxonResult, error) {
	var res WilcoxonResult
	if err := wilcoxonCheck(d, zm); err != nil {
		return res, err
	}
	nz := 0
	for _, v := range d {
		if v == 0 {
			nz++
		}
	}
	res.Zeros = nz
	abs := make([]float64, 0, len(d))
	for _, v := range d {
		if v != 0 {
			abs = append(abs, math.Abs(v))
		}
	}
	res.Ties = tieSum(abs) > 0
	mode, err := wilcoxonMode(method, len(d), nz, res.Ties)
	if err != nil {
		return res, err
	}
	if mode == WilcoxonApprox {
		if (zm == ZeroWilcox || zm == ZeroPratt) && nz == len(d) {
			return res, fmt.Errorf("every difference is zero: the %s signed-rank test is undefined", zm)
		}
		if zm == ZeroWilcox {
			kept := make([]float64, 0, len(d)-nz)
			for _, v := range d {
				if v != 0 {
					kept = append(kept, v)
				}
			}
			d = kept
		}
	}
	res.Method = mode
	res.N = len(d)
	r, rPlus, rMinus := wilcoxonRankSums(d, zm)
	res.RPlus, res.RMinus = rPlus, rMinus
	T := math.Min(rPlus, rMinus)
	res.Statistic = T
	if mode == WilcoxonApprox {
		res.P = wilcoxonApproxP(d, r, nz, T, zm, correction)
	} else {
		res.P = wilcoxonExactP(len(d), rPlus)
	}
	return res, nil
}

// wilcoxonCheck rejects an unknown zero method and empty differences, and
// panics on NaN.
func wilcoxonCheck(d []float64, zm string) error {
	switch zm {
	case ZeroPratt, ZeroWilcox, ZeroZsplit:
	default:
		return fmt.Errorf("zero_method: unknown value %q (one of %s)", zm, strings.Join(ZeroMethods, ", "))
	}
	if len(d) == 0 {
		return fmt.Errorf("no differences to test")
	}
	for _, v := range d {
		if math.IsNaN(v) {
			panic("stats: Wilcoxon given NaN")
		}
	}
	return nil
}

// wilcoxonMode resolves method for n differences, nz of them zero: "auto"
// is exact for n ≤ 50 without zeros or ties, and zeros always take the
// normal approximation.
func wilcoxonMode(method string, n, nz int, ties bool) (string, error) {
	mode := method
	switch method {
	case WilcoxonAuto:
		mode = WilcoxonApprox
		if n <= 50 && nz == 0 && !ties {
			mode = WilcoxonExact
		}
	case WilcoxonExact, WilcoxonApprox:
	default:
		return "", fmt.Errorf("wilcoxon method: unknown value %q", method)
	}
	if nz > 0 && mode == WilcoxonExact {
		mode = WilcoxonApprox
	}
	return mode, nil
}

// wilcoxonRankSums returns the ranks of |d| and the rank sums of the
// positive and negative differences (zeros' ranks split between them
// under "zsplit").
func wilcoxonRankSums(d []float64, zm string) (r []float64, rPlus, rMinus float64) {
	ad := make([]float64, len(d))
	for i, v := range d {
		ad[i] = math.Abs(v)
	}
	r = RankData(ad)
	var rZero float64
	for i, v := range d {
		switch {
		case v > 0:
			rPlus += r[i]
		case v < 0:
			rMinus += r[i]
		default:
			rZero += r[i]
		}
	}
	if zm == ZeroZsplit {
		rPlus += rZero / 2
		rMinus += rZero / 2
	}
	return r, rPlus, rMinus
}

// wilcoxonApproxP is the two-sided p of statistic T by the normal
// approximation with tie correction (and continuity correction when
// asked); nz differences of d are zero, r are the ranks of |d|.
func wilcoxonApproxP(d, r []float64, nz int, T float64, zm string, correction bool) float64 {
	cf := float64(len(d))
	mn := cf * (cf + 1) * 0.25
	se := cf * (cf + 1) * (2*cf + 1)
	rr := r
	if zm == ZeroPratt {
		rr = rr[:0:0]
		for i, v := range d {
			if v != 0 {
				rr = append(rr, r[i])
			}
		}
		z := float64(nz)
		mn -= z * (z + 1) * 0.25
		se -= z * (z + 1) * (2*z + 1)
	}
	se -= 0.5 * tieSum(rr)
	se = math.Sqrt(se / 24)
	var cc float64
	if correction {
		switch {
		case T > mn:
			cc = 0.5
		case T < mn:
			cc = -0.5
		}
	}
	z := (T - mn - cc) / se
	if math.IsNaN(z) {
		return math.NaN()
	}
	return 2 * normSF(math.Abs(z))
}

// wilcoxonExactP is the two-sided exact p of the rank sum rPlus of count
// untied non-zero differences (scipy truncates rPlus to an integer).
func wilcoxonExactP(count int, rPlus float64) float64 {
	pmf := wilcoxonPMF(count)
	rp := int(rPlus) // scipy: int(r_plus), exact only without ties
	center := (len(pmf) - 1) / 2
	if rp == center {
		return 1
	}
	var less, greater float64
	for i := 0; i <= rp && i < len(pmf); i++ {
		less += pmf[i]
	}
	for i := rp; i < len(pmf); i++ {
		greater += pmf[i]
	}
	return math.Min(math.Max(2*math.Min(less, greater), 0), 1)
}

// wilcoxonPMF returns the null distribution of R+ for n untied non-zero
// differences: the number of subsets of {1…n} with each sum, over 2ⁿ
// (scipy's _get_wilcoxon_distr).
// The distributions of n ≤ maxPMFs are computed once and shared: read
// only.
func wilcoxonPMF(n int) []float64 {
	if n > maxPMFs {
		return newWilcoxonPMF(n)
	}
	pmfs.Lock()
	defer pmfs.Unlock()
	if pmfs.c[n] == nil {
		pmfs.c[n] = newWilcoxonPMF(n)
	}
	return pmfs.c[n]
}

// maxPMFs is the largest n whose null distribution pmfs keeps (1,276
// values at n = 50, where the exact test ends by default).
const maxPMFs = 64

var pmfs struct {
	sync.Mutex
	c [maxPMFs + 1][]float64
}

func newWilcoxonPMF(n int) []float64 {
	L := n*(n+1)/2 + 1
	c := make([]float64, L)
	c[0] = 1
	for k := 1; k <= n; k++ {
		for s := k * (k + 1) / 2; s >= k; s-- {
			c[s] += c[s-k]
		}
	}
	scale := math.Ldexp(1, -n)
	for i := range c {
		c[i] *= scale
	}
	return c
}

// RankBiserial is the matched-pairs rank-biserial correlation (Kerby
// 2014) from a signed-rank test: (R+ − R−)/(R+ + R−), in [−1, 1];
// positive when a tends to exceed b. NaN when both rank sums are 0.
func RankBiserial(w WilcoxonResult) float64 {
	s := w.RPlus + w.RMinus
	if s == 0 {
		return math.NaN()
	}
	return (w.RPlus - w.RMinus) / s
}
