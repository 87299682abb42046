package datasets

// Interaction-log features (Shevchenko et al. 2024, §4.3, after Deldjoo et
// al. 2021). A log can hold hundreds of millions of rows, so it is pushed
// in row by row (Add) and only the distinct (user, item) pairs of one
// dataset are kept, as 64-bit keys over interned ids (with a buffer of
// recent rows): memory is a small multiple of the dataset's distinct
// pairs, not its rows, and a build holds at most one dataset per worker.
// Everything after Finish works on sorted integer arrays, so the features
// do not depend on arrival order beyond "last rating wins", and sums of
// counts are exact.

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// LogFeatureNames are the eighteen features computed from a log, in the
// order of the README's feature names (the column order of the -features
// table).
var LogFeatureNames = []string{
	"Nu", "Ni", "Nr", "SpaceSize", "Shape", "Density", "Rpu", "Rpi", "Gini_u", "Gini_i",
	"APB", "StPB", "SkPB", "KuPB", "LTavg", "LTstd", "LTsk", "LTku",
}

// logCountFeatures are whole numbers, shown as integers.
var logCountFeatures = map[string]bool{"Nu": true, "Ni": true, "Nr": true, "SpaceSize": true}

// Preprocessing is the optional filtering of the logs, applied in this
// order after repeated pairs are merged: the rating threshold, the
// item-then-user filter (Shevchenko et al. 2024, §3.2: "5-filter,
// prioritizing item filtering before user filtering", one pass each), then
// the iterated k-core. A zero field switches its step off.
type Preprocessing struct {
	Threshold    float64 // keep ratings ≥ Threshold when HasThreshold
	HasThreshold bool
	MinItem      int // drop items with fewer interactions (one pass)
	MinUser      int // then drop users with fewer interactions (one pass)
	Core         int // then repeat until every user and item has at least Core
}

// PreprocessCounts says what each step removed, in interactions (distinct
// pairs after the first step).
type PreprocessCounts struct {
	Rows           int64 `json:"rows"`            // data rows read
	Duplicates     int64 `json:"duplicates"`      // rows merged into an earlier (user, item) pair
	BelowThreshold int64 `json:"below_threshold"` // pairs whose (last) rating is below the threshold
	ItemFilter     int64 `json:"item_filter"`     // pairs of items below min_item
	UserFilter     int64 `json:"user_filter"`     // pairs of users below min_user
	Core           int64 `json:"core"`            // pairs removed by the iterated k-core
	CoreRounds     int   `json:"core_rounds"`     // k-core passes that removed something
	Interactions   int64 `json:"interactions"`    // pairs left: Nr
}

// InteractionLog collects one dataset's log. The zero value is not ready:
// use NewInteractionLog.
//
// Rows are appended as (pair key, rating) in arrival order; when the
// buffer reaches twice the distinct pairs seen so far (and at least
// logCompactMin), it is sorted with a stable radix sort and repeated pairs
// are merged, keeping the last rating. Appending and sorting are
// cache-friendly, unlike a hash map of millions of pairs, and memory stays
// within a small multiple of the distinct pairs however many duplicates
// the log holds.
type InteractionLog struct {
	users, items logIDs
	keys         []uint64  // user<<32 | item; keys[:distinct] sorted and distinct
	ratings      []float64 // aligned with keys; NaN without a rating column
	distinct     int
	limit        int
	rows         int64
	changes      int64 // rows whose rating differs from their pair's row before
	scratchK     []uint64
	scratchR     []float64
}

// logCompactMin is the smallest buffer (rows) before merging duplicates.
const logCompactMin = 1 << 20

// NewInteractionLog returns an empty log.
func NewInteractionLog() *InteractionLog {
	return &InteractionLog{users: newLogIDs(), items: newLogIDs(), limit: logCompactMin}
}

// logIDs interns ids into dense numbers in first-seen order, as fast as
// the ids allow, since two lookups per row dominate reading a log:
//
//   - the previous id is remembered (logs sorted by user repeat it);
//   - an id that is a fixed prefix followed by a canonical decimal number
//     below logDenseMax ("123", "u42"; no sign, no leading zero) is looked
//     up in an array indexed by the number: a string has at most one such
//     reading, so the array and the maps never hold the same id;
//   - other ids of up to seven bytes are packed with their length into a
//     uint64 map key, which avoids hashing and comparing string memory;
//   - longer ids use a string map.
//
// last may hold the caller's string: strings are immutable, so keeping it
// is safe.
type logIDs struct {
	prefix    string
	hasPrefix bool
	dense     []uint32 // number -> id+1; 0 = not seen
	short     map[uint64]uint32
	long      map[string]uint32
	names     []string
	last      string
	lastID    uint32
}

// logDenseMax bounds the numbers of the dense path (4 bytes each, so at
// most 16 MiB per id kind, whatever the ids; larger numbers use the maps).
const logDenseMax = 1 << 22

func newLogIDs() logIDs {
	return logIDs{short: map[uint64]uint32{}, long: map[string]uint32{}, lastID: math.MaxUint32}
}

// logNumericID splits s into a non-digit prefix and a canonical decimal
// number; ok is false when s has another shape or the number is too big.
func logNumericID(s string) (prefix string, n int, ok bool) {
	j := len(s)
	for j > 0 && s[j-1] >= '0' && s[j-1] <= '9' {
		j--
	}
	digits := s[j:]
	if len(digits) == 0 || len(digits) > 7 || (len(digits) > 1 && digits[0] == '0') {
		return "", 0, false
	}
	for _, c := range []byte(s[:j]) {
		if c >= '0' && c <= '9' {
			return "", 0, false
		}
	}
	for _, c := range []byte(digits) {
		n = n*10 + int(c-'0')
	}
	if n >= logDenseMax {
		return "", 0, false
	}
	return s[:j], n, true
}

func (m *logIDs) id(s string) uint32 {
	if m.lastID != math.MaxUint32 && s == m.last {
		return m.lastID
	}
	var id uint32
	if p, n, ok := logNumericID(s); ok && (!m.hasPrefix || p == m.prefix) {
		if !m.hasPrefix {
			m.prefix, m.hasPrefix = strings.Clone(p), true
		}
		if n >= len(m.dense) {
			grown := max(n+1, min(2*len(m.dense), logDenseMax))
			m.dense = append(m.dense, make([]uint32, grown-len(m.dense))...)
		}
		v := m.dense[n]
		if v == 0 {
			v = m.add(s) + 1
			m.dense[n] = v
		}
		id = v - 1
	} else if len(s) <= 7 {
		k := uint64(len(s)) << 56
		for i := 0; i < len(s); i++ {
			k |= uint64(s[i]) << (8 * i)
		}
		v, ok := m.short[k]
		if !ok {
			v = m.add(s)
			m.short[k] = v
		}
		id = v
	} else {
		v, ok := m.long[s]
		if !ok {
			v = m.add(s)
			m.long[m.names[v]] = v
		}
		id = v
	}
	m.last, m.lastID = s, id // s, not names[id]: it is in cache
	return id
}

func (m *logIDs) add(s string) uint32 {
	if len(m.names) == math.MaxUint32-1 {
		panic("datasets: more than 2^32-2 distinct ids in one log")
	}
	m.names = append(m.names, strings.Clone(s))
	return uint32(len(m.names) - 1)
}

// Add records one row. rating is NaN when the log has no rating column. A
// repeated (user, item) pair keeps its last rating. The strings are copied
// when first seen, so the caller may reuse its buffers.
func (l *InteractionLog) Add(user, item string, rating float64) {
	l.rows++
	u, i := l.users.id(user), l.items.id(item)
	l.keys = append(l.keys, uint64(u)<<32|uint64(i))
	l.ratings = append(l.ratings, rating)
	if len(l.keys) >= l.limit {
		l.compact()
		l.limit = max(logCompactMin, 2*l.distinct)
	}
}

// compact sorts the buffer by pair (stably, so arrival order survives
// among equal pairs) and keeps the last row of each pair.
func (l *InteractionLog) compact() {
	n := len(l.keys)
	if n == l.distinct {
		return
	}
	if cap(l.scratchK) < n {
		l.scratchK = make([]uint64, n)
		l.scratchR = make([]float64, n)
	}
	bi := max(1, bits.Len32(uint32(len(l.items.names))))
	bu := max(1, bits.Len32(uint32(len(l.users.names))))
	// Sort on the packed key user<<bi | item: same order, fewer digits.
	for j, k := range l.keys {
		l.keys[j] = (k>>32)<<bi | k&(1<<32-1)
	}
	k, r, sk, sr := logRadixSort(l.keys, l.ratings, l.scratchK[:n], l.scratchR[:n], bi+bu)
	out := 0
	for j := 0; j < n; j++ {
		if j+1 < n && k[j+1] == k[j] {
			// a later row of the same pair follows (in arrival order: the
			// sort is stable and an earlier survivor sorts first, so
			// the count does not depend on when compactions happen)
			if r[j+1] != r[j] && !(math.IsNaN(r[j+1]) && math.IsNaN(r[j])) {
				l.changes++
			}
			continue
		}
		k[out] = (k[j]>>bi)<<32 | k[j]&(1<<bi-1)
		r[out] = r[j]
		out++
	}
	l.keys, l.ratings = k[:out], r[:out]
	l.scratchK, l.scratchR = sk, sr
	l.distinct = out
}

// logRadixSort sorts keys (using their low nbits bits) ascending, moving
// vals along, with a stable LSD radix sort on 11-bit digits; a digit that
// is the same for every key costs one counting pass. It returns the
// sorted slices and the two now-free buffers.
func logRadixSort(keys []uint64, vals []float64, sk []uint64, sv []float64, nbits int) ([]uint64, []float64, []uint64, []float64) {
	const w = 11
	const nb = 1 << w
	var count [nb]int
	for shift := 0; shift < nbits; shift += w {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&(nb-1)]++
		}
		if len(keys) == 0 || count[(keys[0]>>shift)&(nb-1)] == len(keys) {
			continue
		}
		sum := 0
		for b, c := range count {
			count[b] = sum
			sum += c
		}
		for j, k := range keys {
			d := (k >> shift) & (nb - 1)
			p := count[d]
			count[d]++
			sk[p], sv[p] = k, vals[j]
		}
		keys, sk = sk, keys
		vals, sv = sv, vals
	}
	return keys, vals, sk, sv
}

// ErrEmptyLog is returned (wrapped) when no interaction is left; the
// caller names the file and dataset.
var ErrEmptyLog = fmt.Errorf("no interactions left")

// LogSummary is one dataset's preprocessing counts and features, in
// LogFeatureNames order.
type LogSummary struct {
	Counts   PreprocessCounts
	Features []float64
	// RatingChanges counts the rows that give a (user, item) pair another
	// rating than the pair's row before; the last row's rating is the
	// one kept (as pandas' drop_duplicates(keep="last")).
	RatingChanges int64
}

// Finish preprocesses the log and computes its features. The log's memory
// is released. An empty result is an error wrapping ErrEmptyLog that says
// which step emptied it.
func (l *InteractionLog) Finish(p Preprocessing) (*LogSummary, error) {
	l.compact()
	c := PreprocessCounts{Rows: l.rows, Duplicates: l.rows - int64(len(l.keys))}
	keys := l.keys[:0] // sorted, user-major: pairs of one user are contiguous
	for j, k := range l.keys {
		if p.HasThreshold && !(l.ratings[j] >= p.Threshold) {
			c.BelowThreshold++
			continue
		}
		keys = append(keys, k)
	}
	l.ratings, l.scratchK, l.scratchR = nil, nil, nil
	l.users = logIDs{names: l.users.names}
	l.items = logIDs{names: l.items.names}
	nu, ni := len(l.users.names), len(l.items.names)
	empty := func(step string) error {
		return fmt.Errorf("%w after %s (%d rows, %d distinct pairs)", ErrEmptyLog, step, c.Rows, c.Rows-c.Duplicates)
	}
	if len(keys) == 0 {
		if l.rows == 0 {
			return nil, fmt.Errorf("%w: the log has no rows", ErrEmptyLog)
		}
		return nil, empty(fmt.Sprintf("the rating threshold %g", p.Threshold))
	}
	ucnt, icnt := make([]int64, nu), make([]int64, ni)
	count := func() {
		clear(ucnt)
		clear(icnt)
		for _, k := range keys {
			ucnt[k>>32]++
			icnt[uint32(k)]++
		}
	}
	filter := func(keep func(k uint64) bool) int64 {
		n := 0
		for _, k := range keys {
			if keep(k) {
				keys[n] = k
				n++
			}
		}
		removed := int64(len(keys) - n)
		keys = keys[:n]
		return removed
	}
	if p.MinItem > 1 {
		count()
		c.ItemFilter = filter(func(k uint64) bool { return icnt[uint32(k)] >= int64(p.MinItem) })
		if len(keys) == 0 {
			return nil, empty(fmt.Sprintf("the item filter (min_item = %d)", p.MinItem))
		}
	}
	if p.MinUser > 1 {
		count()
		c.UserFilter = filter(func(k uint64) bool { return ucnt[k>>32] >= int64(p.MinUser) })
		if len(keys) == 0 {
			return nil, empty(fmt.Sprintf("the user filter (min_user = %d)", p.MinUser))
		}
	}
	if p.Core > 1 {
		k := int64(p.Core)
		for {
			count()
			removed := filter(func(key uint64) bool { return ucnt[key>>32] >= k && icnt[uint32(key)] >= k })
			if removed == 0 {
				break
			}
			c.Core += removed
			c.CoreRounds++
			if len(keys) == 0 {
				return nil, empty(fmt.Sprintf("the %d-core", p.Core))
			}
		}
	}
	count()
	c.Interactions = int64(len(keys))
	f := logFeatures(keys, ucnt, icnt, l.items.names)
	l.keys, l.users, l.items = nil, logIDs{}, logIDs{}
	return &LogSummary{Counts: c, Features: f, RatingChanges: l.changes}, nil
}

// logFeatures computes the eighteen features from the final pairs (sorted,
// user-major) and their per-user and per-item counts (zero for ids that
// were filtered out).
func logFeatures(keys []uint64, ucnt, icnt []int64, itemNames []string) []float64 {
	var users, items []int64 // counts of present users / items
	for _, n := range ucnt {
		if n > 0 {
			users = append(users, n)
		}
	}
	for _, n := range icnt {
		if n > 0 {
			items = append(items, n)
		}
	}
	Nu := float64(len(users))

	// Popularity bias: per user, the mean over their items of the item's
	// share of users (icnt/Nu). Integer sums, then one division.
	// Long tail: items by count descending, ties by id; the head is the
	// shortest prefix with at least 80% of interactions (5·head ≥ 4·Nr,
	// in integers, so no rounding of 0.8·Nr decides a boundary case).
	order := make([]uint32, 0, len(items))
	for i, n := range icnt {
		if n > 0 {
			order = append(order, uint32(i))
		}
	}
	slices.SortFunc(order, func(a, b uint32) int {
		if icnt[a] != icnt[b] {
			if icnt[a] > icnt[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(itemNames[a], itemNames[b])
	})
	tail := make([]bool, len(icnt))
	var cum int64
	inHead := true
	for _, i := range order {
		if !inHead {
			tail[i] = true
			continue
		}
		cum += icnt[i]
		if 5*cum >= 4*int64(len(keys)) {
			inHead = false
		}
	}
	pb := make([]float64, 0, len(users))
	lt := make([]float64, 0, len(users))
	for s := 0; s < len(keys); {
		u := keys[s] >> 32
		var popSum, tailN int64
		e := s
		for ; e < len(keys) && keys[e]>>32 == u; e++ {
			i := uint32(keys[e])
			popSum += icnt[i]
			if tail[i] {
				tailN++
			}
		}
		n := float64(e - s)
		pb = append(pb, float64(popSum)/n/Nu)
		lt = append(lt, float64(tailN)/n)
		s = e
	}
	apb, stpb, skpb, kupb := charMoments(pb)
	ltavg, ltstd, ltsk, ltku := charMoments(lt)
	return append(CountFeatures(CountHistogram(users), CountHistogram(items)),
		apb, stpb, skpb, kupb, ltavg, ltstd, ltsk, ltku)
}

// CountBin is one bin of a histogram of interaction counts: IDs users (or
// items) have Count interactions each.
type CountBin struct {
	Count, IDs int64
}

// CountHistogram returns the histogram of counts, by count ascending.
func CountHistogram(counts []int64) []CountBin {
	s := slices.Clone(counts)
	slices.Sort(s)
	var h []CountBin
	for _, c := range s {
		if len(h) > 0 && h[len(h)-1].Count == c {
			h[len(h)-1].IDs++
			continue
		}
		h = append(h, CountBin{Count: c, IDs: 1})
	}
	return h
}

// CountFeatureNames are the features of LogFeatureNames that are functions
// of the per-user and per-item count histograms alone (CountFeatures);
// the popularity-bias and long-tail features need which items each user
// has.
var CountFeatureNames = LogFeatureNames[:10]

// CountFeatures computes the CountFeatureNames features from the per-user
// and per-item histograms of interaction counts (each sorted by count,
// counts positive). Every sum is an exact integer, so the features do not
// depend on how the histograms were obtained (a log read here or an
// engine's GROUP BY).
func CountFeatures(users, items []CountBin) []float64 {
	nu, ru := histTotals(users)
	ni, _ := histTotals(items)
	Nu, Ni, Nr := float64(nu), float64(ni), float64(ru)
	space := Nu * Ni
	return []float64{Nu, Ni, Nr, space, Nu / Ni, Nr / space, Nr / Nu, Nr / Ni, charGini(users), charGini(items)}
}

// histTotals returns the number of ids and of interactions of a histogram.
func histTotals(h []CountBin) (ids, total int64) {
	for _, b := range h {
		ids += b.IDs
		total += b.Count * b.IDs
	}
	return ids, total
}

// charGini is the Gini of counts the method note defines,
// 1 − 2Σ(n+1−i)c_(i)/((n+1)Σc) over the counts sorted ascending, from
// their histogram (sorted by count). The sums are exact integers: the b.IDs
// counts at 0-based ranks p … p+m−1 have weights n−p … n−p−m+1, which sum
// to m(n−p) − m(m−1)/2.
func charGini(h []CountBin) float64 {
	n, _ := histTotals(h)
	var w, tot, p int64
	for _, b := range h {
		m := b.IDs
		w += b.Count * (m*(n-p) - m*(m-1)/2)
		tot += b.Count * m
		p += m
	}
	return 1 - 2*float64(w)/(float64(n+1)*float64(tot))
}

// charMoments returns the mean, population sd, skewness and excess
// kurtosis with the biased moment estimators, as scipy.stats.skew and
// kurtosis with their defaults (bias=True, fisher=True). Like scipy, the
// skewness and kurtosis are NaN when the variance is zero to working
// precision (m2 ≤ (1e-15·mean)²).
func charMoments(x []float64) (mean, sd, skew, kurt float64) {
	n := float64(len(x))
	for _, v := range x {
		mean += v
	}
	mean /= n
	var m2, m3, m4 float64
	for _, v := range x {
		d := v - mean
		d2 := d * d
		m2 += d2
		m3 += d2 * d
		m4 += d2 * d2
	}
	m2, m3, m4 = m2/n, m3/n, m4/n
	sd = math.Sqrt(m2)
	if m2 <= (1e-15*mean)*(1e-15*mean) {
		return mean, sd, math.NaN(), math.NaN()
	}
	return mean, sd, m3 / math.Pow(m2, 1.5), m4/(m2*m2) - 3
}

// FeatureKey is how feature names compare: ignoring case and underscores
// (the data of Shevchenko et al. 2024 says Ginii where the README says
// Gini_i).
func FeatureKey(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }

// CheckFeatureNames refuses a features option that names one feature
// twice, also under two spellings (["Gini_i", "Ginii"]): the table would
// have two columns of one name and PCA would count the feature twice.
func CheckFeatureNames(features []string) error {
	first := map[string]string{}
	for _, f := range features {
		k := FeatureKey(f)
		if prev, dup := first[k]; dup {
			if prev == f {
				return analyses.OptionErrorf("features", "%q is listed twice", f)
			}
			return analyses.OptionErrorf("features", "%q and %q are one feature (feature names ignore case and underscores); name it once", prev, f)
		}
		first[k] = f
	}
	return nil
}

// TailCut finds the long-tail boundary from the per-item histogram of
// counts (sorted by count) and the interactions nr: items ordered by count
// descending (ties by id) form the head up to the first prefix with at
// least 80% of the interactions. The head holds every item with more than
// count interactions and the first head of the ofCount items with exactly
// count (by id); the rest is the tail.
func TailCut(items []CountBin, nr int64) (count, head, ofCount int64) {
	var cum int64
	for k := len(items) - 1; k >= 0; k-- {
		b := items[k]
		if 5*(cum+b.Count*b.IDs) >= 4*nr {
			j := (4*nr - 5*cum + 5*b.Count - 1) / (5 * b.Count) // ceil
			return b.Count, max(j, 1), b.IDs
		}
		cum += b.Count * b.IDs
	}
	return 0, 0, 0
}

// MomentsFromSums returns charMoments's mean, population sd, skewness and
// excess kurtosis of n values from the sums s[k−1] of (x − shift)^k,
// k = 1 … 4, with the same rule for a zero variance. With shift near the
// mean the central moments do not cancel.
func MomentsFromSums(n int64, shift float64, s [4]float64) (mean, sd, skew, kurt float64) {
	N := float64(n)
	d := s[0] / N
	e2, e3, e4 := s[1]/N, s[2]/N, s[3]/N
	mean = shift + d
	m2 := e2 - d*d
	m3 := e3 - 3*d*e2 + 2*d*d*d
	m4 := e4 - 4*d*e3 + 6*d*d*e2 - 3*d*d*d*d
	m2 = max(m2, 0)
	sd = math.Sqrt(m2)
	if m2 <= (1e-15*mean)*(1e-15*mean) {
		return mean, sd, math.NaN(), math.NaN()
	}
	return mean, sd, m3 / math.Pow(m2, 1.5), m4/(m2*m2) - 3
}
