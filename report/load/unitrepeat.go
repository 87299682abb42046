package load

// Repeated unit ids. A unit has one value per (dataset, method, metric):
// a unit id given twice there makes every number computed from the
// values doubtful (which of the two is the unit's? a pair made with the
// first and the second left over is counted as unmatched). The pairing
// builders see a repeat only while the first value still waits for its
// partner, and a file of hundreds of millions of rows cannot keep every
// id, so the units pass checks the ids itself, exactly and in bounded
// memory, in three steps:
//
//  1. Order. Per (dataset, method, metric) — a slot — the pass keeps the
//     last id met. While a slot's ids keep increasing (byte order, or
//     shortest-first then byte order: 2 before 10), none can repeat, and
//     an id equal to the one before it is a repeat, reported at once
//     with both lines. Files sorted by unit, as most exports are, are
//     checked by this step alone, at the cost of a comparison per row.
//  2. A Bloom filter. From the row where a slot's ids stop increasing,
//     its ids (and the ones before, see repeatEarly) are hashed and put
//     in a register-blocked Bloom filter
//     (Putze, Sanders and Singler 2007: the bits of an id lie in one
//     64-bit word, so an id costs one memory access), sized at about 10
//     bits per row of the pass's files and at most maxRepeatWords words,
//     and written to a spill. An id the filter may have seen is a
//     candidate: its 64-bit hash is kept.
//  3. Confirmation. A candidate whose hash the spill holds once is a
//     false positive of the filter. If others are left (repeats, or,
//     rarely, two ids with one 64-bit hash), the files are read again,
//     and only the ids whose hash is such a candidate's are kept,
//     exactly, with their file and line: a second one of them is a
//     repeat, reported with both lines. When there are more
//     candidates than maxRepeatCands, those are confirmed first, then
//     the ids are checked in rounds, each for the ids of a share of the
//     hash space, with a filter of its own and its own confirmation.
//
// Twins. A wide file's line gives each metric's value of one unit id
// (unitsOut.put shares it between the line's rows). In files that keep
// empty cells (missing is not "drop"), the slot of each metric but the
// first of a line gets the first's ids, line for line: it is made its
// twin and not checked in the pass, and the first's repeats are
// reported to it too, at the same lines. For Sertkan et al.'s per-user
// files (two metrics) that spares half the hashes and probes. A twin
// whose ids stop being its twin's (a line with one but not the other:
// another file of the dataset and method without its column) is
// parted, and checked in full when the pass is over by reading the
// files again (as in rounds, step 3).
//
// The check runs in the pass's dispatcher, in the fixed order in which
// it takes the batches, so what it reports does not depend on timing.
// A repeat is the error of every analysis of the pass that reads the
// slot's values (its metric, a method it wants).

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math/bits"
	"os"
	"slices"
	"strings"
	"unsafe"

	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/input/parquet"
	"github.com/evalbook/evalbook/report/load/engines"
)

// maxRepeatWords bounds the Bloom filter of the repeat check: 32 MiB, 10
// bits per row for about 27 million rows (more rows share it, with more
// candidates to confirm).
const maxRepeatWords = 1 << 22

// maxRepeatCands bounds the candidates the check keeps (8 bytes each,
// and about 100 bytes each, with their ids and places, where they are
// confirmed by reading the files again).
const maxRepeatCands = 1 << 18

// repeatBitsPerRow is the filter's size per row of the pass's files.
const repeatBitsPerRow = 10

// repeatProbes is how many bits of its word an id sets.
const repeatProbes = 5

// repeatCheck is the units pass's check of repeated unit ids.
type repeatCheck struct {
	in    *Inputs
	seed  maphash.Seed
	sinks []*PassSink
	slots map[[3]string]*repeatSlot
	// rows is the pass's estimated number of rows (from its files'
	// sizes), which sizes the filter.
	rows int64
	// words is the filter, nil until a slot's ids stop increasing
	// (round: a round's); mask is its size − 1.
	words   []uint64
	mask    uint64
	touched uint64 // see probeAll
	// cands are the hashes of the candidates; overflow: more than
	// maxCands were met (the first ones are kept). inRange marks the
	// candidates that lie within their slot's range before its break
	// (their first may not be in the spill).
	cands    []uint64
	inRange  map[uint64]bool
	overflow bool
	maxCands int
	// spill holds the hash of every id put in the filter, in memory up
	// to spillMem bytes, then in a temporary file (deleted at once);
	// spillFailed: it could not be written, so the candidates are
	// confirmed by reading the files again.
	spill       []uint64
	spillFile   *os.File
	spillFailed bool
	spillMem    int
	// files are the files the pass read, in order, to read again.
	files []UnitsJob
	// slotOf is a batch's scratch: the slot of each of its names (nil:
	// no live analysis reads their values).
	slotOf []*repeatSlot
	// hs and pre are a batch's scratch: the hashes of the ids to probe,
	// and whether each lies within its slot's range before the break.
	hs  []uint64
	pre []bool
	// met: the slots whose last id points into the batch (copied once
	// per slot when it is done, not once per row)
	met []*repeatSlot
	// open counts the slots whose ids stopped increasing and that have
	// no error yet; early the hashes the slots keep (keepEarly).
	open, early int
	// deferred counts the slots whose ids before the break settle reads
	// again; prefixCands are the candidates found among those ids.
	deferred    int
	prefixCands map[uint64]bool
	earlySlot   int // repeatEarlySlot, or the inputs' knob
	// mark numbers the lines of the batches (the rows of a line of a
	// wide file share its id, sameUnit); root is the first slot that
	// checked the current line's id; keeps: the files whose entry keeps
	// empty cells (missing is not "drop"), whose slots may be twins;
	// parted counts the twins parted.
	mark            uint64
	root            *repeatSlot
	keeps           map[string]bool
	twinned, parted int
}

// repeatSlot is the check's state of one (dataset, method, metric).
type repeatSlot struct {
	dataset, method, metric string
	id                      uint64 // mixed into the hash of each id
	sinks                   []*PassSink
	n                       int64
	last                    []byte // the last id met, and where
	lastBuf                 []byte // what last is kept in between batches
	inBatch                 bool   // last points into the batch (batch)
	lastFile                string
	lastLine                int64
	lex, short              bool     // the ids so far increase in byte order; shortest first
	broken                  bool     // they stopped increasing
	first, hi               []byte   // hi: nil, or the range of the ids before the break
	hiLex, hiShort          bool     // the orders in which first … hi held
	early                   []uint64 // the hashes of the ids before the break (keepEarly)
	earlyLost               bool
	multi                   bool // its ids came from more than one file
	// deferred: the ids before the break, the first prefix of
	// prefixFile, go into the filter when the pass is over (settle);
	// prefixSeen counts them there.
	deferred           bool
	prefix, prefixSeen int64
	prefixFile         string
	reported           bool // its sinks were given a repeat
	// twin: the slot whose ids this one's are, line for line (another
	// metric's values of the lines of wide files that keep empty cells),
	// or were until it parted, or nil; twins: the slots whose twin this one is. A twin is not
	// checked in the pass: its twin's repeats are its own, at the same
	// lines. A twin whose ids stop being its twin's (a line with one but
	// not the other) is parted: checked when the pass is over, in full,
	// by reading the files again (settle), with the slots whose ids
	// stopped increasing.
	twin   *repeatSlot
	twins  []*repeatSlot
	parted bool
	mark   uint64 // the line of its last id (repeatCheck.mark)
}

// newRepeatCheck returns the check of a pass over groups.
func (in *Inputs) newRepeatCheck(ps []*PassSink, groups []*UnitsGroup) *repeatCheck {
	c := &repeatCheck{in: in, seed: maphash.MakeSeed(), sinks: ps, slots: map[[3]string]*repeatSlot{}, maxCands: maxRepeatCands}
	if in.RepeatMaxCands > 0 {
		c.maxCands = in.RepeatMaxCands
	}
	c.spillMem = spillMem
	c.earlySlot = repeatEarlySlot
	if in.RepeatEarlySlot > 0 {
		c.earlySlot = in.RepeatEarlySlot
	}
	switch {
	case in.RepeatSpillMem > 0:
		c.spillMem = in.RepeatSpillMem
	case in.RepeatSpillMem < 0:
		c.spillFailed = true
	}
	for _, g := range groups {
		for _, j := range g.Files {
			if st, err := os.Stat(j.mf.Path); err == nil {
				n := st.Size() / 24 // a row of a units file: 24 bytes or so
				if parquet.Is(j.mf.Path) || strings.HasSuffix(strings.ToLower(j.mf.Path), ".gz") {
					n *= 4
				}
				c.rows += n
			}
		}
	}
	return c
}

// reading records the files of a group the pass reads (to read them
// again); c may be nil (no check).
func (c *repeatCheck) reading(readers []*groupReader) {
	if c == nil {
		return
	}
	for _, r := range readers {
		c.files = append(c.files, UnitsJob{r.f.e, r.f.mf})
		if r.f.T != nil && r.f.e.Missing != "drop" {
			if c.keeps == nil {
				c.keeps = map[string]bool{}
			}
			c.keeps[r.f.T.File] = true
		}
	}
}

// slot returns the slot of a batch's names, or nil when no live sink
// reads its values.
func (c *repeatCheck) slot(n *rowNames) *repeatSlot {
	k := [3]string{n.Dataset, n.Method, n.metric}
	s := c.slots[k]
	if s == nil {
		s = &repeatSlot{dataset: strings.Clone(n.Dataset), method: strings.Clone(n.Method), metric: strings.Clone(n.metric)}
		s.id = maphash.String(c.seed, s.dataset+"\x00"+s.method+"\x00"+s.metric)
		for _, p := range c.sinks {
			if p.metric == n.metric && p.s.Wants(n.Method) {
				s.sinks = append(s.sinks, p)
			}
		}
		c.slots[[3]string{s.dataset, s.method, s.metric}] = s
	}
	if s.reported || !s.live() {
		return nil
	}
	return s
}

// live reports whether a sink that reads the slot's values is live.
func (s *repeatSlot) live() bool {
	for _, p := range s.sinks {
		if p.live() {
			return true
		}
	}
	return false
}

// batch checks the ids of a batch (step 1 and 2), in row order: the
// order of each slot's ids first, then the filter for the ids of slots
// out of order, in one loop over their hashes, so that its memory
// accesses (mostly cache misses) overlap.
func (c *repeatCheck) batch(b *UnitsBatchOf) {
	c.slotOf = c.slotOf[:0]
	for i := range b.Names {
		c.slotOf = append(c.slotOf, c.slot(&b.Names[i]))
	}
	c.hs, c.pre = c.hs[:0], c.pre[:0]
	// No row shares its id and no slot is a twin (a long file's rows):
	// nothing to do for twins.
	twins := b.shared || c.twinned > c.parted
	for k := range b.Rows {
		r := &b.Rows[k]
		s := c.slotOf[r.Names]
		if twins && c.twinRow(s, b, k) || unchecked(s, r) {
			continue
		}
		u := b.Ids[r.Unit : r.Unit+r.UnitLen]
		file := b.Names[r.Names].File
		cmp := 1 // u against the last id: one comparison serves every test
		if s.n > 0 {
			if cmp = bytes.Compare(u, s.last); cmp == 0 {
				c.report(s, string(u), file, r.Line, s.lastFile, s.lastLine)
				c.slotOf[r.Names] = nil // its sinks have their error
				continue
			}
			if !sameString(file, s.lastFile) {
				s.multi = true
			}
		}
		if !s.broken {
			lex := s.lex && cmp > 0
			short := s.short && (len(u) > len(s.last) || len(u) == len(s.last) && cmp > 0)
			switch {
			case s.n == 0:
				s.first, s.lex, s.short = append(s.first[:0], u...), true, true
			case lex || short:
				s.lex, s.short = lex, short
			default:
				c.breakSlot(s)
			}
			if !s.broken && !s.earlyLost {
				c.keepEarly(s, c.hash(s, u)) // (the hash of the slot's first ids only)
			}
		}
		if s.broken {
			c.hs = append(c.hs, c.hash(s, u))
			c.pre = append(c.pre, s.hi != nil && s.inPrefix(u))
		}
		if !s.inBatch {
			s.inBatch = true
			c.met = append(c.met, s)
		}
		s.last, s.lastFile, s.lastLine = u, file, r.Line
		s.n++
	}
	for _, s := range c.met {
		s.lastBuf = append(s.lastBuf[:0], s.last...)
		s.last, s.inBatch = s.lastBuf, false
	}
	c.met = c.met[:0]
	c.probeAll(c.hs, c.pre)
	c.toSpill(c.hs)
}

// twinRow does the twins' part of row k of slot s (nil: no live sink
// reads it): it starts a new line unless the row shares the unit id of
// the row before, and reports whether the row is not checked (shadow);
// a row that is, is the line's root if it is the first.
func (c *repeatCheck) twinRow(s *repeatSlot, b *UnitsBatchOf, k int) bool {
	if k == 0 || !sameUnit(&b.Rows[k], &b.Rows[k-1]) {
		c.mark, c.root = c.mark+1, nil
	}
	if unchecked(s, &b.Rows[k]) {
		return false // (the loop skips it)
	}
	if c.shadow(s, b, k) {
		return true
	}
	if c.root == nil {
		c.root = s
	}
	s.mark = c.mark
	return false
}

// unchecked reports whether row r, of slot s, is left out of the check
// in the pass: no live sink reads it (nil), its slot has its error or
// is checked when the pass is over, or it has no unit id.
func unchecked(s *repeatSlot, r *BatchRow) bool {
	return s == nil || s.reported || s.parted || r.UnitLen == 0
}

// sameUnit reports whether two rows of a batch are values of one line's
// unit id (unitsOut.put shares it).
func sameUnit(r, p *BatchRow) bool {
	return r.UnitLen > 0 && r.Unit == p.Unit && r.UnitLen == p.UnitLen && r.Line == p.Line
}

// shadow reports whether row k, of slot s, is not checked in the pass:
// s is the twin of the slot that checked the line's id, or s is parted
// now. Before that it makes s a twin (a slot whose first id is another
// value of a line's), and parts the twins of s that are not on the line.
func (c *repeatCheck) shadow(s *repeatSlot, b *UnitsBatchOf, k int) bool {
	if t := s.twin; t != nil {
		if t.mark == c.mark && s.n == t.n-1 {
			s.n++
			return true
		}
		c.part(s) // a line of s's that t does not share
		return true
	}
	if t := c.root; t != nil && s.n == 0 && len(s.twins) == 0 && t.n == 1 && t.twin == nil && c.keeps[b.Names[b.Rows[k].Names].File] {
		s.twin, s.n = t, 1
		t.twins = append(t.twins, s)
		c.twinned++
		return true
	}
	for i := 0; i < len(s.twins); {
		if tw := s.twins[i]; !tw.reported && !c.onLine(tw, b, k) {
			c.part(tw) // a line of s's that tw does not share (removes it)
			continue
		}
		i++
	}
	return false
}

// onLine reports whether slot s has a row after row k on row k's line.
func (c *repeatCheck) onLine(s *repeatSlot, b *UnitsBatchOf, k int) bool {
	for j := k + 1; j < len(b.Rows) && sameUnit(&b.Rows[j], &b.Rows[j-1]); j++ {
		if c.slotOf[b.Rows[j].Names] == s {
			return true
		}
	}
	return false
}

// part ends the twinship of s: its ids are checked in full when the
// pass is over (settle), as those of a slot whose ids stopped
// increasing.
func (c *repeatCheck) part(s *repeatSlot) {
	t := s.twin
	t.twins = slices.DeleteFunc(t.twins, func(x *repeatSlot) bool { return x == s })
	s.parted = true // (s.twin stays, for the size of its ids: rounds)
	c.parted++
	if !s.reported {
		s.broken = true
		c.open++
	}
}

// probeGroup is how many hashes probeAll loads the words of before it
// probes them: their cache misses overlap, and the words stay cached.
const probeGroup = 128

// probeAll probes the filter with hashes in order, keeping the
// candidates (pre: whether each lies within its slot's range before the
// break; nil: put the hashes in the filter, keeping no candidate). The words of a group of hashes are loaded first, with no
// store between the loads, so that their cache misses overlap.
func (c *repeatCheck) probeAll(hs []uint64, pre []bool) {
	for len(hs) > 0 {
		n := min(len(hs), probeGroup)
		var x uint64
		for _, h := range hs[:n] {
			x ^= c.words[h&c.mask]
		}
		c.touched ^= x // kept, so that the loads are not left out
		for i, h := range hs[:n] {
			switch {
			case pre == nil:
				c.probe(h)
			case c.probe(h) || pre[i]:
				// an id within its slot's range before the break is
				// marked so even when the filter has its bits (by
				// chance: its first, if any, is not in the filter, nor
				// in the spill, which alone would count it once)
				c.candidate(h, pre[i])
			}
		}
		hs = hs[n:]
		if pre != nil {
			pre = pre[n:]
		}
	}
}

// breakSlot marks a slot whose ids stopped increasing: the few ids met
// before go into the filter, or (more) their range is kept.
func (c *repeatCheck) breakSlot(s *repeatSlot) {
	s.broken = true
	c.open++
	c.filter()
	if !s.earlyLost {
		c.probeAll(s.early, nil) // the ids before increase: none is a repeat
		c.toSpill(s.early)
		c.early -= len(s.early)
		s.early = nil
		return
	}
	if !s.multi {
		// Its ids before the break are the first s.n of its one file:
		// settle puts them in the filter by reading them again.
		s.deferred, s.prefix, s.prefixFile = true, s.n, s.lastFile
		c.deferred++
		return
	}
	s.hi, s.hiLex, s.hiShort = append([]byte(nil), s.last...), s.lex, s.short
}

// repeatEarly is how many hashes of ids before their slot's break the
// check keeps in all (8 MiB), and repeatEarlySlot how many a slot
// keeps, to put them in the filter if the slot's ids stop increasing
// (ids in a random order do at once). A slot whose ids increase for
// longer drops its own, so a sorted file costs a comparison a row past
// its first ids. If its ids then stop increasing (sorted pieces: parts
// of a sharded export concatenated), the ids before the break are read
// again when the pass is over and put in the filter then (breakSlot,
// settle); when they came from more than one file, the ids after the
// break that fall within their range are candidates instead.
const (
	repeatEarly     = 1 << 20
	repeatEarlySlot = 1 << 8
)

// keepEarly keeps the hash of an id before its slot's break, or drops
// the slot's (it will keep the range of its ids instead) past
// repeatEarlySlot or when the check keeps repeatEarly already.
func (c *repeatCheck) keepEarly(s *repeatSlot, h uint64) {
	if c.early < repeatEarly && len(s.early) < c.earlySlot {
		s.early = append(s.early, h)
		c.early++
		return
	}
	c.early -= len(s.early)
	s.early, s.earlyLost = nil, true
}

// shortlexLess orders a before b by length, then bytes: unit ids that
// are numbers come in numeric order.
func shortlexLess(a, b []byte) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return bytes.Compare(a, b) < 0
}

// inPrefix reports whether u lies within the range of the ids met before
// the slot's ids stopped increasing (in an order in which they
// increased), where it may repeat one of them.
func (s *repeatSlot) inPrefix(u []byte) bool {
	if s.hiLex && bytes.Compare(s.first, u) <= 0 && bytes.Compare(u, s.hi) <= 0 {
		return true
	}
	return s.hiShort && !shortlexLess(u, s.first) && !shortlexLess(s.hi, u)
}

// hash is an id's 64-bit hash within its slot.
func (c *repeatCheck) hash(s *repeatSlot, u []byte) uint64 {
	h := maphash.Bytes(c.seed, u) ^ s.id
	// a finalizer (Murmur3's) spreads the slot's bits over the word
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// filter makes the filter when the first slot needs it.
func (c *repeatCheck) filter() {
	if c.words != nil {
		return
	}
	c.newFilter(c.rows)
}

// newFilter makes an empty filter for about rows ids.
func (c *repeatCheck) newFilter(rows int64) {
	words := int64(1) << bits.Len64(uint64(max(rows, 1)*repeatBitsPerRow/64))
	words = min(max(words, 1<<10), maxRepeatWords)
	if c.in.RepeatWords > 0 {
		words = int64(c.in.RepeatWords)
	}
	c.words, c.mask = make([]uint64, words), uint64(words-1)
}

// probe puts a hash in the filter and reports whether all its bits were
// set before (it may have been put there already).
func (c *repeatCheck) probe(h uint64) bool {
	// the word from the low bits, the bits in it from the high ones by
	// double hashing (Kirsch and Mitzenmacher 2006)
	g1, g2 := uint32(h>>32), uint32(h>>20)|1
	var m uint64
	for i := uint32(0); i < repeatProbes; i++ {
		m |= 1 << ((g1 + i*g2) >> 26)
	}
	w := &c.words[h&c.mask]
	old := *w
	*w = old | m
	return old&m == m
}

// has reports whether the filter holds all the bits of a hash.
func (c *repeatCheck) has(h uint64) bool {
	g1, g2 := uint32(h>>32), uint32(h>>20)|1
	var m uint64
	for i := uint32(0); i < repeatProbes; i++ {
		m |= 1 << ((g1 + i*g2) >> 26)
	}
	return c.words[h&c.mask]&m == m
}

// candidate keeps a candidate's hash; inRange: it lies within its
// slot's range before the break.
func (c *repeatCheck) candidate(h uint64, inRange bool) {
	if len(c.cands) >= c.maxCands {
		c.overflow = true
		return
	}
	c.cands = append(c.cands, h)
	if inRange {
		if c.inRange == nil {
			c.inRange = map[uint64]bool{}
		}
		c.inRange[h] = true
	}
}

// spillMem is how many bytes of hashes the spill keeps in memory before
// it writes them to a temporary file (in pieces of that size, which the
// processor's cache holds).
const spillMem = 256 << 10

// toSpill adds hashes to the spill.
func (c *repeatCheck) toSpill(hs []uint64) {
	for len(hs) > 0 && !c.spillFailed {
		if c.spill == nil {
			c.spill = make([]uint64, 0, max(1, c.spillMem/8))
		}
		n := copy(c.spill[len(c.spill):cap(c.spill)], hs)
		c.spill, hs = c.spill[:len(c.spill)+n], hs[n:]
		if len(c.spill) == cap(c.spill) {
			c.flushSpill()
		}
	}
}

// flushSpill writes the spill's hashes held in memory to its file (in
// the machine's byte order: the same process reads them back).
func (c *repeatCheck) flushSpill() {
	if c.spillFailed || len(c.spill) == 0 {
		return
	}
	if c.spillFile == nil {
		f, err := os.CreateTemp("", "evalbook-unit-hashes-*")
		if err != nil {
			c.dropSpill()
			return
		}
		os.Remove(f.Name()) // gone with the process, however it ends (Linux, macOS)
		c.spillFile = f
	}
	if _, err := c.spillFile.Write(unsafe.Slice((*byte)(unsafe.Pointer(&c.spill[0])), 8*len(c.spill))); err != nil {
		c.dropSpill()
		return
	}
	c.spill = c.spill[:0]
}

// dropSpill gives up the spill: the candidates will be confirmed by
// reading the files again.
func (c *repeatCheck) dropSpill() {
	c.spillFailed = true
	c.spill = nil
	if c.spillFile != nil {
		c.spillFile.Close()
		os.Remove(c.spillFile.Name())
		c.spillFile = nil
	}
}

// spilledTwice returns the candidates of set whose hash the spill holds
// twice or more (a repeat, or, rarely, two ids with one 64-bit hash):
// the others are the filter's false positives. ok is false when the
// spill cannot be read.
func (c *repeatCheck) spilledTwice(set map[uint64]struct{}, once map[uint64]bool) (twice map[uint64]struct{}, ok bool) {
	if c.spillFailed {
		return nil, false
	}
	// A bitmap of the candidates' low bits (16 bits each) spares most
	// hashes the map.
	bits := uint64(1) << bits.Len64(uint64(len(set))*16)
	bitmap := make([]uint64, (bits+63)/64)
	for h := range set {
		bitmap[(h&(bits-1))/64] |= 1 << (h % 64)
	}
	seen := make(map[uint64]bool, len(set))
	twice = map[uint64]struct{}{}
	count := func(hs []uint64) {
		for _, h := range hs {
			if bitmap[(h&(bits-1))/64]&(1<<(h%64)) == 0 {
				continue
			}
			if _, ok := set[h]; !ok {
				continue
			}
			if seen[h] || once[h] {
				twice[h] = struct{}{}
			}
			seen[h] = true
		}
	}
	if f := c.spillFile; f != nil {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, false
		}
		buf := make([]uint64, max(1, c.spillMem/8))
		for {
			n, err := io.ReadFull(f, unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), 8*len(buf)))
			count(buf[:n/8])
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			if err != nil {
				return nil, false
			}
		}
	}
	count(c.spill)
	return twice, true
}

// report gives the sinks of a slot the error of a repeat: u at file:line,
// first met at firstFile:firstLine.
func (c *repeatCheck) report(s *repeatSlot, u, file string, line int64, firstFile string, firstLine int64) {
	err := repeatError(u, s.method, s.dataset, file, line, firstFile, firstLine)
	for _, p := range s.sinks {
		p.fail(err)
	}
	if !s.reported && s.broken {
		c.open--
	}
	s.reported = true
	for _, tw := range s.twins { // the same repeat, at the same lines
		if !tw.reported {
			c.report(tw, u, file, line, firstFile, firstLine)
		}
	}
}

// repeatError is the error of a unit id at file:line whose first value
// is at firstFile:firstLine.
func repeatError(unit, method, dataset, file string, line int64, firstFile string, firstLine int64) error {
	if parquet.Is(file) { // its places are rows, as its other errors say
		first := fmt.Sprintf("%s: row %d", firstFile, firstLine)
		if firstFile == file {
			first = fmt.Sprintf("row %d", firstLine)
		}
		return fmt.Errorf("%s: row %d: %s (first at %s)", file, line, engines.RepeatMessage(unit, method, dataset), first)
	}
	return input.Errorf(file, int(line), "%s (first at %s:%d)", engines.RepeatMessage(unit, method, dataset), firstFile, firstLine)
}

// withFirst adds the place of the first value to a pairing builder's
// error of a repeated unit id (which keeps no places): the files are
// read again, in order, up to the first value of that unit other than
// the repeat. The error is returned as it is when it is another, or
// the first is not found.
func (c *repeatCheck) withFirst(err error, metric string) error {
	var re *meta.RepeatError
	var ie *input.InputError
	if c == nil || !errors.As(err, &re) || !errors.As(err, &ie) {
		return err
	}
	var firstFile string
	var firstLine int64
	for _, j := range c.files {
		f, ferr := c.in.OpenUnits(j.e, j.mf)
		if ferr != nil {
			continue
		}
		o := newUnitsOut(newUnitsBatch(), UnitsBatch, func(b *UnitsBatchOf) (*UnitsBatchOf, error) {
			for k := range b.Rows {
				r := &b.Rows[k]
				n := &b.Names[r.Names]
				if n.metric != metric || n.Method != re.Method || n.Dataset != re.Dataset || string(b.Ids[r.Unit:r.Unit+r.UnitLen]) != re.Unit {
					continue
				}
				if n.File == ie.File && r.Line == int64(ie.Line) {
					continue // the repeat itself
				}
				firstFile, firstLine = n.File, r.Line
				return nil, errPassDone
			}
			b.reset()
			return b, nil
		})
		if rerr := c.in.readUnitsRows(f, o); rerr == nil {
			o.full(o.b)
		}
		if firstFile != "" {
			return repeatError(re.Unit, re.Method, re.Dataset, ie.File, int64(ie.Line), firstFile, firstLine)
		}
	}
	return err
}

// settle confirms the candidates once the pass is over (step 3).
func (c *repeatCheck) settle(canceled func() bool) {
	if c.in.OnRepeatTwins != nil {
		c.in.OnRepeatTwins(c.twinned, c.parted)
	}
	c.settleDeferred(canceled)
	if len(c.cands) == 0 && !c.overflow {
		c.dropSpill()
		if c.parted > 0 {
			c.words = nil
			c.rounds(canceled, 1) // parted twins: checked in full
		}
		return
	}
	c.words = nil // its memory goes before the files are read again
	set := make(map[uint64]struct{}, len(c.cands))
	for _, h := range c.cands {
		set[h] = struct{}{}
	}
	c.cands = nil
	// The spill settles the filter's false positives without reading
	// the files again: a candidate whose hash it holds once is not a
	// repeat, unless its first may lie before the filter (inRange).
	if twice, ok := c.spilledTwice(set, c.prefixCands); ok {
		for h := range c.inRange {
			if _, cand := set[h]; cand {
				twice[h] = struct{}{}
			}
		}
		set = twice
	}
	c.inRange, c.prefixCands = nil, nil
	c.dropSpill()
	if c.in.OnRepeatSettle != nil {
		c.in.OnRepeatSettle(len(set))
	}
	c.confirm(set, 1, 0, canceled)
	switch {
	case c.overflow: // more candidates than the check keeps: in shares
		c.rounds(canceled, 2)
	case c.parted > 0: // parted twins: checked in full
		c.rounds(canceled, 1)
	}
}

// rounds checks the ids of the slots still open in rounds, when there
// were more candidates than the check keeps.
func (c *repeatCheck) rounds(canceled func() bool, least int64) {
	// Rounds: the ids whose hash is r modulo rounds, with a filter of
	// their own sized for them; more rounds when one has too many
	// candidates.
	var ids int64
	for _, s := range c.slots {
		switch {
		case s.reported || !s.broken:
		case s.parted: // its ids are about as many as its twin's
			ids += max(s.n, s.twin.n)
		default:
			ids += s.n
		}
	}
	rounds := uint64(max(least, ids*repeatBitsPerRow/(64*maxRepeatWords)+1))
	for r := uint64(0); r < rounds && c.open > 0 && !canceled(); r++ {
		c.cands, c.overflow = c.cands[:0], false
		c.newFilter(ids / int64(rounds))
		c.scan(rounds, r, func(s *repeatSlot, h uint64, _ []byte, _ string, _ int64) {
			if c.probe(h) {
				c.candidate(h, false)
			}
		}, canceled)
		c.words = nil
		if c.overflow {
			rounds, r = rounds*2, ^uint64(0) // again, in smaller shares
			continue
		}
		set := make(map[uint64]struct{}, len(c.cands))
		for _, h := range c.cands {
			set[h] = struct{}{}
		}
		c.confirm(set, rounds, r, canceled)
	}
	c.cands = nil
}

// settleDeferred reads again the ids of long increasing runs before a
// break (breakSlot): one the filter may hold is a candidate, confirmed
// when the spill (which holds the ids after the break) holds it once.
func (c *repeatCheck) settleDeferred(canceled func() bool) {
	if c.deferred == 0 || c.words == nil || c.overflow {
		return
	}
	c.prefixCands = map[uint64]bool{}
	c.scan(1, 0, func(s *repeatSlot, h uint64, _ []byte, file string, _ int64) {
		if !s.deferred || s.prefixSeen >= s.prefix || file != s.prefixFile {
			return
		}
		s.prefixSeen++
		if c.has(h) && !c.overflow {
			c.candidate(h, false)
			c.prefixCands[h] = true
		}
	}, canceled)
}

// confirm reads the files again and reports the first repeat of each
// slot among the ids whose hash is in set (and is r modulo rounds).
func (c *repeatCheck) confirm(set map[uint64]struct{}, rounds, r uint64, canceled func() bool) {
	if len(set) == 0 {
		return
	}
	type key struct {
		s *repeatSlot
		u string
	}
	type place struct {
		file string
		line int64
	}
	seen := map[key]place{}
	c.scan(rounds, r, func(s *repeatSlot, h uint64, u []byte, file string, line int64) {
		if _, ok := set[h]; !ok {
			return
		}
		k := key{s, string(u)}
		if first, ok := seen[k]; ok {
			c.report(s, k.u, file, line, first.file, first.line)
			return
		}
		seen[k] = place{file, line}
	}, canceled)
}

// scan reads the pass's files again, file after file, and hands fn the
// ids of the slots still open whose hash is r modulo rounds.
func (c *repeatCheck) scan(rounds, r uint64, fn func(s *repeatSlot, h uint64, u []byte, file string, line int64), canceled func() bool) {
	each := func(b *UnitsBatchOf) error {
		if canceled() || c.open == 0 {
			return errPassDone
		}
		c.slotOf = c.slotOf[:0]
		for i := range b.Names {
			s := c.slot(&b.Names[i])
			if s != nil && !s.broken {
				s = nil // its ids increase: none repeats
			}
			c.slotOf = append(c.slotOf, s)
		}
		for k := range b.Rows {
			row := &b.Rows[k]
			s := c.slotOf[row.Names]
			if s == nil || s.reported || row.UnitLen == 0 {
				continue
			}
			u := b.Ids[row.Unit : row.Unit+row.UnitLen]
			if h := c.hash(s, u); h%rounds == r {
				fn(s, h, u, b.Names[row.Names].File, row.Line)
			}
		}
		b.reset()
		return nil
	}
	for _, j := range c.files {
		if c.open == 0 || canceled() {
			return
		}
		f, err := c.in.OpenUnits(j.e, j.mf)
		if err != nil {
			continue // the pass met it too, and told the sinks
		}
		o := newUnitsOut(newUnitsBatch(), UnitsBatch, func(b *UnitsBatchOf) (*UnitsBatchOf, error) { return b, each(b) })
		if err := c.in.readUnitsRows(f, o); err == nil {
			each(o.b)
		}
	}
}
