package offline

// The held-out truth of one dataset is the only thing offline_metrics keeps
// whole: runs stream past it one user at a time. Users and items are
// interned to dense int32 ids and the entries are stored flat, grouped by
// user, so ten million judgements cost about 120 MB and a list item is
// matched with one map lookup and one array read.

import (
	"fmt"
	"math"
	"slices"

	"github.com/evalbook/evalbook/analyses"
)

// Truth is one dataset's truth: for every user the items with
// their relevance (1 when the truth file has no relevance column). Build
// it with Add, then call Finish once before evaluating runs.
type Truth struct {
	users *interner
	items *interner
	// staged entries, until Finish
	eu, ei []int32
	er     []float64
	// the last user added: truth files list a user's items together
	lastUser []byte
	lastU    int32
	// grouped by user, after Finish; each user's entries sorted by item id
	start    []int32
	item     []int32
	rel      []float64
	numRel   []int32   // relevant items per user (threshold of Finish)
	selfInfo []float64 // −log2(share of truth users holding the item)
	done     bool
}

// DuplicateError says an item is listed twice for a user. The
// truth keeps no line numbers (that would cost as much memory as the
// relevance values): the reader finds the lines again when it happens.
type DuplicateError struct {
	User, Item string
}

// Error names the user and the item.
func (e *DuplicateError) Error() string {
	return fmt.Sprintf("user %q: item %q is listed twice", e.User, e.Item)
}

// NewTruth returns an empty truth.
func NewTruth() *Truth {
	return &Truth{users: newInterner(), items: newInterner()}
}

// Add records that user holds item with relevance rel.
func (t *Truth) Add(user, item []byte, rel float64) error {
	if t.done {
		panic("offline: Truth.Add after Finish")
	}
	if len(user) == 0 {
		return fmt.Errorf("empty user id")
	}
	if len(item) == 0 {
		return fmt.Errorf("empty item id")
	}
	if !analyses.Finite(rel) {
		return fmt.Errorf("relevance %g is not a finite number", rel)
	}
	u := t.lastU
	if t.lastUser == nil || string(user) != string(t.lastUser) {
		u, _ = t.users.Intern(user)
		t.lastU, t.lastUser = u, append(t.lastUser[:0], user...)
	}
	i, _ := t.items.Intern(item)
	t.eu = append(t.eu, u)
	t.ei = append(t.ei, i)
	t.er = append(t.er, rel)
	return nil
}

// Finish groups the entries by user, finds duplicates (the first one as
// an *DuplicateError), counts each user's relevant items (at least
// threshold) and each item's popularity.
func (t *Truth) Finish(threshold float64) error {
	if t.done {
		return nil
	}
	nu := t.users.Len()
	t.start = make([]int32, nu+1)
	for _, u := range t.eu {
		t.start[u+1]++
	}
	for u := range nu {
		t.start[u+1] += t.start[u]
	}
	n := len(t.eu)
	t.item = make([]int32, n)
	t.rel = make([]float64, n)
	fill := slices.Clone(t.start[:nu])
	for j, u := range t.eu {
		p := fill[u]
		fill[u]++
		t.item[p], t.rel[p] = t.ei[j], t.er[j]
	}
	t.eu, t.ei, t.er = nil, nil, nil
	type ent struct {
		item int32
		rel  float64
	}
	var scratch []ent
	t.numRel = make([]int32, nu)
	users := make([]int32, t.items.Len())
	for u := range nu {
		a, b := t.start[u], t.start[u+1]
		scratch = scratch[:0]
		for p := a; p < b; p++ {
			scratch = append(scratch, ent{t.item[p], t.rel[p]})
		}
		if !slices.IsSortedFunc(scratch, func(x, y ent) int { return int(x.item - y.item) }) {
			slices.SortFunc(scratch, func(x, y ent) int { return int(x.item - y.item) })
		}
		for j, e := range scratch {
			if j > 0 && scratch[j-1].item == e.item {
				return &DuplicateError{User: t.users.Name(int32(u)), Item: t.items.Name(e.item)}
			}
			t.item[a+int32(j)], t.rel[a+int32(j)] = e.item, e.rel
			if e.rel >= threshold {
				t.numRel[u]++
			}
			users[e.item]++
		}
	}
	t.selfInfo = make([]float64, t.items.Len())
	for i, c := range users {
		t.selfInfo[i] = -math.Log2(float64(c) / float64(nu))
	}
	t.items.buildNumeric()
	t.done = true
	return nil
}

// Users is the number of users of the truth.
func (t *Truth) Users() int { return t.users.Len() }

// Items is the number of distinct items of the truth.
func (t *Truth) Items() int { return t.items.Len() }

// User returns a user's id.
func (t *Truth) User(name []byte) (int32, bool) {
	return t.users.Lookup(name)
}

// UserName returns a user's name.
func (t *Truth) UserName(u int32) string { return t.users.Name(u) }

// lookup returns the relevance of item i for user u (binary search in the
// user's entries, which are sorted by item id).
func (t *Truth) lookup(u, i int32) (float64, bool) {
	a, b := int(t.start[u]), int(t.start[u+1])
	j, ok := slices.BinarySearch(t.item[a:b], i)
	if !ok {
		return 0, false
	}
	return t.rel[a+j], true
}
