package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// hashStore gives the sha256 of input files, re-hashing a file only when
// its identity — size, modification time, change time, inode and device —
// changed since it was last hashed. Any write to a file changes its change
// time, which no tool can set back, so an edit that keeps the size and the
// modification time is still seen. A file whose times are within
// racyWindow of the moment it was hashed is hashed again next time (as
// git's "racily clean" entries are): file-system clocks are coarse, and two
// writes in one tick would otherwise look alike.
//
// The store is kept in memory for evalbook serve and on disk (in the cache
// directory) between one-shot builds, so a warm build stats its inputs
// instead of reading them.
type hashStore struct {
	mu    sync.Mutex
	known map[string]hashEntry
	dirty bool
	// window is the racy window (racyWindow; tests set it to 0), hashed
	// counts the files read to hash them.
	window time.Duration
	hashed int
}

type hashEntry struct {
	ID       fileID `json:"id"`
	Sum      string `json:"sum"`
	HashedAt int64  `json:"hashed_at"` // unix ns
}

// fileID is what changes when a file is written to.
type fileID struct {
	Size  int64  `json:"size"`
	Mod   int64  `json:"mod"`   // unix ns
	Ctime int64  `json:"ctime"` // unix ns; 0 where the system has none
	Ino   uint64 `json:"ino"`
	Dev   uint64 `json:"dev"`
}

const racyWindow = 2 * time.Second

func newHashStore() *hashStore { return &hashStore{known: map[string]hashEntry{}, window: racyWindow} }

func identify(st os.FileInfo) fileID {
	id := fileID{Size: st.Size(), Mod: st.ModTime().UnixNano()}
	sysIdentity(st, &id)
	return id
}

// sum returns the hex sha256 of path.
func (h *hashStore) sum(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	id := identify(st)
	h.mu.Lock()
	e, ok := h.known[path]
	h.mu.Unlock()
	if ok && e.ID == id && !racy(e, h.window) {
		return e.Sum, nil
	}
	at := time.Now().UnixNano()
	h.mu.Lock()
	h.hashed++
	h.mu.Unlock()
	s, err := sha256File(path)
	if err != nil {
		return "", err
	}
	st2, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if identify(st2) == id { // unchanged while it was read
		h.mu.Lock()
		h.known[path] = hashEntry{ID: id, Sum: s, HashedAt: at}
		h.dirty = true
		h.mu.Unlock()
	}
	return s, nil
}

// racy reports whether the file may have changed within the clock tick
// in which it was hashed.
func racy(e hashEntry, window time.Duration) bool {
	last := max(e.ID.Mod, e.ID.Ctime)
	return e.HashedAt-last < int64(window)
}

// hashStoreFile is where the store lives in a cache directory.
func hashStoreFile(dir string) string { return filepath.Join(dir, "hashes.json") }

// loadHashStore reads a store from a cache directory; a missing or broken
// file gives an empty store (it only costs time).
func loadHashStore(dir string) *hashStore {
	h := newHashStore()
	if dir == "" {
		return h
	}
	b, err := os.ReadFile(hashStoreFile(dir))
	if err != nil {
		return h
	}
	if json.Unmarshal(b, &h.known) != nil || h.known == nil {
		h.known = map[string]hashEntry{}
	}
	return h
}

// save writes the store atomically; failures only cost the next build
// time.
func (h *hashStore) save(dir string) {
	if dir == "" {
		return
	}
	h.mu.Lock()
	if !h.dirty {
		h.mu.Unlock()
		return
	}
	b, err := json.Marshal(h.known)
	h.dirty = false
	h.mu.Unlock()
	if err != nil || os.MkdirAll(dir, 0o755) != nil {
		return
	}
	f, err := os.CreateTemp(dir, ".hashes-*")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return
	}
	if os.Rename(f.Name(), hashStoreFile(dir)) != nil {
		os.Remove(f.Name())
	}
}

// sha256File returns the hex sha256 of a file.
func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	hh := sha256.New()
	if _, err := io.Copy(hh, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(hh.Sum(nil)), nil
}

// statID returns a file's identity.
func statID(path string) (fileID, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return fileID{}, false
	}
	return identify(st), true
}

// fileStamp is what serve compares to see that a watched file changed.
type fileStamp = fileID

func stamp(path string) (fileStamp, bool) { return statID(path) }
