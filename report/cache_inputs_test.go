package report

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// summaryStudy is a meta-analysis of published numbers: its one input is
// an analysis's own file (summary), not an [inputs] entry.
var summaryStudy = studyFixture("summary")

// TestServeWatchesAMissingFile: serve stopped watching an analysis's own
// file (a summary) after a build in which it was missing, and served the
// old numbers for good when it came back (a git checkout round trip).
// The build now records every path it tried to open.
func TestServeWatchesAMissingFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := ParseArchive([]byte(summaryStudy)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	srv := NewServer(Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test"}, nilWriter{})
	if err := srv.Build(); err != nil {
		t.Fatal(err)
	}
	papers := filepath.Join(dir, "papers.csv")
	kept, _ := os.ReadFile(papers)
	os.Remove(papers)
	if err := srv.Build(); err == nil || !strings.Contains(err.Error(), "papers.csv") {
		t.Fatalf("a build without its summary: %v", err)
	}
	if !slices.Contains(srv.watchList(), papers) {
		t.Fatalf("the missing summary is not watched: %v", srv.watchList())
	}
	os.WriteFile(papers, []byte(strings.Replace(string(kept), "p1,5,0.03", "p1,5,0.09", 1)), 0o644)
	if !srv.changed() {
		t.Fatal("the summary came back, and serve saw no change")
	}
	if err := srv.Build(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "site"), "data/m.csv"); !strings.Contains(got, "p1,5,0.09") {
		t.Errorf("the rebuilt site does not hold the new numbers:\n%s", got)
	}
}

type nilWriter struct{}

func (nilWriter) Write(p []byte) (int, error) { return len(p), nil }

// TestCachedBuildFIFO: a named pipe where a cached analysis's file was
// hung the cache's check for ever (the hash opened it); it is now the
// reader's error, as without the cache.
func TestCachedBuildFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := ParseArchive([]byte(summaryStudy)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", CacheDir: filepath.Join(dir, "cache")}
	if _, err := Build(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	papers := filepath.Join(dir, "papers.csv")
	os.Remove(papers)
	if err := syscall.Mkfifo(papers, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Build(context.Background(), o); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("a cached build over a FIFO: %v", err)
		}
	case <-time.After(60 * time.Second): // a hang, not a speed test
		// unblock the hung open so the test binary can end
		if f, err := os.OpenFile(papers, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("a cached build over a FIFO hung")
	}
}

// TestCacheKeyReadRules: --allow-outside and --max-decompressed are
// checked as files are read, so an output cached under them was served
// to a build without them (exit 0 where --no-cache and validate refuse).
func TestCacheKeyReadRules(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "study")
	if err := ParseArchive([]byte(strings.Replace(summaryStudy, `summary = "papers.csv"`, `summary = "../papers.csv"`, 1))).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	os.Rename(filepath.Join(dir, "papers.csv"), filepath.Join(root, "papers.csv"))
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", CacheDir: filepath.Join(root, "cache"), AllowOutside: true}
	if _, err := Build(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	o.AllowOutside = false
	_, err := Build(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "outside the study directory") {
		t.Errorf("a cached build without --allow-outside: %v", err)
	}
	if readRulesKey(Options{MaxDecompressed: 1024}) == readRulesKey(Options{}) {
		t.Error("--max-decompressed is not in the cache key")
	}
}
