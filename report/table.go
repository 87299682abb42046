package report

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// TableReader streams the records of a CSV or TSV file (optionally .gz),
// UTF-8 with or without BOM, LF or CRLF. Columns are found by header name,
// case-insensitively, through an optional mapping of expected names onto
// the file's own.
type TableReader struct {
	File   string // as shown in errors (relative to the manifest where possible)
	Header []string
	cols   map[string]int
	f      *os.File
	gz     *gzip.Reader
	csv    *recordReader
	rec    []string
	rows   int64
	pq     *ParquetReader // .parquet: every method delegates to it
}

// OpenTable opens path for reading. display is the name used in errors.
func OpenTable(path, display string, mapping map[string]string) (*TableReader, error) {
	if IsParquet(path) {
		p, err := OpenParquet(path, display, mapping)
		if err != nil {
			return nil, err
		}
		return &TableReader{File: display, Header: p.Header, pq: p}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	t := &TableReader{File: display, f: f}
	var r io.Reader = bufio.NewReaderSize(f, 1<<20)
	name := strings.ToLower(path)
	if strings.HasSuffix(name, ".gz") {
		t.gz, err = gzip.NewReader(r)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: not a gzip file: %w", display, err)
		}
		r = bufio.NewReaderSize(t.gz, 1<<20)
		name = strings.TrimSuffix(name, ".gz")
	}
	br := r.(*bufio.Reader)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	if filepath.Ext(name) == ".tsv" {
		t.csv = newRecordReader(br, '\t', false)
	} else {
		t.csv = newRecordReader(br, ',', true)
	}
	c := t.csv
	head, err := c.Read()
	if err == io.EOF {
		t.Close()
		return nil, fmt.Errorf("%s: empty file (no header row)", display)
	}
	if err != nil {
		t.Close()
		return nil, t.wrapCSV(err)
	}
	t.Header = append([]string(nil), head...)
	if len(t.Header) == 1 && t.Header[0] == "" {
		t.Close()
		return nil, fmt.Errorf("%s: empty file (no header row)", display)
	}
	t.cols = map[string]int{}
	for i, h := range t.Header {
		h = strings.ToLower(strings.TrimSpace(h))
		if _, dup := t.cols[h]; !dup {
			t.cols[h] = i
		}
	}
	for want, have := range mapping {
		if i, ok := t.cols[strings.ToLower(have)]; ok {
			t.cols[strings.ToLower(want)] = i
		} else {
			t.Close()
			return nil, fmt.Errorf("%s:1: no column %q (mapped from %q)%s", display, have, want, suggestColumn(have, t.Header))
		}
	}
	return t, nil
}

// Close releases the file.
func (t *TableReader) Close() error {
	if t.pq != nil {
		return t.pq.Close()
	}
	if t.gz != nil {
		t.gz.Close()
	}
	return t.f.Close()
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
	return -1, fmt.Errorf("%s:1: no column %q (header: %s)%s", t.File, name, strings.Join(t.Header, ","), suggestColumn(name, t.Header))
}

func suggestColumn(name string, header []string) string {
	lower := make([]string, len(header))
	for i, h := range header {
		lower[i] = strings.ToLower(h)
	}
	return analyses.DidYouMean(strings.ToLower(name), lower)
}

// Next returns the next record, or io.EOF. The slice is reused.
func (t *TableReader) Next() ([]string, error) {
	if t.pq != nil {
		return t.pq.Next()
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
	if len(rec) < len(t.Header) {
		line, _ := t.csv.FieldPos(0)
		return nil, fmt.Errorf("%s:%d: %d fields, the header has %d", t.File, line, len(rec), len(t.Header))
	}
	return rec, nil
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
	if t.pq != nil {
		return t.pq.Line()
	}
	line, _ := t.csv.FieldPos(0)
	return line
}

// Float parses field col of the current record. An empty cell is NaN with
// ok = false; text that is not a number is an error naming
// file:line:column and the text.
func (t *TableReader) Float(col int) (v float64, ok bool, err error) {
	if t.pq != nil {
		return t.pq.Float(col)
	}
	s := t.rec[col]
	if s == "" {
		return 0, false, nil
	}
	v, err = strconv.ParseFloat(s, 64)
	if err != nil {
		if s2 := strings.TrimSpace(s); s2 != s {
			if v, err2 := strconv.ParseFloat(s2, 64); err2 == nil {
				return v, true, nil
			}
		}
		return 0, false, t.Errorf(col, "not a number: %q", s)
	}
	return v, true, nil
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
	return fmt.Errorf("%s: %w", t.File, err)
}

// InputError is a problem at a place in an input file.
type InputError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *InputError) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}
