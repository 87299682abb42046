package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/load/engines"
	"github.com/evalbook/evalbook/report/manifest"
	"github.com/evalbook/evalbook/report/site"
)

// Options configure a build (the flags of evalbook build, serve and
// validate).
type Options struct {
	Manifest   string // path of study.toml
	Out        string // site directory; default <study dir>/site
	Format     string // "html" (default), "md" or "both"; "latex" or "paper" is html with Paper
	Paper      bool   // also write paper/ (report/site/paper.go)
	SingleFile bool
	Jobs       int // workers; default GOMAXPROCS
	NoCache    bool
	// Exports renders every figure's PDF and PNG for a manuscript
	// (figures/<id>.pdf and .png beside the SVG). They cost more than the
	// rest of a small build, so they are rendered only when asked: this
	// option (pack sets it), Paper, or the manifest's exports = true.
	// Validate never renders them.
	Exports bool
	Quiet   bool
	// Warn receives warnings for the user (missing chart asset, …); nil
	// discards them.
	Warn io.Writer
	// Progress reports long work; nil reports nothing.
	Progress kinds.Progress
	// Version is the tool version written into the provenance.
	Version string
	// Command is the command line to rebuild, for the provenance.
	Command string
	// Kinds is the analysis registry; nil means Kinds().
	Kinds kinds.Registry
	// Assets, when set, are the chart library, KaTeX and the Explore
	// page's module the site embeds in place of the binary's (a build
	// whose Assets have no module has no Explore page).
	Assets *site.Assets
	// Cache keeps analysis outputs between builds (evalbook serve); nil
	// recomputes everything. NoCache ignores it.
	Cache *Cache
	// CacheDir keeps analysis outputs on disk between builds (see
	// diskcache.go); "" keeps none. NoCache ignores it.
	CacheDir string
	// CacheMaxBytes bounds the entries kept in CacheDir (least recently
	// used out); 0 means DefaultCacheMaxBytes.
	CacheMaxBytes int64
	// ReplaceOtherStudy lets a build replace a site whose marker names
	// another study (another title or manifest name) outside the study
	// directory: `--force`. Every other check of the output still holds.
	ReplaceOtherStudy bool
	// AllowOutside lets inputs, pages and the bibliography lie outside
	// the study directory (--allow-outside; the manifest's allow_outside).
	AllowOutside bool
	// OnRead, when set, is told at the end of every build, failed or not,
	// which files the build read (and every path it tried to open, found
	// or not) and which path patterns it expanded
	// (with their matches): what evalbook serve watches.
	OnRead func(files []string, patterns map[string][]string)

	// onOpen, when set (tests), is told every input file opened.
	onOpen func(path string)
	// onSupersede, when set (tests), is told when serve cancels a
	// rebuild for a newer change; onBuildStart when serve starts one.
	onSupersede, onBuildStart func()
	// parallelMin and chunkBytes, when set (tests), replace the size from
	// which a units file is parsed in parallel byte ranges, and the size
	// of a range.
	parallelMin, chunkBytes int64
	onParallel              func(path string)
	// validate: the pipeline runs for its errors only (Validate): no
	// figure export is rendered, whatever Exports and the manifest say.
	validate bool
	// onExport, when set (tests), is told the id of every figure whose
	// PDF and PNG were rendered.
	onExport func(figID string)
	// cache is the build's caching as run resolved it from NoCache,
	// Cache, CacheDir and CacheMaxBytes (cachePolicy); cacheNow, when set
	// (tests), is the disk cache's clock, and onCacheScan is told of each
	// scan of the whole disk cache.
	cache       cachePolicy
	cacheNow    func() time.Time
	onCacheScan func()
	// checkOut: refuse an unsafe output before any analysis runs (Build;
	// checked again, with every file read, before writing).
	checkOut bool
	// MaxDecompressed caps the bytes a gzip-compressed input table may
	// inflate to, per file (a gzip bomb fails with an error naming the
	// file): 0 means input.DefaultMaxDecompressed (64 GiB), a negative value
	// no cap.
	MaxDecompressed int64
}

// Summary says what a build did.
type Summary struct {
	Out   string
	Index string // path of index.html (or README.md with --format md)
	// Pages is the number of narrative pages (the manifest's [[pages]]),
	// not of the files written: the overview, a page per analysis and
	// the provenance page come besides.
	Pages int
	// Analyses is the number of analyses on the site.
	Analyses int
	// Cached is how many of the analyses this build took from the cache
	// (memory or disk) instead of running them.
	Cached  int
	Elapsed time.Duration
}

// analysisRun is one analysis's output, or its error.
type analysisRun struct {
	Spec   manifest.AnalysisSpec
	Seed   uint64
	Output *kinds.Output
	Err    error
	kind   kinds.Kind // its type in the build's registry
	cached bool       // the output came from the cache
	key    string     // its cache key (cacheKey)
	// load reads the output taken from the disk cache, until the site
	// needs it (loadOutput)
	load  func() (*kinds.Output, error)
	reads *input.ReadSet // what it read (for the cache, derived inputs, serve)
}

// built is what a build computed before anything is written.
type built struct {
	study *manifest.Study
	in    *load.Inputs
	runs  []analysisRun
	files map[string][]byte
}

// Build runs every analysis of the manifest and writes the site
// atomically: a failed build leaves the previous site as it was.
//
// Cancelling ctx stops the build at the next analysis, between phases,
// in the units pass, or before the site is written (never during the
// swap): it returns ctx's error and the previous site stays as it was.
func Build(ctx context.Context, o Options) (*Summary, error) {
	start := time.Now()
	if err := o.normalise(); err != nil {
		return nil, err
	}
	o.checkOut = true
	b, err := run(ctx, &o)
	if err != nil {
		// A failed build writes no site, but puts back the one a build
		// killed during its swap left aside (not beside an output it
		// refused).
		if oe := (*OutputError)(nil); !errors.As(err, &oe) {
			recoverOnFailure(o.Out)
		}
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Nothing has been written yet: refuse an output the build must not
	// replace, then write where was checked (see output.go).
	target, err := checkOutput(o.Out, b.study, studyFiles(b.study, b.in))
	if err != nil {
		return nil, err
	}
	if err := checkSameStudy(o.Out, target, b.study, o.ReplaceOtherStudy); err != nil {
		return nil, err
	}
	if err := writeAtomically(target, b.files, siteMarker(b.study, b.files)); err != nil {
		return nil, fmt.Errorf("write %s: %w", o.Out, err)
	}
	index := filepath.Join(o.Out, "index.html")
	if o.Format == "md" {
		index = filepath.Join(o.Out, "README.md")
	}
	cached := 0
	for _, r := range b.runs {
		if r.cached {
			cached++
		}
	}
	return &Summary{Out: o.Out, Index: index, Pages: len(b.study.Pages), Analyses: len(b.runs), Cached: cached, Elapsed: time.Since(start)}, nil
}

// Validate runs exactly what Build runs — manifest, inputs, analyses,
// rendering in memory — and writes nothing, so it accepts a study exactly
// when Build does and reports the same errors.
func Validate(ctx context.Context, o Options) (*manifest.Study, error) {
	if err := o.normalise(); err != nil {
		return nil, err
	}
	o.validate = true
	b, err := run(ctx, &o)
	if err != nil {
		return nil, err
	}
	return b.study, nil
}

// run is the one pipeline behind Build and Validate: load the manifest,
// check the declared inputs, run the feeding analyses and then the
// others, record the provenance and render the site in memory.
func run(ctx context.Context, o *Options) (*built, error) {
	study, err := manifest.LoadStudy(o.Manifest, o.Kinds)
	if err != nil {
		return nil, err // each line names the manifest (study.toml:17: …)
	}
	study.MaxDecompressed = o.MaxDecompressed
	if o.Out == "" {
		o.Out = filepath.Join(study.Dir, "site")
	}
	in := load.NewInputs(inputConfig(study, o.AllowOutside))
	in.OnOpen = o.onOpen
	in.Jobs, in.ParallelMin, in.ChunkBytes = o.Jobs, 32<<20, 256<<10
	if o.parallelMin > 0 {
		in.ParallelMin, in.ChunkBytes = o.parallelMin, o.chunkBytes
	}
	in.OnParallel = o.onParallel
	defer o.resolveCache(in)()
	if o.OnRead != nil {
		// what it read, and what it tried to open (a file missing now
		// must be watched, to rebuild when it comes back)
		defer func() { o.OnRead(append(in.All.Files(), in.Tried.Files()...), in.All.Patterns()) }()
	}
	if err := checkInputs(study, in); err != nil {
		return nil, fmt.Errorf("inputs: %w", err)
	}
	if o.checkOut {
		// A wrong -o fails now, not after every analysis has run.
		target, err := checkOutput(o.Out, study, studyFiles(study, in))
		if err != nil {
			return nil, err
		}
		if err := checkSameStudy(o.Out, target, study, o.ReplaceOtherStudy); err != nil {
			return nil, err
		}
	}
	runs := runAnalyses(ctx, study, in, *o)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := runErrors(study, runs); err != nil {
		return nil, err
	}
	// Values a feeding analysis derives must not collide with the results
	// files, whether or not another analysis reads the results.
	if derivesResults(in) && len(study.Inputs.Results) > 0 {
		if _, err := in.Results(); err != nil {
			return nil, fmt.Errorf("inputs: %w", err)
		}
	}
	prov, err := provenance(study, in, runs, *o)
	if err != nil {
		return nil, fmt.Errorf("provenance: %w", err)
	}
	files, err := o.renderSite(study, runs, prov, in)
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	return &built{study: study, in: in, runs: runs, files: files}, nil
}

func (o *Options) normalise() error {
	if o.Manifest == "" {
		o.Manifest = "study.toml"
	}
	switch o.Format {
	case "":
		o.Format = "html"
	case "html", "md", "both":
	case "latex", "paper": // the site and paper/ (report/site/paper.go)
		o.Format, o.Paper = "html", true
	default:
		return fmt.Errorf("--format: unknown value %q (want html, md, both, latex or paper)", o.Format)
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.GOMAXPROCS(0)
	}
	if o.Kinds == nil {
		o.Kinds = kinds.Kinds()
	}
	if o.Progress == nil {
		o.Progress = kinds.NoProgress{}
	}
	return nil
}

// inputConfig is what the input stage reads of the manifest: the one
// place the manifest's declarations become the loaders' plain config.
// allowOutside is --allow-outside (the manifest's allow_outside counts
// too).
func inputConfig(s *manifest.Study, allowOutside bool) *load.Config {
	c := &load.Config{File: s.File, Dir: s.Dir, Title: s.Title, AllowOutside: s.AllowOutside || allowOutside, MaxDecompressed: s.MaxDecompressed,
		DerivesUnits: s.DerivesUnits(), Bounds: map[string]load.Bound{}}
	entries := func(es []manifest.InputEntry) []load.Entry {
		out := make([]load.Entry, len(es))
		for i, e := range es {
			out[i] = load.Entry{Path: e.Path, Columns: e.Columns, Dataset: e.Dataset, Method: e.Method, Metric: e.Metric, Ignore: e.Ignore,
				Missing: e.Missing, MissingValues: e.MissingValues, Duplicates: e.Duplicates, UnequalRuns: e.UnequalRuns, Layout: e.Layout, Line: e.Line}
		}
		return out
	}
	c.Inputs = load.Entries{Results: entries(s.Inputs.Results), Units: entries(s.Inputs.Units), Characteristics: entries(s.Inputs.Characteristics)}
	for _, d := range s.Datasets {
		c.Datasets = append(c.Datasets, d.Name)
		if l := d.EngineLog; l != nil {
			c.EngineLogs = append(c.EngineLogs, &engines.LogTable{Dataset: d.Name, File: l.File, Line: l.Line, Target: l.Target, Timeout: l.Timeout, Src: l.Src})
		}
	}
	for _, m := range s.Metrics {
		if max, i, ok := s.MetricMax(m.Name); ok {
			c.Bounds[strings.ToLower(m.Name)] = load.Bound{Max: max, At: s.MetricAt(i)}
		}
	}
	if e := s.Engine; e != nil {
		c.Engine = &engines.Table{File: e.File, Line: e.Line, Target: e.Target, Timeout: e.Timeout, Src: e.Src}
	}
	return c
}

// checkInputs makes sure every input path matches a file and every page
// and interaction log exists, so a typo fails before any work.
func checkInputs(s *manifest.Study, in *load.Inputs) error {
	errs := manifest.Errors(in.CheckEntries())
	for _, p := range s.Pages {
		b, err := in.ReadSource(p.Source, load.MaxPageBytes)
		if err != nil {
			errs = append(errs, &manifest.ManifestError{File: filepath.Base(s.File), Line: p.Line, Msg: fmt.Sprintf("page %q: %v", p.Source, err)})
		} else if err := load.CheckPageShape(in.Display(input.AbsPath(s.Dir, p.Source)), b); err != nil {
			errs = append(errs, err)
		}
	}
	if s.Bibliography != "" {
		if _, err := in.ReadSource(s.Bibliography, load.MaxBibBytes); err != nil {
			errs = append(errs, &manifest.ManifestError{File: filepath.Base(s.File), Line: s.Line("bibliography"), Msg: fmt.Sprintf("bibliography %q: %v", s.Bibliography, err)})
		}
	}
	for i, d := range s.Datasets {
		if d.Interactions == "" {
			continue
		}
		if err := in.CheckFile(input.AbsPath(s.Dir, d.Interactions)); err != nil {
			errs = append(errs, &manifest.ManifestError{File: filepath.Base(s.File), Line: s.Line(fmt.Sprintf("datasets.%d.interactions", i)),
				Msg: fmt.Sprintf("dataset %q: interaction log %q: %v", d.Name, d.Interactions, err)})
		}
	}
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
		return errs
	}
	return nil
}

// runAnalyses runs the analyses on o.Jobs workers. Each analysis gets the
// whole worker budget for its own parallel work; outputs are collected by
// index, so the order never depends on scheduling.
func runAnalyses(ctx context.Context, s *manifest.Study, in *load.Inputs, o Options) []analysisRun {
	runs := make([]analysisRun, len(s.Analyses))
	for i, a := range s.Analyses {
		runs[i] = analysisRun{Spec: a, Seed: kinds.DeriveSeed(s.Seed, a.ID), kind: o.Kinds[a.Type]}
	}
	// Phase 1: the analyses whose outputs feed the others; their derived
	// results and units join the inputs in manifest order.
	var feeders, rest []*analysisRun
	keys := map[*analysisRun]string{}
	var feederKeys []string
	for i := range runs {
		r := &runs[i]
		keys[r] = cacheKey(s, in, r.Spec, r.Seed, o.Version+exportsKey(s, o)+readRulesKey(o))
		if r.Spec.Kind.Feeds {
			feeders = append(feeders, r)
			feederKeys = append(feederKeys, r.Spec.ID, keys[r])
		} else {
			rest = append(rest, r)
		}
	}
	// What a feeding analysis computes may reach any other analysis, so
	// its parameters are part of every other analysis's key (its files
	// are part of their reads).
	for _, r := range rest {
		keys[r] = hashStrings(append([]string{keys[r]}, feederKeys...))
	}
	for r, k := range keys {
		r.key = k
	}
	runPhase(ctx, s, in, o, feeders, keys)
	for _, r := range feeders {
		if r.Err != nil || r.Output == nil {
			// The others would be computed without this one's values:
			// they still run, to report their own errors, but nothing of
			// theirs is taken from or put into the cache.
			o.cache = cachePolicy{}
			continue
		}
		in.Derived = append(in.Derived, load.DerivedSource{Id: r.Spec.ID, Results: r.Output.Results, Units: r.Output.Units, Reads: r.reads})
	}
	if ctx.Err() != nil {
		return runs
	}
	runPhase(ctx, s, in, o, rest, keys)
	return runs
}

// runPhase runs analyses on o.Jobs workers. Each analysis gets the whole
// worker budget for its own parallel work; outputs land in their own
// slots, so nothing depends on scheduling. The analyses that read the
// study's per-unit values (Kind.Units) and are not taken from the cache
// are fed by one shared units pass (unitspass.go) before they run.
func runPhase(ctx context.Context, s *manifest.Study, in *load.Inputs, o Options, runs []*analysisRun, keys map[*analysisRun]string) {
	ph := &phase{ctx: ctx, s: s, in: in, o: o, v: input.NewValidator(in.Hashes)}
	var todo []*phaseJob
	for _, r := range runs {
		j := &phaseJob{r: r, key: keys[r], disk: o.cache.disk}
		if !o.cache.on || (r.Spec.Kind.Feeds && r.kind.Units != nil) {
			// a feeding kind fed by the units pass could not be run
			// again later (lazyUnits) to stream its units
			j.disk = nil
		}
		if ph.cached(j) {
			continue // cached outputs first: only the others read
		}
		j.rs = input.NewReadSet()
		j.job = ph.job(r, j.rs, o.Progress)
		todo = append(todo, j)
	}
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		ph.feedUnits(todo)
	}()
	sem := make(chan struct{}, o.Jobs)
	var wg sync.WaitGroup
	for _, j := range todo {
		wg.Add(1)
		go func(j *phaseJob) {
			defer wg.Done()
			if j.r.Spec.Kind.ReadsUnits {
				<-fed
			}
			sem <- struct{}{}
			defer func() { <-sem }()
			ph.run(j)
		}(j)
	}
	wg.Wait()
	<-fed
}

// phase is one phase of a build's analyses (runPhase).
type phase struct {
	ctx context.Context
	s   *manifest.Study
	in  *load.Inputs
	o   Options
	v   *input.Validator // checks the caches' entries against the files
}

// phaseJob is an analysis of a phase: its cache key and disk cache, and,
// when it runs, its context and what it read.
type phaseJob struct {
	r    *analysisRun
	key  string
	disk *diskStore
	rs   *input.ReadSet
	job  *kinds.Job
}

// cached takes an analysis's output from the memory or the disk cache
// when an entry is valid for the files as they are now.
func (ph *phase) cached(j *phaseJob) bool {
	if !ph.o.cache.on {
		return false
	}
	r := j.r
	if out, reads := ph.o.cache.memory.get(r.Spec.ID, j.key, ph.in, ph.v); out != nil {
		r.Output, r.reads, r.cached = out, reads, true
		return true
	}
	if c, st := j.disk.get(r.Spec.ID, j.key, ph.v); c != nil {
		r.load, r.reads, r.cached = c.output, st.replay(ph.in), true
		var err error
		switch {
		case ph.o.cache.memory != nil: // serve keeps outputs whole
			err = r.loadOutput()
		case r.Spec.Kind.Feeds: // what the others read, now
			r.Output, err = c.derived()
		default:
			return true // decoded when the site is rendered, if it is (renderSite)
		}
		if err != nil {
			r.load, r.reads, r.cached = nil, nil, false
			return false // computed again
		}
		out := r.Output
		if out.Units != nil {
			// a feeder's units, made again if an analysis reads them, by
			// this build: not for serve's memory cache, which keeps
			// outputs across builds
			out.Units = ph.lazyUnits(r, out.Results)
			return true
		}
		ph.o.cache.memory.putStamp(r.Spec.ID, j.key, st, out)
		return true
	}
	return false
}

// loadOutput reads the output of an analysis taken from the disk cache
// (analysisRun.load), once.
func (r *analysisRun) loadOutput() error {
	if r.load == nil {
		return nil
	}
	out, err := r.load()
	if err != nil {
		return fmt.Errorf("analysis %q: its cache entry (removed: build again): %w", r.Spec.ID, err)
	}
	if r.Output != nil { // a feeder's derived results, and its units as the build makes them
		out.Units = r.Output.Units
	}
	r.Output, r.load = out, nil
	return nil
}

// job is what a run of r sees: the build's inputs recording into rs, its
// workers and progress, and the build's cancellation.
func (ph *phase) job(r *analysisRun, rs *input.ReadSet, progress kinds.Progress) *kinds.Job {
	return &kinds.Job{ID: r.Spec.ID, Title: r.Spec.Title, Caption: r.Spec.Caption, Study: ph.s, Seed: r.Seed,
		Workers: ph.o.Jobs, Inputs: ph.in.ForAnalysis(rs), ProgressTo: progress, Done: ph.ctx.Done()}
}

// lazyUnits streams the per-unit values of a feeding analysis taken from
// the disk cache, which keeps its derived results but not its units (as
// many as the users of every run): the first analysis that reads them
// runs the feeder again, once, and streams what that run derives. When
// every analysis that reads them is cached too, nothing calls it and the
// feeder costs nothing. The run again must derive the results the entry
// holds, or the build fails (its files changed meanwhile).
func (ph *phase) lazyUnits(r *analysisRun, cached []load.ResultRow) func(func(*load.UnitRow) error) error {
	var once sync.Once
	var units func(func(*load.UnitRow) error) error
	var err error
	return func(fn func(*load.UnitRow) error) error {
		once.Do(func() {
			job := ph.job(r, input.NewReadSet(), kinds.NoProgress{})
			var out *kinds.Output
			out, err = r.kind.Run(job, r.Spec.Options)
			switch {
			case err != nil:
				err = fmt.Errorf("%s: computing its per-unit values again: %w", r.Spec.ID, err)
			case out == nil || out.Units == nil || !reflect.DeepEqual(out.Results, cached):
				err = fmt.Errorf("%s: its inputs changed during the build (its values differ from the cache's); build again", r.Spec.ID)
			default:
				units = out.Units
			}
		})
		if err != nil {
			return err
		}
		return units(fn)
	}
}

// feedUnits runs the shared units pass for the jobs whose kind reads
// units, and gives each its fed sink and the files the pass read.
func (ph *phase) feedUnits(jobs []*phaseJob) {
	var readers []*phaseJob
	var sinks []load.UnitsSink
	for _, j := range jobs {
		if k := j.r.kind; k.Units != nil {
			if sink := k.Units(j.job, j.r.Spec.Options); sink != nil {
				readers = append(readers, j)
				sinks = append(sinks, sink)
			}
		}
	}
	if len(sinks) == 0 {
		return
	}
	prs := input.NewReadSet()
	errs, heads := make([]error, len(sinks)), make([]map[string]int64, len(sinks))
	func() {
		defer func() {
			if p := recover(); p != nil {
				err := load.InternalError(p)
				for i := range errs {
					errs[i] = err
				}
			}
		}()
		errs, heads = ph.in.ForAnalysis(prs).UnitsPassHeads(ph.ctx, sinks)
	}()
	for i, j := range readers { // a file of a method it does not compare: its header
		j.rs.MergeHeads(prs, heads[i])
		j.job.Fed = &kinds.FedUnits{Sink: sinks[i], Err: errs[i]}
	}
}

// run runs one analysis and stores its output in the caches.
func (ph *phase) run(j *phaseJob) {
	r := j.r
	if err := ph.ctx.Err(); err != nil {
		r.Err = err
		return
	}
	defer func() {
		if p := recover(); p != nil {
			r.Err = load.InternalError(p)
		}
	}()
	out, err := r.kind.Run(j.job, r.Spec.Options)
	if err == nil && (out == nil || out.Result == nil) {
		err = fmt.Errorf("internal error: %s returned no result", r.Spec.Type)
	}
	if err == nil {
		for _, t := range out.Result.Tables() {
			t.Check()
		}
		// the site's SVG of a figure whose builder left it to the
		// build (validate draws none), and the manuscript's PDF and PNG,
		// rendered here so that the cache keeps them (a cached figure
		// has no drawing to render from)
		if !ph.o.validate {
			err = figures.DrawSVGs(out.Figures)
		}
		if err == nil && wantExports(ph.s, ph.o) {
			err = figures.Render(out.Figures, figureWidth(ph.s))
			for _, f := range out.Figures {
				if f.PDF != nil && ph.o.onExport != nil {
					ph.o.onExport(f.ID)
				}
			}
		}
	}
	r.Output, r.Err, r.reads = out, err, j.rs
	if err != nil || (ph.o.cache.memory == nil && j.disk == nil) {
		return
	}
	st, serr := stampReads(j.rs, ph.in)
	if serr != nil {
		return // a file changed or vanished while it was read: store nothing
	}
	ph.o.cache.memory.putStamp(r.Spec.ID, j.key, st, out)
	j.disk.put(r.Spec.ID, j.key, st, out) // in the background; a failed write only costs time
}

// exportsKey tells apart in the cache the outputs that carry the
// figures' PDF and PNG from those that do not.
func exportsKey(s *manifest.Study, o Options) string {
	if wantExports(s, o) {
		return "+exports"
	}
	return ""
}

// wantExports reports whether this build renders the figures' PDF and
// PNG: when the caller (pack), the format (paper/latex) or the manifest
// (exports = true) asks, and never in validate, which writes nothing.
func wantExports(s *manifest.Study, o Options) bool {
	return !o.validate && (o.Exports || o.Paper || s.Exports)
}

// readRulesKey is the part of a cache key the command line's reading
// rules give: what --allow-outside admits and what --max-decompressed
// caps are checked as files are read, so a cached output read under
// other rules would accept what a fresh build refuses.
func readRulesKey(o Options) string {
	if !o.AllowOutside && o.MaxDecompressed == 0 {
		return ""
	}
	return fmt.Sprintf("+allow-outside=%t+max-decompressed=%d", o.AllowOutside, o.MaxDecompressed)
}

// derivesResults reports whether a feeding analysis derived results.
func derivesResults(in *load.Inputs) bool {
	for _, d := range in.Derived {
		if len(d.Results) > 0 {
			return true
		}
	}
	return false
}

// runErrors gathers the analyses' errors; one input error met by several
// analyses is reported once, naming them all.
//
// An error that does not already point into an input file is placed at
// the analysis's line in the manifest, where the user can fix it.
func runErrors(s *manifest.Study, runs []analysisRun) error {
	var msgs []string
	ids := map[string][]string{}
	at := map[string]string{} // message → manifest position, when the error has none
	for _, r := range runs {
		if r.Err == nil {
			continue
		}
		m := r.Err.Error()
		if ids[m] == nil {
			msgs = append(msgs, m)
		}
		ids[m] = append(ids[m], r.Spec.ID)
		var ie *input.InputError
		var me *manifest.ManifestError
		var oe *analyses.OptionError
		var ne manifest.NameError
		switch {
		case errors.As(r.Err, &ie) || errors.As(r.Err, &me):
		case errors.As(r.Err, &ne) && r.Spec.Key != "" && s.OptionLine(r.Spec.Key, ne.What) > 0:
			// a name the option gives and the data lacks: that option's line
			at[m] = fmt.Sprintf("%s:%d: ", filepath.Base(s.File), s.OptionLine(r.Spec.Key, ne.What))
		case errors.As(r.Err, &oe) && r.Spec.Key != "":
			// an option the data refutes (a feature the characteristics
			// lack): the key's line, not the [[analyses]] header's
			at[m] = fmt.Sprintf("%s:%d: ", filepath.Base(s.File), s.Line(r.Spec.Key+"."+oe.Key))
		default:
			at[m] = fmt.Sprintf("%s:%d: ", filepath.Base(s.File), r.Spec.Line)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	var errs manifest.Errors
	for _, m := range msgs {
		errs = append(errs, fmt.Errorf("%sanalyses/%s: %s", at[m], strings.Join(ids[m], ", "), m))
	}
	return errs
}
