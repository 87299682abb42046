package report

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/evalbook/evalbook/analyses"
)

// Options configure a build (SPEC §1).
type Options struct {
	Manifest   string // path of study.toml
	Out        string // site directory; default <study dir>/site
	Format     string // "html" (default), "md" or "both"
	SingleFile bool
	Jobs       int // workers; default GOMAXPROCS
	NoCache    bool
	Quiet      bool
	// Warn receives warnings for the user (missing chart asset, …); nil
	// discards them.
	Warn io.Writer
	// Progress reports long work; nil reports nothing.
	Progress Progress
	// Version is the tool version written into the provenance.
	Version string
	// Command is the command line to rebuild, for the provenance.
	Command string
	// Kinds is the analysis registry; nil means Kinds().
	Kinds Registry
	// Cache keeps analysis outputs between builds (evalbook serve); nil
	// recomputes everything. NoCache ignores it.
	Cache *Cache
	// CacheDir keeps analysis outputs on disk between builds (see
	// diskcache.go); "" keeps none. NoCache ignores it.
	CacheDir string
	// MaxDecompressed caps the bytes a gzip-compressed input table may
	// inflate to, per file (a gzip bomb fails with an error naming the
	// file): 0 means DefaultMaxDecompressed (64 GiB), a negative value
	// no cap.
	MaxDecompressed int64
}

// Summary says what a build did.
type Summary struct {
	Out      string
	Index    string // path of index.html (or README.md with --format md)
	Pages    int
	Analyses int
	Elapsed  time.Duration
}

// analysisRun is one analysis's output, or its error.
type analysisRun struct {
	Spec   AnalysisSpec
	Seed   uint64
	Output *Output
	Err    error
	files  []string // files it read (for the cache and derived inputs)
}

// Build runs every analysis of the manifest and writes the site
// atomically: a failed build leaves the previous site as it was.
func Build(o Options) (*Summary, error) {
	start := time.Now()
	if err := o.normalise(); err != nil {
		return nil, err
	}
	study, err := LoadStudy(o.Manifest, o.Kinds)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	study.MaxDecompressed = o.MaxDecompressed
	if o.Out == "" {
		o.Out = filepath.Join(study.Dir, "site")
	}
	in := newInputs(study)
	if err := checkInputs(study, in); err != nil {
		return nil, fmt.Errorf("inputs: %w", err)
	}
	runs := runAnalyses(study, in, o)
	if err := runErrors(study, runs); err != nil {
		return nil, err
	}
	prov, err := provenance(study, in, runs, o)
	if err != nil {
		return nil, fmt.Errorf("provenance: %w", err)
	}
	site := &siteBuild{study: study, runs: runs, prov: prov, opts: o, assets: loadAssets()}
	if !site.assets.hasECharts() && o.Format != "md" && o.Warn != nil {
		fmt.Fprintln(o.Warn, "evalbook: warning: the ECharts asset was not built into this binary (run `make assets`, then rebuild); figures are static SVG only")
	}
	files, err := site.render()
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	if err := writeAtomically(o.Out, files); err != nil {
		return nil, fmt.Errorf("write: %w", err)
	}
	index := filepath.Join(o.Out, "index.html")
	if o.Format == "md" {
		index = filepath.Join(o.Out, "README.md")
	}
	return &Summary{Out: o.Out, Index: index, Pages: len(study.Pages), Analyses: len(runs), Elapsed: time.Since(start)}, nil
}

// Validate checks the manifest, every input, every analysis and every
// page without writing anything: the study's inputs are loaded first (so
// every bad file is reported), then the analyses run and the site is
// rendered in memory, which finds what only an analysis or a page can
// (an unknown metric, a broken reference).
func Validate(o Options) (*Study, error) {
	if err := o.normalise(); err != nil {
		return nil, err
	}
	study, err := LoadStudy(o.Manifest, o.Kinds)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	study.MaxDecompressed = o.MaxDecompressed
	in := newInputs(study)
	if err := checkInputs(study, in); err != nil {
		return nil, fmt.Errorf("inputs: %w", err)
	}
	var errs Errors
	if len(study.Inputs.Results) > 0 {
		if _, err := in.results(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(study.Inputs.Units) > 0 {
		if err := in.units(func(*UnitRow) error { return nil }); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := in.characteristics(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("inputs: %w", errs)
	}
	runs := runAnalyses(study, in, o)
	if err := runErrors(study, runs); err != nil {
		return nil, err
	}
	prov, err := provenance(study, in, runs, o)
	if err != nil {
		return nil, fmt.Errorf("provenance: %w", err)
	}
	site := &siteBuild{study: study, runs: runs, prov: prov, opts: o, assets: loadAssets()}
	if _, err := site.render(); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	return study, nil
}

func (o *Options) normalise() error {
	if o.Manifest == "" {
		o.Manifest = "study.toml"
	}
	switch o.Format {
	case "":
		o.Format = "html"
	case "html", "md", "both":
	default:
		return fmt.Errorf("--format: unknown value %q (want html, md or both)", o.Format)
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.GOMAXPROCS(0)
	}
	if o.Kinds == nil {
		o.Kinds = Kinds()
	}
	if o.Progress == nil {
		o.Progress = noProgress{}
	}
	return nil
}

// checkInputs makes sure every input path matches a file and every page
// and interaction log exists, so a typo fails before any work.
func checkInputs(s *Study, in *inputs) error {
	var errs Errors
	for what, list := range map[string][]InputEntry{"results": s.Inputs.Results, "units": s.Inputs.Units, "characteristics": s.Inputs.Characteristics} {
		for _, e := range list {
			if _, err := in.expand(e, what); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, p := range s.Pages {
		if _, err := os.Stat(filepath.Join(s.Dir, p.Source)); err != nil {
			errs = append(errs, &ManifestError{File: filepath.Base(s.File), Line: p.Line, Msg: fmt.Sprintf("page %q: %v", p.Source, errors.Unwrap(err))})
		}
	}
	if s.Bibliography != "" {
		if _, err := os.Stat(filepath.Join(s.Dir, s.Bibliography)); err != nil {
			errs = append(errs, &ManifestError{File: filepath.Base(s.File), Line: s.line("bibliography"), Msg: fmt.Sprintf("bibliography %q: %v", s.Bibliography, errors.Unwrap(err))})
		}
	}
	for i, d := range s.Datasets {
		if d.Interactions == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(s.Dir, d.Interactions)); err != nil {
			errs = append(errs, &ManifestError{File: filepath.Base(s.File), Line: s.line(fmt.Sprintf("datasets.%d.interactions", i)),
				Msg: fmt.Sprintf("dataset %q: interaction log %q: %v", d.Name, d.Interactions, errors.Unwrap(err))})
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
func runAnalyses(s *Study, in *inputs, o Options) []analysisRun {
	runs := make([]analysisRun, len(s.Analyses))
	for i, a := range s.Analyses {
		runs[i] = analysisRun{Spec: a, Seed: deriveSeed(s.Seed, a.ID)}
	}
	// Phase 1: the analyses whose outputs feed the others; their derived
	// results and units join the inputs in manifest order.
	var feeders, rest []*analysisRun
	for i := range runs {
		if runs[i].Spec.Kind.Feeds {
			feeders = append(feeders, &runs[i])
		} else {
			rest = append(rest, &runs[i])
		}
	}
	runPhase(s, in, o, feeders)
	for _, r := range feeders {
		if r.Err != nil || r.Output == nil {
			continue
		}
		in.derived = append(in.derived, derivedSource{id: r.Spec.ID, results: r.Output.Results, units: r.Output.Units, files: r.files})
	}
	runPhase(s, in, o, rest)
	return runs
}

// runPhase runs analyses on o.Jobs workers. Each analysis gets the whole
// worker budget for its own parallel work; outputs land in their own
// slots, so nothing depends on scheduling.
func runPhase(s *Study, in *inputs, o Options, runs []*analysisRun) {
	sem := make(chan struct{}, o.Jobs)
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		go func(r *analysisRun) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			key := cacheKey(s, r.Spec, r.Seed, o.Version)
			disk := o.CacheDir
			if o.NoCache || r.Spec.Kind.Feeds {
				disk = ""
			}
			if !o.NoCache {
				if out, files := o.Cache.get(r.Spec.ID, key, in); out != nil {
					r.Output, r.files = out, files
					return
				}
				if out, files := diskGet(disk, r.Spec.ID, key, in); out != nil {
					r.Output, r.files = out, files
					o.Cache.put(r.Spec.ID, key, files, in, out)
					return
				}
			}
			ctx := &Context{ID: r.Spec.ID, Title: r.Spec.Title, Caption: r.Spec.Caption, Study: s, Seed: r.Seed,
				Jobs: o.Jobs, inputs: in, progress: o.Progress}
			defer func() {
				if p := recover(); p != nil {
					buf := make([]byte, 4096)
					buf = buf[:runtime.Stack(buf, false)]
					r.Err = fmt.Errorf("internal error (please report): %v\n%s", p, buf)
				}
			}()
			out, err := r.Spec.Kind.Run(ctx, r.Spec.Options)
			if err == nil && (out == nil || out.Result == nil) {
				err = fmt.Errorf("internal error: %s returned no result", r.Spec.Type)
			}
			if err == nil {
				for _, t := range out.Result.Tables() {
					t.Check()
				}
			}
			r.Output, r.Err, r.files = out, err, ctx.touchedFiles()
			if err == nil {
				o.Cache.put(r.Spec.ID, key, r.files, in, out)
				diskPut(disk, r.Spec.ID, key, r.files, in, out) // a failed write only costs time
			}
		}(r)
	}
	wg.Wait()
}

// runErrors gathers the analyses' errors; one input error met by several
// analyses is reported once, naming them all.
//
// An error that does not already point into an input file is placed at
// the analysis's line in the manifest, where the user can fix it.
func runErrors(s *Study, runs []analysisRun) error {
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
		var ie *InputError
		var me *ManifestError
		if !errors.As(r.Err, &ie) && !errors.As(r.Err, &me) && !positioned.MatchString(m) {
			at[m] = fmt.Sprintf("%s:%d: ", filepath.Base(s.File), r.Spec.Line)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	var errs Errors
	for _, m := range msgs {
		errs = append(errs, fmt.Errorf("%sanalyses/%s: %s", at[m], strings.Join(ids[m], ", "), m))
	}
	return errs
}

// positioned matches a message that starts with file:line.
var positioned = regexp.MustCompile(`^[^\s:]+\.[A-Za-z]+:\d+`)

// writeAtomically writes files into a fresh sibling directory of out and
// swaps it in place of out.
func writeAtomically(out string, files map[string][]byte) error {
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	names := analyses.SortedKeys(files)
	for _, name := range names {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	old := ""
	if _, err := os.Stat(out); err == nil {
		old = out + ".old-" + filepath.Base(tmp)
		if err := os.Rename(out, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, out); err != nil {
		if old != "" {
			os.Rename(old, out)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// sha256File returns the hex sha256 of a file.
func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
