package cachefmt

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"slices"
)

// siteMagic starts the payload of a rendered site's entry.
const siteMagic = "evalbook-site 1\n"

// EncodeSite is the payload of a rendered site's entry: siteMagic, the
// warnings the rendering printed, the number of files, then each file's
// path and, in path order, either 0 and its bytes or, for a file whose
// bytes are those of a shared blob (the chart library and the math the
// binary embeds, the same for every site it renders), 1 and the blob's
// name; each length a uvarint before its bytes.
func EncodeSite(files map[string][]byte, warnings []byte, shared map[string][]byte) []byte {
	names := slices.Sorted(maps.Keys(shared))
	sharedAs := func(data []byte) int { // the blob data is, or -1
		if len(data) == 0 {
			return -1
		}
		return slices.IndexFunc(names, func(name string) bool { return bytes.Equal(shared[name], data) })
	}
	n := len(siteMagic) + len(warnings) + 2*binary.MaxVarintLen64
	for p, data := range files {
		n += len(p) + 3*binary.MaxVarintLen64
		if sharedAs(data) < 0 {
			n += len(data) // a shared blob is named, not held
		}
	}
	b := make([]byte, 0, n)
	b = append(b, siteMagic...)
	b = binary.AppendUvarint(b, uint64(len(warnings)))
	b = append(b, warnings...)
	b = binary.AppendUvarint(b, uint64(len(files)))
	for _, p := range slices.Sorted(maps.Keys(files)) {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
		data := files[p]
		if i := sharedAs(data); i >= 0 {
			b = append(b, 1)
			b = binary.AppendUvarint(b, uint64(len(names[i])))
			b = append(b, names[i]...)
			continue
		}
		b = append(b, 0)
		b = binary.AppendUvarint(b, uint64(len(data)))
		b = append(b, data...)
	}
	return b
}

// DecodeSite reads what EncodeSite wrote with the same shared blobs.
// The files' bytes are slices of b or of the blobs, not copies. An error
// means b is not a payload EncodeSite wrote.
func DecodeSite(b []byte, shared map[string][]byte) (files map[string][]byte, warnings []byte, err error) {
	if !bytes.HasPrefix(b, []byte(siteMagic)) {
		return nil, nil, errors.New("not a rendered site")
	}
	b = b[len(siteMagic):]
	next := func() ([]byte, bool) {
		n, k := uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, false
		}
		field := b[k : k+int(n) : k+int(n)]
		b = b[k+int(n):]
		return field, true
	}
	warnings, ok := next()
	if !ok {
		return nil, nil, errors.New("cut short")
	}
	count, k := uvarint(b)
	if k <= 0 || count > uint64(len(b)) {
		return nil, nil, errors.New("cut short")
	}
	b = b[k:]
	files = make(map[string][]byte, count)
	prev := ""
	for i := uint64(0); i < count; i++ {
		p, ok := next()
		if !ok || len(b) == 0 || b[0] > 1 {
			return nil, nil, errors.New("cut short")
		}
		isShared := b[0] == 1
		b = b[1:]
		data, ok := next()
		if !ok {
			return nil, nil, errors.New("cut short")
		}
		if isShared {
			blob, known := shared[string(data)]
			if !known || len(blob) == 0 {
				return nil, nil, fmt.Errorf("no shared blob %q", data)
			}
			data = blob
		} else if len(data) > 0 && slices.ContainsFunc(slices.Collect(maps.Values(shared)), func(blob []byte) bool { return bytes.Equal(blob, data) }) {
			return nil, nil, errors.New("a shared blob held, not named")
		}
		path := string(p)
		if path == "" || i > 0 && path <= prev {
			return nil, nil, errors.New("files out of order")
		}
		files[path], prev = data, path
	}
	if len(b) != 0 {
		return nil, nil, errors.New("bytes after the last file")
	}
	return files, warnings, nil
}

// SiteEntryName is the name of the entry of the site rendered for key
// (a hex hash of everything it was made of) in its study's directory.
func SiteEntryName(key string) string {
	return "site-" + key[:min(len(key), 32)] + ".entry"
}

// SiteStamp is what a rendered site's entry records as read: nothing
// (its key covers every input's sum).
const SiteStamp = `{"files":{}}`

// ReadSite reads a rendered site's entry (WriteEntry of SiteStamp and
// EncodeSite's payload); the error wraps ErrDamaged when it is not what
// was written.
func ReadSite(entry []byte, shared map[string][]byte) (files map[string][]byte, warnings []byte, err error) {
	br := bufio.NewReader(bytes.NewReader(entry))
	h, err := ReadHead(br, int64(len(entry)))
	if err != nil {
		return nil, nil, err
	}
	payload, err := h.Payload(br)
	if err != nil {
		return nil, nil, err
	}
	if files, warnings, err = DecodeSite(payload, shared); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	return files, warnings, nil
}

// uvarint reads a uvarint as EncodeSite writes it, in its fewest bytes
// (k <= 0: none there), so that one site has one encoding.
func uvarint(b []byte) (n uint64, k int) {
	n, k = binary.Uvarint(b)
	if k > 0 && k != max(1, (bits.Len64(n)+6)/7) {
		return 0, -1
	}
	return n, k
}
