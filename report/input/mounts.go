package input

import (
	"strconv"
	"strings"
)

// MountTableLists reports whether a mount table in the format of Linux's
// /proc/self/mountinfo lists dir as a mount point.
func MountTableLists(table []byte, dir string) bool {
	for _, line := range strings.Split(string(table), "\n") {
		// id parent major:minor root mount-point options …
		if f := strings.Fields(line); len(f) > 4 && unescapeMount(f[4]) == dir {
			return true
		}
	}
	return false
}

// unescapeMount undoes the octal escapes of a path in the mount table
// (a space is \040).
func unescapeMount(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
