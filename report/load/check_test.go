package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenTimeCheckResolvesAnew: the files a pattern matched are checked
// together with their directories resolved once, and each is checked
// again, resolved anew, when it is opened: a directory of the study
// turned into a link out of it after the match is refused at the open.
func TestOpenTimeCheckResolvesAnew(t *testing.T) {
	root := t.TempDir()
	study, outside := filepath.Join(root, "study"), filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(study, "runs"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{filepath.Join(study, "runs"), outside} {
		if err := os.WriteFile(filepath.Join(d, "a.csv"), []byte("unit,v\n1,2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := NewInputs(&Config{File: filepath.Join(study, "study.toml"), Dir: study, Bounds: map[string]Bound{}})
	files, err := in.Match("runs/*.csv")
	if err != nil || len(files) != 1 {
		t.Fatalf("Match: %v, %v", files, err)
	}
	if err := in.CheckFile(files[0].Path); err != nil {
		t.Fatalf("before the swap: %v", err)
	}
	if err := os.Rename(filepath.Join(study, "runs"), filepath.Join(root, "runs-moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(study, "runs")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := in.CheckFile(files[0].Path); err == nil || !strings.Contains(err.Error(), "outside the study directory") {
		t.Errorf("runs/ turned into a link out of the study after the match: the check at the open says %v", err)
	}
}
