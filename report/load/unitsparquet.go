package load

// The units pass reads a Parquet units file by columns: each batch of
// rows is decoded column by column (parquet.Reader.NextColumns) and
// its values go into the batch of the sinks straight from the typed
// columns, without a record of strings per row in between.
//
// A name column is resolved by dictionary index: the first row that
// shows an index is read through the record path (which checks the
// name, interns it and reports its error at its row), and every later
// row with that index under the same dictionary takes the name that row
// got, comparing an integer, not a string. A name in a page without a
// dictionary is compared with the last one met. A value is taken from
// the column's numbers when it is a finite number (or, in a text column,
// a plain decimal); a unit id when it is plain printable ASCII (as the
// CSV fast path takes it). Any other row — a name not met yet, a null, a
// number Float would refuse, a unit id to trim or check — is read
// through the record path, the same code readUnitsRows runs, at its row:
// so the sinks get the same values and the same errors, at the same
// rows, whichever way a row was read (TestUnitsParquetSameRows,
// FuzzUnitsParquet).

import (
	"io"
	"strings"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/input/parquet"
)

// pqResolved is a name met in a column: what the record path made of it.
type pqResolved struct {
	name string
	id   int32
	ok   bool
}

// pqNameCol resolves the cells of one name column of a batch.
type pqNameCol struct {
	col int             // -1: the file's constant name
	pq  *parquet.Reader // the batch's cells
	ix  []int32         // the batch's dictionary indexes (nil: none)
	gen uint64          // the dictionary res is for
	res []pqResolved
	// the constant (col < 0), or the last name met outside a dictionary
	// (raw: its cell)
	raw  string
	last pqResolved
}

// batch takes the column's cells and dictionary indexes of a batch.
func (c *pqNameCol) batch(pq *parquet.Reader) {
	if c.col < 0 {
		return
	}
	c.pq = pq
	var gen uint64
	c.ix, gen = pq.DictIndexes(c.col)
	if c.ix != nil && gen != c.gen {
		c.gen = gen
		clear(c.res)
		c.res = c.res[:0]
	}
}

// get returns the name of row k of the batch, when a row before it with
// the same cell has been read.
func (c *pqNameCol) get(k int) (string, int32, bool) {
	if c.col < 0 {
		return c.last.name, c.last.id, c.last.ok
	}
	if c.ix != nil {
		if ix := c.ix[k]; ix >= 0 {
			if int(ix) < len(c.res) {
				r := &c.res[ix]
				return r.name, r.id, r.ok
			}
			return "", -1, false
		}
	}
	if c.last.ok && c.pq.Cell(c.col, k) == c.raw {
		return c.last.name, c.last.id, true
	}
	return "", -1, false
}

// learn records the name the record path made of row k's cell.
func (c *pqNameCol) learn(k int, name string, id int32) {
	r := pqResolved{name, id, true}
	if c.col >= 0 && c.ix != nil {
		if ix := c.ix[k]; ix >= 0 {
			if int(ix) >= len(c.res) {
				c.res = append(c.res, make([]pqResolved, int(ix)+1-len(c.res))...)
			}
			c.res[ix] = r
			return
		}
	}
	if c.col >= 0 {
		c.raw = strings.Clone(c.pq.Cell(c.col, k)) // the cell keeps its page's text alive
	}
	c.last = r
}

// readUnitsParquet reads a Parquet units file into o by columns (see
// the top of the file) and closes it; handled is false, and nothing is
// read, when the file is not one it reads (not Parquet, missing markers,
// columns without a name, a column read both as a name and as values,
// the fast paths off): readUnitsRows reads it.
func (in *Inputs) readUnitsParquet(f *unitsFile, o *unitsOut) (handled bool, err error) {
	t := f.T
	pq := t.ParquetColumns()
	if pq == nil || in.UnitsFastOff || len(f.unnamed) > 0 {
		return false, nil
	}
	vcols := f.wide
	if f.long {
		vcols = []int{f.valueCol}
	}
	for _, c := range vcols {
		if c == f.dcol || c == f.mcol || c == f.ucol || c == f.metricCol {
			return false, nil // a column read both as a name and as values
		}
	}
	defer in.CloseCounted(f.mf.Path, t)
	f.readOnlyUsed()
	pq.ValueColumns(vcols...)
	names := unitsNames{
		datasets: nameCache{what: "dataset name", col: f.dcol},
		methods:  nameCache{what: "method name", col: f.mcol},
		metrics:  nameCache{what: "metric name", col: f.metricCol},
	}
	b := &pqBatch{f: f, o: o, pq: pq, vcols: vcols, file: t.File,
		dataset: &pqNameCol{col: f.dcol}, method: &pqNameCol{col: f.mcol}, metric: &pqNameCol{col: f.metricCol},
		nums: make([][]float64, len(vcols)), nuls: make([][]bool, len(vcols)), texts: make([]bool, len(vcols)), vals: make([]float64, len(vcols))}
	if !f.long {
		b.metric = nil
	}
	for {
		n, err := b.next()
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return true, err
		}
		for k := 0; k < n; k++ {
			if k, err = b.run(k, n); err == nil && k < n {
				err = in.parquetRecord(f, &names, k, b.base+int64(k), o, b.dataset, b.method, b.metric)
			}
			if err != nil {
				return true, err
			}
		}
	}
}

// pqBatch is a Parquet units file read a batch of rows at a time: its
// value columns as numbers (or text), its names resolved once per
// distinct cell.
type pqBatch struct {
	f                       *unitsFile
	o                       *unitsOut
	pq                      *parquet.Reader
	vcols                   []int
	file                    string
	dataset, method, metric *pqNameCol // metric: nil for a wide file
	base                    int64      // the batch's first row
	asciiUnits              bool       // every unit id of the batch is printable ASCII
	nums                    [][]float64
	nuls                    [][]bool
	texts                   []bool // a value column given as text
	vals                    []float64
	units                   []string // the batch's unit ids when asciiUnits, else nil
}

// next reads the next batch: its number of rows, or io.EOF.
func (b *pqBatch) next() (int, error) {
	n, err := b.pq.NextColumns()
	if err != nil {
		return 0, err
	}
	b.base = b.pq.Batch()
	b.dataset.batch(b.pq)
	b.method.batch(b.pq)
	if b.metric != nil {
		b.metric.batch(b.pq)
	}
	// a unit id of a batch of plain printable ASCII is plain unless
	// empty or with a space at an end
	b.asciiUnits = b.f.ucol >= 0 && b.pq.PlainASCII(b.f.ucol)
	b.units = nil
	if b.asciiUnits {
		b.units = b.pq.Texts(b.f.ucol)
	}
	for i, c := range b.vcols {
		var ok bool
		b.nums[i], b.nuls[i], ok = b.pq.Numbers(c)
		b.texts[i] = !ok
	}
	return n, nil
}

// run puts rows k, k+1, … of the batch's n up to the first one left to
// the record path, and returns its number (n: none).
func (b *pqBatch) run(k, n int) (int, error) {
	if b.metric != nil && len(b.vcols) == 1 && !b.texts[0] && b.units != nil && b.dataset.ix != nil && b.method.ix != nil && b.metric.ix != nil {
		return b.runLong(k, n)
	}
	for ; k < n; k++ {
		if done, err := b.put(k); err != nil || !done {
			return k, err
		}
	}
	return n, nil
}

// runLong is run for a long file's rows with names from dictionaries,
// values from numbers and unit ids from plain ASCII: put, by columns.
func (b *pqBatch) runLong(k, n int) (int, error) {
	dix, mix, xix := b.dataset.ix[:n], b.method.ix[:n], b.metric.ix[:n]
	dres, mres, xres := b.dataset.res, b.method.res, b.metric.res
	num, nul, units := b.nums[0][:n], b.nuls[0][:n], b.units[:n]
	for ; k < n; k++ {
		di, mi, xi := uint32(dix[k]), uint32(mix[k]), uint32(xix[k]) // (-1: no index)
		if di >= uint32(len(dres)) || mi >= uint32(len(mres)) || xi >= uint32(len(xres)) {
			return k, nil
		}
		d, m, x := &dres[di], &mres[mi], &xres[xi]
		v, unit := num[k], units[k]
		if !d.ok || !m.ok || !x.ok || nul[k] || v-v != 0 || len(unit) == 0 || unit[0] == ' ' || unit[len(unit)-1] == ' ' {
			return k, nil
		}
		row := b.base + int64(k)
		if err := b.o.put(namesKey(d.id, m.id, x.id), d.name, m.name, x.name, b.file, unit, row, row+1, v); err != nil {
			return k, err
		}
	}
	return n, nil
}

// put gives row k of the batch to the sinks when its names are known
// and its unit id and values plain; done is false when the row is left
// to the record path (parquetRecord).
func (b *pqBatch) put(k int) (done bool, err error) {
	row, line := b.base+int64(k), b.base+int64(k)+1
	d, did, ok1 := b.dataset.get(k)
	m, mid, ok2 := b.method.get(k)
	if !ok1 || !ok2 {
		return false, nil
	}
	unit, ok := b.unit(k)
	if !ok || !b.values(k) {
		return false, nil
	}
	if b.metric != nil {
		x, xid, ok := b.metric.get(k)
		if !ok {
			return false, nil
		}
		return true, b.o.put(namesKey(did, mid, xid), d, m, x, b.file, unit, row, line, b.vals[0])
	}
	if err := b.o.room(len(b.vcols)); err != nil {
		return true, err
	}
	for i := range b.vcols {
		if err := b.o.put(namesKey(did, mid, int32(i)), d, m, b.f.wideNames[i], b.file, unit, row, line, b.vals[i]); err != nil {
			return true, err
		}
	}
	return true, nil
}

// unit is row k's unit id ("" without a unit column), ok when plain.
func (b *pqBatch) unit(k int) (string, bool) {
	if b.f.ucol < 0 {
		return "", true
	}
	unit := b.pq.Cell(b.f.ucol, k)
	if b.asciiUnits {
		n := len(unit)
		return unit, n > 0 && unit[0] != ' ' && unit[n-1] != ' '
	}
	return unit, plainUnit(unit)
}

// values reads row k's values into b.vals; false when one is missing,
// not finite or not a plain decimal.
func (b *pqBatch) values(k int) bool {
	for i, c := range b.vcols {
		v, ok := 0.0, false
		if !b.texts[i] {
			v = b.nums[i][k]
			ok = !b.nuls[i][k] && v-v == 0
		} else {
			v, ok = input.PlainDecimal(b.pq.Cell(c, k))
		}
		if !ok {
			return false
		}
		b.vals[i] = v
	}
	return true
}

// parquetRecord reads row k of the batch (numbered row, from 0) as
// readUnitsRows reads a record, and records the names it met.
func (in *Inputs) parquetRecord(f *unitsFile, names *unitsNames, k int, row int64, o *unitsOut, dataset, method, metric *pqNameCol) error {
	t := f.T
	rec := t.SeekRow(k)
	key, err := in.unitsRowKey(f, names, rec)
	if err != nil {
		return err
	}
	dataset.learn(k, key.dataset, key.did)
	method.learn(k, key.method, key.mid)
	line := int64(t.Line())
	file := t.File
	if f.long {
		metricName, xid, err := names.metrics.name(t, rec[f.metricCol])
		if err != nil {
			return err
		}
		if metricName == "" {
			return t.Errorf(f.metricCol, "empty metric name")
		}
		metric.learn(k, metricName, xid)
		if v, ok, err := f.value(f.valueCol); err != nil {
			return err
		} else if ok {
			return o.put(namesKey(key.did, key.mid, xid), key.dataset, key.method, metricName, file, key.unit, row, line, v)
		}
		return nil
	}
	if err := o.room(len(f.wide)); err != nil {
		return err
	}
	for i, c := range f.wide {
		if v, ok, err := f.value(c); err != nil {
			return err
		} else if ok {
			if err := o.put(namesKey(key.did, key.mid, int32(i)), key.dataset, key.method, f.wideNames[i], file, key.unit, row, line, v); err != nil {
				return err
			}
		}
	}
	return nil
}
