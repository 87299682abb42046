package report

import (
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// newInputs is the input state of a build of s without --allow-outside.
func newInputs(s *manifest.Study) *load.Inputs { return load.NewInputs(inputConfig(s, false)) }

// studyInputs writes a txtar study and returns its inputs loader.
func studyInputs(t testing.TB, archive string) *load.Inputs {
	t.Helper()
	dir := t.TempDir()
	if err := ParseArchive([]byte(archive)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	return newInputs(s)
}

func cell(t *testing.T, r *analyses.Results, d, m, metric string) analyses.Cell {
	t.Helper()
	c, ok := r.Get(d, m, metric)
	if !ok {
		t.Fatalf("no cell %s/%s/%s in %v", d, m, metric, r.Metrics)
	}
	return c
}

func TestResultsForms(t *testing.T) {
	t.Parallel()
	t.Run("long with k and run", func(t *testing.T) {
		t.Parallel()
		in := studyInputs(t, `-- study.toml --
title = "s"
[inputs]
results = "r.csv"
-- r.csv --
Dataset,Method,Metric,K,Run,Value,extra
d1,A,ndcg,10,1,0.5,x
d1,A,ndcg,10,2,0.7,x
d1,A,rmse,,1,0.9,x
`)
		r, err := in.Results()
		if err != nil {
			t.Fatal(err)
		}
		c := cell(t, r, "d1", "A", "ndcg@10")
		if math.Abs(c.Value-0.6) > 1e-15 || c.Runs != 2 || math.Abs(c.SD-math.Sqrt(0.02)) > 1e-15 {
			t.Errorf("ndcg@10 cell %+v", c)
		}
		if cell(t, r, "d1", "A", "rmse").Value != 0.9 {
			t.Error("rmse")
		}
	})
	t.Run("wide, TSV, gzip, BOM, CRLF", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		var gz bytes.Buffer
		w := gzip.NewWriter(&gz)
		w.Write([]byte("\xef\xbb\xbfdataset\tmethod\tndcg\tRMSE\r\nd1\tA\t0.25\t1.5\r\nd2\tA\t0.5\t\r\n"))
		w.Close()
		os.WriteFile(filepath.Join(dir, "r.tsv.gz"), gz.Bytes(), 0o644)
		os.WriteFile(filepath.Join(dir, "study.toml"), []byte("title = \"s\"\n[inputs]\nresults = \"*.tsv.gz\"\n"), 0o644)
		s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		r, err := newInputs(s).Results()
		if err != nil {
			t.Fatal(err)
		}
		if cell(t, r, "d2", "A", "ndcg").Value != 0.5 || cell(t, r, "d1", "A", "RMSE").Value != 1.5 {
			t.Error("values")
		}
		if _, ok := r.Get("d2", "A", "RMSE"); ok {
			t.Error("an empty cell must be missing")
		}
	})
	t.Run("patterns, constants and study-named dataset", func(t *testing.T) {
		t.Parallel()
		in := studyInputs(t, `-- study.toml --
title = "My study"
[inputs]
results = [{ path = "runs/{method}_{dataset}.csv" }, { path = "extra.csv", method = "C" }]
-- runs/MF-bias_amazon-toy.csv --
metric,value
ndcg,0.1
-- runs/BPR_movielens_1m.csv --
metric,value
ndcg,0.2
-- extra.csv --
ndcg
0.3
`)
		r, err := in.Results()
		if err != nil {
			t.Fatal(err)
		}
		cell(t, r, "amazon-toy", "MF-bias", "ndcg")
		cell(t, r, "movielens_1m", "BPR", "ndcg") // non-greedy, left to right
		cell(t, r, "My study", "C", "ndcg")
	})
}

// TestResultsErrors: malformed input names file, line and column.
func TestResultsErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, csv, want string
	}{
		{"not a number", "dataset,method,metric,value\nd,A,ndcg,0.5\nd,B,ndcg,abc\n", `r.csv:3:10: not a number: "abc"`},
		{"too few fields", "dataset,method,metric,value\nd,A,ndcg\n", `r.csv:2: 3 fields, the header has 4`},
		{"too many fields", "dataset,method,metric,value\nd,A,ndcg,0,5\n", `r.csv:2:10: 5 fields, the header has 4 — a decimal comma in "0,5"? quote the value or use a dot`},
		{"NaN", "dataset,method,metric,value\nd,A,ndcg,NaN\n", `r.csv:2:10: not a number: "NaN"`},
		{"conflicting duplicate", "dataset,method,metric,value\nd,A,ndcg,0.5\nd,A,ndcg,0.6\n", `r.csv:3:10: ndcg of A on d is also given at r.csv:2 with another value (0.6 vs 0.5)`},
		{"control character", "dataset,method,metric,value\nd,A\x1b,ndcg,0.5\n", `r.csv:2:3: method name "A\x1b" holds a control character (U+001B)`},
		{"no method column", "dataset,metric,value\nd,ndcg,1\n", `r.csv:1: no column "method"`},
		{"empty file", "", `r.csv: empty file`},
		{"bare quote", "dataset,method,metric,value\nd,\"A,ndcg,1\n", `r.csv:2:`},
		{"empty method", "dataset,method,metric,value\nd,,ndcg,1\n", `r.csv:2:3: empty method name`},
		{"no metric columns", "dataset,method\nd,A\n", `r.csv:1: no metric columns`},
	}
	for _, c := range cases {
		c := c
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := studyInputs(t, "-- study.toml --\ntitle = \"s\"\n[inputs]\nresults = \"r.csv\"\n-- r.csv --\n"+c.csv)
			_, err := in.Results()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	t.Run("no file matches", func(t *testing.T) {
		t.Parallel()
		in := studyInputs(t, "-- study.toml --\ntitle = \"s\"\n[inputs]\nresults = \"runs/*.csv\"\n")
		if _, err := in.Results(); err == nil || !strings.Contains(err.Error(), `study.toml:3: inputs.results: no file matches "runs/*.csv"`) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("column mapping to a missing column", func(t *testing.T) {
		t.Parallel()
		in := studyInputs(t, "-- study.toml --\ntitle = \"s\"\n[inputs]\nresults = { path = \"r.csv\", columns = { method = \"model\" } }\n-- r.csv --\ndataset,modl,metric,value\n")
		if _, err := in.Results(); err == nil || !strings.Contains(err.Error(), `r.csv:1: no column "model" (mapped from "method") (did you mean "modl"?)`) {
			t.Fatalf("got %v", err)
		}
	})
}

func TestUnits(t *testing.T) {
	t.Parallel()
	in := studyInputs(t, `-- study.toml --
title = "s"
[inputs]
units = [{ path = "u/{method}_{dataset}.csv", columns = { unit = "ID" }, missing = "zero" }, "long.csv", { path = "norow/{method}.csv", dataset = "d9" }]
-- u/MF_ml.csv --
ID,RMSE,NDCG@10
1,0.9,0.5
2,1.1,
-- long.csv --
dataset,method,unit,metric,value
d2,B,u1,ndcg,0.25
-- norow/C.csv --
ndcg
0.75
0.5
`)
	var got []string
	err := in.Units(func(u *load.UnitRow) error {
		got = append(got, strings.Join([]string{u.Dataset, u.Method, u.Unit, u.Metric, ftoa(u.Value)}, "|")+"#"+itoa(u.Row))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Entries in manifest order, files in sorted order, wide columns in
	// header order; row numbers count per file.
	want := []string{"ml|MF|1|RMSE|0.9#0", "ml|MF|1|NDCG@10|0.5#0", "ml|MF|2|RMSE|1.1#1", "ml|MF|2|NDCG@10|0#1",
		"d2|B|u1|ndcg|0.25#0", "d9|C||ndcg|0.75#0", "d9|C||ndcg|0.5#1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("units:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCharacteristicsForms(t *testing.T) {
	t.Parallel()
	in := studyInputs(t, `-- study.toml --
title = "s"
[inputs]
characteristics = ["wide.csv", "long.csv"]
-- wide.csv --
,Nu,Ni
ml,10,20
-- long.csv --
dataset,feature,value
ab,Nu,3
`)
	c, err := in.Characteristics()
	if err != nil {
		t.Fatal(err)
	}
	if c.Value["ml"]["Ni"] != 20 || c.Value["ab"]["Nu"] != 3 || len(c.Features) != 2 || len(c.Datasets) != 2 {
		t.Errorf("characteristics %+v", c)
	}
}

func ftoa(v float64) string { return strings.TrimRight(strings.TrimRight(strconvF(v), "0"), ".") }

// FuzzResultsLoader: no input makes the results loader panic; every
// error it returns names the file.
func FuzzResultsLoader(f *testing.F) {
	f.Add([]byte("dataset,method,metric,value\nd,A,ndcg,0.5\n"))
	f.Add([]byte("dataset,method,ndcg,rmse\r\nd,A,0.5,\r\n"))
	f.Add([]byte("\xef\xbb\xbfdataset,method,metric,k,run,value\nd,A,ndcg,10,1,1e-3\n"))
	f.Add([]byte("method,\"metric\nvalue\"\n\"A\",x\n"))
	f.Add([]byte("dataset,method,metric,value\nd,A,ndcg,0,152\nd,A,ndcg,0.1\n"))
	f.Add([]byte("dataset,method,metric,run,value\nd,A,ndcg,1,NaN\nd,A,ndcg,2,1e308\nd,A,ndcg,2,-1.7e308\n"))
	f.Add([]byte("dataset,method,ndcg,\nd,A\x00,0x1p-2,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "r.csv"), data, 0o644)
		os.WriteFile(filepath.Join(dir, "study.toml"), []byte("title = \"s\"\n[inputs]\nresults = \"r.csv\"\n"), 0o644)
		s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		in := newInputs(s)
		r, err := in.Results()
		if err != nil && !strings.Contains(err.Error(), "r.csv") {
			t.Fatalf("error does not name the file: %v", err)
		}
		if err == nil {
			// What loads is finite, and every name is fit to print.
			for k, c := range r.Cells {
				if math.IsNaN(c.Value) || math.IsInf(c.Value, 0) || math.IsInf(c.SD, 0) || math.IsNaN(c.SD) {
					t.Fatalf("cell %v = %+v", k, c)
				}
				for _, name := range []string{k.Dataset, k.Method, k.Metric} {
					if input.BadName(name) != "" {
						t.Fatalf("name %q loaded", name)
					}
				}
			}
		}
		in.Units(func(*load.UnitRow) error { return nil })
	})
}

// FuzzManifest: no manifest text makes the parser panic.
func FuzzManifest(f *testing.F) {
	f.Add([]byte("title = \"t\"\n[[analyses]]\nid = \"a\"\ntype = \"aggregate\"\nmetric = \"m\"\n"))
	f.Add([]byte("title = 1\n[inputs]\nresults = [{ path = 3 }]\n"))
	f.Add([]byte("[[datasets]]\nname = \"x\"\ndomain = 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		manifest.ParseStudy("/s/study.toml", data, kinds.Kinds())
	})
}

func strconvF(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
func itoa(v int64) string       { return strconv.FormatInt(v, 10) }

// TestPatternWithGlob: placeholders and globs mix in one path.
func TestPatternWithGlob(t *testing.T) {
	t.Parallel()
	in := studyInputs(t, `-- study.toml --
title = "s"
[inputs]
results = "runs/*/{method}_{dataset}.c?v"
-- runs/a/EASE_ml.csv --
metric,value
ndcg,0.5
-- runs/b/ALS_books.csv --
metric,value
ndcg,0.25
`)
	r, err := in.Results()
	if err != nil {
		t.Fatal(err)
	}
	cell(t, r, "ml", "EASE", "ndcg")
	cell(t, r, "books", "ALS", "ndcg")
}
