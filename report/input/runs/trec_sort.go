package runs

// TREC runs may list a query's lines anywhere in the file (merged or
// re-sorted runs): trec_eval reads the whole run and groups it by query.
// Runs of tens of millions of lines must still read in bounded memory, so
// a run whose queries are not contiguous is grouped by a bounded external
// sort: lines are gathered in chunks of at most trecChunkBytes, each chunk
// is sorted by (query, line) and, when the run holds more than one chunk,
// spilled to a temporary file; the chunks are then merged by query. Peak
// memory is one chunk plus one buffered reader per spilled chunk, whatever
// the run's length. A run whose queries are contiguous (the usual case,
// found by a cheap first pass over the first field of each line) streams
// as before, with no copy.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/evalbook/evalbook/report/input"
)

// trecChunkBytes bounds the memory of one chunk of the external sort.
var trecChunkBytes = 64 << 20

// trecGrouped reports whether every query's lines of a TREC run are
// contiguous, reading the file (decompressed) through a TRECGroupScan.
func trecGrouped(path, display string, maxDecompressed int64) (bool, error) {
	f, err := input.OpenRegular(path, display)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		gz, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<16))
		if err != nil {
			return false, fmt.Errorf("%s: not a gzip file: %w", display, err)
		}
		defer gz.Close()
		r = input.CapDecompressed(gz, maxDecompressed)
	}
	g := NewTRECGroupScan()
	buf := make([]byte, 1<<20)
	for !g.split {
		n, err := r.Read(buf)
		g.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			// the reader reports it at its line
			return true, nil
		}
	}
	return g.Grouped(), nil
}

// TRECGroupScan finds whether the queries of a TREC run are contiguous
// from the file's bytes, written to it in order: the hashing pass over a
// run feeds it, so a run needs no pass of its own to choose between
// streaming and the external sort. A query is the first field of a line
// as the run reader reads it (a BOM stripped, blank lines skipped).
type TRECGroupScan struct {
	partial []byte // the start of a line the last write cut
	last    []byte
	seen    map[string]struct{}
	started bool // past the first line (the BOM)
	split   bool // a query's lines were found apart
}

// NewTRECGroupScan returns a scan at the start of a file.
func NewTRECGroupScan() *TRECGroupScan { return &TRECGroupScan{seen: map[string]struct{}{}} }

// Write scans the next bytes of the file; it never fails.
func (g *TRECGroupScan) Write(p []byte) (int, error) {
	n := len(p)
	if g.split {
		return n, nil
	}
	if len(g.partial) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(g.partial) <= input.MaxLineBytes+2 { // longer: the reader refuses the line
				g.partial = append(g.partial, p...)
			}
			return n, nil
		}
		g.partial = append(g.partial, p[:i]...)
		g.line(g.partial)
		g.partial = g.partial[:0]
		p = p[i+1:]
	}
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			break
		}
		g.line(p[:i])
		p = p[i+1:]
	}
	g.partial = append(g.partial, p...)
	return n, nil
}

// Grouped reports, once every byte was written, whether each query's
// lines are contiguous.
func (g *TRECGroupScan) Grouped() bool {
	if len(g.partial) > 0 {
		g.line(g.partial)
		g.partial = g.partial[:0]
	}
	return !g.split
}

func (g *TRECGroupScan) line(b []byte) {
	if g.split {
		return
	}
	if !g.started {
		g.started = true
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	}
	// The usual case: the line starts with the last query and a separator.
	if n := len(g.last); n > 0 && len(b) > n && (b[n] == ' ' || b[n] == '\t') && string(b[:n]) == string(g.last) {
		return
	}
	q := input.TrimBytes(firstField(b))
	if len(q) == 0 || bytes.Equal(q, g.last) {
		return
	}
	if _, dup := g.seen[string(q)]; dup {
		g.split = true
		g.seen = nil
		return
	}
	g.seen[string(q)] = struct{}{}
	g.last = append(g.last[:0], q...)
}

// trecRec is one run line in a chunk: query and docno in the chunk's
// arena, the score and the line.
type trecRec struct {
	q, d  [2]uint32 // offset, length
	score float64
	line  int
}

// trecSorter groups a TREC run by query (see the file comment).
type trecSorter struct {
	arena  []byte
	recs   []trecRec
	spills []*os.File
	// merging
	mem    int // next record of the in-memory chunk (no spill)
	heads  trecHeap
	chunks []*spillReader
}

// trecRow is a decoded record.
type trecRow struct {
	q, d  []byte
	score float64
	line  int
	chunk int
}

// newTrecSorter reads the whole run through r's line reader (checking
// every line as the streaming reader does) and prepares the merge.
func newTrecSorter(r *Reader) (*trecSorter, error) {
	s := &trecSorter{}
	for {
		err := r.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			s.Close()
			return nil, err
		}
		q := input.TrimBytes(r.fields[r.ucol])
		if why := input.BadName(string(q)); why != "" {
			s.Close()
			return nil, r.errorf(r.lineNo(), "user id %s holds %s", input.Quote(string(q)), why)
		}
		v, ok := input.Number(r.fields[r.scol])
		if !ok {
			s.Close()
			return nil, r.errorf(r.lineNo(), "%s", input.NumberProblem("score", r.fields[r.scol]))
		}
		d := input.TrimBytes(r.fields[r.icol])
		rec := trecRec{score: v, line: r.lineNo()}
		rec.q = [2]uint32{uint32(len(s.arena)), uint32(len(q))}
		s.arena = append(s.arena, q...)
		rec.d = [2]uint32{uint32(len(s.arena)), uint32(len(d))}
		s.arena = append(s.arena, d...)
		s.recs = append(s.recs, rec)
		if len(s.arena)+len(s.recs)*40 >= trecChunkBytes {
			if err := s.spill(); err != nil {
				s.Close()
				return nil, fmt.Errorf("%s: grouping the run by query: %w", r.file(), err)
			}
		}
	}
	s.sortChunk()
	if len(s.spills) > 0 {
		if err := s.spill(); err != nil {
			s.Close()
			return nil, fmt.Errorf("%s: grouping the run by query: %w", r.file(), err)
		}
		for i, f := range s.spills {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				s.Close()
				return nil, err
			}
			c := &spillReader{br: bufio.NewReaderSize(f, 1<<16), chunk: i}
			if err := c.advance(); err != nil && err != io.EOF {
				s.Close()
				return nil, err
			}
			if c.ok {
				s.heads = append(s.heads, c)
			}
			s.chunks = append(s.chunks, c)
		}
		heap.Init(&s.heads)
	}
	return s, nil
}

func (s *trecSorter) sortChunk() {
	q := func(r trecRec) []byte { return s.arena[r.q[0] : r.q[0]+r.q[1]] }
	slices.SortFunc(s.recs, func(a, b trecRec) int {
		if c := bytes.Compare(q(a), q(b)); c != 0 {
			return c
		}
		return a.line - b.line
	})
}

// spill sorts the chunk and writes it to a temporary file.
func (s *trecSorter) spill() error {
	s.sortChunk()
	f, err := os.CreateTemp("", "evalbook-trec-*.chunk")
	if err != nil {
		return err
	}
	os.Remove(f.Name()) // unlinked: gone when closed, even after a crash
	s.spills = append(s.spills, f)
	w := bufio.NewWriterSize(f, 1<<16)
	var buf [binary.MaxVarintLen64]byte
	for _, r := range s.recs {
		for _, p := range [][2]uint32{r.q, r.d} {
			n := binary.PutUvarint(buf[:], uint64(p[1]))
			w.Write(buf[:n])
			w.Write(s.arena[p[0] : p[0]+p[1]])
		}
		binary.LittleEndian.PutUint64(buf[:8], math.Float64bits(r.score))
		w.Write(buf[:8])
		n := binary.PutUvarint(buf[:], uint64(r.line))
		w.Write(buf[:n])
	}
	if err := w.Flush(); err != nil {
		return err
	}
	s.arena, s.recs = s.arena[:0], s.recs[:0]
	return nil
}

// spillReader reads one spilled chunk back, record by record.
type spillReader struct {
	br    *bufio.Reader
	chunk int
	row   trecRow
	ok    bool
}

func (c *spillReader) advance() error {
	c.ok = false
	read := func(dst []byte) ([]byte, error) {
		n, err := binary.ReadUvarint(c.br)
		if err != nil {
			return nil, err
		}
		dst = slices.Grow(dst[:0], int(n))[:n]
		_, err = io.ReadFull(c.br, dst)
		return dst, err
	}
	var err error
	if c.row.q, err = read(c.row.q); err != nil {
		return err // io.EOF at the end
	}
	if c.row.d, err = read(c.row.d); err != nil {
		return errUnexpected(err)
	}
	var b [8]byte
	if _, err := io.ReadFull(c.br, b[:]); err != nil {
		return errUnexpected(err)
	}
	c.row.score = math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
	line, err := binary.ReadUvarint(c.br)
	if err != nil {
		return errUnexpected(err)
	}
	c.row.line, c.row.chunk = int(line), c.chunk
	c.ok = true
	return nil
}

func errUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

type trecHeap []*spillReader

func (h trecHeap) Len() int { return len(h) }
func (h trecHeap) Less(i, j int) bool {
	if c := bytes.Compare(h[i].row.q, h[j].row.q); c != 0 {
		return c < 0
	}
	return h[i].chunk < h[j].chunk // chunks are in line order
}
func (h trecHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *trecHeap) Push(x any)   { *h = append(*h, x.(*spillReader)) }
func (h *trecHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// nextBlock appends the next query's rows to r's block (r.user, r.arena,
// r.rows), or returns io.EOF.
func (s *trecSorter) nextBlock(r *Reader) error {
	if len(s.spills) == 0 {
		if s.mem >= len(s.recs) {
			return io.EOF
		}
		q := func(x trecRec) []byte { return s.arena[x.q[0] : x.q[0]+x.q[1]] }
		first := s.recs[s.mem]
		r.user = append(r.user[:0], q(first)...)
		for s.mem < len(s.recs) && bytes.Equal(q(s.recs[s.mem]), r.user) {
			x := s.recs[s.mem]
			row := runRow{off: len(r.arena), score: x.score, line: x.line}
			r.arena = append(r.arena, s.arena[x.d[0]:x.d[0]+x.d[1]]...)
			row.end = len(r.arena)
			r.rows = append(r.rows, row)
			s.mem++
		}
		return nil
	}
	if len(s.heads) == 0 {
		return io.EOF
	}
	r.user = append(r.user[:0], s.heads[0].row.q...)
	for len(s.heads) > 0 && bytes.Equal(s.heads[0].row.q, r.user) {
		c := s.heads[0]
		row := runRow{off: len(r.arena), score: c.row.score, line: c.row.line}
		r.arena = append(r.arena, c.row.d...)
		row.end = len(r.arena)
		r.rows = append(r.rows, row)
		if err := c.advance(); err != nil && err != io.EOF {
			return fmt.Errorf("%s: reading back a sorted chunk: %w", r.file(), err)
		}
		if c.ok {
			heap.Fix(&s.heads, 0)
		} else {
			heap.Pop(&s.heads)
		}
	}
	return nil
}

// Close removes the temporary files.
func (s *trecSorter) Close() {
	var errs []error
	for _, f := range s.spills {
		errs = append(errs, f.Close())
	}
	_ = errors.Join(errs...)
	s.spills = nil
}

// firstField returns the first whitespace-separated field of a line.
func firstField(line []byte) []byte {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	j := i
	for j < len(line) && line[j] != ' ' && line[j] != '\t' {
		j++
	}
	return line[i:j]
}
