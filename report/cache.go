package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"sync"
	"time"

	"github.com/evalbook/evalbook/analyses"
)

// Cache keeps analysis outputs between builds of one process (evalbook
// serve), keyed by the analysis's type, resolved parameters, seed and
// tool version, and valid while every file it read is unchanged (size and
// modification time). Editing prose therefore re-renders pages without
// recomputing; touching an input recomputes only the analyses that read it.
type Cache struct {
	mu      sync.Mutex
	entries map[string]*cacheEntry // by analysis id
	hits    int
}

type cacheEntry struct {
	key   string
	files map[string]fileStamp
	rows  map[string]int64 // rows read per file, replayed into the provenance
	out   *Output
}

type fileStamp struct {
	Size int64
	Mod  time.Time
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{entries: map[string]*cacheEntry{}} }

// Hits returns how many analyses were taken from the cache so far.
func (c *Cache) Hits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

func stamp(path string) (fileStamp, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, false
	}
	return fileStamp{Size: st.Size(), Mod: st.ModTime()}, true
}

// cacheKey identifies an analysis's computation apart from its files:
// its type, resolved parameters, seed, title and caption, the tool
// version, and the parts of the manifest every analysis may read (metric
// directions, dataset attributes, input declarations).
func cacheKey(s *Study, spec AnalysisSpec, seed uint64, version string) string {
	params, _ := paramsMap(spec.Options)
	b, _ := json.Marshal([]any{spec.Type, params, seed, version, spec.Title, spec.Caption, s.Metrics, s.Datasets, s.Inputs, s.Title})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// get returns a cached output still valid for key, recording the files
// it had read in the build's provenance.
func (c *Cache) get(id, key string, in *inputs) (*Output, []string) {
	if c == nil {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[id]
	if e == nil || e.key != key {
		return nil, nil
	}
	for p, was := range e.files {
		now, ok := stamp(p)
		if !ok || now != was {
			return nil, nil
		}
	}
	c.hits++
	for p, rows := range e.rows {
		in.recordFile(p, rows)
	}
	return e.out, analyses.SortedKeys(e.files)
}

// put stores an output with the stamps of the files it read.
func (c *Cache) put(id, key string, files []string, in *inputs, out *Output) {
	if c == nil {
		return
	}
	e := &cacheEntry{key: key, files: map[string]fileStamp{}, rows: map[string]int64{}, out: out}
	in.mu.Lock()
	for _, p := range files {
		if st, ok := stamp(p); ok {
			e.files[p] = st
		}
		if r := in.files[p]; r != nil {
			e.rows[p] = r.Rows
		}
	}
	in.mu.Unlock()
	c.mu.Lock()
	c.entries[id] = e
	c.mu.Unlock()
}
