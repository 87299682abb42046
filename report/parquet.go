package report

// Parquet is the second table format of SPEC §3: leaderboards and big
// per-unit files are often written by pandas/pyarrow, and converting them
// to CSV loses the types and multiplies the size. ParquetReader gives a
// Parquet file the method set of *TableReader (Header, Col, Require, Next,
// Float, Errorf, Rows, Line, Close), so every loader that streams a CSV
// streams a Parquet file unchanged: rows come out as strings for names,
// while Float reads numeric columns from their typed values without a
// round trip through text. It streams one page per column at a time, so
// memory stays bounded by the page size, not by the number of rows.
//
// Only flat columns can be read: a column inside a list (repeated) has no
// single value per row, so it is listed as unreadable and asking for it
// is an error naming the column.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// ParquetReader streams the rows of a Parquet file. Create it with
// OpenParquet; it is not safe for concurrent use.
type ParquetReader struct {
	File   string // as shown in errors
	Header []string
	cols   map[string]int
	// unreadable maps the lower-case name of a column that cannot be
	// read as a flat table column to the reason.
	unreadable map[string]string

	closer io.Closer
	pf     *parquet.File
	leaves []pqLeaf
	group  int // index of the next row group to open
	left   int64
	rec    []string
	vals   []parquet.Value
	rows   int64
}

// pqLeaf is one readable leaf column and where its pages are.
type pqLeaf struct {
	name  string
	index int // leaf index in the file's schema
	conv  pqConv
	scale int32 // decimals
	utc   bool  // timestamps
	unit  int64 // nanoseconds per stored unit for timestamps and times
	typ   string

	pages parquet.Pages
	buf   []parquet.Value
	pos   int
	page  parquet.ValueReader
}

// pqConv says how a column's values become text and numbers.
type pqConv uint8

const (
	pqBool pqConv = iota
	pqInt
	pqUint
	pqFloat
	pqString
	pqDecimal
	pqDate
	pqTimestamp
	pqTime
	pqInt96
	pqUUID
	pqBytes
)

// ParquetError is a problem at a row and column of a Parquet file.
type ParquetError struct {
	File   string
	Row    int64  // 1-based data row; 0 when the problem is not in a row
	Column string // "" when the problem is not in one column
	Msg    string
}

func (e *ParquetError) Error() string {
	switch {
	case e.Row > 0 && e.Column != "":
		return fmt.Sprintf("%s: row %d, column %q: %s", e.File, e.Row, e.Column, e.Msg)
	case e.Column != "":
		return fmt.Sprintf("%s: column %q: %s", e.File, e.Column, e.Msg)
	case e.Row > 0:
		return fmt.Sprintf("%s: row %d: %s", e.File, e.Row, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// IsParquet reports whether a path names a Parquet file by its extension
// (`.parquet`, also with a codec suffix such as `.parquet.snappy` as the
// EvalRS data uses: the codec is inside the file, not around it; a
// `.parquet.gz` is a gzip file, which this reader does not unwrap).
func IsParquet(path string) bool {
	name := strings.ToLower(path)
	for _, ext := range []string{".parquet", ".parquet.snappy", ".parquet.zstd", ".parquet.gzip", ".parquet.lz4", ".parquet.brotli"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// OpenParquet opens a Parquet file for streaming. display is the name used
// in errors; mapping maps expected column names onto the file's own, as
// for OpenTable.
func OpenParquet(path, display string, mapping map[string]string) (*ParquetReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	p, err := newParquetReader(f, st.Size(), display, mapping)
	if err != nil {
		f.Close()
		return nil, err
	}
	p.closer = f
	return p, nil
}

// newParquetReader reads the footer of r and prepares the columns.
func newParquetReader(r io.ReaderAt, size int64, display string, mapping map[string]string) (p *ParquetReader, err error) {
	defer func() {
		// The library decodes untrusted bytes; a file it cannot cope with
		// must be an error, not a crash of the build.
		if v := recover(); v != nil {
			p, err = nil, &ParquetError{File: display, Msg: fmt.Sprintf("not a readable Parquet file: %v", v)}
		}
	}()
	// The footer's length is the 4 bytes before the closing magic; the
	// library allocates that much (up to 4 GiB) before it checks it, so a
	// few random bytes named .parquet could exhaust memory.
	if size >= 12 {
		var tail [8]byte
		if _, err := r.ReadAt(tail[:], size-8); err == nil {
			if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
				return nil, &ParquetError{File: display, Msg: fmt.Sprintf("not a readable Parquet file: its footer length (%d bytes) is more than the file holds", n)}
			}
		}
	}
	pf, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, &ParquetError{File: display, Msg: "not a readable Parquet file: " + err.Error()}
	}
	p = &ParquetReader{File: display, pf: pf, cols: map[string]int{}, unreadable: map[string]string{}}
	var walk func(c *parquet.Column, prefix string, repeated bool) error
	walk = func(c *parquet.Column, prefix string, repeated bool) error {
		for _, ch := range c.Columns() {
			name := ch.Name()
			if prefix != "" {
				name = prefix + "." + name
			}
			rep := repeated || ch.Repeated()
			if !ch.Leaf() {
				if err := walk(ch, name, rep); err != nil {
					return err
				}
				continue
			}
			if rep {
				// Register the field and every path down to the leaf
				// (tags, tags.list, tags.list.element), so asking for
				// any of them says why it cannot be read.
				for k, part := range strings.Split(name, ".") {
					if k == 0 {
						name = part
					} else {
						name += "." + part
					}
					p.unreadable[strings.ToLower(name)] = "is a repeated (list) column, which has no single value per row"
				}
				continue
			}
			leaf, err := parquetLeaf(ch, name)
			if err != nil {
				p.unreadable[strings.ToLower(name)] = err.Error()
				continue
			}
			p.leaves = append(p.leaves, leaf)
		}
		return nil
	}
	if err := walk(pf.Root(), "", false); err != nil {
		return nil, err
	}
	if len(p.leaves) == 0 {
		return nil, &ParquetError{File: display, Msg: "no readable column"}
	}
	for i, l := range p.leaves {
		p.Header = append(p.Header, l.name)
		key := strings.ToLower(strings.TrimSpace(l.name))
		if _, dup := p.cols[key]; !dup {
			p.cols[key] = i
		}
	}
	for want, have := range mapping {
		if i, ok := p.cols[strings.ToLower(have)]; ok {
			p.cols[strings.ToLower(want)] = i
		} else {
			return nil, &ParquetError{File: display, Column: have, Msg: fmt.Sprintf("no such column (mapped from %q)%s", want, suggestColumn(have, p.Header))}
		}
	}
	p.rec = make([]string, len(p.leaves))
	p.vals = make([]parquet.Value, len(p.leaves))
	return p, nil
}

// parquetLeaf works out how to convert a leaf column's values.
func parquetLeaf(c *parquet.Column, name string) (pqLeaf, error) {
	t := c.Type()
	l := pqLeaf{name: name, index: c.Index(), typ: t.String()}
	lt := t.LogicalType()
	var lv format.LogicalTypeValue
	if lt != nil {
		lv = lt.Value
	}
	var ct deprecated.ConvertedType = -1
	if p := t.ConvertedType(); p != nil {
		ct = *p
	}
	switch t.Kind() {
	case parquet.Boolean:
		l.conv = pqBool
	case parquet.Int32, parquet.Int64:
		l.conv = pqInt
		switch v := lv.(type) {
		case *format.IntType:
			if !v.IsSigned {
				l.conv = pqUint
			}
		case *format.DecimalType:
			l.conv, l.scale = pqDecimal, v.Scale
		case *format.DateType:
			l.conv = pqDate
		case *format.TimestampType:
			l.conv, l.utc, l.unit = pqTimestamp, v.IsAdjustedToUTC, parquetUnit(&v.Unit)
		case *format.TimeType:
			l.conv, l.utc, l.unit = pqTime, v.IsAdjustedToUTC, parquetUnit(&v.Unit)
		case nil:
			switch ct {
			case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
				l.conv = pqUint
			case deprecated.Date:
				l.conv = pqDate
			case deprecated.TimestampMillis:
				l.conv, l.utc, l.unit = pqTimestamp, true, 1e6
			case deprecated.TimestampMicros:
				l.conv, l.utc, l.unit = pqTimestamp, true, 1e3
			case deprecated.TimeMillis:
				l.conv, l.utc, l.unit = pqTime, true, 1e6
			case deprecated.TimeMicros:
				l.conv, l.utc, l.unit = pqTime, true, 1e3
			case deprecated.Decimal:
				return l, errors.New("is a decimal without a logical type (scale unknown)")
			}
		}
	case parquet.Int96:
		l.conv = pqInt96
	case parquet.Float, parquet.Double:
		l.conv = pqFloat
	case parquet.ByteArray:
		l.conv = pqString
		if v, ok := lv.(*format.DecimalType); ok {
			l.conv, l.scale = pqDecimal, v.Scale
		}
	case parquet.FixedLenByteArray:
		l.conv = pqBytes
		switch v := lv.(type) {
		case *format.UUIDType:
			l.conv = pqUUID
		case *format.DecimalType:
			l.conv, l.scale = pqDecimal, v.Scale
		case *format.StringType:
			l.conv = pqString
		}
	default:
		return l, fmt.Errorf("has unsupported type %s", t)
	}
	if l.conv == pqTimestamp || l.conv == pqTime {
		if l.unit == 0 {
			return l, fmt.Errorf("has unsupported time unit in %s", t)
		}
	}
	return l, nil
}

func parquetUnit(u *format.TimeUnit) int64 {
	switch u.Value.(type) {
	case *format.MilliSeconds:
		return 1e6
	case *format.MicroSeconds:
		return 1e3
	case *format.NanoSeconds:
		return 1
	}
	return 0
}

// Close releases the file.
func (p *ParquetReader) Close() error {
	for i := range p.leaves {
		if p.leaves[i].pages != nil {
			p.leaves[i].pages.Close()
			p.leaves[i].pages = nil
		}
	}
	if p.closer != nil {
		return p.closer.Close()
	}
	return nil
}

// Col returns the index of a column, or -1 when the file has none.
func (p *ParquetReader) Col(name string) int {
	if i, ok := p.cols[strings.ToLower(name)]; ok {
		return i
	}
	return -1
}

// Require returns the index of a column or an error naming the file and
// the column.
func (p *ParquetReader) Require(name string) (int, error) {
	if i := p.Col(name); i >= 0 {
		return i, nil
	}
	if why, ok := p.unreadable[strings.ToLower(name)]; ok {
		return -1, &ParquetError{File: p.File, Column: name, Msg: why}
	}
	return -1, &ParquetError{File: p.File, Column: name, Msg: fmt.Sprintf("no such column (columns: %s)%s", strings.Join(p.Header, ","), suggestColumn(name, p.Header))}
}

// Rows returns the number of rows read so far.
func (p *ParquetReader) Rows() int64 { return p.rows }

// Line returns the 1-based number of the current row (Parquet has no
// lines; errors say "row").
func (p *ParquetReader) Line() int { return int(p.rows) }

// Next returns the next row as text (numbers in Go's shortest 'g' form,
// which parses back to the same float64; timestamps in RFC 3339; nulls
// empty), or io.EOF. The slice is reused.
func (p *ParquetReader) Next() (rec []string, err error) {
	defer func() {
		if v := recover(); v != nil {
			rec, err = nil, &ParquetError{File: p.File, Row: p.rows + 1, Msg: fmt.Sprintf("corrupt data: %v", v)}
		}
	}()
	for p.left == 0 {
		if err := p.openGroup(); err != nil {
			return nil, err
		}
	}
	for i := range p.leaves {
		v, err := p.leaves[i].next()
		if err != nil {
			p.left = 0
			if err == io.EOF {
				return nil, &ParquetError{File: p.File, Row: p.rows + 1, Column: p.leaves[i].name, Msg: "corrupt column chunk: fewer values than rows"}
			}
			return nil, &ParquetError{File: p.File, Row: p.rows + 1, Column: p.leaves[i].name, Msg: "corrupt page: " + err.Error()}
		}
		p.vals[i] = v
		p.rec[i] = p.leaves[i].text(v)
	}
	p.left--
	p.rows++
	return p.rec, nil
}

// openGroup moves to the next row group; io.EOF after the last.
func (p *ParquetReader) openGroup() error {
	groups := p.pf.RowGroups()
	if p.group >= len(groups) {
		return io.EOF
	}
	g := groups[p.group]
	p.group++
	chunks := g.ColumnChunks()
	for i := range p.leaves {
		l := &p.leaves[i]
		if l.pages != nil {
			l.pages.Close()
		}
		if l.index >= len(chunks) {
			return &ParquetError{File: p.File, Column: l.name, Msg: fmt.Sprintf("row group %d has no chunk for the column", p.group)}
		}
		l.pages = chunks[l.index].Pages()
		l.page, l.pos = nil, 0
		l.buf = l.buf[:0]
	}
	p.left = g.NumRows()
	if p.left < 0 {
		return &ParquetError{File: p.File, Msg: fmt.Sprintf("row group %d has a negative row count", p.group)}
	}
	return nil
}

// next returns the column's next value, reading pages as needed.
func (l *pqLeaf) next() (parquet.Value, error) {
	for l.pos >= len(l.buf) {
		if l.page == nil {
			pg, err := l.pages.ReadPage()
			if err != nil {
				return parquet.Value{}, err
			}
			l.page = pg.Values()
		}
		if cap(l.buf) == 0 {
			l.buf = make([]parquet.Value, 1024)
		}
		n, err := l.page.ReadValues(l.buf[:cap(l.buf)])
		l.buf, l.pos = l.buf[:n], 0
		switch {
		case err == io.EOF || (err == nil && n == 0):
			// An empty read without an error would loop forever on a
			// damaged page: move on to the next page instead.
			l.page = nil
		case err != nil:
			return parquet.Value{}, err
		}
	}
	v := l.buf[l.pos]
	l.pos++
	return v, nil
}

// text formats a value of the column.
func (l *pqLeaf) text(v parquet.Value) string {
	if v.IsNull() {
		return ""
	}
	switch l.conv {
	case pqBool:
		return strconv.FormatBool(v.Boolean())
	case pqInt:
		if v.Kind() == parquet.Int32 {
			return strconv.FormatInt(int64(v.Int32()), 10)
		}
		return strconv.FormatInt(v.Int64(), 10)
	case pqUint:
		if v.Kind() == parquet.Int32 {
			return strconv.FormatUint(uint64(v.Uint32()), 10)
		}
		return strconv.FormatUint(v.Uint64(), 10)
	case pqFloat:
		if v.Kind() == parquet.Float {
			return strconv.FormatFloat(float64(v.Float()), 'g', -1, 32)
		}
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	case pqString:
		return string(v.ByteArray())
	case pqDecimal:
		return l.decimal(v).FloatString(int(max(l.scale, 0)))
	case pqDate:
		return time.Unix(int64(v.Int32())*86400, 0).UTC().Format(time.DateOnly)
	case pqTimestamp:
		t := l.instant(v.Int64())
		if l.utc {
			return t.Format(time.RFC3339Nano)
		}
		return t.Format("2006-01-02T15:04:05.999999999")
	case pqTime:
		n := v.Int64()
		if v.Kind() == parquet.Int32 {
			n = int64(v.Int32())
		}
		return l.instant(n).Format("15:04:05.999999999")
	case pqInt96:
		// Impala's layout: nanoseconds of the day, then the Julian day.
		i := v.Int96()
		nanos := int64(uint64(i[1])<<32 | uint64(i[0]))
		days := int64(i[2]) - 2440588 // Julian day of 1970-01-01
		return time.Unix(days*86400, 0).Add(time.Duration(nanos)).UTC().Format("2006-01-02T15:04:05.999999999")
	case pqUUID:
		b := v.ByteArray()
		if len(b) == 16 {
			return uuid.UUID(b).String()
		}
		return fmt.Sprintf("%x", b)
	}
	return fmt.Sprintf("%x", v.ByteArray())
}

// instant converts a count of the column's time unit since the epoch,
// without overflowing for far dates.
func (l *pqLeaf) instant(n int64) time.Time {
	per := int64(1e9) / l.unit // units per second
	sec, rem := n/per, n%per
	if rem < 0 {
		sec, rem = sec-1, rem+per
	}
	return time.Unix(sec, rem*l.unit).UTC()
}

// decimal returns a decimal value as a rational.
func (l *pqLeaf) decimal(v parquet.Value) *big.Rat {
	n := new(big.Int)
	switch v.Kind() {
	case parquet.Int32:
		n.SetInt64(int64(v.Int32()))
	case parquet.Int64:
		n.SetInt64(v.Int64())
	default: // big-endian two's complement
		b := v.ByteArray()
		n.SetBytes(b)
		if len(b) > 0 && b[0]&0x80 != 0 {
			n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
		}
	}
	r := new(big.Rat).SetInt(n)
	if l.scale != 0 {
		d := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs32(l.scale))), nil)
		if l.scale > 0 {
			r.Quo(r, new(big.Rat).SetInt(d))
		} else {
			r.Mul(r, new(big.Rat).SetInt(d))
		}
	}
	return r
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// Float returns field col of the current row as a number. A null is
// ok = false; integer, float and decimal columns convert directly; a text
// column is parsed like a CSV cell; any other type (boolean, date,
// timestamp, bytes) is an error naming file, row and column.
func (p *ParquetReader) Float(col int) (v float64, ok bool, err error) {
	x := p.vals[col]
	if x.IsNull() {
		return 0, false, nil
	}
	l := &p.leaves[col]
	switch l.conv {
	case pqInt:
		if x.Kind() == parquet.Int32 {
			return float64(x.Int32()), true, nil
		}
		return float64(x.Int64()), true, nil
	case pqUint:
		if x.Kind() == parquet.Int32 {
			return float64(x.Uint32()), true, nil
		}
		return float64(x.Uint64()), true, nil
	case pqFloat:
		if x.Kind() == parquet.Float {
			return float64(x.Float()), true, nil
		}
		return x.Double(), true, nil
	case pqDecimal:
		f, _ := l.decimal(x).Float64()
		return f, true, nil
	case pqString:
		s := p.rec[col]
		if s == "" {
			return 0, false, nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return 0, false, p.Errorf(col, "not a number: %q", s)
		}
		return f, true, nil
	}
	return 0, false, p.Errorf(col, "wrong type: want a number, the column holds %s", l.typ)
}

// Errorf returns an error at field col of the current row.
func (p *ParquetReader) Errorf(col int, format string, args ...any) error {
	name := ""
	if col >= 0 && col < len(p.leaves) {
		name = p.leaves[col].name
	}
	return &ParquetError{File: p.File, Row: p.rows, Column: name, Msg: fmt.Sprintf(format, args...)}
}
