package input

// The records of a ranked run, a truth file or predictions, for their
// readers (report/input/runs): the file opened as every input is
// (regular files only, gzip by .gz with a cap, BOM stripped), split by
// the one tokenizer of delimited text, with the number rules and
// line-count messages every reader shares.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unsafe"
)

// Lines yields the records of a run or truth file (gzip by .gz, BOM
// stripped) through the one tokenizer of delimited text (recordReader):
// whitespace-separated for TREC, comma (RFC 4180 quotes) or tab for
// tables. Its line is the line the last record started on.
type Lines struct {
	file string
	f    *os.File
	br   *bufio.Reader // the file's read buffer (from readers); nil for .gz
	gz   *gzip.Reader
	rr   *recordReader
	line int
	// fields are the last record's fields as bytes (aliasing the read
	// buffer: valid until the next record).
	fields [][]byte
}

// OpenLines opens a regular file for reading its records: split at
// white space when trec, else a table's (its separator from its
// extension, Delim), with a cap on what a .gz file may inflate to (0:
// DefaultMaxDecompressed; negative: none).
func OpenLines(path, display string, trec bool, maxDecompressed int64) (*Lines, error) {
	f, err := OpenRegular(path, display)
	if err != nil {
		return nil, err
	}
	l := &Lines{file: display, f: f}
	var br *bufio.Reader
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		l.gz, err = gzip.NewReader(bufio.NewReaderSize(f, 1<<16))
		if err != nil {
			f.Close()
			return nil, gzipOpenError(display, err)
		}
		br = bufio.NewReaderSize(capDecompressed(l.gz, maxDecompressed), 1<<20)
	} else {
		l.br = newReader(f)
		br = l.br
	}
	if err := notNamedGzip(br, path, display); err != nil {
		l.Close()
		return nil, err
	}
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	switch {
	case trec:
		l.rr = newWhitespaceReader(br)
	case Delim(path) == '\t':
		l.rr = newRecordReader(br, '\t', false)
	default:
		l.rr = newRecordReader(br, ',', true)
	}
	l.rr.transient = true
	return l, nil
}

// Close closes the file; the records read are no longer valid.
func (l *Lines) Close() {
	if l.gz != nil {
		l.gz.Close()
	}
	if l.br != nil {
		putReader(l.br)
		l.br = nil
	}
	l.f.Close()
}

// Record returns the next record's fields (valid until the following
// call) or io.EOF. Blank lines, and a table's lines of whitespace only,
// are skipped; a line longer than MaxLineBytes is an error.
func (l *Lines) Record() ([][]byte, error) {
	for {
		rec, err := l.rr.Read()
		if err != nil {
			if err == io.EOF {
				return nil, io.EOF
			}
			var se *csvSyntaxError
			if errors.As(err, &se) {
				return nil, &InputError{File: l.file, Line: se.line, Col: se.col, Msg: se.msg}
			}
			var ce *decompressedError
			if errors.As(err, &ce) {
				return nil, l.Errorf(l.rr.next, "%v", ce)
			}
			if l.gz != nil {
				if msg := gzipReadError(err, l.rr.next-1); msg != "" {
					return nil, &InputError{File: l.file, Line: l.rr.next, Msg: msg, err: err}
				}
			}
			return nil, Errorf(l.file, l.rr.next, "%w", err)
		}
		l.line = l.rr.line
		if len(rec) == 1 && len(TrimBytes(bytesOf(rec[0]))) == 0 {
			continue // a table's line of spaces
		}
		l.fields = l.fields[:0]
		for _, f := range rec {
			l.fields = append(l.fields, bytesOf(f))
		}
		return l.fields, nil
	}
}

// bytesOf is s's bytes, not copied: read only.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// Line is the line the last record started on.
func (l *Lines) Line() int { return l.line }

// File is the file's name as errors show it.
func (l *Lines) File() string { return l.file }

// Errorf is an error at a line of the file.
func (l *Lines) Errorf(line int, format string, args ...any) error {
	return &InputError{File: l.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Delim is a table's separator: tab for a .tsv file (or .tsv.gz), else
// comma.
func Delim(path string) byte {
	if strings.HasSuffix(strings.TrimSuffix(strings.ToLower(path), ".gz"), ".tsv") {
		return '\t'
	}
	return ','
}

// TrimBytes is b without the white space around it, not copied.
func TrimBytes(b []byte) []byte {
	if len(b) > 0 && b[0] > ' ' && b[len(b)-1] > ' ' {
		return b // the common case, without TrimSpace's rune checks
	}
	return bytes.TrimSpace(b)
}

// parseFloatBytes parses a decimal number (parseDecimal) without
// allocating: the string aliases b only for the call (parseDecimal keeps
// nothing of it; its strconv path makes a string(b) escape, which would
// copy every score).
func parseFloatBytes(b []byte) (float64, numErr) {
	b = TrimBytes(b)
	if len(b) == 0 {
		return parseDecimal("")
	}
	return parseDecimal(unsafe.String(&b[0], len(b)))
}

// Number parses field b (white space around it trimmed) as a decimal
// number by the rules of every reader (no NaN, infinity, hexadecimal,
// digit separators or decimal comma), without allocating; ok is false
// for a field it refuses, whose message NumberProblem gives.
func Number(b []byte) (v float64, ok bool) {
	v, bad := parseFloatBytes(b)
	return v, bad == numOK
}

// NumberProblem is the message for field b, a what, that Number refused:
// `score "x" is not a number`, with the reason for the special cases.
func NumberProblem(what string, b []byte) string {
	_, why := parseFloatBytes(b)
	return numberProblem(what, b, why)
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

// FieldCount checks a table line's number of fields against the
// header's: fewer than the columns read is `n fields, the header needs
// m`, any other difference `n fields, the header has m`, with a guess at
// the cause (a decimal comma, a trailing separator).
func (l *Lines) FieldCount(fields [][]byte, want, header int, delim byte) error {
	if len(fields) < want {
		return l.Errorf(l.line, "%d fields, the header needs %d", len(fields), want)
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
				trailing = trailing && len(TrimBytes(f)) == 0
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
	return l.Errorf(l.line, "%s", msg)
}

// CapDecompressed caps what a decompressing reader r may yield at max
// bytes (0: DefaultMaxDecompressed; negative: no cap): a read past it
// fails with the message naming the cap (--max-decompressed).
func CapDecompressed(r io.Reader, max int64) io.Reader { return capDecompressed(r, max) }

// OrderNames puts the names of seen that declared lists first, in
// declared order, then the others in the order seen: the datasets a
// manifest names come in its order wherever they are read.
func OrderNames(declared, seen []string) []string {
	present := make(map[string]bool, len(seen))
	for _, d := range seen {
		present[d] = true
	}
	out := make([]string, 0, len(seen))
	for _, d := range declared {
		if present[d] {
			out = append(out, d)
			delete(present, d)
		}
	}
	for _, d := range seen {
		if present[d] {
			out = append(out, d)
		}
	}
	return out
}
