package figures

// Why this file exists: a figure with one line, bar or point group per
// method costs time and bytes in proportion to them and shows nothing
// legible past a few dozen (the performance profiles of 1 000 methods
// took 50 s to draw as PNG, and their legend filled the page). A figure
// with more series than it can show draws the first MaxSeries in its
// own order (best first) and says in its caption how many it leaves out
// and where they all are; the tables keep every row.

import "fmt"

// MaxSeries is the most series (one per method) a figure draws.
const MaxSeries = 20

// topSeries keeps the first MaxSeries of order (best first) and returns
// the sentence the caption gains when it drops any ("" when it keeps
// all); what names the series ("methods").
func topSeries(order []int, what string) ([]int, string) {
	if len(order) <= MaxSeries {
		return order, ""
	}
	return order[:MaxSeries], fmt.Sprintf(" Only the first %d of %d %s are drawn (at most %d in one figure); the tables hold them all.", MaxSeries, len(order), what, MaxSeries)
}

// MaxPairFigures is the most figures an analysis draws one per pair of
// methods (paired_tests): 200 methods are 19 900 pairs.
const MaxPairFigures = 50

// topPairs returns how many of n pairs get a figure and the sentence the
// last figure's caption gains when some get none.
func topPairs(n int) (int, string) {
	if n <= MaxPairFigures {
		return n, ""
	}
	return MaxPairFigures, fmt.Sprintf(" Figures are drawn for the first %d of %d pairs (at most %d); the tables hold them all.", MaxPairFigures, n, MaxPairFigures)
}
