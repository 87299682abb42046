package parquet

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"

	"github.com/pierrec/lz4/v4"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Why this file exists: the Parquet library sizes the output of each
// run-length block of a page's definition levels and dictionary indexes
// by the count the block claims (up to 2³¹ values: 8 GiB for one block)
// before anything checks the count against the page, so a few corrupt
// bytes inside a compressed page exhausted memory (FuzzParquet found a
// 80 KB file that allocated for minutes). pqCheckRuns reads the blocks'
// headers first and refuses a page whose blocks claim more values than
// it holds.

// pqRunSlack is how far the values of a page's run-length blocks may
// exceed its value count: a bit-packed block holds a multiple of 8
// values, so writers pad the last one (and some pad every one).
func pqRunSlack(nv int64) int64 { return 2*nv + 1024 }

// pqCheckRuns checks the run-length blocks of one data page whose
// (maybe compressed) comp bytes start at data. maxDef is the column's
// definition level (its levels are run-length blocks when > 0). A page
// whose checksum fails is left to the library, which reports it.
func pqCheckRuns(r io.ReaderAt, h *format.PageHeader, data, comp int64, codec format.CompressionCodec, maxDef byte) error {
	v1, v2 := &h.DataPageHeader.V, &h.DataPageHeaderV2.V
	var levels, rep int64 // V2: the uncompressed levels before the values
	var enc format.Encoding
	switch {
	case h.DataPageHeader.Valid:
		enc = v1.Encoding
		if maxDef > 0 && v1.DefinitionLevelEncoding != format.RLE {
			return nil // levels the library decodes by the value count
		}
	case h.DataPageHeaderV2.Valid:
		enc, rep = v2.Encoding, int64(v2.RepetitionLevelsByteLength)
		levels = rep + int64(v2.DefinitionLevelsByteLength)
		if v2.IsCompressed.Valid && !v2.IsCompressed.V {
			codec = format.Uncompressed
		}
	default:
		return nil
	}
	//lint:ignore SA1019 parquet 1.0 writers mark dictionary indexes PLAIN_DICTIONARY, which the library decodes as RLE_DICTIONARY
	dict := enc == format.RLEDictionary || enc == format.PlainDictionary
	if !dict && maxDef == 0 || comp <= 0 || levels > comp {
		return nil
	}
	page := make([]byte, comp)
	if m, _ := r.ReadAt(page, data); int64(m) < comp || h.CRC != 0 && uint32(h.CRC) != crc32.ChecksumIEEE(page) {
		return nil
	}
	values, err := pqDecompress(page[levels:], codec, int64(h.UncompressedPageSize)-levels)
	if err != nil || values == nil {
		return err
	}
	nv := int64(max(v1.NumValues, v2.NumValues))
	width := uint(bits.Len8(maxDef))
	if h.DataPageHeaderV2.Valid && maxDef > 0 {
		if err := pqScanRuns(page[rep:levels], width, nv, "definition levels"); err != nil {
			return err
		}
	} else if maxDef > 0 {
		if len(values) < 4 || int64(binary.LittleEndian.Uint32(values)) > int64(len(values)-4) {
			return nil
		}
		n := 4 + int(binary.LittleEndian.Uint32(values))
		if err := pqScanRuns(values[4:n], width, nv, "definition levels"); err != nil {
			return err
		}
		values = values[n:]
	}
	if !dict {
		return nil
	}
	return pqScanIndexes(values, nv)
}

// pqDecompress decodes a page's values with the library's codec into a
// buffer of the size the page claims, as the library does. LZ4 is decoded
// here in one attempt: the library's LZ4 codec retries corrupt data with
// a buffer twice as large each time, without end. nil, nil when another
// codec cannot decode it (the library reports that).
func pqDecompress(b []byte, codec format.CompressionCodec, raw int64) ([]byte, error) {
	switch codec {
	case format.Uncompressed:
		return b, nil
	case format.Lz4Raw:
		dst := make([]byte, max(raw, 0))
		n, err := lz4.UncompressBlock(b, dst)
		if err != nil {
			return nil, fmt.Errorf("corrupt LZ4 data: %v", err)
		}
		return dst[:n], nil
	}
	out, err := parquet.LookupCompressionCodec(codec).Decode(make([]byte, 0, max(raw, 0)), b)
	if err != nil {
		return nil, nil
	}
	return out, nil
}

// pqScanIndexes checks dictionary indexes: a bit width byte, then
// run-length blocks.
func pqScanIndexes(page []byte, nv int64) error {
	if len(page) < 1 || page[0] > 32 {
		return nil
	}
	return pqScanRuns(page[1:], uint(page[0]), nv, "dictionary indexes")
}

// pqScanRuns adds up the values the run-length/bit-packed hybrid blocks
// of b claim and refuses more than pqRunSlack of nv. It stops silently
// at a block it cannot read: the library reports that one.
func pqScanRuns(b []byte, width uint, nv int64, what string) error {
	limit := pqRunSlack(nv)
	var values int64
	for i := 0; i < len(b); {
		u, n := binary.Uvarint(b[i:])
		if n <= 0 {
			return nil
		}
		i += n
		count := int64(u >> 1)
		if count > limit {
			values = count
		} else if u&1 != 0 {
			values += 8 * count
			i += int(count * int64(width))
		} else {
			values += count
			i += int(width+7) / 8
		}
		if values > limit {
			return fmt.Errorf("its %s claim %d values or more, the page holds %d", what, values, nv)
		}
	}
	return nil
}
