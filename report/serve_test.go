package report

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestInitBuilds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := Init(dir); err != nil {
		t.Fatal(err)
	}
	sum, err := Build(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test"})
	if err != nil {
		t.Fatalf("the scaffolded study does not build: %v", err)
	}
	if sum.Analyses != 2 || sum.Pages != 1 {
		t.Errorf("summary %+v", sum)
	}
	page := readFile(t, sum.Out, "findings.html")
	if !strings.Contains(page, `<span class="value"`) || !strings.Contains(page, `Figure 1</a>`) {
		t.Error("the scaffold's page does not cite its results")
	}
	if err := Init(dir); err == nil || !strings.Contains(err.Error(), "already has study.toml, pages/findings.md, data/results.csv") {
		t.Errorf("init over a study: %v", err)
	}
}

func TestCacheReusesUnchangedAnalyses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := ParseArchive([]byte(smallStudy)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	cache := NewCache()
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", Cache: cache, Format: "both"}
	if _, err := Build(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	first := snapshot(t, filepath.Join(dir, "site"))
	if _, err := Build(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if cache.Hits() != 2 {
		t.Fatalf("second build: %d cache hits, want 2", cache.Hits())
	}
	second := snapshot(t, filepath.Join(dir, "site"))
	for name, body := range first {
		if second[name] != body {
			t.Errorf("%s differs between a computed and a cached build", name)
		}
	}
	// Prose edits re-render without recomputing.
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# Notes\n\nEdited.\n"), 0o644)
	sum, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// The count a build reports is this build's, not the cache's total
	// (serve printed "4 analyses from cache" for a study of two).
	if sum.Cached != 2 || sum.Analyses != 2 {
		t.Errorf("third build: Summary says %d of %d analyses from cache, want 2 of 2", sum.Cached, sum.Analyses)
	}
	if cache.Hits() != 4 || !strings.Contains(readFile(t, filepath.Join(dir, "site"), "notes.html"), "Edited.") {
		t.Fatalf("after a page edit: %d hits", cache.Hits())
	}
	// A changed input recomputes.
	res := filepath.Join(dir, "results.csv")
	src, _ := os.ReadFile(res)
	os.WriteFile(res, []byte(strings.Replace(string(src), "d1,A,ndcg,0.30", "d1,A,ndcg,0.95", 1)), 0o644)
	future := time.Now().Add(2 * time.Second)
	os.Chtimes(res, future, future)
	sum, err = Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Cached != 0 {
		t.Errorf("after an input edit: Summary says %d analyses from cache, want 0", sum.Cached)
	}
	if cache.Hits() != 4 {
		t.Fatalf("after an input edit: %d hits, want still 4", cache.Hits())
	}
	if !strings.Contains(readFile(t, filepath.Join(dir, "site"), "data/lb.csv"), "0.95") && !strings.Contains(readFile(t, filepath.Join(dir, "site"), "data/lb.json"), "0.95") {
		// the mean of A changes: check the JSON holds a new score
		if readFile(t, filepath.Join(dir, "site"), "data/lb.json") == first["data/lb.json"] {
			t.Fatal("results did not change after the input changed")
		}
	}
}

func startServer(t testing.TB) (dir, addr string, srv *Server) {
	t.Helper()
	dir = t.TempDir()
	if err := Init(dir); err != nil {
		t.Fatal(err)
	}
	srv = NewServer(Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test"}, io.Discard)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ready := make(chan string, 1)
	go srv.Serve(ctx, "127.0.0.1:0", ready)
	select {
	case addr = <-ready:
	case <-time.After(60 * time.Second): // a hang, not a speed test
		t.Fatal("server did not start within 60 s")
	}
	return dir, addr, srv
}

func get(t testing.TB, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeLiveRebuild: an edited page is served, with the live-reload
// script, and the analyses come from the cache. How soon is measured by
// BenchmarkServeRebuild (make bench); here a minute only stops a hang.
func TestServeLiveRebuild(t *testing.T) {
	t.Parallel()
	dir, addr, srv := startServer(t)
	code, body := get(t, "http://"+addr+"/findings.html")
	if code != 200 || !strings.Contains(body, "Findings") || !strings.Contains(body, "/__evalbook/events") {
		t.Fatalf("GET findings.html: %d", code)
	}
	if built := readFile(t, filepath.Join(dir, "site"), "findings.html"); strings.Contains(built, "__evalbook") {
		t.Fatal("the live-reload script leaked into the built site")
	}
	page := filepath.Join(dir, "pages", "findings.md")
	src, _ := os.ReadFile(page)
	os.WriteFile(page, append(src, []byte("\nA freshly written sentence.\n")...), 0o644)
	start := time.Now()
	for {
		_, body := get(t, "http://"+addr+"/findings.html")
		if strings.Contains(body, "A freshly written sentence.") {
			break
		}
		if time.Since(start) > 60*time.Second {
			t.Fatalf("the edit was not served within 60 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("edit served after %v", time.Since(start))
	if srv.cache.Hits() < 2 {
		t.Errorf("a prose edit recomputed the analyses (%d cache hits)", srv.cache.Hits())
	}
	// The event stream announces builds.
	resp, err := http.Get("http://" + addr + "/__evalbook/events")
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	resp.Body.Close()
	if !strings.HasPrefix(line, "data: ") {
		t.Errorf("event stream sent %q", line)
	}
}

// TestServeRefusesOutsideRoot: requests that would leave the site
// directory are refused.
func TestServeRefusesOutsideRoot(t *testing.T) {
	t.Parallel()
	dir, addr, _ := startServer(t)
	raw := func(path string) string {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, addr)
		status, _ := bufio.NewReader(conn).ReadString('\n')
		return status
	}
	for _, p := range []string{"/../study.toml", "/%2e%2e/study.toml", "/..%2fstudy.toml", "/data/../../study.toml"} {
		if s := raw(p); strings.Contains(s, "200") {
			t.Errorf("GET %s: %s", p, strings.TrimSpace(s))
		}
	}
	// A symbolic link inside the site that points out of it.
	os.Symlink(filepath.Join(dir, "study.toml"), filepath.Join(dir, "site", "escape.txt"))
	if code, _ := get(t, "http://"+addr+"/escape.txt"); code != http.StatusForbidden {
		t.Errorf("symlink out of the site: %d, want 403", code)
	}
	if code, _ := get(t, "http://"+addr+"/"); code != 200 {
		t.Errorf("GET /: %d", code)
	}
}

// TestDiskCache: a second build takes unchanged analyses from the disk
// cache (counted), gives the same bytes, and recomputes when an input
// changes or with NoCache.
func TestDiskCache(t *testing.T) {
	t.Parallel()
	dir, cacheDir := t.TempDir(), t.TempDir()
	if err := ParseArchive([]byte(smallStudy)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", Format: "both", CacheDir: cacheDir}
	build := func(o Options) *Summary {
		t.Helper()
		sum, err := Build(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	if sum := build(o); sum.Cached != 0 {
		t.Fatalf("a first build took %d analyses from an empty cache", sum.Cached)
	}
	computed := snapshot(t, filepath.Join(dir, "site"))
	if entries := cacheEntries(t, cacheDir, "lb"); len(entries) != 1 {
		t.Fatalf("cache entries for lb: %v", entries)
	}
	if sum := build(o); sum.Cached != sum.Analyses {
		t.Fatalf("an unchanged study: %d of %d analyses from the cache", sum.Cached, sum.Analyses)
	}
	cached := snapshot(t, filepath.Join(dir, "site"))
	for name, body := range computed {
		if cached[name] != body {
			t.Errorf("%s differs between a computed and a cached build", name)
		}
	}
	noCache := o
	noCache.NoCache = true
	if sum := build(noCache); sum.Cached != 0 {
		t.Fatalf("NoCache took %d analyses from the cache", sum.Cached)
	}
	// A changed input invalidates the entry; a touched one does not
	// (validity is by content).
	res := filepath.Join(dir, "results.csv")
	future := time.Now().Add(3 * time.Second)
	os.Chtimes(res, future, future)
	if sum := build(o); sum.Cached != sum.Analyses {
		t.Fatalf("touching an input without changing it: %d of %d analyses from the cache", sum.Cached, sum.Analyses)
	}
	body, _ := os.ReadFile(res)
	os.WriteFile(res, []byte(strings.Replace(string(body), "d4,C,ndcg,0\n", "d4,C,ndcg,1\n", 1)), 0o644)
	if sum := build(o); sum.Cached != 0 {
		t.Fatalf("a changed input: %d analyses from the cache", sum.Cached)
	}
	// A changed metric direction in the manifest does too.
	manifest := filepath.Join(dir, "study.toml")
	src, _ := os.ReadFile(manifest)
	os.WriteFile(manifest, []byte(strings.Replace(string(src), `better = "lower"`, `better = "higher"`, 1)), 0o644)
	Build(context.Background(), o)
	if readFile(t, filepath.Join(dir, "site"), "data/lb-rmse.json") == computed["data/lb-rmse.json"] {
		t.Fatal("a changed metric direction reused the old rmse leaderboard")
	}
}
