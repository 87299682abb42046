package archive

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackKeepsOtherFiles: pack -o onto an existing file replaced it with
// the zip (a manuscript, another study's manifest), and onto a symbolic
// link replaced the link. Pack now replaces only an archive evalbook
// packed, and leaves everything else byte for byte.
func TestPackKeepsOtherFiles(t *testing.T) {
	manifest := smallStudy(t)
	other := t.TempDir()
	thesis := filepath.Join(other, "thesis.tex")
	os.WriteFile(thesis, []byte("my thesis\n"), 0o644)
	notZip := filepath.Join(other, "old.zip")
	os.WriteFile(notZip, []byte("PK but not a zip\n"), 0o644)
	link := filepath.Join(other, "link.zip")
	os.Symlink(thesis, link)
	for _, c := range []struct{ out, want string }{
		{thesis, "exists and is not an archive evalbook packed"},
		{notZip, "exists and is not an archive evalbook packed"},
		{link, "is a symbolic link"},
	} {
		_, err := Pack(context.Background(), PackOptions{Build: buildOpts(manifest), Out: c.out})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("-o %s: %v, want %q", c.out, err, c.want)
		}
	}
	if b, _ := os.ReadFile(thesis); string(b) != "my thesis\n" {
		t.Errorf("the thesis now holds %q", b)
	}
	if b, _ := os.ReadFile(notZip); string(b) != "PK but not a zip\n" {
		t.Errorf("old.zip now holds %q", b)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st, err)
	}
	// A pack replaces its own earlier archive.
	out := filepath.Join(other, "study.zip")
	for i := 0; i < 2; i++ {
		if _, err := Pack(context.Background(), PackOptions{Build: buildOpts(manifest), Out: out}); err != nil {
			t.Fatalf("pack %d onto its own archive: %v", i+1, err)
		}
	}
}
