package input

// Parquet read through TableReader, as the loaders read it: TableReader
// checks the header's names, compares the declared missing markers with
// each value's text, parses a text column as it parses a CSV cell, and
// refuses a NaN or an infinity stored as a float unless declared
// missing. The Parquet reader itself is tested in report/input/parquet.

import (
	"github.com/evalbook/evalbook/internal/pqtest"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/input/parquet"
)

// readParquetAll opens a file through OpenTable, as the loaders do, reads
// every row, asks Float of the columns in floats and returns the records
// as text (with the texts of the rows) or the first error.
func readParquetAll(path string, floats ...string) ([][]string, error) {
	t, err := OpenTable(path, filepath.Base(path), nil)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	var cols []int
	for _, name := range floats {
		c, err := t.Require(name)
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	var out [][]string
	for {
		rec, err := t.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		for _, c := range cols {
			if _, _, err := t.Float(c); err != nil {
				return out, err
			}
		}
		out = append(out, append([]string(nil), rec...))
	}
}

// TestParquetNonFinite: a NaN or an infinity stored in a float column is
// an error naming file, row and column, whether the column is plain or
// dictionary-encoded, float or double; a null is a missing value.
func TestParquetNonFinite(t *testing.T) {
	t.Parallel()
	type plainRow struct {
		Name  string   `parquet:"name"`
		Value *float64 `parquet:"value,optional"`
	}
	type dictRow struct {
		Name  string  `parquet:"name"`
		Value float64 `parquet:"value,dict"`
	}
	type f32Row struct {
		Name  string  `parquet:"name"`
		Value float32 `parquet:"value"`
	}
	type textRow struct {
		Name  string `parquet:"name"`
		Value string `parquet:"value"`
	}
	dir := t.TempDir()
	f := func(v float64) *float64 { return &v }
	// 2000 good rows first, so that the bad one is in a later batch.
	const bad = 2001
	plain := make([]plainRow, 2100)
	dict := make([]dictRow, 2100)
	f32 := make([]f32Row, 2100)
	text := make([]textRow, 2100)
	for i := range plain {
		plain[i] = plainRow{"r" + strconv.Itoa(i), f(float64(i % 7))}
		if i%3 == 0 {
			plain[i].Value = nil // a null is fine
		}
		dict[i] = dictRow{"r", float64(i % 5)}
		f32[i] = f32Row{"r", float32(i) / 2}
		text[i] = textRow{"r", strconv.Itoa(i)}
	}
	cases := []struct {
		name, want string
		write      func(path string)
	}{
		{"nan.parquet", "nan.parquet: row 2001, column \"value\": not a finite number: NaN (declare it missing with missing_values = [\"NaN\"] on the input)", func(path string) {
			rows := append([]plainRow(nil), plain...)
			rows[bad-1].Value = f(math.NaN())
			pqtest.Write(t, path, rows)
		}},
		{"inf.parquet", "inf.parquet: row 2001, column \"value\": not a finite number: Inf", func(path string) {
			rows := append([]dictRow(nil), dict...)
			rows[bad-1].Value = math.Inf(1)
			pqtest.Write(t, path, rows)
		}},
		{"neginf.parquet", "neginf.parquet: row 2001, column \"value\": not a finite number: -Inf", func(path string) {
			rows := append([]plainRow(nil), plain...)
			rows[bad-1].Value = f(math.Inf(-1))
			pqtest.Write(t, path, rows)
		}},
		{"f32.parquet", "f32.parquet: row 2001, column \"value\": not a finite number: NaN", func(path string) {
			rows := append([]f32Row(nil), f32...)
			rows[bad-1].Value = float32(math.NaN())
			pqtest.Write(t, path, rows)
		}},
		{"text.parquet", "text.parquet: row 2001, column \"value\": not a finite number: \"Infinity\"", func(path string) {
			rows := append([]textRow(nil), text...)
			rows[bad-1].Value = "Infinity"
			pqtest.Write(t, path, rows)
		}},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		c.write(path)
		rows, err := readParquetAll(path, "value")
		if err == nil || err.Error() != c.want && !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if len(rows) != bad-1 {
			t.Errorf("%s: %d rows before the error, want %d", c.name, len(rows), bad-1)
		}
	}
	// Nulls are missing values, not errors.
	path := filepath.Join(dir, "nulls.parquet")
	pqtest.Write(t, path, plain)
	p, err := parquet.Open(path, "nulls.parquet", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := 0; ; i++ {
		if _, err := p.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		v, ok, err := p.Float(1)
		if err != nil || ok != (i%3 != 0) || (ok && v != float64(i%7)) {
			t.Fatalf("row %d: %v %v %v", i+1, v, ok, err)
		}
	}
}
