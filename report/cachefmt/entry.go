package cachefmt

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Shape is the hash of what an entry's output read, without the
// contents: the paths of its files and its patterns with their matches.
// The entries of one analysis with one shape differ only in the contents
// of those files, so the current contents name the one entry that can
// hold.
func Shape(files map[string]string, patterns map[string][]string) string {
	b, _ := json.Marshal(struct {
		Files    []string            `json:"files"`
		Patterns map[string][]string `json:"patterns"`
	}{slices.Sorted(maps.Keys(files)), patterns})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// EntryName is an entry's content address in its key's directory
// keyDir: its shape (Shape), then the hash of the directory's name and
// of what it read (files with their sha256, patterns with their
// matches).
func EntryName(keyDir string, files map[string]string, patterns map[string][]string) string {
	b, _ := json.Marshal(struct {
		Files    map[string]string   `json:"files"`
		Patterns map[string][]string `json:"patterns"`
	}{files, patterns})
	h := sha256.New()
	h.Write([]byte(filepath.Base(keyDir)))
	h.Write([]byte{0})
	h.Write(b)
	return Shape(files, patterns) + "-" + hex.EncodeToString(h.Sum(nil)[:16]) + ".entry"
}

// Magic starts every entry of the store. An entry is Magic, then
// "<stamp length> <payload length> <sha256 of stamp and payload>\n",
// then the stamp (what the entry's output read, JSON) and the payload.
const Magic = "evalbook-cache 3\n"

// ErrDamaged marks an entry that is not what the cache wrote.
var ErrDamaged = errors.New("damaged")

// maxStampBytes bounds the stamp a head may announce (a damaged length
// must not allocate gigabytes).
const maxStampBytes = 256 << 20

// WriteEntry writes the entry of stamp and payload to w and returns its
// size.
func WriteEntry(w io.Writer, stamp, payload []byte) (int64, error) {
	h := sha256.New()
	h.Write(stamp)
	h.Write(payload)
	head := fmt.Appendf([]byte(Magic), "%d %d %x\n", len(stamp), len(payload), h.Sum(nil))
	for _, b := range [][]byte{head, stamp, payload} {
		if _, err := w.Write(b); err != nil {
			return 0, err
		}
	}
	return int64(len(head) + len(stamp) + len(payload)), nil
}

// Head is an entry's head and stamp, as ReadHead read them.
type Head struct {
	Stamp      []byte
	PayloadLen int64
	Sum        []byte // the sha256 of stamp and payload, as the head gives it
}

// ReadHead reads the head and the stamp of an entry of size bytes; the
// error wraps ErrDamaged when they are not as WriteEntry writes them.
func ReadHead(r *bufio.Reader, size int64) (Head, error) {
	damaged := func(format string, args ...any) (Head, error) {
		return Head{}, fmt.Errorf("%w: "+format, append([]any{ErrDamaged}, args...)...)
	}
	magic := make([]byte, len(Magic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != Magic {
		return damaged("no evalbook cache header")
	}
	head, err := r.ReadString('\n')
	if err != nil || len(head) > 200 {
		return damaged("unreadable header")
	}
	fields := strings.Fields(head)
	if len(fields) != 3 {
		return damaged("unreadable header")
	}
	stampLen, err1 := strconv.ParseInt(fields[0], 10, 64)
	payloadLen, err2 := strconv.ParseInt(fields[1], 10, 64)
	sum, err3 := hex.DecodeString(fields[2])
	if err1 != nil || err2 != nil || err3 != nil || len(sum) != sha256.Size || stampLen <= 0 || stampLen > maxStampBytes || payloadLen <= 0 {
		return damaged("unreadable header")
	}
	if want := int64(len(Magic)+len(head)) + stampLen + payloadLen; size != want {
		return damaged("%d bytes where its header announces %d", size, want)
	}
	h := Head{Stamp: make([]byte, stampLen), PayloadLen: payloadLen, Sum: sum}
	if _, err := io.ReadFull(r, h.Stamp); err != nil {
		return damaged("cut short")
	}
	return h, nil
}

// Payload reads the payload that follows the stamp and checks the sum
// of both; the error wraps ErrDamaged when they are not what was
// written.
func (h Head) Payload(r io.Reader) ([]byte, error) {
	payload := make([]byte, h.PayloadLen)
	if _, err := io.ReadFull(r, payload); err != nil {
		return nil, fmt.Errorf("%w: cut short", ErrDamaged)
	}
	sum := sha256.New()
	sum.Write(h.Stamp)
	sum.Write(payload)
	if !bytes.Equal(sum.Sum(nil), h.Sum) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrDamaged)
	}
	return payload, nil
}

// DecodeLeading decodes the fields of a JSON object that come before
// any other, each into the value fields gives for its key, and stops at
// the first key fields does not name: the rest of the object is neither
// decoded nor checked, so a payload that puts what is needed first gives
// it without the cost of the rest.
func DecodeLeading(payload []byte, fields map[string]any) error {
	dec := json.NewDecoder(bytes.NewReader(payload))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("%w: not a JSON object", ErrDamaged)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%w: %v", ErrDamaged, err)
		}
		k, _ := key.(string)
		v, ok := fields[k]
		if !ok {
			return nil
		}
		if err := dec.Decode(v); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrDamaged, k, err)
		}
	}
	return nil
}
