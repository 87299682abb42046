package input

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The files below are read by evalbook but are not a study's inputs: its
// cache entries, the site it built (which serve sends), the directory it
// writes a site into, and what `evalbook verify` is handed (the zip and
// the inputs a pack left out). They pass through this package like every
// other read, so that no other package of the tool opens a file; none is
// recorded as an analysis's input, because none can change a number.

// ReadOwn returns the bytes of a file evalbook wrote itself: a cache
// entry, or a page of the site it built.
func ReadOwn(path string) ([]byte, error) { return os.ReadFile(path) }

// ListOwn lists a directory evalbook writes into (an output directory or
// its parent), to check what it holds before replacing it.
func ListOwn(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }

// WalkOwn walks a directory evalbook writes into (a built site), to find
// what it holds beyond the files the site's marker lists.
func WalkOwn(root string, fn fs.WalkDirFunc) error { return filepath.WalkDir(root, fn) }

// OpenLock opens, creating it if needed, the lock file beside an output
// directory.
func OpenLock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}

// Zip is an archive opened for reading: its entries, and the file.
type Zip struct {
	*zip.Reader
	f *os.File
}

// Close closes the archive's file.
func (z *Zip) Close() error { return z.f.Close() }

// OpenZip opens an archive for `evalbook verify`, or the file `evalbook
// pack` is to replace (to check that it is an archive pack wrote). Only
// a regular file on a filesystem that stores files is opened (OpenOwnFile).
func OpenZip(path string) (*Zip, error) {
	f, st, err := OpenOwnFile(path)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Zip{Reader: zr, f: f}, nil
}

// OpenSupplied opens a file handed to `evalbook verify` (--inputs), for
// the caller to read as far as the archive says it is long. Its errors
// are *fs.PathError, Op "open" when the file cannot be opened.
func OpenSupplied(path string) (*os.File, error) {
	f, _, err := OpenOwnFile(path)
	return f, err
}

// OpenOwnFile opens a file evalbook is handed by name, outside a study
// (the zip verify checks, an input given with --inputs): a named pipe is
// opened without waiting for a writer and, like a device, a directory or
// a file on /proc or /sys, refused with a *fs.PathError (Op "read"), so
// `evalbook verify fifo.zip` fails at once instead of hanging.
func OpenOwnFile(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	what := ""
	switch {
	case st.IsDir():
		what = "a directory, not a file"
	case !st.Mode().IsRegular():
		what = fileKind(st.Mode()) + ", not a regular file"
	default:
		if pf := pseudoFS(path); pf != "" {
			what = "on the kernel's " + pf + " pseudo-filesystem, not a stored file"
		}
	}
	if what != "" {
		f.Close()
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: errors.New(what)}
	}
	return f, st, nil
}

// EqualOwn reports whether a file evalbook wrote (a page of the site it
// built) is the regular file info describes (os.Lstat's, so not a link
// swapped in since) and holds exactly b. It reads through a buffer of
// hashBuffers: a site's files are compared one after another.
func EqualOwn(path string, info fs.FileInfo, b []byte) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || !os.SameFile(st, info) || st.Size() != int64(len(b)) {
		return false
	}
	buf := hashBuffers.Get().(*[hashReadSize]byte)
	defer hashBuffers.Put(buf)
	for {
		n, err := f.Read(buf[:])
		if n > len(b) || !bytes.Equal(buf[:n], b[:n]) {
			return false
		}
		b = b[n:]
		if err == io.EOF {
			return len(b) == 0
		}
		if err != nil {
			return false
		}
	}
}

// OpenOwn opens a file evalbook wrote itself (a cache entry) for reading
// part of it: a cache lookup reads an entry's header and what it read
// before deciding to read the rest.
func OpenOwn(path string) (*os.File, error) { return os.Open(path) }

// GoBuildID returns the Go toolchain's build ID of an ELF executable
// (what `go tool buildid` prints): it names the binary's content, so two
// binaries with the same ID run the same code. It is read from the
// .note.go.buildid section, a few hundred bytes, instead of hashing the
// whole binary. "" when the file is not ELF or was linked without one
// (-ldflags=-buildid=, as the release archives are).
func GoBuildID(exe string) string {
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(".note.go.buildid")
	if s == nil || s.Size > 4096 {
		return ""
	}
	b, err := s.Data()
	if err != nil || len(b) < 16 {
		return ""
	}
	order := f.ByteOrder
	namesz, descsz := order.Uint32(b[0:4]), order.Uint32(b[4:8])
	if namesz != 4 || string(b[12:16]) != "Go\x00\x00" || uint64(descsz) > uint64(len(b)-16) {
		return ""
	}
	id := string(b[16 : 16+descsz])
	if len(id) < 16 || strings.ContainsAny(id, "\x00\n") {
		return ""
	}
	return id
}

// ToolID identifies the running binary's code: its Go build ID, read
// from a few hundred bytes of it, or else (a binary linked without one)
// its sha256, which the hash store remembers by the binary's identity so
// that only the first build after an install reads it.
func ToolID(hashes *HashStore) string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	if id := GoBuildID(exe); id != "" {
		return "go-build-id:" + id
	}
	if hashes == nil {
		hashes = NewHashStore()
	}
	sum, err := hashes.Sum(exe)
	if err != nil {
		return "unknown"
	}
	return "sha256:" + sum
}
