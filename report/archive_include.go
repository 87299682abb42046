package report

import (
	"sort"

	"github.com/evalbook/evalbook/report/input"
)

// Include adds to the archive's study files the raw files and scripts
// that produced the inputs (`evalbook pack --include`): globs or
// directories relative to the study directory, every file inside it
// (input.ExpandIncludes). They are hashed now and listed in the crate
// with their sha256 like every study file; the build does not read them,
// so verify checks their bytes and rebuilds without them. A file the
// build read already is listed once.
func (a *Archivable) Include(patterns []string) error {
	if len(patterns) == 0 {
		return nil
	}
	files, err := input.ExpandIncludes(a.Study.Dir, patterns)
	if err != nil {
		return err
	}
	for _, p := range files {
		if _, ok := a.sums[p]; ok {
			continue
		}
		sum, err := input.SHA256File(p)
		if err != nil {
			return err
		}
		a.sums[p] = sum
		a.Files = append(a.Files, p)
	}
	sort.Strings(a.Files)
	return nil
}
