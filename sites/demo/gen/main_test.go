package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateRefuses: the generator empties DIR/data and rewrites
// DIR/study.toml, so it refuses a directory holding a study it did not
// write (a user's data/mine.csv was deleted) or other files, and
// fragments that do not exist (it wrote a study with no analyses).
func TestGenerateRefuses(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mine := filepath.Join(root, "mine")
	os.MkdirAll(filepath.Join(mine, "data"), 0o755)
	os.WriteFile(filepath.Join(mine, "study.toml"), []byte("title = \"mine\"\n"), 0o644)
	os.WriteFile(filepath.Join(mine, "data", "mine.csv"), []byte("keep\n"), 0o644)
	other := filepath.Join(root, "other")
	os.MkdirAll(filepath.Join(other, "data"), 0o755)
	os.WriteFile(filepath.Join(other, "data", "notes.txt"), []byte("keep\n"), 0o644)
	frags, _ := filepath.Abs("../manifest.d")
	for _, c := range []struct{ dir, frags, want string }{
		{mine, frags, "holds a study.toml the generator did not write"},
		{other, frags, "holds files of its own and no generated study.toml"},
		{filepath.Join(root, "new"), filepath.Join(root, "new", "manifest.d"), "no manifest fragments at"},
	} {
		if err := generate(c.dir, c.frags); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.dir, err, c.want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(mine, "data", "mine.csv")); err != nil || string(b) != "keep\n" {
		t.Errorf("the user's data/mine.csv: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(root, "new")); err == nil {
		t.Error("a refused generation made its directory")
	}
	if b, err := os.ReadFile(filepath.Join(other, "data", "notes.txt")); err != nil || string(b) != "keep\n" {
		t.Errorf("the user's data/notes.txt: %q %v", b, err)
	}
	// The generator's own directory in a fresh clone: gen/ and
	// manifest.d/, no study.toml yet (make demo).
	own := filepath.Join(root, "demo")
	os.MkdirAll(filepath.Join(own, "gen"), 0o755)
	os.MkdirAll(filepath.Join(own, "manifest.d"), 0o755)
	if err := checkTarget(own, frags); err != nil {
		t.Errorf("the demo directory of a fresh clone: %v", err)
	}
}
