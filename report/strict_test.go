package report

// Tests of the strict input rules (README, "Strict input rules"): each
// plants one fault in an input and asserts the message, which names
// file:line:column (or the manifest line).

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"github.com/evalbook/evalbook/internal/pqtest"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/input/runs"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// strictStudy writes a study whose results (or kind) entry is
// `{ path = "<file>"<extra> }` plus the given files, and returns its
// inputs.
func strictStudy(t testing.TB, kind, file, extra string, files map[string]string) *load.Inputs {
	t.Helper()
	dir := t.TempDir()
	manifestPath := "title = \"s\"\n[inputs]\n" + kind + " = { path = \"" + file + "\"" + extra + " }\n"
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(manifestPath), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	return newInputs(s)
}

func strictResults(t testing.TB, extra, csvText string) (*analyses.Results, error) {
	t.Helper()
	return strictStudy(t, "results", "results.csv", extra, map[string]string{"results.csv": csvText}).Results()
}

func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v\nwant it to contain %q", err, want)
	}
}

const resultsHeader = "dataset,method,metric,value\n"

// TestStrictFieldCount: a row with more fields than the header is an
// error (it used to be read with the extra fields ignored, so an unquoted
// decimal comma gave 0), with the likely cause when the row shows one.
func TestStrictFieldCount(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, csv, want string }{
		{"decimal comma", resultsHeader + "movies-small,BPR,ndcg@10,0.149\nmovies-small,Pop,ndcg@10,0.1\nmovies-small,ItemKNN,ndcg@10,0,152\n",
			`results.csv:4:30: 5 fields, the header has 4 — a decimal comma in "0,152"? quote the value or use a dot`},
		{"decimal commas, wide", "dataset,method,ndcg,rmse\nd,A,0,25,1,5\n",
			`results.csv:2:5: 6 fields, the header has 4 — a decimal comma in "0,25"? quote the value or use a dot`},
		{"negative decimal comma", resultsHeader + "d,A,ndcg,-1,5\n", `a decimal comma in "-1,5"?`},
		{"an extra field", resultsHeader + "d,A,ndcg,0.5,x\n", `results.csv:2:14: 5 fields, the header has 4`},
		{"trailing comma", resultsHeader + "d,A,ndcg,0.5,\n", `results.csv:2:14: 5 fields, the header has 4 — a trailing comma?`},
		{"too few fields", resultsHeader + "d,A,ndcg\n", `results.csv:2: 3 fields, the header has 4`},
		{"run column is not a decimal", "dataset,method,metric,run,value\nd,A,ndcg,1,2,0.5\n", `results.csv:2:14: 6 fields, the header has 5`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := strictResults(t, "", c.csv)
			wantErr(t, err, c.want)
			if strings.Contains(c.name, "not a decimal") && strings.Contains(err.Error(), "decimal comma") {
				t.Errorf("a comma between k/run integers is no decimal comma: %v", err)
			}
		})
	}
	t.Run("TSV", func(t *testing.T) {
		t.Parallel()
		in := strictStudy(t, "results", "r.tsv", "", map[string]string{"r.tsv": "dataset\tmethod\tmetric\tvalue\nd\tA\tndcg\t0,152\n"})
		_, err := in.Results()
		wantErr(t, err, `r.tsv:2:10: not a number: "0,152" — a decimal comma? use a dot`)
		in = strictStudy(t, "results", "r.tsv", "", map[string]string{"r.tsv": "dataset\tmethod\tmetric\tvalue\nd\tA\tndcg\t0.1\t\n"})
		_, err = in.Results()
		wantErr(t, err, `r.tsv:2:14: 5 fields, the header has 4 — a trailing tab?`)
	})
	t.Run("units and characteristics", func(t *testing.T) {
		t.Parallel()
		in := strictStudy(t, "units", "u.csv", "", map[string]string{"u.csv": "dataset,method,unit,ndcg\nd,A,u1,0.5\nd,A,u2,0,5\n"})
		wantErr(t, in.Units(func(*load.UnitRow) error { return nil }), `u.csv:3:8: 5 fields, the header has 4 — a decimal comma in "0,5"?`)
		in = strictStudy(t, "characteristics", "c.csv", "", map[string]string{"c.csv": "dataset,Nu\nml,10,5\n"})
		_, err := in.Characteristics()
		wantErr(t, err, `c.csv:2:4: 3 fields, the header has 2 — a decimal comma in "10,5"?`)
	})
}

// TestStrictDuplicates: a cell given twice with different values is an
// error naming both lines, unless the file has a run column or the entry
// declares duplicates; the same value twice is counted once.
func TestStrictDuplicates(t *testing.T) {
	t.Parallel()
	rows := resultsHeader + "movies-small,ItemKNN,ndcg@10,0.149\nmovies-small,BPR,ndcg@10,0.2\nmovies-small,ItemKNN,ndcg@10,0.152\n"
	t.Run("conflict", func(t *testing.T) {
		t.Parallel()
		_, err := strictResults(t, "", rows)
		wantErr(t, err, `results.csv:4:30: ndcg@10 of ItemKNN on movies-small is also given at results.csv:2 with another value (0.152 vs 0.149); add a run column or declare duplicates = "mean" | "first" | "last"`)
	})
	t.Run("wide", func(t *testing.T) {
		t.Parallel()
		_, err := strictResults(t, "", "dataset,method,ndcg,rmse\nd,A,0.5,1\nd,A,0.5,2\n")
		wantErr(t, err, `results.csv:3:9: rmse of A on d is also given at results.csv:2 with another value (2 vs 1)`)
	})
	t.Run("identical duplicates count once", func(t *testing.T) {
		t.Parallel()
		r, err := strictResults(t, "", resultsHeader+"d,A,ndcg,0.5\nd,A,ndcg,0.50\n")
		if err != nil {
			t.Fatal(err)
		}
		if c := cell(t, r, "d", "A", "ndcg"); c.Value != 0.5 || c.Runs != 1 {
			t.Errorf("cell %+v, want 0.5 from one row", c)
		}
	})
	for _, c := range []struct {
		rule string
		want float64
		runs int
	}{{"mean", (0.149 + 0.152) / 2, 2}, {"first", 0.149, 1}, {"last", 0.152, 1}} {
		t.Run("duplicates = "+c.rule, func(t *testing.T) {
			t.Parallel()
			r, err := strictResults(t, `, duplicates = "`+c.rule+`"`, rows)
			if err != nil {
				t.Fatal(err)
			}
			if got := cell(t, r, "movies-small", "ItemKNN", "ndcg@10"); math.Abs(got.Value-c.want) > 1e-15 || got.Runs != c.runs {
				t.Errorf("cell %+v, want %v over %d", got, c.want, c.runs)
			}
		})
	}
	t.Run("run column averages", func(t *testing.T) {
		t.Parallel()
		r, err := strictResults(t, "", "dataset,method,metric,run,value\nd,A,ndcg,1,0.4\nd,A,ndcg,2,0.6\n")
		if err != nil {
			t.Fatal(err)
		}
		if c := cell(t, r, "d", "A", "ndcg"); math.Abs(c.Value-0.5) > 1e-15 || c.Runs != 2 {
			t.Errorf("cell %+v", c)
		}
	})
	t.Run("a run given twice", func(t *testing.T) {
		t.Parallel()
		_, err := strictResults(t, "", "dataset,method,metric,run,value\nd,A,ndcg,1,0.4\nd,A,ndcg,2,0.6\nd,A,ndcg,1,0.45\n")
		wantErr(t, err, `results.csv:4:12: run "1" of ndcg of A on d is also given at results.csv:2 with another value (0.45 vs 0.4); give each run its own id`)
	})
	t.Run("across files", func(t *testing.T) {
		t.Parallel()
		in := strictStudy(t, "results", "r/*.csv", "", map[string]string{
			"r/a.csv": resultsHeader + "d,A,ndcg,0.5\n",
			"r/b.csv": resultsHeader + "\nd,A,ndcg,0.6\n",
		})
		_, err := in.Results()
		wantErr(t, err, `r/b.csv:3:10: ndcg of A on d is also given at r/a.csv:2 with another value (0.6 vs 0.5)`)
	})
	t.Run("run rows meet a row without runs", func(t *testing.T) {
		t.Parallel()
		in := strictStudy(t, "results", "r/*.csv", "", map[string]string{
			"r/a.csv": resultsHeader + "d,A,ndcg,0.5\n",
			"r/b.csv": "dataset,method,metric,run,value\nd,A,ndcg,1,0.6\n",
		})
		_, err := in.Results()
		wantErr(t, err, `r/b.csv:2:12: ndcg of A on d is also given at r/a.csv:2 with another value (0.6 vs 0.5), in a file with a run column and in one without`)
	})
	t.Run("units: a repeated metric column", func(t *testing.T) {
		t.Parallel()
		in := strictStudy(t, "units", "u.csv", "", map[string]string{"u.csv": "dataset,method,unit,ndcg,NDCG \nd,A,u1,0.5,0.6\n"})
		wantErr(t, in.Units(func(*load.UnitRow) error { return nil }), `u.csv:1:26: column "NDCG" appears twice in the header (columns 4 and 5); rename one`)
	})
	t.Run("characteristics", func(t *testing.T) {
		t.Parallel()
		in := strictStudy(t, "characteristics", "c.csv", "", map[string]string{"c.csv": "dataset,feature,value\nml,Nu,10\nml,Ni,5\nml,Nu,10\nml,Nu,11\n"})
		_, err := in.Characteristics()
		wantErr(t, err, `c.csv:5:7: Nu of ml is also given at c.csv:2 with another value (11 vs 10); keep one`)
		in = strictStudy(t, "characteristics", "c.csv", "", map[string]string{"c.csv": "dataset,Nu,Ni\nml,10,\nml,,5\n"})
		c, err := in.Characteristics()
		if err != nil || c.Value["ml"]["Nu"] != 10 || c.Value["ml"]["Ni"] != 5 {
			t.Errorf("a missing value must neither conflict nor replace one: %v %v", c, err)
		}
	})
}

// TestStrictUnitsDuplicates: units are streamed, so a repeated
// (dataset, method, metric, unit) is found by the pairing of the
// meta-analysis, which keeps only the values waiting for a partner: a
// repeat while the first waits is an error at its file:line.
func TestStrictUnitsDuplicates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "u.csv"), []byte("dataset,method,unit,metric,value\nd,A,u1,ndcg,0.5\nd,A,u1,ndcg,0.6\nd,B,u1,ndcg,0.4\n"), 0o644)
	err := runStudyError(t, dir, "title = \"s\"\n[inputs]\nunits = \"u.csv\"\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\nmetric = \"ndcg\"\ntreatment = \"A\"\ncontrol = \"B\"\n")
	wantErr(t, err, `u.csv:3: unit "u1" of method "A" on dataset "d" appears twice (first at u.csv:2)`)
}

// TestStrictNumbers: numbers are plain decimals; NaN and Inf are errors
// unless declared as missing markers.
func TestStrictNumbers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ value, want string }{
		{"NaN", `results.csv:2:10: not a number: "NaN" (to read it as a missing value, declare missing_values = ["NaN"] on the input)`},
		{"nan", `results.csv:2:10: not a number: "nan"`},
		{"-NaN", `not a number: "-NaN"`},
		{"Inf", `results.csv:2:10: not a finite number: "Inf" (infinite values are not accepted; to read it as a missing value, declare missing_values = ["Inf"] on the input)`},
		{"-inf", `not a finite number: "-inf"`},
		{"+Infinity", `not a finite number: "+Infinity"`},
		{"INFINITY", `not a finite number: "INFINITY"`},
		{"0x1p-2", `results.csv:2:10: not a decimal number: "0x1p-2" (hexadecimal is not accepted)`},
		{"1_000", `results.csv:2:10: not a decimal number: "1_000" (digit separators are not accepted)`},
		{"1e999", `results.csv:2:10: number out of range: "1e999"`},
		{"-1e400", `number out of range: "-1e400"`},
		{"1e-400", `results.csv:2:10: number too small: "1e-400" rounds to 0`},
		{"abc", `results.csv:2:10: not a number: "abc"`},
		{"1.5.2", `not a number: "1.5.2"`},
		{"1e", `not a number: "1e"`},
		{".", `not a number: "."`},
		{"--1", `not a number: "--1"`},
	} {
		_, err := strictResults(t, "", resultsHeader+"d,A,ndcg,"+c.value+"\n")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.value, err, c.want)
		}
	}
	// Spaces around a number are allowed, as before; so are the decimal
	// forms strconv reads ("1.", ".5", "+1e-3", "0e999").
	r, err := strictResults(t, "", resultsHeader+"d,A,a, 0.5 \nd,A,b,\" 1.\"\nd,A,c,.5\nd,A,e,+1e-3\nd,A,f,0e999\nd,A,g,5e-324\n")
	if err != nil {
		t.Fatal(err)
	}
	for m, want := range map[string]float64{"a": 0.5, "b": 1, "c": 0.5, "e": 0.001, "f": 0, "g": 5e-324} {
		if got := cell(t, r, "d", "A", m).Value; got != want {
			t.Errorf("%s = %v, want %v", m, got, want)
		}
	}
}

// TestStrictMissingValues: a cell equal to a declared marker is missing,
// like an empty cell, and the entry's missing rule applies.
func TestStrictMissingValues(t *testing.T) {
	t.Parallel()
	csvText := resultsHeader + "d,A,ndcg,NaN\nd,A,rmse, NA \nd,A,mrr,-999\nd,A,map,0.5\n"
	r, err := strictResults(t, `, missing_values = ["NA", "NaN", "-999"]`, csvText)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cells) != 1 || cell(t, r, "d", "A", "map").Value != 0.5 {
		t.Errorf("markers must be missing: %v", r.Cells)
	}
	r, err = strictResults(t, `, missing_values = ["NA", "NaN", "-999"], missing = "zero"`, csvText)
	if err != nil {
		t.Fatal(err)
	}
	if cell(t, r, "d", "A", "ndcg").Value != 0 || cell(t, r, "d", "A", "rmse").Value != 0 || cell(t, r, "d", "A", "mrr").Value != 0 {
		t.Errorf("missing = zero: %v", r.Cells)
	}
	// Markers are compared case-sensitively.
	_, err = strictResults(t, `, missing_values = ["NA"]`, resultsHeader+"d,A,ndcg,na\n")
	wantErr(t, err, `results.csv:2:10: not a number: "na"`)

	in := strictStudy(t, "units", "u.csv", `, missing_values = ["NaN"], missing = "drop"`, map[string]string{"u.csv": "dataset,method,unit,ndcg,rmse\nd,A,u1,NaN,1\nd,A,u2,0.5,NaN\n"})
	var got []string
	if err := in.Units(func(u *load.UnitRow) error {
		got = append(got, u.Unit+"/"+u.Metric)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "u1/rmse u2/ndcg" {
		t.Errorf("units with markers dropped: %v", got)
	}
	in = strictStudy(t, "units", "u.csv", "", map[string]string{"u.csv": "dataset,method,unit,ndcg\nd,A,u1,0.5\nd,A,u2,Infinity\n"})
	wantErr(t, in.Units(func(*load.UnitRow) error { return nil }), `u.csv:3:8: not a finite number: "Infinity"`)

	in = strictStudy(t, "characteristics", "c.csv", `, missing_values = ["?"]`, map[string]string{"c.csv": "dataset,Nu,Ni\nml,?,3\n"})
	c, err := in.Characteristics()
	if err != nil || !math.IsNaN(c.Value["ml"]["Nu"]) || c.Value["ml"]["Ni"] != 3 {
		t.Errorf("characteristics marker: %v %v", c, err)
	}
}

func TestStrictNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ csv, want string }{
		{resultsHeader + "d,Item\xffKNN,ndcg,0.5\n", `results.csv:2:3: method name "Item\xffKNN" holds invalid UTF-8 (byte 0xFF)`},
		{resultsHeader + "d,A\x00,ndcg,0.5\n", `results.csv:2:3: method name "A\x00" holds a control character (U+0000)`},
		{resultsHeader + "d\x1b[31m,A,ndcg,0.5\n", `results.csv:2:1: dataset name "d\x1b[31m" holds a control character (U+001B)`},
		{resultsHeader + "d,A,\"nd\ncg\",0.5\n", `results.csv:2:5: metric name "nd\ncg" holds a control character (U+000A)`},
		{resultsHeader + "d,A,nd\u202ecg,0.5\n", `metric name "nd\u202ecg" holds a bidirectional control character (U+202E)`},
		{resultsHeader + "d,A,nd\u009bcg,0.5\n", `holds a control character (U+009B)`},
		{"dataset,method,metric,k,value\nd,A,ndcg,1\x00,0.5\n", `results.csv:2:10: k "1\x00" holds a control character`},
		{"dataset,method,\x1b[2Jndcg\nd,A,0.5\n", `results.csv:1:16: header cell "\x1b[2Jndcg" holds a control character (U+001B)`},
		{"dataset,method,metric,value,\xfe\nd,A,ndcg,0.5,\n", `results.csv:1:29: header cell "\xfe" holds invalid UTF-8 (byte 0xFE)`},
		{"dataset,method,ndcg,\nd,A,0.5,1\n", `results.csv:2:9: a value in column 4, which has no name in the header`},
	} {
		_, err := strictResults(t, "", c.csv)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.csv, err, c.want)
			continue
		}
		if strings.ContainsAny(err.Error(), "\x00\x1b\n") || strings.Contains(err.Error(), "\xff") || strings.Contains(err.Error(), "\xfe") {
			t.Errorf("%q: the message holds raw control bytes: %q", c.csv, err)
		}
	}
	// Trailing commas that leave an unnamed column empty are fine.
	if _, err := strictResults(t, "", "dataset,method,ndcg,\nd,A,0.5,\n"); err != nil {
		t.Errorf("an empty unnamed column: %v", err)
	}
	// Long input is cut in messages.
	long := strings.Repeat("x", 5000)
	_, err := strictResults(t, "", resultsHeader+"d,A,ndcg,"+long+"\n")
	wantErr(t, err, `results.csv:2:10: not a number: "`+strings.Repeat("x", 200)+`"…`)
	if len(err.Error()) > 400 {
		t.Errorf("message of %d bytes", len(err.Error()))
	}
	_, err = strictResults(t, "", "dataset,"+long+"\nd\n")
	if err == nil || len(err.Error()) > 600 {
		t.Errorf("a long header in a message: %d bytes: %.100v", len(err.Error()), err)
	}
	if q := input.Quote(strings.Repeat("é", 150)); !strings.HasSuffix(q, "\"…") || !strings.HasPrefix(q, "\"é") || len(q) > 205 || strings.Contains(q, "\\x") {
		t.Errorf("input.Quote cut a character: %s", q)
	}
	// Units: unit ids and names from the path pattern.
	in := strictStudy(t, "units", "u.csv", "", map[string]string{"u.csv": "dataset,method,unit,ndcg\nd,A,u\x07,0.5\n"})
	wantErr(t, in.Units(func(*load.UnitRow) error { return nil }), `u.csv:2:5: unit id "u\a" holds a control character (U+0007)`)
	in = strictStudy(t, "units", "u/{method}.csv", "", map[string]string{"u/A\x01.csv": "unit,ndcg\nu1,0.5\n"})
	wantErr(t, in.Units(func(*load.UnitRow) error { return nil }), `u/A`+"\x01"+`.csv: method name "A\x01" (from the file's path or its input entry) holds a control character`)
	in = strictStudy(t, "characteristics", "c.csv", "", map[string]string{"c.csv": "dataset,feature,value\nml,N\x7fu,1\n"})
	_, err = in.Characteristics()
	wantErr(t, err, `c.csv:2:4: feature name "N\x7fu" holds a control character (U+007F)`)
}

// TestStrictLineCap: a line (or a quoted record) longer than 1 MiB is an
// error, found without reading the rest of the file.
func TestStrictLineCap(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("a", input.MaxLineBytes+1)
	_, err := strictResults(t, "", "dataset,method,metric,value,"+big+"\n")
	wantErr(t, err, `results.csv:1: line longer than 1 MiB`)
	_, err = strictResults(t, "", resultsHeader+"d,A,ndcg,0.5\nd,B,ndcg,"+big)
	wantErr(t, err, `results.csv:3: line longer than 1 MiB`)
	// exactly 1 MiB is fine
	name := strings.Repeat("m", input.MaxLineBytes-len("d,,ndcg,0.5"))
	if _, err := strictResults(t, "", resultsHeader+"d,"+name+",ndcg,0.5\r\n"); err != nil {
		t.Errorf("a line of 1 MiB: %.200v", err)
	}
	// a quote that never closes, over short lines
	_, err = strictResults(t, "", resultsHeader+"d,\"A"+strings.Repeat(",ndcg,0.5\n", input.MaxLineBytes/10+10))
	wantErr(t, err, `results.csv:2: a record longer than 1 MiB starts on this line (a quoted field without its closing quote?)`)

}

// TestStrictGzipBomb: a gzip bomb without line breaks fails at the line
// cap, with little memory (it used to end in out-of-memory). Not parallel,
// so that the allocation count is this test's.
func TestStrictGzipBomb(t *testing.T) {
	// A gzip bomb without line breaks fails fast, with little memory.
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	w.Write([]byte(resultsHeader))
	zeros := make([]byte, 1<<20)
	for i := 0; i < 16; i++ { // 16 MiB inflated, 16 KiB compressed
		w.Write(zeros)
	}
	w.Close()
	in := strictStudy(t, "results", "r.csv.gz", "", map[string]string{"r.csv.gz": gz.String()})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := in.Results()
	runtime.ReadMemStats(&after)
	wantErr(t, err, `r.csv.gz:2: line longer than 1 MiB`)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 32<<20 {
		t.Errorf("the bomb allocated %d MiB", grown>>20)
	}

}

// TestStrictRegularFiles: an input must be a regular file: a FIFO must not
// block, /dev/zero must fail at once.
func TestStrictRegularFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "results.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	os.WriteFile(filepath.Join(dir, "study.toml"), []byte("title = \"s\"\n[inputs]\nresults = \"results.csv\"\n"), 0o644)
	s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := newInputs(s).Results()
		done <- err
	}()
	select {
	case err := <-done:
		wantErr(t, err, `results.csv: a named pipe (FIFO), not a regular file; evalbook reads only regular files`)
	case <-time.After(time.Minute): // a hang guard, not a speed budget
		t.Fatal("opening a FIFO blocked")
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := input.OpenTable("/dev/zero", "zero.csv", nil)
		wantErr(t, err, `zero.csv: not a regular file (a character device)`)
		link := filepath.Join(dir, "z.csv")
		if os.Symlink("/dev/zero", link) == nil {
			_, err := input.OpenTable(link, "z.csv", nil)
			wantErr(t, err, `z.csv: not a regular file`)
		}
	}
	_, err = input.OpenTable(dir, "dir.csv", nil)
	wantErr(t, err, `dir.csv: not a regular file (a directory)`)
}

// TestStrictDecompressedCap: a .gz input that inflates past the cap
// (Options.MaxDecompressed) is an error naming the file.
func TestStrictDecompressedCap(t *testing.T) {
	t.Parallel()
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(resultsHeader))
	for i := 0; i < 100000; i++ {
		w.Write([]byte("d,A,ndcg,0.5\n"))
	}
	w.Close()
	in := strictStudy(t, "results", "r.csv.gz", "", map[string]string{"r.csv.gz": gz.String()})
	in.Study.MaxDecompressed = 1 << 20
	_, err := in.Results()
	wantErr(t, err, `r.csv.gz:`)
	wantErr(t, err, `: decompresses to more than 1 MiB, the cap on a decompressed input (raise it with --max-decompressed)`)
	in.Study.MaxDecompressed = -1 // no cap
	if _, err := load.NewInputs(in.Study).Results(); err != nil {
		t.Errorf("without a cap: %v", err)
	}
	// Through Build, the option reaches the readers.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "r.csv.gz"), gz.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "study.toml"), []byte("title = \"s\"\n[inputs]\nresults = \"r.csv.gz\"\n[[analyses]]\nid = \"a\"\ntype = \"aggregate\"\nmetric = \"ndcg\"\n"), 0o644)
	_, err = Validate(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml"), MaxDecompressed: 4096})
	wantErr(t, err, `decompresses to more than 4 KiB`)
}

// TestStrictOverflow: a mean over runs that overflows float64 is an error
// at its file and line (it used to fail in the renderer without one).
func TestStrictOverflow(t *testing.T) {
	t.Parallel()
	_, err := strictResults(t, "", "dataset,method,metric,run,value\nd,A,ndcg,1,1.7e308\nd,A,ndcg,2,-1.7e308\n")
	wantErr(t, err, `results.csv:3:12: the mean or spread over the 2 values of ndcg of A on d overflows float64`)
	_, err = strictResults(t, `, duplicates = "mean"`, resultsHeader+"d,A,ndcg,1e200\nd,A,ndcg,-1e200\n")
	wantErr(t, err, `results.csv:3:10: the mean or spread over the 2 values of ndcg of A on d overflows float64`)
	r, err := strictResults(t, "", "dataset,method,metric,run,value\nd,A,ndcg,1,1.5e308\nd,A,ndcg,2,1.5e308\n")
	if err != nil || cell(t, r, "d", "A", "ndcg").Value != 1.5e308 {
		t.Errorf("large but finite: %v", err)
	}
}

// TestStrictManifestKeys: duplicates and missing_values are input entry
// keys, checked with the manifest line and a did-you-mean.
func TestStrictManifestKeys(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ inputs, want string }{
		{`results = { path = "r.csv", duplicates = "avg" }`, `study.toml:3: inputs.results[0].duplicates: unknown value "avg" (want "mean", "first" or "last")`},
		{`results = { path = "r.csv", duplicates = "frist" }`, `(did you mean "first"?)`},
		{`results = { path = "r.csv", duplicate = "mean" }`, `study.toml:3: inputs.results: unknown key "duplicate" (did you mean "duplicates"?)`},
		{`results = { path = "r.csv", missing_value = ["NA"] }`, `(did you mean "missing_values"?)`},
		{`units = { path = "u.csv", duplicates = "mean" }`, `study.toml:3: inputs.units[0].duplicates: only results entries take this key`},
		{`results = { path = "r.csv", missing_values = ["NA", " "] }`, `study.toml:3: inputs.results[0].missing_values: an empty marker`},
		{`results = { path = "r.csv", missing_values = ["N\u0000A"] }`, `marker "N\x00A" holds a control character`},
		{`results = { path = "r.csv", missing_values = "NA" }`, `inputs.results.missing_values`},
	} {
		_, err := manifest.ParseStudy("/s/study.toml", []byte("title = \"s\"\n[inputs]\n"+c.inputs+"\n"), kinds.Kinds())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.inputs, err, c.want)
		}
	}
	s, err := manifest.ParseStudy("/s/study.toml", []byte("title = \"s\"\n[inputs]\nresults = [{ path = \"r.csv\", duplicates = \"last\", missing_values = [\"NA\"] }]\n"), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	if e := s.Inputs.Results[0]; e.Duplicates != "last" || !reflect.DeepEqual(e.MissingValues, []string{"NA"}) {
		t.Errorf("entry %+v", e)
	}
}

// TestStrictRuns: the run, truth and prediction readers take the same
// numbers, names and field counts.
func TestStrictRuns(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, truth, run, runName, want string }{
		{"NaN score", offlineTruthCSV, "user,item,score\nu1,a,NaN\n", "runs/m.csv", `runs/m.csv:2: score "NaN" is not a number (NaN and infinite values are not accepted)`},
		{"Inf score", offlineTruthCSV, "user,item,score\nu1,a,-inf\n", "runs/m.csv", `runs/m.csv:2: score "-inf" is not a number`},
		{"hex score, TREC", offlineTruthCSV, "u1 Q0 a 1 0x1p-2 t\n", "runs/m.run", `runs/m.run:1: score "0x1p-2" is not a number (hexadecimal is not accepted)`},
		{"hex rank", offlineTruthCSV, "user,item,rank\nu1,a,0x1\n", "runs/m.csv", `runs/m.csv:2: rank "0x1" is not a positive integer`},
		{"rank with separators", offlineTruthCSV, "user,item,rank\nu1,a,1_0\n", "runs/m.csv", `rank "1_0" is not a positive integer`},
		{"extra field", offlineTruthCSV, "user,item,score\nu1,a,0,5\n", "runs/m.csv", `runs/m.csv:2: 4 fields, the header has 3 — a decimal comma in "0,5"? quote the value or use a dot`},
		{"trailing comma", offlineTruthCSV, "user,item,rank\nu1,a,1,\n", "runs/m.csv", `runs/m.csv:2: 4 fields, the header has 3 — a trailing separator?`},
		{"short of the header", offlineTruthCSV, "user,item,rank,note\nu1,a,1\n", "runs/m.csv", `runs/m.csv:2: 3 fields, the header has 4`},
		{"header control", offlineTruthCSV, "user,item,ra\x1bnk\nu1,a,1\n", "runs/m.csv", `runs/m.csv:1: header cell 3, "ra\x1bnk", holds a control character (U+001B)`},
		{"header twice", offlineTruthCSV, "user,item,rank,Rank\nu1,a,1,1\n", "runs/m.csv", `runs/m.csv:1: column "rank" appears twice in the header (columns 3 and 4)`},
		{"user id", offlineTruthCSV, "user,item,rank\nu\xff,a,1\n", "runs/m.csv", `runs/m.csv:2: user id "u\xff" holds invalid UTF-8 (byte 0xFF)`},
		{"truth relevance", "user,item,relevance\nu1,a,Infinity\n", "user,item,rank\nu1,a,1\n", "runs/m.csv", `truth.csv:2: relevance "Infinity" is not a number (NaN and infinite values are not accepted)`},
		{"truth user", "user,item\nu\x001,a\n", "user,item,rank\nu1,a,1\n", "runs/m.csv", `truth.csv:2: user id "u\x001" holds a control character (U+0000)`},
		{"truth fields", "user,item\nu1,a,1\n", "user,item,rank\nu1,a,1\n", "runs/m.csv", `truth.csv:2: 3 fields, the header has 2`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pattern := "runs/{method}.csv"
			if strings.HasSuffix(c.runName, ".run") {
				pattern = "runs/{method}.run"
			}
			ctx := offlineTestCtx(t, map[string]string{"truth.csv": c.truth, c.runName: c.run})
			_, err := kinds.OfflineMetricsDerived(ctx, offlineTestOpts(pattern, "truth.csv"), nil)
			wantErr(t, err, c.want)
		})
	}
	t.Run("predictions", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		p := filepath.Join(dir, "p.csv")
		os.WriteFile(p, []byte("user,item,prediction\nu1,a,nan\n"), 0o644)
		r, err := runs.OpenCapped(p, "p.csv", runs.FormatTable, true, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		_, _, err = r.Next()
		wantErr(t, err, `p.csv:2: prediction "nan" is not a number`)
	})
}

// TestStrictMultiObjectiveNumbers: the multi-objective reader takes the
// same numbers.
func TestStrictMultiObjectiveNumbers(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"NaN", "inf", "1_0"} {
		src := strings.Replace(fmt.Sprintf(moStudy, "subs.csv"), "red,0.40", "red,"+v, 1)
		_, err := buildStudy(t, src)
		wantErr(t, err, `subs.csv:2:5: `)
		wantErr(t, err, `"`+v+`"`)
	}
}

func TestStrictParquetNumbers(t *testing.T) {
	t.Parallel()
	type row struct {
		Dataset string  `parquet:"dataset"`
		Method  string  `parquet:"method"`
		Metric  string  `parquet:"metric"`
		Value   float64 `parquet:"value"`
	}
	type textRow struct {
		Dataset string `parquet:"dataset"`
		Method  string `parquet:"method"`
		Metric  string `parquet:"metric"`
		Value   string `parquet:"value"`
	}
	dir := t.TempDir()
	pqtest.Write(t, filepath.Join(dir, "r.parquet"), []row{{"d", "A", "ndcg", 0.5}, {"d", "B", "ndcg", math.NaN()}, {"d", "C", "ndcg", math.Inf(-1)}})
	pqtest.Write(t, filepath.Join(dir, "t.parquet"), []textRow{{"d", "A", "ndcg", "0x1p-2"}})
	load := func(file, extra string) (*analyses.Results, error) {
		os.WriteFile(filepath.Join(dir, "study.toml"), []byte("title = \"s\"\n[inputs]\nresults = { path = \""+file+"\""+extra+" }\n"), 0o644)
		s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		return newInputs(s).Results()
	}
	_, err := load("r.parquet", "")
	wantErr(t, err, `r.parquet: row 2, column "value": not a finite number: NaN (declare it missing with missing_values = ["NaN"] on the input)`)
	_, err = load("r.parquet", `, missing_values = ["NaN"]`)
	wantErr(t, err, `r.parquet: row 3, column "value": not a finite number: -Inf`)
	r, err := load("r.parquet", `, missing_values = ["NaN", "-Inf"]`)
	if err != nil || len(r.Cells) != 1 {
		t.Errorf("markers on Parquet: %v %v", r, err)
	}
	_, err = load("t.parquet", "")
	wantErr(t, err, `t.parquet: row 1, column "value": not a decimal number: "0x1p-2" (hexadecimal is not accepted)`)
}
