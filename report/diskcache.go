package report

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/evalbook/evalbook/report/cachefmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/site"
)

// The disk cache lets one-shot builds (evalbook build, and serve after a
// restart) reuse an analysis's output when nothing it depends on changed.
// It is content-addressed: an entry's address is the hash of
//
//   - the cache's schema (cacheSchema) and the evalbook binary (its Go
//     build ID, or the sha256 of the binary where it has none), so a
//     rebuilt tool never trusts old results;
//   - the analysis's id and key (cacheKey: type, resolved parameters,
//     seed, the manifest's declarations, the feeding analyses' keys, the
//     reading rules);
//   - what the analysis read: every path pattern with the files it
//     matched, and every file with its sha256.
//
// Entries live side by side in one directory per analysis id and key
// (<dir>/v2/<id>-<key hash>/<shape>-<address>.entry), so the output
// computed before an edit is still there after the edit is undone. The
// shape hashes what was read without the contents (the patterns with
// their matches, the files' paths): a lookup reads one entry's record of
// what it read per shape, takes those files' sums as they are now, and
// opens the one entry they address, if it is there. The store is bounded
// (Options.CacheMaxBytes, DefaultCacheMaxBytes): one analysis keeps at
// most maxEntriesPerKey, and a scan of the whole store removes the least
// recently used entries (a hit touches its entry) until the rest fit. A
// scan comes when the bytes the builds wrote (the usage count, made true
// by each scan) pass the bound, and every rescanEvery builds that wrote.
//
// An entry is "evalbook-cache 2\n", then "<stamp length> <payload length>
// <sha256 of stamp and payload>\n", then the stamp (what it read, JSON)
// and the payload (diskEntry, JSON). A damaged entry — cut short, a byte
// changed, a head that does not parse, an address that does not match
// its stamp — is a miss with a warning, and is removed: its numbers never
// reach a site. Entries are written to a temporary file and renamed into
// place, so concurrent builds into one cache read whole entries or none.
//
// What is stored is the output as the site writer sees it — tables, data
// tables, notes, the result's own JSON, the key finding, figures and the
// method note — so a cached build is byte-identical to a computed one.
// Kinds that feed other analyses (Kind.Feeds) stream values and are not
// stored on disk.

// cacheSchema is the version of the entries' layout and of what their
// addresses hash; a change makes every older entry unreachable.
const cacheSchema = 2

// DefaultCacheMaxBytes bounds the disk cache when Options.CacheMaxBytes
// is 0.
const DefaultCacheMaxBytes = 256 << 20

// rescanEvery is how many builds that wrote may trust the usage file's
// count before one scans the whole store again.
const rescanEvery = 32

// maxEntriesPerKey is how many input sets of one analysis (with one key)
// the disk cache keeps: enough for a series of edits and their undos.
const maxEntriesPerKey = 16

// diskEntry is one cached output on disk.
type diskEntry struct {
	// A feeding analysis's derived results, and whether it derives
	// per-unit values (made again when read: build.go, lazyUnits): first,
	// so that the others read them without the rest (cachedOutput).
	Derived      []load.ResultRow `json:"derived,omitempty"`
	DerivesUnits bool             `json:"derives_units,omitempty"`
	Tables       []analyses.Table `json:"-"` // stored by column as Cols
	DataTables   []analyses.Table `json:"-"` // and DataCols (cachefmt)
	Cols         []cachefmt.Table `json:"tables"`
	DataCols     []cachefmt.Table `json:"data_tables,omitempty"`
	Notes        []string         `json:"notes"`
	Own          json.RawMessage  `json:"own"`
	Highlight    *string          `json:"highlight,omitempty"`
	Report       []string         `json:"report,omitempty"` // site.Reporter's sentences
	Figures      []figures.Figure `json:"figures"`
	Method       string           `json:"method"`
}

// frozenResult replays a cached result for the site writer.
type frozenResult struct{ e *diskEntry }

func (f frozenResult) Tables() []analyses.Table     { return f.e.Tables }
func (f frozenResult) Notes() []string              { return f.e.Notes }
func (f frozenResult) DataTables() []analyses.Table { return f.e.DataTables }
func (f frozenResult) MarshalJSON() ([]byte, error) { return f.e.Own, nil }
func (f frozenResult) Report() []string             { return f.e.Report }

// frozenHighlighted is a frozenResult whose original had a key finding.
type frozenHighlighted struct{ frozenResult }

func (f frozenHighlighted) Highlight() string { return *f.e.Highlight }

// diskStore is the disk cache of one build: lookups, the writes it
// started (in the background, joined by finish) and the eviction after
// them.
type diskStore struct {
	dir  string // <cache dir>/v2
	root string // the cache dir (hashes.tsv, entries of older layouts)
	max  int64
	tool string
	warn io.Writer
	now  func() time.Time

	wg sync.WaitGroup
	mu sync.Mutex
	// wroteBytes and wroteDirs are what the build's writes added: the
	// usage count, and the key directories to hold to maxEntriesPerKey
	// (none: the build wrote nothing).
	wroteBytes int64
	wroteDirs  map[string]bool
	// onScan, when set (tests), is told of each scan of the whole store.
	onScan func()
	// readOnly (validate): entries are read, never written, touched or
	// removed, so that validate writes nothing.
	readOnly bool
}

// newDiskStore opens the disk cache in dir for a build, or returns nil
// when dir is "".
func newDiskStore(dir string, max int64, hashes *input.HashStore, warn io.Writer, now func() time.Time) *diskStore {
	if dir == "" {
		return nil
	}
	if max <= 0 {
		max = DefaultCacheMaxBytes
	}
	if now == nil {
		now = time.Now
	}
	return &diskStore{dir: filepath.Join(dir, "v2"), root: dir, max: max, tool: input.ToolID(hashes), warn: warn, now: now}
}

// keyDir is the directory of the entries of one analysis with one key.
func (d *diskStore) keyDir(id, key string) string {
	h := sha256.Sum256([]byte(strconv.Itoa(cacheSchema) + "\x00" + d.tool + "\x00" + id + "\x00" + key))
	return filepath.Join(d.dir, id+"-"+hex.EncodeToString(h[:12]))
}

// errDamaged marks an entry that is not what the cache wrote.
var errDamaged = cachefmt.ErrDamaged

// get returns the output of an entry of id and key whose reads are all
// as they are now, or nil: its bytes read and checked, decoded when
// needed (the most a cached build spends), so that a build whose
// rendered site comes from the cache never decodes them. For each shape
// of reads the directory holds (the most recently used first) it reads
// one entry's record of what it read, takes the current sums of those
// files, and opens the entry they name, if there is one: one record read
// per shape, however many contents the directory keeps. Damaged entries
// met on the way are reported and removed.
func (d *diskStore) get(id, key string, v *input.Validator) (*cachedOutput, readStamp) {
	if d == nil {
		return nil, readStamp{}
	}
	kd := d.keyDir(id, key)
	cands, names := listEntries(kd)
	damaged := func(p string, err error) { d.drop(p, err, fmt.Sprintf("analysis %q is computed again", id)) }
	tried := map[string]bool{}
	for _, c := range cands {
		if tried[c.shape] {
			continue
		}
		p := filepath.Join(kd, c.name)
		h, err := openEntry(p)
		if err != nil {
			if errors.Is(err, errDamaged) {
				damaged(p, err) // the next entry of its shape stands in
			}
			continue
		}
		if cachefmt.Shape(h.st.Files, h.st.Patterns) != c.shape {
			h.close()
			damaged(p, fmt.Errorf("%w: its name is not the shape of what it read", errDamaged))
			continue
		}
		tried[c.shape] = true
		files, ok := v.Current(h.st.Files, h.st.Patterns)
		if !ok {
			h.close() // a pattern matches other files, or a file is gone
			continue
		}
		want := cachefmt.EntryName(kd, files, h.st.Patterns)
		if want != c.name {
			h.close()
			if !names[want] {
				continue // these contents were never built (or were evicted)
			}
			p = filepath.Join(kd, want)
			if h, err = openEntry(p); err != nil {
				if errors.Is(err, errDamaged) {
					damaged(p, err)
				}
				continue
			}
		}
		payload, err := h.output(want, kd, v)
		h.close()
		if err != nil {
			if errors.Is(err, errDamaged) {
				damaged(p, err)
			}
			continue
		}
		d.touch(p)
		return &cachedOutput{payload, func(err error) { d.drop(p, err, "it is not used") }}, h.st
	}
	return nil, readStamp{}
}

// cachedOutput is an entry's payload, read and checked, decoded when
// needed; drop removes the entry when it does not decode.
type cachedOutput struct {
	payload []byte
	drop    func(error)
}

// output decodes the whole output.
func (c *cachedOutput) output() (*kinds.Output, error) {
	out, err := decodeEntry(c.payload)
	if err != nil { // checked, yet not what this binary writes
		c.drop(err)
	}
	return out, err
}

// derived decodes what a feeding analysis gives the others — its derived
// results, and whether it derives per-unit values — and not the rest.
func (c *cachedOutput) derived() (*kinds.Output, error) {
	var e diskEntry
	err := cachefmt.DecodeLeading(c.payload, map[string]any{"derived": &e.Derived, "derives_units": &e.DerivesUnits})
	if err != nil {
		c.drop(err)
		return nil, err
	}
	out := &kinds.Output{Results: e.Derived}
	if e.DerivesUnits {
		out.Units = noUnits // replaced by the build (lazyUnits)
	}
	return out, nil
}

// drop reports the damaged entry at p, and what is done instead, and
// removes it.
func (d *diskStore) drop(p string, err error, instead string) {
	d.warnf("evalbook: warning: cache entry %s is damaged (%v); %s", p, err, instead)
	if !d.readOnly {
		os.Remove(p)
	}
}

// touch marks the entry at p used now: the last to be evicted.
func (d *diskStore) touch(p string) {
	if !d.readOnly {
		t := d.now()
		os.Chtimes(p, t, t)
	}
}

// entryFile is an entry in its key's directory.
type entryFile struct {
	name, shape string
	mod         time.Time
}

// listEntries lists the entries of a key's directory, the most recently
// used first (the likeliest to hold), and the set of their names.
func listEntries(kd string) ([]entryFile, map[string]bool) {
	list, err := input.ListOwn(kd)
	if err != nil {
		return nil, nil
	}
	var cands []entryFile
	names := map[string]bool{}
	for _, e := range list {
		shape, _, ok := strings.Cut(e.Name(), "-")
		if !strings.HasSuffix(e.Name(), ".entry") || !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		cands = append(cands, entryFile{e.Name(), shape, info.ModTime()})
		names[e.Name()] = true
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].mod.After(cands[j].mod) })
	return cands, names
}

func (d *diskStore) warnf(format string, args ...any) {
	if d.warn != nil {
		fmt.Fprintf(d.warn, format+"\n", args...)
	}
}

// entryHead is an open entry whose head and record of what it read
// (stamp) have been read.
type entryHead struct {
	f  *os.File
	br *bufio.Reader
	cachefmt.Head
	st readStamp
}

func (h *entryHead) close() { h.f.Close() }

// openEntry opens an entry and reads its head and stamp; an error
// wrapping errDamaged when they are not as the cache writes them.
func openEntry(path string) (*entryHead, error) {
	f, err := input.OpenOwn(path)
	if err != nil {
		return nil, err // evicted meanwhile: a miss
	}
	h := &entryHead{f: f, br: bufio.NewReaderSize(f, 16<<10)}
	info, err := f.Stat()
	if err == nil {
		h.Head, err = cachefmt.ReadHead(h.br, info.Size())
	}
	if err == nil && (json.Unmarshal(h.Stamp, &h.st) != nil || h.st.Files == nil) {
		err = fmt.Errorf("%w: its record of what the analysis read does not parse", errDamaged)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return h, nil
}

// output reads the rest of an entry named name, its payload: its
// checksum must hold, its name must be the address of what it read, and
// what it read must be as the files are now.
func (h *entryHead) output(name, keyDir string, v *input.Validator) ([]byte, error) {
	payload, err := h.Payload(h.br)
	if err != nil {
		return nil, err
	}
	if cachefmt.EntryName(keyDir, h.st.Files, h.st.Patterns) != name {
		return nil, fmt.Errorf("%w: its name is not the address of what it read", errDamaged)
	}
	if !v.Valid(h.st.Files, h.st.Patterns) {
		return nil, errors.New("not the files as they are now")
	}
	return payload, nil
}

// decodeEntry is the output an entry's payload holds.
func decodeEntry(payload []byte) (*kinds.Output, error) {
	damaged := func(format string, args ...any) (*kinds.Output, error) {
		return nil, fmt.Errorf("%w: "+format, append([]any{errDamaged}, args...)...)
	}
	var e diskEntry
	err := json.Unmarshal(payload, &e)
	if err != nil {
		return damaged("its output does not parse: %v", err)
	}
	if e.Tables, err = cachefmt.Decode(e.Cols); err == nil {
		e.DataTables, err = cachefmt.Decode(e.DataCols)
	}
	if err != nil {
		return damaged("its tables do not parse: %v", err)
	}
	var res analyses.Result = frozenResult{&e}
	if e.Highlight != nil {
		res = frozenHighlighted{frozenResult{&e}}
	}
	out := &kinds.Output{Result: res, Figures: e.Figures, Method: e.Method, Results: e.Derived}
	if e.DerivesUnits {
		out.Units = noUnits // replaced by the build (lazyUnits)
	}
	return out, nil
}

// encodeEntry is an entry's stamp and payload.
func encodeEntry(st readStamp, out *kinds.Output) (stamp, payload []byte, err error) {
	own, err := json.Marshal(out.Result)
	if err != nil {
		return nil, nil, err
	}
	e := diskEntry{Tables: out.Result.Tables(), Notes: out.Result.Notes(), Own: own, Figures: out.Figures, Method: out.Method,
		Derived: out.Results, DerivesUnits: out.Units != nil}
	if dt, ok := out.Result.(interface{ DataTables() []analyses.Table }); ok {
		e.DataTables = dt.DataTables()
	}
	if h, ok := out.Result.(analyses.Highlighter); ok {
		s := h.Highlight()
		e.Highlight = &s
	}
	if r, ok := out.Result.(site.Reporter); ok {
		e.Report = r.Report()
	}
	e.Cols, e.DataCols = cachefmt.Encode(e.Tables), cachefmt.Encode(e.DataTables)
	if payload, err = json.Marshal(e); err == nil {
		stamp, err = json.Marshal(st)
	}
	return stamp, payload, err
}

// put stores an output in the background (finish waits for it); a
// failure only costs a later build time.
func (d *diskStore) put(id, key string, st readStamp, out *kinds.Output) {
	if d != nil {
		kd := d.keyDir(id, key)
		d.putEntry(id, key, cachefmt.EntryName(kd, st.Files, st.Patterns), func() ([]byte, []byte, error) { return encodeEntry(st, out) })
	}
}

// putEntry writes the entry of the stamp and payload encode makes, named
// name, in the background.
func (d *diskStore) putEntry(id, key, name string, encode func() (stamp, payload []byte, err error)) {
	if d == nil || d.readOnly {
		return
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		stamp, payload, err := encode()
		var n int64
		if err == nil {
			n, err = d.write(d.keyDir(id, key), name, stamp, payload)
		}
		if err == nil {
			d.mu.Lock()
			d.wroteBytes += n
			if d.wroteDirs == nil {
				d.wroteDirs = map[string]bool{}
			}
			d.wroteDirs[d.keyDir(id, key)] = true
			d.mu.Unlock()
		}
	}()
}

// write writes an entry named name into its key's directory kd: to a
// temporary file, renamed into place, so a reader sees a whole entry or
// none.
func (d *diskStore) write(kd, name string, stamp, payload []byte) (int64, error) {
	if err := os.MkdirAll(kd, 0o755); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(kd, ".tmp-")
	if err != nil {
		return 0, err
	}
	n, werr := cachefmt.WriteEntry(tmp, stamp, payload)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		// written now (the kernel's clock and the store's may differ:
		// tests run the store on a clock of their own)
		now := d.now()
		werr = os.Chtimes(tmp.Name(), now, now)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), filepath.Join(kd, name))
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return 0, fmt.Errorf("cache: %w", werr)
	}
	return n, nil
}

// finish waits for the build's writes and, if there were any, evicts
// what no longer fits.
func (d *diskStore) finish() {
	if d == nil {
		return
	}
	d.wg.Wait()
	d.mu.Lock()
	added, dirs := d.wroteBytes, d.wroteDirs
	d.mu.Unlock()
	if len(dirs) == 0 {
		return
	}
	for kd := range dirs {
		_, removed := keyEntries(kd, d.now())
		added -= removed
	}
	usage, builds, ok := d.readUsage()
	if usage += added; ok && usage <= d.max && builds+1 < rescanEvery {
		d.writeUsage(usage, builds+1)
		return
	}
	d.writeUsage(d.evict(), 0)
}

// readUsage reads the store's usage count (cachefmt.UsageFile); ok is
// false when there is none to trust.
func (d *diskStore) readUsage() (bytes int64, builds int, ok bool) {
	b, err := input.ReadOwn(filepath.Join(d.dir, cachefmt.UsageFile))
	if err != nil {
		return 0, 0, false
	}
	return cachefmt.ParseUsage(b)
}

// writeUsage writes the usage count, renamed into place; a count that
// cannot be written is read as none by the next build, which then scans.
func (d *diskStore) writeUsage(bytes int64, builds int) {
	tmp, err := os.CreateTemp(d.dir, ".tmp-usage-")
	if err != nil {
		return
	}
	_, werr := tmp.Write(cachefmt.FormatUsage(bytes, builds))
	if cerr := tmp.Close(); werr == nil && cerr == nil && os.Rename(tmp.Name(), filepath.Join(d.dir, cachefmt.UsageFile)) == nil {
		return
	}
	os.Remove(tmp.Name())
}

// staleTemp is the age from which a temporary file of the cache is a
// write that was killed, not one under way.
const staleTemp = time.Hour

// evict scans the whole store: it removes, least recently used first,
// the entries beyond maxEntriesPerKey of one analysis and then those
// beyond the store's bound, and returns the bytes of the entries left.
// It also removes killed writes and the entries of the layout before
// content addressing (<id>-<hash>.json in the cache directory), which
// no build reads any more.
func (d *diskStore) evict() (total int64) {
	if d.onScan != nil {
		d.onScan()
	}
	var all []cacheFile
	now := d.now()
	dirs, _ := input.ListOwn(d.dir)
	for _, dir := range dirs {
		if !dir.IsDir() {
			if info, err := dir.Info(); err == nil && strings.HasPrefix(dir.Name(), ".tmp-") && now.Sub(info.ModTime()) > staleTemp {
				os.Remove(filepath.Join(d.dir, dir.Name())) // a usage count's killed write
			}
			continue
		}
		kd := filepath.Join(d.dir, dir.Name())
		mine, _ := keyEntries(kd, now)
		for _, e := range mine {
			all = append(all, e)
			total += e.size
		}
		if len(mine) == 0 {
			os.Remove(kd) // empty (fails, harmlessly, if a write just began)
		}
	}
	if total > d.max {
		sort.Slice(all, func(i, j int) bool { return all[i].mod.Before(all[j].mod) })
		for _, e := range all {
			if total <= d.max {
				break
			}
			if rerr := os.Remove(e.path); rerr == nil || errors.Is(rerr, fs.ErrNotExist) {
				total -= e.size // gone, by this build or another
			}
		}
	}
	if top, err := input.ListOwn(d.root); err == nil {
		for _, e := range top {
			if p := filepath.Join(d.root, e.Name()); cachefmt.IsLegacyEntry(e.Name()) && e.Type().IsRegular() && legacyContent(p) {
				os.Remove(p)
			}
		}
	}
	return total
}

// legacyContent reports whether the file at path begins as the entries
// of the cache's first layout did: nothing else is removed.
func legacyContent(path string) bool {
	f, err := input.OpenOwn(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(cachefmt.LegacyHead))
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == cachefmt.LegacyHead
}

// cacheFile is an entry of the store, with its size and last use.
type cacheFile struct {
	path string
	size int64
	mod  time.Time
}

// keyEntries lists the entries of the key directory kd, most recently
// used first, holding them to maxEntriesPerKey (maxSitesPerStudy for
// rendered sites; the least recently used go); it removes killed writes
// too. It returns the entries left and
// the bytes removed.
func keyEntries(kd string, now time.Time) (mine []cacheFile, removed int64) {
	list, _ := input.ListOwn(kd)
	for _, e := range list {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		p := filepath.Join(kd, e.Name())
		if strings.HasPrefix(e.Name(), ".tmp-") {
			if now.Sub(info.ModTime()) > staleTemp {
				os.Remove(p)
			}
			continue
		}
		if strings.HasSuffix(e.Name(), ".entry") {
			mine = append(mine, cacheFile{p, info.Size(), info.ModTime()})
		}
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].mod.After(mine[j].mod) })
	keep := min(len(mine), maxEntriesPerKey)
	if strings.HasPrefix(filepath.Base(kd), siteID+"-") {
		keep = min(len(mine), maxSitesPerStudy)
	}
	for _, e := range mine[keep:] {
		if os.Remove(e.path) == nil {
			removed += e.size
		}
	}
	return mine[:keep], removed
}

// noUnits stands for a cached feeder's units until the build replaces it.
func noUnits(func(*load.UnitRow) error) error {
	return errors.New("internal error: a cached analysis's per-unit values were read before the build made them again")
}
