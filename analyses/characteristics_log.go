package analyses

// Interaction-log features of SPEC §5.6 (seed 001 §4.3, after Deldjoo et
// al. 2021). A log can hold hundreds of millions of rows, so it is pushed
// in row by row (Add) and only the distinct (user, item) pairs of one
// dataset are kept, as 64-bit keys over interned ids: memory is bounded by
// the dataset's pairs, not its rows, and a build holds at most one dataset
// per worker. Everything after Finish works on sorted integer arrays, so
// the features do not depend on map order and sums of counts are exact.

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// LogFeatureNames are the eighteen features computed from a log, in the
// order of SPEC §5.6 (the column order of the -features table).
var LogFeatureNames = []string{
	"Nu", "Ni", "Nr", "SpaceSize", "Shape", "Density", "Rpu", "Rpi", "Gini_u", "Gini_i",
	"APB", "StPB", "SkPB", "KuPB", "LTavg", "LTstd", "LTsk", "LTku",
}

// logCountFeatures are whole numbers, shown as integers.
var logCountFeatures = map[string]bool{"Nu": true, "Ni": true, "Nr": true, "SpaceSize": true}

// Preprocessing is the optional filtering of SPEC §5.6, applied in this
// order after repeated pairs are merged: the rating threshold, the
// item-then-user filter (seed 001 §3.2's "5-filter, prioritizing item
// filtering before user filtering", one pass each), then the iterated
// k-core. A zero field switches its step off.
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
type InteractionLog struct {
	users, items         map[string]uint32
	userNames, itemNames []string
	last                 map[uint64]float64 // pair -> last rating (NaN without one)
	rows                 int64
}

// NewInteractionLog returns an empty log.
func NewInteractionLog() *InteractionLog {
	return &InteractionLog{users: map[string]uint32{}, items: map[string]uint32{}, last: map[uint64]float64{}}
}

// Add records one row. rating is NaN when the log has no rating column. A
// repeated (user, item) pair keeps its last rating (SPEC §5.6). The
// strings are copied when first seen, so the caller may reuse its buffers.
func (l *InteractionLog) Add(user, item string, rating float64) {
	l.rows++
	u, ok := l.users[user]
	if !ok {
		u = uint32(len(l.userNames))
		user = strings.Clone(user)
		l.users[user] = u
		l.userNames = append(l.userNames, user)
	}
	i, ok := l.items[item]
	if !ok {
		i = uint32(len(l.itemNames))
		item = strings.Clone(item)
		l.items[item] = i
		l.itemNames = append(l.itemNames, item)
	}
	l.last[uint64(u)<<32|uint64(i)] = rating
}

// Rows returns the number of rows added.
func (l *InteractionLog) Rows() int64 { return l.rows }

// Pairs returns the number of distinct (user, item) pairs so far.
func (l *InteractionLog) Pairs() int { return len(l.last) }

// ErrEmptyLog is returned (wrapped) when no interaction is left; the
// caller names the file and dataset.
var ErrEmptyLog = fmt.Errorf("no interactions left")

// LogSummary is one dataset's preprocessing counts and features, in
// LogFeatureNames order.
type LogSummary struct {
	Counts   PreprocessCounts
	Features []float64
}

// Finish preprocesses the log and computes its features. The log's memory
// is released. An empty result is an error wrapping ErrEmptyLog that says
// which step emptied it.
func (l *InteractionLog) Finish(p Preprocessing) (*LogSummary, error) {
	c := PreprocessCounts{Rows: l.rows, Duplicates: l.rows - int64(len(l.last))}
	keys := make([]uint64, 0, len(l.last))
	for k, r := range l.last {
		if p.HasThreshold && !(r >= p.Threshold) {
			c.BelowThreshold++
			continue
		}
		keys = append(keys, k)
	}
	l.last, l.users, l.items = nil, nil, nil
	slices.Sort(keys) // user-major: pairs of one user are contiguous
	nu, ni := len(l.userNames), len(l.itemNames)
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
	f := logFeatures(keys, ucnt, icnt, l.itemNames)
	l.userNames, l.itemNames = nil, nil
	return &LogSummary{Counts: c, Features: f}, nil
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
	Nu, Ni, Nr := float64(len(users)), float64(len(items)), float64(len(keys))
	space := Nu * Ni

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
	return []float64{
		Nu, Ni, Nr, space, Nu / Ni, Nr / space, Nr / Nu, Nr / Ni,
		charGini(users), charGini(items),
		apb, stpb, skpb, kupb, ltavg, ltstd, ltsk, ltku,
	}
}

// charGini is SPEC §5.6's Gini of counts: 1 − 2Σ(n+1−i)c_(i)/((n+1)Σc)
// over the counts sorted ascending. The sums are exact integers.
func charGini(c []int64) float64 {
	s := slices.Clone(c)
	slices.Sort(s)
	n := int64(len(s))
	var w, tot int64
	for i, v := range s { // i is 0-based: weight n+1−(i+1) = n−i
		w += (n - int64(i)) * v
		tot += v
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
