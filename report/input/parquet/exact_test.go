package parquet

import (
	"fmt"
	"github.com/evalbook/evalbook/internal/pqtest"
	"io"
	"math/big"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestParquetExactNumbers: an INT64 value that a float64 cannot hold is an
// error naming file, row and column when read as a number (and keeps its
// exact text as an id); a float32 value reads as its shortest decimal
// text (0.1f is 0.1). The oracles: math/big for exactness, strconv for
// the shortest text. Plain and dictionary pages, signed and unsigned.
func TestParquetExactNumbers(t *testing.T) {
	type row struct {
		V int64   `parquet:"v"`
		U uint64  `parquet:"u"`
		F float32 `parquet:"f"`
	}
	const n = 2500
	bad := 1700 // the row holding an inexact integer
	rows := make([]row, n)
	for i := range rows {
		rows[i] = row{V: int64(i) << 40, U: uint64(i), F: float32(i) / 10}
	}
	for _, c := range []struct {
		name string
		set  func(*row)
		col  string
		want int64
		uns  bool
	}{
		{"2^53+1", func(r *row) { r.V = 1<<53 + 1 }, "v", 1<<53 + 1, false},
		{"-(2^53+1)", func(r *row) { r.V = -(1<<53 + 1) }, "v", -(1<<53 + 1), false},
		{"max int64", func(r *row) { r.V = 1<<63 - 1 }, "v", 1<<63 - 1, false},
		{"uint64 2^64-1", func(r *row) { r.U = 1<<64 - 1 }, "u", -1, true},
	} {
		for _, dict := range []bool{false, true} {
			rs := append([]row(nil), rows...)
			c.set(&rs[bad])
			path := filepath.Join(t.TempDir(), "t.parquet")
			var opts []parquet.WriterOption
			if dict {
				// few distinct values: the writer keeps its dictionary
				for i := range rs {
					if i != bad {
						rs[i].V, rs[i].U = int64(i%7)<<40, uint64(i%7)
					}
				}
			} else {
				opts = append(opts, parquet.DefaultEncoding(&parquet.Plain))
			}
			pqtest.Write(t, path, rs, opts...)
			p, err := Open(path, "t.parquet", nil)
			if err != nil {
				t.Fatal(err)
			}
			col := p.Col(c.col)
			var got error
			for i := 0; ; i++ {
				rec, err := p.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				_ = rec
				if _, _, err := p.Float(col); err != nil {
					got = err
					break
				}
			}
			p.Close()
			exact := new(big.Int).SetInt64(c.want)
			if c.uns {
				exact.SetUint64(uint64(c.want))
			}
			f, _ := new(big.Float).SetInt(exact).Float64()
			rounded := new(big.Float).SetFloat64(f)
			rounded.SetMode(big.ToNearestEven)
			ri, _ := rounded.Int(nil)
			if ri.Cmp(exact) == 0 {
				t.Fatalf("%s: the oracle says a float64 holds it", c.name)
			}
			want := fmt.Sprintf("t.parquet: row %d, column %q: the integer %s is beyond ±2^53 and a float64 cannot hold it exactly (it would read as %s)", bad+1, c.col, exact, ri)
			if got == nil || !strings.Contains(got.Error(), want) {
				t.Errorf("%s (dictionary %v): %v\nwant %s", c.name, dict, got, want)
			}
		}
	}

	// As an id (text only) the same integer is exact; beyond 2^53 with few
	// significant bits (2^60) it is a number like any other.
	rs := append([]row(nil), rows...)
	rs[bad].V = 1<<53 + 1
	rs[bad+1].V = 1 << 60
	path := filepath.Join(t.TempDir(), "t.parquet")
	pqtest.Write(t, path, rs)
	p, err := Open(path, "t.parquet", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		rec, err := p.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := strconv.FormatInt(rs[i].V, 10); rec[p.Col("v")] != want {
			t.Fatalf("row %d: text %q, want %q", i+1, rec[p.Col("v")], want)
		}
		// float32: the shortest decimal text, parsed as a float64
		v, _, err := p.Float(p.Col("f"))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := strconv.ParseFloat(strconv.FormatFloat(float64(rs[i].F), 'g', -1, 32), 64)
		if v != want {
			t.Fatalf("row %d: float32 %v read as %v, want %v", i+1, rs[i].F, v, want)
		}
	}
	p.Close()
}
