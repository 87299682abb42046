package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/evalbook/evalbook/report/cachefmt"
)

// TestCacheScansOnlyWhenItMayBeOver: every build that wrote an entry
// listed and statted the whole store to bound it (18 ms of a rebuild
// with a cache of 631 entries, growing with the cache, not the study).
// Now the store keeps a count of the bytes the builds wrote, and only
// the first build, one whose writes pass the bound, one every
// rescanEvery builds that wrote, and one after the count is damaged
// scan it. Without builds running at once the count is the store's true
// size after every build; one analysis still keeps at most
// maxEntriesPerKey input sets without a scan; and a scan still bounds
// the store.
func TestCacheScansOnlyWhenItMayBeOver(t *testing.T) {
	t.Parallel()
	base, dir, papers, original := summaryPapers(t)
	cacheDir := filepath.Join(base, "cache")
	scans := 0
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", Out: filepath.Join(base, "site"), CacheDir: cacheDir,
		cacheNow: fakeClock(), onCacheScan: func() { scans++ }}
	n := 0
	build := func(max int64) {
		t.Helper()
		n++ // a content no build has seen: the entry is written
		body := bytes.Replace(original, []byte("p1,5,0.03"), fmt.Appendf(nil, "p1,5,0.03%03d", n), 1)
		if err := os.WriteFile(papers, body, 0o644); err != nil {
			t.Fatal(err)
		}
		o := o
		o.CacheMaxBytes = max
		if _, err := Build(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	stored := func() (total int64) { // the analysis's entries and the rendered sites'
		for _, e := range append(cacheEntries(t, cacheDir, "m"), cacheEntries(t, cacheDir, siteID)...) {
			st, err := os.Stat(e)
			if err != nil {
				t.Fatal(err)
			}
			total += st.Size()
		}
		return total
	}
	usage := func() (int64, int, bool) {
		b, _ := os.ReadFile(filepath.Join(cacheDir, "v2", cachefmt.UsageFile))
		return cachefmt.ParseUsage(b)
	}
	const big = 1 << 30
	step := func(what string, max int64, wantScans int) {
		t.Helper()
		build(max)
		if scans != wantScans {
			t.Fatalf("%s (build %d): %d scans of the whole store, want %d", what, n, scans, wantScans)
		}
		if got, _, ok := usage(); !ok || got != stored() {
			t.Fatalf("%s (build %d): the usage count says %d bytes (ok %v), the store holds %d", what, n, got, ok, stored())
		}
	}
	step("the first build", big, 1)
	for i := 1; i < rescanEvery; i++ {
		step("a build under the bound", big, 1)
		if k := len(cacheEntries(t, cacheDir, "m")); k > maxEntriesPerKey {
			t.Fatalf("build %d: %d input sets of one analysis kept, more than %d", n, k, maxEntriesPerKey)
		}
	}
	step("the build after rescanEvery builds that wrote", big, 2)
	step("a build under the bound again", big, 2)
	if err := os.WriteFile(filepath.Join(cacheDir, "v2", cachefmt.UsageFile), []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step("a build after the count was damaged", big, 3)
	one := stored() / int64(len(cacheEntries(t, cacheDir, "m")))
	step("a build whose entry passes the bound", 3*one, 4)
	if got := stored(); got > 3*one {
		t.Errorf("the scan left %d bytes under a bound of %d", got, 3*one)
	}
}
