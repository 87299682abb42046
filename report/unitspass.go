package report

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
	"github.com/evalbook/evalbook/report/manifest"
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

// unitsBatch is the number of rows a reader hands over at once.
const unitsBatch = 512

// rangeBatch is the number of rows of a batch of a file read in byte
// ranges (readGroupFileParallel). Its values need not meet another file's
// within a batch, so a batch can be bigger: a batch goes through a few
// channels and goroutines on its way to every sink, and at 512 rows
// those hand-offs (58,000 batches for a 1 GB file) took more CPU than
// splitting the rows. The rows in flight are bounded by the ranges in
// flight, not by the batches.
const rangeBatch = 8192

// errPassDone stops reading a file no sink needs any more.
var errPassDone = errors.New("no reader left")

// unitsBatchOf is a batch of rows on its way to the sinks: it goes back
// to its reader's free list when the last sink is done with it.
//
// Its rows hold no pointers (names are indices into names, unit ids
// offsets into ids), so filling a batch is a plain copy, without write
// barriers, and the garbage collector never scans one.
type unitsBatchOf struct {
	rows  []batchRow
	names []rowNames
	// ids holds the bytes of the rows' unit ids; reused with the batch,
	// once every sink is done.
	ids  []byte
	refs atomic.Int32
	home chan *unitsBatchOf // the reader's free list; nil: drop it
}

// batchRow is a UnitRow inside a batch.
type batchRow struct {
	unit, unitLen uint32 // the unit id: ids[unit : unit+unitLen]
	names         uint32 // index into the batch's names
	row, line     int64
	value         float64
}

// rowNames are the strings of a row other than its unit id; rows in a
// row repeat them (a wide file alternates its few metrics).
type rowNames struct{ dataset, method, metric, file string }

// namesBack is how many of a batch's latest names add compares a row's
// with before it appends new ones.
const namesBack = 4

func newUnitsBatch() *unitsBatchOf { return newBatchOf(unitsBatch) }

func newBatchOf(rows int) *unitsBatchOf {
	return &unitsBatchOf{rows: make([]batchRow, 0, rows)}
}

func (b *unitsBatchOf) release() {
	if b.refs.Add(-1) == 0 && b.home != nil {
		select {
		case b.home <- b:
		default:
		}
	}
}

// add appends a copy of u.
func (b *unitsBatchOf) add(u *UnitRow) {
	ni := b.nameIndex(rowNames{u.Dataset, u.Method, u.Metric, u.File})
	b.rows = append(b.rows, batchRow{unit: uint32(len(b.ids)), unitLen: uint32(len(u.Unit)), names: uint32(ni), row: u.Row, line: u.Line, value: u.Value})
	b.ids = append(b.ids, u.Unit...)
}

// nameIndex returns the index of names in b.names, appending them unless
// one of the latest namesBack is equal.
func (b *unitsBatchOf) nameIndex(names rowNames) int {
	for k := len(b.names) - 1; k >= max(0, len(b.names)-namesBack); k-- {
		if n := &b.names[k]; sameString(n.metric, names.metric) && sameString(n.method, names.method) && sameString(n.dataset, names.dataset) && sameString(n.file, names.file) {
			return k
		}
	}
	b.names = append(b.names, names)
	return len(b.names) - 1
}

// sameString is a == b, deciding without a call when both are the same
// string (the interned names rows repeat) or differ in length.
func sameString(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	return len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b) || a == b
}

// row fills u with row k; u's unit id aliases the batch.
func (b *unitsBatchOf) row(k int, u *UnitRow) {
	r := &b.rows[k]
	n := &b.names[r.names]
	u.Dataset, u.Method, u.Metric, u.File = n.dataset, n.method, n.metric, n.file
	u.Unit = ""
	if r.unitLen > 0 {
		u.Unit = unsafe.String(&b.ids[r.unit], int(r.unitLen))
	}
	u.Row, u.Line, u.Value = r.row, r.line, r.value
}

// reset empties a batch for reuse: no sink holds its rows any more.
func (b *unitsBatchOf) reset() {
	clear(b.names) // drop the strings, so the batch keeps no file's names alive
	b.rows, b.names, b.ids = b.rows[:0], b.names[:0], b.ids[:0]
}

// passMsg is what a sink's goroutine gets, in order: a round of batches
// (one from each file of a group the sink needs, which it takes row by
// row in turn: the values of a unit in files that list units in the same
// order meet at once), an error (of a file it needed), or a dataset and
// method seen in a file it did not need.
type passMsg struct {
	round []*unitsBatchOf
	err   error
	seen  [2]string
}

// passSink is one sink of the pass and its goroutine.
type passSink struct {
	s       UnitsSink
	err     error // the sink's first error; its goroutine's until done
	failed  bool  // the dispatcher sent it an error (dispatcher only)
	stopped atomic.Bool
	in      chan passMsg
	done    chan struct{}
	row     UnitRow // the row handed to the sink, refilled for each
	metric  string  // the sink's Metric()
	want    []bool  // scratch of wanted
	// rows, when the sink takes rows from the batches itself (metaSink),
	// is handed each round whole; wants is its scratch (per batch of the
	// round, which of the batch's names are of the sink's metric).
	rows  roundTaker
	wants [][]bool
}

// roundTaker is a sink that takes the rows of a round of batches itself,
// in the pass's order (see takeRound), instead of through Add: it may
// then look up what it keeps for a batch's names once per batch rather
// than once per row.
type roundTaker interface {
	// takeRound takes the rows of a round: row k of each batch in turn
	// (k = 0, 1, …), skipping the rows whose names are not wanted
	// (wants[i][names], batch i), exactly the rows and order Add would
	// be handed. An error stops the sink.
	takeRound(round []*unitsBatchOf, wants [][]bool) error
}

// A sink that takes whole rounds says so with a method roundSink that
// returns itself; a type embedding it gets the embedded sink back, not
// itself, so its own Add still sees every row.

func (p *passSink) run() {
	defer close(p.done)
	for m := range p.in {
		if p.err == nil {
			p.take(m)
		}
		for _, b := range m.round {
			b.release()
		}
	}
}

// take handles one message; a panic of the sink is its error.
func (p *passSink) take(m passMsg) {
	defer func() {
		if r := recover(); r != nil {
			p.err = internalError(r)
			p.stopped.Store(true)
		}
	}()
	switch {
	case m.err != nil:
		p.err = m.err
	case len(m.round) > 0 && p.rows != nil:
		p.wants = p.wants[:0]
		for _, b := range m.round {
			p.wants = append(p.wants, append(nextScratch(p.wants), p.wanted(b)...))
		}
		if err := p.rows.takeRound(m.round, p.wants); err != nil {
			p.err = err
			p.stopped.Store(true)
		}
	case len(m.round) == 1:
		b := m.round[0]
		wanted := p.wanted(b)
		for k := range b.rows {
			if !wanted[b.rows[k].names] {
				continue
			}
			b.row(k, &p.row)
			if err := p.s.Add(&p.row); err != nil {
				p.err = err
				p.stopped.Store(true)
				return
			}
		}
	case len(m.round) > 1:
		longest := 0
		wanted := make([][]bool, len(m.round))
		for i, b := range m.round {
			longest = max(longest, len(b.rows))
			wanted[i] = slices.Clone(p.wanted(b))
		}
		for k := 0; k < longest; k++ {
			for i, b := range m.round {
				if k >= len(b.rows) || !wanted[i][b.rows[k].names] {
					continue
				}
				b.row(k, &p.row)
				if err := p.s.Add(&p.row); err != nil {
					p.err = err
					p.stopped.Store(true)
					return
				}
			}
		}
	default:
		p.s.Seen(m.seen[0], m.seen[1])
	}
}

// nextScratch returns, emptied, the slice that a slice of scratch
// slices (refilled from empty, round after round) held next in a
// round before, to be appended to s with its room reused; nil at first.
func nextScratch[T any](s [][]T) []T {
	if len(s) < cap(s) {
		return s[:len(s)+1][len(s)][:0]
	}
	return nil
}

// wanted says, for each of a batch's names, whether its rows are of the
// sink's metric, and tells the sink the other metrics it meets. The
// slice is reused by the next call.
func (p *passSink) wanted(b *unitsBatchOf) []bool {
	p.want = p.want[:0]
	for i := range b.names {
		n := &b.names[i]
		ok := n.metric == p.metric
		if !ok {
			p.s.OtherMetric(n.dataset, n.method, n.metric)
		}
		p.want = append(p.want, ok)
	}
	return p.want
}

// live reports whether the dispatcher should still send the sink work.
func (p *passSink) live() bool { return !p.failed && !p.stopped.Load() }

// fail sends the sink an error; its first error wins.
func (p *passSink) fail(err error) {
	if p.live() {
		p.failed = true
		p.in <- passMsg{err: err}
	}
}

// unitsPass feeds every sink in one pass over the units inputs and the
// units derived by feeding analyses, and returns each sink's error.
//
// Cancelling ctx stops the pass between rounds; every sink still
// without an error then gets ctx's.
func (in *inputs) unitsPass(ctx context.Context, sinks []UnitsSink) []error {
	ps := make([]*passSink, len(sinks))
	for i, s := range sinks {
		ps[i] = newPassSink(s)
		go ps[i].run()
	}
	check := in.dispatch(ctx, ps)
	errs := make([]error, len(ps))
	for i, p := range ps {
		close(p.in)
		<-p.done
		errs[i] = check.withFirst(p.err, p.metric)
	}
	in.dropFreeBatches()
	return errs
}

// dropFreeBatches empties the build's free list of batches once a pass
// is over, so that what comes after the pass (figures, pages) reuses
// their memory instead of the build keeping it to its end.
func (in *inputs) dropFreeBatches() {
	free := in.batchFreeList()
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
func (in *inputs) dispatch(ctx context.Context, ps []*passSink) *repeatCheck {
	hasDerived := false
	for _, d := range in.derived {
		hasDerived = hasDerived || d.units != nil
	}
	in.mergeDerived()
	if len(in.study.Inputs.Units) == 0 && !hasDerived {
		failAll(ps, fmt.Errorf("%s: the study has no [inputs] units", filepath.Base(in.study.File)))
		return nil
	}
	groups, err := in.unitsGroups()
	if err != nil {
		failAll(ps, err)
		return nil
	}
	if groups == nil {
		// Any other layout: file after file, each its own group.
		for _, e := range in.study.Inputs.Units {
			files, err := in.expand(e, "units")
			if err != nil {
				failAll(ps, err)
				return nil
			}
			for _, mf := range files {
				groups = append(groups, &unitsGroup{files: []unitsJob{{e, mf}}})
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
		} else if r := <-next; r.p != nil {
			panic(r.p) // feedUnits turns it into every sink's error
		} else {
			cur = r.sg
		}
		next = nil
		if err := ctx.Err(); err != nil {
			failAll(ps, err) // the started group still runs, to its end, for nobody
		} else if live := alive(ps); i+1 < len(groups) && len(live) > 0 {
			next = in.startGroupAsync(groups[i+1], live)
		}
		cur.ctx = ctx
		if !in.repeatOff {
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
func (in *inputs) passDerived(ps []*passSink) {
	for _, d := range in.derived {
		if d.units == nil {
			continue
		}
		live := alive(ps)
		if len(live) == 0 {
			return
		}
		send := func(b *unitsBatchOf, to []*passSink) {
			b.refs.Store(int32(len(to)))
			for _, p := range to {
				p.in <- passMsg{round: []*unitsBatchOf{b}}
			}
		}
		b := newUnitsBatch()
		err := d.units(func(u *UnitRow) error {
			b.add(u)
			if len(b.rows) == unitsBatch {
				if live = alive(live); len(live) == 0 {
					return errPassDone
				}
				send(b, live)
				b = newUnitsBatch()
			}
			return nil
		})
		if err != nil && !errors.Is(err, errPassDone) {
			err = fmt.Errorf("units derived by %s: %w", d.id, err)
		} else {
			err = nil
		}
		if live = alive(live); len(b.rows) > 0 && len(live) > 0 {
			send(b, live)
		}
		for _, p := range live {
			if err != nil {
				p.fail(err)
			}
		}
	}
}

func failAll(ps []*passSink, err error) {
	for _, p := range ps {
		p.fail(err)
	}
}

// alive returns the sinks the dispatcher still sends work to.
func alive(ps []*passSink) []*passSink {
	var out []*passSink
	for _, p := range ps {
		if p.live() {
			out = append(out, p)
		}
	}
	return out
}

// receives reports whether p is one of receivers.
func receives(receivers []*passSink, p *passSink) bool {
	for _, q := range receivers {
		if q == p {
			return true
		}
	}
	return false
}

// unitsGroup is units files read side by side: the files of one dataset,
// or one file.
type unitsGroup struct {
	files []unitsJob
}

type unitsJob struct {
	e  manifest.InputEntry
	mf input.Match
}

// unitsGroups groups the units files by dataset, in order of first
// appearance, when every file gets its dataset and method from its path
// or its entry; nil otherwise.
func (in *inputs) unitsGroups() ([]*unitsGroup, error) {
	var groups []*unitsGroup
	byDataset := map[string]*unitsGroup{}
	for _, e := range in.study.Inputs.Units {
		files, err := in.expand(e, "units")
		if err != nil {
			return nil, err
		}
		for _, mf := range files {
			if mf.Method == "" || mf.Dataset == "" {
				return nil, nil
			}
			g := byDataset[mf.Dataset]
			if g == nil {
				g = &unitsGroup{}
				byDataset[mf.Dataset] = g
				groups = append(groups, g)
			}
			g.files = append(g.files, unitsJob{e, mf})
		}
	}
	return groups, nil
}

// groupReader is one file of a started group: its reader goroutine's
// batches and the sinks that get them.
type groupReader struct {
	f         *unitsFile
	receivers []*passSink
	batches   chan *unitsBatchOf
	free      chan *unitsBatchOf
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
	p *passSink
	m passMsg
}

// passGroup reads the files of a group side by side and sends their rows
// to the sinks that need them, a batch of each file in turn.
func (in *inputs) passGroup(g *unitsGroup, ps []*passSink) {
	in.startGroup(g, alive(ps)).run(ps)
}

// startedOrPanic is what startGroupAsync gives: the started group, or
// the value startGroup panicked with.
type startedOrPanic struct {
	sg *startedGroup
	p  any
}

// startGroupAsync runs startGroup on a goroutine of its own.
func (in *inputs) startGroupAsync(g *unitsGroup, live []*passSink) chan startedOrPanic {
	ch := make(chan startedOrPanic, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- startedOrPanic{p: p}
			}
		}()
		ch <- startedOrPanic{sg: in.startGroup(g, live)}
	}()
	return ch
}

// startGroup opens the files of a group, reads their headers and starts
// a reader per file that some of the sinks live needs (the sinks alive
// when it was called: it reads no sink's state, and may run while
// another group is consumed).
func (in *inputs) startGroup(g *unitsGroup, live0 []*passSink) *startedGroup {
	sg := &startedGroup{}
	failed := map[*passSink]bool{} // by a header of this group
	// Headers first, in file order, so errors come in a fixed order.
	for _, j := range g.files {
		var live []*passSink
		for _, p := range live0 {
			if !failed[p] {
				live = append(live, p)
			}
		}
		if len(live) == 0 {
			break
		}
		f, err := in.openUnits(j.e, j.mf)
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
		var receivers []*passSink
		for _, p := range live {
			if !skippable || p.s.Wants(j.mf.Method) {
				receivers = append(receivers, p)
			} else if f.hasMetric(p.s.Metric()) {
				sg.told = append(sg.told, toldMsg{p, passMsg{seen: [2]string{j.mf.Dataset, j.mf.Method}}})
			}
		}
		if len(receivers) == 0 {
			in.closeCounted(j.mf.Path, f.t)
			continue
		}
		sg.readers = append(sg.readers, &groupReader{f: f, receivers: receivers,
			batches: make(chan *unitsBatchOf, 2), free: in.batchFreeList(), stop: make(chan struct{})})
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
func (in *inputs) readGroupFile(sg *startedGroup, r *groupReader) {
	defer sg.wg.Done()
	defer close(r.batches)
	defer func() {
		if p := recover(); p != nil {
			r.err = internalError(p)
		}
	}()
	next := batchPool(r.free, unitsBatch)
	send := func(b *unitsBatchOf) bool {
		select {
		case r.batches <- b:
			return true
		case <-r.stop:
			return false
		}
	}
	o := newUnitsOut(next(), unitsBatch, func(b *unitsBatchOf) (*unitsBatchOf, error) {
		if !send(b) {
			return nil, errPassDone
		}
		return next(), nil
	})
	err := in.readUnitsRows(r.f, o)
	if err == nil && len(o.b.rows) > 0 {
		send(o.b)
	}
	r.err = err // read after the channel is closed
}

// run tells the sinks what the group's headers said, then hands them the
// rows, and waits for the readers.
func (sg *startedGroup) run(ps []*passSink) {
	for _, t := range sg.told {
		if t.m.err != nil {
			t.p.fail(t.m.err)
		} else if t.p.live() {
			t.p.in <- t.m
		}
	}
	readers := sg.readers
	sg.repeat.reading(readers)
	// Rounds: a batch of each open file, in file order; each sink gets the
	// batches of the files it needs, then the errors of files that ended.
	open := len(readers)
	done := make([]bool, len(readers))
	round := make([]*unitsBatchOf, len(readers))
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
func sendRound(ps []*passSink, readers []*groupReader, round []*unitsBatchOf) {
	refs := make([]int32, len(readers))
	msgs := make([][]*unitsBatchOf, len(ps))
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
			p.in <- passMsg{round: msgs[k]}
		}
	}
}

// parallelSize reports whether a units file is parsed in parallel byte
// ranges (an uncompressed CSV or TSV file of at least parallelMin bytes,
// with more than one worker), and its size.
func (in *inputs) parallelSize(f *unitsFile) (int64, bool) {
	if in.jobs < 2 || in.parallelMin <= 0 {
		return 0, false
	}
	start, size, ok := f.t.DataRange()
	if !ok || size-start < in.parallelMin {
		return 0, false
	}
	return size, true
}

// unitsChunk is a byte range of a units file parsed by a worker: its
// rows in batches (Row and Line counted within the range), how many
// records and lines it holds, and an error (input.ErrQuoted: the range holds a
// quote, so it may not start where a record does).
type unitsChunk struct {
	start, end int64
	raw        []byte // the range's bytes, hashed by the consumer in order
	batches    []*unitsBatchOf
	rows       int64
	lines      int
	err        error
	done       chan struct{}
}

// freeBatches is how many batches the build's free list of batches
// (batchFreeList) keeps.
const freeBatches = 64

// batchFreeList returns the build's free list of batches of unitsBatch
// rows: every file of every units pass takes its batches there and they
// go back there, so a pass reuses the same few batches from file to
// file instead of filling fresh memory for each (each page of it a page
// fault, which costs more than filling it).
func (in *inputs) batchFreeList() chan *unitsBatchOf {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.freeBatches == nil {
		in.freeBatches = make(chan *unitsBatchOf, freeBatches)
	}
	return in.freeBatches
}

// batchPool returns a function that takes a batch from free (batches
// the sinks are done with) or makes one that goes back there.
func batchPool(free chan *unitsBatchOf, rows int) func() *unitsBatchOf {
	return func() *unitsBatchOf {
		select {
		case b := <-free:
			b.reset()
			return b
		default:
			b := newBatchOf(rows)
			b.home = free
			return b
		}
	}
}

// cutRanges cuts a file's data into ranges of about in.chunkBytes at line
// ends and hands each to the workers (todo) and, in file order, to the
// consumer (order), until cancel.
func (in *inputs) cutRanges(t *input.TableReader, size int64, todo, order chan<- *unitsChunk, cancel <-chan struct{}) {
	defer close(todo)
	defer close(order)
	start, _, _ := t.DataRange()
	for start < size {
		end := t.LineEndAfter(start+in.chunkBytes, size)
		c := &unitsChunk{start: start, end: end, done: make(chan struct{})}
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
func (in *inputs) readGroupFileParallel(sg *startedGroup, r *groupReader, size int64) {
	defer sg.wg.Done()
	defer close(r.batches)
	defer func() {
		if p := recover(); p != nil {
			r.err = internalError(p)
		}
	}()
	t := r.f.t
	if in.onParallel != nil {
		in.onParallel(r.f.mf.Path)
	}
	workers := min(in.jobs, 8)
	newBatch := batchPool(make(chan *unitsBatchOf, 16), rangeBatch)
	cancel := make(chan struct{})
	todo := make(chan *unitsChunk, workers)
	order := make(chan *unitsChunk, workers+2) // bounds the ranges in flight
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
	send := func(b *unitsBatchOf) bool {
		select {
		case r.batches <- b:
			return true
		case <-r.stop:
			return false
		}
	}
	for c := range order {
		<-c.done
		if c.err != nil {
			stopAll()
			in.readRestInOrder(r, c.start, size, rowOff, lineOff, newBatch, send)
			return
		}
		// The file is hashed from the bytes its ranges were parsed from,
		// in file order: one read of the file for both.
		t.HashRange(c.start, c.raw)
		select {
		case raws <- c.raw:
		default:
		}
		c.raw = nil
		for _, b := range c.batches {
			for k := range b.rows {
				b.rows[k].row += rowOff
				b.rows[k].line += int64(lineOff)
			}
			if !send(b) {
				stopAll()
				in.closeCounted(r.f.mf.Path, t)
				return
			}
		}
		rowOff += c.rows
		lineOff += c.lines
	}
	wg.Wait()
	t.SetRows(rowOff)
	t.HashRangesDone()
	in.closeCounted(r.f.mf.Path, t)
}

// rangeWorker parses the ranges of todo, reading each into a buffer the
// consumer is done with (raws) when there is one.
func (in *inputs) rangeWorker(f *unitsFile, todo <-chan *unitsChunk, raws <-chan []byte, newBatch func() *unitsBatchOf, cancel chan struct{}) {
	for c := range todo {
		var buf []byte
		select {
		case buf = <-raws:
		default:
		}
		in.parseChunk(f, c, buf, newBatch, cancel)
		close(c.done)
	}
}

// parseChunk reads a byte range whole (into buf, grown as needed; it
// becomes c.raw) and parses it into batches.
func (in *inputs) parseChunk(f *unitsFile, c *unitsChunk, buf []byte, newBatch func() *unitsBatchOf, cancel chan struct{}) {
	c.raw, c.err = f.t.ReadRange(c.start, c.end, buf)
	if c.err != nil {
		return // read again in order, which reports the error
	}
	sec := *f
	sec.t = f.t.SectionBytes(c.raw, 1, true)
	o := newUnitsOut(newBatch(), rangeBatch, func(b *unitsBatchOf) (*unitsBatchOf, error) {
		c.batches = append(c.batches, b)
		select {
		case <-cancel:
			return nil, errPassDone
		default:
		}
		return newBatch(), nil
	})
	c.err = in.readUnitsRows(&sec, o)
	if c.err == nil && len(o.b.rows) > 0 {
		c.batches = append(c.batches, o.b)
	}
	c.rows, c.lines = sec.t.Rows(), sec.t.LinesRead()
}

// readRestInOrder reads a file from byte start to its end as
// readGroupFile does, numbering rows and lines on from the ranges before.
func (in *inputs) readRestInOrder(r *groupReader, start, size, rowOff int64, lineOff int, newBatch func() *unitsBatchOf, send func(*unitsBatchOf) bool) {
	sec := *r.f
	sec.t = r.f.t.Section(start, size, lineOff+1, false, nil)
	o := newUnitsOut(newBatch(), rangeBatch, func(b *unitsBatchOf) (*unitsBatchOf, error) {
		if !send(b) {
			return nil, errPassDone
		}
		return newBatch(), nil
	})
	o.rowOff = rowOff
	err := in.readUnitsRows(&sec, o)
	if err == nil && len(o.b.rows) > 0 {
		send(o.b)
	}
	r.f.t.SetRows(rowOff + sec.t.Rows())
	in.closeCounted(r.f.mf.Path, r.f.t)
	r.err = err
}

func newPassSink(s UnitsSink) *passSink {
	p := &passSink{s: s, metric: s.Metric(), in: make(chan passMsg, 4), done: make(chan struct{})}
	// Only the sink itself, not a type that embeds it (and may mean its
	// own Add to see every row: tests that watch a sink do).
	if m, ok := s.(interface{ roundSink() roundTaker }); ok && any(m.roundSink()) == any(s) {
		p.rows = m.roundSink()
	}
	return p
}
