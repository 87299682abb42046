package input

import (
	"archive/zip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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

// OpenZip opens an archive for `evalbook verify`, or the file `evalbook
// pack` is to replace (to check that it is an archive pack wrote).
func OpenZip(path string) (*zip.ReadCloser, error) { return zip.OpenReader(path) }

// ReadSupplied returns the bytes of a file handed to `evalbook verify`
// (--inputs), reading at most limit+1 bytes: enough to tell that it is
// longer than the archive says, never a whole unexpected file. Its
// errors are *fs.PathError, Op "open" when the file cannot be opened.
func ReadSupplied(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit+1))
}
