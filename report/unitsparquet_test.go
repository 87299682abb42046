package report

import (
	"context"
	"fmt"
	"github.com/evalbook/evalbook/internal/pqtest"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// The units pass reads a Parquet units file by columns
// (report/load/unitsparquet.go); with the fast paths off it reads it
// record by record. Both must hand the sinks exactly the same rows
// (names, unit ids, row and line numbers, values to the bit) and the
// same errors at the same rows. These tests read random files both ways
// and compare.

// pqRecSink records what the pass hands it for one metric: the rows in
// order, and the other metrics it was told of.
type pqRecSink struct {
	metric string
	b      strings.Builder
	other  map[string]bool
}

func (s *pqRecSink) Metric() string    { return s.metric }
func (s *pqRecSink) Wants(string) bool { return true }
func (s *pqRecSink) Seen(d, m string)  { fmt.Fprintf(&s.b, "seen %q %q\n", d, m) }
func (s *pqRecSink) OtherMetric(d, m, x string) {
	if s.other == nil {
		s.other = map[string]bool{}
	}
	s.other[fmt.Sprintf("%q %q %q", d, m, x)] = true
}
func (s *pqRecSink) Add(u *load.UnitRow) error {
	fmt.Fprintf(&s.b, "%q %q %q %q %q row %d line %d %x\n", u.Dataset, u.Method, u.Metric, u.File, u.Unit, u.Row, u.Line, math.Float64bits(u.Value))
	return nil
}

// pqUnitsMetrics are the metrics the sinks of the differential tests
// ask for: every name the generator writes that the loader may take.
var pqUnitsMetrics = []string{"ndcg@10", "rmse", "NDCG@10", "mae", "value"}

// passParquetBoth runs the units pass over the study in dir by columns
// and record by record, and returns what each gave.
func passParquetBoth(t testing.TB, dir string) (columns, records string) {
	s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	var out [2]string
	for i, off := range []bool{false, true} {
		in := newInputs(s)
		in.UnitsFastOff = off
		var sinks []load.UnitsSink
		var recs []*pqRecSink
		for _, m := range pqUnitsMetrics {
			r := &pqRecSink{metric: m}
			recs = append(recs, r)
			sinks = append(sinks, r)
		}
		errs := in.UnitsPass(context.Background(), sinks)
		var b strings.Builder
		for k, r := range recs {
			fmt.Fprintf(&b, "== %s: %v\n%s", r.metric, errs[k], r.b.String())
			other := slices.Sorted(maps.Keys(r.other))
			fmt.Fprintf(&b, "other metrics: %s\n", strings.Join(other, ", "))
		}
		out[i] = b.String()
	}
	return out[0], out[1]
}

// Row types of the random files: dictionary-encoded and plain names,
// text and integer unit ids, nullable, float32, integer and text values.
type pquDict struct {
	Dataset string   `parquet:"dataset,dict"`
	Method  string   `parquet:"method,dict"`
	Unit    string   `parquet:"unit,dict"`
	Metric  string   `parquet:"metric,dict"`
	Value   *float64 `parquet:"value,optional"`
}

// pquLong is a long file as metagen and pyarrow write it when the unit
// ids are too many for a dictionary: names from dictionaries, unit ids
// plain, values required.
type pquLong struct {
	Dataset string  `parquet:"dataset,dict"`
	Method  string  `parquet:"method,dict"`
	Unit    string  `parquet:"unit"`
	Metric  string  `parquet:"metric,dict"`
	Value   float64 `parquet:"value"`
}

type pquPlain struct {
	Dataset string  `parquet:"dataset"`
	Method  string  `parquet:"method"`
	Unit    int64   `parquet:"unit"`
	Metric  string  `parquet:"metric"`
	Value   float32 `parquet:"value"`
}

type pquInt struct {
	Dataset *string `parquet:"dataset,dict,optional"`
	Method  string  `parquet:"method,dict"`
	Unit    string  `parquet:"unit"`
	Metric  string  `parquet:"metric,dict"`
	Value   int64   `parquet:"value"`
}

type pquText struct {
	Method string  `parquet:"method,dict"`
	Unit   *string `parquet:"unit,optional"`
	Metric string  `parquet:"metric"`
	Value  *string `parquet:"value,optional,dict"`
}

type pquWide struct {
	Dataset string   `parquet:"dataset,dict"`
	Method  string   `parquet:"method,dict"`
	Unit    string   `parquet:"unit,dict"`
	NDCG    *float64 `parquet:"ndcg@10,optional"`
	RMSE    float64  `parquet:"rmse"`
}

type pquPath struct {
	Unit int32    `parquet:"unit"`
	Rmse *float64 `parquet:"rmse,optional"`
}

type pquValue struct {
	Unit  string  `parquet:"unit,dict"`
	Value float64 `parquet:"value"`
}

// pqRandUnit is the unit id of row i: unique in a clean file (odd = 0;
// a unit twice is an error), else drawn from a few, one in odd odd.
func pqRandUnit(rng *rand.Rand, i int, odd int) string {
	if odd == 0 {
		return fmt.Sprintf("u%d", i)
	}
	return pqCell(rng, "unit", odd)
}

// pqIntUnit is pqRandUnit for an integer unit column.
func pqIntUnit(rng *rand.Rand, i int, odd int) int64 {
	if odd == 0 {
		return int64(i)
	}
	return int64(rng.IntN(50) - 3)
}

// pqCell is a random cell of a column: mostly plain; one in odd (none
// for odd = 0) a cell the record path must read but takes (a name to
// trim, a name met late, a null), and one in 20·odd an error.
func pqCell(rng *rand.Rand, col string, odd int) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	kind := 0 // plain
	if odd > 0 && rng.IntN(odd) == 0 {
		kind = 1 // taken
		if rng.IntN(20) == 0 {
			kind = 2 // an error
		}
	}
	switch col {
	case "dataset":
		return [3]func() string{
			func() string { return pick("ds0", "ds0", "ds1", "ds2", "a-long-dataset-name") },
			func() string { return pick(" ds0", "ds0 ", "ds3", "ds1\t", "\u00e9t\u00e9") },
			func() string { return pick("", "=ds0", "d\x01s", "ds\u202e") },
		}[kind]()
	case "method":
		return [3]func() string{
			func() string { return pick("treat", "ctrl", "baseline", "baselinf") },
			func() string { return pick("treat ", "Treat", "other", " ctrl") },
			func() string { return pick("", "+ctrl") },
		}[kind]()
	case "metric":
		return [3]func() string{
			func() string { return pick("ndcg@10", "rmse") },
			func() string { return pick("NDCG@10", " rmse", "mae", "rmse ") },
			func() string { return pick("", "@x") },
		}[kind]()
	case "unit":
		return [3]func() string{
			func() string { return fmt.Sprintf("u%d", rng.IntN(60)) },
			func() string {
				return pick(" u1", "u1 ", "u 1", "\u00e9", "a-very-long-unit-identifier-0123456789", "=1", " u2 ")
			},
			func() string { return pick("", "u\x7f", "  ") },
		}[kind]()
	}
	// a value as text
	return [3]func() string{
		func() string {
			return pick("0.25", "-0.125", "1", "0.440799", "0.38685280723454163", "7.", "12345678901234567890")
		},
		func() string { return pick("", " 0.5", "1e-3", "0.5 ", "+1") },
		func() string { return pick("NA", "NaN", "Inf", "0,5", "1_000", ".", "-", "0x10", "1e400") },
	}[kind]()
}

// pqFloat is a random value: mostly plain; one in odd (none for odd =
// 0) a null (ok false), one in 20·odd NaN or an infinity.
func pqFloat(rng *rand.Rand, odd int) (float64, bool) {
	if odd > 0 && rng.IntN(odd) == 0 {
		if rng.IntN(20) > 0 {
			return 0, false
		}
		if rng.IntN(2) == 0 {
			return math.NaN(), true
		}
		return math.Inf(1 - 2*rng.IntN(2)), true
	}
	return float64(rng.IntN(2000)-1000) / 997, true
}

// pqUnitsLayouts are the files and entries of the differential tests:
// write writes n random rows to path.
var pqUnitsLayouts = []struct {
	name, entry, path string
	write             func(t testing.TB, rng *rand.Rand, path string, n int, odd int)
}{
	{"dict", `units = ["u.parquet"]`, "u.parquet", writePQUnits(func(rng *rand.Rand, i int, odd int) pquDict {
		v, ok := pqFloat(rng, odd)
		r := pquDict{pqCell(rng, "dataset", odd), pqCell(rng, "method", odd), pqRandUnit(rng, i, odd), pqCell(rng, "metric", odd), nil}
		if ok {
			r.Value = &v
		}
		return r
	})},
	{"dict-drop", `units = [{ path = "u.parquet", missing = "drop" }]`, "u.parquet", nil},
	{"dict-zero", `units = [{ path = "u.parquet", missing = "zero" }]`, "u.parquet", nil},
	{"dict-fixed", `units = [{ path = "u.parquet", dataset = "ds0" }]`, "u.parquet", nil},
	{"dict-markers", `units = [{ path = "u.parquet", missing_values = ["NA"] }]`, "u.parquet", nil},
	{"dict-metric-is-value", `units = [{ path = "u.parquet", columns = { metric = "value" } }]`, "u.parquet", nil},
	{"long", `units = ["u.parquet"]`, "u.parquet", writePQUnits(func(rng *rand.Rand, i int, odd int) pquLong {
		v, _ := pqFloat(rng, odd)
		return pquLong{pqCell(rng, "dataset", odd), pqCell(rng, "method", odd), pqRandUnit(rng, i, odd), pqCell(rng, "metric", odd), v}
	})},
	{"plain", `units = ["u.parquet"]`, "u.parquet", writePQUnits(func(rng *rand.Rand, i int, odd int) pquPlain {
		v, _ := pqFloat(rng, odd)
		return pquPlain{pqCell(rng, "dataset", odd), pqCell(rng, "method", odd), pqIntUnit(rng, i, odd), pqCell(rng, "metric", odd), float32(v)}
	})},
	{"int", `units = ["u.parquet"]`, "u.parquet", writePQUnits(func(rng *rand.Rand, i int, odd int) pquInt {
		r := pquInt{nil, pqCell(rng, "method", odd), pqRandUnit(rng, i, odd), pqCell(rng, "metric", odd), int64(rng.IntN(7))}
		if d := pqCell(rng, "dataset", odd); d != "" || odd == 0 {
			r.Dataset = &d
		}
		if odd > 0 && rng.IntN(20*odd) == 0 {
			r.Value = 1<<53 + 1 + int64(rng.IntN(3))
		}
		return r
	})},
	{"text", `units = [{ path = "u.parquet", dataset = "dsX" }]`, "u.parquet", writePQUnits(func(rng *rand.Rand, i int, odd int) pquText {
		r := pquText{pqCell(rng, "method", odd), nil, pqCell(rng, "metric", odd), nil}
		if odd > 0 && rng.IntN(20*odd) == 0 {
			return r
		}
		u, v := pqRandUnit(rng, i, odd), pqCell(rng, "value", odd)
		r.Unit, r.Value = &u, &v
		return r
	})},
	{"wide", `units = ["u.parquet"]`, "u.parquet", writePQUnits(func(rng *rand.Rand, i int, odd int) pquWide {
		v, ok := pqFloat(rng, odd)
		w, _ := pqFloat(rng, odd)
		r := pquWide{pqCell(rng, "dataset", odd), pqCell(rng, "method", odd), pqRandUnit(rng, i, odd), nil, w}
		if ok {
			r.NDCG = &v
		}
		return r
	})},
	{"wide-path", `units = [{ path = "runs/{method}_{dataset}.parquet", missing = "drop" }]`, "runs/treat_ds0.parquet", writePQUnits(func(rng *rand.Rand, i int, odd int) pquPath {
		v, ok := pqFloat(rng, odd)
		r := pquPath{int32(pqIntUnit(rng, i, odd)), nil}
		if ok {
			r.Rmse = &v
		}
		return r
	})},
	{"metric-entry", `units = [{ path = "runs/{method}_{dataset}.parquet", metric = "mae" }]`, "runs/ctrl_ds1.parquet", writePQUnits(func(rng *rand.Rand, i int, odd int) pquValue {
		v, _ := pqFloat(rng, odd)
		return pquValue{pqRandUnit(rng, i, odd), v}
	})},
}

// writePQUnits returns a writer of random files of rows from row, in
// small pages and row groups of random sizes.
func writePQUnits[T any](row func(rng *rand.Rand, i int, odd int) T) func(t testing.TB, rng *rand.Rand, path string, n int, odd int) {
	return func(t testing.TB, rng *rand.Rand, path string, n int, odd int) {
		rows := make([]T, n)
		for i := range rows {
			rows[i] = row(rng, i, odd)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		pqtest.Write(t, path, rows, parquet.PageBufferSize(64+rng.IntN(2048)), parquet.MaxRowsPerRowGroup(int64(1+rng.IntN(700))))
	}
}

// pqLayoutWriter is the writer of layout i (an entry variant uses the
// writer of the layout before it that has one).
func pqLayoutWriter(i int) func(t testing.TB, rng *rand.Rand, path string, n int, odd int) {
	for ; pqUnitsLayouts[i].write == nil; i-- {
	}
	return pqUnitsLayouts[i].write
}

// writePQStudy writes layout i's study into dir.
func writePQStudy(t testing.TB, dir string, i int) {
	toml := "title = \"pq\"\n[inputs]\n" + pqUnitsLayouts[i].entry + "\n"
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUnitsParquetSameRows: random Parquet units files of every layout
// give the sinks the same rows and errors read by columns as record by
// record. Planted: resolving a name by its dictionary index across a new
// dictionary (a row group's) fails it.
func TestUnitsParquetSameRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 7))
	for i, l := range pqUnitsLayouts {
		t.Run(l.name, func(t *testing.T) {
			trials := 30
			if testing.Short() {
				trials = 8
			}
			for trial := 0; trial < trials; trial++ {
				dir := t.TempDir()
				writePQStudy(t, dir, i)
				// clean (every row read), frequent oddities (the record
				// path reads many rows), rare ones (the columns read most)
				odd := []int{0, 15, 500}[trial%3]
				pqLayoutWriter(i)(t, rng, filepath.Join(dir, l.path), 1+rng.IntN(2500), odd)
				cols, recs := passParquetBoth(t, dir)
				if cols != recs {
					t.Fatalf("trial %d: by columns and by records differ:\n%s", trial, pqFirstDiff(cols, recs))
				}
				if odd == 0 && !strings.Contains(l.entry, "dataset = ") && !strings.Contains(l.entry, "columns") && !strings.Contains(cols, " row 0 ") {
					t.Fatalf("trial %d: a clean file gave no first row:\n%.2000s", trial, cols)
				}
			}
		})
	}
}

// FuzzUnitsParquet is TestUnitsParquetSameRows with the layout, the
// random file (its seed and rows) and how often its cells are odd drawn
// by the fuzzer: read by columns and record by record, the sinks get
// the same rows and errors.
func FuzzUnitsParquet(f *testing.F) {
	f.Add(uint8(0), uint64(1), uint16(100), uint8(0))
	f.Add(uint8(6), uint64(2), uint16(2000), uint8(15))
	f.Add(uint8(8), uint64(3), uint16(700), uint8(1))
	f.Fuzz(func(t *testing.T, layout uint8, seed uint64, rows uint16, odd uint8) {
		i := int(layout) % len(pqUnitsLayouts)
		dir := t.TempDir()
		writePQStudy(t, dir, i)
		rng := rand.New(rand.NewPCG(seed, uint64(layout)))
		pqLayoutWriter(i)(t, rng, filepath.Join(dir, pqUnitsLayouts[i].path), 1+int(rows)%3000, int(odd))
		if cols, recs := passParquetBoth(t, dir); cols != recs {
			t.Fatalf("%s: by columns and by records differ:\n%s", pqUnitsLayouts[i].name, pqFirstDiff(cols, recs))
		}
	})
}

// pqFirstDiff shows where two outputs part.
func pqFirstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\ncolumns: %s\nrecords: %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}
