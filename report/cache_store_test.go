package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
)

// cacheEntries lists the disk cache's entries of analysis id.
func cacheEntries(t testing.TB, cacheDir, id string) []string {
	t.Helper()
	entries, err := filepath.Glob(filepath.Join(cacheDir, "v2", id+"-[0-9a-f]*", "*.entry"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(entries)
	return entries
}

// fakeClock is a clock that moves a minute at every reading, so the
// order of the cache's uses never depends on the file system's clock.
func fakeClock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Minute)
		return t
	}
}

// buildSite builds and returns the summary and the site's files.
func buildSite(t testing.TB, o Options) (*Summary, map[string]string) {
	t.Helper()
	sum, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	site, err := siteOrErrorRead(o.Out)
	if err != nil {
		t.Fatal(err)
	}
	delete(site, ".evalbook-site")
	return sum, site
}

// checkCachedBuilds builds fresh (without the cache), then each of caches
// (the disk cache, serve's memory cache): each must take want(o, its
// summary) analyses from the cache and write the site fresh wrote.
func checkCachedBuilds(t *testing.T, step string, fresh Options, caches []Options, want func(Options, *Summary) int) {
	t.Helper()
	_, freshSite := buildSite(t, fresh)
	for _, o := range caches {
		what := "the disk cache"
		if o.Cache != nil {
			what = "serve's memory cache"
		}
		sum, got := buildSite(t, o)
		if w := want(o, sum); sum.Cached != w {
			t.Errorf("%s, %s: %d of %d analyses from the cache, want %d", step, what, sum.Cached, sum.Analyses, w)
		}
		if name := sameSite(got, freshSite); name != "" {
			t.Errorf("%s, %s: the site differs from a build without the cache in %s", step, what, name)
		}
	}
}

// sameSite reports the first file in which two sites differ, or "".
func sameSite(got, want map[string]string) string {
	var names []string
	for name := range want {
		names = append(names, name)
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if got[name] != want[name] {
			return name
		}
	}
	return ""
}

// TestCacheEditAndUndoHit: the cache kept one entry per analysis, so
// undoing an edit recomputed every analysis that read the file although
// its output for those very bytes had been computed two builds before.
// Now outputs of each input set are kept side by side: the edit
// recomputes the analyses that read the file, the undo recomputes none,
// in the disk cache (evalbook build) and in serve's memory; every build
// is byte-identical to one without the cache.
func TestCacheEditAndUndoHit(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	study := filepath.Join(base, "study")
	everyKindStudy(t, study)
	manifestPath := filepath.Join(study, "study.toml")
	st, err := manifest.LoadStudy(manifestPath, kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	// the analyses each cache keeps: every one, the feeding ones too
	stored := map[bool]int{true: len(st.Analyses), false: len(st.Analyses)}
	fresh := Options{Manifest: manifestPath, Version: "test", NoCache: true, Out: filepath.Join(base, "fresh")}
	disk := Options{Manifest: manifestPath, Version: "test", CacheDir: filepath.Join(base, "cache"), Out: filepath.Join(base, "disk")}
	mem := Options{Manifest: manifestPath, Version: "test", Cache: NewCache(), Out: filepath.Join(base, "mem")}
	mem.Cache.hashStore().SetRacyWindow(0)

	units := filepath.Join(study, "units", "A_d1.csv") // read by pt and meta
	original, _ := os.ReadFile(units)
	edited := bytes.Clone(original) // one digit of the last value
	for i := len(edited) - 1; i >= 0; i-- {
		if c := edited[i]; c >= '1' && c <= '8' {
			edited[i]++
			break
		}
	}
	if bytes.Equal(edited, original) {
		t.Fatal("the edit changed nothing")
	}

	steps := []struct {
		name     string
		bytes    []byte
		cold     bool
		computed int // analyses computed when the cache is warm
	}{
		{"cold", original, true, 0},
		{"warm", original, false, 0},
		{"edit", edited, false, 2}, // pt and meta read the file
		{"undo", original, false, 0},
		{"redo", edited, false, 0},
	}
	for _, s := range steps {
		if err := os.WriteFile(units, s.bytes, 0o644); err != nil {
			t.Fatal(err)
		}
		checkCachedBuilds(t, s.name, fresh, []Options{disk, mem}, func(o Options, _ *Summary) int {
			if s.cold {
				return 0
			}
			return stored[o.Cache != nil] - s.computed
		})
	}
	if n := len(cacheEntries(t, disk.CacheDir, "pt")); n != 2 {
		t.Errorf("the disk cache holds %d entries of pt, want 2 (one per content of units/A_d1.csv)", n)
	}
}

// summaryPapers writes summaryStudy into a temporary directory base
// (as base/study) and returns it with its papers.csv and that file's
// bytes, which the cache tests edit.
func summaryPapers(t *testing.T) (base, dir, papers string, original []byte) {
	t.Helper()
	base = t.TempDir()
	dir = filepath.Join(base, "study")
	if err := ParseArchive([]byte(summaryStudy)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	papers = filepath.Join(dir, "papers.csv")
	original, err := os.ReadFile(papers)
	if err != nil {
		t.Fatal(err)
	}
	return base, dir, papers, original
}

// TestCacheEvictsLeastRecentlyUsed: the disk cache grew without bound.
// Under a bound that holds two entries, the third input set's entry
// pushes out the least recently used one — not the oldest written, as a
// hit moves an entry to the back of the queue.
func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	base, dir, papers, original := summaryPapers(t)
	content := map[string][]byte{
		"A": original,
		"B": bytes.Replace(original, []byte("p1,5,0.03"), []byte("p1,5,0.05"), 1),
		"C": bytes.Replace(original, []byte("p1,5,0.03"), []byte("p1,5,0.07"), 1),
	}
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", Out: filepath.Join(base, "site"), cacheNow: fakeClock()}
	build := func(cacheDir, which string) int {
		t.Helper()
		if err := os.WriteFile(papers, content[which], 0o644); err != nil {
			t.Fatal(err)
		}
		o := o
		o.CacheDir = cacheDir
		sum, err := Build(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return sum.Cached
	}
	// The size of each input set's entries (the analysis's and the
	// rendered site's), in a cache of its own.
	size := map[string]int64{}
	for _, which := range []string{"A", "B", "C"} {
		scratch := filepath.Join(base, "scratch-"+which)
		build(scratch, which)
		e, s := cacheEntries(t, scratch, "m"), cacheEntries(t, scratch, siteID)
		if len(e) != 1 || len(s) != 1 {
			t.Fatalf("%s: entries %v, sites %v", which, e, s)
		}
		for _, p := range append(e, s...) {
			info, _ := os.Stat(p)
			size[which] += info.Size()
		}
	}
	o.CacheMaxBytes = size["A"] + max(size["B"], size["C"]) // two fit, not three
	cacheDir := filepath.Join(base, "cache")
	for _, step := range []struct {
		which  string
		cached int
	}{{"A", 0}, {"B", 0}, {"A", 1}, {"C", 0}} {
		if got := build(cacheDir, step.which); got != step.cached {
			t.Fatalf("building %s: %d from the cache, want %d", step.which, got, step.cached)
		}
	}
	if n := len(cacheEntries(t, cacheDir, "m")); n != 2 {
		t.Fatalf("%d entries under a bound that holds 2", n)
	}
	// B, written after A but used before A's hit, went; A and C stay.
	if build(cacheDir, "A") != 1 {
		t.Error("A, used most recently before C, was evicted")
	}
	if build(cacheDir, "C") != 1 {
		t.Error("C, just written, was evicted")
	}
	if build(cacheDir, "B") != 0 {
		t.Error("B, the least recently used, was kept over the bound")
	}
}

// TestCacheDamagedEntry: a cache entry whose bytes changed on disk (a
// digit of a table flipped, as a bad sector or a stray write would) was
// served as the analysis's output, and its wrong number reached the site.
// Every entry is now checked against its checksum: a damaged one — a
// changed byte, cut short, a head that does not parse — is a miss with a
// warning naming it, it is removed, and the site is the one a build
// without the cache writes.
func TestCacheDamagedEntry(t *testing.T) {
	t.Parallel()
	damages := map[string]func([]byte) []byte{
		"a digit of a table": func(b []byte) []byte {
			i := bytes.Index(b, []byte(`"nums":[`))
			for i >= 0 && i < len(b) {
				if c := b[i]; c >= '1' && c <= '8' {
					b[i]++
					return b
				}
				i++
			}
			return nil
		},
		"cut short":  func(b []byte) []byte { return b[:len(b)-7] },
		"its header": func(b []byte) []byte { return bytes.Replace(b, []byte("\n"), []byte(" x\n"), 2) },
	}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			dir := filepath.Join(base, "study")
			if err := ParseArchive([]byte(summaryStudy)).WriteDir(dir); err != nil {
				t.Fatal(err)
			}
			manifest := filepath.Join(dir, "study.toml")
			var warn bytes.Buffer
			o := Options{Manifest: manifest, Version: "test", CacheDir: filepath.Join(base, "cache"), Out: filepath.Join(base, "site"), Warn: &warn}
			_, want := buildSite(t, Options{Manifest: manifest, Version: "test", NoCache: true, Out: filepath.Join(base, "fresh")})
			buildSite(t, o)
			entries := cacheEntries(t, o.CacheDir, "m")
			if len(entries) != 1 {
				t.Fatalf("entries: %v", entries)
			}
			b, _ := os.ReadFile(entries[0])
			bad := damage(bytes.Clone(b))
			if bad == nil || bytes.Equal(bad, b) {
				t.Fatal("the damage changed nothing")
			}
			if err := os.WriteFile(entries[0], bad, 0o644); err != nil {
				t.Fatal(err)
			}
			warn.Reset()
			sum, got := buildSite(t, o)
			if sum.Cached != 0 {
				t.Errorf("a damaged entry was taken from the cache")
			}
			if name := sameSite(got, want); name != "" {
				t.Errorf("the site differs from a build without the cache in %s", name)
			}
			if w := warn.String(); !strings.Contains(w, "evalbook: warning: cache entry "+entries[0]+" is damaged") || !strings.Contains(w, `analysis "m" is computed again`) {
				t.Errorf("warning: %q", w)
			}
			// It was replaced by a whole entry: the next build takes it
			// without a warning.
			warn.Reset()
			if sum, _ := buildSite(t, o); sum.Cached != 1 || withoutAssetWarnings(warn.String()) != "" {
				t.Errorf("after the damaged entry: %d from the cache, warnings %q", sum.Cached, warn.String())
			}
		})
	}
}

// TestCacheConcurrentBuilds: builds of one study into one cache at once
// (two terminals, a script and serve) neither damage nor lose entries:
// each is written whole under a temporary name and renamed into place.
func TestCacheConcurrentBuilds(t *testing.T) {
	t.Parallel()
	skipUnderRace(t, "four whole builds at once; the builds of TestCacheNeverStale run concurrently under it")
	base := t.TempDir()
	study := filepath.Join(base, "study")
	everyKindStudy(t, study)
	manifest := filepath.Join(study, "study.toml")
	cacheDir := filepath.Join(base, "cache")
	var warn syncBuffer
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			o := Options{Manifest: manifest, Version: "test", CacheDir: cacheDir, Out: filepath.Join(base, "site", string(rune('a'+i))), Warn: &warn, Jobs: 1}
			_, errs[i] = Build(context.Background(), o)
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	_, want := buildSite(t, Options{Manifest: manifest, Version: "test", NoCache: true, Out: filepath.Join(base, "fresh")})
	sum, got := buildSite(t, Options{Manifest: manifest, Version: "test", CacheDir: cacheDir, Out: filepath.Join(base, "after"), Warn: &warn})
	if sum.Cached == 0 {
		t.Error("nothing from the cache after four builds filled it")
	}
	if name := sameSite(got, want); name != "" {
		t.Errorf("the site differs from a build without the cache in %s", name)
	}
	if w := withoutAssetWarnings(warn.String()); w != "" {
		t.Errorf("warnings: %s", w)
	}
	tmp, _ := filepath.Glob(filepath.Join(cacheDir, "v2", "*", ".tmp-*"))
	if len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestToolIDReadsNoBinary: every cached build hashed the whole evalbook
// binary (50 MB, 40 ms of a 200 ms build) to key its entries, which made
// a cached build that recomputes cost more than one without the cache.
// The binary is named by its Go build ID, read without reading the
// binary; one linked without it is hashed once and then known by its
// identity, as inputs are.
func TestToolIDReadsNoBinary(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	if input.GoBuildID(exe) == "" {
		t.Skip("the test binary has no Go build ID (not ELF)")
	}
	h := input.NewHashStore()
	id := input.ToolID(h)
	if id != "go-build-id:"+input.GoBuildID(exe) || h.Hashed() != 0 {
		t.Errorf("tool id %q after hashing %d files", id, h.Hashed())
	}
	if input.ToolID(input.NewHashStore()) != id {
		t.Error("the tool id is not stable")
	}
	if got := input.GoBuildID(filepath.Join("testdata", "nonexistent")); got != "" {
		t.Errorf("a missing file has build ID %q", got)
	}
	notELF := filepath.Join(t.TempDir(), "script")
	os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755)
	if got := input.GoBuildID(notELF); got != "" {
		t.Errorf("a shell script has build ID %q", got)
	}
}

// TestCacheRemovesOldLayout: the entries of the cache's first layout
// (<id>-<24 hex>.json beside the hash store) are never read any more, and
// would have stayed for good outside the bound; the first build that
// writes removes them — only files that begin as those entries did.
func TestCacheRemovesOldLayout(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "study")
	if err := ParseArchive([]byte(summaryStudy)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	cacheDir := filepath.Join(base, "cache")
	os.MkdirAll(cacheDir, 0o755)
	old := filepath.Join(cacheDir, "m-0123456789abcdef01234567.json")
	other := filepath.Join(cacheDir, "notes-0123456789abcdef01234567.json")
	os.WriteFile(old, []byte(`{"tables":[],"notes":[]}`), 0o644)
	os.WriteFile(other, []byte(`{"mine":true}`), 0o644)
	buildSite(t, Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", CacheDir: cacheDir, Out: filepath.Join(base, "site")})
	if _, err := os.Stat(old); err == nil {
		t.Error("an entry of the old layout is still there")
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a file that is not an entry was removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cacheDir, "hashes.tsv")); err != nil {
		t.Errorf("hashes.tsv: %v", err)
	}
}

// withoutAssetWarnings drops the lines a binary built without the npm
// assets (go test -short in a fresh clone) warns on every build; the
// cache tests are about every other warning.
func withoutAssetWarnings(w string) string {
	var keep []string
	for _, line := range strings.SplitAfter(w, "\n") {
		if strings.Contains(line, "asset was not built into this binary") || strings.Contains(line, "WebAssembly module was not built into this binary") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "")
}
