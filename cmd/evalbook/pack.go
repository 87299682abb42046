package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/report"
	"github.com/evalbook/evalbook/report/archive"
)

// cmdPack: evalbook pack [study.toml] [-o study.zip] [--exclude-inputs].
func cmdPack(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("pack", stderr)
	out := fs.String("o", "", "zip to write (default: <study dir>.zip beside the study directory; never inside it)")
	exclude := fs.Bool("exclude-inputs", false, "leave the input tables out of the zip, keeping their hashes (verify then needs --inputs)")
	jobs := fs.Int("jobs", 0, "parallel workers (default: number of CPUs)")
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	var include includeList
	fs.Var(&include, "include", "add the raw files or scripts that produced the inputs: a glob or directory relative to the study (repeatable)")
	inFlags := addInputFlags(fs)
	manifest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *jobs < 0 {
		return usageError{"--jobs: must be at least 1"}
	}
	opts := report.Options{Manifest: manifest, Jobs: *jobs, NoCache: true, Exports: true, Quiet: true, Version: toolVersion(),
		Command: rebuildCommand(manifest, "html", false)}
	if err := inFlags.apply(&opts); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := archive.Pack(ctx, archive.PackOptions{Build: opts, Out: *out, ExcludeInputs: *exclude, Include: include})
	if err != nil {
		return err
	}
	if !*quiet {
		left := ""
		if sum.Excluded > 0 {
			left = fmt.Sprintf(" (%d left out, hashes kept)", sum.Excluded)
		}
		fmt.Fprintf(stdout, "packed %s%s and %s into %s (%s)\n", analyses.Count(sum.Files, "study file", "study files"), left, analyses.Count(sum.Site, "site file", "site files"), sum.Out, analyses.Count(int(sum.Bytes), "byte", "bytes"))
	}
	return nil
}

// cmdVerify: evalbook verify study.zip [--inputs DIR].
func cmdVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("verify", stderr)
	inputs := fs.String("inputs", "", "directory holding the inputs a pack --exclude-inputs left out, at their paths in the study")
	jobs := fs.Int("jobs", 0, "parallel workers (default: number of CPUs)")
	zipPath, err := parse(fs, args)
	if err != nil {
		return err
	}
	if zipPath == "study.toml" { // parse's default: no archive given
		return usageError{"verify: name the archive to check (evalbook verify study.zip)"}
	}
	if *jobs < 0 {
		return usageError{"--jobs: must be at least 1"}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := archive.Verify(ctx, archive.VerifyOptions{Zip: zipPath, Inputs: *inputs,
		Build: report.Options{Jobs: *jobs, Exports: true, Quiet: true, Version: toolVersion()}})
	if err != nil {
		return fmt.Errorf("verify %s: %w", zipPath, err)
	}
	fmt.Fprintf(stdout, "%s: ok: every hash matches, and the rebuilt site (%s, from %s) is byte-identical to the archived one\n", zipPath, analyses.Count(sum.Site, "file", "files"), analyses.Count(sum.Files, "study file", "study files"))
	return nil
}

// includeList is the repeatable --include flag.
type includeList []string

func (l *includeList) String() string { return strings.Join(*l, ",") }

func (l *includeList) Set(v string) error {
	*l = append(*l, v)
	return nil
}
