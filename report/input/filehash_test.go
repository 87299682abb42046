package input

import (
	"fmt"
	"maps"
	"math"
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
		h.known[fmt.Sprintf("/gone/%05d.csv", i)] = hashEntry{Sum: fmt.Sprintf("%064x", i), HashedAt: int64(i), UsedAt: int64(i)}
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

// TestHashStoreFile: the store file gives back every entry it was
// given, whatever the path holds (a tab, a line end, a backslash, a
// leading quote, bytes that are not UTF-8); a line that is not one the
// store wrote drops that file only (it is hashed again), a file without
// the store's first line is an empty store, and the JSON store of
// earlier versions goes at the first save.
func TestHashStoreFile(t *testing.T) {
	cache := t.TempDir()
	old := filepath.Join(cache, "hashes.json")
	if err := os.WriteFile(old, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	h := NewHashStore()
	paths := []string{"/s/runs/a.csv", "/s/tab\there.csv", "/s/line\nend.csv", `/s/back\slash.csv`, `"quoted.csv`,
		"/s/not utf-8 \xff.csv", "/s/spaces and ünïcode.csv", "/s/ends with space .csv"}
	for i, p := range paths {
		h.known[p] = hashEntry{ID: FileStamp{Size: int64(100 + i), Mod: -int64(i) * 1e9, Ctime: 1_700_000_000_123_456_789, Ino: math.MaxUint64 - uint64(i), Dev: 64769},
			Sum: fmt.Sprintf("%064x", i*977), HashedAt: int64(i) << 40, UsedAt: int64(i) << 41}
	}
	h.dirty = true
	h.Save(cache)
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the old JSON store is still there: %v", err)
	}
	// a file of that name that is not a store stays
	if err := os.WriteFile(old, []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.dirty = true
	h.Save(cache)
	if b, err := os.ReadFile(old); string(b) != "mine\n" {
		t.Errorf("a hashes.json the store did not write was removed or changed: %q, %v", b, err)
	}
	g := LoadHashStore(cache)
	if !maps.Equal(g.known, h.known) {
		t.Fatalf("loaded %v\nwant %v", g.known, h.known)
	}

	b, err := os.ReadFile(filepath.Join(cache, "hashes.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	good := fmt.Sprintf("%064x\t1\t2\t3\t4\t5\t6\t7\t/s/good.csv\n", 1)
	for _, bad := range []string{
		fmt.Sprintf("%063x\t1\t2\t3\t4\t5\t6\t7\t/s/short-sum.csv\n", 1),
		fmt.Sprintf("%063xg\t1\t2\t3\t4\t5\t6\t7\t/s/not-hex.csv\n", 1),
		fmt.Sprintf("%064x\t1\tx\t3\t4\t5\t6\t7\t/s/not-a-number.csv\n", 1),
		fmt.Sprintf("%064x\t1\t2\t3\t-4\t5\t6\t7\t/s/negative-inode.csv\n", 1),
		fmt.Sprintf("%064x\t1\t2\t3\t4\t5\t6\t/s/a-field-short.csv\n", 1),
		fmt.Sprintf("%064x\t1\t2\t3\t4\t5\t6\t7\t\"/s/bad\\quote.csv\"\n", 1),
		fmt.Sprintf("%064x\t1\t2\t3\t4\t5\t6\t7\t\n", 1),
	} {
		body := append(append(append([]byte{}, b...), bad...), good...)
		if err := os.WriteFile(filepath.Join(cache, "hashes.tsv"), body, 0o600); err != nil {
			t.Fatal(err)
		}
		g := LoadHashStore(cache)
		if len(g.known) != len(paths)+1 {
			t.Errorf("with the line %q: %d files, want the %d good ones", bad, len(g.known), len(paths)+1)
		}
		if e := g.known["/s/good.csv"]; e.ID.Size != 1 || e.UsedAt != 7 {
			t.Errorf("with the line %q: the next line reads %+v", bad, e)
		}
	}
	// cut short: the last line's file is dropped
	if err := os.WriteFile(filepath.Join(cache, "hashes.tsv"), append(append([]byte{}, b...), good[:len(good)-1]...), 0o600); err != nil {
		t.Fatal(err)
	}
	if g := LoadHashStore(cache); len(g.known) != len(paths) {
		t.Errorf("a store cut short in its last line gave %d files, want %d", len(g.known), len(paths))
	}
	// not the store's first line: nothing
	if err := os.WriteFile(filepath.Join(cache, "hashes.tsv"), []byte("{\"a\": 1}\n"+good), 0o600); err != nil {
		t.Fatal(err)
	}
	if g := LoadHashStore(cache); len(g.known) != 0 {
		t.Errorf("a file without the store's first line gave %d files", len(g.known))
	}
}

// BenchmarkLoadHashStore: reading a full store (MaxHashEntries files),
// which every build with the cache does.
func BenchmarkLoadHashStore(b *testing.B) {
	cache := b.TempDir()
	h := NewHashStore()
	for i := range MaxHashEntries {
		h.known[fmt.Sprintf("/home/someone/studies/study-%03d/runs/method-%02d_dataset-%02d.csv", i/64, i%8, i%64/8)] = hashEntry{
			ID:  FileStamp{Size: 2_400_000 + int64(i), Mod: 1_764_000_000_000_000_000 + int64(i), Ctime: 1_764_000_000_000_000_000 + int64(i), Ino: 1_000_000 + uint64(i), Dev: 64769},
			Sum: fmt.Sprintf("%064x", i*7919), HashedAt: 1_764_000_000_000_000_000, UsedAt: 1_764_000_000_000_000_000}
	}
	h.dirty = true
	h.Save(cache)
	b.ResetTimer()
	for range b.N {
		if g := LoadHashStore(cache); len(g.known) != MaxHashEntries {
			b.Fatal(len(g.known))
		}
	}
}
