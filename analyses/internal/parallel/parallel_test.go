package parallel

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

func TestForVisitsEveryIndexOnce(t *testing.T) {
	for _, jobs := range []int{-1, 0, 1, 3, 100} {
		for _, n := range []int{0, 1, 7, 1000} {
			seen := make([]int32, n)
			if err := For(n, jobs, func(i int) { atomic.AddInt32(&seen[i], 1) }); err != nil {
				t.Fatal(err)
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("n=%d jobs=%d: index %d visited %d times", n, jobs, i, c)
				}
			}
		}
	}
}

func TestForTurnsPanicIntoError(t *testing.T) {
	for _, jobs := range []int{1, 4} {
		err := For(100, jobs, func(i int) {
			if i == 42 {
				panic("boom")
			}
		})
		var pe *PanicError
		if !errors.As(err, &pe) || pe.Index != 42 || pe.Value != "boom" || !strings.Contains(err.Error(), "boom") {
			t.Fatalf("jobs=%d: err = %v", jobs, err)
		}
	}
}
