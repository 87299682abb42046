package load

// The units pass reads a Parquet units file by columns: each batch of
// rows is decoded column by column (input.ParquetReader.NextColumns) and
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
)

// pqResolved is a name met in a column: what the record path made of it.
type pqResolved struct {
	name string
	id   int32
	ok   bool
}

// pqNameCol resolves the cells of one name column of a batch.
type pqNameCol struct {
	col int                  // -1: the file's constant name
	pq  *input.ParquetReader // the batch's cells
	ix  []int32              // the batch's dictionary indexes (nil: none)
	gen uint64               // the dictionary res is for
	res []pqResolved
	// the constant (col < 0), or the last name met outside a dictionary
	// (raw: its cell)
	raw  string
	last pqResolved
}

// batch takes the column's cells and dictionary indexes of a batch.
func (c *pqNameCol) batch(pq *input.ParquetReader) {
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
	file := t.File
	names := unitsNames{
		datasets: nameCache{what: "dataset name", col: f.dcol},
		methods:  nameCache{what: "method name", col: f.mcol},
		metrics:  nameCache{what: "metric name", col: f.metricCol},
	}
	dataset, method, metric := &pqNameCol{col: f.dcol}, &pqNameCol{col: f.mcol}, &pqNameCol{col: f.metricCol}
	if !f.long {
		metric = nil
	}
	nums := make([][]float64, len(vcols))
	nuls := make([][]bool, len(vcols))
	texts := make([]bool, len(vcols))
	vals := make([]float64, len(vcols))
	for {
		n, err := pq.NextColumns()
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return true, err
		}
		base := pq.Batch()
		dataset.batch(pq)
		method.batch(pq)
		if metric != nil {
			metric.batch(pq)
		}
		// a unit id of a batch of plain printable ASCII is plain unless
		// empty or with a space at an end
		asciiUnits := f.ucol >= 0 && pq.PlainASCII(f.ucol)
		for i, c := range vcols {
			var ok bool
			nums[i], nuls[i], ok = pq.Numbers(c)
			texts[i] = !ok
		}
	rows:
		for k := 0; k < n; k++ {
			row, line := base+int64(k), base+int64(k)+1
			d, did, ok1 := dataset.get(k)
			m, mid, ok2 := method.get(k)
			if !ok1 || !ok2 {
				goto record
			}
			{
				unit := ""
				if f.ucol >= 0 {
					unit = pq.Cell(f.ucol, k)
					if asciiUnits {
						if n := len(unit); n == 0 || unit[0] == ' ' || unit[n-1] == ' ' {
							goto record
						}
					} else if !plainUnit(unit) {
						goto record
					}
				}
				for i, c := range vcols {
					v, ok := 0.0, false
					if !texts[i] {
						v = nums[i][k]
						ok = !nuls[i][k] && v-v == 0
					} else {
						v, ok = input.PlainDecimal(pq.Cell(c, k))
					}
					if !ok {
						goto record
					}
					vals[i] = v
				}
				if metric != nil {
					x, xid, ok := metric.get(k)
					if !ok {
						goto record
					}
					if err := o.put(namesKey(did, mid, xid), d, m, x, file, unit, row, line, vals[0]); err != nil {
						return true, err
					}
					continue rows
				}
				for i := range vcols {
					if err := o.put(namesKey(did, mid, int32(i)), d, m, f.wideNames[i], file, unit, row, line, vals[i]); err != nil {
						return true, err
					}
				}
				continue rows
			}
		record:
			if err := in.parquetRecord(f, &names, k, row, o, dataset, method, metric); err != nil {
				return true, err
			}
		}
	}
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
