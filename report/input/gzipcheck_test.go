package input

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func gzipOf(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readTableAll opens path as a table and reads it to the end, returning the
// first error.
func readTableAll(path string) error {
	tr, err := OpenTable(path, filepath.Base(path), nil)
	if err != nil {
		return err
	}
	defer tr.Close()
	for {
		if _, err := tr.Next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// TestGzipFaults: a truncated .gz input is an error at the line it stops
// on, naming the last whole line (the oracle: how many lines gzip gives
// before it fails, counted independently); gzip data in a file named .csv
// is an error that says to rename it; a cut header and a bad checksum say
// what they are.
func TestGzipFaults(t *testing.T) {
	dir := t.TempDir()
	var body strings.Builder
	body.WriteString("dataset,method,metric,value\n")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&body, "d%d,A,m,%d\n", i, i)
	}
	gz := gzipOf(t, body.String())
	for _, cut := range []int{len(gz) / 3, len(gz) / 2, len(gz) - 9} {
		trunc := gz[:cut]
		// the oracle: what gzip yields before its error, in whole lines
		zr, err := gzip.NewReader(bytes.NewReader(trunc))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(zr)
		whole := bytes.Count(got, []byte("\n"))
		p := filepath.Join(dir, "r.csv.gz")
		if err := os.WriteFile(p, trunc, 0o644); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("r.csv.gz:%d: truncated gzip file: the compressed data end after line %d (an interrupted copy or download?)", whole+1, whole)
		if err := readTableAll(p); err == nil || err.Error() != want {
			t.Errorf("cut at %d of %d: %v\nwant %s", cut, len(gz), err, want)
		}
	}

	cases := map[string]struct {
		name string
		data []byte
		want string
	}{
		"gzip named .csv":   {"r.csv", gz, "r.csv: the file is gzip-compressed but its name does not end in .gz: rename it to r.csv.gz (and its entry in study.toml)"},
		"gzip named .tsv":   {"r.tsv", gz, "r.tsv: the file is gzip-compressed but its name does not end in .gz: rename it to r.tsv.gz"},
		"cut in its header": {"h.csv.gz", gz[:5], "h.csv.gz: truncated gzip file: it ends inside its gzip header"},
		"empty .gz":         {"e.csv.gz", nil, "e.csv.gz: empty file: a .gz input must hold a gzip stream"},
		"bad checksum": {"c.csv.gz", func() []byte {
			b := gzipOf(t, "dataset,method,metric,value\nd,A,m,1\n")
			b[len(b)-8] ^= 0xff
			return b
		}(), "c.csv.gz:3: corrupt gzip file: its checksum does not match the data (after line 2)"},
	}
	for name, c := range cases {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := readTableAll(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %s", name, err, c.want)
		}
	}
}

// TestGzipFaultsRuns: the run and truth readers say the same.
func TestGzipFaultsRuns(t *testing.T) {
	dir := t.TempDir()
	var body strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&body, "q%d Q0 d%d 1 %d.5 run\n", i, i, i)
	}
	gz := gzipOf(t, body.String())
	p := filepath.Join(dir, "run.txt")
	if err := os.WriteFile(p, gz, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLines(p, "run.txt", true, 0); err == nil || !strings.Contains(err.Error(), "run.txt: the file is gzip-compressed but its name does not end in .gz: rename it to run.txt.gz") {
		t.Errorf("gzip named .txt: %v", err)
	}
	trunc := gz[:len(gz)/2]
	zr, _ := gzip.NewReader(bytes.NewReader(trunc))
	got, _ := io.ReadAll(zr)
	whole := bytes.Count(got, []byte("\n"))
	p = filepath.Join(dir, "run.txt.gz")
	if err := os.WriteFile(p, trunc, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := OpenLines(p, "run.txt.gz", true, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for err == nil {
		_, err = l.Record()
	}
	want := fmt.Sprintf("run.txt.gz:%d: truncated gzip file: the compressed data end after line %d", whole+1, whole)
	if !strings.Contains(err.Error(), want) {
		t.Errorf("truncated run: %v\nwant %s", err, want)
	}
}
