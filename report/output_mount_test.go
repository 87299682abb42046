package report

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestOutputMountPoint: -o on a mount point is refused before the build
// with a message that says what it is and what to do, not a bare
// "rename …: device or resource busy" after every analysis ran. The
// mount table is a file of the test here (not parallel: it sets
// mountTable); TestOutputRealMount mounts one where it may.
func TestOutputMountPoint(t *testing.T) {
	dir := t.TempDir()
	manifest := writeTiny(t, filepath.Join(dir, "study"))
	out := filepath.Join(dir, "pub lic") // a space: escaped in the table
	os.MkdirAll(out, 0o755)
	table := filepath.Join(dir, "mountinfo")
	os.WriteFile(table, []byte("21 26 0:20 / /proc rw - proc proc rw\n99 26 0:20 / "+strings.ReplaceAll(out, " ", `\040`)+" rw - tmpfs tmpfs rw\n"), 0o644)
	defer func(old string) { mountTable = old }(mountTable)
	mountTable = table
	_, err := Build(context.Background(), Options{Manifest: manifest, Version: "test", Out: out})
	want := "output " + out + ": " + out + " is a mount point: a build replaces its output directory by renaming it, which a mount point does not allow; build into a directory inside it (-o " + filepath.Join(out, "site") + ")"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v\nwant %s", err, want)
	}
	if oe := (*OutputError)(nil); !errors.As(err, &oe) {
		t.Errorf("not refused as an output (before the analyses run): %T", err)
	}
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		t.Errorf("the mount point holds %v", entries)
	}
	// Inside it is fine.
	if _, err := Build(context.Background(), Options{Manifest: manifest, Version: "test", Out: filepath.Join(out, "site")}); err != nil {
		t.Fatalf("a site inside the mount point: %v", err)
	}

	// A device of its own (the check that needs no table).
	mountTable = filepath.Join(dir, "none")
	out = filepath.Join(dir, "other")
	os.MkdirAll(out, 0o755)
	defer func(old func(os.FileInfo) uint64) { deviceOf = old }(deviceOf)
	real := deviceOf
	deviceOf = func(st os.FileInfo) uint64 {
		if st.Name() == "other" {
			return real(st) + 1
		}
		return real(st)
	}
	if _, err := Build(context.Background(), Options{Manifest: manifest, Version: "test", Out: out}); err == nil || !strings.Contains(err.Error(), "is a mount point") {
		t.Fatalf("another device: %v", err)
	}
}

// TestOutputRealMount mounts a tmpfs and a bind mount (root on Linux
// only) and builds into each: refused before the build, nothing written.
func TestOutputRealMount(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 || testing.Short() {
		t.Skip("needs root on Linux to mount")
	}
	dir := t.TempDir()
	manifest := writeTiny(t, filepath.Join(dir, "study"))
	for _, bind := range []bool{false, true} {
		out := filepath.Join(dir, "mnt")
		os.MkdirAll(out, 0o755)
		var err error
		if bind {
			src := filepath.Join(dir, "src")
			os.MkdirAll(src, 0o755)
			err = syscall.Mount(src, out, "", syscall.MS_BIND, "")
		} else {
			err = syscall.Mount("tmpfs", out, "tmpfs", 0, "size=1m")
		}
		if err != nil {
			t.Skip("cannot mount here:", err)
		}
		_, berr := Build(context.Background(), Options{Manifest: manifest, Version: "test", Out: out})
		entries, _ := os.ReadDir(out)
		if err := syscall.Unmount(out, syscall.MNT_DETACH); err != nil {
			t.Fatal(err)
		}
		if berr == nil || !strings.Contains(berr.Error(), out+" is a mount point") {
			t.Errorf("bind %v: %v", bind, berr)
		}
		if len(entries) > 0 {
			t.Errorf("bind %v: the mount holds %v", bind, entries)
		}
	}
}
