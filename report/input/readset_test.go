package input

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestReadSetMerge(t *testing.T) {
	a, b := NewReadSet(), NewReadSet()
	a.AddFile("/s/b.csv", "/s/a.csv")
	b.AddFile("/s/c.csv")
	b.AddPattern("/s/*.csv", []string{"/s/a.csv", "/s/c.csv"})
	a.Merge(b)
	a.Merge(a)
	var none *ReadSet
	none.AddFile("/x") // a nil set records nothing
	if got, want := a.Files(), []string{"/s/a.csv", "/s/b.csv", "/s/c.csv"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	if got := a.Patterns()["/s/*.csv"]; len(got) != 2 {
		t.Errorf("pattern matches %v", got)
	}
	if none.Files() != nil || none.Patterns() != nil {
		t.Error("a nil set lists something")
	}
}

// A store saved to a directory and loaded again trusts unchanged files
// (once the racy window has passed) and re-hashes edited ones.
func TestHashStoreRoundTrip(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, "a.csv")
	os.WriteFile(p, []byte("x,y\n1,2\n"), 0o644)
	h := NewHashStore()
	s1, err := h.Sum(p)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := SHA256File(p); s1 != want {
		t.Fatalf("sum %s, want %s", s1, want)
	}
	h.Save(cache)
	h2 := LoadHashStore(cache)
	h2.SetRacyWindow(0)
	if s, _ := h2.Sum(p); s != s1 || h2.Hashed() != 0 {
		t.Fatalf("a loaded store re-hashed an unchanged file (%d, %s)", h2.Hashed(), s)
	}
	st1, ok := Stamp(p)
	if !ok {
		t.Fatal("no stamp")
	}
	os.WriteFile(p, []byte("x,y\n1,3\n"), 0o644)
	if s, _ := h2.Sum(p); s == s1 || h2.Hashed() != 1 {
		t.Fatalf("an edit was not seen (%d hashed)", h2.Hashed())
	}
	if st2, _ := Stamp(p); st2 == st1 {
		t.Error("the stamp did not change")
	}
	if _, ok := Stamp(filepath.Join(dir, "missing")); ok {
		t.Error("a missing file has a stamp")
	}
}
