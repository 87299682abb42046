package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkServeRebuild: how long after a page of the scaffolded study is
// saved `evalbook serve` serves the edit (its watcher looks every 250 ms;
// the budget is 2 s). `make bench` prints it; no test asserts
// it, as the machines are shared.
func BenchmarkServeRebuild(b *testing.B) {
	dir, addr, _ := startServer(b)
	page := filepath.Join(dir, "pages", "findings.md")
	src, err := os.ReadFile(page)
	if err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sentence := fmt.Sprintf("Edit number %d.", i)
		if err := os.WriteFile(page, fmt.Appendf(append([]byte{}, src...), "\n%s\n", sentence), 0o644); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for {
			if _, body := get(b, "http://"+addr+"/findings.html"); strings.Contains(body, sentence) {
				break
			}
			if time.Since(start) > time.Minute {
				b.Fatalf("edit %d was not served within a minute", i)
			}
			time.Sleep(10 * time.Millisecond)
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/edit")
}
