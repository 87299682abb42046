package report

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/cachefmt"
	"github.com/evalbook/evalbook/themes"
)

// siteEntries lists the rendered sites the disk cache in cacheDir keeps.
func siteEntries(t testing.TB, cacheDir string) []string {
	t.Helper()
	return cacheEntries(t, cacheDir, siteID)
}

// readSiteEntry decodes a rendered site's entry.
func readSiteEntry(t testing.TB, p string) (map[string][]byte, []byte) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	files, warned, err := cachefmt.ReadSite(b, themes.Libraries())
	if err != nil {
		t.Fatal(err)
	}
	return files, warned
}

// TestSiteCacheEditAndUndo: a build whose analyses all came from the
// cache still rendered the whole site again (a third of a warm build of
// Sertkan et al.'s study, most of the demo's). The rendered site is now
// kept in the disk cache by what it was made of: after an edit is
// undone, or when nothing changed, the build writes the site it rendered
// for those inputs before, byte for byte the site a build without the
// cache writes; an edit renders anew. The entry is what the build
// writes: one planted in it (a changed file, a warning) reaches the site
// and the user, which shows the build took it rather than rendering.
func TestSiteCacheEditAndUndo(t *testing.T) {
	t.Parallel()
	base, dir, papers, original := summaryPapers(t)
	edited := bytes.Replace(original, []byte("p1,5,0.03"), []byte("p1,5,0.05"), 1)
	cacheDir := filepath.Join(base, "cache")
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", Out: filepath.Join(base, "site"), CacheDir: cacheDir}
	fresh := map[string]map[string]string{}
	for name, body := range map[string][]byte{"original": original, "edited": edited} {
		if err := os.WriteFile(papers, body, 0o644); err != nil {
			t.Fatal(err)
		}
		no := o
		no.NoCache, no.CacheDir, no.Out = true, "", filepath.Join(base, "fresh-"+name)
		_, fresh[name] = buildSite(t, no)
	}
	step := func(name string, body []byte, wantSites int) {
		t.Helper()
		if err := os.WriteFile(papers, body, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, site := buildSite(t, o); sameSite(site, fresh[name]) != "" {
			t.Fatalf("%s: %s differs from the site built without the cache", name, sameSite(site, fresh[name]))
		}
		if n := len(siteEntries(t, cacheDir)); n != wantSites {
			t.Fatalf("%s: the cache keeps %d rendered sites, want %d", name, n, wantSites)
		}
	}
	step("original", original, 1)
	// the chart library the binary embeds is named in the entry, not held
	if lib := themes.Libraries()["echarts"]; len(lib) > 0 {
		raw, err := os.ReadFile(siteEntries(t, cacheDir)[0])
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, lib[:4096]) {
			t.Error("the rendered site's entry holds the chart library")
		}
		if files, _ := readSiteEntry(t, siteEntries(t, cacheDir)[0]); !bytes.Equal(files["assets/echarts.min.js"], lib) {
			t.Error("the chart library does not come back from the entry")
		}
	}
	step("edited", edited, 2)
	step("original", original, 2) // the undo: no new site
	step("original", original, 2) // nothing changed

	// Plant a changed file and a warning in the original's entry: the
	// next build of the original writes and prints them.
	var entry string
	for _, p := range siteEntries(t, cacheDir) {
		if files, _ := readSiteEntry(t, p); string(files["data/provenance.json"]) == fresh["original"]["data/provenance.json"] {
			entry = p
		}
	}
	if entry == "" {
		t.Fatal("no rendered site of the original in the cache")
	}
	files, _ := readSiteEntry(t, entry)
	files["index.html"] = []byte("planted")
	var planted bytes.Buffer
	if _, err := cachefmt.WriteEntry(&planted, []byte(cachefmt.SiteStamp), cachefmt.EncodeSite(files, []byte("evalbook: warning: planted\n"), themes.Libraries())); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entry, planted.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	ow := o
	ow.Warn = &warn
	if _, site := buildSite(t, ow); site["index.html"] != "planted" || !strings.Contains(warn.String(), "evalbook: warning: planted") {
		t.Fatalf("the build did not take the rendered site from the cache: index.html %.40q, warnings %q", site["index.html"], warn.String())
	}

	// A damaged entry (a byte changed): reported, removed, the site
	// rendered again as a build without the cache renders it.
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-100] ^= 1
	if err := os.WriteFile(entry, b, 0o644); err != nil {
		t.Fatal(err)
	}
	warn.Reset()
	if _, site := buildSite(t, ow); sameSite(site, fresh["original"]) != "" || !strings.Contains(warn.String(), "is damaged") || !strings.Contains(warn.String(), "the site is rendered again") {
		t.Fatalf("a damaged rendered site: %s differs from the site built without the cache; warnings %q", sameSite(site, fresh["original"]), warn.String())
	}
	if files, _ := readSiteEntry(t, entry); string(files["index.html"]) != fresh["original"]["index.html"] {
		t.Error("the damaged entry was not replaced by the site rendered again")
	}
}

// TestSiteCacheKeepsOptionsApart: the options that shape the output —
// Markdown, one file, the paper — are part of a rendered site's key:
// builds that alternate between them into one output, with one cache,
// each write the site a build without the cache writes with those
// options, the second time round from the cache.
func TestSiteCacheKeepsOptionsApart(t *testing.T) {
	t.Parallel()
	base, dir, _, _ := summaryPapers(t)
	cacheDir := filepath.Join(base, "cache")
	variants := map[string]func(*Options){
		"html":        func(*Options) {},
		"md":          func(o *Options) { o.Format = "md" },
		"single-file": func(o *Options) { o.SingleFile = true },
		"paper":       func(o *Options) { o.Format = "paper" },
	}
	order := []string{"html", "md", "single-file", "paper"}
	fresh := map[string]map[string]string{}
	for _, name := range order {
		o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", Out: filepath.Join(base, "fresh-"+name), NoCache: true}
		variants[name](&o)
		_, fresh[name] = buildSite(t, o)
	}
	for round := 0; round < 2; round++ {
		for _, name := range order {
			o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", Out: filepath.Join(base, "site"), CacheDir: cacheDir}
			variants[name](&o)
			if _, site := buildSite(t, o); sameSite(site, fresh[name]) != "" {
				t.Fatalf("round %d, %s: %s differs from the site built without the cache", round+1, name, sameSite(site, fresh[name]))
			}
		}
		if n := len(siteEntries(t, cacheDir)); n != len(order) {
			t.Fatalf("round %d: %d rendered sites kept, want one per variant (%d)", round+1, n, len(order))
		}
	}
}

// TestSiteCacheDecodesNoEntry: a build whose rendered site comes from
// the cache never decodes the analyses' entries (most of what a warm
// build of the demo spent). Planted: an entry whose checksum holds but
// whose output does not parse. With the site in the cache the build
// succeeds without reading it; without, the build fails naming the
// analysis, removes the entry, and the next build computes the analysis
// again, as a build without the cache does.
func TestSiteCacheDecodesNoEntry(t *testing.T) {
	t.Parallel()
	base, dir, _, _ := summaryPapers(t)
	cacheDir := filepath.Join(base, "cache")
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", Out: filepath.Join(base, "site"), CacheDir: cacheDir}
	_, want := buildSite(t, o)
	entries := cacheEntries(t, cacheDir, "m")
	if len(entries) != 1 {
		t.Fatalf("entries of m: %v", entries)
	}
	raw, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	h, err := cachefmt.ReadHead(bufio.NewReader(bytes.NewReader(raw)), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	var planted bytes.Buffer
	if _, err := cachefmt.WriteEntry(&planted, h.Stamp, []byte(`{"tables": 1}`)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entries[0], planted.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, site := buildSite(t, o); sameSite(site, want) != "" {
		t.Fatalf("with the site in the cache: %s differs", sameSite(site, want))
	}
	for _, p := range siteEntries(t, cacheDir) {
		os.Remove(p)
	}
	_, err = Build(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), `analysis "m": its cache entry (removed: build again)`) || !strings.Contains(err.Error(), "does not parse") {
		t.Fatalf("without the site in the cache: %v, want the entry's error", err)
	}
	if _, err := os.Stat(entries[0]); err == nil {
		t.Error("the entry that does not parse was left in the cache")
	}
	if _, site := buildSite(t, o); sameSite(site, want) != "" {
		t.Fatalf("the build after: %s differs", sameSite(site, want))
	}
}

// TestSiteCacheKeepsFewSites: a rendered site is as big as the site (the
// demo's, 12 MB), so a study and output keep their maxSitesPerStudy most
// recently used ones, not maxEntriesPerKey: the store's bound is left to
// the analyses' outputs, which let older states skip their computing.
func TestSiteCacheKeepsFewSites(t *testing.T) {
	t.Parallel()
	base, dir, papers, original := summaryPapers(t)
	cacheDir := filepath.Join(base, "cache")
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", Out: filepath.Join(base, "site"), CacheDir: cacheDir, cacheNow: fakeClock()}
	for n := 0; n < maxSitesPerStudy+3; n++ {
		body := bytes.Replace(original, []byte("p1,5,0.03"), fmt.Appendf(nil, "p1,5,0.03%03d", n), 1)
		if err := os.WriteFile(papers, body, 0o644); err != nil {
			t.Fatal(err)
		}
		buildSite(t, o)
		if got := len(siteEntries(t, cacheDir)); got != min(n+1, maxSitesPerStudy) {
			t.Fatalf("after %d builds: %d rendered sites kept, want %d", n+1, got, min(n+1, maxSitesPerStudy))
		}
	}
	if got, want := len(cacheEntries(t, cacheDir, "m")), maxSitesPerStudy+3; got != want {
		t.Errorf("%d outputs of the analysis kept, want %d (its own bound)", got, want)
	}
}
