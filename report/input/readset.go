package input

import (
	"sort"
	"sync"
)

// A ReadSet is what one analysis (or one shared loader) read: every file
// it opened and every path pattern it expanded, with the files the
// pattern matched. It is the single record from which the cache's key
// and validity, serve's watch list and the provenance are derived: the
// input layer fills it as files are opened, so no reader can forget to.
type ReadSet struct {
	mu       sync.Mutex
	files    map[string]bool     // absolute paths
	patterns map[string][]string // absolute pattern → matched absolute paths, sorted
}

// NewReadSet returns an empty record of reads.
func NewReadSet() *ReadSet {
	return &ReadSet{files: map[string]bool{}, patterns: map[string][]string{}}
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
	o.mu.Unlock()
	r.mu.Lock()
	for _, p := range files {
		r.files[p] = true
	}
	for p, m := range pats {
		r.patterns[p] = m
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
