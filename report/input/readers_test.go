package input

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestReadBuffersAreReused: files read one after another read through
// the same buffer (readers), so a build of many files does not touch
// fresh memory for each; what a reader hands out to keep (its header,
// a record read without Transient) stays as it was when a later file
// fills the buffer again.
func TestReadBuffersAreReused(t *testing.T) { // not parallel: counts the heap
	dir := t.TempDir()
	var paths []string
	for i := range 8 {
		var b strings.Builder
		fmt.Fprintf(&b, "user_%d,score_%d\n", i, i)
		for r := range 20000 { // 300 KB: more than one buffer's worth
			fmt.Fprintf(&b, "u%d,%d.25\n", r, i)
		}
		p := filepath.Join(dir, fmt.Sprintf("f%d.csv", i))
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	type kept struct {
		header []string
		first  []string
	}
	var keep []kept
	read := func() {
		keep = keep[:0]
		for i, p := range paths {
			tr, err := OpenTable(p, filepath.Base(p), nil)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := tr.Next()
			if err != nil {
				t.Fatal(err)
			}
			keep = append(keep, kept{tr.Header, slices.Clone(rec)}) // the strings are kept, the slice is the reader's
			tr.Transient()
			rows := 1
			for {
				if _, err := tr.Next(); err != nil {
					break
				}
				rows++
			}
			if rows != 20000 {
				t.Fatalf("%s: %d rows, want 20000", p, rows)
			}
			if err := tr.Close(); err != nil {
				t.Fatal(err)
			}
			for j, k := range keep[:i+1] {
				if k.header[0] != fmt.Sprintf("user_%d", j) || k.first[1] != fmt.Sprintf("%d.25", j) {
					t.Fatalf("after reading %s, file %d's header %q and first record %q changed", p, j, k.header, k.first)
				}
			}
		}
	}
	read() // the pool holds a buffer from here on
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	perFile := (after.TotalAlloc - before.TotalAlloc) / uint64(len(paths))
	if perFile >= readBufferSize {
		t.Errorf("reading a file allocated %d bytes, at least a read buffer (%d): the buffers are not reused", perFile, readBufferSize)
	}
}
