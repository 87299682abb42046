package report

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCacheUnitsOfOtherMethods: the shared units pass reads every
// method's files for the analyses that compare them; an analysis's cache
// entry holds the rows of the methods it compares and, of the other
// methods' files, their headers alone (which tell it which metrics they
// hold). So an edited value of C leaves A vs B cached, while a header of
// C's, or one that starts to name the metric in a file of a method no
// analysis compares, computes them all again; each site is the site of
// a build without the cache, for the disk cache and serve's memory cache.
func TestCacheUnitsOfOtherMethods(t *testing.T) {
	t.Parallel()
	t.Run("csv", func(t *testing.T) { t.Parallel(); testUnitsOfOtherMethods(t, "") })
	// a .gz file's header is inside its stream: its columns as read
	t.Run("gzip", func(t *testing.T) { t.Parallel(); testUnitsOfOtherMethods(t, ".gz") })
}

// testUnitsOfOtherMethods is TestCacheUnitsOfOtherMethods with the units
// files named *.csv+ext (".gz": compressed).
func testUnitsOfOtherMethods(t *testing.T, ext string) {
	base := t.TempDir()
	study := filepath.Join(base, "study")
	if err := ParseArchive([]byte(studyFixture("heads"))).WriteDir(study); err != nil {
		t.Fatal(err)
	}
	manifestPath := filepath.Join(study, "study.toml")
	put := func(p string, b []byte) { // b as the file of ext holds it
		if ext == ".gz" {
			var z bytes.Buffer
			w := gzip.NewWriter(&z)
			w.Write(b)
			w.Close()
			b = z.Bytes()
		}
		if err := os.WriteFile(p+ext, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if ext != "" {
		runs, _ := filepath.Glob(filepath.Join(study, "runs", "*.csv"))
		for _, p := range runs {
			b, _ := os.ReadFile(p)
			put(p, b)
			os.Remove(p)
		}
		m, _ := os.ReadFile(manifestPath)
		m = bytes.Replace(m, []byte("{dataset}.csv"), []byte("{dataset}.csv"+ext), 1)
		if err := os.WriteFile(manifestPath, m, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fresh := Options{Manifest: manifestPath, Version: "test", NoCache: true, Out: filepath.Join(base, "fresh")}
	disk := Options{Manifest: manifestPath, Version: "test", CacheDir: filepath.Join(base, "cache"), Out: filepath.Join(base, "disk")}
	mem := Options{Manifest: manifestPath, Version: "test", Cache: NewCache(), Out: filepath.Join(base, "mem")}
	mem.Cache.hashStore().SetRacyWindow(0)

	c := filepath.Join(study, "runs", "C_d1.csv")
	d := filepath.Join(study, "runs", "D_d1.csv")
	cOriginal, dOriginal := headsFile("runs/C_d1.csv"), headsFile("runs/D_d1.csv")
	cValue := bytes.Clone(cOriginal) // one digit of the last value
	for i := len(cValue) - 1; i >= 0; i-- {
		if b := cValue[i]; b >= '1' && b <= '8' {
			cValue[i]++
			break
		}
	}
	// the same values with the columns the other way round: another
	// header, the same numbers
	var swapped []string
	for _, line := range strings.Split(strings.TrimSuffix(string(cOriginal), "\n"), "\n") {
		user, value, _ := strings.Cut(line, ",")
		swapped = append(swapped, value+","+user)
	}
	cHeader := []byte(strings.Join(swapped, "\n") + "\n")
	dNamesMetric := bytes.Replace(dOriginal, []byte("user,recall"), []byte("user,ndcg"), 1)
	dValue := bytes.Replace(dNamesMetric, []byte("u8,0."), []byte("u8,1."), 1)
	if bytes.Equal(cValue, cOriginal) || bytes.Equal(dNamesMetric, dOriginal) || bytes.Equal(dValue, dNamesMetric) {
		t.Fatal("an edit changed nothing")
	}

	steps := []struct {
		name     string
		c, d     []byte
		computed int
	}{
		{"cold", cOriginal, dOriginal, 3},
		{"a value of C", cValue, dOriginal, 2}, // B vs C and A vs C
		{"undo", cOriginal, dOriginal, 0},
		{"C's header", cHeader, dOriginal, 3}, // A vs B reads it too
		{"C as it was", cOriginal, dOriginal, 0},
		{"D's header names the metric", cOriginal, dNamesMetric, 3},
		{"a value of D", cOriginal, dValue, 0}, // nobody compares D
	}
	for _, s := range steps {
		put(c, s.c)
		put(d, s.d)
		checkCachedBuilds(t, s.name, fresh, []Options{disk, mem}, func(_ Options, sum *Summary) int {
			return sum.Analyses - s.computed
		})
	}
}

// headsFile is a file of the heads study as the fixture holds it.
func headsFile(name string) []byte {
	for _, f := range ParseArchive([]byte(studyFixture("heads"))).Files {
		if f.Name == name {
			return f.Data
		}
	}
	panic("no " + name + " in testdata/studies/heads.txtar")
}
