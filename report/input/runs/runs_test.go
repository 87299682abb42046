package runs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/input"
)

// TestRunRecords: runs and truth are split by the one tokenizer
// (recordReader): commas with RFC 4180 quotes, tabs, or runs of
// whitespace for TREC (leading and trailing whitespace ignored).
func TestRunRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, c := range []struct {
		line, ext string
		want      []string
		err       string
	}{
		{"a,b,c", ".csv", []string{"a", "b", "c"}, ""},
		{"a,,c,", ".csv", []string{"a", "", "c", ""}, ""},
		{`"a,1",b`, ".csv", []string{"a,1", "b"}, ""},
		{`"say ""hi""",2,`, ".csv", []string{`say "hi"`, "2", ""}, ""},
		{`"a"x,b`, ".csv", nil, `m.csv:1:4: extraneous or missing " in quoted-field`},
		{`a"b,c`, ".csv", nil, `m.csv:1:2: bare " in non-quoted-field`},
		{"a\tb", ".tsv", []string{"a", "b"}, ""},
		{"  q1 Q0\td1  1 2.5 tag ", ".run", []string{"q1", "Q0", "d1", "1", "2.5", "tag"}, ""},
		{"q1 Q0 d1 1 2.5 tag12345 and more text", ".run", []string{"q1", "Q0", "d1", "1", "2.5", "tag12345", "and", "more", "text"}, ""},
	} {
		p := filepath.Join(dir, fmt.Sprintf("m%d%s", i, c.ext))
		os.WriteFile(p, []byte(c.line+"\n"), 0o644)
		format := FormatTable
		if c.ext == ".run" {
			format = FormatTREC
		}
		l, err := input.OpenLines(p, "m"+c.ext, format == FormatTREC, 0)
		if err != nil {
			t.Fatal(err)
		}
		fields, err := l.Record()
		var got []string // the fields alias the read buffer, valid until Close
		for _, f := range fields {
			got = append(got, string(f))
		}
		l.Close()
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %s", c.line, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q: %q, want %q", c.line, got, c.want)
		}
	}
}

// TestTRECGroupScan: the scan that rides on the hashing pass finds the
// same layout as the reader, whatever the write sizes (lines cut across
// writes), with a BOM, blank lines, CRLF and tabs.
func TestTRECGroupScan(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text    string
		grouped bool
	}{
		{"q1 Q0 a 1 1 t\nq1 Q0 b 2 1 t\nq2 Q0 a 1 1 t\n", true},
		{"q1 Q0 a 1 1 t\nq2 Q0 a 1 1 t\nq1 Q0 b 2 1 t\n", false},
		{"\xef\xbb\xbfq1 Q0 a 1 1 t\r\n\n  \nq1\tQ0 b 2 1 t\r\nq2 Q0 a 1 1 t", true},
		{"\xef\xbb\xbfq1 Q0 a 1 1 t\nq2 Q0 a 1 1 t\n\tq1 Q0 b 2 1 t", false},
		{"q10 Q0 a 1 1 t\nq1 Q0 a 1 1 t\nq10 Q0 b 2 1 t\n", false},
		{"q1 Q0 a 1 1 t\nq10 Q0 a 1 1 t\nq1x Q0 b 2 1 t\n", true},
	} {
		for _, step := range []int{1, 2, 3, 7, 1 << 20} {
			g := NewTRECGroupScan()
			for b := []byte(c.text); len(b) > 0; {
				n := min(step, len(b))
				g.Write(b[:n])
				b = b[n:]
			}
			if got := g.Grouped(); got != c.grouped {
				t.Errorf("%q by %d bytes: grouped %v, want %v", c.text, step, got, c.grouped)
			}
		}
	}
}

// TestRunsLineCap: the runs reader caps its lines as the table reader
// does.
func TestRunsLineCap(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("a", input.MaxLineBytes+1)
	dir := t.TempDir()
	p := filepath.Join(dir, "m.run")
	os.WriteFile(p, []byte("u1 Q0 a 1 0.5 t\n"+big+"\n"), 0o644)
	l, err := input.OpenLines(p, "m.run", true, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Record(); err != nil {
		t.Fatal(err)
	}
	_, err = l.Record()
	if err == nil || !strings.Contains(err.Error(), `m.run:2: line longer than 1 MiB`) {
		t.Errorf("got %v", err)
	}
}

// TestRunsRegularFiles: the runs reader opens regular files only.
func TestRunsRegularFiles(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := input.OpenLines("/dev/zero", "zero.run", true, 0)
	if err == nil || !strings.Contains(err.Error(), "zero.run: not a regular file (a character device)") {
		t.Errorf("got %v", err)
	}
}
