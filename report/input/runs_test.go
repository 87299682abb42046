package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplitFields(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		line  string
		delim byte
		want  []string
		err   bool
	}{
		{"a,b,c", ',', []string{"a", "b", "c"}, false},
		{"a,,c,", ',', []string{"a", "", "c", ""}, false},
		{`"a,1",b`, ',', []string{"a,1", "b"}, false},
		{`"say ""hi""",2,`, ',', []string{`say "hi"`, "2", ""}, false},
		{`"a"x,b`, ',', nil, true},
		{`a"b,c`, ',', nil, true},
		{"a\tb", '\t', []string{"a", "b"}, false},
		{"  q1 Q0\td1  1 2.5 tag ", 0, []string{"q1", "Q0", "d1", "1", "2.5", "tag"}, false},
	} {
		var scratch []byte
		got, err := splitFields([]byte(c.line), c.delim, nil, &scratch)
		if (err != nil) != c.err {
			t.Errorf("%q: err %v", c.line, err)
			continue
		}
		var s []string
		for _, f := range got {
			s = append(s, string(f))
		}
		if !c.err && strings.Join(s, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q: %q, want %q", c.line, s, c.want)
		}
	}
}

// TestRunsLineCap: the runs reader caps its lines as the table reader
// does.
func TestRunsLineCap(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("a", MaxLineBytes+1)
	dir := t.TempDir()
	p := filepath.Join(dir, "m.run")
	os.WriteFile(p, []byte("u1 Q0 a 1 0.5 t\n"+big+"\n"), 0o644)
	l, err := openLines(p, "m.run")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.next(); err != nil {
		t.Fatal(err)
	}
	_, err = l.next()
	if err == nil || !strings.Contains(err.Error(), `m.run:2: line longer than 1 MiB`) {
		t.Errorf("got %v", err)
	}
}

// TestRunsRegularFiles: the runs reader opens regular files only.
func TestRunsRegularFiles(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := openLines("/dev/zero", "zero.run")
	if err == nil || !strings.Contains(err.Error(), "zero.run: not a regular file (a character device)") {
		t.Errorf("got %v", err)
	}
}
