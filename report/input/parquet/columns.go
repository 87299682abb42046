package parquet

// Reading a Parquet file by columns. Next hands out a batch's rows one
// by one after copying every column's cells into a row-major matrix; a
// loader that knows its columns (the units pass) can instead take the
// batch column by column — the text of each cell, the dictionary index
// it came from, the numbers of a value column — and only make a row the
// current one (Seek) when it needs what Next and Float would give for
// that row: an error at its row, a name met for the first time.
//
// The batch is decoded exactly as for Next (refill), so a corrupt page is
// the same error at the same row and column either way; only the matrix
// of rows is not built.

import "io"

// ValueColumns declares columns the caller reads as numbers only: they
// are value columns from the start (as after a first Float on them), so
// their numbers are never formatted to text.
func (p *Reader) ValueColumns(cols ...int) {
	for _, c := range cols {
		if c >= 0 && c < len(p.leaves) {
			l := &p.leaves[c]
			if l.numText {
				l.numText = false
				l.number = l.fast && !l.unread && l.conv != pqString
			}
		}
	}
}

// NextColumns decodes the next batch of rows of the columns read and
// returns how many it holds, or io.EOF after the last. The rows of the
// batch before count as read (Rows). No row of the batch is the current
// one until Seek; Cells, DictIndexes and Numbers give the batch's
// columns. A problem in a batch shortens it to the rows before the
// problem, and the error comes at the next call, as with Next.
func (p *Reader) NextColumns() (int, error) {
	if !p.columnar {
		p.columnar = true
		for i := range p.leaves {
			l := &p.leaves[i]
			l.wantIx = l.fast && !l.unread && l.conv == pqString
			l.lazy = true
		}
	}
	if p.n > 0 {
		p.rows = p.base + int64(p.n)
	}
	if err := p.refill(); err != nil {
		return 0, err
	}
	if p.n == 0 {
		return 0, io.EOF
	}
	p.base, p.k = p.rows, -1
	return p.n, nil
}

// Cell returns the text of column col in row k of the batch (for a
// value column: "" for a null, a placeholder otherwise), as Next would
// give it.
func (p *Reader) Cell(col, k int) string {
	l := &p.leaves[col]
	if l.wantIx && l.ixDone > 0 {
		if ix := l.bix[k]; ix >= 0 {
			return l.dtext[ix]
		}
	} else if l.lazy && !l.numText && l.conv != pqString && l.fast && !l.unread {
		if l.nul[k] {
			return ""
		}
		return pqNumberText
	}
	return l.txt[k]
}

// PlainASCII reports whether every non-null cell of text column col in
// the batch is printable ASCII (from U+0020 to U+007E) cut from a page
// without a dictionary. false tells nothing.
func (p *Reader) PlainASCII(col int) bool { return p.leaves[col].ascii }

// DictIndexes returns, for a text column, the dictionary index of each
// of the batch's rows (-1 for a null or a row of a page without a
// dictionary) and the dictionary's generation: a cell with the same
// index under the same generation has the same text. nil for a batch
// none of whose rows has an index (Texts gives its cells), and for any
// other column. The slice belongs to the reader.
func (p *Reader) DictIndexes(col int) (ix []int32, gen uint64) {
	l := &p.leaves[col]
	if !l.fast || l.unread || l.conv != pqString || len(l.bix) < p.n || l.ixDone == 0 {
		return nil, 0
	}
	return l.bix[:p.n], l.dictGen
}

// Texts returns the cells of text column col in the batch's rows when
// none of them comes from a dictionary (each is what Cell gives), or
// nil. The slice belongs to the reader.
func (p *Reader) Texts(col int) []string {
	l := &p.leaves[col]
	if !l.fast || l.unread || l.conv != pqString || (l.wantIx && l.ixDone > 0) {
		return nil
	}
	return l.txt[:p.n]
}

// Numbers returns the numbers and null flags of a value column
// (ValueColumns) in the batch's rows; ok is false for any other column.
// A non-null finite number is what Float gives for the row; for a null
// or any other number (NaN, ±Inf, an integer beyond ±2^53) the caller
// asks Float, which says what it is.
func (p *Reader) Numbers(col int) (num []float64, nul []bool, ok bool) {
	l := &p.leaves[col]
	if !l.number {
		return nil, nil, false
	}
	return l.num[:p.n], l.nul[:p.n], true
}

// Batch returns the number of the first row of the batch (0-based: the
// rows before it).
func (p *Reader) Batch() int64 { return p.base }

// Seek makes row k of the batch (read by NextColumns) the current row,
// as Next would: Errorf, Float, Line and Rows refer to it. It returns the
// row's record, which the next Seek reuses.
func (p *Reader) Seek(k int) []string {
	p.k = k
	p.rows = p.base + int64(k) + 1
	nc := len(p.leaves)
	if cap(p.one) < nc {
		p.one = make([]string, nc)
	}
	rec := p.one[:nc:nc]
	for i := range rec {
		rec[i] = p.Cell(i, k)
	}
	return rec
}

// Text reports whether column col is stored as text (a string column),
// whose cells a caller parses as it would a CSV cell, rather than as
// numbers that Float reads.
func (p *Reader) Text(col int) bool { return p.leaves[col].conv == pqString }
