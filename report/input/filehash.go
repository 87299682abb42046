package input

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// HashStore gives the sha256 of input files, re-hashing a file only when
// its identity — size, modification time, change time, inode and device —
// changed since it was last hashed. Any write to a file changes its change
// time, which no tool can set back, so an edit that keeps the size and the
// modification time is still seen. A file whose times are within
// RacyWindow of the moment it was hashed is hashed again next time (as
// git's "racily clean" entries are): file-system clocks are coarse, and two
// writes in one tick would otherwise look alike.
//
// The store is kept in memory for evalbook serve and on disk (in the cache
// directory) between one-shot builds, so a warm build stats its inputs
// instead of reading them.
type HashStore struct {
	mu    sync.Mutex
	known map[string]hashEntry
	used  map[string]bool // the paths this process asked about
	dirty bool
	// window is the racy window (RacyWindow; tests set it to 0), hashed
	// counts the files read to hash them.
	window time.Duration
	hashed int
}

type hashEntry struct {
	ID       FileStamp `json:"id"`
	Sum      string    `json:"sum"`
	HashedAt int64     `json:"hashed_at"`         // unix ns
	UsedAt   int64     `json:"used_at,omitempty"` // unix ns, to the day: what goes first past MaxHashEntries
}

// MaxHashEntries bounds the files a store on disk remembers: past it,
// the least recently used go (never one this process used), so the store
// — one for every study built with the cache directory — does not grow
// with every file ever built.
const MaxHashEntries = 4096

// usedTick is how stale an entry's UsedAt may get before a use records
// it again: a warm build that changed nothing then writes nothing.
const usedTick = int64(24 * time.Hour)

// FileStamp is a file's identity: what changes when a file is written to.
type FileStamp struct {
	Size  int64  `json:"size"`
	Mod   int64  `json:"mod"`   // unix ns
	Ctime int64  `json:"ctime"` // unix ns; 0 where the system has none
	Ino   uint64 `json:"ino"`
	Dev   uint64 `json:"dev"`
}

// RacyWindow is how close to a file's last change its hash may be taken
// and still be trusted by the next build.
const RacyWindow = 2 * time.Second

// NewHashStore returns an empty store.
func NewHashStore() *HashStore {
	return &HashStore{known: map[string]hashEntry{}, used: map[string]bool{}, window: RacyWindow}
}

func identify(st os.FileInfo) FileStamp {
	id := FileStamp{Size: st.Size(), Mod: st.ModTime().UnixNano()}
	sysIdentity(st, &id)
	return id
}

// Sum returns the hex sha256 of path.
func (h *HashStore) Sum(path string) (string, error) {
	s, _, err := h.SumTo(path, nil)
	return s, err
}

// SumTo is Sum that also writes the file's bytes to also (when not nil)
// if it has to read the file; read tells whether it did.
func (h *HashStore) SumTo(path string, also io.Writer) (sum string, read bool, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", false, err
	}
	if !st.Mode().IsRegular() {
		// Opening a named pipe to hash it blocks for ever (a cached
		// build hung, deaf to Ctrl-C): only a regular file has a sum;
		// the reader that opens it names the problem.
		return "", false, fmt.Errorf("%s: not a regular file", path)
	}
	if fs := pseudoFS(path); fs != "" {
		// A /proc file passes for a regular file; reading it to hash
		// it may never return (/proc/kmsg).
		return "", false, fmt.Errorf("%s: on the kernel's %s pseudo-filesystem, not a stored file", path, fs)
	}
	id := identify(st)
	now := time.Now().UnixNano()
	h.mu.Lock()
	e, ok := h.known[path]
	window := h.window
	h.used[path] = true
	if ok && e.ID == id && !racy(e, window) {
		if now-e.UsedAt > usedTick {
			e.UsedAt = now
			h.known[path] = e
			h.dirty = true
		}
		h.mu.Unlock()
		return e.Sum, false, nil
	}
	h.mu.Unlock()
	at := time.Now().UnixNano()
	h.mu.Lock()
	h.hashed++
	h.mu.Unlock()
	s, err := sha256FileTo(path, also)
	if err != nil {
		return "", true, err
	}
	st2, err := os.Stat(path)
	if err != nil {
		return "", true, err
	}
	if identify(st2) == id { // unchanged while it was read
		h.mu.Lock()
		h.known[path] = hashEntry{ID: id, Sum: s, HashedAt: at, UsedAt: at}
		h.dirty = true
		h.mu.Unlock()
	}
	return s, true, nil
}

// SetRacyWindow sets the racy window (RacyWindow by default; tests set 0
// to act as if the clock had moved on).
func (h *HashStore) SetRacyWindow(d time.Duration) {
	h.mu.Lock()
	h.window = d
	h.mu.Unlock()
}

// Hashed returns how many files the store has read to hash them.
func (h *HashStore) Hashed() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hashed
}

// racy reports whether the file may have changed within the clock tick
// in which it was hashed.
func racy(e hashEntry, window time.Duration) bool {
	last := max(e.ID.Mod, e.ID.Ctime)
	return e.HashedAt-last < int64(window)
}

// hashStoreFile is where the store lives in a cache directory, and
// oldHashStoreFile where it lived as JSON (read by no build now: the
// first save removes it).
func hashStoreFile(dir string) string    { return filepath.Join(dir, "hashes.tsv") }
func oldHashStoreFile(dir string) string { return filepath.Join(dir, "hashes.json") }

// hashStoreHead is the store file's first line. The store is read by
// every build, and with a few thousand files remembered encoding/json
// took 20 ms of a warm build that takes 50: one line per file, fields
// separated by tabs, is read in a tenth of that.
const hashStoreHead = "evalbook input hashes 1\n"

// LoadHashStore reads a store from a cache directory; a missing or broken
// file gives an empty store, and a broken line drops its file (it only
// costs time: the file is hashed again).
func LoadHashStore(dir string) *HashStore {
	h := NewHashStore()
	if dir == "" {
		return h
	}
	b, err := os.ReadFile(hashStoreFile(dir))
	if err != nil || !bytes.HasPrefix(b, []byte(hashStoreHead)) {
		return h
	}
	h.known = make(map[string]hashEntry, bytes.Count(b, []byte("\n")))
	for line := range bytes.Lines(b[len(hashStoreHead):]) {
		if p, e, ok := parseHashLine(line); ok {
			h.known[p] = e
		}
	}
	return h
}

// appendHashLine appends an entry's line: sum, size, modification time,
// change time, inode, device, hashed at, used at, then the path (quoted
// as a Go string when it holds a tab, a line end, a backslash or begins
// with a quote).
func appendHashLine(b []byte, path string, e hashEntry) []byte {
	b = append(b, e.Sum...)
	for _, v := range []int64{e.ID.Size, e.ID.Mod, e.ID.Ctime} {
		b = strconv.AppendInt(append(b, '\t'), v, 10)
	}
	for _, v := range []uint64{e.ID.Ino, e.ID.Dev} {
		b = strconv.AppendUint(append(b, '\t'), v, 10)
	}
	for _, v := range []int64{e.HashedAt, e.UsedAt} {
		b = strconv.AppendInt(append(b, '\t'), v, 10)
	}
	b = append(b, '\t')
	if strings.ContainsAny(path, "\t\n\r\\") || strings.HasPrefix(path, `"`) || !utf8.ValidString(path) {
		b = strconv.AppendQuote(b, path)
	} else {
		b = append(b, path...)
	}
	return append(b, '\n')
}

// parseHashLine is appendHashLine's inverse; ok is false for a line it
// did not write.
func parseHashLine(line []byte) (path string, e hashEntry, ok bool) {
	line, ok = bytes.CutSuffix(line, []byte("\n"))
	if !ok || len(line) < sha256.Size*2+1 || line[sha256.Size*2] != '\t' {
		return "", e, false // cut short, or not a sum
	}
	sum := line[:sha256.Size*2]
	for _, c := range sum {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return "", e, false
		}
	}
	rest := line[sha256.Size*2+1:]
	var n [7]uint64
	for i := range n {
		tab := bytes.IndexByte(rest, '\t')
		v, ok := hashField(rest[:max(tab, 0)], i < 3 || i > 4)
		if tab < 0 || !ok {
			return "", e, false
		}
		n[i], rest = v, rest[tab+1:]
	}
	path = string(rest)
	if len(rest) > 0 && rest[0] == '"' {
		var err error
		if path, err = strconv.Unquote(path); err != nil {
			return "", e, false
		}
	}
	if path == "" {
		return "", e, false
	}
	e = hashEntry{ID: FileStamp{Size: int64(n[0]), Mod: int64(n[1]), Ctime: int64(n[2]), Ino: n[3], Dev: n[4]},
		Sum: string(sum), HashedAt: int64(n[5]), UsedAt: int64(n[6])}
	return path, e, true
}

// hashField parses a decimal number as strconv.AppendInt (signed) or
// AppendUint wrote it, returning its bits.
func hashField(b []byte, signed bool) (uint64, bool) {
	if signed {
		v, err := strconv.ParseInt(string(b), 10, 64)
		return uint64(v), err == nil
	}
	v, err := strconv.ParseUint(string(b), 10, 64)
	return v, err == nil
}

// Save writes the store atomically; failures only cost the next build
// time.
func (h *HashStore) Save(dir string) {
	if dir == "" {
		return
	}
	h.mu.Lock()
	if !h.dirty {
		h.mu.Unlock()
		return
	}
	h.trim(MaxHashEntries)
	paths := slices.Sorted(maps.Keys(h.known))
	b := []byte(hashStoreHead)
	for _, p := range paths {
		b = appendHashLine(b, p, h.known[p])
	}
	h.dirty = false
	h.mu.Unlock()
	if os.MkdirAll(dir, 0o755) != nil {
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
		return
	}
	removeOldHashStore(dir)
}

// removeOldHashStore removes the JSON store of earlier versions, never
// read now — only a file that is one (a file of that name the store did
// not write stays).
func removeOldHashStore(dir string) {
	b, err := os.ReadFile(oldHashStoreFile(dir))
	if err != nil {
		return
	}
	var old map[string]hashEntry
	if json.Unmarshal(b, &old) == nil {
		os.Remove(oldHashStoreFile(dir))
	}
}

// trim drops the least recently used entries past limit, keeping every
// entry this process used. Its caller holds h.mu.
func (h *HashStore) trim(limit int) {
	if len(h.known) <= limit {
		return
	}
	var old []string
	for p := range h.known {
		if !h.used[p] {
			old = append(old, p)
		}
	}
	last := func(p string) int64 { e := h.known[p]; return max(e.UsedAt, e.HashedAt) }
	slices.SortFunc(old, func(a, b string) int {
		if c := cmp.Compare(last(a), last(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for _, p := range old[:min(len(old), len(h.known)-limit)] {
		delete(h.known, p)
	}
}

// SHA256File returns the hex sha256 of a file.
func SHA256File(path string) (string, error) { return sha256FileTo(path, nil) }

// hashReadSize is the read size of hashing: large reads (io.Copy's are
// 32 KiB) keep the system calls out of a big file's profile.
const hashReadSize = 256 << 10

// hashBuffers holds the read buffers of hashing, one reused from file to
// file: a buffer per file, sized to it, faulted fresh memory in for each
// (see readers).
var hashBuffers = sync.Pool{New: func() any { return new([hashReadSize]byte) }}

// sha256FileTo returns the hex sha256 of a file, writing its bytes to
// also (when not nil) as they are read.
func sha256FileTo(path string, also io.Writer) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	hh := sha256.New()
	b := hashBuffers.Get().(*[hashReadSize]byte)
	defer hashBuffers.Put(b)
	buf := b[:]
	for {
		n, err := f.Read(buf)
		if n > 0 {
			hh.Write(buf[:n])
			if also != nil {
				also.Write(buf[:n])
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(hh.Sum(nil)), nil
}

// Stamp returns a file's identity: what serve compares to see that a
// watched file changed. ok is false when the file cannot be stat'ed.
func Stamp(path string) (FileStamp, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return FileStamp{}, false
	}
	return identify(st), true
}

// ReadAsRecorded returns the bytes of a regular file whose sha256 a build
// recorded as want, or an error naming display when the file is not a
// regular file, cannot be read, or no longer has those bytes: what is
// copied after a build (evalbook pack) is then exactly what the build
// read, never a later edit under the same name.
func ReadAsRecorded(path, display, want string) ([]byte, error) {
	f, err := OpenRegular(path, display)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != want {
		return nil, fmt.Errorf("%s: changed since the build read it (sha256 %.12s…, now %.12s…); run the command again", display, want, got)
	}
	return data, nil
}

// HeadSum returns the hex sha256 of the first n bytes of path, a file's
// header, and of the byte after them when there is one (a reader that
// met a carriage return at the header's end looked at it): two files
// with one HeadSum have one header, however their rows differ. With
// n = 0 it is the sum of the header as read (its column names), for a
// file whose header is not its first bytes: a .gz file's is inside the
// compressed stream.
func HeadSum(path string, n int64) (string, error) {
	if n == 0 {
		return headerSum(path)
	}
	if n < 0 {
		return "", fmt.Errorf("%s: no header length", path)
	}
	f, err := OpenRegular(path, path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b := make([]byte, n+1)
	k, err := io.ReadFull(f, b)
	switch {
	case err == io.ErrUnexpectedEOF && int64(k) >= n:
		b = b[:k] // the header ends the file
	case err != nil:
		return "", fmt.Errorf("%s: %w", path, err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00", n)
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// headerSum is the sha256 of a table's column names as its reader
// reads them.
func headerSum(path string) (string, error) {
	t, err := OpenTableCapped(path, path, nil, DefaultMaxDecompressed)
	if err != nil {
		return "", err
	}
	defer t.Close()
	h := sha256.New()
	h.Write([]byte("columns\x00"))
	for _, c := range t.Header {
		h.Write([]byte(c))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// headKeyMark joins a path and a header length in a head key: no path
// holds a NUL byte.
const headKeyMark = "\x00head "

// HeadKey names a file's header of n bytes (0: as read, HeadSum) where a record of reads keys
// whole files by path (a cache entry's stamp), so that both kinds of
// read share one map: its sum is HeadSum.
func HeadKey(path string, n int64) string {
	return path + headKeyMark + strconv.FormatInt(n, 10)
}

// ParseHeadKey returns the path and header length of a HeadKey; ok is
// false for a plain path.
func ParseHeadKey(key string) (path string, n int64, ok bool) {
	i := strings.Index(key, headKeyMark)
	if i < 0 {
		return key, 0, false
	}
	n, err := strconv.ParseInt(key[i+len(headKeyMark):], 10, 64)
	if err != nil || n < 0 {
		return key, 0, false
	}
	return key[:i], n, true
}
