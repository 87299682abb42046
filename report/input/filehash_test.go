package input

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestHashStoreBounded: the store on disk keeps at most MaxHashEntries
// files, the least recently used going first and never one this process
// used; a build that only looked files up writes nothing.
func TestHashStoreBounded(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	h := NewHashStore()
	h.SetRacyWindow(0)
	const extra = 6
	for i := range MaxHashEntries + extra - 2 {
		h.known[fmt.Sprintf("/gone/%05d.csv", i)] = hashEntry{Sum: "x", HashedAt: int64(i), UsedAt: int64(i)}
	}
	var real []string
	for i := range 2 {
		p := filepath.Join(dir, fmt.Sprintf("r%d.csv", i))
		if err := os.WriteFile(p, []byte("a,b\n1,2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := h.Sum(p); err != nil {
			t.Fatal(err)
		}
		real = append(real, p)
	}
	h.Save(cache)
	g := LoadHashStore(cache)
	g.SetRacyWindow(0)
	if len(g.known) != MaxHashEntries {
		t.Fatalf("the store kept %d files, want %d", len(g.known), MaxHashEntries)
	}
	for _, p := range real {
		if _, ok := g.known[p]; !ok {
			t.Errorf("%s, used by this process, was dropped", p)
		}
	}
	for i := range extra + 1 {
		_, ok := g.known[fmt.Sprintf("/gone/%05d.csv", i)]
		if want := i == extra; ok != want {
			t.Errorf("/gone/%05d.csv kept = %v, want %v (the %d least recently used go)", i, ok, want, extra)
		}
	}

	// a warm build: the files are looked up, not read, and the store is
	// not written again
	for _, p := range real {
		if _, read, err := g.SumTo(p, nil); err != nil || read {
			t.Fatalf("%s: read = %v, %v; want its sum from the store", p, read, err)
		}
	}
	if g.dirty {
		t.Error("a build that only looked files up would write the store")
	}

	// a process that used more files than the bound keeps them all
	k := NewHashStore()
	for i := range 5 {
		p := fmt.Sprintf("/used/%d", i)
		k.known[p], k.used[p] = hashEntry{UsedAt: int64(i)}, true
	}
	k.known["/old"] = hashEntry{UsedAt: time.Now().UnixNano()}
	k.trim(3)
	if len(k.known) != 5 {
		t.Errorf("trim(3) kept %d entries, want the 5 this process used", len(k.known))
	}
}
