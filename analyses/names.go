package analyses

import (
	"sort"
	"strconv"
	"strings"
)

// DidYouMean returns ` (did you mean "x"?)` for the candidate closest to
// s — one equal to s but for case first, else the nearest by edit
// distance — or "" when none is close.
func DidYouMean(s string, candidates []string) string {
	return closest(s, candidates)
}

// NameHint is the hint that follows an unknown name in an error:
// DidYouMean, then the valid names (ValidNames):
//
//	unknown rule "dolan_more"; valid: "mean_rank", "mean", …
//	no metric "nDCG@10" (did you mean "ndcg@10"?); valid: "ndcg@10", "recall@10"
//
// It returns "" when there are no candidates.
func NameHint(s string, candidates []string) string {
	if len(candidates) == 0 {
		return ""
	}
	return closest(s, candidates) + ValidNames(s, candidates)
}

// listAll is how many valid names an error lists in full.
const listAll = 12

// ValidNames is `; valid: "a", "b"` (all candidates, in their order, when
// there are at most twelve) or `; closest of N: "a", …` (the five nearest
// to s by edit distance).
func ValidNames(s string, candidates []string) string {
	if len(candidates) == 0 {
		return ""
	}
	if len(candidates) <= listAll {
		return "; valid: " + quoteList(candidates)
	}
	// Each distance once (a manifest of many unknown keys asks for
	// thousands of these), then a stable sort by it: the order a sort
	// comparing distances computed afresh gives.
	type cand struct {
		name string
		d    int
	}
	near := make([]cand, len(candidates))
	for i, c := range candidates {
		near[i] = cand{c, nameDistance(s, c)}
	}
	sort.SliceStable(near, func(i, j int) bool { return near[i].d < near[j].d })
	names := make([]string, 5)
	for i := range names {
		names[i] = near[i].name
	}
	return "; closest of " + strconv.Itoa(len(candidates)) + ": " + quoteList(names)
}

// closest is ` (did you mean "x"?)` for the nearest candidate, or "".
func closest(s string, candidates []string) string {
	for _, c := range candidates {
		if c != s && strings.EqualFold(c, s) {
			return ` (did you mean "` + c + `"?)`
		}
	}
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || bestD > max(2, len(s)/3) {
		return ""
	}
	return ` (did you mean "` + best + `"?)`
}

// nameDistance orders candidates for "closest": case-insensitive edit
// distance.
func nameDistance(a, b string) int {
	return editDistance(strings.ToLower(a), strings.ToLower(b))
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// SortStable sorts the indices idx by less, which compares the items
// they index; equal items keep their order.
func SortStable(idx []int, less func(a, b int) bool) {
	sort.SliceStable(idx, func(i, j int) bool { return less(idx[i], idx[j]) })
}
