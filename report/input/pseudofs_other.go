//go:build !linux

package input

import (
	"path/filepath"
	"strings"
)

// pseudoFS names the pseudo-filesystem path lies on, by the resolved
// path's prefix where the system has no statfs magic to ask: /proc and
// /sys, or "" elsewhere.
func pseudoFS(path string) string {
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		p = path
	}
	for _, fs := range []string{"/proc", "/sys"} {
		if p == fs || strings.HasPrefix(p, fs+"/") {
			return fs[1:]
		}
	}
	return ""
}
