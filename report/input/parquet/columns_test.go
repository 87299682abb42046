package parquet

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPrintableASCII: the word-at-a-time check agrees with a byte-by-byte
// one on strings of every length up to 40 made of the bytes around the
// bounds (0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff and a few plain ones), each
// bad byte in every position.
func TestPrintableASCII(t *testing.T) {
	oracle := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] > 0x7e {
				return false
			}
		}
		return true
	}
	near := []byte{0x00, 0x1f, 0x20, 0x21, 0x41, 0x7e, 0x7f, 0x80, 0xa0, 0xff}
	rng := rand.New(rand.NewPCG(7, 32))
	for n := 0; n <= 40; n++ {
		for trial := 0; trial < 300; trial++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(0x20 + rng.IntN(0x5f)) // plain
				if rng.IntN(n+1) == 0 {
					b[i] = near[rng.IntN(len(near))]
				}
			}
			if got, want := printableASCII(string(b)), oracle(string(b)); got != want {
				t.Fatalf("printableASCII(%q) = %v, want %v", b, got, want)
			}
		}
	}
}

// TestMixedPagesInABatch: a batch of a text column whose pages are
// plain, dictionary-encoded and plain again (a writer that falls back
// from its dictionary when it grows too big) gives each row its
// dictionary index, or -1 for the rows of plain pages, and its text;
// a batch of plain pages alone gives no indexes and every cell in
// Texts. Planted: leaving the -1s of the plain rows unwritten (they
// keep the last batch's indexes) fails it.
func TestMixedPagesInABatch(t *testing.T) {
	const n = 9
	l := pqLeaf{conv: pqString, fast: true, wantIx: true, lazy: true, ascii: true,
		txt: make([]string, n), num: make([]float64, n), nul: make([]bool, n), bix: make([]int32, n)}
	for i := range l.bix {
		l.bix[i] = 1 // a batch before left its indexes
	}
	p := &Reader{leaves: []pqLeaf{l}, n: n, columnar: true}
	lf := &p.leaves[0]
	plain := func(cells ...string) {
		lf.indexed, lf.idx, lf.prow, lf.vpos, lf.pn = false, nil, 0, 0, len(cells)
		lf.bdata, lf.boffs = nil, []uint32{0}
		for _, c := range cells {
			lf.bdata = append(lf.bdata, c...)
			lf.boffs = append(lf.boffs, uint32(len(lf.bdata)))
		}
	}
	dict := func(ix ...int32) {
		lf.indexed, lf.idx, lf.prow, lf.vpos, lf.pn = true, ix, 0, 0, len(ix)
		lf.bdata, lf.boffs = nil, nil
	}
	lf.dtext = []string{"alpha", "beta"}
	lf.ixDone = 0
	plain("p0", "p1", "p2")
	mustDecode(t, lf, 0, 3)
	dict(1, 0, 1, 1)
	mustDecode(t, lf, 3, 4)
	plain("p7", "p8")
	mustDecode(t, lf, 7, 2)
	lf.fillIx(n, false)
	ix, _ := p.DictIndexes(0)
	want := []int32{-1, -1, -1, 1, 0, 1, 1, -1, -1}
	cells := []string{"p0", "p1", "p2", "beta", "alpha", "beta", "beta", "p7", "p8"}
	for k := range n {
		if ix[k] != want[k] || p.Cell(0, k) != cells[k] {
			t.Fatalf("row %d: index %d, cell %q; want %d, %q", k, ix[k], p.Cell(0, k), want[k], cells[k])
		}
	}
	if p.Texts(0) != nil {
		t.Fatal("Texts of a batch with dictionary rows is not nil")
	}
	// a batch of plain pages only
	lf.ixDone = 0
	plain("q0", "q1", "q2", "q3", "q4")
	mustDecode(t, lf, 0, 5)
	plain("q5", "q6", "q7", "q8")
	mustDecode(t, lf, 5, 4)
	lf.fillIx(n, false)
	if ix, _ := p.DictIndexes(0); ix != nil {
		t.Fatalf("a batch of plain pages has indexes %v", ix)
	}
	texts := p.Texts(0)
	for k := range n {
		if c := fmt.Sprintf("q%d", k); p.Cell(0, k) != c || texts[k] != c {
			t.Fatalf("row %d: cell %q, text %q; want %q", k, p.Cell(0, k), texts[k], c)
		}
	}
}

func mustDecode(t *testing.T, l *pqLeaf, j, c int) {
	t.Helper()
	if got, err := l.decode(j, c); err != nil || got != c {
		t.Fatalf("decode(%d, %d) = %d, %v", j, c, got, err)
	}
}
