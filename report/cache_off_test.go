package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestNoCacheLeavesTheCacheAlone: --no-cache with a cache directory at
// hand (the command line always names one) neither writes it nor reads
// it — a damaged entry there goes unnoticed — while the same build
// without the flag fills it, so the directory is the one the build
// would use.
func TestNoCacheLeavesTheCacheAlone(t *testing.T) {
	cache := t.TempDir()
	files := func() []string {
		var out []string
		filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				out = append(out, p)
			}
			return nil
		})
		return out
	}
	var warn bytes.Buffer
	noCache := func(o *Options) { o.CacheDir, o.NoCache, o.Warn = cache, true, &warn }
	mustBuild(t, studyFixture("tiny"), noCache)
	if got := files(); len(got) != 0 {
		t.Fatalf("--no-cache wrote the cache: %v", got)
	}
	mustBuild(t, studyFixture("tiny"), func(o *Options) { o.CacheDir = cache })
	entries := files()
	if len(entries) == 0 {
		t.Fatal("a build with the cache wrote nothing to it: the test proves nothing")
	}
	for _, p := range entries {
		if err := os.WriteFile(p, []byte("damaged"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustBuild(t, studyFixture("tiny"), noCache)
	if w := withoutAssetWarnings(warn.String()); w != "" {
		t.Errorf("--no-cache read the cache: %s", w)
	}
}
