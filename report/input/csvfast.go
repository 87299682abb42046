package input

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"unsafe"
)

// recordReader splits CSV (RFC 4180: quotes, doubled quotes, newlines in
// quoted fields) or TSV (no quoting) into records. It is the hot loop of
// every loader: the fields of an unquoted record are substrings of its
// line, and lines are copied into shared chunks of 64 KiB (see str), so
// a record costs no allocation of its own, which is what lets units
// files of hundreds of millions of rows stream at disk speed. A string
// from a record stays valid (a chunk is never written again where a
// string points), but it keeps its chunk alive: clone what you keep
// for long if it is small and the file is big.
type recordReader struct {
	r       *bufio.Reader
	comma   byte
	quotes  bool
	maxLine int // longest line (and quoted record) accepted, in bytes
	line    int // line of the last record's start (1-based)
	next    int // line the next record starts on
	buf     []byte
	chunk   []byte // where lines are copied (str); only appended to
	// transient: a record's strings alias the read buffer and are valid
	// only until the next Read (Transient).
	transient bool
	// consumed counts the bytes read from r (line endings included).
	consumed int64
	// quoteStops: a record with a quote is not parsed but ErrQuoted
	// (a byte range of a file, which may start inside a quoted field).
	quoteStops bool
	// whitespace: fields are separated by runs of spaces and tabs, with
	// no quoting, and a line of whitespace only is blank (TREC runs and
	// qrels); comma and quotes are then unused.
	whitespace bool
	fields     []string
	starts     []int // byte offset of each field in its line, for columns
	lines      []int // line of each field (quoted newlines move it)
	// win is a window on r's buffer (transient records only): the bytes
	// r holds, peeked, whose lines Read splits where they are until no
	// whole line is left; wpos is how far it got, discarded from r when
	// the window is dropped.
	win     []byte
	wpos    int
	slowFor int // records to read without the window (quotedSlow)
	// The window's bytes are classified 64 at a time (loadBlock): bit k
	// of marks marks byte blk+k as a separator or a line end, of qmarks
	// as a quote (CSV), bits of bytes already read cleared. blk < 0: no
	// block (the window's last bytes, read by splitWindow).
	blk           int
	marks, qmarks uint64
	winQuotes     bool // the window holds a quote (CSV)
	// mem, when r is nil, holds the records (transient): a byte range
	// of a file read whole, whose bytes the caller also hashes; memPos
	// is where the next line starts.
	mem    []byte
	memPos int
	// blanks counts the blank lines skipped since the reader's owner last
	// cleared it (TableReader.Next: a blank line in a one-column file may
	// be an empty cell); blankLine is the line of the first of them.
	blanks, blankLine int
}

// MaxLineBytes caps a line, and a record whose quoted fields span lines:
// a file without line breaks (a gzip bomb, /dev/zero behind a symlink, a
// binary file) must fail with a clear message, not exhaust memory.
const MaxLineBytes = 1 << 20

// csvSyntaxError is malformed input at a line (col 0: the whole line).
type csvSyntaxError struct {
	line, col int
	msg       string
}

func (e *csvSyntaxError) Error() string { return e.msg }

func newRecordReader(r *bufio.Reader, comma byte, quotes bool) *recordReader {
	return &recordReader{r: r, comma: comma, quotes: quotes, next: 1, maxLine: MaxLineBytes}
}

// newMemReader splits the records in p (transient: the strings alias p).
func newMemReader(p []byte, comma byte, quotes bool) *recordReader {
	return &recordReader{mem: p, comma: comma, quotes: quotes, next: 1, maxLine: MaxLineBytes, transient: true}
}

// newWhitespaceReader splits records at runs of spaces and tabs (TREC
// runs and qrels: `qid Q0 docno rank score tag`), skipping lines of
// whitespace only.
func newWhitespaceReader(r *bufio.Reader) *recordReader {
	return &recordReader{r: r, whitespace: true, next: 1, maxLine: MaxLineBytes}
}

// tooLong is the error of a line longer than maxLine.
func (rr *recordReader) tooLong(line int) error {
	return &csvSyntaxError{line: line, msg: "line longer than " + byteSize(int64(rr.maxLine))}
}

// readLine returns the next physical line without its line ending; the
// slice is valid until the next call. A line longer than maxLine is an
// error, found without reading the rest of it.
func (rr *recordReader) readLine() ([]byte, error) {
	if rr.r == nil {
		return rr.memLine()
	}
	line, err := rr.r.ReadSlice('\n')
	rr.consumed += int64(len(line))
	if err == bufio.ErrBufferFull {
		rr.buf = append(rr.buf[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(rr.buf) > rr.maxLine+2 { // + "\r\n"
				return nil, rr.tooLong(rr.next)
			}
			line, err = rr.r.ReadSlice('\n')
			rr.consumed += int64(len(line))
			rr.buf = append(rr.buf, line...)
		}
		line = rr.buf
	}
	if len(line) > 0 && err == io.EOF {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return rr.trimLine(line)
}

// trimLine is a line read (with its line end, if any) without its line
// end (\n or \r\n), counted, or the too-long error at its number.
func (rr *recordReader) trimLine(line []byte) ([]byte, error) {
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
		if n > 0 && line[n-1] == '\r' {
			n--
		}
	}
	if n > rr.maxLine {
		return nil, rr.tooLong(rr.next)
	}
	rr.next++
	return line[:n], nil
}

// memLine is readLine for records in memory (mem).
func (rr *recordReader) memLine() ([]byte, error) {
	rest := rr.mem[rr.memPos:]
	if len(rest) == 0 {
		return nil, io.EOF
	}
	line := rest
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		line = rest[:i+1]
	}
	rr.memPos += len(line)
	rr.consumed += int64(len(line))
	return rr.trimLine(line)
}

// Read returns the next record, skipping blank lines. The slice is reused;
// the strings are not.
func (rr *recordReader) Read() ([]string, error) {
	if rr.transient && !rr.whitespace {
		if rr.slowFor == 0 {
			if rec, ok := rr.readWindow(); ok {
				return rec, nil
			}
		} else {
			rr.slowFor--
		}
	}
	return rr.readRecord()
}

// quotedSlow is how many records after one with a quote are read without
// the window: a file that quotes its fields would otherwise try the
// window, and give up on it, for every record.
const quotedSlow = 64

// readWindow is Read for a record on one line without a quote in the
// window (a line of transient records, split where it is read into);
// ok is false when the window holds no whole line, or the next line
// needs readRecord (a quote, or longer than maxLine).
func (rr *recordReader) readWindow() ([]string, bool) {
	for {
		if rr.wpos >= len(rr.win) && !rr.refillWindow() {
			return nil, false
		}
		var rec []string
		var n int
		var ok bool
		if rr.blk >= 0 {
			rec, n, ok = rr.splitBlocks()
		} else {
			rec, n, ok = rr.splitWindow()
		}
		if !ok {
			return nil, false
		}
		rr.wpos += n
		rr.consumed += int64(n)
		rr.line = rr.next
		rr.next++
		if rec != nil {
			return rec, true
		}
		rr.noteBlank() // a blank line: skipped
	}
}

// refillWindow makes the bytes r holds the window; false when it holds
// none (readRecord reads on).
func (rr *recordReader) refillWindow() bool {
	rr.dropWindow()
	if rr.r == nil {
		if rr.memPos >= len(rr.mem) {
			return false
		}
		rr.win = rr.mem[rr.memPos:]
		rr.startWindow()
		return true
	}
	n := rr.r.Buffered()
	if n == 0 {
		return false
	}
	rr.win, _ = rr.r.Peek(n)
	rr.startWindow()
	return true
}

// startWindow classifies the first block of a new window, after one
// look for a quote in all of it (CSV): a window without one (a units
// file mostly) needs no quote marks.
func (rr *recordReader) startWindow() {
	rr.winQuotes = rr.quotes && bytes.IndexByte(rr.win, '"') >= 0
	rr.loadBlock(0)
}

// loadBlock classifies the 64 bytes of the window from at (see blk);
// false, and no block, when the window ends before.
func (rr *recordReader) loadBlock(at int) bool {
	if at+64 > len(rr.win) {
		rr.blk = -1
		return false
	}
	b := rr.win[at : at+64]
	rep := swarOnes * uint64(rr.comma)
	var marks, qmarks uint64
	quotes := rr.quotes && rr.winQuotes
	for k := 0; k < 64; k += 8 {
		x := binary.LittleEndian.Uint64(b[k:])
		marks |= byteMask(matchByte(x, rep)|matchByte(x, swarOnes*'\n')) << k
		if quotes {
			qmarks |= byteMask(matchByte(x, swarOnes*'"')) << k
		}
	}
	rr.blk, rr.marks, rr.qmarks = at, marks, qmarks
	return true
}

// byteMask gathers the high bit of each byte of m (a matchByte result)
// into the low eight bits, byte k's into bit k: multiplying by the
// magic sends bit 8k+7 (shifted to 8k) to bit 56+k, and every other
// partial product below bit 56 or past bit 63.
func byteMask(m uint64) uint64 {
	return ((m >> 7) * 0x0102040810204080) >> 56
}

// splitBlocks is splitWindow from the classified blocks: the line's
// separators and its end are the next set bits of marks, in order, so a
// record costs a step per field whatever the fields' lengths (a loop
// over 8-byte words takes a step per word and per separator, at a
// branch the processor cannot predict).
func (rr *recordReader) splitBlocks() (rec []string, n int, ok bool) {
	s := unsafe.String(unsafe.SliceData(rr.win), len(rr.win))
	lineStart := rr.wpos
	start := lineStart
	fields, starts := rr.fields[:0], rr.starts[:0]
	rr.lines = rr.lines[:0]
	blk, marks := rr.blk, rr.marks
	for {
		for marks != 0 {
			k := bits.TrailingZeros64(marks)
			bit := uint64(1) << k
			marks &= marks - 1
			j := blk + k
			if s[j] == '\n' { // the mark of a line end, not of a separator
				if rr.qmarks&(bit-1) != 0 {
					rr.slowFor = quotedSlow
					return nil, 0, false
				}
				rr.marks, rr.qmarks = marks, rr.qmarks&^(bit<<1-1) // the bytes after the line end
				return rr.endLine(fields, starts, s, lineStart, start, j)
			}
			fields = append(fields, s[start:j])
			starts = append(starts, start-lineStart)
			start = j + 1
		}
		// the line goes on past this block
		if rr.qmarks != 0 {
			rr.slowFor = quotedSlow
			return nil, 0, false
		}
		if !rr.loadBlock(blk + 64) {
			return nil, 0, false // readRecord reads it
		}
		blk, marks = rr.blk, rr.marks
	}
}

// endLine finishes a line of the window that ends (its line end) at
// window offset end: the last field, the line end, a blank line.
func (rr *recordReader) endLine(fields []string, starts []int, s string, lineStart, start, end int) ([]string, int, bool) {
	n := end + 1 - lineStart
	if end-lineStart > rr.maxLine {
		return nil, 0, false
	}
	last := end
	if last > lineStart && s[last-1] == '\r' {
		last--
	}
	if last == lineStart {
		return nil, n, true // blank
	}
	fields = append(fields, s[start:last])
	starts = append(starts, start-lineStart)
	rr.fields, rr.starts = fields, starts
	return fields, n, true
}

// dropWindow discards from r the bytes the window was read to.
func (rr *recordReader) dropWindow() {
	if rr.win != nil {
		if rr.r == nil {
			rr.memPos += rr.wpos
		} else {
			rr.r.Discard(rr.wpos)
		}
		rr.win, rr.wpos, rr.blk = nil, 0, -1
	}
}

// splitWindow splits the line at the window's position into fields,
// looking for its end, the separators and (CSV) quotes eight bytes at a
// time, in one pass. rec is nil for a blank line; n is the bytes of the
// line and its line end; ok is false when no whole line is left, or the
// line has a quote (CSV) or is longer than maxLine.
func (rr *recordReader) splitWindow() (rec []string, n int, ok bool) {
	b := rr.win[rr.wpos:]
	s := unsafe.String(unsafe.SliceData(b), len(b))
	fields, starts := rr.fields[:0], rr.starts[:0]
	rr.lines = rr.lines[:0]
	comma, quotes := rr.comma, rr.quotes
	seps := swarOnes * uint64(comma)
	start, i, end := 0, 0, -1
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		m := matchByte(x, seps)
		var q uint64
		if quotes {
			q = matchByte(x, swarOnes*'"')
		}
		nl := matchByte(x, swarOnes*'\n')
		if nl != 0 {
			before := (nl&-nl)>>7 - 1 // the bytes before the first line end
			m, q = m&before, q&before
			end = i + bits.TrailingZeros64(nl)>>3
		}
		if q != 0 {
			rr.slowFor = quotedSlow
			return nil, 0, false
		}
		for m != 0 {
			j := i + bits.TrailingZeros64(m)>>3
			fields = append(fields, s[start:j])
			starts = append(starts, start)
			start = j + 1
			m &= m - 1
		}
		if end >= 0 {
			break
		}
	}
	for ; end < 0 && i < len(b); i++ {
		switch b[i] {
		case '\n':
			end = i
		case comma:
			fields = append(fields, s[start:i])
			starts = append(starts, start)
			start = i + 1
		case '"':
			if quotes {
				rr.slowFor = quotedSlow
				return nil, 0, false
			}
		}
	}
	if end < 0 || end > rr.maxLine {
		return nil, 0, false
	}
	last := end
	if last > 0 && b[last-1] == '\r' {
		last--
	}
	if last == 0 {
		return nil, end + 1, true // blank
	}
	fields = append(fields, s[start:last])
	starts = append(starts, start)
	rr.fields, rr.starts = fields, starts
	return fields, end + 1, true
}

// noteBlank counts a blank line skipped at rr.line.
func (rr *recordReader) noteBlank() {
	if rr.blanks == 0 {
		rr.blankLine = rr.line
	}
	rr.blanks++
}

// readRecord is Read without the window.
func (rr *recordReader) readRecord() ([]string, error) {
	rr.dropWindow()
	var line []byte
	var err error
	for {
		rr.line = rr.next
		line, err = rr.readLine()
		if err != nil {
			return nil, err
		}
		if rr.whitespace {
			if f := rr.splitWhitespace(line); len(f) > 0 {
				return f, nil
			}
			continue
		}
		if len(line) > 0 {
			break
		}
		rr.noteBlank()
	}
	if !rr.quotes || bytes.IndexByte(line, '"') < 0 {
		return rr.split(rr.str(line)), nil
	}
	if rr.quoteStops {
		return nil, ErrQuoted
	}
	return rr.readQuoted(line)
}

// ErrQuoted stops a reader of a byte range (Section with quoteStops) at
// a record with a quote: the range may begin inside a quoted field.
var ErrQuoted = errors.New("a quoted field")

// chunkSize is the largest size of the chunks lines are copied into.
const chunkSize = 64 << 10

// str returns line as a string, copied to the free end of the current
// chunk (a new one when it is full). The bytes behind a returned string
// are never written again, so the string is immutable as Go requires.
func (rr *recordReader) str(line []byte) string {
	if len(line) == 0 {
		return ""
	}
	if rr.transient {
		return unsafe.String(&line[0], len(line))
	}
	if cap(rr.chunk)-len(rr.chunk) < len(line) {
		// chunks grow from 1 KiB to chunkSize: a reader that reads
		// only its header (most do: the rest is transient) needs no
		// more than the header's bytes
		rr.chunk = make([]byte, 0, max(min(2*cap(rr.chunk), chunkSize), 1<<10, len(line)))
	}
	start := len(rr.chunk)
	rr.chunk = append(rr.chunk, line...)
	b := rr.chunk[start:len(rr.chunk):len(rr.chunk)]
	return unsafe.String(&b[0], len(b))
}

// split cuts an unquoted line into fields. Every field is on the
// record's line (rr.lines stays empty: see FieldPos). It looks for the
// separator eight bytes at a time (matchByte), which is what a units
// file of short fields spends most of its parsing time on.
func (rr *recordReader) split(s string) []string {
	fields, starts := rr.fields[:0], rr.starts[:0]
	rr.lines = rr.lines[:0]
	comma := rr.comma
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	seps := swarOnes * uint64(comma)
	start, i := 0, 0
	for ; i+8 <= len(b); i += 8 {
		m := matchByte(binary.LittleEndian.Uint64(b[i:]), seps)
		for m != 0 {
			j := i + bits.TrailingZeros64(m)>>3
			fields = append(fields, s[start:j])
			starts = append(starts, start)
			start = j + 1
			m &= m - 1
		}
	}
	for ; i < len(b); i++ {
		if b[i] == comma {
			fields = append(fields, s[start:i])
			starts = append(starts, start)
			start = i + 1
		}
	}
	fields = append(fields, s[start:])
	starts = append(starts, start)
	rr.fields, rr.starts = fields, starts
	return fields
}

// splitWhitespace cuts a line at runs of spaces and tabs, leading and
// trailing ones ignored (no empty field). A byte loop: TREC fields are
// a few bytes long, where the eight-bytes-at-a-time search of split
// costs more than it saves (measured: twice the time on TREC runs).
func (rr *recordReader) splitWhitespace(line []byte) []string {
	fields, starts := rr.fields[:0], rr.starts[:0]
	rr.lines = rr.lines[:0]
	s := ""
	if len(line) > 0 {
		s = rr.str(line)
	}
	i, n := 0, len(s)
	for {
		for i < n && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == n {
			break
		}
		j := i
		for j < n && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		fields = append(fields, s[i:j])
		starts = append(starts, i)
		i = j
	}
	rr.fields, rr.starts = fields, starts
	return fields
}

// swarOnes has a 1 in every byte.
const swarOnes = 0x0101010101010101

// matchByte returns the high bit of each byte of x equal to the byte
// repeated in rep (swarOnes·c), and no other bit: exact per byte, since
// no addition below carries from one byte into the next.
func matchByte(x, rep uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	y := x ^ rep // zero bytes where x has c
	return ^(((y & low7) + low7) | y | low7)
}

// readQuoted parses a record with quoted fields, reading more lines while
// a quoted field spans them.
func (rr *recordReader) readQuoted(first []byte) ([]string, error) {
	rr.fields = rr.fields[:0]
	rr.starts = rr.starts[:0]
	rr.lines = rr.lines[:0]
	line := append([]byte(nil), first...)
	lineNo := rr.line
	total := len(first) // bytes of the record so far, line breaks included
	var field []byte
	pos := 0
	for {
		// start of a field
		rr.starts = append(rr.starts, pos)
		rr.lines = append(rr.lines, lineNo)
		field = field[:0]
		if pos < len(line) && line[pos] == '"' {
			pos++
			for {
				i := bytes.IndexByte(line[pos:], '"')
				if i < 0 {
					// the field goes on past this line
					field = append(field, line[pos:]...)
					field = append(field, '\n')
					more, err := rr.readLine()
					if err != nil {
						if errors.Is(err, io.EOF) {
							return nil, &csvSyntaxError{rr.line, rr.starts[len(rr.starts)-1] + 1, `extraneous or missing " in quoted-field`}
						}
						return nil, err
					}
					lineNo++
					if total += len(more) + 1; total > rr.maxLine {
						return nil, &csvSyntaxError{line: rr.line, msg: "a record longer than " + byteSize(int64(rr.maxLine)) + " starts on this line (a quoted field without its closing quote?)"}
					}
					line = append(line[:0], more...)
					pos = 0
					continue
				}
				field = append(field, line[pos:pos+i]...)
				pos += i + 1
				if pos < len(line) && line[pos] == '"' {
					field = append(field, '"')
					pos++
					continue
				}
				break
			}
			if pos < len(line) && line[pos] != rr.comma {
				return nil, &csvSyntaxError{lineNo, pos + 1, `extraneous or missing " in quoted-field`}
			}
		} else {
			i := bytes.IndexByte(line[pos:], rr.comma)
			end := len(line)
			if i >= 0 {
				end = pos + i
			}
			if q := bytes.IndexByte(line[pos:end], '"'); q >= 0 {
				return nil, &csvSyntaxError{lineNo, pos + q + 1, `bare " in non-quoted-field`}
			}
			field = append(field, line[pos:end]...)
			pos = end
		}
		rr.fields = append(rr.fields, string(field))
		if pos >= len(line) {
			return rr.fields, nil
		}
		pos++ // the separator
		if pos == len(line) {
			rr.starts = append(rr.starts, pos)
			rr.lines = append(rr.lines, lineNo)
			rr.fields = append(rr.fields, "")
			return rr.fields, nil
		}
	}
}

// FieldPos returns the line and 1-based byte column of field i of the
// last record.
func (rr *recordReader) FieldPos(i int) (int, int) {
	if i < 0 || i >= len(rr.starts) {
		return rr.line, 0
	}
	if len(rr.lines) == 0 { // an unquoted record: one line
		return rr.line, rr.starts[i] + 1
	}
	return rr.lines[i], rr.starts[i] + 1
}

// rest returns the bytes the reader holds that no record has been read
// from yet: the rest of a reader of records in memory (newMemReader),
// or what r has buffered (perhaps nothing). all reports that they are
// all the records left (a reader in memory). Not for whitespace
// records (nil).
func (rr *recordReader) rest() (p []byte, all bool) {
	if rr.whitespace {
		return nil, false
	}
	rr.dropWindow()
	if rr.r == nil {
		return rr.mem[rr.memPos:], true
	}
	// Only what r holds: filling it is left to readRecord, which reports
	// the end and any error of the input as it always does.
	p, _ = rr.r.Peek(rr.r.Buffered())
	return p, false
}

// advance moves the reader past n bytes of whole lines (lines of them)
// of rest that its owner has read itself; the next record is read on
// its own line (readRecord), without a window over the rest.
func (rr *recordReader) advance(n, lines int) {
	rr.dropWindow()
	if rr.r == nil {
		rr.memPos += n
	} else {
		rr.r.Discard(n)
	}
	rr.consumed += int64(n)
	rr.next += lines
	rr.slowFor = max(rr.slowFor, 1)
}
