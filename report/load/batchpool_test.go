package load

import (
	"testing"
	"unsafe"
)

// TestBatchPoolCools: a reader reuses the batch its sinks just gave back
// while its file is short (no memory spent), and past coolAfter rows
// leaves a growing number of batches to cool before it takes one again,
// never more than coolBytes of them.
func TestBatchPoolCools(t *testing.T) {
	free := make(chan *UnitsBatchOf, freeBatches)
	next := BatchPool(free, UnitsBatch)
	maxCool := coolBytes / (UnitsBatch * int(unsafe.Sizeof(BatchRow{})))
	short := coolAfter / UnitsBatch
	returned := map[*UnitsBatchOf]int{} // when each batch came back
	distinct, distance := 0, 0
	for i := 0; i < short+8*maxCool+64; i++ {
		b := next()
		if at, ok := returned[b]; ok {
			distance = i - at
		} else {
			distinct++
		}
		if i == short-1 && distinct != 1 {
			t.Fatalf("the first %d batches (%d rows) were %d batches: a short file should reuse the one its sinks gave back", short, coolAfter, distinct)
		}
		returned[b] = i
		free <- b // the sinks are done with it at once
	}
	if distinct > maxCool+2 {
		t.Errorf("a long file took %d distinct batches, more than the %d that coolBytes allows", distinct, maxCool+2)
	}
	if distance < maxCool {
		t.Errorf("a long file reused a batch %d takes after it came back, want at least %d (cooled)", distance, maxCool)
	}
}
