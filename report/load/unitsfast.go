package load

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unsafe"

	"github.com/evalbook/evalbook/report/input"
)

// The fast path of readUnitsRows, for a CSV or TSV units file (a byte
// range of it read whole by a worker of readGroupFileParallel, or the
// buffer of its reader): the lines are split, named,
// checked and parsed where they lie, a line at a time, with no record
// of strings in between, and each value goes straight into the batch.
//
// It reads only the lines it can read exactly as the record path does,
// and stops at the first it cannot tell (a quote, a blank line, a field
// count not the header's, a name it has not met and checked yet, a name
// the record path would refuse, a unit id that is not plain printable
// ASCII without surrounding space, a value PlainDecimal does not take,
// a line without its line end or longer than input.MaxLineBytes): the
// record path reads that record, with its errors at their lines, and
// the fast path goes on after it. Both share the name caches, the row
// count and the batch, so what the sinks get does not depend on which
// path read a line (TestUnitsFastSameRows, FuzzUnitsFast).

// fastMaxCols is the most columns a file may have for the fast path.
const fastMaxCols = 16

// fastName holds the last two cells of a name column the fast path
// took (a column alternates between two names as often as it repeats
// one): a cell equal to one of them is the same name, met and checked.
// A cell of at most eight bytes is compared as one word (w, its length
// n; n is -1 for a longer cell).
type fastName struct {
	raw  [2]string
	name [2]string
	id   [2]int32
	w    [2]uint64
	n    [2]int
	old  int // the entry to replace next
}

// cellWord returns the bytes p[from:to] as a little-endian word, zero
// past them, when they are at most eight and eight bytes can be loaded
// from from (short).
func cellWord(p []byte, from, to int) (w uint64, short bool) {
	if to-from > 8 || from+8 > len(p) {
		return 0, false
	}
	return binary.LittleEndian.Uint64(p[from:]) & (uint64(1)<<(8*uint(to-from)) - 1), true
}

// wordOf is cellWord of a string of at most eight bytes.
func wordOf(s string) uint64 {
	var w uint64
	for i := len(s) - 1; i >= 0; i-- {
		w = w<<8 | uint64(s[i])
	}
	return w
}

// unitsFast is the fast path's state for one read of a units file (a
// byte range of it, or the whole file through its reader).
type unitsFast struct {
	f                       *unitsFile
	names                   *unitsNames
	comma                   byte
	quotes                  bool
	ncols                   int
	dconst, mconst          string // the dataset and method of a file without those columns
	dataset, method, metric fastName
	vals                    [fastMaxCols]float64
	has                     [fastMaxCols]bool // a value was put for vals[i] (not a missing one dropped)
	ends                    [fastMaxCols]int  // where each field of a line but the last ends
	// misses counts the calls in a row that read no line: after
	// fastMisses of them the record path reads the next fastSkip
	// records (skip counts them down) before the fast path tries again.
	misses, skip int
}

// newUnitsFast returns the fast path for a units file's section, or nil
// when the section is not read from memory or its layout needs the
// record path throughout.
func (in *Inputs) newUnitsFast(f *unitsFile, names *unitsNames) *unitsFast {
	comma, quotes, plain := f.T.Layout()
	if !plain || len(f.unnamed) > 0 || len(f.T.Header) < 2 || len(f.T.Header) > fastMaxCols {
		return nil
	}
	u := &unitsFast{f: f, names: names, comma: comma, quotes: quotes, ncols: len(f.T.Header)}
	u.dconst = in.cell(nil, -1, f.mf.Dataset, in.Study.Title)
	u.mconst = in.cell(nil, -1, f.mf.Method, "")
	return u
}

// What readUnitsRows does after a step of the fast path (fastStep).
const (
	fastRecord = iota // read a record through the record path
	fastAgain         // take another step (the reader's buffer was read)
	fastEnd           // stop: every line is read
)

// fastStep reads the lines it can of what f's reader holds through the
// fast path, unless it stands aside (skip), and says what comes next.
func (in *Inputs) fastStep(fast *unitsFast, row *int64, o *unitsOut) (next int, err error) {
	if fast.skip > 0 {
		fast.skip--
		return fastRecord, nil
	}
	t := fast.f.T
	p, line, all := t.Rest()
	n, lines, err := fast.run(p, line, row, o)
	t.Advance(n, lines, int64(lines))
	in.FastLines.Add(int64(lines))
	switch {
	case err != nil:
		return fastEnd, err
	case n == len(p) && all:
		return fastEnd, nil
	case n == len(p) && n > 0:
		return fastAgain, nil // the reader's buffer read: on with the next
	}
	if fast.misses++; n > 0 {
		fast.misses = 0
	} else if fast.misses >= fastMisses {
		fast.misses, fast.skip = 0, fastSkip // records the record path reads before the next try
	}
	return fastRecord, nil
}

// fastMisses is how many calls in a row may read no line before the
// fast path stands aside for fastSkip records.
const (
	fastMisses = 64
	fastSkip   = 256
)

// name resolves a cell of a name column (col < 0: the file's constant
// raw; short and w: as cellWord gives them) through its cache; ok is
// false when the record path must read the line (a name not met,
// empty, or against the file's entry).
func (u *unitsFast) name(last *fastName, c *nameCache, raw string, w uint64, short bool, col int, fixed string) (string, int32, bool) {
	if n := len(raw); short && n > 0 {
		if n == last.n[0] && w == last.w[0] {
			return last.name[0], last.id[0], true
		}
		if n == last.n[1] && w == last.w[1] {
			return last.name[1], last.id[1], true
		}
	} else if n > 0 {
		if equalShort(raw, last.raw[0]) {
			return last.name[0], last.id[0], true
		}
		if equalShort(raw, last.raw[1]) {
			return last.name[1], last.id[1], true
		}
	}
	return u.newName(last, c, raw, col, fixed)
}

// newName is name for a cell equal to neither of the last two.
func (u *unitsFast) newName(last *fastName, c *nameCache, raw string, col int, fixed string) (string, int32, bool) {
	if raw == "" {
		return "", -1, false // an empty name: the record path's error
	}
	name, id, ok := c.known(raw)
	if !ok || name == "" || (col >= 0 && fixed != "" && name != fixed) {
		return "", -1, false
	}
	if raw != name {
		// the raw cell lies in a read buffer that is refilled: keep a
		// copy (the name itself when the cell is just the name)
		raw = strings.Clone(raw)
	} else {
		raw = name
	}
	k := last.old
	last.raw[k], last.name[k], last.id[k], last.n[k] = raw, name, id, -1
	if len(raw) <= 8 {
		last.w[k], last.n[k] = wordOf(raw), len(raw)
	}
	last.old = 1 - k
	return name, id, true
}

// plainUnit reports whether a unit id is one the record path takes as
// it is: printable ASCII, not empty, nothing to trim (BadName and
// TrimSpace have nothing to say).
func plainUnit(s string) bool {
	if len(s) == 0 {
		return false
	}
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
		// a byte < 0x21 (borrows into its high bit), 0x7f (+1 carries
		// into it) or ≥ 0x80 (has it) leaves its high bit set
		if (x-0x2121212121212121|(x&0x7f7f7f7f7f7f7f7f+0x0101010101010101)|x)&0x8080808080808080 != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return s[0] != ' ' && s[len(s)-1] != ' '
}

// run reads the lines of p it can (see the file's comment) from its
// start, the first on line line, into o, counting rows in *row; it
// returns the bytes and lines read.
func (u *unitsFast) run(p []byte, line int, row *int64, o *unitsOut) (n, lines int, err error) {
	l := fastLine{p: p} // (set field by field: a literal per line was built and copied, see appendRow)
	for n < len(p) {
		end, k, ok := u.split(p, n)
		if !ok {
			return n, lines, nil
		}
		last := end
		if last > n && p[last-1] == '\r' {
			last--
		}
		l.start, l.last, l.k = n, last, k
		took, err := u.take(&l, *row, int64(line+lines), o)
		if err != nil {
			return end + 1, lines + 1, err
		}
		if !took {
			return n, lines, nil
		}
		*row++
		n, lines = end+1, lines+1
	}
	return n, lines, nil
}

// split finds the separators of the line of p from start (u.ends) and
// its line end; ok is false for a line the record path must read: no
// line end, a quote (CSV), not the header's field count, too long.
func (u *unitsFast) split(p []byte, start int) (end, k int, ok bool) {
	seps := swarOnes * uint64(u.comma)
	i := start
	end = -1
	// eight bytes at a time
	for end < 0 && i+8 <= len(p) {
		x := binary.LittleEndian.Uint64(p[i:])
		nl := matchByte(x, swarOnes*'\n')
		m := matchByte(x, seps)
		var q uint64
		if u.quotes {
			q = matchByte(x, swarOnes*'"')
		}
		if nl != 0 {
			before := (nl&-nl)>>7 - 1 // the bytes before the first line end
			m, q = m&before, q&before
			end = i + bits.TrailingZeros64(nl)>>3
		}
		if q != 0 {
			return 0, 0, false
		}
		for ; m != 0; m &= m - 1 {
			if k == u.ncols-1 {
				return 0, 0, false // too many fields
			}
			u.ends[k] = i + bits.TrailingZeros64(m)>>3
			k++
		}
		i += 8
	}
	// the last few bytes of p, one at a time
	for ; end < 0 && i < len(p); i++ {
		switch c := p[i]; {
		case c == '\n':
			end = i
		case c == u.comma:
			if k == u.ncols-1 {
				return 0, 0, false
			}
			u.ends[k] = i
			k++
		case c == '"' && u.quotes:
			return 0, 0, false
		}
	}
	if end < 0 || k != u.ncols-1 || end-start > input.MaxLineBytes {
		return 0, 0, false // no line end, or not the header's field count
	}
	return end, k, true
}

// fastLine is a line split (split): its bytes p[start:last] (without
// its line end) and the number k of its separators (u.ends).
type fastLine struct {
	p           []byte
	start, last int
	k           int
}

// cell returns where field c of the line lies.
func (u *unitsFast) cell(l *fastLine, c int) (from, to int) {
	from, to = l.start, l.last
	if c > 0 {
		from = u.ends[c-1] + 1
	}
	if c < l.k {
		to = u.ends[c]
	}
	return from, to
}

// nameOf resolves field col of the line through a name column's caches
// (col < 0: the file's constant raw).
func (u *unitsFast) nameOf(l *fastName, c *nameCache, line *fastLine, col int, raw, fixed string) (string, int32, bool) {
	var w uint64
	var short bool
	if col >= 0 {
		from, to := u.cell(line, col)
		raw = unsafe.String(unsafe.SliceData(line.p[from:]), to-from)
		w, short = cellWord(line.p, from, to)
	}
	return u.name(l, c, raw, w, short, col, fixed)
}

// unitOf is the line's unit id; ok is false when the record path must
// read it (see plainUnit).
func (u *unitsFast) unitOf(l *fastLine) (string, bool) {
	if u.f.ucol < 0 {
		return "", true
	}
	from, to := u.cell(l, u.f.ucol)
	unit := unsafe.String(unsafe.SliceData(l.p[from:]), to-from)
	// a unit id of at most eight bytes from '!' to '~' at once
	x, short := cellWord(l.p, from, to)
	mask := uint64(1)<<(8*uint(to-from)) - 1
	x = x | 0x4141414141414141&^mask // 'A' past the id
	if short && to > from && (x-0x2121212121212121|(x&0x7f7f7f7f7f7f7f7f+0x0101010101010101)|x)&0x8080808080808080 == 0 {
		return unit, true
	}
	return unit, plainUnit(unit)
}

// take reads a split line into o (row and line: its numbers); took is
// false, and nothing is put, when the record path must read it.
func (u *unitsFast) take(l *fastLine, row, line int64, o *unitsOut) (took bool, err error) {
	f := u.f
	dataset, did, ok := u.nameOf(&u.dataset, &u.names.datasets, l, f.dcol, u.dconst, f.mf.Dataset)
	if !ok {
		return false, nil
	}
	method, mid, ok := u.nameOf(&u.method, &u.names.methods, l, f.mcol, u.mconst, f.mf.Method)
	if !ok {
		return false, nil
	}
	unit, ok := u.unitOf(l)
	if !ok {
		return false, nil
	}
	if f.long {
		metric, xid, ok := u.nameOf(&u.metric, &u.names.metrics, l, f.metricCol, "", "")
		if !ok {
			return false, nil
		}
		v, has, ok := u.value(l, f.valueCol)
		if !ok || !has {
			return ok, nil
		}
		return true, o.put(namesKey(did, mid, xid), dataset, method, metric, f.T.File, unit, row, line, v)
	}
	for i, c := range f.wide {
		v, has, ok := u.value(l, c)
		if !ok {
			return false, nil
		}
		u.vals[i], u.has[i] = v, has
	}
	if err := o.room(len(f.wide)); err != nil {
		return true, err
	}
	for i := range f.wide {
		if !u.has[i] {
			continue
		}
		if err := o.put(namesKey(did, mid, int32(i)), dataset, method, f.wideNames[i], f.T.File, unit, row, line, u.vals[i]); err != nil {
			return true, err
		}
	}
	return true, nil
}

// value reads value field c of the line as the record path does
// (unitsFile.value): a plain decimal, or an empty cell, which is the
// entry's missing value (has is false where the entry drops it); ok is
// false when the record path must read it.
func (u *unitsFast) value(l *fastLine, c int) (v float64, has, ok bool) {
	from, to := u.cell(l, c)
	if from == to {
		v, has = u.f.missing()
		return v, has, true
	}
	v, ok = input.PlainDecimal(unsafe.String(unsafe.SliceData(l.p[from:]), to-from))
	return v, ok, ok
}

// swarOnes has a 1 in every byte.
const swarOnes = 0x0101010101010101

// matchByte returns the high bit of each byte of x equal to the byte
// repeated in rep (swarOnes·c), and no other bit (as the input layer's).
func matchByte(x, rep uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	y := x ^ rep // zero bytes where x has c
	return ^(((y & low7) + low7) | y | low7)
}
