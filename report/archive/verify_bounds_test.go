package archive

import (
	"archive/zip"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalbook/evalbook/report"
)

// zeros is an io.Reader of n zero bytes.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > z.n {
		p = p[:z.n]
	}
	clear(p)
	z.n -= int64(len(p))
	return len(p), nil
}

// withBigEntry copies the zip src to dst with one more entry, name, of
// size zero bytes (deflated: a few hundred KiB), listed in the crate as
// a File of recorded bytes with its true sha256.
func withBigEntry(t *testing.T, src, dst, name string, size, recorded int64) {
	t.Helper()
	names, data := zipEntries(t, src)
	h := sha256.New()
	io.Copy(h, &zeros{size})
	var doc map[string]any
	if err := json.Unmarshal(data[MetadataName], &doc); err != nil {
		t.Fatal(err)
	}
	doc["@graph"] = append(doc["@graph"].([]any), map[string]any{"@id": name, "@type": "File",
		"sha256": hex.EncodeToString(h.Sum(nil)), "contentSize": strings.TrimSpace(jsonInt(recorded)), "name": filepath.Base(name)})
	crate, _ := json.Marshal(doc)
	data[MetadataName] = crate
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	// flate's fastest level: the entry is zeros, deflated to a thousandth
	// at any level, and the default level spent 4 of the package's 14
	// CPU-s on them
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	for _, n := range names {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Store})
		w.Write(data[n])
	}
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
	if _, err := io.Copy(w, &zeros{size}); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

// allocatedBy is the bytes the process allocated while f ran.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestVerifyStreamsEntries: verify read each entry whole into memory, so
// an archive entry of 1 GiB (1 MB deflated) listed with its true hash
// cost 2.1 GB. Each entry now streams through its hash, the crate's size
// the bound: what verify allocates does not grow with an entry's size
// (measured here on 128 MiB of zeros against the same archive without
// it), and an entry larger than the crate records is an error naming it.
// The entries are zeros, so the test's own work stays small.
func TestVerifyStreamsEntries(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are the full pass's, not the race detector's")
	}
	manifest := smallStudy(t)
	dir := t.TempDir()
	own := filepath.Join(dir, "own.zip")
	pack(t, manifest, own, false)
	const size = 128 << 20
	var baseErr error
	base := allocatedBy(func() { baseErr = verify(own, "") })
	if baseErr != nil {
		t.Fatalf("verify of the plain archive: %v", baseErr)
	}
	for _, c := range []struct {
		name     string
		recorded int64
		file     string
		msg      string
	}{
		{"site/big.bin", size, "site/big.bin", "the archive holds this file, the rebuild does not write it"},
		{"study/big.bin", size, "", ""}, // a study file the build does not read: checked, and verify passes
		{"site/big.bin", 1 << 20, "site/big.bin", "is 134217728 bytes in the zip, larger than the 1048576 bytes ro-crate-metadata.json records"},
	} {
		z := filepath.Join(t.TempDir(), "big.zip")
		withBigEntry(t, own, z, c.name, size, c.recorded)
		var err error
		got := allocatedBy(func() { err = verify(z, "") })
		t.Logf("%s (%d bytes recorded): verify allocated %d MiB, the plain archive %d MiB: %v", c.name, c.recorded, got>>20, base>>20, err)
		if c.file == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		} else if f := mismatchFile(t, err); f != c.file || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %s: …%s", c.name, err, c.file, c.msg)
		}
		if got > base+32<<20 {
			t.Errorf("%s: verify allocated %d MiB for a %d MiB entry (the plain archive: %d MiB): the entry was held in memory", c.name, got>>20, size>>20, base>>20)
		}
	}
}

// TestVerifyRefusesNonRegular: verify of a named pipe waited for a writer
// for ever, and so did an input given with --inputs that is one. Both
// are refused at once, naming the file.
func TestVerifyRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.zip")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Verify(context.Background(), VerifyOptions{Zip: fifo, Build: report.Options{Version: "test", Quiet: true}})
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute): // a guard against the hang, not a bound on time
		t.Fatal("verify of a FIFO did not return: it waits for a writer")
	}
	if err == nil || !strings.Contains(err.Error(), "x.zip: a named pipe, not a regular file; verify reads the zip file pack wrote") {
		t.Errorf("verify of a FIFO: %v", err)
	}
	for _, p := range []string{dir, "/proc/self/status"} {
		if _, err := Verify(context.Background(), VerifyOptions{Zip: p, Build: report.Options{Version: "test", Quiet: true}}); err == nil || !strings.Contains(err.Error(), "not a") {
			t.Errorf("verify of %s: %v", p, err)
		}
	}
}
