package report

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
)

// Archivable is a build rendered in memory for `evalbook pack` and
// `evalbook verify` (package report/archive): the site's files and every
// study file the build depended on, taken from the build's own record of
// what it read (input.ReadSet, the same record as provenance.json), so an
// archive can never miss an input.
type Archivable struct {
	Study *Study
	// Site maps a slash-separated path inside the site to its bytes,
	// the site marker (SiteMarker) included: exactly what Build writes.
	Site map[string][]byte
	// Files are the study files the build depended on, as absolute
	// paths, sorted, without duplicates: the manifest, every input read,
	// pages, the bibliography and interaction logs.
	Files []string
	// Documents are the manifest, the pages and the bibliography among
	// Files (what `pack --exclude-inputs` keeps).
	Documents map[string]bool
}

// BuildForArchive runs the build pipeline (report.run, as Build and
// Validate do) and returns the site in memory with the files it read;
// it writes nothing.
func BuildForArchive(ctx context.Context, o Options) (*Archivable, error) {
	if err := o.normalise(); err != nil {
		return nil, err
	}
	b, err := run(ctx, &o)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	site := make(map[string][]byte, len(b.files)+1)
	for name, data := range b.files {
		site[name] = data
	}
	site[SiteMarker] = siteMarker(b.study)
	seen := map[string]bool{}
	var files []string
	for _, p := range studyFiles(b.study, b.in) {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if !seen[abs] {
			seen[abs] = true
			files = append(files, abs)
		}
	}
	sort.Strings(files)
	docs := map[string]bool{}
	mark := func(p string) {
		if abs, err := filepath.Abs(p); err == nil {
			docs[abs] = true
		}
	}
	mark(b.study.File)
	for _, p := range b.study.Pages {
		mark(filepath.Join(b.study.Dir, p.Source))
	}
	if b.study.Bibliography != "" {
		mark(filepath.Join(b.study.Dir, b.study.Bibliography))
	}
	return &Archivable{Study: b.study, Site: site, Files: files, Documents: docs}, nil
}

// Within reports whether path lies inside dir (or is dir), after
// resolving symbolic links of both as the output check does.
func Within(dir, path string) bool {
	d, err := resolvePath(dir)
	if err != nil {
		return false
	}
	p, err := resolvePath(path)
	if err != nil {
		return false
	}
	return within(d, p)
}
