package report

import (
	"context"
	"fmt"
	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/manifest"
	"os"
	"path/filepath"
	"sort"
)

// Archivable is a build rendered in memory for `evalbook pack` and
// `evalbook verify` (package report/archive): the site's files and every
// study file the build depended on, taken from the build's own record of
// what it read (input.ReadSet, the same record as provenance.json), so an
// archive can never miss an input.
type Archivable struct {
	Study *manifest.Study
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
	// sums are the sha256 the build recorded for each of Files (the
	// manifest's of the bytes it parsed): Read returns only those bytes.
	sums map[string]string
}

// Read returns the bytes of one of Files as the build read them, or an
// error when the file has changed since (or was never among Files): an
// archive holds exactly what its site was built from.
func (a *Archivable) Read(path string) ([]byte, error) {
	want, ok := a.sums[path]
	if !ok {
		return nil, fmt.Errorf("%s: not a file this build read", path)
	}
	return input.ReadAsRecorded(path, path, want)
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
	site[SiteMarker] = siteMarker(b.study, b.files)
	seen := map[string]bool{}
	var files []string
	sums := map[string]string{}
	for _, p := range studyFiles(b.study, b.in) {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if seen[abs] {
			continue
		}
		seen[abs] = true
		files = append(files, abs)
		if sums[abs], err = recordedSum(b, p); err != nil {
			return nil, err
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
	return &Archivable{Study: b.study, Site: site, Files: files, Documents: docs, sums: sums}, nil
}

// recordedSum is the sha256 the build recorded for a file it read: the
// manifest's of the bytes parsed, any other's pinned at its first read.
func recordedSum(b *built, p string) (string, error) {
	if p == b.study.File {
		return b.study.SourceSum, nil
	}
	sum := b.in.Pin(p)
	if sum == "" && b.in.ChangedWhileRead(p) {
		return "", fmt.Errorf("%s: changed while this build read it (build again)", b.in.Display(p))
	}
	if sum == "" {
		return "", fmt.Errorf("%s: cannot be read", b.in.Display(p))
	}
	return sum, nil
}

// Within reports whether path lies inside dir (or is dir), after
// resolving symbolic links of both as the output check does.
func Within(dir, path string) bool {
	d, err := input.ResolvePath(dir)
	if err != nil {
		return false
	}
	p, err := input.ResolvePath(path)
	if err != nil {
		return false
	}
	return within(d, p)
}

// OpenArchive opens the zip `evalbook verify` checks (through the input
// layer, like every read of the tool).
// A named pipe, a device or a file on /proc is refused, never waited on.
func OpenArchive(path string) (*input.Zip, error) { return input.OpenZip(path) }

// OpenSupplied opens an input `evalbook verify --inputs` supplies, a
// regular file only (input.OpenSupplied); the caller reads it as far as
// the archive says it is long.
func OpenSupplied(path string) (*os.File, error) { return input.OpenSupplied(path) }
