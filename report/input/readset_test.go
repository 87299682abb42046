package input

import (
	"bytes"
	"compress/gzip"
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

// TestReadSetHeads: MergeHeads keeps the header alone of the files it is
// given, a file read whole elsewhere counts whole, and Merge carries
// headers along.
func TestReadSetHeads(t *testing.T) {
	pass := NewReadSet()
	pass.AddFile("/s/A_d.csv", "/s/C_d.csv", "/s/derived.json")
	pass.AddPattern("/s/{method}_{dataset}.csv", []string{"/s/A_d.csv", "/s/C_d.csv"})
	ab := NewReadSet()
	ab.MergeHeads(pass, map[string]int64{"/s/C_d.csv": 10, "/s/not-read.csv": 7})
	if got, want := ab.Files(), []string{"/s/A_d.csv", "/s/derived.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	if got, want := ab.Heads(), map[string]int64{"/s/C_d.csv": 10}; !reflect.DeepEqual(got, want) {
		t.Errorf("heads %v, want %v (a file the pass did not read is no header of it)", got, want)
	}
	if len(ab.Patterns()) != 1 {
		t.Errorf("patterns %v", ab.Patterns())
	}
	all := NewReadSet()
	all.Merge(ab)
	if !reflect.DeepEqual(all.Heads(), ab.Heads()) {
		t.Errorf("Merge lost the headers: %v", all.Heads())
	}
	all.AddFile("/s/C_d.csv") // read whole by another analysis
	if len(all.Heads()) != 0 {
		t.Errorf("a file read whole still counts as its header: %v", all.Heads())
	}
}

// TestHeadSum: the sum of a file's first n bytes and the one after; a
// row edited past them keeps it, one byte of the header or of the first
// row's first byte changes it; a file shorter than its header, not a
// regular file or no length is an error; HeadKey and ParseHeadKey agree.
func TestHeadSum(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "C_d.csv")
	write := func(s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum := func(n int64) string {
		s, err := HeadSum(p, n)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	write("user,ndcg\nu1,0.5\n")
	was := sum(10)
	write("user,ndcg\nu1,0.6\n")
	if sum(10) != was {
		t.Error("a row past the header changed its sum")
	}
	write("user,ndcg\nv1,0.5\n")
	if sum(10) == was {
		t.Error("the byte after the header did not count")
	}
	write("user,NDCG\nu1,0.5\n")
	if sum(10) == was {
		t.Error("a header's byte did not count")
	}
	write("user,ndcg\n")
	if sum(10) == sum(9) {
		t.Error("two lengths, one sum")
	}
	for _, n := range []int64{11, -1} {
		if _, err := HeadSum(p, n); err == nil {
			t.Errorf("HeadSum(%d) of a 10-byte file: no error", n)
		}
	}
	if _, err := HeadSum(dir, 3); err == nil {
		t.Error("HeadSum of a directory: no error")
	}
	for _, want := range []int64{10, 0} {
		if path, n, ok := ParseHeadKey(HeadKey(p, want)); !ok || path != p || n != want {
			t.Errorf("ParseHeadKey(HeadKey(%d)) = %q, %d, %v", want, path, n, ok)
		}
	}
	if _, _, ok := ParseHeadKey(p); ok {
		t.Error("a path parses as a head key")
	}
}

// TestHeadSumAsRead: a .gz file's header is inside its compressed
// stream, so its HeadSum (n = 0) is that of the column names as read:
// other rows keep it, another header changes it, a stream that is no
// gzip is an error.
func TestHeadSumAsRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "C_d.csv.gz")
	write := func(s string) {
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		z.Write([]byte(s))
		z.Close()
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum := func() string {
		s, err := HeadSum(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	write("user,ndcg\nu1,0.5\n")
	was := sum()
	write("user,ndcg\nu1,0.6\nu2,0.1\n")
	if sum() != was {
		t.Error("rows changed the sum of a header as read")
	}
	write("ndcg,user\n0.5,u1\n")
	if sum() == was {
		t.Error("another header, the same sum")
	}
	if err := os.WriteFile(p, []byte("user,ndcg\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := HeadSum(p, 0); err == nil {
		t.Error("a .gz file that is no gzip stream: no error")
	}
}
