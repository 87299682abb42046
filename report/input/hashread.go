package input

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"os"
	"time"
)

// hashingReader hashes the bytes of a file as a reader takes them, so a
// file parsed from start to end is hashed by the same read (read once:
// no second pass over the file for its provenance and cache hash).
type hashingReader struct {
	r   io.Reader
	h   hash.Hash
	n   int64
	eof bool
}

func (hr *hashingReader) Read(p []byte) (int, error) {
	n, err := hr.r.Read(p)
	hr.h.Write(p[:n])
	hr.n += int64(n)
	if err == io.EOF {
		hr.eof = true
	}
	return n, err
}

// tableHash is what a hashing table reader knows of its file.
type tableHash struct {
	hr       *hashingReader
	stamp    FileStamp // the file's identity when it was opened
	size     int64
	openedAt int64 // unix ns
}

// OpenTableHashing is OpenTableCapped that also hashes the file as it is
// read: once the reader has read the whole file in order through itself
// (not by Sections, which read around it), ContentSum gives the sha256 of
// exactly the bytes that were parsed. A Parquet file is read by pages, not hashed.
func OpenTableHashing(path, display string, mapping map[string]string, maxDecompressed int64) (*TableReader, error) {
	return openTable(path, display, mapping, maxDecompressed, true)
}

// ContentSum returns the sha256 of the file the reader read, and the
// file's identity when it was opened, once the reader has read it all.
func (t *TableReader) ContentSum() (sum string, stamp FileStamp, ok bool) {
	th := t.hash
	if th == nil || !th.hr.eof || th.hr.n != th.size {
		return "", FileStamp{}, false
	}
	return hex.EncodeToString(th.hr.h.Sum(nil)), th.stamp, true
}

// startHashing wraps f in a hashing reader.
func (t *TableReader) startHashing(f *os.File) io.Reader {
	st, err := f.Stat()
	if err != nil {
		return f
	}
	t.hash = &tableHash{hr: &hashingReader{r: f, h: sha256.New()}, stamp: identify(st), size: st.Size(), openedAt: time.Now().UnixNano()}
	return t.hash.hr
}

// Learn records a sum a reader computed while it read a file (ContentSum)
// when the file still has the identity it had when it was opened: the
// next build then stats the file instead of reading it. It counts as no
// hashing read (Hashed).
func (h *HashStore) Learn(path, sum string, stamp FileStamp, openedAt int64) {
	st, err := os.Stat(path)
	if err != nil || identify(st) != stamp {
		return
	}
	h.mu.Lock()
	h.known[path] = hashEntry{ID: stamp, Sum: sum, HashedAt: openedAt, UsedAt: openedAt}
	h.used[path] = true
	h.dirty = true
	h.mu.Unlock()
}

// Known returns a file's sum when the store has one still valid for the
// file as it is now, without reading the file.
func (h *HashStore) Known(path string) (string, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.known[path]
	h.used[path] = true
	if !ok || e.ID != identify(st) || racy(e, h.window) {
		return "", false
	}
	if now := time.Now().UnixNano(); now-e.UsedAt > usedTick {
		e.UsedAt = now
		h.known[path] = e
		h.dirty = true
	}
	return e.Sum, true
}

// LearnFrom records the sum a table reader computed (ContentSum), if it
// has one; it returns the sum and whether there was one.
func (h *HashStore) LearnFrom(path string, t *TableReader) (string, bool) {
	sum, stamp, ok := t.ContentSum()
	if !ok {
		return "", false
	}
	h.Learn(path, sum, stamp, t.hash.openedAt)
	return sum, true
}

// Hashing reports whether the reader was opened with OpenTableHashing
// (and is not Parquet).
func (t *TableReader) Hashing() bool { return t.hash != nil }

// OpenedAs returns the identity the file of a hashing reader had when it
// was opened.
func (t *TableReader) OpenedAs() (FileStamp, bool) {
	if t.hash == nil {
		return FileStamp{}, false
	}
	return t.hash.stamp, true
}
