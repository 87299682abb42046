package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"github.com/evalbook/evalbook/internal/pqtest"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// readParquetAll opens a file, reads every row, asks Float of the
// columns in floats and returns the records as text (with the texts of
// the rows) or the first error. (report/input's TableReader, which the
// loaders use, adds the missing markers and the non-finite check of CSV
// cells; its tests read Parquet through it.)
func readParquetAll(path string, floats ...string) ([][]string, error) {
	p, err := Open(path, filepath.Base(path), nil)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	var cols []int
	for _, name := range floats {
		c, err := p.Require(name)
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	var out [][]string
	for {
		rec, err := p.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		for _, c := range cols {
			if _, _, err := p.Float(c); err != nil {
				return out, err
			}
		}
		out = append(out, append([]string(nil), rec...))
	}
}

// TestParquetBadText: text that cannot be a name — invalid UTF-8, a NUL,
// a control character — is an error naming file, row and column, in
// plain and dictionary pages, in a cell or in a column name; other
// Unicode text passes unchanged.
func TestParquetBadText(t *testing.T) {
	t.Parallel()
	type plainRow struct {
		Method string  `parquet:"method"`
		Value  float64 `parquet:"value"`
	}
	type dictRow struct {
		Method string  `parquet:"method,dict,optional"`
		Value  float64 `parquet:"value"`
	}
	good := []string{"EASE", "Zürich-α", "数据集", "", "naïve Bayes ✓"}
	dir := t.TempDir()
	cases := []struct{ bad, want string }{
		{"bad\xffname", `invalid UTF-8 (byte 0xff at byte 3)`},
		{"nul\x00", `a NUL character at byte 3`},
		{"bell\x07", `a control character (U+0007) at byte 4`},
		{"two\nlines", `a control character (U+000A) at byte 3`},
		{"c1\u0085", `a control character (U+0085) at byte 2`},
		{"\xc3", `invalid UTF-8 (byte 0xc3 at byte 0)`}, // the first half of "é", the next cell holding the second
	}
	for i, c := range cases {
		for _, dict := range []bool{false, true} {
			name := "plain" + strconv.Itoa(i) + ".parquet"
			if dict {
				name = "dict" + strconv.Itoa(i) + ".parquet"
			}
			path := filepath.Join(dir, name)
			var prow []plainRow
			var drow []dictRow
			for k := range 1500 {
				m := good[k%len(good)]
				switch k {
				case 1400:
					m = c.bad
				case 1401:
					m = "ok"
					if c.bad == "\xc3" {
						m = "\xa9" // with the cell before, "é"
					}
				}
				prow = append(prow, plainRow{m, float64(k)})
				drow = append(drow, dictRow{m, float64(k)})
			}
			if dict {
				pqtest.Write(t, path, drow)
			} else {
				pqtest.Write(t, path, prow)
			}
			rows, err := readParquetAll(path, "value")
			want := name + `: row 1401, column "method": the text has ` + c.want
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%q: error %v, want %q", c.bad, err, want)
			}
			if len(rows) != 1400 {
				t.Fatalf("%s: %d rows before the error", name, len(rows))
			}
			for k, r := range rows {
				if r[0] != good[k%len(good)] {
					t.Fatalf("%s row %d: %q, want %q", name, k+1, r[0], good[k%len(good)])
				}
			}
		}
	}
	// A column name with a control character.
	path := filepath.Join(dir, "header.parquet")
	schema := parquet.NewSchema("t", parquet.Group{"ok": parquet.String(), "bad\x01name": parquet.Leaf(parquet.DoubleType)})
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, schema)
	if _, err := w.WriteRows([]parquet.Row{{parquet.ValueOf(1.5).Level(0, 0, 0), parquet.ValueOf("x").Level(0, 0, 1)}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, buf.Bytes(), 0o644)
	_, err := Open(path, "header.parquet", nil)
	if err == nil || err.Error() != `header.parquet: column "bad\x01name": the column name has a control character (U+0001) at byte 3` {
		t.Errorf("column name: %v", err)
	}
}

// TestParquetIntegerText: integer columns read as text (unit, k, user
// ids) give their exact decimal text — beyond 2^53, negative, unsigned,
// null, plain and dictionary-encoded, and through the text cache when
// thousands of distinct ids collide in it.
func TestParquetIntegerText(t *testing.T) {
	t.Parallel()
	type nrow struct {
		Unit  *int64  `parquet:"unit,optional"`
		Small int32   `parquet:"small"`
		U64   uint64  `parquet:"u64"`
		U32   uint32  `parquet:"u32"`
		Dict  int64   `parquet:"dict,dict"`
		Value float64 `parquet:"value"`
	}
	var rows []nrow
	var want [][]string
	for i := range 5000 {
		u := int64(i)*(pqIntCache+1) - 7 // every id lands on a slot another took
		if i%11 == 0 {
			u = math.MaxInt64 - int64(i)
		}
		r := nrow{Unit: &u, Small: int32(-i), U64: math.MaxUint64 - uint64(i), U32: math.MaxUint32 - uint32(i), Dict: int64(i%3) << 60, Value: float64(i)}
		w := []string{strconv.FormatInt(u, 10), strconv.Itoa(-i), strconv.FormatUint(r.U64, 10), strconv.FormatUint(uint64(r.U32), 10), strconv.FormatInt(r.Dict, 10), pqNumberText}
		if i%13 == 0 {
			r.Unit = nil
			w[0] = ""
		}
		if i == 0 {
			w[5] = "0" // before the first Float
		}
		rows = append(rows, r)
		want = append(want, w)
	}
	path := filepath.Join(t.TempDir(), "ids.parquet")
	pqtest.Write(t, path, rows)
	got, err := readParquetAll(path, "value")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if strings.Join(got[i], ",") != strings.Join(want[i], ",") {
			t.Fatalf("row %d: %q, want %q", i+1, got[i], want[i])
		}
	}
}

// pqCraftPage is one page of a crafted file: its header and its bytes.
type pqCraftPage struct {
	header format.PageHeader
	data   []byte
}

// pqCraft writes a one-column (required DOUBLE "value") Parquet file by
// hand, so that the tests can declare what a real writer never would.
// edit changes the footer before it is written.
func pqCraft(t *testing.T, codec format.CompressionCodec, rows int64, pages []pqCraftPage, edit func(*format.FileMetaData)) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("PAR1")
	start := int64(b.Len())
	var values int64
	for _, p := range pages {
		h, err := thrift.Marshal(new(thrift.CompactProtocol), &p.header)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(h)
		b.Write(p.data)
		if p.header.DataPageHeader.Valid {
			values += int64(p.header.DataPageHeader.V.NumValues)
		}
	}
	size := int64(b.Len()) - start
	md := format.FileMetaData{
		Version: 1,
		Schema: []format.SchemaElement{
			{Name: "schema", NumChildren: thrift.New(int32(1))},
			{Name: "value", Type: thrift.New(format.Double), RepetitionType: thrift.New(format.Required)},
		},
		NumRows: rows,
		RowGroups: []format.RowGroup{{
			NumRows:       rows,
			TotalByteSize: size,
			Columns: []format.ColumnChunk{{
				FileOffset: start,
				MetaData: format.ColumnMetaData{
					Type: format.Double, Encoding: []format.Encoding{format.Plain}, PathInSchema: []string{"value"},
					Codec: codec, NumValues: values, TotalUncompressedSize: size, TotalCompressedSize: size, DataPageOffset: start,
				},
			}},
		}},
	}
	if edit != nil {
		edit(&md)
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	b.Write(footer)
	binary.Write(&b, binary.LittleEndian, uint32(len(footer)))
	b.WriteString("PAR1")
	return b.Bytes()
}

// pqPlainPage is an uncompressed data page of plain doubles.
func pqPlainPage(vals ...float64) pqCraftPage {
	data := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(v))
	}
	return pqCraftPage{header: format.PageHeader{
		Type: format.DataPage, UncompressedPageSize: int32(len(data)), CompressedPageSize: int32(len(data)),
		DataPageHeader: thrift.New(format.DataPageHeader{NumValues: int32(len(vals)), Encoding: format.Plain, DefinitionLevelEncoding: format.RLE, RepetitionLevelEncoding: format.RLE}),
	}, data: data}
}

// TestParquetHostileHeaders: sizes and counts a file declares are checked
// against the file before the library allocates them, so a file of a few
// hundred bytes cannot make the reader allocate gigabytes, overflow the
// stack or panic: each is an error naming the file. The test measures
// the bytes allocated while reading them all (not the time).
func TestParquetHostileHeaders(t *testing.T) {
	// Not parallel: the allocation count is the process's.
	ok := pqCraft(t, format.Uncompressed, 3, []pqCraftPage{pqPlainPage(0.5, 1.5, 2.5)}, nil)
	rows, err := pqReadBytes(ok)
	if err != nil || len(rows) != 3 || rows[0][0] != "0.5" || rows[2][0] != pqNumberText {
		t.Fatalf("the crafted file itself: %v %v", rows, err)
	}
	// Byte edits of the footer's thrift.
	footerOf := func(data []byte) (int, int) {
		n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
		return len(data) - 8 - n, len(data) - 8
	}
	withFooter := func(footer []byte) []byte {
		a, _ := footerOf(ok)
		out := append(append([]byte(nil), ok[:a]...), footer...)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
		return append(out, "PAR1"...)
	}
	hugeList := withFooter([]byte{0x15, 0x02, 0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00})
	deep := withFooter(append(bytes.Repeat([]byte{0x1c}, 100000), bytes.Repeat([]byte{0}, 100001)...))
	hugeBinary := withFooter([]byte{0x15, 0x02, 0x58, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00})
	longFooter := append([]byte(nil), ok...)
	binary.LittleEndian.PutUint32(longFooter[len(longFooter)-8:], 0xfffffff0)

	page := func(edit func(*pqCraftPage)) []pqCraftPage {
		p := pqPlainPage(0.5, 1.5, 2.5)
		edit(&p)
		return []pqCraftPage{p}
	}
	snappy := page(func(p *pqCraftPage) {
		// A snappy block whose own header claims 4 GiB.
		p.data = append(binary.AppendUvarint(nil, 1<<32-1), 0, 0, 0, 0, 0, 0)
		p.header.CompressedPageSize = int32(len(p.data))
		p.header.UncompressedPageSize = 24
	})
	zstdFCS := page(func(p *pqCraftPage) {
		// A zstd frame that claims 60 GB of content.
		p.data = []byte{0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0, 0, 0, 0, 0, 0x0f, 0, 0, 0, 0, 0, 0}
		p.header.CompressedPageSize = int32(len(p.data))
		p.header.UncompressedPageSize = 24
	})
	zstdRLE := page(func(p *pqCraftPage) {
		// 400 RLE blocks of 128 KiB each, no content size: 50 MiB from 1.6 KB.
		p.data = []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58}
		for i := range 400 {
			bh := uint32(128<<10)<<3 | 1<<1
			if i == 399 {
				bh |= 1
			}
			p.data = append(p.data, byte(bh), byte(bh>>8), byte(bh>>16), 0)
		}
		p.header.CompressedPageSize = int32(len(p.data))
		p.header.UncompressedPageSize = 24
	})
	bigRaw := page(func(p *pqCraftPage) { p.header.UncompressedPageSize = 1<<30 + 1 })
	ratio := page(func(p *pqCraftPage) { p.header.UncompressedPageSize = 100 << 20 })
	pastChunk := page(func(p *pqCraftPage) { p.header.CompressedPageSize = 1 << 30 })
	values := page(func(p *pqCraftPage) { p.header.DataPageHeader.V.NumValues = math.MaxInt32 })

	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"huge list", hugeList, "corrupt footer: a list of 2147483647 elements in 1 bytes"},
		{"deep nesting", deep, "corrupt footer: structures nested more than 32 deep"},
		{"huge binary", hugeBinary, "not a readable Parquet file"},
		{"long footer", longFooter, "the footer claims 4294967280 bytes in a file of"},
		{"encrypted", append(ok[:len(ok)-4:len(ok)-4], "PARE"...), "the footer is encrypted"},
		{"rows", pqCraft(t, format.Uncompressed, 1<<50, []pqCraftPage{pqPlainPage(1)}, nil), "the footer declares 1125899906842624 rows in a file of"},
		{"chunk outside", pqCraft(t, format.Uncompressed, 1, []pqCraftPage{pqPlainPage(1)}, func(md *format.FileMetaData) {
			md.RowGroups[0].Columns[0].MetaData.TotalCompressedSize = 1 << 40
		}), `row 1, column "value": the column chunk (offset 4, 1099511627776 bytes) is not within the file`},
		{"snappy length", pqCraft(t, format.Snappy, 3, snappy, nil), `row 1, column "value": corrupt page 1: the snappy block claims 4294967295 bytes, the page 24 (row group 1)`},
		{"zstd content size", pqCraft(t, format.Zstd, 3, zstdFCS, nil), `corrupt page 1: the zstd frame claims 64424509440 bytes, the page 24`},
		{"zstd bomb", pqCraft(t, format.Zstd, 3, zstdRLE, nil), `corrupt page 1: the zstd data can expand to 52428800 bytes, the page claims 24`},
		{"page too big", pqCraft(t, format.Snappy, 3, bigRaw, nil), `corrupt page 1: the page claims 1073741825 bytes uncompressed, more than 1073741824`},
		{"codec ratio", pqCraft(t, format.Gzip, 3, ratio, nil), `corrupt page 1: the page claims 104857600 bytes uncompressed from 24 compressed, more than GZIP can expand to`},
		{"past the chunk", pqCraft(t, format.Uncompressed, 3, pastChunk, nil), `corrupt page 1: the page claims 1073741824 bytes, the column chunk has 24 left`},
		{"values", pqCraft(t, format.Uncompressed, 3, values, nil), `corrupt page 1: the page claims 2147483647 values, the row group has 3 rows`},
		{"values short", pqCraft(t, format.Uncompressed, 4, []pqCraftPage{pqPlainPage(1, 2, 3)}, nil), `corrupt column chunk: 3 values for 4 rows`},
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, c := range cases {
		_, err := pqReadBytes(c.data)
		t.Logf("%s: %v", c.name, err)
		if err == nil || !strings.HasPrefix(err.Error(), "hostile.parquet: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("reading %d hostile files of a few KB allocated %d MB", len(cases), got>>20)
	}
}

// pqReadBytes reads a whole file given as bytes, asking Float of every
// column, and returns the rows as text or the error.
func pqReadBytes(data []byte) ([][]string, error) {
	p, err := newReader(bytes.NewReader(data), int64(len(data)), "hostile.parquet", nil)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	var out [][]string
	for {
		rec, err := p.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, append([]string(nil), rec...))
		for c := range rec {
			p.Float(c)
		}
	}
}

// TestParquetNullPages: pages and row groups where a column is all
// nulls, plain and dictionary-encoded, text and numbers, read as empty
// text and missing numbers.
func TestParquetNullPages(t *testing.T) {
	t.Parallel()
	type row struct {
		Note *string  `parquet:"note,optional"`
		Tag  *string  `parquet:"tag,dict,optional"`
		V    *float64 `parquet:"v,optional"`
		N    *int64   `parquet:"n,optional"`
		D    *float64 `parquet:"d,dict,optional"`
	}
	var rows []row
	for i := range 3000 {
		var r row
		if i >= 1500 && i%2 == 0 {
			s, tag, v, n := "note "+strconv.Itoa(i), "t"+strconv.Itoa(i%3), float64(i)/4, int64(i)
			r = row{&s, &tag, &v, &n, &v}
		}
		rows = append(rows, r)
	}
	path := filepath.Join(t.TempDir(), "nulls.parquet")
	pqtest.Write(t, path, rows)
	p, err := Open(path, "nulls.parquet", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := 0; ; i++ {
		rec, err := p.Next()
		if err == io.EOF {
			if i != len(rows) {
				t.Fatalf("%d rows, want %d", i, len(rows))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		r := rows[i]
		want := []string{"", "", "", "", ""}
		if r.Note != nil {
			want = []string{*r.Note, *r.Tag, strconv.FormatFloat(*r.V, 'g', -1, 64), strconv.FormatInt(*r.N, 10), pqNumberText}
		}
		if strings.Join(rec, "|") != strings.Join(want, "|") {
			t.Fatalf("row %d: %q, want %q", i+1, rec, want)
		}
		v, ok, err := p.Float(4)
		if err != nil || ok != (r.D != nil) || ok && v != *r.D {
			t.Fatalf("row %d: Float %v %v %v", i+1, v, ok, err)
		}
	}
}

// TestParquetOnly: columns left out by Only are never read — even a
// corrupt chunk in one goes unnoticed — and read as empty cells whose
// Float is an error.
func TestParquetOnly(t *testing.T) {
	t.Parallel()
	type row struct {
		Method string  `parquet:"method"`
		Junk   float64 `parquet:"junk"`
		Value  float64 `parquet:"value"`
	}
	rows := make([]row, 2000)
	for i := range rows {
		rows[i] = row{"m" + strconv.Itoa(i%3), float64(i), float64(i) / 2}
	}
	path := filepath.Join(t.TempDir(), "wide.parquet")
	pqtest.Write(t, path, rows)
	data, _ := os.ReadFile(path)
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	junk := pf.Root().Column("junk").Index()
	for _, g := range pf.Metadata().RowGroups { // damage every page header of junk
		off := g.Columns[junk].MetaData.DataPageOffset
		data[off] = 0xff
	}
	os.WriteFile(path, data, 0o644)
	if _, err := readParquetAll(path, "value"); err == nil || !strings.Contains(err.Error(), `column "junk": corrupt page 1`) {
		t.Fatalf("reading every column: %v", err)
	}
	p, err := Open(path, "wide.parquet", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Only(p.Col("method"), p.Col("value"))
	for i := 0; ; i++ {
		rec, err := p.Next()
		if err == io.EOF {
			if i != len(rows) {
				t.Fatalf("%d rows", i)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		v, ok, err := p.Float(p.Col("value"))
		if rec[0] != rows[i].Method || rec[1] != "" || err != nil || !ok || v != rows[i].Value {
			t.Fatalf("row %d: %q %v %v %v", i+1, rec, v, ok, err)
		}
		if _, _, err := p.Float(p.Col("junk")); err == nil || !strings.Contains(err.Error(), `column "junk": the column is not read`) {
			t.Fatalf("Float of a column left out: %v", err)
		}
	}
}
