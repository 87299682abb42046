package input

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func readAllFast(s string) ([][]string, error) {
	rr := newRecordReader(bufio.NewReader(strings.NewReader(s)), ',', true)
	var out [][]string
	for {
		rec, err := rr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, append([]string(nil), rec...))
	}
}

func readAllStd(s string) ([][]string, error) {
	r := csv.NewReader(strings.NewReader(s))
	r.FieldsPerRecord = -1
	return r.ReadAll()
}

func TestRecordReader(t *testing.T) {
	t.Parallel()
	cases := []string{
		"a,b,c\n1,2,3\n",
		"a,b\r\n1,2\r\n",
		"a,\"b,c\",d\n",
		"a,\"multi\nline\",d\n",
		"\"x\"\"y\",z\n",
		"a,b,\n,,\n",
		"\n\na\n\n",
		"no newline at end",
		"\"\",\"\"\n",
	}
	for _, c := range cases {
		want, _ := readAllStd(c)
		got, err := readAllFast(c)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %q (%v), want %q", c, got, err, want)
		}
	}
	for _, bad := range []string{"a,\"b\n", "a,b\"c\n", "\"a\"b,c\n"} {
		if _, err := readAllFast(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestRecordReaderLineCap: a line, or a record whose quoted field spans
// lines, longer than the cap is an error at the line it starts on.
func TestRecordReaderLineCap(t *testing.T) {
	t.Parallel()
	read := func(s string) ([][]string, error) {
		rr := newRecordReader(bufio.NewReaderSize(strings.NewReader(s), 16), ',', true)
		rr.maxLine = 10
		var out [][]string
		for {
			rec, err := rr.Read()
			if err == io.EOF {
				return out, nil
			}
			if err != nil {
				return out, err
			}
			out = append(out, append([]string(nil), rec...))
		}
	}
	for _, c := range []struct{ in, want string }{
		{"a,b\n0123456789\n", ""},
		{"a,b\n0123456789\r\n", ""},
		{"a,b\n01234567890\n", "line 2: line longer than 10 bytes"},
		{"a,b\n" + strings.Repeat("x", 100), "line 2: line longer than 10 bytes"},
		{"a,\"b\n\n\n\n\n\n\n\n\n\n", "line 1: a record longer than 10 bytes starts on this line"},
		{"a,\"b\nc\"\n", ""},
	} {
		_, err := read(c.in)
		var se *csvSyntaxError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.in, err)
		case c.want != "" && (!errors.As(err, &se) || "line "+strconv.Itoa(se.line)+": "+se.msg != c.want && !strings.HasPrefix("line "+strconv.Itoa(se.line)+": "+se.msg, c.want)):
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

// FuzzRecordReader: wherever encoding/csv reads a text without error, the
// fast reader gives the same records.
func FuzzRecordReader(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "a,\"b\nc\",d\r\n", "\"x\"\"y\",z", ",,\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := readAllStd(s)
		if err != nil || strings.Contains(s, "\r") {
			// encoding/csv rewrites lone \r and \r\n inside quotes; skip those
			readAllFast(s)
			return
		}
		got, err := readAllFast(s)
		var se *csvSyntaxError
		if errors.As(err, &se) && strings.Contains(se.msg, "longer than") {
			return // the 1 MiB line cap, which encoding/csv does not have
		}
		if err != nil {
			t.Fatalf("%q: fast reader failed: %v (encoding/csv read %q)", s, err, want)
		}
		if len(want) == 0 && len(got) == 0 {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %q, want %q", s, got, want)
		}
	})
}

// TestMatchByte: matchByte marks exactly the bytes equal to c, whatever
// the other bytes are (0x00, 0x80, 0xff, c±1: the values where a
// carry-based test would give false positives).
func TestMatchByte(t *testing.T) {
	vals := []byte{0, 1, ',' - 1, ',', ',' + 1, '\t', 0x7f, 0x80, 0x81, 0xfe, 0xff}
	for _, c := range []byte{',', '\t'} {
		for trial := 0; trial < 20000; trial++ {
			var x uint64
			want := uint64(0)
			for k := 0; k < 8; k++ {
				v := vals[(trial*7+k*k*13+k*trial/3)%len(vals)]
				x |= uint64(v) << (8 * k)
				if v == c {
					want |= 0x80 << (8 * k)
				}
			}
			if got := matchByte(x, swarOnes*uint64(c)); got != want {
				t.Fatalf("matchByte(%#016x, %q) = %#016x, want %#016x", x, c, got, want)
			}
		}
	}
}

func BenchmarkRecordReaderUnits(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("dataset,method,unit,metric,value\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&sb, "ds%d,treat,u%d,ndcg@10,0.%06d\n", i%30, i, (i*7919)%1000000)
	}
	data := sb.String()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		rr := newRecordReader(bufio.NewReaderSize(strings.NewReader(data), 1<<16), ',', true)
		rr.transient = true
		for {
			if _, err := rr.Read(); err != nil {
				break
			}
		}
	}
}

// FuzzWhitespaceRecords: the whitespace mode (TREC) splits a line as
// strings.FieldsFunc on spaces and tabs does, eight bytes at a time or
// not, and skips a line of whitespace only.
func FuzzWhitespaceRecords(f *testing.F) {
	for _, s := range []string{"q1 Q0 d1 1 2.5 tag", "  a\t\tb  ", "\t", "", "abcdefgh ijklmnop\tqrstuvwx yz", "a\x00b c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") {
			return
		}
		want := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
		rr := newWhitespaceReader(bufio.NewReader(strings.NewReader(line + "\nnext\n")))
		got, err := rr.Read()
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			if len(got) != 1 || got[0] != "next" || rr.line != 2 {
				t.Fatalf("%q: blank line not skipped: %q at line %d", line, got, rr.line)
			}
			return
		}
		if strings.Join(got, "\x01") != strings.Join(want, "\x01") || len(got) != len(want) {
			t.Fatalf("%q: %q, want %q", line, got, want)
		}
		for i := range got {
			if _, col := rr.FieldPos(i); col < 1 || line[col-1:col-1+len(got[i])] != got[i] {
				t.Fatalf("%q: field %d at column %d", line, i, col)
			}
		}
	})
}

// readTrace reads s to its end or first error and describes every record
// (fields, the line and column of each field, the lines read so far) and
// the error, for comparing two ways of reading.
func readTrace(s string, comma byte, quotes, transient, quoteStops bool, bufSize, maxLine int) []string {
	var rr *recordReader
	if bufSize < 0 { // in memory
		rr = newMemReader([]byte(s), comma, quotes)
	} else {
		rr = newRecordReader(bufio.NewReaderSize(strings.NewReader(s), bufSize), comma, quotes)
		rr.transient = transient
	}
	rr.quoteStops = quoteStops
	if maxLine > 0 {
		rr.maxLine = maxLine
	}
	var out []string
	for {
		rec, err := rr.Read()
		if err != nil {
			return append(out, fmt.Sprintf("%v next=%d", err, rr.next))
		}
		line := fmt.Sprintf("%q", rec)
		for i := range rec {
			l, c := rr.FieldPos(i)
			line += fmt.Sprintf(" %d:%d", l, c)
		}
		out = append(out, line+fmt.Sprintf(" next=%d consumed=%d", rr.next, rr.consumed))
	}
}

// FuzzRecordReaderWindow: transient records, split where they are read
// into (the window: one pass for line ends, separators and quotes), are
// the records the line-by-line path gives, with the same positions,
// line counts and errors: CSV and TSV, CRLF, blank lines, quotes (read
// by the line path, or ErrQuoted in a byte range), lines longer than
// the cap, and read buffers small enough that lines straddle them; and
// records read from memory (a byte range read whole) the same.
func FuzzRecordReaderWindow(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "a,\"b\nc\",d\r\n", "\"x\"\"y\",z", ",,\n\n", "a,b\r\n\r\n,\r\nxyzxyzxyzxyz,1\n",
		"dataset,method,unit,metric,value\nds0,treat,u0,ndcg@10,0.440799\nds0,treat,u0,rmse,0.954373\n", "a\tb\"c\n\"d\te\n", "abcdefgh,\nijklmnopq\"r,s\n", "a,\rb\r,c\n\r\n\n1"} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, s string, mode uint8) {
		comma, quotes := byte(','), true
		if mode&1 != 0 {
			comma, quotes = '\t', false
		}
		quoteStops := mode&2 != 0
		maxLine := 0
		if mode&4 != 0 {
			maxLine = 12
		}
		for _, size := range []int{16, 23, 4096, -1} {
			want := readTrace(s, comma, quotes, false, quoteStops, size, maxLine)
			got := readTrace(s, comma, quotes, true, quoteStops, size, maxLine)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q (mode %d, buffer %d):\nwindow %q\nlines  %q", s, mode, size, got, want)
			}
		}
	})
}

// TestByteMask: byteMask gathers the high bits of the bytes of every
// matchByte result (all 256 patterns) into bit k for byte k.
func TestByteMask(t *testing.T) {
	for p := 0; p < 256; p++ {
		var m uint64
		for k := 0; k < 8; k++ {
			if p&(1<<k) != 0 {
				m |= 0x80 << (8 * k)
			}
		}
		if got := byteMask(m); got != uint64(p) {
			t.Fatalf("byteMask(%#016x) = %#x, want %#x", m, got, p)
		}
	}
}

// TestRecordReaderWindowRandom is FuzzRecordReaderWindow on random texts
// long enough for the window's 64-byte blocks (lines across blocks and
// across buffer refills), over an alphabet of the bytes that matter.
func TestRecordReaderWindowRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabets := []string{"ab,,,\n", "abc,\n\n\r\"", "a\tb\t\n\r\"", "abcdefgh,,,,,,\n", "a,\n\"\"\n"}
	for trial := 0; trial < 3000; trial++ {
		alpha := alphabets[trial%len(alphabets)]
		b := make([]byte, rng.IntN(1500))
		for i := range b {
			b[i] = alpha[rng.IntN(len(alpha))]
		}
		s := string(b)
		mode := rng.IntN(8)
		comma, quotes := byte(','), true
		if mode&1 != 0 {
			comma, quotes = '\t', false
		}
		maxLine := 0
		if mode&4 != 0 {
			maxLine = 40
		}
		size := 16 + rng.IntN(300)
		want := readTrace(s, comma, quotes, false, mode&2 != 0, size, maxLine)
		for _, sz := range []int{size, -1} {
			got := readTrace(s, comma, quotes, true, mode&2 != 0, sz, maxLine)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q (mode %d, buffer %d):\nwindow %q\nlines  %q", s, mode, sz, got, want)
			}
		}
	}
}
