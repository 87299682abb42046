package parquet

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// pqRunsFile writes 60 rows of a dictionary-encoded required column
// "method" and an optional "value", uncompressed, as version 1 or 2
// pages, and returns the file with the offset of the method column's
// first run-length block header (after its bit width byte), and a
// function that writes a header there and mends the page's checksum.
func pqRunsFile(t *testing.T, version int) ([]byte, int64, func(data []byte, header []byte)) {
	type row struct {
		Method string   `parquet:"method,dict"`
		Value  *float64 `parquet:"value,optional"`
	}
	rows := make([]row, 60)
	for i := range rows {
		v := float64(i)
		rows[i] = row{"m" + strconv.Itoa(i%3), &v}
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf, parquet.Compression(&parquet.Uncompressed), parquet.DataPageVersion(version))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	cm := pf.Metadata().RowGroups[0].Columns[0].MetaData
	pos, end := cm.DataPageOffset, cm.DataPageOffset+cm.TotalCompressedSize
	h, n, err := pqPageHeader(bytes.NewReader(data), pos, end)
	if err != nil {
		t.Fatal(err)
	}
	at := pos + n
	if h.DataPageHeaderV2.Valid {
		at += int64(h.DataPageHeaderV2.V.RepetitionLevelsByteLength + h.DataPageHeaderV2.V.DefinitionLevelsByteLength)
	}
	if h.CompressedPageSize < 8 || data[at] > 32 {
		t.Fatalf("version %d: the method column's page is not dictionary indexes (%d bytes, width %d)", version, h.CompressedPageSize, data[at])
	}
	patch := func(bad []byte, header []byte) {
		copy(bad[at+1:], header)
		h.CRC = int32(crc32.ChecksumIEEE(bad[pos+n : pos+n+int64(h.CompressedPageSize)]))
		hb, err := thrift.Marshal(new(thrift.CompactProtocol), h)
		if err != nil || int64(len(hb)) != n {
			t.Fatalf("the page header with its new checksum: %d bytes for %d (%v)", len(hb), n, err)
		}
		copy(bad[pos:], hb)
	}
	return data, at + 1, patch
}

// A run-length block of dictionary indexes that claims 2²⁶ values in a
// page of 60: the library would allocate 256 MiB for it (8 GiB at the
// largest count) before checking anything. It is refused, with the file,
// the column and the page, before the library decodes the page.
func TestParquetRunClaimRefused(t *testing.T) {
	for _, version := range []int{1, 2} {
		data, _, patch := pqRunsFile(t, version)
		if _, err := readAllParquet(data); err != nil {
			t.Fatalf("version %d: the clean file: %v", version, err)
		}
		bad := bytes.Clone(data)
		patch(bad, binary.AppendUvarint(nil, uint64(1<<26)<<1)) // an RLE run of 2^26 values
		_, err := readAllParquet(bad)
		if err == nil || !strings.Contains(err.Error(), "dictionary indexes claim 67108864 values or more") || !strings.Contains(err.Error(), "runs.parquet") || !strings.Contains(err.Error(), "method") {
			t.Errorf("version %d: a block claiming 2^26 values: %v; want the file, the column and the claim", version, err)
		}
	}
}

func readAllParquet(data []byte) (int, error) {
	p, err := newReader(bytes.NewReader(data), int64(len(data)), "runs.parquet", nil)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		_, err := p.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// pqScanRuns adds up bit-packed groups (8 values each) and runs, and
// stops silently where a header cannot be read.
func TestParquetScanRuns(t *testing.T) {
	var b []byte
	b = binary.AppendUvarint(b, 3<<1|1) // 3 groups of 8, width 2: 6 bytes
	b = append(b, make([]byte, 6)...)
	b = binary.AppendUvarint(b, 100<<1) // a run of 100, width 2: 1 byte
	b = append(b, 1)
	if err := pqScanRuns(b, 2, 124, "levels"); err != nil {
		t.Errorf("124 values in a page of 124: %v", err)
	}
	b = binary.AppendUvarint(b, 2000<<1) // and a run of 2000
	b = append(b, 1)
	if err := pqScanRuns(b, 2, 40, "levels"); err == nil || !strings.Contains(err.Error(), "levels claim 2000 values or more, the page holds 40") {
		t.Errorf("2124 values in a page of 40 (limit %d): %v", pqRunSlack(40), err)
	}
	if err := pqScanRuns([]byte{0xff, 0xff}, 2, 1, "levels"); err != nil {
		t.Errorf("an unreadable header: %v, want nil (the library reports it)", err)
	}
}

// LZ4 data that cannot decode is an error at once: the library's codec
// retries it with a buffer twice as large each time, without end, for a
// page without a checksum (pyarrow writes none).
func TestParquetLZ4CorruptEnds(t *testing.T) {
	corrupt := []byte{0xf0, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3} // a literal run longer than the data
	if _, err := pqDecompress(corrupt, format.Lz4Raw, 64); err == nil || !strings.Contains(err.Error(), "corrupt LZ4 data") {
		t.Errorf("corrupt LZ4: %v, want an error", err)
	}
	var good []byte
	good = append(good, 0x50) // 5 literals, no match
	good = append(good, "hello"...)
	if out, err := pqDecompress(good, format.Lz4Raw, 5); err != nil || string(out) != "hello" {
		t.Errorf("LZ4 of \"hello\": %q, %v", out, err)
	}
}
