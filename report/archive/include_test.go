package archive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackInclude: --include adds the raw files and scripts that
// produced the inputs, a glob and a directory, each in the zip under
// study/ and in the crate with its sha256 (the oracle: crypto/sha256 of
// the file); verify checks them and a changed one is named. A pattern
// outside the study, one that matches nothing and a link out of the
// study are errors naming the pattern.
func TestPackInclude(t *testing.T) {
	t.Parallel()
	manifest := smallStudy(t)
	dir := filepath.Dir(manifest)
	files := map[string]string{
		"scripts/make_results.py": "print('results')\n",
		"scripts/notes.txt":       "not a script\n",
		"raw/run1/log.txt":        "epoch 1\n",
		"raw/run2/log.txt":        "epoch 2\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	out := filepath.Join(t.TempDir(), "study.zip")
	if _, err := Pack(context.Background(), PackOptions{Build: buildOpts(manifest), Out: out, Include: []string{"scripts/*.py", "raw/"}}); err != nil {
		t.Fatal(err)
	}
	_, data := zipEntries(t, out)
	crate := string(data[MetadataName])
	for _, name := range []string{"scripts/make_results.py", "raw/run1/log.txt", "raw/run2/log.txt"} {
		if got := string(data[StudyDir+name]); got != files[name] {
			t.Errorf("%s in the zip: %q", name, got)
		}
		h := sha256.Sum256([]byte(files[name]))
		if !strings.Contains(crate, hex.EncodeToString(h[:])) || !strings.Contains(crate, `"`+StudyDir+name+`"`) {
			t.Errorf("the crate does not list %s with its sha256", name)
		}
	}
	if _, ok := data[StudyDir+"scripts/notes.txt"]; ok {
		t.Error("scripts/notes.txt matched scripts/*.py")
	}
	if err := verify(out, ""); err != nil {
		t.Fatalf("verify: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.zip")
	rewriteZip(t, out, bad, StudyDir+"raw/run1/log.txt", flipByte)
	if err := verify(bad, ""); mismatchFile(t, err) != StudyDir+"raw/run1/log.txt" {
		t.Errorf("a changed included file: %v", err)
	}

	os.WriteFile(filepath.Join(filepath.Dir(dir), "secret.txt"), []byte("secret\n"), 0o644)
	os.Symlink(filepath.Join(filepath.Dir(dir), "secret.txt"), filepath.Join(dir, "scripts", "link.py"))
	for pattern, want := range map[string]string{
		"../secret.txt": "--include ../secret.txt: not a path inside the study directory",
		"/etc/passwd":   "--include /etc/passwd: not a path inside the study directory",
		"scripts/*.R":   "--include scripts/*.R: matches no file in the study directory",
		"scripts/link*": "--include scripts/link*: scripts/link.py: outside the study directory",
	} {
		_, err := Pack(context.Background(), PackOptions{Build: buildOpts(manifest), Out: filepath.Join(t.TempDir(), "x.zip"), Include: []string{pattern}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v\nwant %s", pattern, err, want)
		}
	}
}
