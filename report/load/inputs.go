package load

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/datasets"
	"github.com/evalbook/evalbook/analyses/offline"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/input/parquet"
	"github.com/evalbook/evalbook/report/input/runs"
	"github.com/evalbook/evalbook/report/load/engines"
)

// Inputs is the input layer: every file a build reads is opened through
// it, so the files and path patterns each analysis read are recorded (see
// input.ReadSet) for the cache, serve's watch list and the provenance alike.
// Shared inputs (results, characteristics) are loaded lazily, once per
// build. An inputs value is a view of the build's shared state that
// records into one analysis's input.ReadSet (nil: the build's own reads).
type Inputs struct {
	*inputState
	Reads *input.ReadSet
}

type inputState struct {
	Study        *Config
	Engines      *engines.State // the build's engine connections and queries
	AllowOutside bool
	// Tried holds every path the build tried to open (checkFile), found
	// or not: serve watches them, so a file missing at one build (a
	// summary during a git checkout) is seen when it comes back.
	Tried  *input.ReadSet
	Hashes *input.HashStore
	links  input.Resolver // the directories checkMatched resolved
	// sums is the sha256 of each file: taken before it was first read in
	// this build, or (a units file read to its end) of the very bytes it
	// was parsed from. "" marks a file that changed while it was read.
	sums    map[string]string
	pinning map[string]chan struct{} // files being hashed by pin: closed when done
	All     *input.ReadSet           // everything any view read or expanded

	resultsOnce sync.Once
	res         *analyses.Results
	resErr      error
	ResReads    *input.ReadSet

	charOnce  sync.Once
	char      *Characteristics
	charErr   error
	CharReads *input.ReadSet

	Mu    sync.Mutex
	Files map[string]*fileRecord // by absolute path

	kindFiles map[string][]string // "results" → its files, once expanded

	// Sources are the pages and the bibliography, read once, by their
	// manifest path.
	Sources map[string][]byte

	// Derived are the outputs of analyses that feed the others
	// (Kind.Feeds), in manifest order; set before those others run.
	Derived []DerivedSource

	// onOpen, when set (tests), is told every file opened.
	OnOpen func(path string)

	// Jobs is the build's number of workers; a units file of at least
	// parallelMin bytes (uncompressed CSV or TSV) is parsed by them in
	// byte ranges of chunkBytes (unitspass.go).
	Jobs                    int
	ParallelMin, ChunkBytes int64
	freeBatches             chan *UnitsBatchOf // freeList, batches of UnitsBatch rows
	freeLone                chan *UnitsBatchOf // freeList, batches of RangeBatch rows
	OnParallel              func(path string)  // tests: told each file read in ranges
	// RepeatWords and repeatMaxCands, when set (tests), fix the size of
	// the repeat check's filter and how many candidates it keeps
	// (unitrepeat.go).
	RepeatWords, RepeatMaxCands int
	RepeatOff                   bool // benchmarks: no check, to measure what it costs
	// UnitsFastOff (tests, benchmarks): every line of a units file goes
	// through the record path, none through the fast path (unitsfast.go).
	UnitsFastOff bool
	// FastLines counts the lines of units files the fast path read.
	FastLines atomic.Int64
	// repeatSpillMem, when set (tests), is the bytes of hashes the check
	// keeps in memory before it writes them to a file; -1: it keeps
	// none (as when the file cannot be written). onRepeatSettle, when
	// set, is told how many candidates the spill left to confirm.
	RepeatSpillMem int
	OnRepeatSettle func(toConfirm int)
	// OnRepeatTwins, when set (tests), is told when the pass is over how
	// many slots were twins (repeatSlot.twin) and how many were parted.
	OnRepeatTwins func(twins, parted int)
	// repeatEarlySlot, when set (tests), is how many hashes of the ids
	// before its break a slot keeps.
	RepeatEarlySlot int
}

// DerivedSource is one feeding analysis's contribution to the inputs.
type DerivedSource struct {
	Id      string
	Results []ResultRow
	Units   func(fn func(u *UnitRow) error) error
	Reads   *input.ReadSet // what the feeding analysis read
}

// ForAnalysis returns a view that records into rs.
func (in *Inputs) ForAnalysis(rs *input.ReadSet) *Inputs {
	return &Inputs{inputState: in.inputState, Reads: rs}
}

// NoteFile records a file read by this view, pinning its content first.
func (in *Inputs) NoteFile(path string) {
	in.Pin(path)
	in.noteRead(path)
}

// noteRead records a file read by this view.
func (in *Inputs) noteRead(path string) {
	if in.OnOpen != nil {
		in.OnOpen(path)
	}
	in.Reads.AddFile(path)
	in.All.AddFile(path)
}

// sumKnown reports whether a file's sum is known without reading it: in
// this build, or in the hash store for the file as it is now.
func (in *Inputs) sumKnown(path string) bool {
	in.Mu.Lock()
	_, ok := in.sums[path]
	in.Mu.Unlock()
	if ok {
		return true
	}
	_, ok = in.Hashes.Known(path)
	return ok
}

// finishHash settles the sum of a file opened with openHashing, when it
// is closed. Read to its end, its sum is that of the bytes parsed (and
// the hash store learns it). Otherwise (read in byte ranges, or not to
// its end) the file is hashed now, if it still is what was opened; a
// file that changed while it was read gets no sum, so no cache entry and
// no provenance claim is made for content that was not what was read.
func (in *Inputs) finishHash(path string, t *input.TableReader) {
	if sum, ok := in.Hashes.LearnFrom(path, t); ok {
		in.SetSum(path, sum)
		return
	}
	opened, ok := t.OpenedAs()
	if !ok {
		return
	}
	if now, ok := input.Stamp(path); ok && now == opened {
		in.Pin(path)
		return
	}
	in.Mu.Lock()
	in.sums[path] = "" // whatever was pinned before: it is not what was read
	in.Mu.Unlock()
}

// ChangedWhileRead reports whether finishHash found a file changed while
// this build read it.
func (in *Inputs) ChangedWhileRead(path string) bool {
	in.Mu.Lock()
	defer in.Mu.Unlock()
	s, ok := in.sums[path]
	return ok && s == ""
}

// SetSum records a sum unless the file already has one in this build.
func (in *Inputs) SetSum(path, sum string) {
	in.Mu.Lock()
	if _, ok := in.sums[path]; !ok {
		in.sums[path] = sum
	}
	in.Mu.Unlock()
}

// Pin returns a file's sha256 as it was before this build first read it:
// what the cache and the provenance record. A file changed while it is
// read therefore never gets a cache entry that looks valid for its new
// content. "" when the file cannot be read (the reader reports why).
func (in *Inputs) Pin(path string) string { return in.pinTo(path, nil) }

// pinTo is pin that also writes the file's bytes to also if it reads the
// file to hash it (read tells).
func (in *Inputs) pinTo(path string, also io.Writer) string {
	s, _ := in.pinRead(path, also)
	return s
}

// pinRead is pinTo that reports whether this call read the file.
func (in *Inputs) pinRead(path string, also io.Writer) (string, bool) {
	in.Mu.Lock()
	if s, ok := in.sums[path]; ok {
		in.Mu.Unlock()
		return s, false
	}
	if wait, ok := in.pinning[path]; ok { // being hashed: one read is enough
		in.Mu.Unlock()
		<-wait
		in.Mu.Lock()
		s := in.sums[path]
		in.Mu.Unlock()
		return s, false
	}
	done := make(chan struct{})
	if in.pinning == nil {
		in.pinning = map[string]chan struct{}{}
	}
	in.pinning[path] = done
	in.Mu.Unlock()
	s, read, err := in.Hashes.SumTo(path, also)
	in.Mu.Lock()
	delete(in.pinning, path)
	if was, ok := in.sums[path]; ok {
		s = was
	} else if err == nil {
		in.sums[path] = s
	} else {
		s = ""
	}
	in.Mu.Unlock()
	close(done)
	return s, read && err == nil
}

// NotePattern records a pattern's expansion by this view.
func (in *Inputs) NotePattern(pattern string, matched []string) {
	in.Reads.AddPattern(pattern, matched)
	in.All.AddPattern(pattern, matched)
}

// MergeDerived adds the reads behind the derived inputs to this view's.
func (in *Inputs) MergeDerived() {
	for _, d := range in.Derived {
		in.Reads.Merge(d.Reads)
	}
}

// FilesOf returns the files of an input kind ("results", "units",
// "characteristics"); patterns that match nothing are reported by the
// loaders themselves.
func (in *Inputs) FilesOf(kind string) []string {
	in.Mu.Lock()
	if fs, ok := in.kindFiles[kind]; ok {
		in.Mu.Unlock()
		return fs
	}
	in.Mu.Unlock()
	var entries []Entry
	switch kind {
	case "results":
		entries = in.Study.Inputs.Results
	case "units":
		entries = in.Study.Inputs.Units
	case "characteristics":
		entries = in.Study.Inputs.Characteristics
	}
	var out []string
	for _, e := range entries {
		files, _ := in.Expand(e, kind)
		for _, f := range files {
			out = append(out, f.Path)
		}
	}
	in.Mu.Lock()
	if in.kindFiles == nil {
		in.kindFiles = map[string][]string{}
	}
	in.kindFiles[kind] = out
	in.Mu.Unlock()
	return out
}

type fileRecord struct {
	Path string // relative to the manifest
	Rows int64
}

// NewInputs is the input state of one build of the study s describes.
func NewInputs(s *Config) *Inputs {
	return &Inputs{inputState: &inputState{Study: s, AllowOutside: s.AllowOutside, Hashes: input.NewHashStore(), All: input.NewReadSet(), Tried: input.NewReadSet(),
		Files: map[string]*fileRecord{}, sums: map[string]string{}, Sources: map[string][]byte{}, ResReads: input.NewReadSet(), CharReads: input.NewReadSet(), Engines: engines.New(s.Engine, s.EngineLogs, s.DerivesUnits)}}
}

// Display returns path relative to the manifest directory; a file outside
// it (allowed by allow_outside) is shown by its name only, so no absolute
// host path is ever published.
func (in *Inputs) Display(path string) string {
	if rel, err := filepath.Rel(in.Study.Dir, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(path)
}

// outsideStudy reports whether path lies outside the study directory
// (read under allow_outside), as display decides.
func (in *Inputs) outsideStudy(path string) bool {
	rel, err := filepath.Rel(in.Study.Dir, path)
	return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel)
}

// Open opens a table file and records it.
func (in *Inputs) Open(path string) (*input.TableReader, error) {
	return in.OpenMapped(path, nil)
}

// OpenMapped opens a table with a column mapping, recording it as read.
func (in *Inputs) OpenMapped(path string, mapping map[string]string) (*input.TableReader, error) {
	return in.openTable(path, mapping, false)
}

// openHashing is openMapped for a file that will most likely be read
// to its end in order (a units file): unless its sum is already known,
// it is hashed as it is parsed instead of in a read of its own, and
// pinned when it is closed (finishHash).
func (in *Inputs) openHashing(path string, mapping map[string]string) (*input.TableReader, error) {
	return in.openTable(path, mapping, !parquet.Is(path) && !in.sumKnown(path))
}

func (in *Inputs) openTable(path string, mapping map[string]string, hashing bool) (*input.TableReader, error) {
	if err := in.CheckFile(path); err != nil {
		return nil, err
	}
	open := input.OpenTableCapped
	if hashing {
		in.noteRead(path)
		open = input.OpenTableHashing
	} else {
		in.NoteFile(path)
	}
	t, err := open(path, in.Display(path), mapping, in.Study.MaxDecompressed)
	if err != nil {
		return nil, err
	}
	t.SetOutside(in.outsideStudy(path))
	in.Mu.Lock()
	if in.Files[path] == nil {
		in.Files[path] = &fileRecord{Path: in.Display(path)}
	}
	in.Mu.Unlock()
	return t, nil
}

// OpenRun opens a ranked run or predictions file (report/input/runs), checked
// and recorded.
func (in *Inputs) OpenRun(path, display string, format runs.Format, predictions bool) (*runs.Reader, error) {
	if err := in.CheckFile(path); err != nil {
		return nil, err
	}
	grouping := runs.GroupingUnknown
	var stamp input.FileStamp
	if format == runs.FormatTREC && !predictions && !strings.HasSuffix(strings.ToLower(path), ".gz") {
		// The pass that hashes the run also finds whether its queries
		// are contiguous, which would otherwise take a pass of its own;
		// the reader then checks that the file did not change since.
		scan := runs.NewTRECGroupScan()
		var ok bool
		stamp, ok = input.Stamp(path)
		if _, read := in.pinRead(path, scan); read && ok {
			grouping = runs.QueriesApart
			if scan.Grouped() {
				grouping = runs.QueriesContiguous
			}
		}
		in.noteRead(path)
	} else {
		in.NoteFile(path)
	}
	r, err := runs.OpenGrouping(path, display, format, predictions, in.Study.MaxDecompressed, grouping)
	if err == nil && grouping != runs.GroupingUnknown {
		r.SetStamp(stamp)
	}
	return r, err
}

// ReadTruth reads a truth file (report/input/runs), checked and recorded.
func (in *Inputs) ReadTruth(path, display string, format runs.Format, t *offline.Truth) (int64, error) {
	if err := in.CheckFile(path); err != nil {
		return 0, err
	}
	in.NoteFile(path)
	return runs.ScanTruthCapped(path, display, format, in.Study.MaxDecompressed, func(user, item []byte, rel float64, line int) error {
		return t.Add(user, item, rel)
	})
}

// ScanTruth streams a truth file (report/input/runs), checked and recorded.
func (in *Inputs) ScanTruth(path, display string, format runs.Format, fn func(user, item []byte, rel float64, line int) error) (int64, error) {
	if err := in.CheckFile(path); err != nil {
		return 0, err
	}
	in.NoteFile(path)
	return runs.ScanTruthCapped(path, display, format, in.Study.MaxDecompressed, fn)
}

// CloseCounted closes t and records its rows.
func (in *Inputs) CloseCounted(path string, t *input.TableReader) {
	in.Mu.Lock()
	if r := in.Files[path]; r != nil && t.Rows() > r.Rows {
		r.Rows = t.Rows()
	}
	in.Mu.Unlock()
	t.Close()
	if t.Hashing() {
		in.finishHash(path, t)
	}
}

// RecordFile notes a file read outside the table readers (ranked runs,
// Parquet files, …) with its rows.
func (in *Inputs) RecordFile(path string, rows int64) {
	in.NoteFile(path)
	in.Mu.Lock()
	defer in.Mu.Unlock()
	r := in.Files[path]
	if r == nil {
		r = &fileRecord{Path: in.Display(path)}
		in.Files[path] = r
	}
	if rows > r.Rows {
		r.Rows = rows
	}
}

// Expand resolves an entry's path (glob and {dataset}/{method} patterns)
// to its files, sorted, with the entry's constants.
func (in *Inputs) Expand(e Entry, what string) ([]input.Match, error) {
	files, err := in.Match(e.Path)
	if err != nil {
		return nil, input.Errorf(filepath.Base(in.Study.File), e.Line, "inputs.%s: %v", what, err)
	}
	for i := range files {
		if files[i].Dataset == "" {
			files[i].Dataset = e.Dataset
		}
		if files[i].Method == "" {
			files[i].Method = e.Method
		}
	}
	return files, nil
}

// CheckEntries expands every input entry, so that an entry whose path
// matches no file, or a file that may not be read, fails before any
// analysis runs; the errors in no particular order.
func (in *Inputs) CheckEntries() []error {
	var errs []error
	c := in.Study
	for what, list := range map[string][]Entry{"results": c.Inputs.Results, "units": c.Inputs.Units, "characteristics": c.Inputs.Characteristics} {
		for _, e := range list {
			if _, err := in.Expand(e, what); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// Match resolves a manifest path pattern to its files, checks that each
// may be read (checkFile) and records the expansion, so that a file that
// later starts or stops matching invalidates what was computed from it.
func (in *Inputs) Match(path string) ([]input.Match, error) {
	abs := input.AbsPath(in.Study.Dir, path)
	files, err := input.MatchPattern(in.Study.Dir, path)
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	in.NotePattern(abs, paths)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := in.checkMatched(f.Path); err != nil {
			return nil, err
		}
	}
	// Files are pinned when they are opened (noteFile), or hashed as
	// they are parsed (openHashing): a cold build reads each once.
	return files, nil
}

// CheckFile refuses what a build must not read (input.CheckFile): only
// regular files, inside the study directory unless allow_outside. It
// resolves the path anew: callers check a file just before they open it.
func (in *Inputs) CheckFile(path string) error {
	in.Tried.AddFile(path)
	return input.CheckFile(in.Study.Dir, path, in.Display(path), in.AllowOutside, filepath.Base(in.Study.File))
}

// checkMatched is CheckFile for the files a pattern matched, checked
// together as the build starts: each directory is resolved once
// (input.Resolver). Each file is checked again, anew, when it is opened,
// so a directory turned into a link meanwhile is still seen.
func (in *Inputs) checkMatched(path string) error {
	in.Tried.AddFile(path)
	return in.links.CheckFile(in.Study.Dir, path, in.Display(path), in.AllowOutside, filepath.Base(in.Study.File))
}

// ReadSource reads a page or the bibliography (a manifest path) once,
// through the same checks as every input, and keeps it for the site.
// A source above max bytes (max > 0) is refused before it is read.
func (in *Inputs) ReadSource(rel string, max int64) ([]byte, error) {
	in.Mu.Lock()
	b, ok := in.Sources[rel]
	in.Mu.Unlock()
	if ok {
		return b, nil
	}
	path := input.AbsPath(in.Study.Dir, rel)
	if err := in.CheckFile(path); err != nil {
		return nil, err
	}
	in.NoteFile(path)
	b, err := input.ReadText(path, in.Display(path), max)
	if err != nil {
		return nil, err
	}
	in.RecordFile(path, 0)
	in.Mu.Lock()
	in.Sources[rel] = b
	in.Mu.Unlock()
	return b, nil
}

// reserved columns that never name a metric in wide files.
var reservedColumns = map[string]bool{"dataset": true, "method": true, "unit": true, "k": true, "run": true, "metric": true, "value": true}

// Results loads the study's `results` input once.
func (in *Inputs) Results() (*analyses.Results, error) {
	in.resultsOnce.Do(func() {
		in.res, in.resErr = in.ForAnalysis(in.ResReads).loadResults()
	})
	return in.res, in.resErr
}

func (in *Inputs) loadResults() (*analyses.Results, error) {
	hasDerived := false
	for _, d := range in.Derived {
		hasDerived = hasDerived || len(d.Results) > 0
	}
	if len(in.Study.Inputs.Results) == 0 && !hasDerived {
		return nil, fmt.Errorf("%s: the study has no [inputs] results", filepath.Base(in.Study.File))
	}
	var b analyses.ResultsBuilder
	entryOf := map[string]int{} // a file's name in messages → its entry
	for i, e := range in.Study.Inputs.Results {
		files, err := in.Expand(e, "results")
		if err != nil {
			return nil, err
		}
		for _, mf := range files {
			if _, seen := entryOf[in.Display(mf.Path)]; !seen {
				entryOf[in.Display(mf.Path)] = i
			}
			if err := in.readResultsFile(e, mf, &b); err != nil {
				return nil, err
			}
		}
	}
	if err := in.checkRunCounts(b.RunCells(), entryOf); err != nil {
		return nil, err
	}
	// Derived values must not silently average with values of the files
	// (or of another feeding analysis) as if they were further runs.
	fromFiles := b.Keys()
	owner := map[analyses.CellKey]string{}
	for _, d := range in.Derived {
		for _, r := range d.Results {
			k := analyses.CellKey{Dataset: r.Dataset, Method: r.Method, Metric: r.Metric}
			if fromFiles[k] {
				return nil, fmt.Errorf("analysis %s computes %s of %s on %s, which the results files also give; rename the metric or leave it out of one of them", d.Id, r.Metric, r.Method, r.Dataset)
			}
			if o, ok := owner[k]; ok && o != d.Id {
				return nil, fmt.Errorf("analyses %s and %s both compute %s of %s on %s", o, d.Id, r.Metric, r.Method, r.Dataset)
			}
			owner[k] = d.Id
			if bound, at, ok := in.Study.MetricMax(r.Metric); ok && r.Value > bound {
				return nil, fmt.Errorf("analysis %s computes %s of %s on %s = %v, above the declared max = %v of metric %q (%s); the bound is wrong", d.Id, r.Metric, r.Method, r.Dataset, r.Value, bound, r.Metric, at)
			}
			b.Add(r.Dataset, r.Method, r.Metric, r.Value)
		}
	}
	r := b.Finish()
	r.Datasets = in.Study.OrderDatasets(r.Datasets)
	return r, nil
}

// checkRunCounts refuses a dataset and metric whose methods average
// different numbers of runs (a run column): a mean over 3 runs next to a
// mean over 5 compares unequal things, and published silently it is a
// number that might be wrong. unequal_runs = true on the input entry of
// every file involved accepts it. entryOf maps a file's name in messages
// to the index of its entry.
func (in *Inputs) checkRunCounts(cells []analyses.RunCell, entryOf map[string]int) error {
	for i := 0; i < len(cells); {
		j := i
		accepted := true
		lo, hi := i, i
		for ; j < len(cells) && cells[j].Key.Dataset == cells[i].Key.Dataset && cells[j].Key.Metric == cells[i].Key.Metric; j++ {
			if cells[j].Runs < cells[lo].Runs {
				lo = j
			}
			if cells[j].Runs > cells[hi].Runs {
				hi = j
			}
			if e, ok := entryOf[cells[j].At.File]; !ok || !in.Study.Inputs.Results[e].UnequalRuns {
				accepted = false
			}
		}
		if cells[lo].Runs != cells[hi].Runs && !accepted {
			a, b := cells[hi], cells[lo]
			e := in.Study.Inputs.Results[entryOf[a.At.File]]
			return input.Errorf(filepath.Base(in.Study.File), e.Line, "inputs.results: %s of %s on %s averages %d runs (first at %s), %s only %d (first at %s): means over unequal runs are not comparable; give every method the same runs, or declare unequal_runs = true on the input entry to average them anyway",
				input.Clip(a.Key.Metric), input.Clip(a.Key.Method), input.Clip(a.Key.Dataset), a.Runs, sourceString(a.At), input.Clip(b.Key.Method), b.Runs, sourceString(b.At))
		}
		i = j
	}
	return nil
}

// readResultsFile adds the values of one results file to b: its layout
// is read from the header (resultsLayout), then each row in turn
// (readResultsRow).
func (in *Inputs) readResultsFile(e Entry, mf input.Match, b *analyses.ResultsBuilder) error {
	t, err := in.OpenMapped(mf.Path, e.Columns)
	if err != nil {
		return err
	}
	defer in.CloseCounted(mf.Path, t)
	t.SetMissing(e.MissingValues)
	if e.Layout == "matrix" {
		return in.readMatrixRows(t, e, mf, b)
	}
	f, err := in.resultsLayout(t, e, mf)
	if err != nil {
		return err
	}
	for {
		rec, err := t.Next()
		if err == io.EOF {
			if t.Rows() == 0 {
				return noRowsError(t)
			}
			return nil
		}
		if err != nil {
			return err
		}
		if err := in.readResultsRow(f, rec, b); err != nil {
			return err
		}
	}
}

// resultsFile is a results file opened and its header read: where each
// column is, and whether the file is long (metric, value, or value with
// the entry's metric), wide (a column per metric) or a matrix (a column
// per method, results_matrix.go).
type resultsFile struct {
	t                   *input.TableReader
	e                   Entry
	mf                  input.Match
	dcol, mcol          int
	kcol, rcol          int
	metricCol, valueCol int
	long, matrix        bool
	wide                []int
	rule                analyses.DuplicateRule
	study               *Config // for the metrics' declared bounds
}

// resultsLayout reads the layout of a results file from its header and
// the input entry: a file without a method column needs the method from
// the path, an entry that fixes the metric needs a value column and no
// metric column, and a wide file needs at least one metric column.
func (in *Inputs) resultsLayout(t *input.TableReader, e Entry, mf input.Match) (*resultsFile, error) {
	f := &resultsFile{t: t, e: e, mf: mf, dcol: t.Col("dataset"), mcol: t.Col("method"), kcol: t.Col("k"), rcol: t.Col("run"), study: in.Study}
	if f.mcol < 0 && mf.Method == "" {
		_, err := t.Require("method")
		if hint := in.matrixHint(t, e); hint != "" {
			err = fmt.Errorf("%w%s", err, hint)
		}
		return nil, err
	}
	f.rule = resultsRule(e, f.rcol >= 0)
	f.metricCol, f.valueCol = t.Col("metric"), t.Col("value")
	if e.Metric != "" {
		// one file per metric: the entry names it, the file gives values
		if f.metricCol >= 0 {
			return nil, input.Errorf(t.File, 1, "the file has a metric column and its input entry (%s:%d) fixes metric = %q; keep one", filepath.Base(in.Study.File), e.Line, e.Metric)
		}
		if f.valueCol < 0 {
			_, err := t.Require("value")
			return nil, fmt.Errorf("%w (with metric = %q the file needs a value column: map it with columns = { value = \"…\" })", err, e.Metric)
		}
	}
	f.long = (f.metricCol >= 0 || e.Metric != "") && f.valueCol >= 0
	if !f.long {
		for i, h := range t.Header {
			if !reservedColumns[strings.ToLower(strings.TrimSpace(h))] && i != f.dcol && i != f.mcol && !ignored(e, h) {
				if why := input.FormulaStart(strings.TrimSpace(h)); why != "" {
					return nil, input.Errorf(t.File, 1, "metric name %s (a column of the header) holds %s", input.Quote(strings.TrimSpace(h)), why)
				}
				f.wide = append(f.wide, i)
			}
		}
		if len(f.wide) == 0 {
			return nil, input.Errorf(t.File, 1, "no metric columns: want dataset,method,metric,value or dataset,method,<metric…> (or dataset,method,value with metric = \"…\" on the input entry)")
		}
	}
	return f, nil
}

// resultsRow is where the values of one row of a results file go: the
// dataset and method, the suffix "@k" of a k column (else ""), and the
// run.
type resultsRow struct {
	dataset, method, suffix, run string
}

// resultsRowKey reads and checks the dataset, method, k and run of a
// row of a results file.
func (in *Inputs) resultsRowKey(f *resultsFile, rec []string) (resultsRow, error) {
	t := f.t
	r := resultsRow{dataset: in.pick(rec, f.dcol, f.mf.Dataset, in.Study.Title), method: in.pick(rec, f.mcol, f.mf.Method, "")}
	if err := fixedConflict(t, f.dcol, r.dataset, f.mf.Dataset, "dataset"); err != nil {
		return r, err
	}
	if err := fixedConflict(t, f.mcol, r.method, f.mf.Method, "method"); err != nil {
		return r, err
	}
	if r.dataset == "" {
		return r, t.Errorf(max(f.dcol, 0), "empty dataset name")
	}
	if r.method == "" {
		return r, t.Errorf(max(f.mcol, 0), "empty method name")
	}
	if err := t.NameError(f.dcol, "dataset name", r.dataset); err != nil {
		return r, err
	}
	if err := t.NameError(f.mcol, "method name", r.method); err != nil {
		return r, err
	}
	if f.kcol >= 0 && rec[f.kcol] != "" {
		if err := t.NameError(f.kcol, "k", rec[f.kcol]); err != nil {
			return r, err
		}
		r.suffix = "@" + cutoff(strings.TrimSpace(rec[f.kcol]))
	}
	if f.rcol >= 0 {
		r.run = strings.TrimSpace(rec[f.rcol])
	}
	return r, nil
}

// cutoff is a k cell as a metric's suffix: a whole number is written as
// one (pandas writes 10.0 in a k column that has an empty cell, and 010
// is 10), so ndcg@10.0 and ndcg@10 are one metric; any other text is
// kept as it is.
func cutoff(k string) string {
	if v, err := strconv.ParseFloat(k, 64); err == nil && v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return k
}

// readResultsRow adds the values of one row of a results file to b: the
// value column under the entry's metric or the row's metric (a long
// file), or every metric column (a wide file).
func (in *Inputs) readResultsRow(f *resultsFile, rec []string, b *analyses.ResultsBuilder) error {
	r, err := in.resultsRowKey(f, rec)
	if err != nil {
		return err
	}
	t := f.t
	if f.long && f.e.Metric != "" {
		return f.add(b, rec, r, f.e.Metric, f.valueCol)
	}
	if f.long {
		metric := strings.TrimSpace(rec[f.metricCol])
		if metric == "" {
			return t.Errorf(f.metricCol, "empty metric name")
		}
		if err := t.NameError(f.metricCol, "metric name", metric); err != nil {
			return err
		}
		return f.add(b, rec, r, metric, f.valueCol)
	}
	for _, c := range f.wide {
		if err := f.add(b, rec, r, strings.TrimSpace(t.Header[c]), c); err != nil {
			return err
		}
	}
	return nil
}

// add adds the value in column col of the row to b under the metric (and
// the row's k suffix). An empty cell is a missing value, left out unless
// the entry reads it as zero; a wide column without a name must be empty.
func (f *resultsFile) add(b *analyses.ResultsBuilder, rec []string, r resultsRow, metric string, col int) error {
	t := f.t
	if metric == "" { // a wide column without a name: only empty cells
		if strings.TrimSpace(rec[col]) != "" {
			return t.Errorf(col, "a value in column %d, which has no name in the header", col+1)
		}
		return nil
	}
	v, ok, err := t.Float(col)
	if err != nil {
		if f.matrix {
			return matrixCellError(t, col, err)
		}
		if !f.long {
			return wideColumnError(t, col, "metric", err)
		}
		return err
	}
	if !ok {
		if f.e.Missing != "zero" {
			return nil // an empty cell is a missing value
		}
		v = 0
	}
	if r.suffix != "" && strings.Contains(metric, "@") {
		// m@10 with k = 10 was read as a metric m@10@10
		return t.Errorf(f.kcol, "metric %s already names its cutoff, and the k column adds %s; give the cutoff in one place", input.Quote(metric), input.Quote(strings.TrimPrefix(r.suffix, "@")))
	}
	k := analyses.CellKey{Dataset: r.dataset, Method: r.method, Metric: metric + r.suffix}
	if bound, at, ok := f.study.MetricMax(k.Metric); ok && v > bound {
		return t.Errorf(col, "%s of %s on %s is %v, above the declared max = %v of metric %s (%s); the data or the bound is wrong",
			input.Clip(k.Metric), input.Clip(k.Method), input.Clip(k.Dataset), v, bound, input.Quote(k.Metric), at)
	}
	line, column := t.Pos(col)
	err = b.AddRow(k, v, r.run, f.rule, analyses.Source{File: t.File, Line: line, Col: column})
	return resultsRowError(t, col, err)
}

// ignored reports whether a header names a column the entry leaves out
// (ignore = ["Method"]); headers compare case-insensitively.
func ignored(e Entry, header string) bool {
	h := strings.TrimSpace(header)
	for _, c := range e.Ignore {
		if strings.EqualFold(strings.TrimSpace(c), h) {
			return true
		}
	}
	return false
}

// wideColumnError explains a value of a wide file that is not a number:
// every column but the named ones is read as a metric (or feature), so a
// text column (Method in a characteristics file) lands here. The error
// keeps the cell's position and says how to leave the column out.
func wideColumnError(t *input.TableReader, col int, what string, err error) error {
	var ie *input.InputError
	if !errors.As(err, &ie) || !strings.HasPrefix(ie.Msg, "not a number") {
		return err
	}
	h := strings.TrimSpace(t.Header[col])
	return t.Errorf(col, "column %s is read as a %s (in a wide file every other column is one): %s; to leave it out, add ignore = [%s] to the input entry",
		input.Quote(h), what, ie.Msg, strconv.Quote(h))
}

// pick returns a column's value, else the constant, else the fallback.
// fixedConflict is the error of a row whose dataset (or method) column
// names another than the one its input entry or path pattern fixes for
// the file: which one is meant is a guess (a column once silently won).
func fixedConflict(t *input.TableReader, col int, got, fixed, what string) error {
	if col >= 0 && fixed != "" && got != fixed {
		return t.Errorf(col, "%s %s, but the file's input entry (dataset/method = \"…\" or a {%s} in its path) fixes %s for the file; keep one", what, input.Quote(got), what, input.Quote(fixed))
	}
	return nil
}

func (in *Inputs) pick(rec []string, col int, constant, fallback string) string {
	if col >= 0 {
		return TrimSpace(rec[col])
	}
	if constant != "" {
		return constant
	}
	return fallback
}

// Units streams the study's per-unit values (the `units` input): the files,
// then the units derived by feeding analyses.
func (in *Inputs) Units(fn func(u *UnitRow) error) error {
	hasDerived := false
	for _, d := range in.Derived {
		hasDerived = hasDerived || d.Units != nil
	}
	if len(in.Study.Inputs.Units) == 0 && !hasDerived {
		return fmt.Errorf("%s: the study has no [inputs] units", filepath.Base(in.Study.File))
	}
	for _, e := range in.Study.Inputs.Units {
		files, err := in.Expand(e, "units")
		if err != nil {
			return err
		}
		for _, mf := range files {
			if err := in.readUnitsFile(e, mf, fn); err != nil {
				return err
			}
		}
	}
	for _, d := range in.Derived {
		if d.Units != nil {
			if err := d.Units(fn); err != nil {
				return fmt.Errorf("units derived by %s: %w", d.Id, err)
			}
		}
	}
	return nil
}

// readUnitsFile hands fn the rows of a units file, a batch at a time.
func (in *Inputs) readUnitsFile(e Entry, mf input.Match, fn func(u *UnitRow) error) error {
	f, err := in.OpenUnits(e, mf)
	if err != nil {
		return err
	}
	var u UnitRow
	each := func(b *UnitsBatchOf) error {
		for k := range b.Rows {
			b.Row(k, &u)
			if err := fn(&u); err != nil {
				return err
			}
		}
		b.reset()
		return nil
	}
	o := newUnitsOut(newUnitsBatch(), UnitsBatch, func(b *UnitsBatchOf) (*UnitsBatchOf, error) { return b, each(b) })
	err = in.readUnitsRows(f, o)
	if ferr := each(o.b); ferr != nil {
		return ferr // fn saw the rows before the error in order; its own error comes first
	}
	return err
}

// unitsFile is a units file opened and its header read: where each
// column is, and whether the file is long (metric, value) or wide (a
// column per metric).
type unitsFile struct {
	T                   *input.TableReader
	e                   Entry
	mf                  input.Match
	dcol, mcol, ucol    int
	metricCol, valueCol int
	long                bool
	wide, unnamed       []int
	wideNames           []string
}

// OpenUnits opens a units file and reads its header. The caller reads
// the rows (readUnitsRows), which closes it, or closes f.t itself.
func (in *Inputs) OpenUnits(e Entry, mf input.Match) (*unitsFile, error) {
	t, err := in.openHashing(mf.Path, e.Columns)
	if err != nil {
		return nil, err
	}
	t.SetMissing(e.MissingValues)
	f := &unitsFile{T: t, e: e, mf: mf, dcol: t.Col("dataset"), mcol: t.Col("method"), ucol: t.Col("unit"),
		metricCol: t.Col("metric"), valueCol: t.Col("value")}
	if f.mcol < 0 && mf.Method == "" {
		_, err := t.Require("method")
		in.CloseCounted(mf.Path, t)
		return nil, err
	}
	if e.Metric != "" {
		// one file per metric: read it as a wide file whose one metric
		// column is the value column, named by the entry
		switch {
		case f.metricCol >= 0:
			in.CloseCounted(mf.Path, t)
			return nil, input.Errorf(t.File, 1, "the file has a metric column and its input entry (%s:%d) fixes metric = %q; keep one", filepath.Base(in.Study.File), e.Line, e.Metric)
		case f.valueCol < 0:
			_, err := t.Require("value")
			in.CloseCounted(mf.Path, t)
			return nil, fmt.Errorf("%w (with metric = %q the file needs a value column: map it with columns = { value = \"…\" })", err, e.Metric)
		}
		f.wide, f.wideNames, f.valueCol = []int{f.valueCol}, []string{e.Metric}, -1
		return f, nil
	}
	f.long = f.metricCol >= 0 && f.valueCol >= 0
	if !f.long {
		for i, h := range t.Header {
			if !reservedColumns[strings.ToLower(strings.TrimSpace(h))] && i != f.dcol && i != f.mcol && i != f.ucol && !ignored(e, h) {
				if strings.TrimSpace(h) == "" {
					f.unnamed = append(f.unnamed, i) // must stay empty
					continue
				}
				f.wide = append(f.wide, i)
				f.wideNames = append(f.wideNames, strings.TrimSpace(h))
			}
		}
		if len(f.wide) == 0 {
			in.CloseCounted(mf.Path, t)
			return nil, input.Errorf(t.File, 1, "no metric columns")
		}
	}
	return f, nil
}

// hasMetric reports whether a wide file has a column for metric.
func (f *unitsFile) hasMetric(metric string) bool {
	for _, n := range f.wideNames {
		if n == metric {
			return true
		}
	}
	return false
}

// nameCache checks and interns the names of one column: a column mostly
// repeats a few names (files are grouped; a long file cycles through its
// metrics), so the raw cell is compared with the last names met, most
// recent first, before it is trimmed and the map consulted. A cell equal
// to a name met is that name: names have no surrounding space, so the
// cell has none to trim, and it was checked when first met. Each name
// interned has a number (its order of first appearance; -1 past the
// map's cap), which unitsOut keys its names by.
type nameCache struct {
	what   string
	col    int // -1: the names are constants (from the path or the entry), not trimmed
	recent [4]string
	ids    [4]int32 // the numbers of the recent names
	intern map[string]int32
	names  []string // by number
}

// maxInterned caps the names a nameCache keeps (a column of a million
// distinct names is a mistake, not a reason to hold them all).
const maxInterned = 1 << 16

// equalShort is a == b, comparing a short name byte by byte instead of
// through a call to the runtime's comparison.
func equalShort(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) > 16 {
		return a == b
	}
	for i := 0; i < len(a); i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// name returns the name in a cell (raw: as read; trimmed here) and its
// number.
func (c *nameCache) name(t *input.TableReader, raw string) (string, int32, error) {
	if raw != "" {
		if equalShort(raw, c.recent[0]) {
			return c.recent[0], c.ids[0], nil
		}
		if equalShort(raw, c.recent[1]) {
			c.recent[0], c.recent[1] = c.recent[1], c.recent[0]
			c.ids[0], c.ids[1] = c.ids[1], c.ids[0]
			return c.recent[0], c.ids[0], nil
		}
	}
	return c.lookup(t, raw)
}

// lookup is name past the two most recent names.
func (c *nameCache) lookup(t *input.TableReader, raw string) (string, int32, error) {
	s, v, id, ok := c.find(raw)
	if !ok {
		if err := t.NameError(c.col, c.what, s); err != nil {
			return "", -1, err
		}
		v = strings.Clone(s) // s keeps its whole chunk of the file alive
		if c.intern == nil {
			c.intern = map[string]int32{}
		}
		if len(c.intern) < maxInterned {
			id = int32(len(c.names))
			c.intern[v] = id
			c.names = append(c.names, v)
		}
	}
	c.front(v, id)
	return v, id, nil
}

// find looks a cell's name (s: raw, trimmed) up among the names met
// past the two most recent.
func (c *nameCache) find(raw string) (s, v string, id int32, ok bool) {
	s = raw
	if c.col >= 0 {
		s = TrimSpace(raw)
	}
	id = -1
	for i, r := range c.recent[2:] {
		if s != "" && equalShort(s, r) {
			v, id, ok = r, c.ids[2+i], true
		}
	}
	if !ok {
		if id, ok = c.intern[s]; ok {
			v = c.names[id]
		}
	}
	return s, v, id, ok
}

// front makes v (numbered id) the most recent name.
func (c *nameCache) front(v string, id int32) {
	if v != "" {
		k := len(c.recent) - 1
		for i, r := range c.recent {
			if r == v {
				k = i // move it to the front instead of keeping it twice
				break
			}
		}
		copy(c.recent[1:k+1], c.recent[:k])
		copy(c.ids[1:k+1], c.ids[:k])
		c.recent[0], c.ids[0] = v, id
	}
}

// known is name for a cell whose name has been met (and checked)
// before: ok is false, and nothing changes, for any other cell, which
// name would check (and might find wrong).
func (c *nameCache) known(raw string) (string, int32, bool) {
	if raw != "" {
		if equalShort(raw, c.recent[0]) {
			return c.recent[0], c.ids[0], true
		}
		if equalShort(raw, c.recent[1]) {
			c.recent[0], c.recent[1] = c.recent[1], c.recent[0]
			c.ids[0], c.ids[1] = c.ids[1], c.ids[0]
			return c.recent[0], c.ids[0], true
		}
	}
	_, v, id, ok := c.find(raw)
	if ok {
		c.front(v, id)
	}
	return v, id, ok
}

// unitsOut receives the values readUnitsRows reads: it fills a batch
// and hands it to full when it holds max rows; full returns the batch
// to fill next, or an error that stops the read. The rows of the batch
// being filled when the read ends (or fails) are the caller's to hand on.
type unitsOut struct {
	b      *UnitsBatchOf
	max    int
	full   func(*UnitsBatchOf) (*UnitsBatchOf, error)
	rowOff int64 // added to each row number (a file read on from a byte range)
	// unit is where the bytes of the last unit id put lay (compared,
	// never read: the memory may be reused since)
	unit uintptr
	// known maps the numbers of a row's names (namesKey) to their index
	// in b.names, direct-mapped: a file's rows repeat a few sets of names.
	known [16]knownNames
}

type knownNames struct {
	key uint64 // 0: empty
	idx int
}

// namesKey packs the numbers of a row's dataset, method and metric
// names (nameCache; a wide file's metric: its column's place) into a
// key, or 0 when one has no number.
func namesKey(dataset, method, metric int32) uint64 {
	if dataset < 0 || method < 0 || metric < 0 || dataset >= 1<<20 || method >= 1<<20 || metric >= 1<<20 {
		return 0
	}
	return uint64(dataset+1) | uint64(method+1)<<21 | uint64(metric+1)<<42
}

func newUnitsOut(b *UnitsBatchOf, max int, full func(*UnitsBatchOf) (*UnitsBatchOf, error)) *unitsOut {
	return &unitsOut{b: b, max: max, full: full}
}

// put appends a value to the batch; key is namesKey of its names (all
// the rows handed to one unitsOut are of one file: the file name is
// not in it). unit is copied.
func (o *unitsOut) put(key uint64, dataset, method, metric, file, unit string, row, line int64, v float64) error {
	b := o.b
	var ni int
	if slot := &o.known[(key*0x9E3779B97F4A7C15)>>60]; key != 0 && slot.key == key {
		ni = slot.idx
	} else {
		ni = b.nameIndex(rowNames{dataset, method, metric, file})
		if key != 0 {
			slot.key, slot.idx = key, ni
		}
	}
	at, data := uint32(len(b.Ids)), uintptr(unsafe.Pointer(unsafe.StringData(unit)))
	if n := len(b.Rows); n > 0 && len(unit) > 0 && data == o.unit {
		if p := &b.Rows[n-1]; p.Row == row+o.rowOff && p.Line == line && int(p.UnitLen) == len(unit) {
			// another value of the line's unit, the same string (a wide
			// file): its id is shared (sameUnit)
			at, b.shared = p.Unit, true
		}
	}
	b.Rows = appendRow(b.Rows, at, uint32(len(unit)), uint32(ni), row+o.rowOff, line, v)
	if at == uint32(len(b.Ids)) {
		b.Ids = append(b.Ids, unit...)
		o.unit = data
	}
	if len(b.Rows) >= o.max {
		return o.handOn()
	}
	return nil
}

// room hands the batch on when n more rows would not fit in it, so
// that the values of one line of a wide file stay in one batch (the
// repeat check checks them once, see repeatSlot.twin).
func (o *unitsOut) room(n int) error {
	if len(o.b.Rows)+n <= o.max || len(o.b.Rows) == 0 {
		return nil
	}
	return o.handOn()
}

// handOn hands the batch to full and goes on with the one it returns.
func (o *unitsOut) handOn() error {
	next, err := o.full(o.b)
	if err != nil {
		return err
	}
	o.b = next
	o.known = [16]knownNames{}
	return nil
}

// readUnitsRows reads the rows of an opened units file into o, one row
// per value, and closes the file.
func (in *Inputs) readUnitsRows(f *unitsFile, o *unitsOut) error {
	t := f.T
	defer in.CloseCounted(f.mf.Path, t)
	f.readOnlyUsed()
	file := t.File
	var row int64
	names := unitsNames{
		datasets: nameCache{what: "dataset name", col: f.dcol},
		methods:  nameCache{what: "method name", col: f.mcol},
		metrics:  nameCache{what: "metric name", col: f.metricCol},
	}
	var fast *unitsFast
	if !in.UnitsFastOff {
		fast = in.newUnitsFast(f, &names)
	}
	for {
		if fast != nil {
			next, err := in.fastStep(fast, &row, o)
			if err != nil || next == fastEnd {
				return err
			}
			if next == fastAgain {
				continue
			}
		}
		rec, err := t.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		k, err := in.unitsRowKey(f, &names, rec)
		if err != nil {
			return err
		}
		line := int64(t.Line())
		if f.long {
			metric, mid, err := names.metrics.name(t, rec[f.metricCol])
			if err != nil {
				return err
			}
			if metric == "" {
				return t.Errorf(f.metricCol, "empty metric name")
			}
			if v, ok, err := f.value(f.valueCol); err != nil {
				return err
			} else if ok {
				if err := o.put(namesKey(k.did, k.mid, mid), k.dataset, k.method, metric, file, k.unit, row, line, v); err != nil {
					return err
				}
			}
			row++
			continue
		}
		if err := o.room(len(f.wide)); err != nil {
			return err
		}
		for i, c := range f.wide {
			if v, ok, err := f.value(c); err != nil {
				return err
			} else if ok {
				if err := o.put(namesKey(k.did, k.mid, int32(i)), k.dataset, k.method, f.wideNames[i], file, k.unit, row, line, v); err != nil {
					return err
				}
			}
		}
		row++
	}
}

// readOnlyUsed has the reader split only the columns the rows use, and
// hand out transient strings: names are interned (copied) by the name
// caches; the unit id is copied into the batch (unitsOut.put).
func (f *unitsFile) readOnlyUsed() {
	f.T.Only(append(append([]int{f.dcol, f.mcol, f.ucol, f.metricCol, f.valueCol}, f.wide...), f.unnamed...)...)
	f.T.Transient()
}

// unitsNames holds the name caches of a units file's dataset, method
// and metric columns.
type unitsNames struct {
	datasets, methods, metrics nameCache
}

// rowKey is a row's dataset, method (with their numbers in the name
// caches) and unit id (aliasing the record).
type rowKey struct {
	dataset, method, unit string
	did, mid              int32
}

// unitsRowKey reads and checks the dataset, method and unit id of a row
// of a units file, and checks that the columns without a name in the
// header are empty.
func (in *Inputs) unitsRowKey(f *unitsFile, names *unitsNames, rec []string) (k rowKey, err error) {
	t := f.T
	if k.dataset, k.did, err = names.datasets.name(t, in.cell(rec, f.dcol, f.mf.Dataset, in.Study.Title)); err != nil {
		return k, err
	}
	if k.method, k.mid, err = names.methods.name(t, in.cell(rec, f.mcol, f.mf.Method, "")); err != nil {
		return k, err
	}
	if k.method == "" {
		return k, t.Errorf(max(f.mcol, 0), "empty method name")
	}
	if err := fixedConflict(t, f.dcol, k.dataset, f.mf.Dataset, "dataset"); err != nil {
		return k, err
	}
	if err := fixedConflict(t, f.mcol, k.method, f.mf.Method, "method"); err != nil {
		return k, err
	}
	if k.dataset == "" {
		return k, t.Errorf(max(f.dcol, 0), "empty dataset name")
	}
	if f.ucol >= 0 {
		k.unit = TrimSpace(rec[f.ucol]) // as names are: " u1" is u1
		if k.unit == "" {
			return k, t.Errorf(f.ucol, "empty unit id")
		}
		if err := t.NameError(f.ucol, "unit id", k.unit); err != nil {
			return k, err
		}
	}
	for _, c := range f.unnamed {
		if strings.TrimSpace(rec[c]) != "" {
			return k, t.Errorf(c, "a value in column %d, which has no name in the header", c+1)
		}
	}
	return k, nil
}

// cell is pick without the trimming (the name caches trim).
func (in *Inputs) cell(rec []string, col int, constant, fallback string) string {
	if col >= 0 {
		return rec[col]
	}
	if constant != "" {
		return constant
	}
	return fallback
}

// value is the value in column col of the current row: ok is false for
// an empty cell the entry drops; an empty cell kept is zero or NaN, as
// the entry says.
func (f *unitsFile) value(col int) (float64, bool, error) {
	v, ok, err := f.T.Float(col)
	if err != nil || ok {
		return v, ok, err
	}
	v, ok = f.missing()
	return v, ok, nil
}

// missing is the value of a missing cell under the entry's missing
// rule: none (drop), 0 (zero) or NaN (the analyses decide).
func (f *unitsFile) missing() (float64, bool) {
	switch f.e.Missing {
	case "drop":
		return 0, false
	case "zero":
		return 0, true
	}
	return math.NaN(), true
}

// Characteristics loads the study's `characteristics` input once.
func (in *Inputs) Characteristics() (*Characteristics, error) {
	in.charOnce.Do(func() {
		in.char, in.charErr = in.ForAnalysis(in.CharReads).loadCharacteristics()
	})
	return in.char, in.charErr
}

// loadCharacteristics reads every file of the characteristics inputs
// (nil without any) and orders the datasets as the manifest does.
func (in *Inputs) loadCharacteristics() (*Characteristics, error) {
	if len(in.Study.Inputs.Characteristics) == 0 {
		return nil, nil
	}
	cb := newCharBuilder()
	for _, e := range in.Study.Inputs.Characteristics {
		files, err := in.Expand(e, "characteristics")
		if err != nil {
			return nil, err
		}
		for _, mf := range files {
			if err := in.readCharacteristicsFile(e, mf, cb); err != nil {
				return nil, err
			}
		}
	}
	cb.c.Datasets = in.Study.OrderDatasets(cb.c.Datasets)
	return cb.c, nil
}

// charBuilder gathers the characteristics of the input files into c.
//
// Feature names compare ignoring case and underscores (the data of
// Shevchenko et al. 2024 says Ginii where the README's feature names say
// Gini_i): one of the eighteen log features takes the README's spelling,
// any other the first spelling seen, and a second spelling of one
// feature is an error rather than two columns.
type charBuilder struct {
	c       *Characteristics
	seenF   map[string]bool
	canon   map[string]string // feature key → the README's spelling
	spelled map[string]string // feature key → spelling in the file
	// where each value was read: a (dataset, feature) given twice with
	// different values is an error; a missing value never replaces one.
	from map[[2]string]analyses.Source
}

// newCharBuilder starts empty characteristics, with the README's
// spellings of the eighteen log features.
func newCharBuilder() *charBuilder {
	cb := &charBuilder{c: &Characteristics{Value: map[string]map[string]float64{}}, seenF: map[string]bool{},
		canon: map[string]string{}, spelled: map[string]string{}, from: map[[2]string]analyses.Source{}}
	for _, f := range datasets.LogFeatureNames {
		cb.canon[CharFeatureKey(f)] = f
	}
	return cb
}

// feature returns the spelling under which feature f (read in column col)
// is kept; another spelling of a feature already read is an error.
func (cb *charBuilder) feature(t *input.TableReader, col int, f string) (string, error) {
	if why := input.FormulaStart(f); why != "" {
		return "", t.Errorf(col, "feature name %s holds %s", input.Quote(f), why)
	}
	key := CharFeatureKey(f)
	if prev, ok := cb.spelled[key]; ok && prev != f {
		return "", t.Errorf(col, "feature %s is also given as %s: feature names ignore case and underscores, so they are one feature; keep one spelling", input.Quote(f), input.Quote(prev))
	}
	cb.spelled[key] = f
	if c, ok := cb.canon[key]; ok {
		return c, nil
	}
	return f, nil
}

// set records value v of feature f for dataset d, read in column col. A
// missing value (NaN) or the same value again leaves the value as it is;
// another value is an error that says where the first was read.
func (cb *charBuilder) set(t *input.TableReader, col int, d, f string, v float64) error {
	c := cb.c
	if c.Value[d] == nil {
		c.Value[d] = map[string]float64{}
		c.Datasets = append(c.Datasets, d)
	}
	if !cb.seenF[f] {
		cb.seenF[f] = true
		c.Features = append(c.Features, f)
	}
	line, column := t.Pos(col)
	if old, ok := c.Value[d][f]; ok {
		switch {
		case math.IsNaN(v) || old == v:
			return nil
		case !math.IsNaN(old):
			return t.Errorf(col, "%s of %s is also given at %s with another value (%v vs %v); keep one", input.Clip(f), input.Clip(d), sourceString(cb.from[[2]string{d, f}]), v, old)
		}
	}
	c.Value[d][f] = v
	cb.from[[2]string{d, f}] = analyses.Source{File: t.File, Line: line, Col: column}
	return nil
}

// charFile is a characteristics file opened and its header read: where
// the dataset column is (pandas' unnamed index column counts as one) and,
// in a long file, the feature and value columns.
type charFile struct {
	t                *input.TableReader
	e                Entry
	mf               input.Match
	dcol, fcol, vcol int
	long             bool
}

// readCharacteristicsFile adds the values of one characteristics file to
// cb, row by row, and closes the file.
func (in *Inputs) readCharacteristicsFile(e Entry, mf input.Match, cb *charBuilder) error {
	t, err := in.OpenMapped(mf.Path, e.Columns)
	if err != nil {
		return err
	}
	defer in.CloseCounted(mf.Path, t)
	t.SetMissing(e.MissingValues)
	f := &charFile{t: t, e: e, mf: mf, dcol: t.Col("dataset"), fcol: t.Col("feature"), vcol: t.Col("value")}
	if f.dcol < 0 && strings.TrimSpace(t.Header[0]) == "" {
		f.dcol = 0 // pandas' unnamed index column
		t.UseUnnamed(0)
	}
	f.long = f.fcol >= 0 && f.vcol >= 0
	for {
		rec, err := t.Next()
		if err == io.EOF {
			return nil
		}
		if err == nil {
			err = in.readCharacteristicsRow(f, rec, cb)
		}
		if err != nil {
			return err
		}
	}
}

// readCharacteristicsRow reads the dataset of one row of a
// characteristics file, then its one feature (a long file) or its
// feature columns (a wide file).
func (in *Inputs) readCharacteristicsRow(f *charFile, rec []string, cb *charBuilder) error {
	t := f.t
	d := in.pick(rec, f.dcol, f.mf.Dataset, in.Study.Title)
	if err := fixedConflict(t, f.dcol, d, f.mf.Dataset, "dataset"); err != nil {
		return err
	}
	if d == "" {
		return t.Errorf(max(f.dcol, 0), "empty dataset name")
	}
	if err := t.NameError(f.dcol, "dataset name", d); err != nil {
		return err
	}
	if f.long {
		return f.readLong(rec, d, cb)
	}
	return f.readWide(rec, d, cb)
}

// readLong reads the feature named in the feature column of a row of a
// long file and its value; an empty value is missing (NaN).
func (f *charFile) readLong(rec []string, d string, cb *charBuilder) error {
	t := f.t
	name := strings.TrimSpace(rec[f.fcol])
	if name == "" {
		return t.Errorf(f.fcol, "empty feature name")
	}
	if err := t.NameError(f.fcol, "feature name", name); err != nil {
		return err
	}
	name, err := cb.feature(t, f.fcol, name)
	if err != nil {
		return err
	}
	v, ok, err := t.Float(f.vcol)
	if err != nil {
		return err
	}
	if !ok {
		v = math.NaN()
	}
	return cb.set(t, f.vcol, d, name, v)
}

// readWide reads every feature column of a row of a wide file (all but
// the dataset column and the ignored ones); an empty value is missing
// (NaN), and a column without a name in the header must be empty.
func (f *charFile) readWide(rec []string, d string, cb *charBuilder) error {
	t := f.t
	for i, h := range t.Header {
		if i == f.dcol || ignored(f.e, h) {
			continue
		}
		if strings.TrimSpace(h) == "" {
			if strings.TrimSpace(rec[i]) != "" {
				return t.Errorf(i, "a value in column %d, which has no name in the header", i+1)
			}
			continue
		}
		v, ok, err := t.Float(i)
		if err != nil {
			return wideColumnError(t, i, "feature", err)
		}
		if !ok {
			v = math.NaN()
		}
		name, err := cb.feature(t, i, strings.TrimSpace(h))
		if err != nil {
			return err
		}
		if err := cb.set(t, i, d, name, v); err != nil {
			return err
		}
	}
	return nil
}

// TrimSpace is strings.TrimSpace with a fast path for the common case of
// a name that neither starts nor ends with a space.
func TrimSpace(s string) string { return input.TrimName(s) }
