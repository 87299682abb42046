package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputAnotherStudy: -o pointing at the site of another study
// (another title or manifest name in its marker) is refused naming both
// studies, before anything is written; ReplaceOtherStudy (--force)
// replaces it. A retitled study rebuilds its own site inside its
// directory without it.
func TestOutputAnotherStudy(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a := writeTiny(t, filepath.Join(root, "a"))
	b := writeTiny(t, filepath.Join(root, "b"))
	retitle := func(manifest, title string) {
		src, _ := os.ReadFile(manifest)
		lines := strings.SplitN(string(src), "\n", 2)
		os.WriteFile(manifest, []byte("title = \""+title+"\"\n"+lines[1]), 0o644)
	}
	retitle(b, "Other study")
	pub := filepath.Join(root, "pub")
	if _, err := Build(context.Background(), Options{Manifest: a, Version: "test", Out: pub}); err != nil {
		t.Fatal(err)
	}
	want := tree(t, pub)
	_, err := Build(context.Background(), Options{Manifest: b, Version: "test", Out: pub})
	msg := "output " + pub + ": refusing to replace " + pub + `: it is the site of another study, "Tiny" (study.toml), and this build is of "Other study" (study.toml); choose another -o, or pass --force`
	if err == nil || !strings.Contains(err.Error(), msg) {
		t.Fatalf("error %v\nwant %s", err, msg)
	}
	sameTree(t, "the other study's site", want, tree(t, pub))

	// The same study (title and manifest) rebuilds into it.
	if _, err := Build(context.Background(), Options{Manifest: a, Version: "test", Out: pub}); err != nil {
		t.Fatalf("the same study: %v", err)
	}
	// With --force, B replaces it.
	if _, err := Build(context.Background(), Options{Manifest: b, Version: "test", Out: pub, ReplaceOtherStudy: true}); err != nil {
		t.Fatalf("--force: %v", err)
	}
	if title, _, _ := markerStudy(pub); title != "Other study" {
		t.Errorf("the marker names %q", title)
	}

	// A study retitled rebuilds its own site in its directory.
	if _, err := Build(context.Background(), Options{Manifest: a, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	retitle(a, "Tiny, retitled")
	if _, err := Build(context.Background(), Options{Manifest: a, Version: "test"}); err != nil {
		t.Fatalf("a retitled study into its own site: %v", err)
	}
	// A marker without a study (touched onto an old site) names none.
	old := filepath.Join(root, "old")
	os.MkdirAll(old, 0o755)
	os.WriteFile(filepath.Join(old, SiteMarker), nil, 0o644)
	if _, err := Build(context.Background(), Options{Manifest: a, Version: "test", Out: old}); err != nil {
		t.Fatalf("a touched marker: %v", err)
	}
}
