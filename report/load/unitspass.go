package load

// The shared units pass. Every analysis of a phase that reads the study's
// per-unit values (a kind with Kind.Units) gets them from one pass over
// the units files: each file is opened, parsed and hashed once per build
// however many analyses read it, and each record is handed to every
// analysis that needs it. Memory stays what the analyses' own builders
// keep (per cell, not per row): the pass holds a few batches per file.
//
// Layout. When every units file gets its dataset and method from its
// path or its entry (runs/{method}_{dataset}.csv), the files of one
// dataset are read side by side, each in its own goroutine, and consumed
// in alternating batches of a fixed size, so the values of one unit from
// different methods arrive close together and a pairing builder's
// waiting set stays within a batch whenever the files list their units
// in the same order. Any other layout is streamed file after file, in
// sorted glob order. Either way the batches are taken in a fixed order,
// so nothing depends on scheduling.
//
// Which sink sees which file. A sink receives every row of a file it
// needs: a file of a method it Wants, or a long file (any method may be
// in it). A wide file (a column per metric) of a method no sink of the
// pass wants is not parsed: its header tells each sink whether it holds
// the sink's metric (Seen), which is all reading it would have told it.
// A read error of a file goes to the sinks that needed the file; an
// error a sink returns stops that sink only; the others read on.
//
// Concurrency. Each file is parsed by a reader goroutine into batches;
// one dispatcher takes the batches in their fixed order and hands each to
// every sink that needs it; each sink consumes its batches in its own
// goroutine, in that order. So the analyses of a pass pair their values
// in parallel, while each sees exactly the sequence of values (and
// errors) a pass of its own would give it.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/input/parquet"
)

// UnitsSink takes the per-unit values of the shared units pass (see
// Kind.Units).
type UnitsSink interface {
	// Metric is the metric the sink analyses.
	Metric() string
	// Wants reports whether the sink needs the values of a method.
	Wants(method string) bool
	// Add takes one value of the sink's metric (of any method, in a file
	// the sink needs). The row is reused after the call: copy what you
	// keep. An error stops this sink.
	Add(u *UnitRow) error
	// OtherMetric tells the sink that a file it needs holds values of
	// another metric for a dataset and method (their rows are not handed
	// to Add); it may be told the same thing many times.
	OtherMetric(dataset, method, metric string)
	// Seen tells the sink that a file it did not need holds values of
	// its metric for a dataset and method.
	Seen(dataset, method string)
}

// UnitsBatch is the number of rows a reader hands over at once.
const UnitsBatch = 512

// RangeBatch is the number of rows of a batch of a file read in byte
// ranges (readGroupFileParallel). Its values need not meet another file's
// within a batch, so a batch can be bigger: a batch goes through a few
// channels and goroutines on its way to every sink, and at 512 rows
// those hand-offs (58,000 batches for a 1 GB file) took more CPU than
// splitting the rows. The rows in flight are bounded by the ranges in
// flight, not by the batches.
const RangeBatch = 8192

// errPassDone stops reading a file no sink needs any more.
var errPassDone = errors.New("no reader left")

// UnitsBatchOf is a batch of rows on its way to the sinks: it goes back
// to its reader's free list when the last sink is done with it.
//
// Its rows hold no pointers (names are indices into names, unit ids
// offsets into ids), so filling a batch is a plain copy, without write
// barriers, and the garbage collector never scans one.
type UnitsBatchOf struct {
	Rows  []BatchRow
	Names []rowNames
	// Ids holds the bytes of the rows' unit ids; reused with the batch,
	// once every sink is done.
	Ids  []byte
	refs atomic.Int32
	Home chan *UnitsBatchOf // the reader's free list; nil: drop it
	// shared: some of its rows share a unit id (unitsOut.put), which
	// the repeat check's twins look for
	shared bool
}

// BatchRow is a UnitRow inside a batch.
type BatchRow struct {
	Unit, UnitLen uint32 // the unit id: ids[unit : unit+unitLen]
	Names         uint32 // index into the batch's names
	Row, Line     int64
	Value         float64
}

// appendRow appends a row, storing its fields in place: appending a
// BatchRow literal builds it on the stack and copies it with moves that
// stall on the stores before them (15 % of a Parquet build's CPU, now 6).
func appendRow(rows []BatchRow, unit, unitLen, names uint32, row, line int64, v float64) []BatchRow {
	rows = slices.Grow(rows, 1)[:len(rows)+1]
	r := &rows[len(rows)-1]
	r.Unit, r.UnitLen, r.Names, r.Row, r.Line, r.Value = unit, unitLen, names, row, line, v
	return rows
}

// rowNames are the strings of a row other than its unit id; rows in a
// row repeat them (a wide file alternates its few metrics).
type rowNames struct{ Dataset, Method, metric, File string }

// namesBack is how many of a batch's latest names add compares a row's
// with before it appends new ones.
const namesBack = 4

func newUnitsBatch() *UnitsBatchOf { return newBatchOf(UnitsBatch) }

func newBatchOf(rows int) *UnitsBatchOf {
	return &UnitsBatchOf{Rows: make([]BatchRow, 0, rows)}
}

func (b *UnitsBatchOf) release() {
	if b.refs.Add(-1) == 0 && b.Home != nil {
		select {
		case b.Home <- b:
		default:
		}
	}
}

// add appends a copy of u.
func (b *UnitsBatchOf) add(u *UnitRow) {
	ni := b.nameIndex(rowNames{u.Dataset, u.Method, u.Metric, u.File})
	b.Rows = appendRow(b.Rows, uint32(len(b.Ids)), uint32(len(u.Unit)), uint32(ni), u.Row, u.Line, u.Value)
	b.Ids = append(b.Ids, u.Unit...)
}

// nameIndex returns the index of names in b.names, appending them unless
// one of the latest namesBack is equal.
func (b *UnitsBatchOf) nameIndex(names rowNames) int {
	for k := len(b.Names) - 1; k >= max(0, len(b.Names)-namesBack); k-- {
		if n := &b.Names[k]; sameString(n.metric, names.metric) && sameString(n.Method, names.Method) && sameString(n.Dataset, names.Dataset) && sameString(n.File, names.File) {
			return k
		}
	}
	b.Names = append(b.Names, names)
	return len(b.Names) - 1
}

// sameString is a == b, deciding without a call when both are the same
// string (the interned names rows repeat) or differ in length.
func sameString(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	return len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b) || a == b
}

// Row fills u with row k; u's unit id aliases the batch.
func (b *UnitsBatchOf) Row(k int, u *UnitRow) {
	r := &b.Rows[k]
	n := &b.Names[r.Names]
	u.Dataset, u.Method, u.Metric, u.File = n.Dataset, n.Method, n.metric, n.File
	u.Unit = ""
	if r.UnitLen > 0 {
		u.Unit = unsafe.String(&b.Ids[r.Unit], int(r.UnitLen))
	}
	u.Row, u.Line, u.Value = r.Row, r.Line, r.Value
}

// reset empties a batch for reuse: no sink holds its rows any more.
func (b *UnitsBatchOf) reset() {
	clear(b.Names) // drop the strings, so the batch keeps no file's names alive
	b.Rows, b.Names, b.Ids = b.Rows[:0], b.Names[:0], b.Ids[:0]
	b.shared = false
}

// passMsg is what a sink's goroutine gets, in order: a round of batches
// (one from each file of a group the sink needs, which it takes row by
// row in turn: the values of a unit in files that list units in the same
// order meet at once), an error (of a file it needed), or a dataset and
// method seen in a file it did not need.
type passMsg struct {
	round []*UnitsBatchOf
	err   error
	seen  [2]string
}

// PassSink is one sink of the pass and its goroutine.
type PassSink struct {
	s       UnitsSink
	Err     error // the sink's first error; its goroutine's until done
	failed  bool  // the dispatcher sent it an error (dispatcher only)
	stopped atomic.Bool
	In      chan passMsg
	Done    chan struct{}
	row     UnitRow // the row handed to the sink, refilled for each
	metric  string  // the sink's Metric()
	want    []bool  // scratch of wanted
	// rows, when the sink takes rows from the batches itself (metaSink),
	// is handed each round whole; wants is its scratch (per batch of the
	// round, which of the batch's names are of the sink's metric).
	rows  RoundTaker
	wants [][]bool
	// reads are the units files the pass opened while the sink was
	// live: -1 for those it was handed the rows of, else the length of
	// the header it could be told of, 0 for one not at the file's start
	// (input.HeadSum; the dispatcher's, read after it)
	reads map[string]int64
}

// mark records a file the sink was handed the rows of (n = -1) or of
// which it could be told the header alone, of n bytes.
func (p *PassSink) mark(path string, n int64) {
	if p.reads == nil {
		p.reads = map[string]int64{}
	}
	if p.reads[path] != -1 {
		p.reads[path] = n
	}
}

// RoundTaker is a sink that takes the rows of a round of batches itself,
// in the pass's order (see TakeRound), instead of through Add: it may
// then look up what it keeps for a batch's names once per batch rather
// than once per row.
type RoundTaker interface {
	// TakeRound takes the rows of a round: row k of each batch in turn
	// (k = 0, 1, …), skipping the rows whose names are not wanted
	// (wants[i][names], batch i), exactly the rows and order Add would
	// be handed. An error stops the sink.
	TakeRound(round []*UnitsBatchOf, wants [][]bool) error
}

// A sink that takes whole rounds says so with a method RoundSink that
// returns itself; a type embedding it gets the embedded sink back, not
// itself, so its own Add still sees every row.

// Run feeds the sink what the dispatcher sends, until it closes.
func (p *PassSink) Run() {
	defer close(p.Done)
	for m := range p.In {
		if p.Err == nil {
			p.take(m)
		}
		for _, b := range m.round {
			b.release()
		}
	}
}

// take handles one message; a panic of the sink is its error.
func (p *PassSink) take(m passMsg) {
	defer func() {
		if r := recover(); r != nil {
			p.Err = InternalError(r)
			p.stopped.Store(true)
		}
	}()
	switch {
	case m.err != nil:
		p.Err = m.err
	case len(m.round) > 0 && p.rows != nil:
		p.wants = p.wants[:0]
		for _, b := range m.round {
			p.wants = append(p.wants, append(NextScratch(p.wants), p.wanted(b)...))
		}
		if err := p.rows.TakeRound(m.round, p.wants); err != nil {
			p.Err = err
			p.stopped.Store(true)
		}
	case len(m.round) == 1:
		b := m.round[0]
		wanted := p.wanted(b)
		for k := range b.Rows {
			if !wanted[b.Rows[k].Names] {
				continue
			}
			b.Row(k, &p.row)
			if err := p.s.Add(&p.row); err != nil {
				p.Err = err
				p.stopped.Store(true)
				return
			}
		}
	case len(m.round) > 1:
		longest := 0
		wanted := make([][]bool, len(m.round))
		for i, b := range m.round {
			longest = max(longest, len(b.Rows))
			wanted[i] = slices.Clone(p.wanted(b))
		}
		for k := 0; k < longest; k++ {
			for i, b := range m.round {
				if k >= len(b.Rows) || !wanted[i][b.Rows[k].Names] {
					continue
				}
				b.Row(k, &p.row)
				if err := p.s.Add(&p.row); err != nil {
					p.Err = err
					p.stopped.Store(true)
					return
				}
			}
		}
	default:
		p.s.Seen(m.seen[0], m.seen[1])
	}
}

// NextScratch returns, emptied, the slice that a slice of scratch
// slices (refilled from empty, round after round) held next in a
// round before, to be appended to s with its room reused; nil at first.
func NextScratch[T any](s [][]T) []T {
	if len(s) < cap(s) {
		return s[:len(s)+1][len(s)][:0]
	}
	return nil
}

// wanted says, for each of a batch's names, whether its rows are of the
// sink's metric, and tells the sink the other metrics it meets. The
// slice is reused by the next call.
func (p *PassSink) wanted(b *UnitsBatchOf) []bool {
	p.want = p.want[:0]
	for i := range b.Names {
		n := &b.Names[i]
		ok := n.metric == p.metric
		if !ok {
			p.s.OtherMetric(n.Dataset, n.Method, n.metric)
		}
		p.want = append(p.want, ok)
	}
	return p.want
}

// live reports whether the dispatcher should still send the sink work.
func (p *PassSink) live() bool { return !p.failed && !p.stopped.Load() }

// fail sends the sink an error; its first error wins.
func (p *PassSink) fail(err error) {
	if p.live() {
		p.failed = true
		p.In <- passMsg{err: err}
	}
}

// UnitsPass feeds every sink in one pass over the units inputs and the
// units derived by feeding analyses, and returns each sink's error.
//
// Cancelling ctx stops the pass between rounds; every sink still
// without an error then gets ctx's.
func (in *Inputs) UnitsPass(ctx context.Context, sinks []UnitsSink) []error {
	errs, _ := in.UnitsPassHeads(ctx, sinks)
	return errs
}

// UnitsPassHeads is UnitsPass that also returns, for each sink, the
// files of its view's reads of which only the header counted for it (with
// the header's length, 0 for a .gz file's as read): CSV or TSV files of
// methods it does not want, which the pass opened for other sinks. Their rows cannot
// change what the sink computes; their headers can (which metrics the
// file holds: Seen).
func (in *Inputs) UnitsPassHeads(ctx context.Context, sinks []UnitsSink) ([]error, []map[string]int64) {
	ps := make([]*PassSink, len(sinks))
	for i, s := range sinks {
		ps[i] = NewPassSink(s)
		go ps[i].Run()
	}
	check := in.dispatch(ctx, ps)
	errs := make([]error, len(ps))
	heads := make([]map[string]int64, len(ps))
	for i, p := range ps {
		close(p.In)
		<-p.Done
		errs[i] = check.withFirst(p.Err, p.metric)
		heads[i] = map[string]int64{}
		for f, n := range p.reads {
			if n >= 0 {
				heads[i][f] = n
			}
		}
	}
	in.dropFreeBatches()
	return errs, heads
}

// dropFreeBatches empties the build's free list of batches once a pass
// is over, so that what comes after the pass (figures, pages) reuses
// their memory instead of the build keeping it to its end.
func (in *Inputs) dropFreeBatches() {
	free := in.freeList(&in.freeBatches, freeBatches)
	for {
		select {
		case <-free:
		default:
			return
		}
	}
}

// dispatch reads the units inputs and sends each sink its messages; it
// returns its check of repeated unit ids (nil when it read no file).
func (in *Inputs) dispatch(ctx context.Context, ps []*PassSink) *repeatCheck {
	hasDerived := false
	for _, d := range in.Derived {
		hasDerived = hasDerived || d.Units != nil
	}
	in.MergeDerived()
	if len(in.Study.Inputs.Units) == 0 && !hasDerived {
		failAll(ps, fmt.Errorf("%s: the study has no [inputs] units", filepath.Base(in.Study.File)))
		return nil
	}
	groups, err := in.UnitsGroups()
	if err != nil {
		failAll(ps, err)
		return nil
	}
	if groups == nil {
		// Any other layout: file after file, each its own group.
		for _, e := range in.Study.Inputs.Units {
			files, err := in.Expand(e, "units")
			if err != nil {
				failAll(ps, err)
				return nil
			}
			for _, mf := range files {
				groups = append(groups, &UnitsGroup{Files: []UnitsJob{{e, mf}}})
			}
		}
	}
	// Each group's files are opened, their heads read and hashed, and
	// their readers started on a goroutine of its own while the group
	// before is consumed, so the pass never waits for a group's files to
	// open; what a group tells the sinks is told in its turn. Which sinks
	// it reads for is taken before the group before is consumed, so the
	// same sinks get the same files whatever the timing.
	check := in.newRepeatCheck(ps, groups)
	var next chan startedOrPanic
	for i, g := range groups {
		var cur *startedGroup
		if next == nil {
			cur = in.startGroup(g, alive(ps))
		} else if r := <-next; r.P != nil {
			panic(r.P) // feedUnits turns it into every sink's error
		} else {
			cur = r.Sg
		}
		next = nil
		if err := ctx.Err(); err != nil {
			failAll(ps, err) // the started group still runs, to its end, for nobody
		} else if live := alive(ps); i+1 < len(groups) && len(live) > 0 {
			next = in.StartGroupAsync(groups[i+1], live)
		}
		cur.ctx = ctx
		if !in.RepeatOff {
			cur.repeat = check
		}
		cur.run(ps)
	}
	check.settle(func() bool { return ctx.Err() != nil })
	if err := ctx.Err(); err != nil {
		failAll(ps, err)
	}
	in.passDerived(ps)
	return check
}

// passDerived hands the units derived by feeding analyses to the sinks.
func (in *Inputs) passDerived(ps []*PassSink) {
	for _, d := range in.Derived {
		if d.Units == nil {
			continue
		}
		live := alive(ps)
		if len(live) == 0 {
			return
		}
		send := func(b *UnitsBatchOf, to []*PassSink) {
			b.refs.Store(int32(len(to)))
			for _, p := range to {
				p.In <- passMsg{round: []*UnitsBatchOf{b}}
			}
		}
		b := newUnitsBatch()
		err := d.Units(func(u *UnitRow) error {
			b.add(u)
			if len(b.Rows) == UnitsBatch {
				if live = alive(live); len(live) == 0 {
					return errPassDone
				}
				send(b, live)
				b = newUnitsBatch()
			}
			return nil
		})
		if err != nil && !errors.Is(err, errPassDone) {
			err = fmt.Errorf("units derived by %s: %w", d.Id, err)
		} else {
			err = nil
		}
		if live = alive(live); len(b.Rows) > 0 && len(live) > 0 {
			send(b, live)
		}
		for _, p := range live {
			if err != nil {
				p.fail(err)
			}
		}
	}
}

func failAll(ps []*PassSink, err error) {
	for _, p := range ps {
		p.fail(err)
	}
}

// alive returns the sinks the dispatcher still sends work to.
func alive(ps []*PassSink) []*PassSink {
	var out []*PassSink
	for _, p := range ps {
		if p.live() {
			out = append(out, p)
		}
	}
	return out
}

// receives reports whether p is one of receivers.
func receives(receivers []*PassSink, p *PassSink) bool {
	for _, q := range receivers {
		if q == p {
			return true
		}
	}
	return false
}

// UnitsGroup is units files read side by side: the files of one dataset,
// or one file.
type UnitsGroup struct {
	Files []UnitsJob
}

// UnitsJob is one units file to read: its entry and the match of its path.
type UnitsJob struct {
	e  Entry
	mf input.Match
}

// NewUnitsJob is the job of reading the file mf of entry e.
func NewUnitsJob(e Entry, mf input.Match) UnitsJob { return UnitsJob{e, mf} }

// UnitsGroups groups the units files by dataset, in order of first
// appearance, when every file gets its dataset and method from its path
// or its entry; nil otherwise.
func (in *Inputs) UnitsGroups() ([]*UnitsGroup, error) {
	var groups []*UnitsGroup
	byDataset := map[string]*UnitsGroup{}
	for _, e := range in.Study.Inputs.Units {
		files, err := in.Expand(e, "units")
		if err != nil {
			return nil, err
		}
		for _, mf := range files {
			if mf.Method == "" || mf.Dataset == "" {
				return nil, nil
			}
			g := byDataset[mf.Dataset]
			if g == nil {
				g = &UnitsGroup{}
				byDataset[mf.Dataset] = g
				groups = append(groups, g)
			}
			g.Files = append(g.Files, UnitsJob{e, mf})
		}
	}
	return groups, nil
}

// groupReader is one file of a started group: its reader goroutine's
// batches and the sinks that get them.
type groupReader struct {
	f         *unitsFile
	receivers []*PassSink
	batches   chan *UnitsBatchOf
	free      chan *UnitsBatchOf
	rows      int // the rows of its batches (UnitsBatch or, alone in its group, RangeBatch)
	stop      chan struct{}
	stopped   bool
	err       error
}

// startedGroup is a group whose files are open and being read; told are
// the messages its headers give the sinks, in file order.
type startedGroup struct {
	ctx     context.Context // nil: not cancellable
	repeat  *repeatCheck    // nil: no check of repeated unit ids
	readers []*groupReader
	told    []toldMsg
	wg      sync.WaitGroup
}

type toldMsg struct {
	p *PassSink
	m passMsg
}

// PassGroup reads the files of a group side by side and sends their rows
// to the sinks that need them, a batch of each file in turn.
func (in *Inputs) PassGroup(g *UnitsGroup, ps []*PassSink) {
	in.startGroup(g, alive(ps)).run(ps)
}

// startedOrPanic is what startGroupAsync gives: the started group, or
// the value startGroup panicked with.
type startedOrPanic struct {
	Sg *startedGroup
	P  any
}

// StartGroupAsync runs startGroup on a goroutine of its own.
func (in *Inputs) StartGroupAsync(g *UnitsGroup, live []*PassSink) chan startedOrPanic {
	ch := make(chan startedOrPanic, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- startedOrPanic{P: p}
			}
		}()
		ch <- startedOrPanic{Sg: in.startGroup(g, live)}
	}()
	return ch
}

// startGroup opens the files of a group, reads their headers and starts
// a reader per file that some of the sinks live needs (the sinks alive
// when it was called: it reads no sink's state, and may run while
// another group is consumed).
func (in *Inputs) startGroup(g *UnitsGroup, live0 []*PassSink) *startedGroup {
	sg := &startedGroup{}
	failed := map[*PassSink]bool{} // by a header of this group
	// Headers first, in file order, so errors come in a fixed order.
	for _, j := range g.Files {
		var live []*PassSink
		for _, p := range live0 {
			if !failed[p] {
				live = append(live, p)
			}
		}
		if len(live) == 0 {
			break
		}
		f, err := in.OpenUnits(j.e, j.mf)
		if err != nil {
			for _, p := range live {
				failed[p] = true
				sg.told = append(sg.told, toldMsg{p, passMsg{err: err}})
			}
			continue
		}
		// A file whose every row has the method and dataset of its path
		// (no such columns) need not be parsed for a sink that does not
		// want that method.
		skippable := !f.long && f.mcol < 0 && f.dcol < 0 && j.mf.Method != "" && j.mf.Dataset != ""
		// a sink that does not want the method may be told the file's
		// header (Seen), its input; of a .gz file as read (0), and of a
		// Parquet file the whole file (its schema holds more than names)
		var headLen int64
		heads := skippable && !parquet.Is(j.mf.Path)
		if heads {
			headLen, _, _ = f.T.DataRange()
		}
		var receivers []*PassSink
		for _, p := range live {
			if !skippable || p.s.Wants(j.mf.Method) {
				receivers = append(receivers, p)
				p.mark(j.mf.Path, -1)
				continue
			}
			if heads {
				p.mark(j.mf.Path, headLen)
			}
			if f.hasMetric(p.s.Metric()) {
				sg.told = append(sg.told, toldMsg{p, passMsg{seen: [2]string{j.mf.Dataset, j.mf.Method}}})
			}
		}
		if len(receivers) == 0 {
			in.CloseCounted(j.mf.Path, f.T)
			continue
		}
		sg.readers = append(sg.readers, &groupReader{f: f, receivers: receivers,
			batches: make(chan *UnitsBatchOf, 2), free: in.freeList(&in.freeBatches, freeBatches), rows: UnitsBatch, stop: make(chan struct{})})
	}
	if len(sg.readers) == 1 {
		// A file alone in its group meets no other file's rows in a
		// round, so its batches may be as big as a byte range's. Each
		// batch crosses from the reader's core to the sinks' and back
		// to the free list; at 512 rows the Parquet twin of the 1 GB
		// study took 4.1-4.2 s of CPU, at 8192 3.3-3.4 s (peak memory
		// 44 -> 50 MiB), and with the whole pass on one core 2.5 s.
		// Its free list is another: the build's holds batches of UnitsBatch rows.
		sg.readers[0].free, sg.readers[0].rows = in.freeList(&in.freeLone, 16), RangeBatch
	}
	for _, r := range sg.readers {
		sg.wg.Add(1)
		if size, ok := in.parallelSize(r.f); ok {
			go in.readGroupFileParallel(sg, r, size)
		} else {
			go in.readGroupFile(sg, r)
		}
	}
	return sg
}

// readGroupFile is a group reader's goroutine: the file's rows in batches.
func (in *Inputs) readGroupFile(sg *startedGroup, r *groupReader) {
	defer sg.wg.Done()
	defer close(r.batches)
	defer func() {
		if p := recover(); p != nil {
			r.err = InternalError(p)
		}
	}()
	next := BatchPool(r.free, r.rows)
	send := func(b *UnitsBatchOf) bool {
		select {
		case r.batches <- b:
			return true
		case <-r.stop:
			return false
		}
	}
	o := newUnitsOut(next(), r.rows, func(b *UnitsBatchOf) (*UnitsBatchOf, error) {
		if !send(b) {
			return nil, errPassDone
		}
		return next(), nil
	})
	handled, err := in.readUnitsParquet(r.f, o) // a Parquet file by columns
	if !handled {
		err = in.readUnitsRows(r.f, o)
	}
	if err == nil && len(o.b.Rows) > 0 {
		send(o.b)
	}
	r.err = err // read after the channel is closed
}

// run tells the sinks what the group's headers said, then hands them the
// rows, and waits for the readers.
func (sg *startedGroup) run(ps []*PassSink) {
	for _, t := range sg.told {
		if t.m.err != nil {
			t.p.fail(t.m.err)
		} else if t.p.live() {
			t.p.In <- t.m
		}
	}
	readers := sg.readers
	sg.repeat.reading(readers)
	// Rounds: a batch of each open file, in file order; each sink gets the
	// batches of the files it needs, then the errors of files that ended.
	open := len(readers)
	done := make([]bool, len(readers))
	round := make([]*UnitsBatchOf, len(readers))
	for open > 0 {
		if sg.ctx != nil && sg.ctx.Err() != nil {
			failAll(ps, sg.ctx.Err()) // the readers stop: nobody needs their rows
		}
		var ended []*groupReader
		for i, r := range readers {
			round[i] = nil
			if done[i] {
				continue
			}
			b, ok := <-r.batches
			if !ok {
				done[i] = true
				open--
				if r.err != nil && !errors.Is(r.err, errPassDone) {
					ended = append(ended, r)
				}
				continue
			}
			if len(alive(r.receivers)) == 0 {
				if !r.stopped {
					r.stopped = true
					close(r.stop) // nobody needs the rest of this file
				}
				continue
			}
			round[i] = b
			if sg.repeat != nil {
				sg.repeat.batch(b) // before the sinks get it: a repeat found is their error first
			}
		}
		sendRound(ps, readers, round)
		for _, r := range ended {
			for _, p := range r.receivers {
				p.fail(r.err)
			}
		}
	}
	sg.wg.Wait()
}

// sendRound sends each live sink the batches of a round (round[i]:
// readers[i]'s, or nil) of the files it receives.
func sendRound(ps []*PassSink, readers []*groupReader, round []*UnitsBatchOf) {
	refs := make([]int32, len(readers))
	msgs := make([][]*UnitsBatchOf, len(ps))
	for k, p := range ps {
		if !p.live() {
			continue
		}
		for i, r := range readers {
			if round[i] != nil && receives(r.receivers, p) {
				msgs[k] = append(msgs[k], round[i])
				refs[i]++
			}
		}
	}
	for i, b := range round {
		if b != nil {
			b.refs.Store(refs[i])
		}
	}
	for k, p := range ps {
		if len(msgs[k]) > 0 {
			p.In <- passMsg{round: msgs[k]}
		}
	}
}

// parallelSize reports whether a units file is parsed in parallel byte
// ranges (an uncompressed CSV or TSV file of at least parallelMin bytes,
// with more than one worker), and its size.
func (in *Inputs) parallelSize(f *unitsFile) (int64, bool) {
	if in.Jobs < 2 || in.ParallelMin <= 0 {
		return 0, false
	}
	start, size, ok := f.T.DataRange()
	if !ok || size-start < in.ParallelMin {
		return 0, false
	}
	return size, true
}

// UnitsChunk is a byte range of a units file parsed by a worker: its
// rows in batches (Row and Line counted within the range), how many
// records and lines it holds, and an error (input.ErrQuoted: the range holds a
// quote, so it may not start where a record does).
type UnitsChunk struct {
	Start, End int64
	Raw        []byte // the range's bytes, hashed by the consumer in order
	Batches    []*UnitsBatchOf
	rows       int64
	lines      int
	Err        error
	done       chan struct{}
}

// Counts is how many records and lines the range held (as far as it
// was read).
func (c *UnitsChunk) Counts() (rows int64, lines int) { return c.rows, c.lines }

// freeBatches is how many batches the build's free list of batches of
// UnitsBatch rows (freeList) keeps.
const freeBatches = 256

// freeList returns one of the build's free lists of batches (made on
// first use with room for size): every file of every units pass takes its
// batches there and they go back there, so a pass reuses the same few
// batches from file to file instead of filling fresh memory for each
// (each page of it a page fault, which costs more than filling it).
// in.freeBatches holds batches of UnitsBatch rows, for files read side by
// side; in.freeLone those of RangeBatch rows of files alone in their
// group (startGroup).
func (in *Inputs) freeList(list *chan *UnitsBatchOf, size int) chan *UnitsBatchOf {
	in.Mu.Lock()
	defer in.Mu.Unlock()
	if *list == nil {
		*list = make(chan *UnitsBatchOf, size)
	}
	return *list
}

// BatchPool returns a function that takes a batch from free (batches
// the sinks are done with) or makes one that goes back there.
//
// A batch the sinks just read is in the other core's cache, and writing
// it again moves every line of it back, row by row: on the project's
// 2-vCPU machine that store took 1.95 s of a 1 GB file's 5 s of CPU. So
// past its first coolAfter rows, the longer a file, the more batches are
// left to cool in free before one is taken again (one for every eight
// taken, up to coolBytes of them): a small file reuses what it finds, a
// large one spends up to coolBytes more memory (the Parquet twin of the 1 GB study: 4.0–4.3 s of CPU
// against 5.0–5.2 s, peak memory 45 against 40 MiB).
func BatchPool(free chan *UnitsBatchOf, rows int) func() *UnitsBatchOf {
	rows = max(rows, 1)
	maxCool := min(coolBytes/(rows*int(unsafe.Sizeof(BatchRow{}))), cap(free)/2)
	var taken atomic.Int64 // the range workers share one pool
	return func() *UnitsBatchOf {
		cool := min(max(int(taken.Add(1))-coolAfter/rows, 0)/8, maxCool)
		if len(free) > cool {
			select {
			case b := <-free:
				b.reset()
				return b
			default:
			}
		}
		b := newBatchOf(rows)
		b.Home = free
		return b
	}
}

// coolBytes is how much batch memory a long file's reader leaves to cool
// (BatchPool), once it has read coolAfter rows.
const (
	coolBytes = 2 << 20
	coolAfter = 1 << 20
)

// cutRanges cuts a file's data into ranges of about in.chunkBytes at line
// ends and hands each to the workers (todo) and, in file order, to the
// consumer (order), until cancel.
func (in *Inputs) cutRanges(t *input.TableReader, size int64, todo, order chan<- *UnitsChunk, cancel <-chan struct{}) {
	defer close(todo)
	defer close(order)
	start, _, _ := t.DataRange()
	for start < size {
		end := t.LineEndAfter(start+in.ChunkBytes, size)
		c := &UnitsChunk{Start: start, End: end, done: make(chan struct{})}
		select {
		case order <- c:
		case <-cancel:
			return
		}
		todo <- c
		start = end
	}
}

// readGroupFileParallel is readGroupFile for a big file: byte ranges
// cut at line ends are parsed by in.jobs workers and their rows handed on
// in file order, with row and line numbers made absolute, so the sinks
// get exactly what readGroupFile would give them. At the first range
// with a quote or an error, the rest of the file is read in order from
// that range's start, as readGroupFile reads it: a quoted field may hold
// a line end (so ranges after a quote cannot be cut safely), and an
// error is then reported at its line.
func (in *Inputs) readGroupFileParallel(sg *startedGroup, r *groupReader, size int64) {
	defer sg.wg.Done()
	defer close(r.batches)
	defer func() {
		if p := recover(); p != nil {
			r.err = InternalError(p)
		}
	}()
	t := r.f.T
	if in.OnParallel != nil {
		in.OnParallel(r.f.mf.Path)
	}
	workers := min(in.Jobs, 8)
	newBatch := BatchPool(make(chan *UnitsBatchOf, 16), RangeBatch)
	cancel := make(chan struct{})
	todo := make(chan *UnitsChunk, workers)
	order := make(chan *UnitsChunk, workers+2) // bounds the ranges in flight
	raws := make(chan []byte, 2*workers+2)     // range buffers the consumer is done with
	var wg sync.WaitGroup
	go in.cutRanges(t, size, todo, order, cancel)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in.rangeWorker(r.f, todo, raws, newBatch, cancel)
		}()
	}
	stopAll := func() {
		close(cancel)
		for c := range order {
			<-c.done
		}
		wg.Wait()
	}
	var rowOff int64
	lineOff := t.LinesRead() // the header's lines
	send := func(b *UnitsBatchOf) bool {
		select {
		case r.batches <- b:
			return true
		case <-r.stop:
			return false
		}
	}
	for c := range order {
		<-c.done
		if c.Err != nil {
			stopAll()
			in.readRestInOrder(r, c.Start, size, rowOff, lineOff, newBatch, send)
			return
		}
		// The file is hashed from the bytes its ranges were parsed from,
		// in file order: one read of the file for both.
		t.HashRange(c.Start, c.Raw)
		select {
		case raws <- c.Raw:
		default:
		}
		c.Raw = nil
		for _, b := range c.Batches {
			for k := range b.Rows {
				b.Rows[k].Row += rowOff
				b.Rows[k].Line += int64(lineOff)
			}
			if !send(b) {
				stopAll()
				in.CloseCounted(r.f.mf.Path, t)
				return
			}
		}
		rowOff += c.rows
		lineOff += c.lines
	}
	wg.Wait()
	t.SetRows(rowOff)
	t.HashRangesDone()
	in.CloseCounted(r.f.mf.Path, t)
}

// rangeWorker parses the ranges of todo, reading each into a buffer the
// consumer is done with (raws) when there is one.
func (in *Inputs) rangeWorker(f *unitsFile, todo <-chan *UnitsChunk, raws <-chan []byte, newBatch func() *UnitsBatchOf, cancel chan struct{}) {
	for c := range todo {
		var buf []byte
		select {
		case buf = <-raws:
		default:
		}
		in.ParseChunk(f, c, buf, newBatch, cancel)
		close(c.done)
	}
}

// ParseChunk reads a byte range whole (into buf, grown as needed; it
// becomes c.raw) and parses it into batches.
func (in *Inputs) ParseChunk(f *unitsFile, c *UnitsChunk, buf []byte, newBatch func() *UnitsBatchOf, cancel chan struct{}) {
	c.Raw, c.Err = f.T.ReadRange(c.Start, c.End, buf)
	if c.Err != nil {
		return // read again in order, which reports the error
	}
	sec := *f
	sec.T = f.T.SectionBytes(c.Raw, 1, true)
	o := newUnitsOut(newBatch(), RangeBatch, func(b *UnitsBatchOf) (*UnitsBatchOf, error) {
		c.Batches = append(c.Batches, b)
		select {
		case <-cancel:
			return nil, errPassDone
		default:
		}
		return newBatch(), nil
	})
	c.Err = in.readUnitsRows(&sec, o)
	if c.Err == nil && len(o.b.Rows) > 0 {
		c.Batches = append(c.Batches, o.b)
	}
	c.rows, c.lines = sec.T.Rows(), sec.T.LinesRead()
}

// readRestInOrder reads a file from byte start to its end as
// readGroupFile does, numbering rows and lines on from the ranges before.
func (in *Inputs) readRestInOrder(r *groupReader, start, size, rowOff int64, lineOff int, newBatch func() *UnitsBatchOf, send func(*UnitsBatchOf) bool) {
	sec := *r.f
	sec.T = r.f.T.Section(start, size, lineOff+1, false, nil)
	o := newUnitsOut(newBatch(), RangeBatch, func(b *UnitsBatchOf) (*UnitsBatchOf, error) {
		if !send(b) {
			return nil, errPassDone
		}
		return newBatch(), nil
	})
	o.rowOff = rowOff
	err := in.readUnitsRows(&sec, o)
	if err == nil && len(o.b.Rows) > 0 {
		send(o.b)
	}
	r.f.T.SetRows(rowOff + sec.T.Rows())
	in.CloseCounted(r.f.mf.Path, r.f.T)
	r.err = err
}

// NewPassSink wraps a sink for the units pass.
func NewPassSink(s UnitsSink) *PassSink {
	p := &PassSink{s: s, metric: s.Metric(), In: make(chan passMsg, 4), Done: make(chan struct{})}
	// Only the sink itself, not a type that embeds it (and may mean its
	// own Add to see every row: tests that watch a sink do).
	if m, ok := s.(interface{ RoundSink() RoundTaker }); ok && any(m.RoundSink()) == any(s) {
		p.rows = m.RoundSink()
	}
	return p
}
