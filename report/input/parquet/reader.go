package parquet

// Parquet is the second table format of the inputs: leaderboards and big
// per-unit files are often written by pandas/pyarrow, and converting them
// to CSV loses the types and multiplies the size. Reader gives a
// Parquet file the method set of report/input's *TableReader (Header, Col, Require, Next,
// Float, Errorf, Rows, Line, Close), so every loader that streams a CSV
// streams a Parquet file unchanged.
//
// It reads by columns and pages, not by rows: for each row group it
// decodes a batch of rows of every column at once from the typed page
// data (parquet-go's page API), so a value costs a copy, not a
// parquet.Value and a string; Next then hands out the batch's rows
// without copying them. A dictionary is converted to text once per
// column chunk and every row that uses an entry shares that string; plain
// text, integers formatted as text and numbers are each built into one
// string per batch that the rows slice. Memory stays bounded by a page per
// column and a batch of rows, not by the number of rows.
//
// Numbers are never formatted to text unless a caller can see the text:
// once Float has been called on a numeric column, the column is a value
// column and Next no longer fills its text (an empty string for a null,
// pqNumberText otherwise). A column read as text (a numeric unit, k or
// user id) is never passed to Float, so it keeps exact text.
//
// It is strict about what it returns: a NaN or infinity stored in a float
// column is an error naming file, row and column (in Parquet a missing
// value is a null); text with invalid UTF-8, a NUL or another control
// character, in a cell or a column name, is an error; a corrupt file is
// an error naming the file, never a panic; and the sizes and counts the
// file declares are checked against its size before the library trusts
// them.
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
	"unicode"
	"unicode/utf8"

	"github.com/evalbook/evalbook/analyses"
	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// pqBatch is the number of rows decoded per column at a time.
const pqBatch = 1024

// pqNumberText is the text Next gives a non-null cell of a numeric column
// after Float has been called on that column: the number is read with
// Float, and formatting it would cost more than the rest of the read. It
// is not a number, so a caller that parses it fails loudly instead of
// silently reading a missing value.
const pqNumberText = "(number)"

// Reader streams the rows of a Parquet file. Create it with
// Open; it is not safe for concurrent use.
type Reader struct {
	File   string // as shown in errors
	Header []string
	// nonFinite: Float returns stored NaN and ±Inf (KeepNonFinite).
	nonFinite bool
	cols      map[string]int
	// unreadable maps the lower-case name of a column that cannot be
	// read as a flat table column to the reason.
	unreadable map[string]string

	closer io.Closer
	r      io.ReaderAt
	size   int64
	pf     *parquet.File
	leaves []pqLeaf
	group  int      // index of the next row group to open
	left   int64    // rows of the current row group not yet decoded
	n, k   int      // rows in the batch; index of the current row in it
	err    error    // returned once the batch's rows are used up
	mat    []string // the batch's text, row by row
	rows   int64
	// columnar: the file is read by columns (NextColumns): the batch's
	// rows are not copied into mat; base is the number of the batch's
	// first row, one the record Seek builds.
	columnar bool
	base     int64
	one      []string
}

// pqLeaf is one readable leaf column, its current page and its batch.
type pqLeaf struct {
	name   string
	index  int // leaf index in the file's schema
	conv   pqConv
	scale  int32 // decimals
	utc    bool  // timestamps
	unit   int64 // nanoseconds per stored unit for timestamps and times
	typ    string
	kind   parquet.Kind
	maxDef byte
	// fast columns (integers, floats and text in a byte array) are
	// decoded from the typed page data; the others through
	// parquet.Values.
	fast bool
	// unread: left out by Only; its cells are empty and Float fails.
	unread bool
	// number: a numeric column read as numbers (Float's fast path).
	number bool
	// numText: the column is numeric and still read as text (Float has
	// not been called on it).
	numText bool

	pages parquet.Pages
	page  parquet.Page
	pn    int    // rows in the page
	prow  int    // next row of the page
	vpos  int    // next non-null value of the page
	defs  []byte // definition levels, nil for a required column
	// The page's values, by kind; idx when dictionary-encoded.
	i32   []int32
	i64   []int64
	f32   []float32
	f64   []float64
	bdata []byte
	boffs []uint32
	idx   []int32
	// indexed: the page is dictionary-encoded (idx may be empty).
	indexed bool
	// The dictionary of the column chunk, converted once: dtext is the
	// text of each entry (all of it for text, on demand for numbers),
	// dnum the number, dbad the reason an entry is not acceptable text.
	dict  parquet.Dictionary
	dtext []string
	dnum  []float64
	dbad  map[int32]string
	slow  parquet.ValueReader

	// The batch: text, number and null flag of each row.
	txt  []string
	num  []float64
	nul  []bool
	vals []parquet.Value // slow columns
	buf  []byte          // text of numbers being built
	ends []int32
	// icache holds the text of recent integers of a column read as text
	// (unit and user ids repeat in every group of a long file).
	icache   []pqIntText
	fileRows int64 // rows the file declares
	// bigs are the INT64 values of the batch a float64 cannot hold,
	// whose numbers are NaN (exact.go).
	bigs []pqBig
	// Read by columns (columns.go), a text column keeps the
	// dictionary index of each row of the batch (bix, -1: none) when
	// wantIx; dictGen counts the dictionaries loaded. lazy: the text of
	// a row from the dictionary, and the placeholder of a value column,
	// are not written into txt (Cell gives them). ascii: every text cell
	// of the batch was cut from plain printable ASCII, none from the
	// dictionary. ixDone: the rows of the batch whose bix is written; a
	// batch with no page of a dictionary leaves it 0 and every cell in
	// txt (a page without one writes no -1s unless one with comes after
	// it: fillIx).
	wantIx  bool
	lazy    bool
	ascii   bool
	bix     []int32
	ixDone  int
	dictGen uint64
}

// pqIntText is an integer and its text.
type pqIntText struct {
	v int64
	s string
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

// Error is a problem at a row and column of a Parquet file.
type Error struct {
	File   string
	Row    int64  // 1-based data row; 0 when the problem is not in a row
	Column string // "" when the problem is not in one column
	Msg    string
}

// Error says file, column and row where known, then what is wrong.
func (e *Error) Error() string {
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

// SuggestColumn returns a did-you-mean hint for a column name missing
// from a header (compared without case), or "". Every table reader of
// the inputs (CSV, TSV and Parquet) gives it after a missing column.
func SuggestColumn(name string, header []string) string {
	lower := make([]string, len(header))
	for i, h := range header {
		lower[i] = strings.ToLower(h)
	}
	return analyses.DidYouMean(strings.ToLower(name), lower)
}

// Is reports whether a path names a Parquet file by its extension
// (`.parquet`, also with a codec suffix such as `.parquet.snappy` as the
// EvalRS data uses: the codec is inside the file, not around it; a
// `.parquet.gz` is a gzip file, which this reader does not unwrap).
func Is(path string) bool {
	name := strings.ToLower(path)
	for _, ext := range []string{".parquet", ".parquet.snappy", ".parquet.zstd", ".parquet.gzip", ".parquet.lz4", ".parquet.brotli"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// Open opens a Parquet file for streaming. display is the name used
// in errors; mapping maps expected column names onto the file's own, as
// for OpenTable.
func Open(path, display string, mapping map[string]string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	p, err := newReader(f, st.Size(), display, mapping)
	if err != nil {
		f.Close()
		return nil, err
	}
	p.closer = f
	return p, nil
}

// newReader reads the footer of r and prepares the columns.
func newReader(r io.ReaderAt, size int64, display string, mapping map[string]string) (p *Reader, err error) {
	defer func() {
		// The library decodes untrusted bytes; a file it cannot cope with
		// must be an error, not a crash of the build.
		if v := recover(); v != nil {
			p, err = nil, &Error{File: display, Msg: fmt.Sprintf("not a readable Parquet file: %v", v)}
		}
	}()
	if err := pqCheckFooter(r, size); err != nil {
		return nil, &Error{File: display, Msg: "not a readable Parquet file: " + err.Error()}
	}
	pf, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, &Error{File: display, Msg: "not a readable Parquet file: " + err.Error()}
	}
	if err := pqCheckRowGroups(pf, size); err != nil {
		return nil, &Error{File: display, Msg: "not a readable Parquet file: " + err.Error()}
	}
	p = &Reader{File: display, r: r, size: size, pf: pf, cols: map[string]int{}, unreadable: map[string]string{}}
	if err := p.walk(pf.Root(), "", false); err != nil {
		return nil, err
	}
	if len(p.leaves) == 0 {
		return nil, &Error{File: display, Msg: "no readable column"}
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
			return nil, &Error{File: display, Column: have, Msg: fmt.Sprintf("no such column (mapped from %q)%s", want, SuggestColumn(have, p.Header))}
		}
	}
	for i := range p.leaves {
		p.leaves[i].fileRows = pf.NumRows()
	}
	p.k = -1
	return p, nil
}

// walk registers the leaf columns under c: a readable leaf in p.leaves,
// a repeated one or one of an unsupported type in p.unreadable (with the
// reason, so asking for it says why it cannot be read).
func (p *Reader) walk(c *parquet.Column, prefix string, repeated bool) error {
	for _, ch := range c.Columns() {
		name := ch.Name()
		if why := badText(name); why != "" {
			return &Error{File: p.File, Column: name, Msg: "the column name has " + why}
		}
		if prefix != "" {
			name = prefix + "." + name
		}
		rep := repeated || ch.Repeated()
		switch {
		case !ch.Leaf():
			if err := p.walk(ch, name, rep); err != nil {
				return err
			}
		case rep:
			// Register the field and every path down to the leaf (tags,
			// tags.list, tags.list.element).
			path := ""
			for k, part := range strings.Split(name, ".") {
				if k > 0 {
					path += "."
				}
				path += part
				p.unreadable[strings.ToLower(path)] = "is a repeated (list) column, which has no single value per row"
			}
		default:
			leaf, err := parquetLeaf(ch, name)
			if err != nil {
				p.unreadable[strings.ToLower(name)] = err.Error()
				continue
			}
			p.leaves = append(p.leaves, leaf)
		}
	}
	return nil
}

// parquetLeaf works out how to convert a leaf column's values.
func parquetLeaf(c *parquet.Column, name string) (pqLeaf, error) {
	t := c.Type()
	l := pqLeaf{name: name, index: c.Index(), typ: t.String(), kind: t.Kind(), maxDef: byte(c.MaxDefinitionLevel())}
	var lv format.LogicalTypeValue
	if lt := t.LogicalType(); lt != nil {
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
		if err := l.integerConv(lv, ct); err != nil {
			return l, err
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
	switch {
	case l.conv == pqInt || l.conv == pqUint || l.conv == pqFloat:
		l.fast, l.numText = true, true
	case l.conv == pqString && l.kind == parquet.ByteArray:
		l.fast = true
	}
	if (l.conv == pqTimestamp || l.conv == pqTime) && l.unit == 0 {
		return l, fmt.Errorf("has unsupported time unit in %s", t)
	}
	return l, nil
}

// integerConv sets the conversion of an INT32 or INT64 column from its
// logical type, or from its converted type when it has none.
func (l *pqLeaf) integerConv(lv format.LogicalTypeValue, ct deprecated.ConvertedType) error {
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
		return l.convertedIntConv(ct)
	}
	return nil
}

// convertedIntConv sets an integer column's conversion from its legacy
// converted type.
func (l *pqLeaf) convertedIntConv(ct deprecated.ConvertedType) error {
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
		return errors.New("is a decimal without a logical type (scale unknown)")
	}
	return nil
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
func (p *Reader) Close() error {
	for i := range p.leaves {
		p.leaves[i].closePages()
	}
	if p.closer != nil {
		return p.closer.Close()
	}
	return nil
}

// Col returns the index of a column, or -1 when the file has none.
func (p *Reader) Col(name string) int {
	if i, ok := p.cols[strings.ToLower(name)]; ok {
		return i
	}
	return -1
}

// Require returns the index of a column or an error naming the file and
// the column.
func (p *Reader) Require(name string) (int, error) {
	if i := p.Col(name); i >= 0 {
		return i, nil
	}
	if why, ok := p.unreadable[strings.ToLower(name)]; ok {
		return -1, &Error{File: p.File, Column: name, Msg: why}
	}
	return -1, &Error{File: p.File, Column: name, Msg: fmt.Sprintf("no such column (columns: %s)%s", strings.Join(p.Header, ","), SuggestColumn(name, p.Header))}
}

// Only restricts reading to the given columns (indexes from Col): the
// pages of the others are never read or decoded, their cells are empty
// and Float on them is an error. A loader that knows its columns calls
// it before the first Next; a wide file of which a study uses a few
// columns is then read at the cost of those.
func (p *Reader) Only(cols ...int) {
	for i := range p.leaves {
		p.leaves[i].unread, p.leaves[i].number = true, false
	}
	for _, c := range cols {
		if c >= 0 && c < len(p.leaves) {
			l := &p.leaves[c]
			l.unread = false
			l.number = l.fast && !l.numText && l.conv != pqString
		}
	}
}

// Rows returns the number of rows read so far.
func (p *Reader) Rows() int64 { return p.rows }

// Line returns the 1-based number of the current row (Parquet has no
// lines; errors say "row").
func (p *Reader) Line() int { return int(p.rows) }

// Next returns the next row as text, or io.EOF. Text cells come out as
// they are, integers in decimal, floats in Go's shortest 'g' form (which
// parses back to the same float64), timestamps in RFC 3339, nulls empty;
// a numeric column that Float has been called on gives pqNumberText
// instead (see the top of the file). The slice belongs to the reader and
// changes with later calls; the strings in it are the caller's to keep.
func (p *Reader) Next() ([]string, error) {
	p.k++
	if p.k >= p.n {
		if err := p.refill(); err != nil {
			return nil, err
		}
	}
	nc := len(p.leaves)
	i := p.k * nc
	p.rows++
	return p.mat[i : i+nc : i+nc], nil
}

// refill decodes the next batch of rows of every column. A problem in the
// batch shortens it to the rows before the problem, and the error comes
// when those are used up, with the row it is in.
func (p *Reader) refill() (err error) {
	cur := -1 // the column being decoded
	defer func() {
		if v := recover(); v != nil {
			p.n, p.left = 0, 0
			e := &Error{File: p.File, Row: p.rows + 1, Msg: fmt.Sprintf("corrupt data: %v", v)}
			if cur >= 0 {
				e.Column = p.leaves[cur].name
			}
			p.err, err = e, e
		}
	}()
	p.n, p.k = 0, 0
	if p.err != nil {
		return p.err
	}
	for p.left == 0 {
		if err := p.openGroup(); err != nil {
			if err != io.EOF {
				p.err = err
			}
			return err
		}
	}
	n := int(min(p.left, pqBatch))
	good := n
	var bad error
	for i := range p.leaves {
		cur = i
		got, err := p.leaves[i].fill(n)
		if err != nil && got < good {
			good, bad = got, &Error{File: p.File, Row: p.rows + int64(got) + 1, Column: p.leaves[i].name, Msg: err.Error()}
		}
		if got < good {
			good = got
		}
	}
	cur = -1
	p.left -= int64(n)
	if bad != nil {
		p.err, p.left = bad, 0
	}
	if p.columnar {
		p.n = good
		if good == 0 {
			return p.err
		}
		return nil
	}
	// The rows, row by row, for Next to hand out without copying.
	nc := len(p.leaves)
	if len(p.mat) < good*nc {
		p.mat = make([]string, len(p.leaves[0].txt)*nc)
	}
	for i := range p.leaves {
		for t, s := range p.leaves[i].txt[:good] {
			p.mat[t*nc+i] = s
		}
	}
	p.n = good
	if good == 0 {
		return p.err
	}
	return nil
}

// openGroup moves to the next row group; io.EOF after the last.
func (p *Reader) openGroup() error {
	if p.group > 0 {
		// Every column must have used up its pages with the rows.
		for i := range p.leaves {
			l := &p.leaves[i]
			if l.prow < l.pn {
				return &Error{File: p.File, Row: p.rows, Column: l.name, Msg: "corrupt column chunk: more values than rows"}
			}
		}
	}
	groups := p.pf.RowGroups()
	if p.group >= len(groups) {
		return io.EOF
	}
	g := groups[p.group]
	p.group++
	chunks := g.ColumnChunks()
	rows := g.NumRows()
	if rows < 0 {
		return &Error{File: p.File, Msg: fmt.Sprintf("row group %d has a negative row count", p.group)}
	}
	for i := range p.leaves {
		l := &p.leaves[i]
		l.closePages()
		if l.unread {
			continue
		}
		if l.index >= len(chunks) {
			return &Error{File: p.File, Column: l.name, Msg: fmt.Sprintf("row group %d has no chunk for the column", p.group)}
		}
		if err := pqCheckChunk(p.r, p.size, p.pf.Metadata(), p.group-1, l.index, rows, l.maxDef); err != nil {
			return &Error{File: p.File, Row: p.rows + 1, Column: l.name, Msg: fmt.Sprintf("%v (row group %d)", err, p.group)}
		}
		l.pages = chunks[l.index].Pages()
	}
	p.left = rows
	return nil
}

// closePages lets go of the column chunk being read.
func (l *pqLeaf) closePages() {
	l.dropPage()
	if l.pages != nil {
		l.pages.Close()
		l.pages = nil
	}
	l.dict, l.dtext, l.dnum, l.dbad = nil, nil, nil, nil
}

// dropPage lets go of the current page.
func (l *pqLeaf) dropPage() {
	if l.page != nil && l.fast {
		// Fast columns copied what they need out of the page; the
		// buffers go back to the library's pool. Slow columns keep
		// values that point into the page, so the collector frees it.
		parquet.Release(l.page)
	}
	l.page, l.slow = nil, nil
	l.pn, l.prow, l.vpos = 0, 0, 0
	l.defs, l.i32, l.i64, l.f32, l.f64, l.bdata, l.boffs, l.idx = nil, nil, nil, nil, nil, nil, nil, nil
	l.indexed = false
}

// nextPage reads the column's next page; io.ErrUnexpectedEOF when the
// chunk has no more.
func (l *pqLeaf) nextPage() error {
	l.dropPage()
	pg, err := l.pages.ReadPage()
	if err == io.EOF {
		return errors.New("corrupt column chunk: fewer values than rows")
	}
	if err != nil {
		return errors.New("corrupt page: " + err.Error())
	}
	l.page = pg
	l.pn = int(pg.NumRows())
	if len(pg.RepetitionLevels()) > 0 {
		return errors.New("corrupt page: repetition levels in a flat column")
	}
	nonNull := l.pn
	if l.maxDef > 0 {
		l.defs = pg.DefinitionLevels()
		if len(l.defs) != l.pn {
			return fmt.Errorf("corrupt page: %d definition levels for %d rows", len(l.defs), l.pn)
		}
		for _, d := range l.defs {
			if d != l.maxDef {
				nonNull--
			}
		}
	}
	if !l.fast {
		l.slow = pg.Values()
		return nil
	}
	data := pg.Data()
	have := 0
	if d := pg.Dictionary(); d != nil {
		if data.Kind() != encoding.Int32 {
			return errors.New("corrupt page: dictionary indexes are not INT32")
		}
		if d != l.dict {
			if err := l.loadDict(d); err != nil {
				return err
			}
		}
		l.idx, l.indexed = data.Int32(), true
		have = len(l.idx)
	} else {
		if data.Kind() != pqEncodingKind(l.kind) {
			return fmt.Errorf("corrupt page: %s values in a %s column", data.Kind(), l.typ)
		}
		switch l.kind {
		case parquet.Int32:
			l.i32 = data.Int32()
			have = len(l.i32)
		case parquet.Int64:
			l.i64 = data.Int64()
			have = len(l.i64)
		case parquet.Float:
			l.f32 = data.Float()
			have = len(l.f32)
		case parquet.Double:
			l.f64 = data.Double()
			have = len(l.f64)
		case parquet.ByteArray:
			l.bdata, l.boffs = data.ByteArray()
			// A page of nulls may have no offsets at all.
			if len(l.boffs) > 0 || nonNull > 0 {
				have = len(l.boffs) - 1
				if err := pqCheckOffsets(l.bdata, l.boffs); err != nil {
					return err
				}
			}
		}
	}
	if have < nonNull {
		return fmt.Errorf("corrupt page: %d values for %d non-null rows", max(have, 0), nonNull)
	}
	return nil
}

// pqEncodingKind is the kind of the typed page data of a column.
func pqEncodingKind(k parquet.Kind) encoding.Kind {
	switch k {
	case parquet.Int32:
		return encoding.Int32
	case parquet.Int64:
		return encoding.Int64
	case parquet.Float:
		return encoding.Float
	case parquet.Double:
		return encoding.Double
	case parquet.ByteArray:
		return encoding.ByteArray
	}
	return encoding.Undefined
}

// pqCheckOffsets checks that byte-array offsets slice their data.
func pqCheckOffsets(data []byte, offs []uint32) error {
	if len(offs) == 0 {
		return errors.New("corrupt page: no byte-array offsets")
	}
	prev := offs[0]
	for _, o := range offs[1:] {
		if o < prev {
			return errors.New("corrupt page: byte-array offsets go backwards")
		}
		prev = o
	}
	if int64(prev) > int64(len(data)) {
		return errors.New("corrupt page: byte-array offsets past the data")
	}
	return nil
}

// loadDict converts a column chunk's dictionary once.
func (l *pqLeaf) loadDict(d parquet.Dictionary) error {
	n := d.Len()
	data := d.Page().Data()
	l.dict, l.dbad = d, nil
	l.dictGen++
	l.dtext = make([]string, n)
	switch l.kind {
	case parquet.ByteArray:
		b, offs := data.ByteArray()
		if len(offs) < n+1 {
			return errors.New("corrupt dictionary: fewer offsets than entries")
		}
		if err := pqCheckOffsets(b, offs[:n+1]); err != nil {
			return err
		}
		s := string(b[offs[0]:offs[n]])
		for i := range n {
			t := s[offs[i]-offs[0] : offs[i+1]-offs[0]]
			l.dtext[i] = t
			if why := badText(t); why != "" {
				if l.dbad == nil {
					l.dbad = map[int32]string{}
				}
				l.dbad[int32(i)] = why
			}
		}
		return nil
	case parquet.Int32:
		if data.Kind() != encoding.Int32 || len(data.Int32()) < n {
			return errors.New("corrupt dictionary")
		}
		l.dnum = make([]float64, n)
		for i, v := range data.Int32()[:n] {
			if l.conv == pqUint {
				l.dnum[i] = float64(uint32(v))
			} else {
				l.dnum[i] = float64(v)
			}
		}
	case parquet.Int64:
		if data.Kind() != encoding.Int64 || len(data.Int64()) < n {
			return errors.New("corrupt dictionary")
		}
		l.dnum = make([]float64, n)
		for i, v := range data.Int64()[:n] {
			l.dnum[i] = int64Number(v, l.conv == pqUint)
		}
	case parquet.Float:
		if data.Kind() != encoding.Float || len(data.Float()) < n {
			return errors.New("corrupt dictionary")
		}
		l.dnum = make([]float64, n)
		for i, v := range data.Float()[:n] {
			l.dnum[i] = float32Number(v)
		}
	case parquet.Double:
		if data.Kind() != encoding.Double || len(data.Double()) < n {
			return errors.New("corrupt dictionary")
		}
		l.dnum = append([]float64(nil), data.Double()[:n]...)
	}
	// Numbers are formatted on demand, once per entry.
	return nil
}

// fill decodes the next n rows of the column into the batch and returns
// how many it decoded: fewer, with the error, when a row is bad.
func (l *pqLeaf) fill(n int) (int, error) {
	if len(l.txt) < n {
		// As long as the largest batch so far: a small file gets small
		// buffers.
		size := min(max(n, 2*len(l.txt)), pqBatch)
		l.txt = make([]string, size)
		l.num = make([]float64, size)
		l.nul = make([]bool, size)
		if !l.fast {
			l.vals = make([]parquet.Value, size)
		}
	}
	if l.wantIx && len(l.bix) < len(l.txt) {
		l.bix = make([]int32, len(l.txt))
	}
	if l.unread {
		clear(l.txt[:n])
		return n, nil
	}
	l.bigs = l.bigs[:0]
	l.ascii = l.conv == pqString && l.fast
	l.ixDone = 0
	j := 0
	for j < n {
		if l.prow >= l.pn {
			if err := l.nextPage(); err != nil {
				l.fillIx(j, false)
				return j, err
			}
			continue
		}
		c := min(n-j, l.pn-l.prow)
		var got int
		var err error
		if l.fast {
			got, err = l.decode(j, c)
		} else {
			got, err = l.decodeSlow(j, c)
		}
		j += got
		if err != nil {
			l.fillIx(j, false)
			return j, err
		}
	}
	l.fillIx(j, false)
	return j, nil
}

// fillIx marks the rows of the batch before row j whose bix is not
// written (rows of pages without a dictionary) as -1, unless no row of
// the batch has a dictionary index (any: mark them anyway, a page with
// one comes next).
func (l *pqLeaf) fillIx(j int, any bool) {
	if !any && l.ixDone == 0 {
		return
	}
	for t := l.ixDone; t < j; t++ {
		l.bix[t] = -1
	}
	l.ixDone = max(l.ixDone, j)
}

// decodeSlow reads c rows of a column of another type as parquet.Values.
func (l *pqLeaf) decodeSlow(j, c int) (int, error) {
	vals := l.vals[j : j+c]
	got := 0
	for got < c {
		m, err := l.slow.ReadValues(vals[got:])
		got += m
		if err == io.EOF || (err == nil && m == 0) {
			break
		}
		if err != nil {
			return 0, errors.New("corrupt page: " + err.Error())
		}
	}
	if got < c {
		// Fewer values than the page said it has rows: the next page
		// goes on.
		l.pn = l.prow + got
	}
	for t, v := range vals[:got] {
		s := l.text(v)
		if l.conv == pqString {
			if why := badText(s); why != "" {
				l.prow += t
				return t, textError(why)
			}
		}
		l.txt[j+t], l.nul[j+t] = s, v.IsNull()
	}
	l.prow += got
	return got, nil
}

// textError is the error for a text cell that is not acceptable text.
func textError(why string) error {
	return fmt.Errorf("the text has %s", why)
}

// decode decodes c rows of a fast column from the typed page data into
// the batch at j. On a bad row it returns the rows before it and the
// error.
func (l *pqLeaf) decode(j, c int) (int, error) {
	txt, num, nul := l.txt[j:j+c], l.num[j:j+c], l.nul[j:j+c]
	nv := c // non-null values in the rows
	if l.defs != nil {
		nv = 0
		for t, d := range l.defs[l.prow : l.prow+c] {
			null := d != l.maxDef
			nul[t] = null
			if !null {
				nv++
			}
		}
	} else {
		clear(nul)
	}
	v0 := l.vpos
	var err error
	n := c
	var bix []int32
	if l.wantIx && l.indexed {
		// the rows before, of pages without a dictionary, get -1 now;
		// the page's rows get their indexes (the rows after: fill)
		l.fillIx(j, true)
		bix = l.bix[j : j+c]
		l.ixDone = j + c
	}
	if l.indexed {
		l.ascii = false
	}
	switch {
	case l.indexed && l.conv == pqString && bix != nil && l.lazy && nv == c && l.dbad == nil:
		n, err = l.dictIndexes(bix)
	case l.indexed && l.conv == pqString:
		n, err = l.dictText(txt, nul, bix)
	case l.indexed:
		n, err = l.dictNumbers(j, txt, num, nul, v0)
	case l.conv == pqString && nv == 0:
		clear(txt)
	case l.conv == pqString:
		n, err = l.plainText(txt, nul, v0, nv)
	default:
		l.plainNumbers(j, num, nul)
	}
	if err != nil {
		l.prow += n
		return n, err
	}
	if l.conv != pqString && (l.numText || !l.lazy) {
		l.numberText(txt, nul, v0)
	}
	l.prow += c
	return c, nil
}

// dictText decodes dictionary indices into text cells, and into bix
// unless it is nil (-1 for a null); on an error, n is the cells decoded
// before it.
func (l *pqLeaf) dictText(txt []string, nul []bool, bix []int32) (n int, err error) {
	for t := range txt {
		if nul[t] {
			txt[t] = ""
			if bix != nil {
				bix[t] = -1
			}
			continue
		}
		ix := l.idx[l.vpos]
		if uint32(ix) >= uint32(len(l.dtext)) {
			return t, fmt.Errorf("corrupt page: dictionary index %d, the dictionary has %d entries", ix, len(l.dtext))
		}
		if l.dbad != nil {
			if why, bad := l.dbad[ix]; bad {
				return t, textError(why)
			}
		}
		l.vpos++
		if bix != nil {
			bix[t] = ix
			if l.lazy {
				continue // Cell reads it from the dictionary
			}
		}
		txt[t] = l.dtext[ix]
	}
	return len(txt), nil
}

// dictIndexes takes the dictionary indices of rows without a null and
// without a bad text into bix, their text left to Cell (lazy); on an
// error, n is the rows taken before it.
func (l *pqLeaf) dictIndexes(bix []int32) (n int, err error) {
	ids := l.idx[l.vpos : l.vpos+len(bix)]
	nd := uint32(len(l.dtext))
	for t, ix := range ids {
		if uint32(ix) >= nd {
			l.vpos += t
			return t, fmt.Errorf("corrupt page: dictionary index %d, the dictionary has %d entries", ix, nd)
		}
		bix[t] = ix
	}
	l.vpos += len(bix)
	return len(bix), nil
}

// dictNumbers decodes dictionary indices into numbers; on an error, the
// cells before it get their text and n is their count.
func (l *pqLeaf) dictNumbers(j int, txt []string, num []float64, nul []bool, v0 int) (n int, err error) {
	for t := range num {
		if nul[t] {
			num[t] = 0
			continue
		}
		ix := l.idx[l.vpos]
		if uint32(ix) >= uint32(len(l.dnum)) {
			l.numberText(txt[:t], nul[:t], v0)
			return t, fmt.Errorf("corrupt page: dictionary index %d, the dictionary has %d entries", ix, len(l.dnum))
		}
		if num[t] = l.dnum[ix]; num[t] != num[t] && l.kind == parquet.Int64 {
			l.bigs = append(l.bigs, pqBig{row: j + t, v: l.dict.Index(ix).Int64(), unsigned: l.conv == pqUint})
		}
		l.vpos++
	}
	return len(num), nil
}

// plainText cuts nv plain byte-array values, from value v0 on, into text
// cells; on an error, n is the cells cut before it.
func (l *pqLeaf) plainText(txt []string, nul []bool, v0, nv int) (n int, err error) {
	offs := l.boffs[v0 : v0+nv+1]
	base := offs[0]
	s := string(l.bdata[base:offs[nv]])
	// Printable ASCII is fine as a whole; otherwise check value by value,
	// as a character may straddle two.
	check := !printableASCII(s)
	if check {
		l.ascii = false
	}
	v := 0
	for t := range txt {
		if nul[t] {
			txt[t] = ""
			continue
		}
		cell := s[offs[v]-base : offs[v+1]-base]
		if check {
			if why := badText(cell); why != "" {
				l.vpos += v
				return t, textError(why)
			}
		}
		txt[t] = cell
		v++
	}
	l.vpos += nv
	return len(txt), nil
}

// plainNumbers copies the next plain-encoded numbers of the page.
func (l *pqLeaf) plainNumbers(j int, num []float64, nul []bool) {
	v := l.vpos
	switch {
	case l.kind == parquet.Double:
		for t := range num {
			if !nul[t] {
				num[t] = l.f64[v]
				v++
			}
		}
	case l.kind == parquet.Float:
		for t := range num {
			if !nul[t] {
				num[t] = float32Number(l.f32[v])
				v++
			}
		}
	case l.kind == parquet.Int64:
		unsigned := l.conv == pqUint
		for t := range num {
			if !nul[t] {
				x := l.i64[v]
				if num[t] = int64Number(x, unsigned); num[t] != num[t] {
					l.bigs = append(l.bigs, pqBig{row: j + t, v: x, unsigned: unsigned})
				}
				v++
			}
		}
	case l.conv == pqUint:
		for t := range num {
			if !nul[t] {
				num[t] = float64(uint32(l.i32[v]))
				v++
			}
		}
	default:
		for t := range num {
			if !nul[t] {
				num[t] = float64(l.i32[v])
				v++
			}
		}
	}
	l.vpos = v
}

// numberText gives the rows of a numeric column their text: the exact
// decimal text while the column is read as text, one string for the
// batch's rows of the page that the rows slice; pqNumberText once Float
// has been called on it. v0 is the first value of the rows.
func (l *pqLeaf) numberText(txt []string, nul []bool, v0 int) {
	if !l.numText {
		for t := range txt {
			if nul[t] {
				txt[t] = ""
			} else {
				txt[t] = pqNumberText
			}
		}
		return
	}
	if l.indexed {
		v := v0
		for t := range txt {
			if nul[t] {
				txt[t] = ""
				continue
			}
			txt[t] = l.dictNumber(l.idx[v])
			v++
		}
		return
	}
	if l.kind == parquet.Int32 || l.kind == parquet.Int64 {
		l.intText(txt, nul, v0)
		return
	}
	buf, ends := l.buf[:0], l.ends[:0]
	v := v0
	for t := range txt {
		if !nul[t] {
			buf = l.appendNumber(buf, v)
			v++
		}
		ends = append(ends, int32(len(buf)))
	}
	s := string(buf)
	prev := int32(0)
	for t, e := range ends {
		if nul[t] {
			txt[t] = ""
		} else {
			txt[t] = s[prev:e]
		}
		prev = e
	}
	l.buf, l.ends = buf, ends
}

// pqIntCache is the number of integers whose text a column keeps.
const pqIntCache = 1 << 17

// intText gives the rows of an integer column their text through the
// column's cache of recent integers: each entry is its own string, so
// the cache pins no more than its entries.
func (l *pqLeaf) intText(txt []string, nul []bool, v0 int) {
	if l.icache == nil {
		// As many entries as the file has rows, up to pqIntCache: a
		// small file does not pay for a big cache.
		size := 1
		for int64(size) < min(pqIntCache, l.fileRows) {
			size *= 2
		}
		l.icache = make([]pqIntText, size)
	}
	mask := uint64(len(l.icache) - 1)
	v := v0
	for t := range txt {
		if nul[t] {
			txt[t] = ""
			continue
		}
		var x int64
		switch {
		case l.kind == parquet.Int64:
			x = l.i64[v]
		case l.conv == pqUint:
			x = int64(uint32(l.i32[v]))
		default:
			x = int64(l.i32[v])
		}
		v++
		h := uint64(x)
		e := &l.icache[(h^h>>17)&mask]
		if e.v != x || e.s == "" {
			if l.kind == parquet.Int64 && l.conv == pqUint {
				e.s = strconv.FormatUint(uint64(x), 10)
			} else {
				e.s = strconv.FormatInt(x, 10)
			}
			e.v = x
		}
		txt[t] = e.s
	}
}

// appendNumber appends the text of plain value v of the page.
func (l *pqLeaf) appendNumber(b []byte, v int) []byte {
	switch {
	case l.kind == parquet.Double:
		return strconv.AppendFloat(b, l.f64[v], 'g', -1, 64)
	case l.kind == parquet.Float:
		return strconv.AppendFloat(b, float64(l.f32[v]), 'g', -1, 32)
	case l.kind == parquet.Int64 && l.conv == pqUint:
		return strconv.AppendUint(b, uint64(l.i64[v]), 10)
	case l.kind == parquet.Int64:
		return strconv.AppendInt(b, l.i64[v], 10)
	case l.conv == pqUint:
		return strconv.AppendUint(b, uint64(uint32(l.i32[v])), 10)
	}
	return strconv.AppendInt(b, int64(l.i32[v]), 10)
}

// dictNumber returns the text of a numeric dictionary entry, formatted
// the first time it is asked for.
func (l *pqLeaf) dictNumber(ix int32) string {
	if s := l.dtext[ix]; s != "" {
		return s
	}
	var b []byte
	data := l.dict.Page().Data()
	switch {
	case l.kind == parquet.Double:
		b = strconv.AppendFloat(b, data.Double()[ix], 'g', -1, 64)
	case l.kind == parquet.Float:
		b = strconv.AppendFloat(b, float64(data.Float()[ix]), 'g', -1, 32)
	case l.kind == parquet.Int64 && l.conv == pqUint:
		b = strconv.AppendUint(b, uint64(data.Int64()[ix]), 10)
	case l.kind == parquet.Int64:
		b = strconv.AppendInt(b, data.Int64()[ix], 10)
	case l.conv == pqUint:
		b = strconv.AppendUint(b, uint64(uint32(data.Int32()[ix])), 10)
	default:
		b = strconv.AppendInt(b, int64(data.Int32()[ix]), 10)
	}
	l.dtext[ix] = string(b)
	return l.dtext[ix]
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
// column is parsed like a CSV cell; a NaN or an infinity is an error (in
// Parquet a missing value is a null); any other type (boolean, date,
// timestamp, bytes) is an error naming file, row and column. Calling it
// on a numeric column makes the column a value column: Next no longer
// formats its numbers to text.
func (p *Reader) Float(col int) (float64, bool, error) {
	// The common case first: a numeric column already read as numbers.
	l := &p.leaves[col]
	if k := p.k; l.number && uint(k) < uint(p.n) {
		if l.nul[k] {
			return 0, false, nil
		}
		if v := l.num[k]; v-v == 0 {
			return v, true, nil
		}
	}
	return p.float(col)
}

// float is Float for every case.
func (p *Reader) float(col int) (v float64, ok bool, err error) {
	l := &p.leaves[col]
	k := p.k
	if k < 0 || k >= p.n {
		return 0, false, nil
	}
	if l.unread {
		return 0, false, p.Errorf(col, "the column is not read (left out by Only)")
	}
	if !l.fast {
		return p.floatValue(col, l.vals[k])
	}
	if l.numText {
		// From now on the column is read as numbers: the rest of the
		// batch loses its text too, so that every row after this one
		// reads the same.
		l.numText = false
		l.number = l.conv != pqString
		for t := k + 1; t < p.n; t++ {
			if !l.nul[t] {
				l.txt[t] = pqNumberText
				if !p.columnar {
					p.mat[t*len(p.leaves)+col] = pqNumberText
				}
			}
		}
	}
	if l.nul[k] {
		return 0, false, nil
	}
	if l.conv == pqString {
		return p.textFloat(col, l.txt[k])
	}
	v = l.num[k]
	if v != v && l.kind == parquet.Int64 {
		for _, b := range l.bigs {
			if b.row == k {
				return 0, false, p.Errorf(col, "%s", b.text())
			}
		}
		return 0, false, p.Errorf(col, "an integer beyond ±2^53 that a float64 cannot hold exactly")
	}
	if v-v != 0 && !p.nonFinite {
		return 0, false, p.Errorf(col, "%v stored in a float column (in Parquet a missing value is a null)", v)
	}
	return v, true, nil
}

// KeepNonFinite makes Float return NaN and ±Inf stored in float columns
// instead of failing, for a caller that checks them against declared
// missing markers itself.
func (p *Reader) KeepNonFinite() { p.nonFinite = true }

// floatValue is Float for the columns read as parquet.Values.
func (p *Reader) floatValue(col int, x parquet.Value) (float64, bool, error) {
	if x.IsNull() {
		return 0, false, nil
	}
	l := &p.leaves[col]
	switch l.conv {
	case pqDecimal:
		f, _ := l.decimal(x).Float64()
		return f, true, nil
	case pqString:
		return p.textFloat(col, l.txt[p.k])
	}
	return 0, false, p.Errorf(col, "wrong type: want a number, the column holds %s", l.typ)
}

// textFloat is Float for a number stored as text in column col: empty
// is missing, anything but a finite number an error.
func (p *Reader) textFloat(col int, s string) (float64, bool, error) {
	if s == "" {
		return 0, false, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, false, p.Errorf(col, "not a number: %q", s)
	}
	if f-f != 0 {
		return 0, false, p.Errorf(col, "not a finite number: %q (in Parquet a missing value is a null)", s)
	}
	return f, true, nil
}

// Errorf returns an error at field col of the current row.
func (p *Reader) Errorf(col int, format string, args ...any) error {
	name := ""
	if col >= 0 && col < len(p.leaves) {
		name = p.leaves[col].name
	}
	return &Error{File: p.File, Row: p.rows, Column: name, Msg: fmt.Sprintf(format, args...)}
}

// printableASCII reports whether s is made of printable ASCII only.
func printableASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 { // eight bytes at a time, as BadName
		w := s[i : i+8] // one bounds check, one load
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		// a byte < 0x20 (borrows into its high bit), 0x7f (+1 carries
		// into it) or ≥ 0x80 (has it) leaves its high bit set; a borrow
		// only follows such a byte
		if (x-0x2020202020202020|(x&0x7f7f7f7f7f7f7f7f+0x0101010101010101)|x)&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// badText says what makes s unacceptable as a name (a dataset, method,
// metric, unit or column name): invalid UTF-8, a NUL or another control
// character; "" when it is fine.
func badText(s string) string {
	if printableASCII(s) {
		return ""
	}
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, w := utf8.DecodeRuneInString(s[i:]); w == 1 {
				return fmt.Sprintf("invalid UTF-8 (byte %#02x at byte %d)", s[i], i)
			}
		case r == 0:
			return fmt.Sprintf("a NUL character at byte %d", i)
		case unicode.IsControl(r):
			return fmt.Sprintf("a control character (%U) at byte %d", r, i)
		}
	}
	return ""
}

// The checks below run before parquet-go trusts what a file declares.
// The library allocates what a footer or a page header says (a thrift
// list's length, a binary field's length, a page's compressed and
// uncompressed sizes, a value count, a zstd frame's content size, a
// snappy block's length) before it finds out that the bytes are not
// there, and recurses as deep as the thrift nesting goes. A hostile
// file of a few bytes could thus ask for gigabytes or overflow the
// stack, which no recover catches. So every size is checked against the
// bytes that hold it, and every count against the file's size.

// pqMaxRowsPerByte bounds the rows a file may declare: pqMaxRowsPerByte
// per byte of the file (a bit-packed column holds 8 per byte; only a
// file made of nothing but constant columns could go beyond), plus
// 65,536.
const pqMaxRowsPerByte = 64

// pqMaxPage is the largest uncompressed page accepted (1 GiB).
const pqMaxPage = 1 << 30

// pqMaxRows is the largest row count a file of the given size may
// declare.
func pqMaxRows(size int64) int64 { return pqMaxRowsPerByte*size + 1<<16 }

// pqCheckFooter checks the footer's length and thrift structure.
func pqCheckFooter(r io.ReaderAt, size int64) error {
	if size < 12 {
		return fmt.Errorf("%d bytes is too small for a Parquet file", size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	switch string(tail[4:]) {
	case "PAR1":
	case "PARE":
		return errors.New("the footer is encrypted, which this reader does not support")
	default:
		return fmt.Errorf("invalid magic footer %q", tail[4:])
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return fmt.Errorf("the footer claims %d bytes in a file of %d", n, size)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return err
	}
	c := thriftCheck{b: footer}
	if err := c.structure(0); err != nil {
		return fmt.Errorf("corrupt footer: %w", err)
	}
	return nil
}

// pqCheckRowGroups checks the row counts the footer declares.
func pqCheckRowGroups(pf *parquet.File, size int64) error {
	md := pf.Metadata()
	limit := pqMaxRows(size)
	if md.NumRows < 0 || md.NumRows > limit {
		return fmt.Errorf("the footer declares %d rows in a file of %d bytes", md.NumRows, size)
	}
	for i, g := range md.RowGroups {
		if g.NumRows < 0 || g.NumRows > limit {
			return fmt.Errorf("row group %d declares %d rows in a file of %d bytes", i+1, g.NumRows, size)
		}
	}
	return nil
}

// pqCheckChunk walks the page headers of a column chunk before
// parquet-go reads them: each header is well-formed thrift within the
// chunk, each page lies within the chunk, its uncompressed size is one
// the codec can produce from its compressed size, the codec's own size
// fields agree, and the data pages hold as many values as the row group
// has rows.
func pqCheckChunk(r io.ReaderAt, size int64, md *format.FileMetaData, group, column int, rows int64, maxDef byte) error {
	if group >= len(md.RowGroups) || column >= len(md.RowGroups[group].Columns) {
		return errors.New("no column chunk")
	}
	cc := &md.RowGroups[group].Columns[column]
	if cc.FilePath != "" {
		return fmt.Errorf("the column chunk is in another file (%q), which this reader does not follow", cc.FilePath)
	}
	cm := &cc.MetaData
	start := cm.DataPageOffset
	if cm.DictionaryPageOffset != 0 {
		start = cm.DictionaryPageOffset
	}
	if start < 4 || cm.TotalCompressedSize < 0 || cm.TotalCompressedSize > size-start {
		return fmt.Errorf("the column chunk (offset %d, %d bytes) is not within the file of %d bytes", start, cm.TotalCompressedSize, size)
	}
	end := start + cm.TotalCompressedSize
	var values int64
	for pos, page := start, 1; pos < end; page++ {
		h, n, err := pqPageHeader(r, pos, end)
		if err != nil {
			return fmt.Errorf("corrupt page %d: header: %w", page, err)
		}
		pos += n
		if err := pqCheckPage(r, h, pos, end, cm.Codec, rows); err != nil {
			return fmt.Errorf("corrupt page %d: %w", page, err)
		}
		if err := pqCheckRuns(r, h, pos, int64(h.CompressedPageSize), cm.Codec, maxDef); err != nil {
			return fmt.Errorf("corrupt page %d: %w", page, err)
		}
		switch {
		case h.DataPageHeader.Valid:
			values += int64(h.DataPageHeader.V.NumValues)
		case h.DataPageHeaderV2.Valid:
			values += int64(h.DataPageHeaderV2.V.NumValues)
		}
		pos += int64(h.CompressedPageSize)
	}
	if values != rows {
		return fmt.Errorf("corrupt column chunk: %d values for %d rows", values, rows)
	}
	return nil
}

// pqPageHeader reads the page header at pos, checking its thrift before
// decoding it; it returns the header and its length.
func pqPageHeader(r io.ReaderAt, pos, end int64) (*format.PageHeader, int64, error) {
	// Headers are small, but statistics can make one long: read more
	// until the walk fits, never past the chunk.
	for want := int64(256); ; want *= 8 {
		n := min(want, end-pos)
		b := make([]byte, n)
		if m, err := r.ReadAt(b, pos); int64(m) < n {
			return nil, 0, fmt.Errorf("reading at offset %d: %v", pos, err)
		}
		c := thriftCheck{b: b}
		err := c.structure(0)
		if err == errThriftShort && n < end-pos {
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		h := new(format.PageHeader)
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[:c.i], h); err != nil {
			return nil, 0, err
		}
		return h, int64(c.i), nil
	}
}

// pqCheckPage checks one page header's sizes and counts, and the sizes
// the codec records at the start of the page's data at pos.
func pqCheckPage(r io.ReaderAt, h *format.PageHeader, pos, end int64, codec format.CompressionCodec, rows int64) error {
	comp, raw := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
	if err := pqCheckSizes(comp, raw, end-pos, codec); err != nil {
		return err
	}
	data := pos // where the compressed bytes start
	compressed := codec != format.Uncompressed
	switch {
	case h.DataPageHeader.Valid:
		if nv := int64(h.DataPageHeader.V.NumValues); nv < 0 || nv > rows {
			return fmt.Errorf("the page claims %d values, the row group has %d rows", nv, rows)
		}
	case h.DataPageHeaderV2.Valid:
		levels, err := pqCheckV2(&h.DataPageHeaderV2.V, comp, raw, rows)
		if err != nil {
			return err
		}
		data += levels
		comp -= levels
		raw -= levels
		v := &h.DataPageHeaderV2.V
		compressed = compressed && (!v.IsCompressed.Valid || v.IsCompressed.V)
	case h.DictionaryPageHeader.Valid:
		if nv := int64(h.DictionaryPageHeader.V.NumValues); nv < 0 || nv > raw {
			return fmt.Errorf("the dictionary claims %d values in %d bytes", nv, raw)
		}
	}
	if !compressed || comp == 0 {
		return nil
	}
	return pqCheckCompressed(r, codec, data, comp, raw)
}

// pqCheckSizes checks a page's sizes against the bytes its column chunk
// has left, the page cap and what its codec can expand to.
func pqCheckSizes(comp, raw, left int64, codec format.CompressionCodec) error {
	if comp < 0 || raw < 0 {
		return fmt.Errorf("negative page size (%d compressed, %d uncompressed)", comp, raw)
	}
	if comp > left {
		return fmt.Errorf("the page claims %d bytes, the column chunk has %d left", comp, left)
	}
	if raw > pqMaxPage {
		return fmt.Errorf("the page claims %d bytes uncompressed, more than %d", raw, pqMaxPage)
	}
	if ratio := pqCodecRatio(codec); ratio > 0 && raw > ratio*comp+1<<16 {
		return fmt.Errorf("the page claims %d bytes uncompressed from %d compressed, more than %s can expand to", raw, comp, codec)
	}
	return nil
}

// pqCheckV2 checks a version 2 data page's counts and returns the bytes
// of its levels, which precede its (maybe compressed) values.
func pqCheckV2(v *format.DataPageHeaderV2, comp, raw, rows int64) (int64, error) {
	if nv := int64(v.NumValues); nv < 0 || nv > rows || v.NumNulls < 0 || v.NumNulls > v.NumValues || v.NumRows < 0 || int64(v.NumRows) > rows {
		return 0, fmt.Errorf("the page claims %d values, %d nulls and %d rows, the row group has %d rows", v.NumValues, v.NumNulls, v.NumRows, rows)
	}
	levels := int64(v.RepetitionLevelsByteLength) + int64(v.DefinitionLevelsByteLength)
	if v.RepetitionLevelsByteLength < 0 || v.DefinitionLevelsByteLength < 0 || levels > comp || levels > raw {
		return 0, fmt.Errorf("the page claims %d bytes of levels in %d", levels, comp)
	}
	return levels, nil
}

// pqCheckCompressed checks what a compressed page's own header says it
// decodes to (snappy's length, zstd's frame sizes) against the page.
func pqCheckCompressed(r io.ReaderAt, codec format.CompressionCodec, data, comp, raw int64) error {
	switch codec {
	case format.Snappy:
		// A snappy block starts with its decoded length.
		var b [binary.MaxVarintLen64]byte
		m, _ := r.ReadAt(b[:min(int64(len(b)), comp)], data)
		n, k := binary.Uvarint(b[:m])
		if k <= 0 {
			return errors.New("corrupt snappy block: no length")
		}
		if n > uint64(raw) {
			return fmt.Errorf("the snappy block claims %d bytes, the page %d", n, raw)
		}
	case format.Zstd:
		bound, err := pqZstdBound(r, data, data+comp, raw)
		if err != nil {
			return err
		}
		if bound > 2*raw+1<<20 {
			return fmt.Errorf("the zstd data can expand to %d bytes, the page claims %d", bound, raw)
		}
	}
	return nil
}

// pqCodecRatio is the most a codec can expand its input (0: no bound
// worth checking, or no codec).
func pqCodecRatio(c format.CompressionCodec) int64 {
	switch c {
	case format.Snappy:
		return 24 // a 3-byte copy makes 64 bytes
	case format.Gzip:
		return 1040 // deflate's limit is 1032
	case format.Lz4, format.Lz4Raw:
		return 260 // a byte of run length makes 255
	case format.Zstd, format.Brotli:
		return 1 << 15 // a 4-byte zstd RLE block makes 128 KiB
	}
	return 0
}

// pqZstdBound walks the zstd frames in [pos, end) without decoding them
// and returns the most they can decode to; a frame content size above
// max (which the decoder would allocate at once) is an error.
func pqZstdBound(r io.ReaderAt, pos, end, max int64) (int64, error) {
	z := &zstdScan{r: r, end: end, max: max}
	var total int64
	for pos < end {
		h, err := z.read(pos, 4)
		if err != nil {
			return 0, err
		}
		magic := binary.LittleEndian.Uint32(h)
		if magic&0xFFFFFFF0 == 0x184D2A50 { // skippable frame
			h, err := z.read(pos+4, 4)
			if err != nil {
				return 0, err
			}
			pos += 8 + int64(binary.LittleEndian.Uint32(h))
			continue
		}
		if magic != 0xFD2FB528 {
			return 0, errors.New("corrupt zstd data: no frame magic")
		}
		hdr, blockMax, checksum, err := z.frameHeader(pos)
		if err != nil {
			return 0, err
		}
		pos, err = z.blocks(pos+hdr, blockMax, &total)
		if err != nil {
			return 0, err
		}
		if checksum {
			pos += 4
		}
	}
	return total, nil
}

// zstdScan reads the headers of zstd frames and blocks in [.., end) of
// r, never their data.
type zstdScan struct {
	r        io.ReaderAt
	end, max int64
	b        [18]byte
}

func (z *zstdScan) read(at int64, n int) ([]byte, error) {
	if at+int64(n) > z.end {
		return nil, errors.New("corrupt zstd data: truncated")
	}
	if _, err := z.r.ReadAt(z.b[:n], at); err != nil {
		return nil, err
	}
	return z.b[:n], nil
}

// frameHeader reads the header of the frame at pos (after its magic):
// its length, the largest block it may hold, and whether a checksum
// follows its last block.
func (z *zstdScan) frameHeader(pos int64) (hdr, blockMax int64, checksum bool, err error) {
	h, err := z.read(pos+4, 1)
	if err != nil {
		return 0, 0, false, err
	}
	fhd := h[0]
	single := fhd&0x20 != 0
	fcsLen := [4]int{0, 2, 4, 8}[fhd>>6]
	if fhd>>6 == 0 && single {
		fcsLen = 1
	}
	hdr = 5
	window := int64(-1)
	if !single {
		h, err := z.read(pos+hdr, 1)
		if err != nil {
			return 0, 0, false, err
		}
		exp := int64(h[0]>>3) + 10
		if exp > 41 {
			return 0, 0, false, errors.New("corrupt zstd data: window too large")
		}
		base := int64(1) << exp
		window = base + base/8*int64(h[0]&7)
		hdr++
	}
	hdr += int64([4]int{0, 1, 2, 4}[fhd&3])
	if fcsLen > 0 {
		fcs, err := z.contentSize(pos+hdr, fcsLen)
		if err != nil {
			return 0, 0, false, err
		}
		if single {
			window = fcs
		}
		hdr += int64(fcsLen)
	}
	blockMax = int64(128 << 10)
	if window >= 0 && window < blockMax {
		blockMax = window
	}
	return hdr, blockMax, fhd&0x04 != 0, nil
}

// contentSize reads a frame's content size field, which must not exceed
// the page's size.
func (z *zstdScan) contentSize(at int64, n int) (int64, error) {
	h, err := z.read(at, n)
	if err != nil {
		return 0, err
	}
	var fcs uint64
	for i := n - 1; i >= 0; i-- {
		fcs = fcs<<8 | uint64(h[i])
	}
	if n == 2 {
		fcs += 256
	}
	if fcs > uint64(z.max) {
		return 0, fmt.Errorf("the zstd frame claims %d bytes, the page %d", fcs, z.max)
	}
	return int64(fcs), nil
}

// blocks walks a frame's blocks from pos, adding to total the most each
// can decode to, and returns where the last one ends.
func (z *zstdScan) blocks(pos, blockMax int64, total *int64) (int64, error) {
	for last := false; !last; {
		h, err := z.read(pos, 3)
		if err != nil {
			return 0, err
		}
		bh := int64(h[0]) | int64(h[1])<<8 | int64(h[2])<<16
		last = bh&1 != 0
		size := bh >> 3
		switch (bh >> 1) & 3 {
		case 0: // raw
			*total += size
			pos += 3 + size
		case 1: // RLE
			*total += size
			pos += 3 + 1
		case 2: // compressed
			if size > blockMax {
				return 0, errors.New("corrupt zstd data: block larger than allowed")
			}
			*total += blockMax
			pos += 3 + size
		default:
			return 0, errors.New("corrupt zstd data: reserved block type")
		}
		if pos > z.end {
			return 0, errors.New("corrupt zstd data: truncated")
		}
	}
	return pos, nil
}

// errThriftShort: the thrift needs more bytes than there are.
var errThriftShort = errors.New("truncated")

// thriftCheck walks thrift compact-protocol data without decoding it,
// checking that every length and count fits in the bytes left and that
// structures nest at most pqThriftDepth deep.
type thriftCheck struct {
	b []byte
	i int
}

const pqThriftDepth = 32

func (c *thriftCheck) byte1() (byte, error) {
	if c.i >= len(c.b) {
		return 0, errThriftShort
	}
	c.i++
	return c.b[c.i-1], nil
}

func (c *thriftCheck) uvarint() (uint64, error) {
	var x uint64
	for s := 0; s < 70; s += 7 {
		b, err := c.byte1()
		if err != nil {
			return 0, err
		}
		x |= uint64(b&0x7f) << s
		if b < 0x80 {
			return x, nil
		}
	}
	return 0, errors.New("varint too long")
}

func (c *thriftCheck) skip(n uint64) error {
	if n > uint64(len(c.b)-c.i) {
		return errThriftShort
	}
	c.i += int(n)
	return nil
}

func (c *thriftCheck) structure(depth int) error {
	if depth > pqThriftDepth {
		return fmt.Errorf("structures nested more than %d deep", pqThriftDepth)
	}
	for {
		h, err := c.byte1()
		if err != nil {
			return err
		}
		if h == 0 {
			return nil
		}
		if h>>4 == 0 { // long form: the field id follows
			if _, err := c.uvarint(); err != nil {
				return err
			}
		}
		if err := c.value(h&0x0f, depth); err != nil {
			return err
		}
	}
}

func (c *thriftCheck) value(t byte, depth int) error {
	switch t {
	case 1, 2: // a boolean field holds its value in its type
		return nil
	case 3:
		return c.skip(1)
	case 4, 5, 6:
		_, err := c.uvarint()
		return err
	case 7:
		return c.skip(8)
	case 8:
		n, err := c.uvarint()
		if err != nil {
			return err
		}
		return c.skip(n)
	case 9, 10:
		return c.list(depth)
	case 11:
		return c.mapping(depth)
	case 12:
		return c.structure(depth + 1)
	}
	return fmt.Errorf("unknown thrift type %d", t)
}

// element checks one element of a list or map, where a boolean takes a
// byte of its own.
func (c *thriftCheck) element(et byte, depth int) error {
	if et == 1 || et == 2 {
		return c.skip(1)
	}
	return c.value(et, depth+1)
}

// list checks a list or set.
func (c *thriftCheck) list(depth int) error {
	h, err := c.byte1()
	if err != nil {
		return err
	}
	n := uint64(h >> 4)
	if n == 15 {
		if n, err = c.uvarint(); err != nil {
			return err
		}
	}
	if n > uint64(len(c.b)-c.i) { // every element takes a byte at least
		return fmt.Errorf("a list of %d elements in %d bytes", n, len(c.b)-c.i)
	}
	for range n {
		if err := c.element(h&0x0f, depth); err != nil {
			return err
		}
	}
	return nil
}

// mapping checks a map.
func (c *thriftCheck) mapping(depth int) error {
	n, err := c.uvarint()
	if err != nil || n == 0 {
		return err
	}
	kv, err := c.byte1()
	if err != nil {
		return err
	}
	if n > uint64(len(c.b)-c.i)/2 {
		return fmt.Errorf("a map of %d entries in %d bytes", n, len(c.b)-c.i)
	}
	for range n {
		if err := c.element(kv>>4, depth); err != nil {
			return err
		}
		if err := c.element(kv&0x0f, depth); err != nil {
			return err
		}
	}
	return nil
}
