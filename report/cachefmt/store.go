package cachefmt

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// UsageFile, in the store's directory, holds its usage count (report's
// diskStore): the bytes of its entries, and how many builds that wrote
// have added to the count since the store was last scanned whole.
const UsageFile = "usage"

// FormatUsage is the usage file's content: "<bytes> <builds>\n".
func FormatUsage(bytes int64, builds int) []byte {
	return fmt.Appendf(nil, "%d %d\n", bytes, builds)
}

// ParseUsage reads a usage file's content; ok is false when it is not
// as FormatUsage writes it.
func ParseUsage(b []byte) (bytes int64, builds int, ok bool) {
	if n, err := fmt.Sscanf(string(b), "%d %d\n", &bytes, &builds); err != nil || n != 2 || bytes < 0 || builds < 0 {
		return 0, 0, false
	}
	return bytes, builds, true
}

// IsLegacyEntry reports whether name is an entry of the cache's first
// layout: <id>-<24 hex digits>.json.
func IsLegacyEntry(name string) bool {
	base, ok := strings.CutSuffix(name, ".json")
	if !ok || len(base) < 26 || base[len(base)-25] != '-' {
		return false
	}
	_, e := hex.DecodeString(base[len(base)-24:])
	return e == nil
}

// LegacyHead is how the entries of the cache's first layout began: a
// file named as one (IsLegacyEntry) is removed only if it begins so.
const LegacyHead = `{"tables":`
