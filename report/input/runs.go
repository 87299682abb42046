package input

// Readers for offline_metrics (SPEC §5.11): ranked runs, held-out truth and
// rating predictions, as tables (`user,item,rank[,score]`, CSV or TSV,
// optionally .gz) or in TREC format (`qid Q0 doc rank score tag` runs and
// `qid iter doc rel` qrels). Runs can hold a hundred million lines, so they
// are read with a byte-level splitter rather than encoding/csv, one user's
// list at a time, and every problem is reported at its file:line.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/offline"
)

// RunFormat is how a run or truth file is laid out.
type RunFormat int

const (
	FormatTable RunFormat = iota // header row, comma or tab (.tsv)
	FormatTREC                   // whitespace-separated, no header
)

// RunFormatOf picks a file's format: "csv" and "trec" force one; "auto"
// reads .csv and .tsv (optionally .gz) as tables and anything else
// (.run, .txt, .qrels, …) as TREC.
func RunFormatOf(path, opt string) RunFormat {
	switch opt {
	case "csv":
		return FormatTable
	case "trec":
		return FormatTREC
	}
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(path), ".gz")))
	if ext == ".csv" || ext == ".tsv" {
		return FormatTable
	}
	return FormatTREC
}

// lineReader yields the lines of a file (gzip by .gz), without the line
// break, BOM stripped, counting lines from 1.
type lineReader struct {
	file string
	f    *os.File
	gz   *gzip.Reader
	br   *bufio.Reader
	line int
	long []byte
}

// openLines opens a regular file for reading lines; a .gz file may
// inflate to DefaultMaxDecompressed bytes.
func openLines(path, display string) (*lineReader, error) {
	return openLinesCapped(path, display, 0)
}

// openLinesCapped is openLines with a cap on what a .gz file may inflate
// to (0: DefaultMaxDecompressed; negative: none).
func openLinesCapped(path, display string, maxDecompressed int64) (*lineReader, error) {
	f, err := OpenRegular(path, display)
	if err != nil {
		return nil, err
	}
	l := &lineReader{file: display, f: f}
	var r io.Reader = f
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		l.gz, err = gzip.NewReader(bufio.NewReaderSize(f, 1<<16))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: not a gzip file: %w", display, err)
		}
		r = capDecompressed(l.gz, maxDecompressed)
	}
	l.br = bufio.NewReaderSize(r, readBufferSize(f))
	if bom, _ := l.br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		l.br.Discard(3)
	}
	return l, nil
}

func (l *lineReader) Close() {
	if l.gz != nil {
		l.gz.Close()
	}
	l.f.Close()
}

// next returns the next line (valid until the following call) or io.EOF.
// A line longer than MaxLineBytes is an error.
func (l *lineReader) next() ([]byte, error) {
	b, err := l.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.long = append(l.long[:0], b...)
		for err == bufio.ErrBufferFull {
			if len(l.long) > MaxLineBytes+2 { // + "\r\n"
				return nil, l.errorf(l.line+1, "line longer than %s", byteSize(MaxLineBytes))
			}
			b, err = l.br.ReadSlice('\n')
			l.long = append(l.long, b...)
		}
		b = l.long
	}
	if err != nil && err != io.EOF {
		var ce *decompressedError
		if errors.As(err, &ce) {
			return nil, l.errorf(l.line+1, "%v", ce)
		}
		return nil, Errorf(l.file, l.line+1, "%w", err)
	}
	if len(b) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	l.line++
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) > MaxLineBytes {
		return nil, l.errorf(l.line, "line longer than %s", byteSize(MaxLineBytes))
	}
	return b, nil
}

func (l *lineReader) errorf(line int, format string, args ...any) error {
	return &InputError{File: l.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// splitFields splits a table line on delim (quotes honoured for commas,
// RFC 4180 without line breaks inside quotes) or, with delim 0, on runs
// of spaces and tabs (TREC). The slices point into line or into scratch.
func splitFields(line []byte, delim byte, dst [][]byte, scratch *[]byte) ([][]byte, error) {
	dst = dst[:0]
	switch {
	case delim == 0:
		return splitWhitespace(line, dst), nil
	case delim == '\t' || bytes.IndexByte(line, '"') < 0:
		for {
			i := bytes.IndexByte(line, delim)
			if i < 0 {
				return append(dst, line), nil
			}
			dst = append(dst, line[:i])
			line = line[i+1:]
		}
	}
	return splitQuoted(line, delim, dst, scratch)
}

// splitWhitespace cuts a line at runs of spaces and tabs. A byte loop:
// fields are short, and bytes.IndexAny builds its set on every call.
func splitWhitespace(line []byte, dst [][]byte) [][]byte {
	i, n := 0, len(line)
	for {
		for i < n && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == n {
			return dst
		}
		j := i
		for j < n && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		dst = append(dst, line[i:j])
		i = j
	}
}

// splitQuoted cuts a line with quoted fields: each field is unquoted into
// scratch, then sliced from it.
func splitQuoted(line []byte, delim byte, dst [][]byte, scratch *[]byte) ([][]byte, error) {
	buf := (*scratch)[:0]
	var ends []int
	for i := 0; ; {
		var err error
		if i < len(line) && line[i] == '"' {
			buf, i, err = unquoteField(line, i+1, delim, buf)
		} else {
			buf, i, err = plainField(line, i, delim, buf)
		}
		if err != nil {
			return nil, err
		}
		ends = append(ends, len(buf))
		if i >= len(line) {
			break
		}
		i++ // the delimiter
		if i == len(line) {
			ends = append(ends, len(buf)) // trailing empty field
			break
		}
	}
	*scratch = buf
	start := 0
	for _, e := range ends {
		dst = append(dst, buf[start:e])
		start = e
	}
	return dst, nil
}

// unquoteField appends the quoted field starting after its quote at i
// (doubled quotes are one) and returns where it ends.
func unquoteField(line []byte, i int, delim byte, buf []byte) ([]byte, int, error) {
	for {
		j := bytes.IndexByte(line[i:], '"')
		if j < 0 {
			return nil, 0, errors.New("unterminated quoted field")
		}
		buf = append(buf, line[i:i+j]...)
		i += j + 1
		if i < len(line) && line[i] == '"' {
			buf = append(buf, '"')
			i++
			continue
		}
		break
	}
	if i < len(line) && line[i] != delim {
		return nil, 0, fmt.Errorf("extraneous text after a quoted field")
	}
	return buf, i, nil
}

// plainField appends the unquoted field at i and returns where it ends.
func plainField(line []byte, i int, delim byte, buf []byte) ([]byte, int, error) {
	j := bytes.IndexByte(line[i:], delim)
	if j < 0 {
		j = len(line) - i
	}
	if bytes.IndexByte(line[i:i+j], '"') >= 0 {
		return nil, 0, fmt.Errorf("bare \" in an unquoted field")
	}
	return append(buf, line[i:i+j]...), i + j, nil
}

// tableColumns reads a table's header and finds the named columns (-1
// when an optional one is absent); "#" is the number of columns. Header
// cells must be names (valid UTF-8, no control character), none twice.
func tableColumns(l *lineReader, delim byte, required, optional []string) (map[string]int, error) {
	head, err := l.next()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file (no header row)", l.file)
	}
	if err != nil {
		return nil, err
	}
	var scratch []byte
	fields, err := splitFields(head, delim, nil, &scratch)
	if err != nil {
		return nil, l.errorf(1, "%v", err)
	}
	names := make([]string, len(fields))
	cols := map[string]int{}
	for i, f := range fields {
		if why := BadName(string(f)); why != "" {
			return nil, l.errorf(1, "header cell %d, %s, holds %s", i+1, Quote(string(f)), why)
		}
		names[i] = strings.ToLower(strings.TrimSpace(string(f)))
		if j, dup := cols[names[i]]; dup && names[i] != "" {
			return nil, l.errorf(1, "column %s appears twice in the header (columns %d and %d); rename one", Quote(names[i]), j+1, i+1)
		}
		cols[names[i]] = i
	}
	out := map[string]int{"#": len(fields)}
	for _, r := range required {
		i, ok := cols[r]
		if !ok {
			return nil, l.errorf(1, "no column %q (header: %s)%s", r, Clip(strings.Join(names, ",")), analyses.DidYouMean(r, names))
		}
		out[r] = i
	}
	for _, o := range optional {
		if i, ok := cols[o]; ok {
			out[o] = i
		} else {
			out[o] = -1
		}
	}
	return out, nil
}

func delimOf(path string) byte {
	if strings.HasSuffix(strings.TrimSuffix(strings.ToLower(path), ".gz"), ".tsv") {
		return '\t'
	}
	return ','
}

func trimBytes(b []byte) []byte {
	if len(b) > 0 && b[0] > ' ' && b[len(b)-1] > ' ' {
		return b // the common case, without TrimSpace's rune checks
	}
	return bytes.TrimSpace(b)
}

// parseFloatBytes parses a decimal number (parseDecimal) without
// allocating.
func parseFloatBytes(b []byte) (float64, numErr) {
	return parseDecimal(string(trimBytes(b)))
}

// numberProblem is the message for field b, a what, that parseFloatBytes
// refused: `score "x" is not a number`, with the reason for the
// special cases (NaN, Inf, hexadecimal, …).
func numberProblem(what string, b []byte, why numErr) string {
	msg := fmt.Sprintf("%s %s is not a number", what, Quote(string(b)))
	switch why {
	case numNaN, numInf:
		return msg + " (NaN and infinite values are not accepted)"
	case numHex:
		return msg + " (hexadecimal is not accepted)"
	case numSeparator:
		return msg + " (digit separators are not accepted)"
	case numComma:
		return msg + " (a decimal comma? use a dot)"
	case numRange:
		return msg + " (out of float64's range)"
	case numUnderflow:
		return msg + " (so small it rounds to 0)"
	}
	return msg
}

// parseRank parses a positive decimal integer ("3", or "3.0", "3e0").
func parseRank(b []byte) (int, bool) {
	b = trimBytes(b)
	if len(b) == 0 || len(b) > 9 {
		if v, bad := parseFloatBytes(b); bad == numOK && v == math.Trunc(v) && v >= -1e9 && v <= 1e9 {
			return int(v), true // "3.0"
		}
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			if v, bad := parseFloatBytes(b); bad == numOK && v == math.Trunc(v) {
				return int(v), true
			}
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// fieldCount checks a table line's number of fields against the
// header's: fewer than the columns read is `n fields, the header needs
// m`, any other difference `n fields, the header has m`, with a guess at
// the cause (a decimal comma, a trailing separator).
func fieldCount(l *lineReader, fields [][]byte, want, header int, delim byte) error {
	if len(fields) < want {
		return l.errorf(l.line, "%d fields, the header needs %d", len(fields), want)
	}
	if header == 0 || len(fields) == header {
		return nil
	}
	msg := fmt.Sprintf("%d fields, the header has %d", len(fields), header)
	if len(fields) > header {
		rec := make([]string, len(fields))
		trailing := true
		for i, f := range fields {
			rec[i] = string(f)
			if i >= header {
				trailing = trailing && len(trimBytes(f)) == 0
			}
		}
		hdr := make([]string, header)
		for i := range hdr {
			hdr[i] = "x" // any column of a run may hold a decimal
		}
		if at, ok := decimalComma(rec, hdr); ok {
			msg += fmt.Sprintf(" — a decimal comma in %s? quote the value or use a dot", Quote(rec[at]+string(delim)+rec[at+1]))
		} else if trailing {
			msg += " — a trailing separator?"
		}
	}
	return l.errorf(l.line, "%s", msg)
}

// ScanTruthCapped calls fn for every row of a truth file
// (`user,item[,relevance]` or TREC qrels `qid iter doc rel`), with a
// decompressed-size cap (0: the default), and returns its rows; an error
// of fn is placed at the row's line.
func ScanTruthCapped(path, display string, format RunFormat, maxDecompressed int64, fn func(user, item []byte, rel float64, line int) error) (int64, error) {
	l, err := openLinesCapped(path, display, maxDecompressed)
	if err != nil {
		return 0, err
	}
	defer l.Close()
	var delim byte
	ucol, icol, rcol, want, header := 0, 2, 3, 4, 0
	if format == FormatTable {
		delim = delimOf(path)
		cols, err := tableColumns(l, delim, []string{"user", "item"}, []string{"relevance"})
		if err != nil {
			return 0, err
		}
		ucol, icol, rcol, header = cols["user"], cols["item"], cols["relevance"], cols["#"]
		want = max(ucol, icol, rcol) + 1
	}
	var fields [][]byte
	var scratch []byte
	var lastUser []byte // checked as a name when it changes
	var rows int64
	for {
		line, err := l.next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		if len(trimBytes(line)) == 0 {
			continue
		}
		fields, err = splitFields(line, delim, fields, &scratch)
		if err != nil {
			return rows, l.errorf(l.line, "%v", err)
		}
		if format == FormatTREC && len(fields) != 4 {
			return rows, l.errorf(l.line, "%d fields, a TREC qrels line has 4: qid iter docno rel", len(fields))
		}
		if err := fieldCount(l, fields, want, header, delim); err != nil {
			return rows, err
		}
		rel := 1.0
		if format == FormatTREC {
			// trec_eval's levels are integers; a negative one is a judged
			// document left out of the pool (not relevant, unjudged for bpref).
			lv, ok := parseLevel(fields[rcol])
			if !ok {
				return rows, l.errorf(l.line, "relevance level %s is not an integer (TREC qrels levels are integers: -1, 0, 1, 2, …)", Quote(string(fields[rcol])))
			}
			rel = float64(lv)
		} else if rcol >= 0 {
			var bad numErr
			if rel, bad = parseFloatBytes(fields[rcol]); bad != numOK {
				return rows, l.errorf(l.line, "%s", numberProblem("relevance", fields[rcol], bad))
			}
		}
		if user := trimBytes(fields[ucol]); !bytes.Equal(user, lastUser) {
			if why := BadName(string(user)); why != "" {
				return rows, l.errorf(l.line, "user id %s holds %s", Quote(string(user)), why)
			}
			lastUser = append(lastUser[:0], user...)
		}
		rows++
		if err := fn(trimBytes(fields[ucol]), trimBytes(fields[icol]), rel, l.line); err != nil {
			return rows, l.errorf(l.line, "%v", err)
		}
	}
}

// RunReader streams a run (or predictions) file one user's block at a
// time: the consecutive lines of one user, in rank order.
type RunReader struct {
	l      *lineReader
	format RunFormat
	delim  byte
	// columns (table format); -1 when absent
	ucol, icol, rcol, scol, pcol int
	want                         int
	predictions                  bool
	byScore                      bool // order by score (TREC, or no rank column)

	header  int // fields of the header (table format)
	fields  [][]byte
	scratch []byte
	pending bool // the current line starts the next block
	eof     bool

	// sorted groups a TREC run whose queries are not contiguous.
	sorted *trecSorter
	// tab reads a mapped table or a Parquet file (runs_table.go) instead
	// of l.
	tab *TableReader

	user  []byte
	arena []byte
	rows  []runRow
	items [][]byte
	preds []float64
	Rows  int64
}

type runRow struct {
	off, end int
	rank     int
	score    float64
	line     int
}

// OpenRunCapped opens a ranked run (predictions: `user,item,prediction`)
// with a decompressed-size cap (0: the default).
func OpenRunCapped(path, display string, format RunFormat, predictions bool, maxDecompressed int64) (*RunReader, error) {
	l, err := openLinesCapped(path, display, maxDecompressed)
	if err != nil {
		return nil, err
	}
	r := &RunReader{l: l, format: format, predictions: predictions, rcol: -1, scol: -1, pcol: -1}
	if predictions && format == FormatTREC {
		l.Close()
		return nil, fmt.Errorf("%s: predictions must be a table (user,item,prediction), not TREC", display)
	}
	switch {
	case format == FormatTREC:
		r.ucol, r.icol, r.rcol, r.scol, r.want = 0, 2, 3, 4, 6
		r.byScore = true
		grouped, err := trecGrouped(path, display, maxDecompressed)
		if err != nil {
			l.Close()
			return nil, err
		}
		if !grouped {
			if r.sorted, err = newTrecSorter(r); err != nil {
				l.Close()
				return nil, err
			}
		}
	case predictions:
		r.delim = delimOf(path)
		cols, err := tableColumns(l, r.delim, []string{"user", "item", "prediction"}, nil)
		if err != nil {
			l.Close()
			return nil, err
		}
		r.ucol, r.icol, r.pcol, r.header = cols["user"], cols["item"], cols["prediction"], cols["#"]
		r.want = max(r.ucol, r.icol, r.pcol) + 1
	default:
		r.delim = delimOf(path)
		cols, err := tableColumns(l, r.delim, []string{"user", "item"}, []string{"rank", "score"})
		if err != nil {
			l.Close()
			return nil, err
		}
		r.ucol, r.icol, r.rcol, r.scol, r.header = cols["user"], cols["item"], cols["rank"], cols["score"], cols["#"]
		if r.rcol < 0 && r.scol < 0 {
			l.Close()
			return nil, l.errorf(1, "no column \"rank\" (or \"score\" to rank by): want user,item,rank[,score]")
		}
		r.byScore = r.rcol < 0
		r.want = max(r.ucol, r.icol, r.rcol, r.scol) + 1
	}
	return r, nil
}

// Close closes the run file (and its spilled chunks, when it was sorted).
func (r *RunReader) Close() {
	if r.sorted != nil {
		r.sorted.Close()
	}
	if r.tab != nil {
		r.tab.Close()
		return
	}
	r.l.Close()
}

// lineNo is the line of the current record (a Parquet file's row).
func (r *RunReader) lineNo() int {
	if r.tab != nil {
		return r.tab.Line()
	}
	return r.l.line
}

// file is the file's name as errors show it.
func (r *RunReader) file() string {
	if r.tab != nil {
		return r.tab.File
	}
	return r.l.file
}

func (r *RunReader) errorf(line int, format string, args ...any) error {
	return &InputError{File: r.file(), Line: line, Msg: fmt.Sprintf(format, args...)}
}

// readLine reads and splits the next non-blank line; io.EOF at the end.
func (r *RunReader) readLine() error {
	if r.tab != nil {
		return r.readRecord()
	}
	for {
		line, err := r.l.next()
		if err != nil {
			return err
		}
		if len(trimBytes(line)) == 0 {
			continue
		}
		r.fields, err = splitFields(line, r.delim, r.fields, &r.scratch)
		if err != nil {
			return r.errorf(r.lineNo(), "%v", err)
		}
		if r.format == FormatTREC && len(r.fields) < 6 {
			return r.errorf(r.lineNo(), "%d fields, a TREC run line has 6: qid Q0 docno rank score tag", len(r.fields))
		}
		// Text after the sixth field is ignored, as trec_eval ignores it.
		if err := fieldCount(r.l, r.fields, r.want, r.header, r.delim); err != nil {
			return err
		}
		if len(trimBytes(r.fields[r.ucol])) == 0 {
			return r.errorf(r.lineNo(), "empty user id")
		}
		if len(trimBytes(r.fields[r.icol])) == 0 {
			return r.errorf(r.lineNo(), "empty item id")
		}
		return nil
	}
}

// addRow appends the current line to the block.
func (r *RunReader) addRow() error {
	it := trimBytes(r.fields[r.icol])
	row := runRow{off: len(r.arena), line: r.lineNo()}
	r.arena = append(r.arena, it...)
	row.end = len(r.arena)
	switch {
	case r.predictions:
		v, bad := parseFloatBytes(r.fields[r.pcol])
		if bad != numOK {
			return r.errorf(r.lineNo(), "%s", numberProblem("prediction", r.fields[r.pcol], bad))
		}
		row.score = v
	case r.byScore:
		v, bad := parseFloatBytes(r.fields[r.scol])
		if bad != numOK {
			return r.errorf(r.lineNo(), "%s", numberProblem("score", r.fields[r.scol], bad))
		}
		row.score = v
	default:
		k, ok := parseRank(r.fields[r.rcol])
		if !ok || k < 1 {
			return r.errorf(r.lineNo(), "rank %s is not a positive integer", Quote(string(r.fields[r.rcol])))
		}
		row.rank = k
	}
	r.rows = append(r.rows, row)
	return nil
}

// Next reads the next user's block: the user and the items in rank order
// (predictions: in file order, with Preds). io.EOF after the last block.
func (r *RunReader) Next() (user []byte, items [][]byte, err error) {
	if r.eof {
		return nil, nil, io.EOF
	}
	r.rows = r.rows[:0]
	r.arena = r.arena[:0]
	if r.sorted != nil {
		if err := r.sorted.nextBlock(r); err != nil {
			if err == io.EOF {
				r.eof = true
			}
			return nil, nil, err
		}
		return r.finishBlock()
	}
	if !r.pending {
		if err := r.readLine(); err != nil {
			if err == io.EOF {
				r.eof = true
			}
			return nil, nil, err
		}
	}
	r.pending = false
	r.user = append(r.user[:0], trimBytes(r.fields[r.ucol])...)
	if why := BadName(string(r.user)); why != "" {
		return nil, nil, r.errorf(r.lineNo(), "user id %s holds %s", Quote(string(r.user)), why)
	}
	if err := r.addRow(); err != nil {
		return nil, nil, err
	}
	for {
		err := r.readLine()
		if err == io.EOF {
			r.eof = true
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if !bytes.Equal(trimBytes(r.fields[r.ucol]), r.user) {
			r.pending = true
			break
		}
		if err := r.addRow(); err != nil {
			return nil, nil, err
		}
	}
	return r.finishBlock()
}

// finishBlock orders the block Next gathered and lists its items.
func (r *RunReader) finishBlock() (user []byte, items [][]byte, err error) {
	r.Rows += int64(len(r.rows))
	if err := r.order(); err != nil {
		return nil, nil, err
	}
	r.items = r.items[:0]
	r.preds = r.preds[:0]
	for _, row := range r.rows {
		r.items = append(r.items, r.arena[row.off:row.end])
		r.preds = append(r.preds, row.score)
	}
	return r.user, r.items, nil
}

// order sorts the block into rank order and checks the ranks. Ranks must
// run 1, 2, 3, … without a gap or a repeat. By score (TREC runs, and
// tables without a rank column) the order is trec_eval's: score
// descending, ties broken by item id descending (byte order), the TREC
// rank column being ignored as trec_eval ignores it.
func (r *RunReader) order() error {
	if r.predictions {
		return nil
	}
	item := func(x runRow) []byte { return r.arena[x.off:x.end] }
	if r.byScore {
		cmp := func(a, b runRow) int {
			if a.score != b.score {
				if a.score > b.score {
					return -1
				}
				return 1
			}
			return bytes.Compare(item(b), item(a))
		}
		if !slices.IsSortedFunc(r.rows, cmp) {
			slices.SortStableFunc(r.rows, cmp)
		}
		return nil
	}
	cmp := func(a, b runRow) int { return a.rank - b.rank }
	if !slices.IsSortedFunc(r.rows, cmp) {
		slices.SortStableFunc(r.rows, cmp)
	}
	for i, row := range r.rows {
		switch {
		case i == 0 && row.rank != 1:
			return r.errorf(row.line, "user %s: ranks start at %d, want 1", Quote(string(r.user)), row.rank)
		case i > 0 && row.rank == r.rows[i-1].rank:
			return r.errorf(max(row.line, r.rows[i-1].line), "user %s: rank %d appears twice (lines %d and %d)", Quote(string(r.user)), row.rank, min(row.line, r.rows[i-1].line), max(row.line, r.rows[i-1].line))
		case i > 0 && row.rank != r.rows[i-1].rank+1:
			return r.errorf(row.line, "user %s: rank gap: rank %d follows rank %d", Quote(string(r.user)), row.rank, r.rows[i-1].rank)
		}
	}
	return nil
}

// ListError places an *offline.ListError of the current block at
// its line.
func (r *RunReader) ListError(err error) error {
	var le *offline.ListError
	if !errors.As(err, &le) {
		return err
	}
	line := r.rows[0].line
	if le.Pos >= 0 && le.Pos < len(r.rows) {
		line = r.rows[le.Pos].line
	}
	if le.Other > 0 && le.Other <= len(r.rows) {
		return r.errorf(line, "%s (lines %d and %d)", le.Msg, min(line, r.rows[le.Other-1].line), max(line, r.rows[le.Other-1].line))
	}
	return r.errorf(line, "%s", le.Msg)
}

// RunBlock is a copy of one user's block, handed from the reading
// goroutine to the evaluating one.
type RunBlock struct {
	user  []byte
	arena []byte
	items [][]byte
	preds []float64
	lines []int
}

type runBatch struct {
	blocks []RunBlock
	n      int
	err    error // after the n blocks: the reader's error (io.EOF at the end)
}

// Stream reads the file on its own goroutine, in batches of users, and
// calls fn for every block in file order on the calling goroutine, so
// parsing and evaluation use two cores. An error of fn stops the reader.
func (r *RunReader) Stream(fn func(b *RunBlock) error) error {
	const batchSize, inFlight = 256, 4
	free := make(chan *runBatch, inFlight)
	full := make(chan *runBatch, inFlight)
	done := make(chan struct{})
	for range inFlight {
		free <- &runBatch{blocks: make([]RunBlock, batchSize)}
	}
	go func() {
		defer close(full)
		for {
			var batch *runBatch
			select {
			case batch = <-free:
			case <-done:
				return
			}
			batch.n, batch.err = 0, nil
			for batch.n < batchSize {
				user, items, err := r.Next()
				if err != nil {
					batch.err = err
					break
				}
				b := &batch.blocks[batch.n]
				b.user = append(b.user[:0], user...)
				b.arena = b.arena[:0]
				for _, it := range items {
					b.arena = append(b.arena, it...)
				}
				b.items = b.items[:0]
				b.lines = b.lines[:0]
				off := 0
				for i, it := range items {
					b.items = append(b.items, b.arena[off:off+len(it)])
					off += len(it)
					b.lines = append(b.lines, r.rows[i].line)
				}
				b.preds = append(b.preds[:0], r.preds...)
				batch.n++
			}
			full <- batch
			if batch.err != nil {
				return
			}
		}
	}()
	defer func() {
		close(done)
		for range full {
		}
	}()
	for batch := range full {
		for i := range batch.n {
			if err := fn(&batch.blocks[i]); err != nil {
				return err
			}
		}
		if batch.err == io.EOF {
			return nil
		}
		if batch.err != nil {
			return batch.err
		}
		free <- batch
	}
	return nil
}

// BlockError places an *offline.ListError of a block at its line.
func (r *RunReader) BlockError(b *RunBlock, err error) error {
	var le *offline.ListError
	if !errors.As(err, &le) {
		return err
	}
	line := b.lines[0]
	if le.Pos >= 0 && le.Pos < len(b.lines) {
		line = b.lines[le.Pos]
	}
	if le.Other > 0 && le.Other <= len(b.lines) {
		o := b.lines[le.Other-1]
		return r.errorf(max(line, o), "%s (lines %d and %d)", le.Msg, min(line, o), max(line, o))
	}
	return r.errorf(line, "%s", le.Msg)
}

// Preds are the predictions of the block Next returned (a predictions
// file), in file order; valid until the following call.
func (r *RunReader) Preds() []float64 { return r.preds }

// User is the block's user.
func (b *RunBlock) User() []byte { return b.user }

// Items are the block's items in rank order.
func (b *RunBlock) Items() [][]byte { return b.items }

// parseLevel parses a TREC qrels level: an optionally signed decimal
// integer of at most 9 digits.
func parseLevel(b []byte) (int, bool) {
	b = trimBytes(b)
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
