package report

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// The fast path of the units reader (report/load/unitsfast.go) must hand
// the sinks exactly what the record path does: the same rows (names,
// unit ids, row and line numbers, values to the bit), the same counts,
// and the same first error at the same line, for any content of a byte
// range. These tests read the same ranges both ways and compare.

// unitsFastLayouts are the entries the differential tests read a units
// file through, with the file's path under the study directory and its
// header.
var unitsFastLayouts = []struct {
	name, entry, path, header string
}{
	{"long", `units = ["units.csv"]`, "units.csv", "dataset,method,unit,metric,value"},
	{"long-tsv", `units = ["units.tsv"]`, "units.tsv", "dataset\tmethod\tunit\tmetric\tvalue"},
	{"long-drop", `units = [{ path = "units.csv", missing = "drop" }]`, "units.csv", "dataset,method,unit,metric,value"},
	{"long-markers", `units = [{ path = "units.csv", missing_values = ["NA", "0.5"] }]`, "units.csv", "dataset,method,unit,metric,value"},
	{"long-fixed", `units = [{ path = "units.csv", dataset = "ds0" }]`, "units.csv", "dataset,method,unit,metric,value"},
	{"long-nodataset", `units = ["units.csv"]`, "units.csv", "method,unit,metric,value"},
	{"wide-path", `units = ["runs/{method}_{dataset}.csv"]`, "runs/treat_ds0.csv", "unit,ndcg@10,rmse"},
	{"wide-zero", `units = [{ path = "runs/{method}_{dataset}.csv", missing = "zero" }]`, "runs/ctrl_ds1.csv", "unit,rmse"},
	{"wide-columns", `units = ["units.csv"]`, "units.csv", "dataset,method,unit,ndcg@10,rmse"},
	{"wide-unnamed", `units = ["runs/{method}_{dataset}.csv"]`, "runs/treat_ds0.csv", "unit,ndcg@10,"},
	{"long-gzip", `units = ["units.csv.gz"]`, "units.csv.gz", "dataset,method,unit,metric,value"},
}

// fastChunkOut is what reading one byte range gave: its rows, counts
// and error, as text.
func fastChunkOut(c *load.UnitsChunk) string {
	var b strings.Builder
	var u load.UnitRow
	for _, bt := range c.Batches {
		for k := range bt.Rows {
			bt.Row(k, &u)
			fmt.Fprintf(&b, "%q %q %q %q %q row %d line %d %x\n", u.Dataset, u.Method, u.Metric, u.File, u.Unit, u.Row, u.Line, math.Float64bits(u.Value))
		}
	}
	rows, lines := c.Counts()
	fmt.Fprintf(&b, "rows %d lines %d err %v\n", rows, lines, c.Err)
	return b.String()
}

// readRangesBoth reads the data of the file at layout's path (written
// as header + data, gzipped for a .gz path) through the fast path and
// through the record path, and returns what each gave: the whole file
// through its buffered reader, then (uncompressed) in byte ranges of
// about chunk bytes; and how many lines the fast path read.
func readRangesBoth(t testing.TB, dir string, layout int, data string, chunk int64) (fast, records string, fastLines int64) {
	l := unitsFastLayouts[layout]
	path := filepath.Join(dir, l.path)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	content := []byte(l.header + "\n" + data)
	if strings.HasSuffix(path, ".gz") {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(content)
		w.Close()
		content = b.Bytes()
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	toml := "title = \"fast\"\n[inputs]\n" + l.entry + "\n"
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	var out [2]strings.Builder
	for i, off := range []bool{false, true} {
		in := newInputs(s)
		in.UnitsFastOff = off
		in.Hashes.SetRacyWindow(0) // a sum learnt from a fresh file is kept
		// the whole file, through the reader's buffer
		err := in.Units(func(u *load.UnitRow) error {
			fmt.Fprintf(&out[i], "%q %q %q %q %q row %d line %d %x\n", u.Dataset, u.Method, u.Metric, u.File, u.Unit, u.Row, u.Line, math.Float64bits(u.Value))
			return nil
		})
		// read to its end, the file's sha256 is learnt from that read
		sum, learnt := in.Hashes.Known(path)
		fmt.Fprintf(&out[i], "whole file: %v; sha256 learnt %v %s\n", err, learnt, sum)
		files, err := in.Expand(in.Study.Inputs.Units[0], "units")
		if err != nil || len(files) != 1 {
			t.Fatalf("expand: %v %v", files, err)
		}
		uf, err := in.OpenUnits(in.Study.Inputs.Units[0], files[0])
		if err != nil {
			fmt.Fprintf(&out[i], "open: %v\n", err)
			continue
		}
		start, size, ok := uf.T.DataRange()
		free := make(chan *load.UnitsBatchOf, 64)
		for ok && start < size {
			end := uf.T.LineEndAfter(start+chunk, size)
			c := &load.UnitsChunk{Start: start, End: end}
			in.ParseChunk(uf, c, nil, load.BatchPool(free, 7), make(chan struct{}))
			fmt.Fprintf(&out[i], "range %d-%d\n%s", start, end, fastChunkOut(c))
			start = end
		}
		uf.T.Close()
		if !off {
			fastLines = in.FastLines.Load()
		} else if in.FastLines.Load() != 0 {
			t.Fatal("UnitsFastOff: the fast path read lines")
		}
	}
	return out[0].String(), out[1].String(), fastLines
}

// randomUnitsLine is a line of a units file for a layout's header:
// mostly plain, sometimes with what only the record path may read.
func randomUnitsLine(rng *rand.Rand, header string, clean bool) string {
	sep := ","
	if strings.Contains(header, "\t") {
		sep = "\t"
	}
	cols := strings.Split(header, sep)
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	cells := make([]string, len(cols))
	for i, c := range cols {
		odd := !clean && rng.IntN(12) == 0
		switch c {
		case "dataset":
			cells[i] = pick("ds0", "ds0", "ds1", "ds2", "datasetA", "datasetB", "a-long-dataset-name")
			if odd {
				cells[i] = pick("", " ds0", "ds0 ", "=ds0", "d\x01s", "ds\u202e", "\"ds0\"", "ds3")
			}
		case "method":
			cells[i] = pick("treat", "ctrl", "baseline", "baselinf", "baseline-long")
			if odd {
				cells[i] = pick("", "treat ", "Treat", "+ctrl", "other", "\"ctrl\"")
			}
		case "unit":
			cells[i] = fmt.Sprintf("u%d", rng.IntN(40))
			if odd {
				cells[i] = pick("", " u1", "u1 ", "u 1", "u\x7f", "é", "u1\x00", "a-very-long-unit-identifier-0123456789", "\"u\"\"1\"", "=1")
			}
		case "metric":
			cells[i] = pick("ndcg@10", "rmse")
			if odd {
				cells[i] = pick("", "NDCG@10", " rmse", "mae", "@x")
			}
		default: // a value
			cells[i] = pick("0.25", "-0.125", "1", "0.440799", "12345678901234567890", "0.38685280723454163", "7.", "")
			if odd {
				cells[i] = pick("", " 0.5", "0.5", "1e-3", "NA", "NaN", "Inf", "0,5", "1_000", ".", "-", "0x10", "1e400", "\"0.25\"")
			}
		}
	}
	line := strings.Join(cells, sep)
	if !clean && rng.IntN(30) == 0 {
		line = pick("", "\r", line+sep, line+sep+"x", strings.Join(cells[:len(cells)-1], sep), "  ")
	}
	if rng.IntN(10) == 0 {
		line += "\r"
	}
	return line + "\n"
}

// TestUnitsFastSameRows: random units files of every layout, read in
// ranges of a few sizes, give the same rows, counts and errors through
// the fast path as through the record path. Planted: a fast path that
// takes a unit id with a trailing space as it is (not trimmed) fails it.
func TestUnitsFastSameRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 6))
	for layout, l := range unitsFastLayouts {
		t.Run(l.name, func(t *testing.T) {
			for trial := 0; trial < 40; trial++ {
				var b strings.Builder
				n := 1 + rng.IntN(300)
				clean := trial%3 == 0 // a clean file: the fast path reads it all
				for range n {
					b.WriteString(randomUnitsLine(rng, l.header, clean))
				}
				data := b.String()
				if rng.IntN(4) == 0 {
					data = strings.TrimSuffix(data, "\n") // no line end at the end
				}
				for _, chunk := range []int64{1, 100, 1 << 10, 1 << 20} {
					fast, records, lines := readRangesBoth(t, t.TempDir(), layout, data, chunk)
					if fast != records {
						t.Fatalf("trial %d, ranges of %d bytes: the fast path gave\n%s\nthe record path\n%s\ndata:\n%q", trial, chunk, fromDiff(fast, records), fromDiff(records, fast), data)
					}
					// In a clean file the fast path reads every line but the
					// first of each name (met by the record path) in a range:
					// most of the lines of the whole file and of its ranges
					// (a gzipped file has no ranges).
					if clean && fastWanted(l.entry, l.header) && chunk == 1<<20 && n > 20 && lines < int64(n)/int64(1+strings.Count(l.path, ".gz")) {
						t.Errorf("trial %d: the fast path read %d of %d lines of a clean file", trial, lines, n)
					}
				}
			}
		})
	}
}

// fastWanted reports whether the fast path reads a clean file of a
// layout: not with missing-value markers, nor with a column without a
// name, nor when the entry fixes a dataset the file contradicts.
func fastWanted(entry, header string) bool {
	return !strings.Contains(entry, "missing_values") && !strings.HasSuffix(header, ",") && !strings.Contains(entry, "dataset =")
}

// fromDiff is a from the first line where it differs from b.
func fromDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range al {
		if i >= len(bl) || al[i] != bl[i] {
			return strings.Join(al[max(0, i-2):min(len(al), i+4)], "\n")
		}
	}
	return "(same)"
}

// FuzzUnitsFast: any data under any layout's header reads the same
// through the fast path and the record path.
func FuzzUnitsFast(f *testing.F) {
	f.Add(uint8(0), "ds0,treat,u1,ndcg@10,0.5\nds0,ctrl,u1,ndcg@10,0.25\n", uint16(16))
	f.Add(uint8(0), "ds0,treat,u1 ,rmse,0.5\r\n\nds0,treat,\"u2\",rmse,1e-3\n", uint16(7))
	f.Add(uint8(6), "u1,0.5,0.25\nu2,,0.125\nu3,NA,1\n", uint16(3))
	f.Add(uint8(9), "u1,0.5,\nu2,0.5,1\n", uint16(100))
	f.Fuzz(func(t *testing.T, layout uint8, data string, chunk uint16) {
		l := int(layout) % len(unitsFastLayouts)
		if len(data) > 4<<10 {
			return
		}
		fast, records, _ := readRangesBoth(t, t.TempDir(), l, data, int64(chunk)%2048+1)
		if fast != records {
			t.Fatalf("the fast path gave\n%s\nthe record path\n%s", fromDiff(fast, records), fromDiff(records, fast))
		}
	})
}

// TestUnitsFastBufferRefills: a file bigger than its reader's buffer
// (1 MiB), plain and gzipped, mostly clean, reads the same through the
// fast path as through the record path: lines cut by the buffer's end,
// and names remembered across refills of the buffer they were read
// from. Planted: Advance discarding one byte less than the fast path
// read fails it.
func TestUnitsFastBufferRefills(t *testing.T) {
	if testing.Short() {
		t.Skip("2 MiB files")
	}
	rng := rand.New(rand.NewPCG(32, 8))
	var b strings.Builder
	for b.Len() < 2<<20 {
		b.WriteString(randomUnitsLine(rng, unitsFastLayouts[0].header, rng.IntN(100) > 0))
	}
	for _, layout := range []int{0, len(unitsFastLayouts) - 1} {
		fast, records, lines := readRangesBoth(t, t.TempDir(), layout, b.String(), 1<<20)
		if fast != records {
			t.Fatalf("%s: the fast path gave\n%s\nthe record path\n%s", unitsFastLayouts[layout].name, fromDiff(fast, records), fromDiff(records, fast))
		}
		if lines == 0 {
			t.Fatalf("%s: the fast path read no line", unitsFastLayouts[layout].name)
		}
	}
}
