package offline

// One run (a method's lists on a dataset) is accumulated user by user:
// the per-user values go to a callback (they can be hundreds of millions)
// and only sums, the best rank of every item (coverage) and per-rank
// self-information sums (novelty) stay in memory.

import (
	"fmt"
	"math"
	"slices"

	"github.com/evalbook/evalbook/analyses"
)

// ListError is a problem with one user's list; Pos is the index of
// the offending item in the list, or -1 for the list as a whole. The
// reader turns it into file:line.
type ListError struct {
	Pos int
	Msg string
	// Other, when positive, is Pos+1 of an earlier item the error is
	// about too (the first place of a duplicate); 0 when none.
	Other int
}

// Error is the message (the reader adds the file and line).
func (e *ListError) Error() string { return e.Msg }

// accumulator sums per-user values for the per-run means and the per-user
// summary (mean, sd, min, max).
// The run mean is the plain sum over n (the order of a Python oracle's
// sum); the sd uses Welford's update, stable for near-constant metrics.
type accumulator struct {
	n              int
	sum, mean, m2  []float64
	lo, hi         []float64
	names          []string
	runSumAbs      float64 // rating errors, pooled
	runSumSq       float64
	runPredictions int64
}

func newAccumulator(names []string) *accumulator {
	n := len(names)
	return &accumulator{names: names, sum: make([]float64, n), mean: make([]float64, n), m2: make([]float64, n),
		lo: make([]float64, n), hi: make([]float64, n)}
}

func (a *accumulator) add(v []float64) {
	if a.n == 0 {
		copy(a.lo, v)
		copy(a.hi, v)
	}
	a.n++
	n := float64(a.n)
	for i, x := range v {
		a.sum[i] += x
		d := x - a.mean[i]
		a.mean[i] += d / n
		a.m2[i] += d * (x - a.mean[i])
		a.lo[i] = min(a.lo[i], x)
		a.hi[i] = max(a.hi[i], x)
	}
}

// Run accumulates one run. Use one per goroutine.
type Run struct {
	Dataset, Method string
	// OnUser, when set, receives every evaluated user's values (the slice
	// is reused: copy what you keep). names is Evaluator().Names() for
	// ranking lists and RatingMetrics for predictions.
	OnUser func(user string, names []string, values []float64) error

	opts Options
	ev   *Evaluator
	t    *Truth

	seen   []bool
	rated  []bool
	gen    int32
	state  []itemState // per item id: truth items, then extra
	extra  *interner   // items no truth user holds, ids after the truth's
	slotSI []float64
	slotN  []int64

	list, values []float64
	ids          []int32

	rank    *accumulator
	ratings *accumulator
	// Σ log(max(AP, MinGeoMean)) over the evaluated users (gm_map).
	sumLogAP float64
	// keep, when set by KeepPerQuery, are the value indices whose
	// per-user values are kept in perQuery (compare).
	keep     []int
	perQuery PerQuery

	// SkipUnknown ignores the lists of users absent from the truth (as
	// trec_eval ignores run queries absent from the qrels), counting them
	// in Unknown; otherwise such a list is an error.
	SkipUnknown  bool
	Unknown      int
	firstUnknown string

	// Counts of users.
	Listed, Evaluated, NoRelevant, Missing int
	ListLength                             int64 // sum of list lengths
}

// itemState is everything a list item needs, in one cache line.
type itemState struct {
	rel      float64 // its relevance for the current user (valid when stamp == gen)
	selfInfo float64 // −log2 popularity (log2 |U| for items no truth user holds)
	stamp    int32   // gen when in the current user's truth
	mark     int32   // gen when listed in the current list
	minRank  int32   // best rank reached in any list (0: never within maxK)
}

// NewRun starts a run on a finished truth.
func NewRun(dataset, method string, t *Truth, o Options) *Run {
	if !t.done {
		panic("offline: NewRun before Truth.Finish")
	}
	ev := NewEvaluator(o)
	nI := t.Items()
	state := make([]itemState, nI)
	for i := range state {
		state[i].selfInfo = t.selfInfo[i]
	}
	return &Run{
		Dataset: dataset, Method: method, opts: o, ev: ev, t: t,
		seen:    make([]bool, t.Users()),
		state:   state,
		extra:   newInterner(),
		slotSI:  make([]float64, ev.maxK),
		slotN:   make([]int64, ev.maxK),
		values:  make([]float64, len(ev.names)),
		rank:    newAccumulator(ev.names),
		ratings: newAccumulator(RatingMetrics),
	}
}

// itemID interns a listed item: truth ids first, then this run's own.
func (r *Run) itemID(b []byte) int32 {
	if id, ok := r.t.items.Lookup(b); ok {
		return id
	}
	id, added := r.extra.Intern(b)
	if added {
		// An item no truth user holds counts as held by one.
		r.state = append(r.state, itemState{selfInfo: math.Log2(float64(r.t.Users()))})
	}
	return int32(r.t.Items()) + id
}

// AddUser evaluates one user's list, items in rank order (rank 1 first).
// Errors are *ListError: an unknown user, a second list for the
// same user, an item listed twice.
func (r *Run) AddUser(user []byte, items [][]byte) error {
	u, ok := r.t.User(user)
	if !ok && r.SkipUnknown {
		if r.Unknown == 0 {
			r.firstUnknown = string(user)
		}
		r.Unknown++
		return nil
	}
	if !ok {
		return &ListError{Pos: -1, Msg: fmt.Sprintf("unknown user %q: not in the truth", user)}
	}
	if r.seen[u] {
		return &ListError{Pos: -1, Msg: fmt.Sprintf("user %q has a second list (a run must list each user's items together)", user)}
	}
	r.seen[u] = true
	r.Listed++
	r.ListLength += int64(len(items))
	r.gen++
	g := r.gen
	a, b := r.t.start[u], r.t.start[u+1]
	for p := a; p < b; p++ {
		s := &r.state[r.t.item[p]]
		s.stamp, s.rel = g, r.t.rel[p]
	}
	maxK := r.ev.maxK
	r.list = r.list[:0]
	// Two passes: the lookups of one list are independent, so the CPU
	// overlaps their cache misses; so are the state reads of the second.
	r.ids = r.ids[:0]
	for _, it := range items {
		r.ids = append(r.ids, r.itemID(it))
	}
	for i, id := range r.ids {
		s := &r.state[id]
		if s.mark == g {
			first := slices.Index(r.ids[:i], id)
			return &ListError{Pos: i, Other: first + 1, Msg: fmt.Sprintf("user %q: item %q is listed twice", user, items[i])}
		}
		s.mark = g
		rel := NotJudged
		if s.stamp == g {
			rel = s.rel
		}
		r.list = append(r.list, rel)
		if i >= maxK {
			continue
		}
		rank := int32(i + 1)
		if s.minRank == 0 || rank < s.minRank {
			s.minRank = rank
		}
		r.slotSI[i] += s.selfInfo
		r.slotN[i]++
	}
	return r.evalUser(u, r.list)
}

func (r *Run) evalUser(u int32, list []float64) error {
	a, b := r.t.start[u], r.t.start[u+1]
	numRel := r.ev.Eval(list, r.t.rel[a:b], r.values)
	if numRel == 0 {
		r.NoRelevant++
		if r.opts.NoRelevant != RuleZero {
			return nil
		}
	} else {
		r.Evaluated++
	}
	r.rank.add(r.values)
	r.sumLogAP += math.Log(max(r.values[r.ev.APIndex()], MinGeoMean))
	if r.keep != nil {
		for i, idx := range r.keep {
			r.perQuery.Values[i][u] = r.values[idx]
		}
		r.perQuery.Has[u] = true
	}
	if r.OnUser != nil {
		return r.OnUser(r.t.UserName(u), r.ev.names, r.values)
	}
	return nil
}

// AddPredictions adds one user's rating predictions: the true rating of
// each item is its relevance in the truth. Errors are *ListError.
func (r *Run) AddPredictions(user []byte, items [][]byte, pred []float64) error {
	u, ok := r.t.User(user)
	if !ok {
		return &ListError{Pos: -1, Msg: fmt.Sprintf("unknown user %q: not in the truth", user)}
	}
	if r.rated == nil {
		r.rated = make([]bool, r.t.Users())
	}
	if r.rated[u] {
		return &ListError{Pos: -1, Msg: fmt.Sprintf("user %q has a second block of predictions (list each user's predictions together)", user)}
	}
	r.rated[u] = true
	if len(items) == 0 {
		return nil
	}
	var sa, ss float64
	r.gen++
	for i, it := range items {
		id, ok := r.t.items.Lookup(it)
		var rating float64
		if ok {
			rating, ok = r.t.lookup(u, id)
		}
		if !ok {
			return &ListError{Pos: i, Msg: fmt.Sprintf("user %q: item %q has no true rating in the truth", user, it)}
		}
		if r.state[id].mark == r.gen {
			return &ListError{Pos: i, Msg: fmt.Sprintf("user %q: item %q is predicted twice", user, it)}
		}
		r.state[id].mark = r.gen
		if !analyses.Finite(pred[i]) {
			return &ListError{Pos: i, Msg: fmt.Sprintf("user %q: item %q: prediction %g is not a finite number", user, it, pred[i])}
		}
		d := pred[i] - rating
		sa += math.Abs(d)
		ss += d * d
	}
	n := float64(len(items))
	v := []float64{sa / n, math.Sqrt(ss / n)}
	r.ratings.add(v)
	r.ratings.runSumAbs += sa
	r.ratings.runSumSq += ss
	r.ratings.runPredictions += int64(len(items))
	if r.OnUser != nil {
		return r.OnUser(r.t.UserName(u), RatingMetrics, v)
	}
	return nil
}

// Finish scores the truth users the run has no list for (missing_users,
// no_relevant). Call once, after the last AddUser.
func (r *Run) Finish() error {
	for u, seen := range r.seen {
		if seen {
			continue
		}
		if r.t.numRel[u] > 0 {
			r.Missing++
			if r.opts.MissingUsers != RuleZero {
				continue
			}
			if err := r.evalUser(int32(u), nil); err != nil {
				return err
			}
			r.Evaluated-- // counted as missing, not as evaluated
			continue
		}
		if err := r.evalUser(int32(u), nil); err != nil {
			return err
		}
	}
	return nil
}

// RunValues is one run's summary: counts of users and the per-run
// values (means of per-user values, coverage, novelty, pooled rating
// errors); nil marks an undefined value.
type RunValues struct {
	Dataset    string `json:"dataset"`
	Method     string `json:"method"`
	Listed     int    `json:"users_listed"`
	Evaluated  int    `json:"users_evaluated"`
	NoRelevant int    `json:"users_no_relevant"`
	Missing    int    `json:"users_missing"`
	Unknown    int    `json:"users_unknown,omitempty"`
	// FirstUnknown names one ignored user absent from the truth.
	FirstUnknown string              `json:"-"`
	MeanLength   float64             `json:"mean_list_length"`
	Catalog      int                 `json:"catalog_items"`
	Values       map[string]*float64 `json:"values"`
	Users        []UserStats         `json:"-"`
}

// UserStats summarises a per-user metric over the run's users.
type UserStats struct {
	Metric         string
	N              int
	Mean, SD       float64
	Min, Max       float64
	HasSD, Defined bool
}

// FinishDataset computes the per-run values of every run of one
// dataset (all runs of the dataset must be passed together: Coverage's
// catalog is the truth's items and every item any of these runs lists).
func FinishDataset(runs []*Run) []RunValues {
	if len(runs) == 0 {
		return nil
	}
	t := runs[0].t
	catalog := t.Items()
	extra := map[string]bool{}
	for _, r := range runs {
		for i := range r.extra.Len() {
			extra[r.extra.Name(int32(i))] = true
		}
	}
	catalog += len(extra)
	out := make([]RunValues, len(runs))
	for j, r := range runs {
		v := RunValues{Dataset: r.Dataset, Method: r.Method, Listed: r.Listed, Evaluated: r.Evaluated,
			NoRelevant: r.NoRelevant, Missing: r.Missing, Unknown: r.Unknown, FirstUnknown: r.firstUnknown,
			Catalog: catalog, Values: map[string]*float64{}}
		if r.Listed > 0 {
			v.MeanLength = float64(r.ListLength) / float64(r.Listed)
		}
		for i, name := range r.ev.names {
			if r.rank.n > 0 {
				x := r.rank.sum[i] / float64(r.rank.n)
				v.Values[name] = &x
			}
		}
		if r.rank.n > 0 {
			gm := math.Exp(r.sumLogAP / float64(r.rank.n))
			v.Values[GMMAP] = &gm
		}
		v.Users = append(v.Users, userStats(r.rank)...)
		// Coverage@k: share of the catalog reaching rank ≤ k in some list.
		// Novelty@k: mean self-information over every listed slot ≤ k.
		var siSum float64
		var siN int64
		ki := 0
		ks := r.ev.ks
		cum := make([]int, r.ev.maxK+2)
		for _, s := range r.state {
			if s.minRank > 0 {
				cum[s.minRank]++
			}
		}
		covered := 0
		for rank := 1; rank <= r.ev.maxK; rank++ {
			covered += cum[rank]
			siSum += r.slotSI[rank-1]
			siN += r.slotN[rank-1]
			for ki < len(ks) && ks[ki] == rank {
				if catalog > 0 {
					c := float64(covered) / float64(catalog)
					v.Values[fmt.Sprintf("coverage@%d", rank)] = &c
				}
				if siN > 0 {
					n := siSum / float64(siN)
					v.Values[fmt.Sprintf("novelty@%d", rank)] = &n
				}
				ki++
			}
		}
		if r.ratings.runPredictions > 0 {
			n := float64(r.ratings.runPredictions)
			mae, rmse := r.ratings.runSumAbs/n, math.Sqrt(r.ratings.runSumSq/n)
			v.Values["mae"], v.Values["rmse"] = &mae, &rmse
			v.Users = append(v.Users, userStats(r.ratings)...)
		}
		out[j] = v
	}
	return out
}

func userStats(a *accumulator) []UserStats {
	out := make([]UserStats, len(a.names))
	for i, name := range a.names {
		s := UserStats{Metric: name, N: a.n}
		if a.n > 0 {
			n := float64(a.n)
			s.Defined = true
			s.Mean = a.sum[i] / n
			s.Min, s.Max = a.lo[i], a.hi[i]
			if a.n > 1 {
				s.HasSD = true
				s.SD = math.Sqrt(a.m2[i] / (n - 1))
			}
		}
		out[i] = s
	}
	return out
}

// MetricNames lists the per-run metric names of the options in
// table order: the ranking metrics, coverage, novelty, then mae and rmse
// when predictions are given.
func MetricNames(o Options, predictions bool) []string {
	ev := NewEvaluator(o)
	names := append([]string(nil), ev.names...)
	names = append(names, GMMAP)
	for _, m := range RunMetrics {
		for _, k := range ev.ks {
			names = append(names, fmt.Sprintf("%s@%d", m, k))
		}
	}
	if predictions {
		names = append(names, RatingMetrics...)
	}
	return names
}

// KeepPerQuery makes the run keep every evaluated user's values of the
// named per-user metrics (which must be Evaluator names), for compare:
// 8 bytes per user and metric.
func (r *Run) KeepPerQuery(metrics []string) {
	r.keep = make([]int, len(metrics))
	for i, m := range metrics {
		r.keep[i] = slices.Index(r.ev.names, m)
		if r.keep[i] < 0 {
			panic("offline: KeepPerQuery of an unknown metric " + m)
		}
	}
	n := r.t.Users()
	r.perQuery = PerQuery{Dataset: r.Dataset, Method: r.Method, Values: make([][]float64, len(metrics)), Has: make([]bool, n)}
	for i := range metrics {
		r.perQuery.Values[i] = make([]float64, n)
	}
}

// PerQuery returns the kept per-user values (KeepPerQuery).
func (r *Run) PerQuery() PerQuery { return r.perQuery }
