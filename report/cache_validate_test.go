package report

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateReadsCacheWritesNothing: validate takes from the build's
// cache every analysis whose inputs have not changed (so it does not
// compute them again), and writes nothing there: no entry, no touch of
// an entry's time, no saved hashes; a damaged entry is reported and left
// in place for the next build to replace.
func TestValidateReadsCacheWritesNothing(t *testing.T) {
	t.Parallel()
	dir, cache := t.TempDir(), t.TempDir()
	everyKindStudy(t, dir)
	manifest := filepath.Join(dir, "study.toml")
	if _, err := Build(context.Background(), Options{Manifest: manifest, Version: "test", CacheDir: cache, Out: filepath.Join(t.TempDir(), "site")}); err != nil {
		t.Fatal(err)
	}
	validate := func() (cached, cacheable int, warn string) {
		t.Helper()
		var w bytes.Buffer
		o := Options{Manifest: manifest, Version: "test", CacheDir: cache, Warn: &w}
		if err := o.normalise(); err != nil {
			t.Fatal(err)
		}
		o.validate = true
		b, err := run(context.Background(), &o)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range b.runs {
			if !r.Spec.Kind.Feeds {
				cacheable++
				if r.cached {
					cached++
				}
			}
		}
		return cached, cacheable, w.String()
	}
	before := cacheSnapshot(t, cache)
	if cached, cacheable, _ := validate(); cacheable == 0 || cached != cacheable {
		t.Errorf("validate took %d of %d analyses from the cache; want all", cached, cacheable)
	}
	if after := cacheSnapshot(t, cache); after != before {
		t.Errorf("validate changed the cache:\nbefore %s\nafter  %s", before, after)
	}
	// a damaged entry of an analysis (validate reads no rendered site):
	// reported, computed again, left in place
	var entry string
	filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err == nil && entry == "" && strings.HasSuffix(p, ".entry") && !strings.Contains(p, siteID+"-") {
			entry = p
		}
		return nil
	})
	if entry == "" {
		t.Fatal("no cache entry")
	}
	if err := os.WriteFile(entry, []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	before = cacheSnapshot(t, cache)
	cached, cacheable, warn := validate()
	if cached != cacheable-1 || !strings.Contains(warn, "is damaged") {
		t.Errorf("with one damaged entry: %d of %d from the cache, warnings %q", cached, cacheable, warn)
	}
	if after := cacheSnapshot(t, cache); after != before {
		t.Errorf("validate changed the cache after a damaged entry:\nbefore %s\nafter  %s", before, after)
	}
}

// cacheSnapshot lists every file of dir with its size, time and sum.
func cacheSnapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel + " " + info.ModTime().String() + " " + string(sha256.New().Sum(data))[:0])
		sum := sha256.Sum256(data)
		b.Write(sum[:4])
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
