package input

import (
	"sort"
	"sync"
)

// A ReadSet is what one analysis (or one shared loader) read: every file
// it opened and every path pattern it expanded, with the files the
// pattern matched, and the files of which it used the header alone. It
// is the single record from which the cache's key and validity, serve's
// watch list and the provenance are derived: the input layer fills it as
// files are opened, so no reader can forget to.
type ReadSet struct {
	mu       sync.Mutex
	files    map[string]bool     // absolute paths
	patterns map[string][]string // absolute pattern → matched absolute paths, sorted
	// heads are files of which only the header counted, each with the
	// length of its header in bytes (HeadSum): a units file of a method
	// an analysis does not compare, which the shared units pass opened
	// for others, tells it only which metrics the file holds.
	heads map[string]int64
}

// NewReadSet returns an empty record of reads.
func NewReadSet() *ReadSet {
	return &ReadSet{files: map[string]bool{}, patterns: map[string][]string{}, heads: map[string]int64{}}
}

// AddHead records a file of which only the first n bytes, its header,
// counted. A file also read whole counts whole (Heads leaves it out).
func (r *ReadSet) AddHead(path string, n int64) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.heads[path] = n
	r.mu.Unlock()
}

// Heads returns the files of which only the header counted, with the
// header's length, leaving out those read whole.
func (r *ReadSet) Heads() map[string]int64 {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int64, len(r.heads))
	for p, n := range r.heads {
		if !r.files[p] {
			out[p] = n
		}
	}
	return out
}

// MergeHeads adds everything o read, but the files in heads: of those
// only the header counted (AddHead, with the header's length).
func (r *ReadSet) MergeHeads(o *ReadSet, heads map[string]int64) {
	if len(heads) == 0 {
		r.Merge(o)
		return
	}
	part := NewReadSet()
	part.Merge(o)
	part.mu.Lock()
	for p, n := range heads {
		if part.files[p] {
			delete(part.files, p)
			part.heads[p] = n
		}
	}
	part.mu.Unlock()
	r.Merge(part)
}

// AddFile records files read. A nil set records nothing.
func (r *ReadSet) AddFile(paths ...string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	for _, p := range paths {
		r.files[p] = true
	}
	r.mu.Unlock()
}

// AddPattern records a pattern's expansion.
func (r *ReadSet) AddPattern(pattern string, matched []string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.patterns[pattern] = append([]string(nil), matched...)
	r.mu.Unlock()
}

// Merge adds everything o read.
func (r *ReadSet) Merge(o *ReadSet) {
	if r == nil || o == nil || r == o {
		return
	}
	o.mu.Lock()
	files := make([]string, 0, len(o.files))
	for p := range o.files {
		files = append(files, p)
	}
	pats := make(map[string][]string, len(o.patterns))
	for p, m := range o.patterns {
		pats[p] = m
	}
	heads := make(map[string]int64, len(o.heads))
	for p, n := range o.heads {
		heads[p] = n
	}
	o.mu.Unlock()
	r.mu.Lock()
	for _, p := range files {
		r.files[p] = true
	}
	for p, m := range pats {
		r.patterns[p] = m
	}
	for p, n := range heads {
		r.heads[p] = n
	}
	r.mu.Unlock()
}

// Files lists the files read, sorted.
func (r *ReadSet) Files() []string {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.files))
	for p := range r.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Patterns returns a copy of the patterns and their matches.
func (r *ReadSet) Patterns() map[string][]string {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string][]string, len(r.patterns))
	for p, m := range r.patterns {
		out[p] = m
	}
	return out
}
