package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/evalbook/evalbook/internal/pqtest"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"
)

// pqRow is a submission of a leaderboard, with one column of every type
// the reader converts. Written by parquet-go itself (Debian has no
// pyarrow), the files exercise the same decoding paths as pyarrow's.
type pqRow struct {
	Model    string   `parquet:"participant_id"`
	HitRate  float64  `parquet:"hit_rate"`
	MRED     *float64 `parquet:"mred_gender,optional"`
	F32      float32  `parquet:"f32"`
	Count    int64    `parquet:"count"`
	Small    int32    `parquet:"small"`
	Flag     bool     `parquet:"flag"`
	At       int64    `parquet:"submitted_at,timestamp(microsecond:local)"`
	AtUTC    int64    `parquet:"at_utc,timestamp(millisecond:utc)"`
	Day      int32    `parquet:"day,date"` // days since 1970-01-01
	Note     string   `parquet:"note,optional"`
	Cost     int64    `parquet:"cost,decimal(2:10)"`
	Tags     []string `parquet:"tags,list"`
	Numeric  string   `parquet:"numeric_text"`
	Category string   `parquet:"category,enum"`
}

func pqRows(n int) []pqRow {
	rows := make([]pqRow, n)
	start := time.Date(2022, 8, 5, 14, 54, 19, 634350000, time.UTC)
	for i := range rows {
		r := pqRow{
			Model:    "team-" + strconv.Itoa(i%7),
			HitRate:  float64(i) / 3,
			F32:      float32(i) / 4,
			Count:    int64(i) * 1000003,
			Small:    int32(-i),
			Flag:     i%2 == 0,
			At:       start.Add(time.Duration(i) * time.Minute).UnixMicro(),
			AtUTC:    start.Add(time.Duration(i) * time.Hour).UnixMilli(),
			Day:      int32(time.Date(2022, 10, 1+i%10, 0, 0, 0, 0, time.UTC).Unix() / 86400),
			Cost:     int64(i*101 - 5000),
			Tags:     []string{"a", "b"},
			Numeric:  strconv.FormatFloat(float64(i)*0.1, 'g', -1, 64),
			Category: "cat" + strconv.Itoa(i%3),
		}
		if i%5 != 0 {
			v := -float64(i) / 1000
			r.MRED = &v
		}
		if i%4 == 0 {
			r.Note = "note " + strconv.Itoa(i)
		}
		rows[i] = r
	}
	return rows
}

func TestParquetRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "subs.parquet")
	rows := pqRows(3000) // several batches, pages and row groups
	pqtest.Write(t, path, rows)
	// First every column as text, then the numbers with Float: a numeric
	// column passed to Float gives pqNumberText from then on, while the
	// others keep their text.
	for _, numbers := range []bool{false, true} {
		p, err := Open(path, "subs.parquet", map[string]string{"model": "participant_id"})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		col := func(name string) int {
			i, err := p.Require(name)
			if err != nil {
				t.Fatal(err)
			}
			return i
		}
		if p.Col("MODEL") != col("participant_id") || p.Col("nope") != -1 {
			t.Errorf("mapping or case-insensitive lookup broken: %v", p.Header)
		}
		if _, err := p.Require("tags"); err == nil || !strings.Contains(err.Error(), `column "tags": is a repeated (list) column`) {
			t.Errorf("list column: %v", err)
		}
		for i := 0; ; i++ {
			rec, err := p.Next()
			if err == io.EOF {
				if i != len(rows) {
					t.Fatalf("read %d rows, wrote %d", i, len(rows))
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			r := rows[i]
			at := time.UnixMicro(r.At).UTC().Format("2006-01-02T15:04:05.999999999")
			atUTC := time.UnixMilli(r.AtUTC).UTC().Format(time.RFC3339Nano)
			wantText := map[string]string{
				"model": r.Model, "flag": strconv.FormatBool(r.Flag), "submitted_at": at, "at_utc": atUTC,
				"day": time.Unix(int64(r.Day)*86400, 0).UTC().Format(time.DateOnly), "note": r.Note,
				"cost": strconv.FormatFloat(float64(r.Cost)/100, 'f', 2, 64), "category": r.Category,
				"numeric_text": r.Numeric,
			}
			numText := map[string]string{
				"count": strconv.FormatInt(r.Count, 10), "small": strconv.Itoa(int(r.Small)),
				"hit_rate": strconv.FormatFloat(r.HitRate, 'g', -1, 64), "f32": strconv.FormatFloat(float64(r.F32), 'g', -1, 32),
				"mred_gender": "",
			}
			if r.MRED != nil {
				numText["mred_gender"] = strconv.FormatFloat(*r.MRED, 'g', -1, 64)
			}
			for name, want := range numText {
				if numbers && i > 0 && want != "" {
					want = pqNumberText
				}
				wantText[name] = want
			}
			for name, want := range wantText {
				if got := rec[col(name)]; got != want {
					t.Fatalf("numbers %v: row %d %s: %q, want %q", numbers, i+1, name, got, want)
				}
			}
			if !numbers {
				continue
			}
			wantNum := map[string]float64{"hit_rate": r.HitRate, "f32": float64(r.F32), "count": float64(r.Count),
				"small": float64(r.Small), "cost": float64(r.Cost) / 100, "numeric_text": float64(i) * 0.1}
			for name, want := range wantNum {
				v, ok, err := p.Float(col(name))
				if err != nil || !ok || v != want {
					t.Fatalf("row %d Float(%s) = %v %v %v, want %v", i+1, name, v, ok, err, want)
				}
			}
			v, ok, err := p.Float(col("mred_gender"))
			if err != nil || ok != (r.MRED != nil) || (ok && v != *r.MRED) {
				t.Fatalf("row %d mred_gender = %v %v %v, want %v", i+1, v, ok, err, r.MRED)
			}
			// A wrong type is an error naming the file, the row and the column.
			for _, name := range []string{"submitted_at", "flag", "day"} {
				_, _, err := p.Float(col(name))
				if err == nil || !strings.Contains(err.Error(), "subs.parquet: row "+strconv.Itoa(i+1)+`, column "`+name+`": wrong type`) {
					t.Fatalf("Float(%s): %v", name, err)
				}
			}
			if p.Rows() != int64(i+1) || p.Line() != i+1 {
				t.Fatalf("Rows %d Line %d at row %d", p.Rows(), p.Line(), i+1)
			}
		}
		if _, err := p.Next(); err != io.EOF {
			t.Errorf("after the end: %v", err)
		}
	}
}

// TestParquetMalformed: every problem names the file, and the column when
// there is one.
func TestParquetMalformed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	pqtest.Write(t, good, pqRows(2000))
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// Where the first data page of hit_rate starts.
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	hr := pf.Root().Column("hit_rate").Index()
	cm := pf.Metadata().RowGroups[0].Columns[hr].MetaData
	off := cm.DataPageOffset
	corrupt := append([]byte(nil), data...)
	for i := off + 30; i < off+60; i++ {
		corrupt[i] ^= 0x5a
	}
	badText := filepath.Join(dir, "text.parquet")
	type textRow struct {
		Model   string `parquet:"model"`
		HitRate string `parquet:"hit_rate"`
	}
	pqtest.Write(t, badText, []textRow{{"a", "0.5"}, {"b", "n/a"}})

	cases := []struct {
		name string
		data []byte
		path string
		run  func(p *Reader) error
		want string
	}{
		{name: "missing column", path: good, run: func(p *Reader) error { _, err := p.Require("hit_rat"); return err },
			want: `good.parquet: column "hit_rat": no such column (columns: participant_id,hit_rate,`},
		{name: "missing column hint", path: good, run: func(p *Reader) error { _, err := p.Require("hit_rat"); return err },
			want: `(did you mean "hit_rate"?)`},
		{name: "wrong type", path: good, run: func(p *Reader) error {
			p.Next()
			_, _, err := p.Float(p.Col("submitted_at"))
			return err
		}, want: `good.parquet: row 1, column "submitted_at": wrong type: want a number, the column holds TIMESTAMP`},
		{name: "text not a number", path: badText, run: func(p *Reader) error { return readAll(p, "hit_rate") },
			want: `text.parquet: row 2, column "hit_rate": not a number: "n/a"`},
		{name: "corrupt page", data: corrupt, run: func(p *Reader) error { return readAll(p, "hit_rate") },
			want: `bad.parquet: row 1, column "hit_rate": corrupt page`},
		{name: "truncated", data: data[:len(data)-10], want: "bad.parquet: not a readable Parquet file"},
		{name: "not parquet", data: []byte("model,hit_rate\na,1\n"), want: "bad.parquet: not a readable Parquet file"},
		{name: "empty", data: nil, want: "bad.parquet: not a readable Parquet file"},
		{name: "bad magic", data: append([]byte("XXXX"), data[4:]...), want: "bad.parquet: not a readable Parquet file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.path
			if path == "" {
				path = filepath.Join(t.TempDir(), "bad.parquet")
				if err := os.WriteFile(path, c.data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p, err := Open(path, filepath.Base(path), nil)
			if err == nil {
				defer p.Close()
				if c.run == nil {
					t.Fatalf("opened a malformed file")
				}
				err = c.run(p)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	// A mapping onto a column the file lacks fails at open.
	_, err = Open(good, "good.parquet", map[string]string{"model": "participant"})
	if err == nil || !strings.Contains(err.Error(), `good.parquet: column "participant": no such column (mapped from "model")`) {
		t.Errorf("mapping: %v", err)
	}
	var pe *Error
	if !errors.As(err, &pe) || pe.Column != "participant" {
		t.Errorf("error type %T", err)
	}
}

// readAll reads every row and the number in column name.
func readAll(p *Reader, name string) error {
	c, err := p.Require(name)
	if err != nil {
		return err
	}
	for {
		_, err := p.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if _, _, err := p.Float(c); err != nil {
			return err
		}
	}
}

// TestParquetEvalRS2022 reads the EvalRS 2022 submissions and checks the
// facts SOURCE.txt states about them.
func TestParquetEvalRS2022(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(evalrs2022Reference); err != nil {
		skipWithoutReference(t, err)
	}
	p, err := Open(evalrs2022Reference, "evalrs_2022_submissions.parquet.snappy", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	want := "participant_id,hit_rate,mrr,mred_country,mred_track_popularity,mred_artist_popularity,mred_user_activity,mred_gender,being_less_wrong,latent_diversity,submitted_at"
	if h := strings.Join(p.Header, ","); h != want {
		t.Fatalf("header %s", h)
	}
	ids := map[string]bool{}
	prev := ""
	for {
		rec, err := p.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ids[rec[0]] = true
		for c := 3; c <= 7; c++ { // MRED columns are stored negated
			v, ok, err := p.Float(c)
			if err != nil || !ok || v > 0 || math.IsNaN(v) {
				t.Fatalf("row %d %s = %v %v %v", p.Rows(), p.Header[c], v, ok, err)
			}
		}
		at := rec[10]
		if at < prev || at < "2022-08-05" || at > "2022-10-12" {
			t.Fatalf("row %d submitted_at %s after %s", p.Rows(), at, prev)
		}
		prev = at
	}
	if p.Rows() != 770 || len(ids) != 57 {
		t.Errorf("%d rows, %d participants; SOURCE.txt says 770 and 57", p.Rows(), len(ids))
	}
}

// pqFuzzRow has a column of each way the reader decodes: dictionary and
// plain text, integers, floats (plain and dictionary), nulls, and the
// types read as parquet.Values (boolean, timestamp, decimal), beside a
// list it must refuse.
type pqFuzzRow struct {
	Name  string   `parquet:"name,dict"`
	Plain string   `parquet:"plain,optional"`
	ID    int64    `parquet:"id"`
	Small *int32   `parquet:"small,optional"`
	U     uint32   `parquet:"u"`
	F     float32  `parquet:"f"`
	D     *float64 `parquet:"d,optional"`
	DD    float64  `parquet:"dd,dict"`
	Flag  bool     `parquet:"flag"`
	At    int64    `parquet:"at,timestamp(millisecond)"`
	Cost  int64    `parquet:"cost,decimal(2:10)"`
	Tags  []string `parquet:"tags,list"`
}

// pqSeedFiles returns small valid files, one per codec, alternating
// data page versions, with small pages and row groups: the fuzz target
// mutates their bytes, so that most inputs get past the footer into the
// pages.
func pqSeedFiles(t testing.TB) [][]byte {
	rows := make([]pqFuzzRow, 40)
	for i := range rows {
		r := pqFuzzRow{Name: "m" + strconv.Itoa(i%3), ID: int64(i) << 33, U: uint32(i), F: float32(i) / 4,
			DD: float64(i%4) / 8, Flag: i%2 == 0, At: int64(i) * 60000, Cost: int64(i*101 - 500), Tags: []string{"a"}}
		if i%3 != 0 {
			r.Plain = "ü" + strconv.Itoa(i)
			v := int32(-i)
			r.Small = &v
		}
		if i%4 != 0 {
			v := float64(i) / 3
			r.D = &v
		}
		rows[i] = r
	}
	codecs := []compress.Codec{&parquet.Uncompressed, &parquet.Snappy, &parquet.Gzip, &parquet.Zstd, &parquet.Lz4Raw, &parquet.Brotli}
	var out [][]byte
	for i, c := range codecs {
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[pqFuzzRow](&buf, parquet.Compression(c), parquet.DataPageVersion(1+i%2),
			parquet.PageBufferSize(128), parquet.MaxRowsPerRowGroup(int64(15+5*i)))
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	// A long units file with dictionary names, integer units and null
	// values; a wide results file with plain text; a file made by hand.
	type unit struct {
		Dataset string   `parquet:"dataset,dict"`
		Method  string   `parquet:"method,dict"`
		Unit    int64    `parquet:"unit"`
		Metric  string   `parquet:"metric,dict"`
		Value   *float64 `parquet:"value,optional"`
	}
	units := make([]unit, 60)
	for i := range units {
		v := float64(i) / 7
		units[i] = unit{"d" + strconv.Itoa(i%2), "m" + strconv.Itoa(i%3), int64(i / 6), "ndcg@10", &v}
		if i%9 == 0 {
			units[i].Value = nil
		}
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[unit](&buf, parquet.Compression(&parquet.Snappy), parquet.PageBufferSize(200), parquet.MaxRowsPerRowGroup(25))
	w.Write(units)
	w.Close()
	out = append(out, buf.Bytes())
	type wide struct {
		Dataset string  `parquet:"dataset"`
		Method  string  `parquet:"method"`
		NDCG    float64 `parquet:"ndcg"`
		Recall  float32 `parquet:"recall"`
		K       int32   `parquet:"k"`
	}
	var ws []wide
	for i := range 24 {
		ws = append(ws, wide{"ds" + strconv.Itoa(i%4), "method-é-" + strconv.Itoa(i%3), float64(i) / 10, float32(i) / 20, 10})
	}
	buf.Reset()
	w2 := parquet.NewGenericWriter[wide](&buf, parquet.DataPageVersion(1), parquet.PageBufferSize(100))
	w2.Write(ws)
	w2.Close()
	out = append(out, buf.Bytes())
	if tt, ok := t.(*testing.T); ok {
		out = append(out, pqCraft(tt, format.Uncompressed, 3, []pqCraftPage{pqPlainPage(0.5, 1.5, 2.5)}, nil))
	}
	return out
}

// pqEdit applies edits to a copy of a file: each 4 bytes are an
// operation (byte 0), a position scaled to the file's length (bytes 1–2)
// and a value (byte 3). The fuzzer mutates the few bytes of the edits,
// not the file, so every input is a valid file with local damage and a
// new input is minimised in a few runs.
func pqEdit(base, edits []byte) []byte {
	data := append([]byte(nil), base...)
	for len(edits) >= 4 && len(data) > 0 {
		e := edits[:4]
		edits = edits[4:]
		at := int(binary.BigEndian.Uint16(e[1:3])) * len(data) / 65536
		switch e[0] % 6 {
		case 0:
			data[at] = e[3]
		case 1:
			data[at] ^= e[3]
		case 2:
			data = append(data[:at], append([]byte{e[3]}, data[at:]...)...)
		case 3:
			n := min(int(e[3]%16)+1, len(data)-at)
			data = append(data[:at], data[at+n:]...)
		case 4: // a huge varint, as a length or a count
			data = append(data[:at], append([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, data[min(at+int(e[3]%6), len(data)):]...)...)
		case 5: // a little-endian int32 set to a boundary value
			v := [...]uint32{0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 1 << 20}[int(e[3])%6]
			if at+4 <= len(data) {
				binary.LittleEndian.PutUint32(data[at:], v)
			}
		}
	}
	return data
}

// FuzzParquet damages valid Parquet files — pqSeedFiles (one per codec,
// both data page versions, every way of decoding), and the EvalRS 2022
// file that pyarrow wrote where present — with a few edits (pqEdit),
// or, for the last base, reads the edits themselves as a file: no input
// makes the reader panic, hang or allocate without bound, and every
// failure is an error that names the file. The committed corpus in
// testdata/fuzz/FuzzParquet holds edits that found new paths.
func FuzzParquet(f *testing.F) {
	bases := pqSeedFiles(f)
	if data, err := os.ReadFile(evalrs2022Reference); err == nil {
		bases = append(bases, data)
	}
	for i := range bases {
		f.Add(uint8(i), []byte{})
		f.Add(uint8(i), []byte{0, 0x80, 0, 0xff, 1, 0xff, 0xf0, 0x55})
	}
	f.Add(uint8(255), []byte("PAR1\x15\x02PAR1"))
	f.Fuzz(func(t *testing.T, base uint8, edits []byte) {
		data := edits
		if int(base) < len(bases) {
			data = pqEdit(bases[base], edits)
		}
		// A hang is a failure too: the work runs with a deadline so the
		// fuzzer records the input instead of stalling.
		done := make(chan error, 1)
		go func() { done <- fuzzParquetOnce(data) }()
		timer := time.NewTimer(10 * time.Second)
		defer timer.Stop()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-timer.C:
			t.Fatalf("reading %d bytes did not finish in 10 s", len(data))
		}
	})
}

// fuzzParquetOnce reads a file fully, as text and with Float of every
// column, then by columns (fuzzParquetColumns); a non-nil result is a
// failure of the reader (a panic, an error that does not name the file,
// a short record, or a read by columns that differs).
func fuzzParquetOnce(data []byte) (err error) {
	if err := fuzzParquetRows(data); err != nil {
		return err
	}
	return fuzzParquetColumns(data)
}

// fuzzParquetColumns reads a file as text row by row (Next) and by
// columns (NextColumns, Cell): the same cells, the same error at the
// same row. Then by columns again with every column a value column:
// each number Numbers gives is what Float gives for its row (Seek),
// and every error names the file.
func fuzzParquetColumns(data []byte) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic by columns: %v", v)
		}
	}()
	open := func() *Reader {
		p, err := newReader(bytes.NewReader(data), int64(len(data)), "fuzz.parquet", nil)
		if err != nil {
			return nil
		}
		return p
	}
	const most = 100000
	var want strings.Builder
	p := open()
	if p == nil {
		return nil
	}
	for n := 0; ; n++ {
		rec, err := p.Next()
		if err != nil || n == most {
			fmt.Fprintf(&want, "end %v, rows %d\n", err, p.Rows())
			break
		}
		fmt.Fprintf(&want, "%q\n", rec)
	}
	p.Close()
	var got strings.Builder
	p = open()
	n := 0
	for {
		rows, err := p.NextColumns()
		if err != nil {
			fmt.Fprintf(&got, "end %v, rows %d\n", err, p.Rows())
			break
		}
		rec := make([]string, len(p.Header))
		if err := columnViewsAgree(p, rows); err != nil {
			return err
		}
		for k := 0; k < rows && n < most; k++ {
			for c := range rec {
				rec[c] = p.Cell(c, k)
			}
			fmt.Fprintf(&got, "%q\n", rec)
			n++
		}
		if n == most {
			break // too long to compare
		}
	}
	p.Close()
	if n < most && got.String() != want.String() {
		w, g := strings.Split(want.String(), "\n"), strings.Split(got.String(), "\n")
		for i := 0; i < len(w) && i < len(g); i++ {
			if w[i] != g[i] {
				return fmt.Errorf("by columns, line %d: %s; row by row: %s", i+1, g[i], w[i])
			}
		}
		return fmt.Errorf("by columns %d lines, row by row %d", len(g), len(w))
	}
	p = open()
	defer p.Close()
	cols := make([]int, len(p.Header))
	for c := range cols {
		cols[c] = c
	}
	p.ValueColumns(cols...)
	for n := 0; n < most; {
		rows, err := p.NextColumns()
		if err != nil {
			if err != io.EOF && !strings.HasPrefix(err.Error(), "fuzz.parquet: ") {
				return fmt.Errorf("error does not name the file: %v", err)
			}
			return nil
		}
		for k := 0; k < rows; k++ {
			p.Seek(k)
			for c := range cols {
				num, nul, ok := p.Numbers(c)
				v, fok, err := p.Float(c)
				if err != nil && !strings.HasPrefix(err.Error(), "fuzz.parquet: ") {
					return fmt.Errorf("error does not name the file: %v", err)
				}
				if ok && !nul[k] && num[k]-num[k] == 0 && (err != nil || !fok || math.Float64bits(v) != math.Float64bits(num[k])) {
					return fmt.Errorf("column %d, row %d: Numbers gives %v, Float %v %v %v", c, k, num[k], v, fok, err)
				}
			}
		}
		n += rows
	}
	return nil
}

// columnViewsAgree checks the views of a batch of rows a loader reads
// instead of Cell: a row's dictionary index (DictIndexes) is the
// index of its cell's text in the dictionary, Texts gives the cells,
// and PlainASCII holds only for cells of printable ASCII.
func columnViewsAgree(p *Reader, rows int) error {
	for c := range p.Header {
		ix, _ := p.DictIndexes(c)
		texts := p.Texts(c)
		if ix != nil && len(ix) != rows || texts != nil && len(texts) != rows {
			return fmt.Errorf("column %d: %d indexes, %d texts for %d rows", c, len(ix), len(texts), rows)
		}
		for k := 0; k < rows; k++ {
			cell := p.Cell(c, k)
			if ix != nil && ix[k] >= 0 && p.leaves[c].dtext[ix[k]] != cell {
				return fmt.Errorf("column %d, row %d: index %d is %q, the cell %q", c, k, ix[k], p.leaves[c].dtext[ix[k]], cell)
			}
			if texts != nil && texts[k] != cell {
				return fmt.Errorf("column %d, row %d: Texts gives %q, Cell %q", c, k, texts[k], cell)
			}
			if p.PlainASCII(c) && !printableASCII(cell) {
				return fmt.Errorf("column %d, row %d: PlainASCII, but the cell is %q", c, k, cell)
			}
		}
	}
	return nil
}

// fuzzParquetRows reads a file fully, as text and with Float of every
// column.
func fuzzParquetRows(data []byte) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	p, err := newReader(bytes.NewReader(data), int64(len(data)), "fuzz.parquet", nil)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "fuzz.parquet: ") {
			return fmt.Errorf("error does not name the file: %v", err)
		}
		return nil
	}
	defer p.Close()
	for n := 0; n < 100000; n++ {
		rec, err := p.Next()
		if err != nil {
			if err != io.EOF && !strings.HasPrefix(err.Error(), "fuzz.parquet: ") {
				return fmt.Errorf("error does not name the file: %v", err)
			}
			return nil
		}
		if len(rec) != len(p.Header) {
			return fmt.Errorf("%d fields for %d columns", len(rec), len(p.Header))
		}
		for c := range rec {
			// Half the columns as numbers from the first row on, the
			// others from the fifth: both ways text is given.
			if c%2 == 0 || n >= 4 {
				if _, _, err := p.Float(c); err != nil && !strings.HasPrefix(err.Error(), "fuzz.parquet: ") {
					return fmt.Errorf("error does not name the file: %v", err)
				}
			}
		}
	}
	return nil
}

func TestIs(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{"a.parquet": true, "A.PARQUET": true, "x/evalrs_2022_submissions.parquet.snappy": true,
		"a.parquet.zstd": true, "a.csv": false, "a.parquet.csv": false, "a.parquet.gz": false, "parquet": false} {
		if Is(path) != want {
			t.Errorf("Is(%q) = %v", path, !want)
		}
	}
}

// TestParquetMutations damages each seed file in 150 seeded ways (bytes
// overwritten, huge varints, bytes removed): every read must end, with
// rows or an error naming the file, never a panic. It runs in every test
// run, where the fuzz target only replays its seeds.
func TestParquetMutations(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 8))
	mutations := 150
	if raceEnabled { // one goroutine per read: the detector needs few
		mutations = 30
	}
	for s, good := range pqSeedFiles(t) {
		for it := 0; it < mutations; it++ {
			data := append([]byte(nil), good...)
			for k := 0; k < 1+rng.IntN(6); k++ {
				switch rng.IntN(3) {
				case 0:
					data[rng.IntN(len(data))] = byte(rng.IntN(256))
				case 1:
					copy(data[rng.IntN(len(data)-8):], []byte{0xff, 0xff, 0xff, 0x7f})
				case 2:
					i := rng.IntN(len(data))
					data = data[:i+copy(data[i:], data[i+1:])]
				}
			}
			done := make(chan error, 1)
			go func() { done <- fuzzParquetOnce(data) }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("seed %d, mutation %d: %v", s, it, err)
				}
			case <-time.After(2 * time.Minute):
				// A hang guard, not a speed check: a correct read of a
				// few kilobytes takes microseconds even on a loaded
				// machine; a reader that loops forever never finishes.
				t.Fatalf("seed %d, mutation %d: reading did not finish in 2 minutes (a loop?)", s, it)
			}
		}
	}
}
