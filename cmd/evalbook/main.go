// Command evalbook turns a benchmark study into the companion website of
// its paper.
//
//	evalbook build    [study.toml | dir] [-o DIR] [--format html|md|both|latex] [--single-file] [--jobs N] [--no-cache] [--quiet] [--force]
//	evalbook validate [study.toml | dir]
//	evalbook serve    [study.toml | dir] [--addr 127.0.0.1:8080]
//	evalbook init     [DIR]
//	evalbook version
//
// Exit status: 0 on success, 1 on a build or input error, 2 on a usage
// error. main only parses arguments and calls package report.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/report"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
	"github.com/evalbook/evalbook/themes"
)

// version is set at link time (-ldflags "-X main.version=…"); otherwise
// the module version, or "devel".
var version = ""

func main() {
	stop := startProfiling(os.Stderr)
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage:
  evalbook build    [study.toml | dir] [-o DIR] [--format html|md|both|latex] [--single-file] [--jobs N] [--no-cache] [--quiet] [--force]
  evalbook validate [study.toml | dir]
  evalbook serve    [study.toml | dir] [--addr 127.0.0.1:8080]
  (build, validate and serve also take --allow-outside and --max-decompressed SIZE)
  evalbook init     [DIR]
  evalbook pack     [study.toml | dir] [-o study.zip] [--exclude-inputs]
  evalbook verify   study.zip [--inputs DIR]
  evalbook schema   # the manifest's JSON Schema, for editors
  evalbook version
run "evalbook <command> --help" for a command's flags.
`

// commandHelp is each command's usage line and what it does, printed by
// "evalbook <command> --help" above its flags.
var commandHelp = map[string]string{
	"build": `usage: evalbook build [study.toml | dir] [flags]

Runs every analysis of the study and writes its site (default: <study dir>/site).
A directory stands for its study.toml. Flags may come before or after the study.`,
	"validate": `usage: evalbook validate [study.toml | dir] [flags]

Checks the manifest and reads every input, running the whole pipeline of
build, and prints every problem with its file and line; writes nothing.
On success it lists the analysis types this binary knows.`,
	"serve": `usage: evalbook serve [study.toml | dir] [flags]

Builds the site, serves it, and rebuilds and reloads the browser when the
manifest, an input or a page changes.`,
	"pack": `usage: evalbook pack [study.toml | dir] [flags]

Builds the study without cache and writes a deterministic zip (default:
<study dir>.zip) of the manifest, every file the build read and the built
site, with RO-Crate 1.1 metadata holding each file's sha256.`,
	"verify": `usage: evalbook verify study.zip [flags]

Checks every file of a zip written by pack against its hash, rebuilds the
study without cache in a temporary directory and exits 0 only when the
rebuilt site is byte-identical to the archived one; else it names the
first file that differs.`,
	"schema": `usage: evalbook schema

Prints the JSON Schema of study.toml (generated from the options the parser
reads), for a TOML-aware editor to complete and check a manifest: save it
(evalbook schema > study.schema.json) and point the editor at it, e.g. with
"#:schema ./study.schema.json" as the manifest's first line (Taplo, Even
Better TOML).`,
	"init": `usage: evalbook init [DIR]

Writes a small working study into DIR (default: the current directory).`,
}

// newFlagSet is a command's flag set whose --help prints the command's
// usage, what it does and its flags.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), commandHelp[name])
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(fs.Output(), "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "build":
		err = cmdBuild(args[1:], stdout, stderr)
	case "validate":
		err = cmdValidate(args[1:], stdout, stderr)
	case "serve":
		err = cmdServe(args[1:], stdout, stderr)
	case "init":
		err = cmdInit(args[1:], stdout, stderr)
	case "pack": // pack.go
		err = cmdPack(args[1:], stdout, stderr)
	case "verify":
		err = cmdVerify(args[1:], stdout, stderr)
	case "schema":
		err = cmdSchema(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		printVersion(stdout)
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = usageError{fmt.Sprintf("unknown command %q", args[0])}
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "evalbook: %v\n%s", err, usage)
		return 2
	case errors.Is(err, flag.ErrHelp):
		return 0
	default:
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(stderr, "evalbook: %s\n", line)
		}
		return 1
	}
}

// parse accepts flags before and after the one optional positional
// argument, as the README writes them (build study.toml -o site).
func parse(fs *flag.FlagSet, args []string) (string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return "", err
			}
			return "", usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) > 1 {
		return "", usageError{fmt.Sprintf("too many arguments: %s", strings.Join(pos, " "))}
	}
	// -o "" (an unset shell variable, -o "$OUT") named no output, and the
	// command wrote to its default instead: refuse it.
	var empty error
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "o" && strings.TrimSpace(f.Value.String()) == "" {
			empty = usageError{"-o: the path is empty (an unset variable?); name the output, or leave -o out for the default"}
		}
	})
	if empty != nil {
		return "", empty
	}
	if len(pos) == 1 {
		return pos[0], nil
	}
	return "study.toml", nil
}

// inputFlags are the flags of every command that reads a study.
type inputFlags struct {
	allowOutside    *bool
	maxDecompressed *string
}

func addInputFlags(fs *flag.FlagSet) inputFlags {
	return inputFlags{
		allowOutside:    fs.Bool("allow-outside", false, "read inputs, pages and the bibliography outside the study directory"),
		maxDecompressed: fs.String("max-decompressed", "", "cap on the decompressed size of each .gz input, e.g. 512M or 8G (default 64G; \"none\": no cap)"),
	}
}

// apply sets the options; a bad size is a usage error.
func (f inputFlags) apply(o *report.Options) error {
	o.AllowOutside = *f.allowOutside
	if *f.maxDecompressed == "" {
		return nil
	}
	n, err := parseSize(*f.maxDecompressed)
	if err != nil {
		return usageError{"--max-decompressed: " + err.Error()}
	}
	o.MaxDecompressed = n
	return nil
}

// parseSize reads a byte count with an optional K, M, G or T suffix
// (powers of 1024); "none" is no cap (-1).
func parseSize(s string) (int64, error) {
	if strings.EqualFold(s, "none") {
		return -1, nil
	}
	mult := int64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			s = s[:n-1]
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 || v > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size (a positive number of bytes, optionally with K, M, G or T, or \"none\")", s)
	}
	return v * mult, nil
}

func cmdBuild(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("build", stderr)
	out := fs.String("o", "", "output directory (default: <study dir>/site); an existing one is replaced only if evalbook wrote it")
	format := fs.String("format", "html", "html, md, both, or latex (= paper: html and paper/, see docs/PAPER.md)")
	single := fs.Bool("single-file", false, "write one self-contained index.html")
	jobs := fs.Int("jobs", 0, "parallel workers (default: number of CPUs)")
	noCache := fs.Bool("no-cache", false, "recompute every analysis")
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	force := fs.Bool("force", false, "replace a site (-o) whose marker names another study (another title or manifest)")
	inFlags := addInputFlags(fs)
	manifest, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch *format {
	case "html", "md", "both", "latex", "paper":
	default:
		return usageError{fmt.Sprintf("--format: unknown value %q (want html, md, both, latex or paper)", *format)}
	}
	if *jobs < 0 {
		return usageError{"--jobs: must be at least 1"}
	}
	if *single && *format == "md" {
		return usageError{"--single-file makes one self-contained index.html; --format md writes Markdown pages, which it cannot apply to (use --format html or both)"}
	}
	opts := report.Options{Manifest: manifest, Out: *out, Format: *format, SingleFile: *single, Jobs: *jobs,
		NoCache: *noCache, CacheDir: cacheDir(), Quiet: *quiet, Warn: stderr, Version: toolVersion(), ReplaceOtherStudy: *force,
		Command: rebuildCommand(manifest, *format, *single)}
	if err := inFlags.apply(&opts); err != nil {
		return err
	}
	if !*quiet && isTerminal(stderr) {
		opts.Progress = &termProgress{w: stderr}
	}
	if *quiet {
		opts.Warn = nil
	}
	// Ctrl-C stops the build cleanly: nothing is written after it, and
	// the previous site stays as it was.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := report.Build(ctx, opts)
	if p, ok := opts.Progress.(*termProgress); ok {
		p.done()
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted: nothing was written, the previous site (if any) is as it was")
	}
	if err != nil {
		return err
	}
	if !*quiet {
		cached := ""
		if sum.Cached > 0 {
			cached = fmt.Sprintf(" (%d from the cache)", sum.Cached)
		}
		fmt.Fprintf(stdout, "built %s and %s in %.2fs%s\n%s\n", analyses.Count(sum.Analyses, "analysis", "analyses"), analyses.Count(sum.Pages, "page", "pages"), sum.Elapsed.Seconds(), cached, sum.Index)
	}
	return nil
}

func cmdValidate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate", stderr)
	inFlags := addInputFlags(fs)
	manifest, err := parse(fs, args)
	if err != nil {
		return err
	}
	// the build's cache is read (an analysis whose inputs have not
	// changed is not computed again) and never written
	opts := report.Options{Manifest: manifest, CacheDir: cacheDir(), Version: toolVersion()}
	if err := inFlags.apply(&opts); err != nil {
		return err
	}
	study, err := report.Validate(context.Background(), opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: ok (%s, %s)\n", manifest, analyses.Count(len(study.Analyses), "analysis", "analyses"), analyses.Count(len(study.Pages), "page", "pages"))
	fmt.Fprintln(stdout, "analysis types this binary knows:")
	reg := kinds.Kinds()
	for _, t := range reg.Types() {
		fmt.Fprintf(stdout, "  %-20s %s\n", t, reg[t].Summary)
	}
	return nil
}

// cmdServe binds the address first: a busy port fails (exit 1) before
// anything is built.
func cmdServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	out := fs.String("o", "", "output directory (default: <study dir>/site); an existing one is replaced only if evalbook wrote it")
	jobs := fs.Int("jobs", 0, "parallel workers (default: number of CPUs)")
	force := fs.Bool("force", false, "replace a site (-o) whose marker names another study (another title or manifest)")
	inFlags := addInputFlags(fs)
	manifest, err := parse(fs, args)
	if err != nil {
		return err
	}
	opts := report.Options{Manifest: manifest, Out: *out, Jobs: *jobs, Warn: stderr, Version: toolVersion(), CacheDir: cacheDir(), ReplaceOtherStudy: *force,
		Command: rebuildCommand(manifest, "html", false)}
	if err := inFlags.apply(&opts); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := report.NewServer(opts, stdout)
	return srv.Serve(ctx, *addr, nil)
}

func cmdSchema(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("schema", stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{"schema takes no argument: evalbook schema > study.schema.json"}
	}
	b, err := manifest.Schema(kinds.Kinds())
	if err != nil {
		return err
	}
	_, err = stdout.Write(b)
	return err
}

func cmdInit(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("init", stderr)
	dir, err := parse(fs, args)
	if err != nil {
		return err
	}
	if dir == "study.toml" { // parse's default: no DIR given
		dir = "."
	}
	if err := report.Init(dir); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote an example study to %s; build it with: evalbook build %s\n", dir, filepath.Join(dir, "study.toml"))
	return nil
}

// rebuildCommand is the provenance's command to rebuild, run in the
// study's directory. The output directory is left out: where a site is
// written does not change its bytes.
func rebuildCommand(manifest, format string, single bool) string {
	name := filepath.Base(manifest)
	if st, err := os.Stat(manifest); err == nil && st.IsDir() {
		name = "study.toml"
	}
	parts := []string{"evalbook", "build", name}
	if format != "html" {
		parts = append(parts, "--format", format)
	}
	if single {
		parts = append(parts, "--single-file")
	}
	return strings.Join(parts, " ")
}

// cacheDir is where analysis outputs are kept between builds:
// $XDG_CACHE_HOME/evalbook (or the platform's equivalent); "" when there
// is none, which turns the disk cache off.
func cacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "evalbook")
}

// printVersion prints the tool's version, its Go toolchain and the npm
// packages its embedded assets were built from.
func printVersion(w io.Writer) {
	fmt.Fprintln(w, "evalbook", toolVersion())
	fmt.Fprintln(w, "go:", runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH)
	switch v := themes.AssetVersions(); {
	case len(themes.ECharts()) == 0:
		fmt.Fprintln(w, "assets: none (built without `make assets`: figures are static SVG, math is TeX source)")
	case len(v) == 0:
		fmt.Fprintln(w, "assets: embedded, versions not recorded")
	default:
		fmt.Fprintln(w, "assets:", strings.Join(v, ", "))
	}
}

func toolVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// termProgress draws one status line on a terminal.
type termProgress struct {
	mu    sync.Mutex
	w     io.Writer
	shown bool
}

func (p *termProgress) Step(label string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if total > 0 {
		fmt.Fprintf(p.w, "\r\033[K%s %d/%d (%d%%)", label, done, total, done*100/total)
	} else {
		fmt.Fprintf(p.w, "\r\033[K%s %d", label, done)
	}
	p.shown = true
}

func (p *termProgress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
