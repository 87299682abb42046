package model

import (
	"fmt"
	"math"
	"testing"
)

// TestPaperPartsBalanced: a table too wide for the text width is split
// into as few parts as fit, of about equal widths. Filling each part to
// the text width left the leaderboard's last rule, Dowdall, alone in a
// part of its own beside eleven.
func TestPaperPartsBalanced(t *testing.T) {
	for _, n := range []int{12, 13, 25} {
		tb := &Table{Columns: []Column{{ID: "method", Label: "Method", Role: RoleKey}}}
		row := []Cell{{Text: "recbole_SLIMElastic"}}
		for j := range n {
			tb.Columns = append(tb.Columns, Column{ID: fmt.Sprintf("rule%d", j), Label: fmt.Sprintf("Rule %d", j), Role: RoleValue})
			row = append(row, Cell{Text: "10.5", Num: true})
		}
		tb.Rows = [][]Cell{row}
		v := paperView(tb)
		greedy, width := 1, columnWidthPt(tb, 0) // parts when each is filled to the text width
		for j := 1; j <= n; j++ {
			if w := columnWidthPt(tb, j); width+w > TextWidthPt {
				greedy, width = greedy+1, columnWidthPt(tb, 0)+w
			} else {
				width += w
			}
		}
		if len(v.Parts) != greedy {
			t.Fatalf("%d columns: %d parts, want %d (as few as fit)", n, len(v.Parts), greedy)
		}
		least, most := math.MaxInt, 0
		for _, p := range v.Parts {
			if p[0] != 0 {
				t.Errorf("%d columns: a part without the key column: %v", n, p)
			}
			least, most = min(least, len(p)-1), max(most, len(p)-1)
		}
		if most-least > 1 {
			t.Errorf("%d columns: parts of %d to %d columns (%v), want them within one of each other", n, least, most, v.Parts)
		}
	}
}

// TestHeaderLinesOnlyWhereNarrower: a header is split over two lines
// only where it is wider than the column's cells; "95% CI" over its
// intervals was split, making the header row two lines for nothing.
func TestHeaderLinesOnlyWhereNarrower(t *testing.T) {
	tb := &Table{
		Columns: []Column{{ID: "ci", Label: "95% CI", Role: RoleInterval}, {ID: "mean_diff", Label: "Mean difference", Role: RoleValue}},
		Rows:    [][]Cell{{{Text: "[-0.7273, -0.4469]"}, {Text: "-0.09", Num: true}}},
	}
	if got := HeaderLines(tb, 0); len(got) != 1 {
		t.Errorf("95%% CI over intervals: %q, want one line", got)
	}
	if got := HeaderLines(tb, 1); len(got) != 2 {
		t.Errorf("Mean difference over -0.09: %q, want two lines", got)
	}
}
