package report

import (
	"bufio"
	"fmt"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkUnitsLoader streams a long units file of 1,000,000 rows
// (dataset,method,unit,metric,value) and reports throughput.
func BenchmarkUnitsLoader(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "units.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "dataset,method,unit,metric,value")
	const rows = 1_000_000
	for i := 0; i < rows; i++ {
		fmt.Fprintf(w, "dataset-%d,method-%d,u%d,ndcg@10,%.6f\n", i%30, i%2, i/60, float64(i%997)/997)
	}
	w.Flush()
	f.Close()
	st, _ := os.Stat(path)
	os.WriteFile(filepath.Join(dir, "study.toml"), []byte("title = \"b\"\n[inputs]\nunits = \"units.csv\"\n"), 0o644)
	s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var n int
		var sum float64
		if err := newInputs(s).Units(func(u *load.UnitRow) error { n++; sum += u.Value; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != rows {
			b.Fatalf("read %d rows", n)
		}
	}
}
