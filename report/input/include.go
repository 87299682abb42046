package input

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ExpandIncludes lists the files `evalbook pack --include` adds to an
// archive: each pattern, relative to the study directory dir, is a glob
// (scripts/*.py) or a directory (raw/, every regular file under it).
// Every file must be a regular file inside the study directory (symbolic
// links followed and checked, as for inputs); a pattern that matches
// nothing, an absolute path and one that leaves the directory are
// errors. The result is absolute, sorted, without duplicates.
func ExpandIncludes(dir string, patterns []string) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	var r Resolver
	seen := map[string]bool{}
	var out []string
	add := func(p, pattern string) error {
		rel, _ := filepath.Rel(abs, p)
		shown := filepath.ToSlash(rel)
		if err := r.CheckFile(abs, p, shown, false, "the study"); err != nil {
			return fmt.Errorf("--include %s: %v", pattern, err)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
		return nil
	}
	for _, pattern := range patterns {
		clean := filepath.Clean(filepath.FromSlash(pattern))
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("--include %s: not a path inside the study directory (give it relative to the directory of study.toml)", pattern)
		}
		full := filepath.Join(abs, clean)
		if st, err := os.Stat(full); err == nil && st.IsDir() {
			if !r.inside(abs, full) && full != abs {
				return nil, fmt.Errorf("--include %s: outside the study directory", pattern)
			}
			n := 0
			err := filepath.WalkDir(full, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() {
					return nil
				}
				n++
				return add(p, pattern)
			})
			if err != nil {
				return nil, err
			}
			if n == 0 {
				return nil, fmt.Errorf("--include %s: an empty directory", pattern)
			}
			continue
		}
		matches, err := filepath.Glob(full)
		if err != nil {
			return nil, fmt.Errorf("--include %s: %v", pattern, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("--include %s: matches no file in the study directory", pattern)
		}
		for _, m := range matches {
			if err := add(m, pattern); err != nil {
				return nil, err
			}
		}
	}
	sort.Strings(out)
	return out, nil
}
