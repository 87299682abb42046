package datasets

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestInteractionLogRatingChanges: the rows that give a (user, item)
// pair another rating than its row before are counted exactly (the
// pandas-free oracle is a walk over the rows with a map of each pair's
// last rating), whatever the buffer limit, so the compactions' timing
// never changes the count the page reports.
func TestInteractionLogRatingChanges(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 4))
	type row struct {
		u, i string
		r    float64
	}
	var rows []row
	for range 5000 {
		rows = append(rows, row{fmt.Sprintf("u%d", rng.IntN(40)), fmt.Sprintf("i%d", rng.IntN(30)), float64(rng.IntN(3) + 1)})
	}
	want := int64(0)
	last := map[[2]string]float64{}
	for _, r := range rows {
		k := [2]string{r.u, r.i}
		if prev, ok := last[k]; ok && prev != r.r {
			want++
		}
		last[k] = r.r
	}
	if want == 0 {
		t.Fatal("the rows change no rating: the test tests nothing")
	}
	for _, limit := range []int{logCompactMin, 1, 7, 333} {
		l := NewInteractionLog()
		l.limit = limit
		for _, r := range rows {
			l.Add(r.u, r.i, r.r)
		}
		s, err := l.Finish(Preprocessing{Threshold: 2, HasThreshold: true})
		if err != nil {
			t.Fatal(err)
		}
		if s.RatingChanges != want {
			t.Errorf("limit %d: %d rating changes, want %d", limit, s.RatingChanges, want)
		}
	}
}
