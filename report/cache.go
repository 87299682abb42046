package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// Cache keeps analysis outputs between builds of one process (evalbook
// serve). An entry is keyed by the analysis's type, resolved parameters,
// seed, the manifest's declarations, the tool version and the parameters
// of the analyses that feed it, and stays valid while every file it read
// has the same content and every path pattern it expanded matches the
// same files (readStamp). Editing prose therefore re-renders pages without
// recomputing; touching an input recomputes only the analyses that read it.
// Each analysis keeps the outputs of its memEntriesPerID most recently
// used input sets side by side, so undoing an edit finds the output of
// before it.
type Cache struct {
	mu      sync.Mutex
	entries map[string][]*cacheEntry // by analysis id, most recently used first
	hits    int
	hashes  *input.HashStore
}

type cacheEntry struct {
	key   string
	stamp readStamp
	out   *kinds.Output
}

// readStamp is what an analysis read, pinned down: the sha256 of every
// file, the matches of every pattern, and the rows read per file (replayed
// into the provenance of a build that takes the output from the cache).
type readStamp struct {
	Files    map[string]string   `json:"files"`
	Patterns map[string][]string `json:"patterns"`
	Rows     map[string]int64    `json:"rows"`
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{entries: map[string][]*cacheEntry{}, hashes: input.NewHashStore()}
}

// Hits returns how many analyses were taken from the cache so far.
func (c *Cache) Hits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

// hashStore is the cache's file-hash store, kept across builds.
func (c *Cache) hashStore() *input.HashStore {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hashes == nil {
		c.hashes = input.NewHashStore()
	}
	return c.hashes
}

// cacheKey identifies an analysis's computation apart from its files:
// its type, resolved parameters, seed, title and caption, the tool
// version, the parts of the manifest every analysis may read (metric
// directions, dataset attributes, input declarations) and the manifest's
// absolute path. The path keeps two copies of one study apart: an entry
// records the files it read by absolute path, so without it a copy with
// other data would be served the first copy's outputs while the first
// copy's files are unchanged.
func cacheKey(s *manifest.Study, in *load.Inputs, spec manifest.AnalysisSpec, seed uint64, version string) string {
	params, _ := manifest.ParamsMap(spec.Options)
	parts := []any{spec.Type, params, seed, version, spec.Title, spec.Caption, s.Metrics, s.Datasets, s.Methods, s.Inputs, s.Title, s.AllowOutside, s.File, s.FigureWidth}
	if k := in.Engines.CacheKey(spec.Kind.ReadsUnits, spec.Options); k != "" {
		parts = append(parts, k) // the engine table's address, fingerprint and SQL
	}
	if k := in.Engines.LogsCacheKey(spec.Type); k != "" {
		parts = append(parts, k) // the engine interaction logs' addresses, fingerprints and SQL
	}
	b, _ := json.Marshal(parts)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// hashStrings hashes a list of strings unambiguously.
func hashStrings(parts []string) string {
	b, _ := json.Marshal(parts)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// stampReads pins down what an analysis read: each file's content as it
// was before the build first read it (inputs.pin). It fails (and the
// output is not stored) when a file can no longer be read.
func stampReads(rs *input.ReadSet, in *load.Inputs) (readStamp, error) {
	st := readStamp{Files: map[string]string{}, Patterns: rs.Patterns(), Rows: map[string]int64{}}
	for p, n := range rs.Heads() { // the header now, if the file is what was read
		sum, err := input.HeadSum(p, n)
		if now, herr := in.Hashes.Sum(p); err != nil || herr != nil || now != in.Pin(p) {
			return st, fmt.Errorf("%s: changed while it was read", p)
		}
		st.Files[input.HeadKey(p, n)] = sum
	}
	for _, p := range rs.Files() {
		sum := in.Pin(p)
		if sum == "" {
			return st, fmt.Errorf("%s: cannot be read", p)
		}
		st.Files[p] = sum
		in.Mu.Lock()
		if r := in.Files[p]; r != nil {
			st.Rows[p] = r.Rows
		}
		in.Mu.Unlock()
	}
	return st, nil
}

// replay records a cached analysis's reads in this build: its rows in
// the provenance, its files and patterns in the build's record. Its
// files' sums are the build's pins: the lookup has just found each file
// with that content (input.Validator), so it is not read again.
func (st readStamp) replay(in *load.Inputs) *input.ReadSet {
	rs := input.NewReadSet()
	v := in.ForAnalysis(rs)
	for p, m := range st.Patterns {
		v.NotePattern(p, m)
	}
	for p, s := range st.Files {
		if path, _, head := input.ParseHeadKey(p); head {
			v.RecordFile(path, 0) // its header: opened, as without the cache
			continue
		}
		in.SetSum(p, s)
		v.RecordFile(p, st.Rows[p])
	}
	return rs
}

// get returns a cached output still valid for key, recording what it had
// read in this build; the entry it takes becomes the most recently used.
func (c *Cache) get(id, key string, in *load.Inputs, v *input.Validator) (*kinds.Output, *input.ReadSet) {
	if c == nil {
		return nil, nil
	}
	c.mu.Lock()
	list := slices.Clone(c.entries[id])
	c.mu.Unlock()
	for _, e := range list {
		if e.key != key || !v.Valid(e.stamp.Files, e.stamp.Patterns) {
			continue
		}
		c.mu.Lock()
		c.hits++
		c.entries[id] = toFront(c.entries[id], e)
		c.mu.Unlock()
		return e.out, e.stamp.replay(in)
	}
	return nil, nil
}

// toFront moves e to the front of list (adding it if it is not there).
func toFront(list []*cacheEntry, e *cacheEntry) []*cacheEntry {
	out := make([]*cacheEntry, 0, len(list)+1)
	out = append(out, e)
	for _, x := range list {
		if x != e {
			out = append(out, x)
		}
	}
	return out
}

// putStamp stores an output with what it read, beside the entries of
// other inputs (an edit and its undo both find theirs); an analysis keeps
// its memEntriesPerID most recently used.
func (c *Cache) putStamp(id, key string, st readStamp, out *kinds.Output) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	list := c.entries[id]
	for _, x := range list {
		if x.key == key && sameReads(x.stamp, st) {
			x.out = out
			c.entries[id] = toFront(list, x)
			return
		}
	}
	list = toFront(list, &cacheEntry{key: key, stamp: st, out: out})
	if len(list) > memEntriesPerID {
		list = list[:memEntriesPerID]
	}
	c.entries[id] = list
}

// memEntriesPerID is how many outputs of one analysis serve keeps in
// memory (of other inputs or other parameters).
const memEntriesPerID = 8

// sameReads reports whether two stamps record the same files with the
// same contents and the same pattern matches.
func sameReads(a, b readStamp) bool {
	return maps.Equal(a.Files, b.Files) && maps.EqualFunc(a.Patterns, b.Patterns, slices.Equal[[]string])
}

// cachePolicy is the build's caching, resolved once from its Options
// (NoCache, Cache, CacheDir, CacheMaxBytes) by resolveCache: every later
// decision reads it, not the options.
type cachePolicy struct {
	// on: outputs may be taken from the caches and put into them. Off
	// with NoCache, and for the rest of a build once a feeding analysis
	// failed (the others would be computed without its values).
	on     bool
	memory *Cache     // serve's memory cache, or nil
	disk   *diskStore // the content-addressed store in CacheDir, or nil
}

// resolveCache decides the build's caching once: the file hashes the
// input state starts from (serve's, kept across its builds; or those
// saved in CacheDir; or none with NoCache) and o.cache. The function it
// returns ends the build's caching: it waits for the disk entries (written
// while the site renders) and saves the hashes.
func (o *Options) resolveCache(in *load.Inputs) (finish func()) {
	o.cache = cachePolicy{on: !o.NoCache}
	if o.NoCache {
		return func() {}
	}
	save := func() {}
	if o.Cache != nil {
		in.Hashes, o.cache.memory = o.Cache.hashStore(), o.Cache
	} else {
		in.Hashes = input.LoadHashStore(o.CacheDir)
		if !o.validate { // validate reads the cache and writes nothing
			save = func() { in.Hashes.Save(o.CacheDir) }
		}
	}
	if o.CacheDir == "" {
		return save
	}
	disk := newDiskStore(o.CacheDir, o.CacheMaxBytes, in.Hashes, o.Warn, o.cacheNow)
	disk.readOnly, disk.onScan = o.validate, o.onCacheScan
	o.cache.disk = disk
	return func() {
		disk.finish()
		save()
	}
}
