package archive

import (
	"archive/zip"
	"bytes"
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

// writeZip writes a zip holding the given entries (name, body), in order.
func writeZip(t *testing.T, path string, entries ...[2]string) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.Create(e[0])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// otherCrate is the RO-Crate metadata of a crate another tool made.
const otherCrate = `{"@context": "https://w3id.org/ro/crate/1.1/context", "@graph": [
 {"@id": "ro-crate-metadata.json", "@type": "CreativeWork", "about": {"@id": "./"}},
 {"@id": "./", "@type": "Dataset", "name": "My thesis", "hasPart": [{"@id": "thesis.tex"}]},
 {"@id": "thesis.tex", "@type": "File"}]}`

// TestPackReplacesOnlyItsOwnArchive: pack -o replaced any zip holding a
// file named ro-crate-metadata.json, so an RO-Crate another tool made
// (with the user's thesis.tex) was lost, exit 0. Pack now replaces only
// a zip whose crate names evalbook as its software and whose every entry
// is one pack writes; anything else is refused with its reason, byte for
// byte as it was.
func TestPackReplacesOnlyItsOwnArchive(t *testing.T) {
	manifest := smallStudy(t)
	dir := t.TempDir()
	own := filepath.Join(dir, "own.zip")
	pack(t, manifest, own, false)
	names, data := zipEntries(t, own)
	// ownPlus is pack's own archive with one more entry.
	ownPlus := func(name string) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			var entries [][2]string
			for _, n := range names {
				entries = append(entries, [2]string{n, string(data[n])})
			}
			writeZip(t, path, append(entries, [2]string{name, "my thesis\n"})...)
		}
	}
	for _, c := range []struct {
		name string
		make func(t *testing.T, path string)
		want string
	}{
		{"an RO-Crate another tool made", func(t *testing.T, path string) {
			writeZip(t, path, [2]string{"ro-crate-metadata.json", otherCrate}, [2]string{"thesis.tex", "my thesis\n"})
		}, "does not name evalbook as the software that made it"},
		{"a zip with an empty ro-crate-metadata.json", func(t *testing.T, path string) {
			writeZip(t, path, [2]string{"ro-crate-metadata.json", ""}, [2]string{"thesis.tex", "my thesis\n"})
		}, "does not name evalbook"},
		{"a zip without metadata", func(t *testing.T, path string) {
			writeZip(t, path, [2]string{"thesis.tex", "my thesis\n"})
		}, "it has no ro-crate-metadata.json"},
		{"pack's archive with thesis.tex added", ownPlus("thesis.tex"), "it holds thesis.tex, which its ro-crate-metadata.json does not list"},
		{"pack's archive with study/thesis.tex added", ownPlus("study/thesis.tex"), "it holds study/thesis.tex, which its ro-crate-metadata.json does not list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "x.zip")
			c.make(t, out)
			before, _ := os.ReadFile(out)
			_, err := Pack(context.Background(), PackOptions{Build: buildOpts(manifest), Out: out})
			if err == nil || !strings.Contains(err.Error(), "exists and is not an archive evalbook packed") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("pack -o %s: %v, want a refusal with %q", c.name, err, c.want)
			}
			if after, _ := os.ReadFile(out); !bytes.Equal(before, after) {
				t.Errorf("the zip was replaced")
			}
		})
	}
	// Its own archive, packed again: replaced.
	if _, err := Pack(context.Background(), PackOptions{Build: buildOpts(manifest), Out: own}); err != nil {
		t.Errorf("pack onto its own archive: %v", err)
	}
}
