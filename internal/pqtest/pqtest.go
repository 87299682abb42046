// Package pqtest writes the Parquet files of the readers' tests.
package pqtest

import (
	"bytes"
	"os"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// Write writes rows to a Parquet file at path, snappy, in small pages
// and row groups so that reading crosses both; opts come after those
// and may override them.
func Write[T any](t testing.TB, path string, rows []T, opts ...parquet.WriterOption) {
	t.Helper()
	var buf bytes.Buffer
	opts = append([]parquet.WriterOption{parquet.Compression(&parquet.Snappy), parquet.PageBufferSize(512), parquet.MaxRowsPerRowGroup(300)}, opts...)
	w := parquet.NewGenericWriter[T](&buf, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
