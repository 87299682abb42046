package runs

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An interleaved TREC run gives the same blocks (same query, same items
// in trec_eval's order, same lines) whether it is grouped in memory or
// through spilled chunks merged back, and the same as the contiguous file
// holding the same lines query by query.
func TestTrecSortSpills(t *testing.T) {
	// Not parallel: it lowers the package's chunk size.
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	type line struct {
		q, d  string
		score float64
	}
	var lines []line
	for q := range 50 {
		for r := range 20 {
			lines = append(lines, line{fmt.Sprintf("q%02d", q), fmt.Sprintf("d%d", rng.IntN(1000)*20+r), float64(rng.IntN(5))})
		}
	}
	write := func(name string, ls []line) string {
		var b strings.Builder
		for _, l := range ls {
			fmt.Fprintf(&b, "%s Q0 %s 0 %g tag extra text\n", l.q, l.d, l.score)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	grouped := write("grouped.run", lines)
	shuffled := append([]line(nil), lines...)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	mixed := write("mixed.run", shuffled)
	read := func(path string) (string, bool) {
		r, err := OpenCapped(path, filepath.Base(path), FormatTREC, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		spilled := r.sorted != nil && len(r.sorted.chunks) > 1
		var out []string
		for {
			user, items, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			var s []string
			for _, it := range items {
				s = append(s, string(it))
			}
			out = append(out, string(user)+": "+strings.Join(s, " "))
		}
		if r.Rows != int64(len(lines)) {
			t.Errorf("%s: %d rows, want %d", path, r.Rows, len(lines))
		}
		return strings.Join(out, "\n"), spilled
	}
	want, _ := read(grouped)
	inMemory, spilled := read(mixed)
	if spilled || inMemory != want {
		t.Errorf("in memory (spilled %v):\n%s\nwant\n%s", spilled, inMemory, want)
	}
	old := trecChunkBytes
	trecChunkBytes = 2000 // about 40 lines a chunk: 25 spilled chunks
	defer func() { trecChunkBytes = old }()
	merged, spilled := read(mixed)
	if !spilled || merged != want {
		t.Errorf("merged (spilled %v):\n%s\nwant\n%s", spilled, merged, want)
	}
}
