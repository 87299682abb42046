package meta

// Builder accumulates paired per-unit values in one pass, so that the
// per-unit inputs of a meta-analysis (which may hold hundreds of millions
// of rows) never have to be held in memory: each completed pair updates
// running moments (Welford's updates for the mean and sd of the
// differences, and the co-moment for r), and only values still waiting
// for their partner are kept.
//
// Memory therefore depends on the order of the input, not on its size:
// when a unit's treatment and control values arrive close together (a
// long file sorted by dataset and unit) the waiting set stays tiny; when
// one method's values of a dataset all come before the other's (files
// per (method, dataset), or a long file sorted by method) it holds one
// method's values of that dataset, 8–9 bytes per unit when pairing by row;
// by id, the id and 16 bytes per unit while both methods list the units
// in the same order, a map entry per unit once they do not (and both,
// for the moment the values move). This is about the least a single
// pass over a stream in that order can keep.

import (
	"fmt"
	"math"
	"strings"
)

// Builder pairs values of a treatment and a control method by unit id
// (or by row number when a value has no id) within each dataset. Use
// NewBuilder, call Add for every value of the analysed metric, then
// Finish.
type Builder struct {
	sides
	cells datasetCells[metaCell]
}

// sides names the treatment (side 0) and the control (side 1) of a
// per-unit accumulator, and how it treats an empty value.
type sides struct {
	names [2]string // the treatment's and the control's
	zero  bool      // missing = "zero": an empty value counts as 0
}

// newSides returns the sides of a treatment/control pair; missing is
// "zero" or "drop".
func newSides(treatment, control, missing string) sides {
	return sides{names: [2]string{treatment, control}, zero: missing == "zero"}
}

// side returns a method's side; ok is false for any other method.
func (s *sides) side(method string) (side int, ok bool) {
	switch method {
	case s.names[0]:
		return 0, true
	case s.names[1]:
		return 1, true
	}
	return 0, false
}

// datasetCells keeps a state per dataset, in the order the datasets were
// first seen; values mostly repeat their dataset, so the last one asked
// for is compared before the map is consulted.
type datasetCells[T any] struct {
	byName   map[string]*T
	order    []string
	lastName string
	last     *T
}

// get returns a dataset's state, making it on first use.
func (d *datasetCells[T]) get(dataset string) *T {
	if d.last != nil && dataset == d.lastName {
		return d.last
	}
	c := d.byName[dataset]
	if c == nil {
		if d.byName == nil {
			d.byName = map[string]*T{}
		}
		c = new(T)
		d.byName[dataset] = c
		d.order = append(d.order, dataset)
	}
	d.lastName, d.last = dataset, c
	return c
}

type metaCell struct {
	seen [2]int // values seen per side (0 treatment, 1 control)
	// Running moments over completed pairs.
	n                            int
	shiftT, shiftC, shiftD       float64 // first pair's values (see pair)
	meanT, meanC, m2T, m2C, coTC float64
	meanD, m2D                   float64
	dropped                      int
	// Values waiting for their partner, by unit id: in the order they
	// came (wait), while the other side's values come in that order too,
	// and in byID once the orders part. Files that list units in the same
	// order pair each value with the head of the other side's queue and
	// never hash an id, whether they are read in turn or one after the
	// other.
	wait   [2]idQueue
	byID   [2]map[string]float64
	idPeak [2]int // largest size of byID since it was made
	// Values waiting by row: side s holds rows rowBase[s] … rowBase[s] +
	// len(byRow[s]) - 1 (hasRow marks which).
	rowBase  [2]int64
	byRow    [2][]float64
	hasRow   [2][]bool
	rowsWait [2]int
}

// idQueue is the values of one side waiting for their partner in the
// order they came: their ids end to end in one buffer, the first
// waiting at head. Only the other side takes from its head, and a side
// adds to a queue only while the other's is empty, so a queue drains in
// the order it filled.
type idQueue struct {
	ids  []byte
	ends []int // where each id ends in ids
	vs   []float64
	head int
}

// n returns the number of values waiting.
func (q *idQueue) n() int { return len(q.vs) - q.head }

// id returns the id of the i-th value in the buffer.
func (q *idQueue) id(i int) []byte {
	start := 0
	if i > 0 {
		start = q.ends[i-1]
	}
	return q.ids[start:q.ends[i]]
}

// push adds a value at the tail.
func (q *idQueue) push(unit string, v float64) {
	q.ids = append(q.ids, unit...)
	q.ends = append(q.ends, len(q.ids))
	q.vs = append(q.vs, v)
}

// pop removes the value at the head and returns it. The buffer restarts
// when the queue is empty, and is compacted when most of it is taken,
// so that a queue always fed as it is taken from stays small.
func (q *idQueue) pop() float64 {
	v := q.vs[q.head]
	q.head++
	switch {
	case q.head == len(q.vs):
		q.clear()
	case q.head >= 1024 && q.head*2 >= len(q.vs):
		start := q.ends[q.head-1]
		q.ids = q.ids[:copy(q.ids, q.ids[start:])]
		n := copy(q.vs, q.vs[q.head:])
		for i, e := range q.ends[q.head:] {
			q.ends[i] = e - start
		}
		q.vs, q.ends, q.head = q.vs[:n], q.ends[:n], 0
	}
	return v
}

// clear empties the queue, dropping a buffer that held many values (a
// whole dataset of one method) so that its memory goes: a dataset's
// queue is not needed again once its values are paired, and a study of
// many datasets would keep every one's.
func (q *idQueue) clear() {
	if cap(q.vs) > 1024 || cap(q.ids) > 32<<10 {
		*q = idQueue{}
		return
	}
	q.ids, q.ends, q.vs, q.head = q.ids[:0], q.ends[:0], q.vs[:0], 0
}

// NewBuilder returns a builder for a treatment/control pair; missing
// is "zero" or "drop" (how an empty value, NaN, is treated).
func NewBuilder(treatment, control, missing string) *Builder {
	return &Builder{sides: newSides(treatment, control, missing)}
}

// Add records one value. Values of other methods are ignored. unit is the
// unit id, or "" to pair by row (the 0-based data row of the value's
// file). v is NaN for an empty cell. A row given twice for the same
// method and dataset is an error while the first is still waiting for
// its partner; a unit id given twice is an error when the repeat
// arrives twice in a row, or while the first waits in the map (once the
// two methods' orders part). A repeat among values queued in the order
// they came, or after the pair was completed, cannot be told apart
// without hashing or keeping every id, so ids must be unique per method
// and dataset, which the caller checks (the report's units pass does,
// in bounded memory). unit is not kept after the call unless its
// value waits for a partner (it is then copied).
func (b *Builder) Add(dataset, method, unit string, row int64, v float64) error {
	side, ok := b.side(method)
	if !ok {
		return nil
	}
	c := b.cells.get(dataset)
	c.seen[side]++
	if math.IsNaN(v) && b.zero {
		v = 0
	}
	if unit != "" {
		return c.addID(side, unit, v, dataset, &b.names)
	}
	return c.addRow(side, row, v, dataset, method)
}

// Slot is where the values of one method on one dataset go: Slot.Add
// is Builder.Add without finding the method's side and the dataset's
// state for each value (a caller that hands over many values of a few
// datasets and methods finds them once).
type Slot struct {
	c       *metaCell
	side    int
	zero    bool
	dataset string
	names   *[2]string // the builder's sides' names
}

// Slot returns the slot of a method on a dataset; ok is false for a
// method that is neither the treatment nor the control (Add ignores its
// values). Like Add, it registers the dataset the first time it is
// met, so asking for a slot where Add would have been called first
// keeps the datasets in the same order.
func (b *Builder) Slot(dataset, method string) (s Slot, ok bool) {
	side, ok := b.side(method)
	if !ok {
		return Slot{}, false
	}
	return Slot{c: b.cells.get(dataset), side: side, zero: b.zero, dataset: dataset, names: &b.names}, true
}

// Add records one value, as Builder.Add does for the slot's dataset
// and method.
func (s *Slot) Add(unit string, row int64, v float64) error {
	c := s.c
	c.seen[s.side]++
	if s.zero && math.IsNaN(v) {
		v = 0
	}
	if unit != "" {
		return c.addID(s.side, unit, v, s.dataset, s.names)
	}
	return c.addRow(s.side, row, v, s.dataset, s.names[s.side])
}

// addID pairs a value by unit id.
func (c *metaCell) addID(side int, unit string, v float64, dataset string, methods *[2]string) error {
	other := 1 - side
	if q := &c.wait[other]; q.n() > 0 {
		if string(q.id(q.head)) == unit {
			c.pair(side, v, q.pop())
			return nil
		}
		// The orders part: the other side's waiting values go to its
		// map, where this side's values find them by id.
		c.toMap(other)
	}
	if m := c.byID[other]; len(m) > 0 {
		if w, ok := m[unit]; ok {
			delete(m, unit)
			if len(m) == 0 && c.idPeak[other] > 1024 {
				// A Go map never shrinks: drop one that held many waiting
				// values (a whole dataset of one method) so its memory goes.
				c.byID[other], c.idPeak[other] = nil, 0
			}
			c.pair(side, v, w)
			return nil
		}
	}
	q := &c.wait[side]
	if q.n() > 0 && string(q.id(len(q.vs)-1)) == unit {
		return repeated(unit, methods[side], dataset)
	}
	if m := c.byID[side]; len(m) > 0 {
		if _, ok := m[unit]; ok {
			return repeated(unit, methods[side], dataset)
		}
	}
	q.push(unit, v)
	return nil
}

// toMap moves a side's queue of waiting values to its map. An id
// queued twice is not reported here: the value that arrived now is not
// the repeat, and its place is the one an error would name (the
// caller's check of every id names the repeat's own); the later value
// stands. For a moment the queue and the map both hold the values.
func (c *metaCell) toMap(side int) {
	q := &c.wait[side]
	m := c.byID[side]
	if m == nil {
		m = make(map[string]float64, q.n())
		c.byID[side] = m
	}
	for i := q.head; i < len(q.vs); i++ {
		m[string(q.id(i))] = q.vs[i]
	}
	c.idPeak[side] = max(c.idPeak[side], len(m))
	q.clear()
}

// RepeatError is the error of a unit id given twice for a method and
// dataset while its first value waits for its partner.
type RepeatError struct{ Unit, Method, Dataset string }

// Error says it in the words every reader of per-unit values uses.
func (e *RepeatError) Error() string {
	return fmt.Sprintf("unit %q of method %q on dataset %q appears twice", e.Unit, e.Method, e.Dataset)
}

// repeated is the error of a repeat; the id is copied, since the
// caller's may live in a buffer that is reused once Add returns.
func repeated(unit, method, dataset string) error {
	return &RepeatError{Unit: strings.Clone(unit), Method: method, Dataset: dataset}
}

// addRow pairs a value by row.
func (c *metaCell) addRow(side int, row int64, v float64, dataset, method string) error {
	if row < 0 {
		return fmt.Errorf("dataset %s, method %s: negative row %d", dataset, method, row)
	}
	other := 1 - side
	if i := row - c.rowBase[other]; i >= 0 && i < int64(len(c.hasRow[other])) && c.hasRow[other][i] {
		w := c.byRow[other][i]
		c.hasRow[other][i] = false
		c.rowsWait[other]--
		if c.rowsWait[other] == 0 {
			// Nothing waits: the window restarts after the last row.
			c.rowBase[other] += int64(len(c.byRow[other]))
			if cap(c.byRow[other]) > 1<<16 {
				c.byRow[other], c.hasRow[other] = nil, nil
			} else {
				c.byRow[other], c.hasRow[other] = c.byRow[other][:0], c.hasRow[other][:0]
			}
		}
		c.pair(side, v, w)
		return nil
	}
	if c.rowsWait[side] == 0 {
		c.rowBase[side] = row
		c.byRow[side], c.hasRow[side] = c.byRow[side][:0], c.hasRow[side][:0]
	}
	if row < c.rowBase[side] {
		// A row before the window (rows of one file only increase; this
		// is another file of the same method and dataset): move it down.
		shift := c.rowBase[side] - row
		c.byRow[side] = append(make([]float64, shift, shift+int64(len(c.byRow[side]))), c.byRow[side]...)
		c.hasRow[side] = append(make([]bool, shift, shift+int64(len(c.hasRow[side]))), c.hasRow[side]...)
		c.rowBase[side] = row
	}
	i := row - c.rowBase[side]
	if n := i + 1 - int64(len(c.byRow[side])); n > 0 {
		c.byRow[side] = append(c.byRow[side], make([]float64, n)...)
		c.hasRow[side] = append(c.hasRow[side], make([]bool, n)...)
	}
	if c.hasRow[side][i] {
		return fmt.Errorf("dataset %s, method %s: row %d appears twice", dataset, method, row)
	}
	c.byRow[side][i] = v
	c.hasRow[side][i] = true
	c.rowsWait[side]++
	return nil
}

// Seen registers a dataset on which some method has values of the
// metric, so that a treatment or control missing there is reported.
func (b *Builder) Seen(dataset string) {
	b.cells.get(dataset)
}

// pair adds a completed pair: v is side's value, w the other side's.
func (c *metaCell) pair(side int, v, w float64) {
	t, k := v, w
	if side == 1 {
		t, k = w, v
	}
	if math.IsNaN(t) || math.IsNaN(k) {
		c.dropped++
		return
	}
	d := t - k
	// Moments are taken about the first pair's values: a shifted Welford
	// update keeps full precision when the values sit far from zero
	// relative to their spread (an RMSE near 1 varying by 1e-3).
	if c.n == 0 {
		c.shiftT, c.shiftC, c.shiftD = t, k, d
	}
	t, k, d = t-c.shiftT, k-c.shiftC, d-c.shiftD
	c.n++
	n := float64(c.n)
	dt := t - c.meanT
	dc := k - c.meanC
	c.meanT += dt / n
	c.meanC += dc / n
	c.m2T += dt * (t - c.meanT)
	c.m2C += dc * (k - c.meanC)
	c.coTC += dt * (k - c.meanC)
	dd := d - c.meanD
	c.meanD += dd / n
	c.m2D += dd * (d - c.meanD)
}

// waiting returns the number of values of a side waiting for a partner.
func (c *metaCell) waiting(side int) int {
	return len(c.byID[side]) + c.rowsWait[side] + c.wait[side].n()
}

// Waiting returns the number of values currently waiting for a partner
// (for tests and memory accounting).
func (b *Builder) Waiting() int {
	n := 0
	for _, c := range b.cells.byName {
		for s := 0; s < 2; s++ {
			n += c.waiting(s)
		}
	}
	return n
}

// Finish returns one Study per dataset seen, in the order first seen.
// Values still waiting are counted as unmatched.
func (b *Builder) Finish() []Study {
	out := make([]Study, 0, len(b.cells.order))
	for _, d := range b.cells.order {
		c := b.cells.byName[d]
		s := Study{Dataset: d, N: c.n, MeanDiff: math.NaN(), SDDiff: math.NaN(), R: math.NaN(),
			MeanT: math.NaN(), MeanC: math.NaN(), SDT: math.NaN(), SDC: math.NaN(),
			TreatmentValues: c.seen[0], ControlValues: c.seen[1],
			UnmatchedTreatment: c.waiting(0), UnmatchedControl: c.waiting(1),
			DroppedMissing: c.dropped, FromUnits: true}
		if c.n >= 1 {
			s.MeanDiff = c.shiftD + c.meanD
			s.MeanT, s.MeanC = c.shiftT+c.meanT, c.shiftC+c.meanC
		}
		if c.n >= 2 {
			s.SDDiff = math.Sqrt(c.m2D / float64(c.n-1))
			s.SDT, s.SDC = math.Sqrt(c.m2T/float64(c.n-1)), math.Sqrt(c.m2C/float64(c.n-1))
			if c.m2T > 0 && c.m2C > 0 {
				s.R = c.coTC / math.Sqrt(c.m2T*c.m2C)
				s.R = math.Max(-1, math.Min(1, s.R))
			}
		}
		out = append(out, s)
	}
	return out
}
