package report

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"github.com/evalbook/evalbook/internal/pqtest"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
)

// demsarExpected is testdata/demsar2006/expected.json: scipy's Friedman
// test, mean ranks, Iman–Davenport and Nemenyi's critical difference on
// the matrix of results.csv, read by gen.py with Python's csv module.
type demsarExpected struct {
	Datasets           []string           `json:"datasets"`
	Methods            []string           `json:"methods"`
	FriedmanStatistic  float64            `json:"friedman_statistic"`
	FriedmanP          float64            `json:"friedman_p"`
	ImanDavenportF     float64            `json:"iman_davenport_f"`
	ImanDavenportP     float64            `json:"iman_davenport_p"`
	CriticalDifference float64            `json:"critical_difference"`
	MeanRanks          map[string]float64 `json:"mean_ranks"`
}

// Demšar's (2006) Table 6 — AUC of C4.5 and three variants on 14 data
// sets, as the paper prints it, one row per data set and one column per
// classifier — builds as it is, with layout = "matrix", and its
// critical_difference gives scipy's Friedman statistic (tie-corrected),
// p, Iman–Davenport, Nemenyi's critical difference and every mean rank.
func TestMatrixDemsarTable6(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "demsar2006")
	var want demsarExpected
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	var archive strings.Builder
	for _, name := range []string{"study.toml", "results.csv"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		archive.WriteString("-- " + name + " --\n" + string(data))
	}
	site := mustBuild(t, archive.String())
	doc := readJSON(t, site, "data/cd.json")
	for _, v := range []struct {
		name string
		want float64
	}{
		{"friedman_statistic", want.FriedmanStatistic}, {"friedman_p", want.FriedmanP},
		{"iman_davenport_f", want.ImanDavenportF}, {"iman_davenport_p", want.ImanDavenportP},
		{"critical_difference", want.CriticalDifference},
	} {
		if g, ok := doc[v.name].(float64); !ok || math.Abs(g-v.want) > 1e-12*math.Max(1, math.Abs(v.want)) {
			t.Errorf("%s = %v, scipy %v", v.name, doc[v.name], v.want)
		}
	}
	var datasets []string
	for _, d := range doc["datasets"].([]any) {
		datasets = append(datasets, d.(string))
	}
	if !reflect.DeepEqual(datasets, want.Datasets) {
		t.Errorf("datasets %q, want %q", datasets, want.Datasets)
	}
	methods, ranks := doc["methods"].([]any), doc["mean_ranks"].([]any)
	if len(methods) != len(want.MeanRanks) || len(ranks) != len(methods) {
		t.Fatalf("methods %v with mean ranks %v, want %v", methods, ranks, want.MeanRanks)
	}
	for i, m := range methods {
		w, ok := want.MeanRanks[m.(string)]
		if g := ranks[i].(float64); !ok || math.Abs(g-w) > 1e-12 {
			t.Errorf("mean rank of %v = %v, scipy %v", m, g, w)
		}
	}
}

// matrixStudy is a study reading r.csv (or the named file) with the
// entry's keys, and an aggregate of metric AUC so that it is read.
func matrixStudy(entry, file, data string) string {
	return "-- study.toml --\ntitle = \"s\"\n[inputs]\nresults = " + entry + "\n[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"AUC\"\n-- " + file + " --\n" + data
}

const matrixEntry = `{ path = "r.csv", layout = "matrix", metric = "AUC" }`

// A matrix's forms: TSV and gzip, a pandas index column without a name,
// a dataset column mapped and not first, an ignored column, empty cells
// and markers as missing values.
func TestMatrixForms(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, entry, file, data string
		want                    map[[2]string]float64 // (dataset, method) → AUC
		missing                 [][2]string
	}{
		{"csv", matrixEntry, "r.csv", "Dataset,A,B\nd1,0.5,0.25\nd2,,0.75\n",
			map[[2]string]float64{{"d1", "A"}: 0.5, {"d1", "B"}: 0.25, {"d2", "B"}: 0.75}, [][2]string{{"d2", "A"}}},
		{"pandas index", matrixEntry, "r.csv", ",A,B\nd1,0.5,0.25\n",
			map[[2]string]float64{{"d1", "A"}: 0.5, {"d1", "B"}: 0.25}, nil},
		{"mapped, ignored, markers", `{ path = "r.csv", layout = "matrix", metric = "AUC", columns = { dataset = "Data set" }, ignore = ["Mean"], missing_values = ["NA"] }`, "r.csv",
			"A,Data set,Mean,B\n0.5,d1,0.375,NA\n0.125,d2,0.25,0.375\n",
			map[[2]string]float64{{"d1", "A"}: 0.5, {"d2", "A"}: 0.125, {"d2", "B"}: 0.375}, [][2]string{{"d1", "B"}, {"d1", "Mean"}}},
		{"tsv", `{ path = "r.tsv", layout = "matrix", metric = "AUC" }`, "r.tsv", "dataset\tA\tB\r\nd1\t0.5\t0.25\r\n",
			map[[2]string]float64{{"d1", "A"}: 0.5, {"d1", "B"}: 0.25}, nil},
	} {
		c := c
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, err := studyInputs(t, matrixStudy(c.entry, c.file, c.data)).Results()
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range c.want {
				if got := cell(t, r, k[0], k[1], "AUC"); got.Value != v {
					t.Errorf("%v = %v, want %v", k, got.Value, v)
				}
			}
			if len(r.Cells) != len(c.want) {
				t.Errorf("%d cells, want %d: %v", len(r.Cells), len(c.want), r.Cells)
			}
			for _, k := range c.missing {
				if _, ok := r.Get(k[0], k[1], "AUC"); ok {
					t.Errorf("%v should be missing", k)
				}
			}
		})
	}
	t.Run("parquet", func(t *testing.T) {
		t.Parallel()
		type row struct {
			Dataset string   `parquet:"dataset"`
			A       float64  `parquet:"A"`
			B       *float64 `parquet:"B,optional"`
		}
		dir := t.TempDir()
		half := 0.5
		pqtest.Write(t, filepath.Join(dir, "r.parquet"), []row{{"d1", 0.25, &half}, {"d2", 0.75, nil}, {"d1", 1, nil}})
		os.WriteFile(filepath.Join(dir, "study.toml"), []byte("title = \"s\"\n[inputs]\nresults = { path = \"r.parquet\", layout = \"matrix\", metric = \"AUC\" }\n"), 0o644)
		s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		// the third row repeats d1: an error naming both rows
		if _, err := newInputs(s).Results(); err == nil || !strings.Contains(err.Error(), `r.parquet`) || !strings.Contains(err.Error(), `r.parquet: row 3, column "dataset": dataset "d1" has a second row (the first at row 1)`) {
			t.Fatalf("got %v", err)
		}
		pqtest.Write(t, filepath.Join(dir, "r.parquet"), []row{{"d1", 0.25, &half}, {"d2", 0.75, nil}})
		r, err := newInputs(s).Results()
		if err != nil {
			t.Fatal(err)
		}
		if cell(t, r, "d1", "B", "AUC").Value != 0.5 || cell(t, r, "d2", "A", "AUC").Value != 0.75 || len(r.Cells) != 3 {
			t.Errorf("cells %v: a null is a missing value", r.Cells)
		}
	})
	t.Run("gzip", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		var gz bytes.Buffer
		w := gzip.NewWriter(&gz)
		w.Write([]byte("dataset,A\nd1,0.5\n"))
		w.Close()
		os.WriteFile(filepath.Join(dir, "r.csv.gz"), gz.Bytes(), 0o644)
		os.WriteFile(filepath.Join(dir, "study.toml"), []byte("title = \"s\"\n[inputs]\nresults = { path = \"r.csv.gz\", layout = \"matrix\", metric = \"AUC\" }\n"), 0o644)
		s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		r, err := newInputs(s).Results()
		if err != nil {
			t.Fatal(err)
		}
		if cell(t, r, "d1", "A", "AUC").Value != 0.5 {
			t.Error("value")
		}
	})
}

// TestMatrixErrors: a malformed matrix, or an entry that cannot be one,
// is an error naming the file and line (the manifest's, for a key), and a
// matrix read without layout = "matrix" is refused with the reshape named.
func TestMatrixErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, entry, data, want string }{
		{"ragged row", matrixEntry, "dataset,A,B\nd1,0.5,0.25\nd2,0.5\n", "r.csv:3: 2 fields, the header has 3"},
		{"a long row", matrixEntry, "dataset,A,B\nd1,0.5,0,25\n", `r.csv:2:8: 4 fields, the header has 3`},
		{"empty header cell", matrixEntry, "dataset,A,,B\nd1,0.5,0.1,0.25\n", `r.csv:1:11: column 3 has no name in the header: in a matrix (layout = "matrix") every column after the dataset is a method`},
		{"duplicate method", matrixEntry, "dataset,A,B,a\nd1,0.5,0.25,0.1\n", `r.csv:1:13: column "a" appears twice in the header (columns 2 and 4); rename one`},
		{"duplicate dataset", matrixEntry, "dataset,A,B\nd1,0.5,0.25\nd2,0.5,0.25\nd1,0.5,0.25\n", `r.csv:4:1: dataset "d1" has a second row (the first at r.csv:2): a matrix gives each dataset one row`},
		{"non-numeric", matrixEntry, "dataset,A,B\nd1,0.5,0.25\nd2,0.5,n/a\n", `r.csv:3:8: not a number: "n/a"; column "B" is read as a method's values (in a matrix every column after the dataset is one); to leave it out, add ignore = ["B"] to the input entry`},
		{"only one column", matrixEntry, "dataset\nd1\n", `r.csv:1: no method columns: a matrix (layout = "matrix") is the dataset column, then one column per method (header: dataset)`},
		{"empty dataset", matrixEntry, "dataset,A\n,0.5\n", `r.csv:2:1: empty dataset name`},
		{"no rows", matrixEntry, "dataset,A\n", `r.csv:1: no rows after the header`},
		{"a long file", matrixEntry, "dataset,method,value\nd1,A,0.5\n", `r.csv:1:9: column "method" is one evalbook reads by name, but in a matrix (layout = "matrix") every column after the dataset is a method: leave it out with ignore = ["method"], or drop layout = "matrix" from the input entry (study.toml:3)`},
		{"formula method", matrixEntry, "dataset,=A\nd1,0.5\n", `r.csv:1:9: method name "=A" (a column of the header) holds`},
		{"without layout", `"r.csv"`, "Dataset,C4.5,C4.5+m\nadult,0.763,0.768\n",
			`r.csv:1: no column "method" (header: Dataset,C4.5,C4.5+m); if each column after the first is a method (a datasets × methods matrix), add layout = "matrix" and metric = "…" to this entry (study.toml:3)`},
		{"without layout, metric given", `{ path = "r.csv", metric = "AUC" }`, "Dataset,C4.5,C4.5+m\nadult,0.763,0.768\n",
			`add layout = "matrix" and metric = "AUC" to this entry (study.toml:3)`},
		{"a long file without a method column", `"r.csv"`, "dataset,metric,value\nd,AUC,1\n", `r.csv:1: no column "method" (header: dataset,metric,value)` + "\x00"},
		{"layout without metric", `{ path = "r.csv", layout = "matrix" }`, "dataset,A\nd1,0.5\n", `study.toml:3: inputs.results[0]: layout = "matrix" needs metric = "…", the metric every cell of the matrix is (metric = "AUC")`},
		{"unknown layout", `{ path = "r.csv", layout = "matrx", metric = "AUC" }`, "dataset,A\nd1,0.5\n", `study.toml:3: inputs.results[0].layout: unknown value "matrx" (want "matrix"`},
		{"a method constant", `{ path = "r.csv", layout = "matrix", metric = "AUC", method = "A" }`, "dataset,A\nd1,0.5\n", `study.toml:3: inputs.results[0].method: not with layout = "matrix"`},
		{"a mapped method", `{ path = "r.csv", layout = "matrix", metric = "AUC", columns = { method = "A" } }`, "dataset,A\nd1,0.5\n", `study.toml:3: inputs.results[0].columns: "method": with layout = "matrix" only the dataset column is mapped`},
		{"a placeholder", `{ path = "{dataset}.csv", layout = "matrix", metric = "AUC" }`, "dataset,A\nd1,0.5\n", `study.toml:3: inputs.results[0].path: a {dataset} placeholder with layout = "matrix"`},
	} {
		c := c
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := buildStudy(t, matrixStudy(c.entry, "r.csv", c.data))
			want, exact := strings.CutSuffix(c.want, "\x00")
			switch {
			case err == nil || !strings.Contains(err.Error(), want):
				t.Fatalf("got %v\nwant %q", err, want)
			case exact && strings.Contains(err.Error(), "layout"):
				t.Fatalf("a long file's error suggests a matrix: %v", err)
			}
		})
	}
	t.Run("layout on characteristics", func(t *testing.T) {
		t.Parallel()
		_, err := buildStudy(t, "-- study.toml --\ntitle = \"s\"\n[inputs]\ncharacteristics = { path = \"c.csv\", layout = \"matrix\" }\n-- c.csv --\ndataset,n\nd,1\n")
		if err == nil || !strings.Contains(err.Error(), `study.toml:3: inputs.characteristics[0].layout: only results entries take this key`) {
			t.Fatalf("got %v", err)
		}
	})
}

// FuzzMatrixResults: no file read as a matrix makes the results loader
// panic; every error names the file; what loads is finite, of the entry's
// metric, of a method that heads a column and a dataset that heads a row,
// one value per cell at most.
func FuzzMatrixResults(f *testing.F) {
	f.Add([]byte("dataset,A,B\nd1,0.5,0.25\nd2,,0.75\n"))
	f.Add([]byte(",A,B\r\nd1,0.5,0.25\r\n"))
	f.Add([]byte("dataset,A,,B\nd1,0.5,,0.25\n"))
	f.Add([]byte("dataset,A,A\nd1,0.5,0.25\n"))
	f.Add([]byte("dataset,A\nd1,0,5\nd1,1\n"))
	f.Add([]byte("\xef\xbb\xbfdataset,\"A\nB\",C\n\"d\"\"1\",1e308,-1e-320\n"))
	f.Add([]byte("dataset\nd1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "r.csv"), data, 0o644)
		os.WriteFile(filepath.Join(dir, "study.toml"), []byte("title = \"s\"\n[inputs]\nresults = "+matrixEntry+"\n"), 0o644)
		s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		r, err := newInputs(s).Results()
		if err != nil {
			if !strings.Contains(err.Error(), "r.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		rows := bytes.Count(data, []byte("\n")) + 1
		if len(r.Cells) > rows*len(r.Methods) {
			t.Fatalf("%d cells from %d lines and %d methods", len(r.Cells), rows, len(r.Methods))
		}
		for k, c := range r.Cells {
			if math.IsNaN(c.Value) || math.IsInf(c.Value, 0) || c.Runs > 1 || k.Metric != "AUC" {
				t.Fatalf("cell %v = %+v", k, c)
			}
			for _, name := range []string{k.Dataset, k.Method} {
				if input.BadName(name) != "" || name == "" {
					t.Fatalf("name %q loaded", name)
				}
			}
			unquoted := bytes.ReplaceAll(data, []byte(`""`), []byte(`"`))
			if !bytes.Contains(unquoted, []byte(k.Method)) || !bytes.Contains(unquoted, []byte(k.Dataset)) {
				t.Fatalf("cell %v names what the file does not hold", k)
			}
		}
	})
}
