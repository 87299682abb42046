package report

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hashStudy is a meta-analysis over three units files: one per method,
// and a long file of both.
func hashStudy(rows int) string {
	var b strings.Builder
	b.WriteString("-- study.toml --\ntitle = \"h\"\n[inputs]\nunits = [\"runs/{method}.csv\", \"long.csv\"]\n" +
		"[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\ntitle = \"m\"\ntreatment = \"A\"\ncontrol = \"B\"\nmetric = \"s\"\n" +
		"[[analyses]]\nid = \"n\"\ntype = \"meta_analysis\"\ntitle = \"n\"\ntreatment = \"C\"\ncontrol = \"D\"\nmetric = \"s\"\n")
	for mi, m := range []string{"A", "B"} {
		fmt.Fprintf(&b, "-- runs/%s.csv --\ndataset,user,s\n", m)
		for i := 0; i < rows; i++ {
			fmt.Fprintf(&b, "d%d,u%d,%g\n", i%2, i, float64((i*7+mi*13)%101)/100)
		}
	}
	b.WriteString("-- long.csv --\ndataset,method,unit,metric,value\n")
	for i := 0; i < rows; i++ {
		for mi, m := range []string{"C", "D"} {
			fmt.Fprintf(&b, "d%d,%s,u%d,s,%g\n", i%2, m, i, float64((i*11+mi*5)%97)/100)
		}
	}
	return strings.Replace(b.String(), "units = [\"runs/{method}.csv\", \"long.csv\"]", "units = [{ path = \"runs/{method}.csv\", columns = { unit = \"user\" } }, \"long.csv\"]", 1)
}

// provenanceSums returns provenance.json's sha256 by input path.
func provenanceSums(t *testing.T, site string) map[string]string {
	t.Helper()
	var p struct {
		Inputs []FileProvenance `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(readFile(t, site, "data/provenance.json")), &p); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range p.Inputs {
		out[f.Path] = f.SHA256
	}
	return out
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// TestUnitsHashedWhileRead: a cold build reads each units file once — its
// provenance and cache hash is taken from the bytes as they are parsed,
// not by a read of its own — and the hash is the file's sha256, whether
// the file is read in order or in parallel byte ranges (there the ranges
// are hashed in file order, from the bytes read to parse them). A warm
// build stats the files, reading none to hash it.
func TestUnitsHashedWhileRead(t *testing.T) {
	t.Parallel()
	for _, ranged := range []bool{false, true} {
		dir := t.TempDir()
		if err := ParseArchive([]byte(hashStudy(3000))).WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		cache := NewCache()
		cache.hashStore().SetRacyWindow(0) // the files were just written
		o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", Cache: cache, Format: "html"}
		if ranged {
			o.Jobs, o.parallelMin, o.chunkBytes = 2, 8<<10, 4<<10
		}
		sum, err := Build(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		got := provenanceSums(t, sum.Out)
		for _, f := range []string{"runs/A.csv", "runs/B.csv", "long.csv"} {
			if want := fileSum(t, filepath.Join(dir, f)); got[f] != want {
				t.Errorf("ranged=%v: provenance sha256 of %s is %q, want %q", ranged, f, got[f], want)
			}
		}
		hashed := cache.hashStore().Hashed()
		if hashed != 0 {
			t.Errorf("ranged=%v: the cold build read %d files to hash them, want 0 (the parse hashes them)", ranged, hashed)
		}
		if _, err := Build(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		if cache.Hits() != 2 || cache.hashStore().Hashed() != hashed {
			t.Errorf("ranged=%v: warm build: %d cache hits (want 2), %d files hashed (want still %d)", ranged, cache.Hits(), cache.hashStore().Hashed(), hashed)
		}
	}
}

// TestUnitsChangedWhileRead: a units file written to while the build
// reads it fails the build, naming the file, instead of publishing a
// hash of content that is not what the numbers came from.
func TestUnitsChangedWhileRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := ParseArchive([]byte(hashStudy(3000))).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", NoCache: true, Format: "html",
		Jobs: 2, parallelMin: 8 << 10, chunkBytes: 4 << 10}
	o.onParallel = func(p string) {
		if filepath.Base(p) == "long.csv" {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			fmt.Fprintf(f, "d0,C,u99999,s,0.5\n")
			f.Close()
		}
	}
	_, err := Build(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "long.csv: changed while this build read it") {
		t.Fatalf("a file appended to during the build: %v", err)
	}
}
