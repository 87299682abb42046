package input

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/big"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/report/input/parquet"
)

// TableReader streams the records of a CSV or TSV file (optionally .gz),
// UTF-8 with or without BOM, LF or CRLF. Columns are found by header name,
// case-insensitively, through an optional mapping of expected names onto
// the file's own.
//
// It is strict (README, "Strict input rules"): every record has exactly
// the header's number of fields, header cells are names (valid UTF-8, no
// control character, no name twice), a line is at most 1 MiB, numbers are
// plain decimals, and the input must be a regular file whose gzip stream
// inflates to at most the decompressed-size cap.
type TableReader struct {
	File    string // as shown in errors (relative to the manifest where possible)
	Header  []string
	cols    map[string]int
	f       *os.File
	br      *bufio.Reader // the file's read buffer (from readers)
	hash    *tableHash    // OpenTableHashing: the hash of what was read
	gz      *gzip.Reader
	csv     *recordReader
	rec     []string
	rows    int64
	missing []string // cells that count as missing (SetMissing)
	plain   bool     // CSV or TSV without missing markers: Float's fast path
	// rangeGap: HashRange was handed a range past what the hash has
	rangeGap bool
	pq       *parquet.Reader // .parquet: every method delegates to it
	// outside marks a file outside the study directory (allow_outside):
	// a missing column does not quote its header, which for a file that
	// is no table (../../etc/passwd) is its first line.
	outside bool
	// dataStart is the byte offset of the first record of an uncompressed
	// CSV or TSV file (after the BOM and the header); -1 otherwise.
	dataStart int64
	// unnamed are the columns of a CSV or TSV file without a name in the
	// header, which must stay empty (Next), but those a reader uses
	// (UseUnnamed).
	unnamed []int
}

// DefaultMaxDecompressed is the decompressed-size cap of a .gz input when
// the build sets none (Options.MaxDecompressed = 0).
const DefaultMaxDecompressed = 64 << 30

// OpenTable opens path for reading. display is the name used in errors.
// A .gz file may inflate to DefaultMaxDecompressed bytes.
func OpenTable(path, display string, mapping map[string]string) (*TableReader, error) {
	return OpenTableCapped(path, display, mapping, 0)
}

// OpenTableCapped is OpenTable with a decompressed-size cap for .gz files:
// 0 is DefaultMaxDecompressed, a negative cap none.
func OpenTableCapped(path, display string, mapping map[string]string, maxDecompressed int64) (*TableReader, error) {
	return openTable(path, display, mapping, maxDecompressed, false)
}

func openTable(path, display string, mapping map[string]string, maxDecompressed int64, hashing bool) (*TableReader, error) {
	if err := checkRegular(path, display); err != nil {
		return nil, err
	}
	if parquet.Is(path) {
		p, err := parquet.Open(path, display, mapping)
		if err != nil {
			return nil, err
		}
		t := &TableReader{File: display, Header: p.Header, pq: p}
		if err := t.checkHeader(); err != nil {
			t.Close()
			return nil, err
		}
		return t, nil
	}
	f, err := OpenRegular(path, display)
	if err != nil {
		return nil, err
	}
	t := &TableReader{File: display, f: f, dataStart: -1, plain: true}
	var src io.Reader = f
	if hashing {
		src = t.startHashing(f)
	}
	t.br = newReader(src)
	var r io.Reader = t.br
	if err := notNamedGzip(t.br, path, display); err != nil {
		t.Close()
		return nil, err
	}
	name := strings.ToLower(path)
	if strings.HasSuffix(name, ".gz") {
		t.gz, err = gzip.NewReader(r)
		if err != nil {
			t.Close()
			return nil, gzipOpenError(display, err)
		}
		r = bufio.NewReaderSize(capDecompressed(t.gz, maxDecompressed), 1<<20)
		name = strings.TrimSuffix(name, ".gz")
	}
	if err := t.start(r.(*bufio.Reader), filepath.Ext(name) == ".tsv", mapping); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// start skips a BOM, reads the header and applies the mapping.
func (t *TableReader) start(br *bufio.Reader, tsv bool, mapping map[string]string) error {
	var bom int64
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
		bom = 3
	}
	if tsv {
		t.csv = newRecordReader(br, '\t', false)
	} else {
		t.csv = newRecordReader(br, ',', true)
	}
	head, err := t.csv.Read()
	if err == io.EOF {
		return fmt.Errorf("%s: empty file (no header row)", t.File)
	}
	if err != nil {
		return t.wrapCSV(err)
	}
	t.Header = append([]string(nil), head...)
	if t.gz == nil {
		t.dataStart = bom + t.csv.consumed
	}
	if len(t.Header) == 1 && t.Header[0] == "" {
		return fmt.Errorf("%s: empty file (no header row)", t.File)
	}
	if err := t.checkHeader(); err != nil {
		return err
	}
	for i, h := range t.Header {
		if strings.TrimSpace(h) == "" {
			t.unnamed = append(t.unnamed, i)
		}
	}
	t.csv.blanks = 0 // before the header: no record of the file
	t.cols = map[string]int{}
	for i, h := range t.Header {
		t.cols[strings.ToLower(strings.TrimSpace(h))] = i
	}
	for want, have := range mapping {
		if i, ok := t.cols[strings.ToLower(have)]; ok {
			t.cols[strings.ToLower(want)] = i
		} else {
			return Errorf(t.File, 1, "no column %s (mapped from %q)%s", Quote(have), want, parquet.SuggestColumn(have, t.Header))
		}
	}
	return nil
}

// checkHeader rejects header cells that are not names (invalid UTF-8,
// control characters) and a name given twice (case and surrounding
// spaces aside): which of the two columns is meant is a guess.
func (t *TableReader) checkHeader() error {
	at := func(i int, format string, args ...any) error {
		if t.pq != nil {
			return &parquet.Error{File: t.File, Msg: fmt.Sprintf("column %d: ", i+1) + fmt.Sprintf(format, args...)}
		}
		line, col := t.csv.FieldPos(i)
		return &InputError{File: t.File, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	first := make(map[string]int, len(t.Header))
	for i, h := range t.Header {
		if why := BadName(h); why != "" {
			return at(i, "header cell %s holds %s", Quote(h), why)
		}
		k := strings.ToLower(strings.TrimSpace(h))
		if k == "" {
			continue
		}
		if j, dup := first[k]; dup {
			return at(i, "column %s appears twice in the header (columns %d and %d); rename one", Quote(strings.TrimSpace(h)), j+1, i+1)
		}
		first[k] = i
	}
	return nil
}

// Only declares the columns the caller will read (-1s are ignored); a
// Parquet file then decodes only those, and the other cells are empty.
// A no-op for CSV and TSV, whose records are split whole anyway.
func (t *TableReader) Only(cols ...int) {
	if t.pq == nil {
		return
	}
	keep := cols[:0:0]
	for _, c := range cols {
		if c >= 0 {
			keep = append(keep, c)
		}
	}
	t.pq.Only(keep...)
}

// UseUnnamed declares that the caller reads column col although it has
// no name in the header (pandas' index column): Next no longer requires
// its cells to be empty.
func (t *TableReader) UseUnnamed(col int) {
	kept := t.unnamed[:0:0]
	for _, c := range t.unnamed {
		if c != col {
			kept = append(kept, c)
		}
	}
	t.unnamed = kept
}

// Transient makes the strings of the records Next returns from now on
// valid only until the next call to Next (they alias the read buffer):
// no allocation per record. The caller copies what it keeps, and
// anything it formats into a message is formatted at once. CSV and TSV
// only; a no-op for Parquet.
func (t *TableReader) Transient() {
	if t.csv != nil {
		t.csv.transient = true
	}
}

// SetMissing declares cells that count as missing values, like an empty
// cell (an input entry's missing_values); they are compared with the
// cell without its surrounding spaces, case-sensitively.
func (t *TableReader) SetMissing(markers []string) {
	t.missing = t.missing[:0]
	for _, m := range markers {
		t.missing = append(t.missing, strings.TrimSpace(m))
	}
	t.plain = t.pq == nil && len(t.missing) == 0
}

func (t *TableReader) isMissing(s string) bool {
	if len(t.missing) == 0 {
		return false
	}
	s = strings.TrimSpace(s)
	for _, m := range t.missing {
		if s == m {
			return true
		}
	}
	return false
}

// Close releases the file.
func (t *TableReader) Close() error {
	if t.pq != nil {
		return t.pq.Close()
	}
	if t.gz != nil {
		t.gz.Close()
	}
	if t.f == nil {
		return nil // a section: its file is its parent's
	}
	if t.br != nil {
		putReader(t.br)
		t.br = nil
	}
	return t.f.Close()
}

// Section returns a reader of the records in bytes [start, end) of an
// uncompressed CSV or TSV file (start at the beginning of a line after
// the header): the same header and columns, its own lines counted from
// firstLine, transient strings. With quoteStops a record holding a quote
// is ErrQuoted instead (a byte range may begin inside a quoted field).
// Closing it leaves the file open.
//
// br, when not nil, is a buffer to read through (reset to the range), so
// that a worker reading many ranges allocates one.
func (t *TableReader) Section(start, end int64, firstLine int, quoteStops bool, br *bufio.Reader) *TableReader {
	c := &TableReader{File: t.File, Header: t.Header, cols: t.cols, missing: t.missing, plain: t.plain, outside: t.outside, dataStart: -1, unnamed: t.unnamed}
	r := io.NewSectionReader(t.f, start, end-start)
	if br == nil {
		br = bufio.NewReaderSize(r, 64<<10)
	} else {
		br.Reset(r)
	}
	c.csv = newRecordReader(br, t.csv.comma, t.csv.quotes)
	c.csv.next = firstLine
	c.csv.transient = true
	c.csv.quoteStops = quoteStops
	return c
}

// SectionBytes is Section for a byte range read whole (ReadRange): its
// records are split in p, where their strings point. The caller keeps
// p unchanged until it is done with them.
func (t *TableReader) SectionBytes(p []byte, firstLine int, quoteStops bool) *TableReader {
	c := &TableReader{File: t.File, Header: t.Header, cols: t.cols, missing: t.missing, plain: t.plain, outside: t.outside, dataStart: -1, unnamed: t.unnamed}
	c.csv = newMemReader(p, t.csv.comma, t.csv.quotes)
	c.csv.next = firstLine
	c.csv.quoteStops = quoteStops
	return c
}

// Rest returns the bytes of a CSV or TSV reader that no record has been
// read from yet — the rest of a section read from memory (SectionBytes),
// else what the reader has buffered of the file, perhaps nothing (Next
// reads on) — and the line the first of them starts on; all reports
// that they are every byte left (a section read from memory). A caller that reads some whole
// lines of them itself says so with Advance before any other call.
func (t *TableReader) Rest() (p []byte, line int, all bool) {
	if t.csv == nil {
		return nil, 0, false
	}
	p, all = t.csv.rest()
	return p, t.csv.next, all
}

// Advance moves a CSV or TSV reader past the first n bytes of Rest,
// which hold lines whole lines and rows records that the caller has
// read itself (none blank): line and record counts go on from there,
// and the file's hash, when it is hashed, covers them. The record Next
// reads next is read on its own.
func (t *TableReader) Advance(n, lines int, rows int64) {
	t.csv.advance(n, lines)
	t.rows += rows
}

// Layout reports the separator of a CSV or TSV reader and whether it
// reads quotes (CSV), and plain: whether a record may be read from Rest
// by a caller as Next would read it, cell for cell, with any cell that
// PlainDecimal takes being the value Float gives — no missing-value
// markers, no column without a name in the header. plain is false for
// Parquet.
func (t *TableReader) Layout() (comma byte, quotes, plain bool) {
	if t.csv == nil {
		return 0, false, false
	}
	return t.csv.comma, t.csv.quotes, t.plain && len(t.unnamed) == 0 && !t.csv.whitespace
}

// PlainDecimal parses the shape nearly every value of a results or units
// file has (an optional minus, digits, an optional point and digits, at
// most 19 digits) exactly as Float does; ok is false for any other text
// (Float then decides: a longer decimal, an exponent, an error).
func PlainDecimal(s string) (v float64, ok bool) { return parsePlainDecimal(s) }

// ReadRange reads bytes [start, end) of the file of an uncompressed CSV
// or TSV reader (DataRange) into buf, grown as needed, and returns them.
func (t *TableReader) ReadRange(start, end int64, buf []byte) ([]byte, error) {
	n := int(end - start)
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	got, err := t.f.ReadAt(buf, start)
	if got == n {
		return buf, nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF // the file shrank
	}
	return buf[:got], fmt.Errorf("%s: %w", t.File, err)
}

// HashRange goes on hashing, for a hashing reader (OpenTableHashing)
// whose file is read in byte ranges, with the file's bytes p from offset
// off: ranges handed over in file order, as they were read to be
// parsed, so the file is hashed by the read that parses it. The bytes
// of p the hash already has (the header, and what the reader's buffer
// read ahead) are skipped. A range that starts past what the hash has
// (a gap) abandons the hash: ContentSum then has none.
func (t *TableReader) HashRange(off int64, p []byte) {
	th := t.hash
	if th == nil || t.rangeGap {
		return
	}
	hr := th.hr
	if off > hr.n {
		t.rangeGap = true
		return
	}
	if skip := hr.n - off; skip < int64(len(p)) {
		hr.h.Write(p[skip:])
		hr.n += int64(len(p)) - skip
	}
}

// HashRangesDone ends the hashing of a file read in ranges
// (HashRange): when the hash has every byte of the file as it was
// opened, and the open file still has that identity (nothing was
// written to it meanwhile), ContentSum has the file's sum.
func (t *TableReader) HashRangesDone() {
	th := t.hash
	if th == nil || t.rangeGap || th.hr.n != th.size {
		return
	}
	if st, err := t.f.Stat(); err != nil || identify(st) != th.stamp {
		return
	}
	th.hr.eof = true
}

// Col returns the index of a column, or -1 when the file has none.
func (t *TableReader) Col(name string) int {
	if t.pq != nil {
		return t.pq.Col(name)
	}
	if i, ok := t.cols[strings.ToLower(name)]; ok {
		return i
	}
	return -1
}

// Require returns the index of a column or an error naming the file.
func (t *TableReader) Require(name string) (int, error) {
	if t.pq != nil {
		return t.pq.Require(name)
	}
	if i := t.Col(name); i >= 0 {
		return i, nil
	}
	if t.outside {
		return -1, Errorf(t.File, 1, "no column %q (the header of a file outside the study directory is not shown)", name)
	}
	return -1, Errorf(t.File, 1, "no column %q (header: %s)%s", name, Clip(strings.Join(t.Header, ",")), parquet.SuggestColumn(name, t.Header))
}

// Next returns the next record, or io.EOF. The slice is reused. A record
// with fewer or more fields than the header is an error: a missing field
// would shift values into the wrong columns, and an extra one is most
// often an unquoted decimal comma (0,152 read as 0 and an ignored 152).
func (t *TableReader) Next() ([]string, error) {
	if t.pq != nil {
		rec, err := t.pq.Next()
		t.rec = rec
		return rec, err
	}
	rec, err := t.csv.Read()
	if err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, t.wrapCSV(err)
	}
	t.rows++
	t.rec = rec
	if len(rec) != len(t.Header) {
		return nil, t.fieldCountError(rec)
	}
	if t.csv.blanks > 0 {
		if len(t.Header) == 1 {
			return nil, Errorf(t.File, t.csv.blankLine, "a blank line in a file of one column: if it is an empty cell, skipping it would move every later value up a row; write an empty cell as \"\" (or a missing_values marker), or delete the line")
		}
		t.csv.blanks = 0
	}
	for _, c := range t.unnamed {
		if strings.TrimSpace(rec[c]) != "" {
			return nil, t.unnamedError(rec, c)
		}
	}
	return rec, nil
}

// unnamedError is the error of a value in column c, which has no name in
// the header: most often the header ends with a separator and the value
// is the second half of a decimal comma (0,5 read as 0 and 5).
func (t *TableReader) unnamedError(rec []string, c int) error {
	line, col := t.csv.FieldPos(c)
	msg := fmt.Sprintf("a value in column %d, which has no name in the header", c+1)
	if c == len(t.Header)-1 {
		msg += " (the header line ends with a separator)"
	}
	if c > 0 && isInteger(rec[c-1]) && isDigits(rec[c]) && decimalColumn(t.Header[c-1]) {
		msg += fmt.Sprintf(" — a decimal comma in %s? quote the value or use a dot", Quote(rec[c-1]+string(t.csv.comma)+rec[c]))
	}
	return &InputError{File: t.File, Line: line, Col: col, Msg: msg}
}

// fieldCountError describes a record whose field count is not the
// header's, guessing the cause where the record shows one.
func (t *TableReader) fieldCountError(rec []string) error {
	line, _ := t.csv.FieldPos(0)
	if len(rec) < len(t.Header) {
		return Errorf(t.File, line, "%d fields, the header has %d", len(rec), len(t.Header))
	}
	msg := fmt.Sprintf("%d fields, the header has %d", len(rec), len(t.Header))
	if at, ok := decimalComma(rec, t.Header); ok {
		line, col := t.csv.FieldPos(at)
		return &InputError{File: t.File, Line: line, Col: col, Msg: msg + fmt.Sprintf(" — a decimal comma in %s? quote the value or use a dot", Quote(rec[at]+string(t.csv.comma)+rec[at+1]))}
	}
	trailing := true
	for _, f := range rec[len(t.Header):] {
		trailing = trailing && strings.TrimSpace(f) == ""
	}
	if trailing {
		sep := "comma"
		if t.csv.comma == '\t' {
			sep = "tab"
		}
		msg += " — a trailing " + sep + "?"
	}
	line, col := t.csv.FieldPos(len(t.Header))
	return &InputError{File: t.File, Line: line, Col: col, Msg: msg}
}

// decimalComma reports whether the extra fields of rec are explained by
// decimal commas: joining each (integer, digits) pair of fields that
// falls in a column that can hold a decimal gives the header's field
// count. at is the first such pair.
func decimalComma(rec, header []string) (at int, ok bool) {
	extra := len(rec) - len(header)
	at, merges, col := -1, 0, 0
	for j := 0; j < len(rec) && col < len(header); j++ {
		if merges < extra && j+1 < len(rec) && isInteger(rec[j]) && isDigits(rec[j+1]) && decimalColumn(header[col]) {
			if at < 0 {
				at = j
			}
			merges++
			j++
		}
		col++
	}
	return at, at >= 0 && merges == extra
}

// decimalColumn reports whether a column may hold a fractional number:
// not a name, id, k, run, rank or count column.
func decimalColumn(h string) bool {
	switch strings.ToLower(strings.TrimSpace(h)) {
	case "dataset", "method", "metric", "unit", "k", "run", "feature", "user", "item", "model", "rank", "n", "id", "qid", "":
		return false
	}
	return true
}

func isInteger(s string) bool {
	s = strings.TrimSpace(s)
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	return isDigits(s)
}

func isDigits(s string) bool {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Rows returns the number of data records read so far.
func (t *TableReader) Rows() int64 {
	if t.pq != nil {
		return t.pq.Rows()
	}
	return t.rows
}

// Line returns the line of the current record.
func (t *TableReader) Line() int {
	if c := t.csv; c != nil && len(c.lines) == 0 { // an unquoted record: one line (inlined)
		return c.line
	}
	return t.lineOf()
}

func (t *TableReader) lineOf() int {
	if t.pq != nil {
		return t.pq.Line()
	}
	line, _ := t.csv.FieldPos(0)
	return line
}

// Float parses field col of the current record as a decimal number
// (parseDecimal). An empty cell, or one equal to a missing marker
// (SetMissing), is NaN with ok = false; anything else that is not a
// finite decimal — NaN, Inf, hexadecimal, digit separators, a decimal
// comma, a value out of float64's range — is an error naming
// file:line:column and the text.
func (t *TableReader) Float(col int) (v float64, ok bool, err error) {
	if t.plain {
		// the common case: a cell that is a number (an error, an empty
		// cell or a marker is float's)
		if s := t.rec[col]; s != "" {
			if v, bad := parseDecimal(s); bad == numOK {
				return v, true, nil
			}
		}
	}
	return t.float(col)
}

// float is Float past its fast path.
func (t *TableReader) float(col int) (v float64, ok bool, err error) {
	if t.pq != nil {
		return t.pqFloat(col)
	}
	s := t.rec[col]
	if s == "" {
		return 0, false, nil
	}
	if len(t.missing) > 0 && t.isMissing(s) {
		return 0, false, nil
	}
	v, bad := parseDecimal(s)
	if bad != numOK {
		return 0, false, t.Errorf(col, "%s", numberError(s, bad))
	}
	return v, true, nil
}

// pqFloat is Float for Parquet: markers compare with the value's text,
// text columns parse as CSV cells, and NaN or ±Inf stored as a float is
// an error unless declared missing.
func (t *TableReader) pqFloat(col int) (float64, bool, error) {
	if len(t.missing) > 0 && t.isMissing(t.rec[col]) {
		return 0, false, nil
	}
	if t.pq.Text(col) {
		s := t.rec[col]
		if s == "" {
			return 0, false, nil
		}
		v, bad := parseDecimal(s)
		if bad != numOK {
			return 0, false, t.pq.Errorf(col, "%s", numberError(s, bad))
		}
		return v, true, nil
	}
	t.pq.KeepNonFinite() // checked here, against the markers
	v, ok, err := t.pq.Float(col)
	if err == nil && ok && !analyses.Finite(v) {
		text := strconv.FormatFloat(v, 'g', -1, 64) // NaN, +Inf, -Inf
		if len(t.missing) > 0 && (t.isMissing(text) || t.isMissing(strings.TrimPrefix(text, "+"))) {
			return 0, false, nil
		}
		return 0, false, t.pq.Errorf(col, "not a finite number: %s (declare it missing with missing_values = [%q] on the input)", strings.TrimPrefix(text, "+"), strings.TrimPrefix(text, "+"))
	}
	return v, ok, err
}

// Pos returns the line and 1-based column of field col of the current
// record (Parquet: the row, and column 0).
func (t *TableReader) Pos(col int) (line, column int) {
	if t.pq != nil {
		return t.pq.Line(), 0
	}
	return t.csv.FieldPos(col)
}

// Errorf returns an error at field col of the current record.
func (t *TableReader) Errorf(col int, format string, args ...any) error {
	if t.pq != nil {
		return t.pq.Errorf(col, format, args...)
	}
	line, column := t.csv.FieldPos(col)
	return &InputError{File: t.File, Line: line, Col: column, Msg: fmt.Sprintf(format, args...)}
}

func (t *TableReader) wrapCSV(err error) error {
	var se *csvSyntaxError
	if errors.As(err, &se) {
		return &InputError{File: t.File, Line: se.line, Col: se.col, Msg: se.msg}
	}
	var ce *decompressedError
	if errors.As(err, &ce) {
		return &InputError{File: t.File, Line: t.csv.next, Msg: ce.Error()}
	}
	if t.gz != nil {
		if msg := gzipReadError(err, t.csv.next-1); msg != "" {
			return &InputError{File: t.File, Line: t.csv.next, Msg: msg, err: err}
		}
	}
	return fmt.Errorf("%s: %w", t.File, err)
}

// InputError is a problem at a place in an input file.
type InputError struct {
	File      string
	Line, Col int
	Msg       string
	err       error // a wrapped error (Errorf's %w), for errors.Is
}

// Unwrap returns the error an InputError wraps, if any.
func (e *InputError) Unwrap() error { return e.err }

// Error is file:line[:col]: message.
func (e *InputError) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// checkRegular fails unless path is a regular file (after symlinks): a
// FIFO would block the build, a device (/dev/zero) never ends, and
// neither can be read twice the same.
func checkRegular(path, display string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s); inputs must be files", display, fileKind(st.Mode()))
	}
	return checkStored(path, display)
}

// readBufferSize is the size of the read buffer of an opened file.
const readBufferSize = 64 << 10

// readers holds the read buffers of closed files for the next opened
// one. Memory a process touches for the first time is what a short build
// pays most for (a page fault per 4 KiB): one buffer per file, sized to
// the file, cost a build of 21 files of 470 KB a tenth of its time; with
// the buffers reused, files read one after another read through the same
// memory. A buffer is put back only by Close, after which nothing of the
// reader's (a transient record's strings included) may be used.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBufferSize) }}

// newReader returns a read buffer from readers, reading r.
func newReader(r io.Reader) *bufio.Reader {
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	return br
}

// putReader hands a buffer of newReader back to readers.
func putReader(br *bufio.Reader) {
	br.Reset(nil)
	readers.Put(br)
}

// OpenRegular opens a regular file, checked before opening (so a FIFO
// does not block) and again after (in case the path changed).

// OpenRegular opens a file for reading after checking it is a regular
// file (not a directory, device or FIFO), naming it by display in errors.
func OpenRegular(path, display string) (*os.File, error) {
	if err := checkRegular(path, display); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file (%s); inputs must be files", display, fileKind(st.Mode()))
	}
	return f, nil
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// decompressedError is a .gz input that inflates past its cap.
type decompressedError struct{ max int64 }

func (e *decompressedError) Error() string {
	return fmt.Sprintf("decompresses to more than %s, the cap on a decompressed input (raise it with --max-decompressed)", byteSize(e.max))
}

// capReader fails once more than max bytes were read.
type capReader struct {
	r      io.Reader
	n, max int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n > c.max {
		return 0, &decompressedError{c.max}
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.max {
		return n, &decompressedError{c.max}
	}
	return n, err
}

// capDecompressed caps what r yields: 0 is DefaultMaxDecompressed, a
// negative cap none.
func capDecompressed(r io.Reader, max int64) io.Reader {
	switch {
	case max < 0:
		return r
	case max == 0:
		max = DefaultMaxDecompressed
	}
	return &capReader{r: r, max: max}
}

// byteSize writes a size for messages: "1 MiB", "64 GiB", "1500 bytes".
func byteSize(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// numErr says why a cell is not a decimal number.
type numErr uint8

const (
	numOK numErr = iota
	numSyntax
	numNaN
	numInf
	numHex
	numSeparator
	numComma
	numRange
	numUnderflow
)

// parseDecimal parses a number of a delimited file: an optional sign,
// digits with an optional decimal point (at least one digit), an optional
// exponent; spaces around it are allowed. Unlike strconv.ParseFloat it
// takes no NaN, Inf or Infinity (any case), no hexadecimal, no
// underscores, and no value beyond float64's range or so small that it
// rounds to zero. It does not allocate, and the common case (a plain
// decimal of at most 19 digits) is computed here in one pass, correctly
// rounded: a value exact as a float64 integer scaled by a power of ten
// up to 1e22 as strconv's own exact fast path does, a longer one by
// nearestQuotient; the rest goes to strconv.ParseFloat.
func parseDecimal(s string) (float64, numErr) {
	v, ok, plain := plainDecimal(s)
	if ok {
		return v, numOK
	}
	if plain {
		// A plain decimal with more digits than the exact fast path
		// takes (0.38685280723454163): strconv reads that syntax as
		// parseDecimalFull would, which is left the zeros, underflows
		// and ranges to classify.
		if v, err := strconv.ParseFloat(s, 64); err == nil && v != 0 {
			return v, numOK
		}
	}
	return parseDecimalFull(s)
}

// parseDecimalFull is parseDecimal without its fast path.
func parseDecimalFull(s string) (float64, numErr) {
	if n := len(s); n == 0 || s[0] > '9' || s[0] < '+' || s[n-1] > '9' || s[n-1] < '.' {
		s = strings.TrimSpace(s) // rare: a space around, or not a number at all
	}
	i, neg := 0, false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var d decimalDigits
	i = d.scan(s, i)
	if d.digits == 0 {
		return 0, classifyBad(s)
	}
	i, ok := d.exponent(s, i)
	if !ok || i != len(s) {
		return 0, classifyBad(s)
	}
	if v, ok := d.exact(neg); ok {
		return v, numOK
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, numRange // the syntax is right, so the value is out of range
	}
	if v == 0 && d.mant != 0 {
		return 0, numUnderflow
	}
	return v, numOK
}

// decimalDigits is a decimal's significand as parseDecimalFull reads it:
// up to 19 significant digits in mant, scaled by 10^dp.
type decimalDigits struct {
	mant   uint64
	nd, dp int  // significant digits in mant; power of ten to scale mant by
	digits int  // every digit, leading zeros included
	cut    bool // a nonzero digit beyond the 19th was dropped
}

// scan reads the digits from s[i:], with a decimal point, and returns
// where they end.
func (d *decimalDigits) scan(s string, i int) int {
	i = d.run(s, i, false)
	if i < len(s) && s[i] == '.' {
		i = d.run(s, i+1, true)
	}
	return i
}

// run reads a run of digits, before (frac false) or after the point.
func (d *decimalDigits) run(s string, i int, frac bool) int {
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d.digits++
		switch {
		case s[i] == '0' && d.nd == 0: // a leading zero
			if frac {
				d.dp--
			}
		case d.nd < 19:
			d.mant = d.mant*10 + uint64(s[i]-'0')
			d.nd++
			if frac {
				d.dp--
			}
		default:
			if !frac {
				d.dp++
			}
			d.cut = d.cut || s[i] != '0'
		}
	}
	return i
}

// exponent reads an optional exponent at s[i:] into dp; ok is false for
// an "e" without digits.
func (d *decimalDigits) exponent(s string, i int) (int, bool) {
	if i >= len(s) || (s[i] != 'e' && s[i] != 'E') {
		return i, true
	}
	i++
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	exp, ed := 0, 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		ed++
		if exp < 100000 {
			exp = exp*10 + int(s[i]-'0')
		}
	}
	if neg {
		exp = -exp
	}
	d.dp += exp
	return i, ed > 0
}

// exact is the value when it is an exact float64 integer scaled by an
// exact power of ten (one rounding, as strconv's own fast path); ok is
// false otherwise.
func (d *decimalDigits) exact(neg bool) (float64, bool) {
	if d.cut || d.mant > 1<<53 || d.dp < -22 || d.dp > 22 {
		return 0, false
	}
	v := float64(d.mant) // exact
	if d.dp >= 0 {
		v *= float64pow10[d.dp] // one rounding of an exact product
	} else {
		v /= float64pow10[-d.dp]
	}
	if neg {
		v = -v
	}
	return v, true
}

// parsePlainDecimal is parseDecimal's fast path for the shape nearly
// every value of a results or units file has: an optional minus, digits,
// an optional point and digits, nothing else, at most 19 digits (exact as
// a float64 integer before its one scaling, or else read by
// nearestQuotient, which may decline). It declines (ok false) every
// other text, which parseDecimal then parses in full; where it accepts,
// the result is parseDecimal's (FuzzParseDecimal checks both paths).
func parsePlainDecimal(s string) (float64, bool) {
	v, ok, _ := plainDecimal(s)
	return v, ok
}

// plainDecimal is parsePlainDecimal that also tells whether s has the
// plain shape (an optional minus, digits with at most one point) when it
// is too long for the exact path.
func plainDecimal(s string) (v float64, ok, plain bool) {
	i, neg := 0, false
	if len(s) > 0 && s[0] == '-' {
		i, neg = 1, true
	}
	// the digits before the point, then those after it: a loop each,
	// with one test per byte
	var mant uint64
	from := i
	for ; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			break
		}
		mant = mant*10 + uint64(c)
	}
	digits, frac := i-from, 0
	if i < len(s) && s[i] == '.' {
		i++
		from = i
		// eight digits at a time while there are (a value's 17 digits
		// after the point), then one at a time; past 19 digits mant
		// wraps, unused
		for ; i+8 <= len(s); i += 8 {
			w := s[i : i+8]
			x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
			if !eightDigits(x) {
				break
			}
			mant = mant*100000000 + uint64(eightDigitsValue(x))
		}
		for ; i < len(s); i++ {
			c := s[i] - '0'
			if c > 9 {
				break
			}
			mant = mant*10 + uint64(c)
		}
		frac = i - from
		digits += frac
	}
	if i != len(s) {
		return 0, false, false
	}
	if digits == 0 {
		return 0, false, false
	}
	if digits > 19 || frac > 22 {
		return 0, false, true
	}
	if mant > 1<<53 {
		// 17 to 19 significant digits (0.38685280723454163): float64(mant)
		// is not exact, so the quotient is checked against the exact one
		if v, ok = eiselLemire(mant, frac); !ok {
			v, ok = nearestQuotient(mant, frac)
		}
		if ok && neg {
			v = -v
		}
		return v, ok, true
	}
	v = float64(mant) / float64pow10[frac] // exact operands, one rounding
	if neg {
		v = -v
	}
	return v, true, true
}

// eightDigits reports whether the eight bytes of x (little-endian) are
// all ASCII digits (Lemire 2021's test: no byte leaves 0x30-0x39).
func eightDigits(x uint64) bool {
	return (x&0xF0F0F0F0F0F0F0F0)|(((x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0)>>4) == 0x3333333333333333
}

// eightDigitsValue is the number the eight ASCII digits of x
// (little-endian, the first digit in the low byte) spell, in three
// multiplications (Lemire 2021).
func eightDigitsValue(x uint64) uint32 {
	x -= 0x3030303030303030
	x = x*10 + x>>8 // pairs of digits
	x = ((x&0x000000FF000000FF)*(100+(1000000<<32)) + (x>>16&0x000000FF000000FF)*(1+(10000<<32))) >> 32
	return uint32(x)
}

// eiselLemire returns m / 10^k correctly rounded (to nearest, ties to
// even) for 0 < m and k ≤ 22 by Eisel's algorithm as Lemire gives it
// ("Number parsing at a gigabyte per second", Lemire 2021, §5): m, shifted
// to fill 64 bits, times a 128-bit truncation of 10^-k (pow10Neg128)
// gives the quotient's leading bits in one 64×64 multiplication (two
// where the low bits lie at the edge of a carry), and the bits below
// the 54th decide the rounding unless they leave it open (ok false:
// then nearestQuotient decides, and strconv after it).
func eiselLemire(m uint64, k int) (float64, bool) {
	if m == 0 || k < 0 || k >= len(pow10Neg128) {
		return 0, false
	}
	lz := bits.LeadingZeros64(m)
	m <<= uint(lz)
	p := pow10Neg128[k]
	hi, lo := bits.Mul64(m, p[0])
	if hi&0x1FF == 0x1FF && lo+m < m {
		// the truncated low word of the power may carry into the bits
		// that decide: add its product
		yHi, yLo := bits.Mul64(m, p[1])
		mHi, mLo := hi, lo+yHi
		if mLo < lo {
			mHi++
		}
		if mHi&0x1FF == 0x1FF && mLo+1 == 0 && yLo+m < m {
			return 0, false
		}
		hi, lo = mHi, mLo
	}
	top := hi >> 63
	mant := hi >> (top + 9) // 54 bits
	// the binary exponent: ⌊log2 10^-k⌋ (217706/2^16 is log2 10), the
	// shift of m, the bias, and where the product's top bit fell
	exp := uint64(int64(217706*-k>>16)+64+1023-int64(lz)) - (1 ^ top)
	if lo == 0 && hi&0x1FF == 0 && mant&3 == 1 {
		return 0, false // perhaps exactly halfway: the truncation hides it
	}
	mant += mant & 1
	mant >>= 1
	if mant>>53 > 0 {
		mant >>= 1
		exp++
	}
	if exp-1 >= 0x7FF-1 {
		return 0, false // not a normal float64
	}
	return math.Float64frombits(exp<<52 | mant&(1<<52-1)), true
}

// pow10Neg128 holds 10^-k for k = 0 … 22 as eiselLemire reads it:
// ⌊10^-k · 2^(127−e)⌋ with e = ⌊log2 10^-k⌋ (the top bit set), high
// word first, computed exactly once.
var pow10Neg128 = func() (t [23][2]uint64) {
	d := big.NewInt(1)
	for k := range t {
		// 2^s / 10^k in [2^127, 2^128): s is 127 + bits of 10^k, less
		// one where that is already enough
		for s := 126 + d.BitLen(); ; s++ {
			q := new(big.Int).Lsh(big.NewInt(1), uint(s))
			if q.Quo(q, d); q.BitLen() == 128 {
				t[k][0] = new(big.Int).Rsh(q, 64).Uint64()
				t[k][1] = q.Uint64() // the low word
				break
			}
		}
		d.Mul(d, big.NewInt(10))
	}
	return t
}()

// nearestQuotient returns m / 10^k correctly rounded (to nearest, ties
// to even) for 2^53 < m < 10^19 and k ≤ 19, as strconv.ParseFloat
// would: the float quotient (two roundings: within two units in the
// last place) is moved a unit at a time while the exact quotient lies
// beyond the midpoint to its neighbour, each midpoint compared in exact
// 128-bit integer arithmetic (cmpMidpoint). ok is false where it does
// not decide (at the edge of a binade), for strconv to.
func nearestQuotient(m uint64, k int) (float64, bool) {
	c := float64(m) / float64pow10[k]
	for range 4 {
		b := math.Float64bits(c)
		mant := b&(1<<52-1) | 1<<52
		e := int(b>>52&0x7ff) - 1075 // c = mant·2^e
		if mant == 1<<52 || mant == 1<<53-1 {
			return 0, false // a neighbour in another binade
		}
		up, ok := cmpMidpoint(m, k, 2*mant+1, e-1)
		if !ok {
			return 0, false
		}
		if up > 0 {
			c = math.Float64frombits(b + 1)
			continue
		}
		down, ok := cmpMidpoint(m, k, 2*mant-1, e-1)
		if !ok {
			return 0, false
		}
		if down < 0 {
			c = math.Float64frombits(b - 1)
			continue
		}
		switch {
		case up == 0 && mant&1 == 1: // a tie: to the even neighbour
			return math.Float64frombits(b + 1), true
		case down == 0 && mant&1 == 1:
			return math.Float64frombits(b - 1), true
		}
		return c, true
	}
	return 0, false
}

// cmpMidpoint compares m / 10^k with n·2^e exactly: -1, 0 or +1; ok is
// false when a side would not fit in 128 bits.
func cmpMidpoint(m uint64, k int, n uint64, e int) (int, bool) {
	// m / 10^k ⋚ n·2^e  ⇔  m·2^-e ⋚ n·10^k (e ≤ 0), m ⋚ n·10^k·2^e (e > 0)
	rhi, rlo := bits.Mul64(n, uint64pow10[k])
	lhi, llo := uint64(0), m
	if e <= 0 {
		if bits.Len64(m)-e > 127 {
			return 0, false
		}
		lhi, llo = shl128(0, m, uint(-e))
	} else {
		if 64+bits.Len64(rhi)+e > 127 {
			return 0, false
		}
		rhi, rlo = shl128(rhi, rlo, uint(e))
	}
	switch {
	case lhi != rhi:
		return cmpUint(lhi, rhi), true
	case llo != rlo:
		return cmpUint(llo, rlo), true
	}
	return 0, true
}

// shl128 shifts the 128-bit hi:lo left by s < 128 bits.
func shl128(hi, lo uint64, s uint) (uint64, uint64) {
	if s >= 64 {
		return lo << (s - 64), 0
	}
	if s == 0 {
		return hi, lo
	}
	return hi<<s | lo>>(64-s), lo << s
}

func cmpUint(a, b uint64) int {
	if a < b {
		return -1
	}
	return 1
}

// uint64pow10 are the powers of ten a uint64 holds.
var uint64pow10 = [...]uint64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// float64pow10 are the powers of ten a float64 holds exactly.
var float64pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// classifyBad says what a text that is not a decimal looks like.
func classifyBad(s string) numErr {
	t := strings.TrimLeft(s, "+-")
	switch strings.ToLower(t) {
	case "nan":
		return numNaN
	case "inf", "infinity":
		return numInf
	}
	if len(t) > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		return numHex
	}
	if strings.IndexByte(t, '_') > 0 && strings.Trim(t, "0123456789._eE+-") == "" {
		return numSeparator
	}
	if c := strings.IndexByte(t, ','); c > 0 && isDigits(t[:c]) && isDigits(t[c+1:]) {
		return numComma
	}
	return numSyntax
}

// numberError is the message for a cell s that parseDecimal refused.
func numberError(s string, why numErr) string {
	q := Quote(s)
	switch why {
	case numNaN:
		return fmt.Sprintf("not a number: %s (to read it as a missing value, declare missing_values = [%s] on the input)", q, Quote(strings.TrimSpace(s)))
	case numInf:
		return fmt.Sprintf("not a finite number: %s (infinite values are not accepted; to read it as a missing value, declare missing_values = [%s] on the input)", q, Quote(strings.TrimSpace(s)))
	case numHex:
		return fmt.Sprintf("not a decimal number: %s (hexadecimal is not accepted)", q)
	case numSeparator:
		return fmt.Sprintf("not a decimal number: %s (digit separators are not accepted)", q)
	case numComma:
		return fmt.Sprintf("not a number: %s — a decimal comma? use a dot", q)
	case numRange:
		return fmt.Sprintf("number out of range: %s (beyond ±1.8e308)", q)
	case numUnderflow:
		return fmt.Sprintf("number too small: %s rounds to 0 (the smallest is 4.9e-324)", q)
	}
	return fmt.Sprintf("not a number: %s", q)
}

// maxQuoted is the most bytes of input a message quotes.
const maxQuoted = 200

// Quote quotes input text for a message (Go syntax, so control
// characters and invalid UTF-8 are escaped), at most maxQuoted bytes of
// it, with "…" when cut.
func Quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(cutUTF8(s, maxQuoted)) + "…"
}

// Clip cuts text that is safe to print (a checked name) to maxQuoted
// bytes, with "…" when cut.
func Clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	return cutUTF8(s, maxQuoted) + "…"
}

// cutUTF8 returns at most n bytes of s, not splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := 0; i < utf8.UTFMax-1 && n > 0 && !utf8.RuneStart(s[n]); i++ {
		n--
	}
	return s[:n]
}

// FormulaStart says why a name would start a formula when a spreadsheet
// opens the CSV tables of the site it reaches (=, +, @, or - followed by
// anything but a digit: "=HYPERLINK(…)", "-cmd"; a tab or carriage
// return is a control character, which BadName refuses), or "" when it
// would not. Names are refused at their source rather than written with
// a leading quote, which would change the ids pandas reads back; "-1"
// and "-0.5" read as numbers and stay allowed.
func FormulaStart(s string) string {
	if s == "" {
		return ""
	}
	switch c := s[0]; {
	case c == '=' || c == '+' || c == '@':
		return fmt.Sprintf("a leading %q, which a spreadsheet opening the site's CSV tables reads as a formula; rename it", string(c))
	case c == '-' && len(s) > 1 && (s[1] < '0' || s[1] > '9'):
		return "a leading \"-\" before a non-digit, which a spreadsheet opening the site's CSV tables reads as a formula; rename it"
	}
	return ""
}

// BadName says why s cannot be a name (a dataset, method, metric, unit,
// feature or header cell) — invalid UTF-8, a control character, a
// bidirectional override — or "" when it can. Names go into CSV, HTML,
// SVG and terminal messages.
func BadName(s string) string {
	i := 0
	for ; i+8 <= len(s); i += 8 { // eight plain bytes at a time: a unit id of every row
		w := s[i : i+8] // one bounds check, one load
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		// a byte < 0x20 (borrows into its high bit), 0x7f (+1 carries
		// into it) or ≥ 0x80 (has it) leaves its high bit set
		if (x-0x2020202020202020|(x&0x7f7f7f7f7f7f7f7f+0x0101010101010101)|x)&0x8080808080808080 != 0 {
			break
		}
	}
	if i+4 <= len(s) { // and four (a unit id of 4 to 7 bytes)
		w := s[i : i+4]
		x := uint32(w[0]) | uint32(w[1])<<8 | uint32(w[2])<<16 | uint32(w[3])<<24
		if (x-0x20202020|(x&0x7f7f7f7f+0x01010101)|x)&0x80808080 == 0 {
			i += 4
		}
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return fmt.Sprintf("a control character (%U)", rune(c))
		}
		if c >= 0x80 {
			return badNameRunes(s[i:])
		}
	}
	return ""
}

func badNameRunes(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return fmt.Sprintf("invalid UTF-8 (byte 0x%02X)", s[i])
		case unicode.IsControl(r):
			return fmt.Sprintf("a control character (%U)", r)
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
			return fmt.Sprintf("a bidirectional control character (%U)", r)
		case unicode.Is(unicode.Cf, r):
			// Zero-width and other invisible format characters (U+200B,
			// U+FEFF, …) make two names that look alike differ.
			return fmt.Sprintf("an invisible format character (%U)", r)
		}
		i += size
	}
	return ""
}

// NameError checks a name read from field col of the current record; what
// says which name ("method name"). nil when the name is fine.
func (t *TableReader) NameError(col int, what, name string) error {
	why := BadName(name)
	if why == "" && what != "unit id" {
		// unit ids never reach a table of the site; every other name does
		why = FormulaStart(name)
	}
	switch {
	case why == "":
		return nil
	case col < 0:
		return fmt.Errorf("%s: %s %s (from the file's path or its input entry) holds %s", t.File, what, Quote(name), why)
	}
	return t.Errorf(col, "%s %s holds %s", what, Quote(name), why)
}

// Errorf is an error at a line of a file (as InputError): its
// position is known by its type, not by the text of its message. A %w
// in format is kept for errors.Is and errors.As.
func Errorf(file string, line int, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &InputError{File: file, Line: line, Msg: err.Error(), err: errors.Unwrap(err)}
}

// SetOutside marks a file outside the study directory (allow_outside):
// its errors do not show its header.
func (t *TableReader) SetOutside(outside bool) { t.outside = outside }

// DataRange reports whether t can be read in byte ranges (Section): an
// uncompressed CSV or TSV file whose header was read. start is where its
// data begins, size the file's size.
func (t *TableReader) DataRange() (start, size int64, ok bool) {
	if t.csv == nil || t.dataStart < 0 || t.f == nil {
		return 0, 0, false
	}
	st, err := t.f.Stat()
	if err != nil {
		return 0, 0, false
	}
	return t.dataStart, st.Size(), true
}

// LinesRead is how many lines t has read: the header's, and for a
// Section the lines of its records.
func (t *TableReader) LinesRead() int { return t.csv.next - 1 }

// SetRows sets the count of data records (Rows) of a file read in
// sections, once they are all read.
func (t *TableReader) SetRows(n int64) { t.rows = n }

// LineEndAfter returns the offset just after the first line end at or
// after off (size when there is none before the end of the file, or
// within 2 MiB: lines are at most 1 MiB, so the range reader reports it).
func (t *TableReader) LineEndAfter(off, size int64) int64 {
	if off >= size {
		return size
	}
	buf := make([]byte, 4<<10)
	for pos := off; pos < size && pos < off+2<<20; {
		n, err := t.f.ReadAt(buf, pos)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1
		}
		if err != nil {
			break
		}
		pos += int64(n)
	}
	return size
}

// ParquetColumns returns the Parquet reader of t for reading by columns
// (NextColumns), or nil when t is not a Parquet file or has missing
// markers (SetMissing: they compare with each cell's text, which only
// the row reader keeps).
func (t *TableReader) ParquetColumns() *parquet.Reader {
	if t.pq == nil || len(t.missing) > 0 {
		return nil
	}
	return t.pq
}

// SeekRow makes row k of the batch the current row of t (read by
// NextColumns), as Next would: Errorf, Float, Line and Rows refer to it.
// It returns the row's record, which the next SeekRow reuses.
func (t *TableReader) SeekRow(k int) []string {
	t.rec = t.pq.Seek(k)
	return t.rec
}
