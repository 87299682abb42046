package main

// Helpers of the hostile-input catalogue (bad_input_test.go): the base
// study, file writers, a tree snapshot that never opens a FIFO or a
// device, the CLI runners (in process with a time limit, and the test
// binary itself as a subprocess for serve) and a Parquet writer.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalbook/evalbook/report/input"
	"github.com/parquet-go/parquet-go"
)

// hostileCLIEnv, when set to 1, makes the test binary run as the
// evalbook CLI (before any test runs): the serve rows start it as a
// subprocess, so that a signal stops that server alone.
const hostileCLIEnv = "EVALBOOK_HOSTILE_CLI"

func init() {
	if os.Getenv(hostileCLIEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
}

// The base study every row starts from: results, one aggregate analysis,
// a page that cites a value and a bibliography entry.
const (
	baseManifest = `title = "Hostile"
bibliography = "refs.bib"
[inputs]
results = "data/results.csv"
[[pages]]
title = "Notes"
source = "pages/notes.md"
[[analyses]]
id = "lb"
type = "aggregate"
metric = "m"
`
	baseResults = "dataset,method,metric,value\nd1,A,m,1\nd1,B,m,2\nd2,A,m,3\nd2,B,m,1\n"
	basePage    = "# Notes\n\nA has a mean rank of {{value lb tables.lb[method=A].mean_rank %.2f}} [@knuth1984].\n"
	baseBib     = "@article{knuth1984,\n  author = {Donald E. Knuth},\n  title = {Literate Programming},\n  journal = {The Computer Journal},\n  year = {1984}\n}\n"
)

// baseStudyFiles are the study's files, relative to the study directory.
var baseStudyFiles = map[string]string{
	"study.toml":       baseManifest,
	"data/results.csv": baseResults,
	"pages/notes.md":   basePage,
	"refs.bib":         baseBib,
}

// neighbourFiles lie next to the study (relative to the row's root): what
// a careless output path or input path could reach.
var neighbourFiles = map[string]string{
	"notes.txt":          "my notes\n",
	"other/thesis.tex":   "\\documentclass{article}\n",
	"shared/results.csv": "dataset,method,metric,value\nd1,A,m,0.5\nd1,B,m,0.25\n",
	"secret.csv":         "dataset,method,metric,value\nSECRET-CONTENT,A,m,1\n",
}

// hostileTemplate builds the base study with its site in a directory of
// t's: each row copies it (the site's bytes do not depend on where the
// study lives) instead of building its own previous site.
func hostileTemplate(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	mustDo(t, err)
	study := filepath.Join(dir, "study")
	for name, body := range baseStudyFiles {
		write(t, filepath.Join(study, name), body)
	}
	if code, _, stderr := runCLI("build", study, "--quiet", "--no-cache"); code != 0 {
		t.Fatalf("the base study does not build: exit %d: %s", code, stderr)
	}
	return dir
}

func writeFileErr(p, body string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(body), 0o644)
}

// write writes body to p, creating its directory.
func write(t testing.TB, p, body string) {
	t.Helper()
	if err := writeFileErr(p, body); err != nil {
		t.Fatal(err)
	}
}

func mustDo(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the regular files and directories under src to dst.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	mustDo(t, err)
}

// snapshot describes everything under root without opening anything but
// regular files: regular files by size and a 64-bit hash of their bytes
// (above snapshotHashMax bytes, where the system has a change time, by
// size, modification and change time and inode instead: any write
// changes the change time, and no call sets it back), directories,
// symbolic links by destination, FIFOs and devices by kind. Paths under
// an excluded prefix (relative to root) are left out. The hash is
// hash/maphash's with the test binary's seed: the snapshots compared are
// taken in one process, and a change goes unseen with a chance of 2⁻⁶⁴
// (sha256, with the same reads, cost a third of TestBadInputs' CPU).
func snapshot(t testing.TB, root string, exclude ...string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		for _, x := range exclude {
			if rel == x || strings.HasPrefix(rel, x+"/") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch mode := info.Mode(); {
		case mode&fs.ModeSymlink != 0:
			dest, err := os.Readlink(p)
			m[rel] = "symlink -> " + dest
			return err
		case mode.IsDir():
			m[rel] = "dir " + mode.Perm().String()
		case mode.IsRegular():
			if st, ok := input.Stamp(p); ok && st.Ctime != 0 && info.Size() > snapshotHashMax {
				m[rel] = fmt.Sprintf("file %s %d mod %d change %d inode %d", mode.Perm(), st.Size, st.Mod, st.Ctime, st.Ino)
				return nil
			}
			b, err := os.ReadFile(p)
			m[rel] = fmt.Sprintf("file %s %d %016x", mode.Perm(), len(b), maphash.Bytes(snapshotSeed, b))
			return err
		default:
			m[rel] = "special " + mode.String()
		}
		return nil
	})
	mustDo(t, err)
	return m
}

// snapshotSeed seeds snapshot's hashes.
var snapshotSeed = maphash.MakeSeed()

// snapshotHashMax is the largest file snapshot reads whole: the bounds
// tests plant files of hundreds of megabytes, which reading and hashing
// before and after each build cost seconds.
const snapshotHashMax = 32 << 20

// diffSnapshots lists what changed between two snapshots, sorted.
func diffSnapshots(before, after map[string]string) []string {
	var out []string
	for name, b := range before {
		a, ok := after[name]
		switch {
		case !ok:
			out = append(out, "removed "+name)
		case a != b:
			out = append(out, "changed "+name+" ("+b+" → "+a+")")
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			out = append(out, "created "+name)
		}
	}
	sort.Strings(out)
	return out
}

// runCLIWithin runs the CLI in process and fails the test if it does
// not return within limit (the goroutine is then left behind: the row
// has failed anyway).
func runCLIWithin(t testing.TB, limit time.Duration, args ...string) (int, string, string) {
	t.Helper()
	code, stdout, stderr, ok := runCLITimed(limit, args...)
	if !ok {
		t.Fatalf("evalbook %s did not return within %v", strings.Join(args, " "), limit)
	}
	return code, stdout, stderr
}

// runCLITimed runs the CLI in process; ok is false when it did not
// return within limit. It may be called from any goroutine.
func runCLITimed(limit time.Duration, args ...string) (code int, stdout, stderr string, ok bool) {
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := runCLI(args...)
		done <- result{code, stdout, stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr, true
	case <-time.After(limit):
		return 0, "", "", false
	}
}

// serveSubprocess runs `evalbook serve …` as a subprocess (the test
// binary, see init), waits for it to announce its address, calls probe
// with the base URL, then interrupts it and returns its exit code and
// output. A server that exits on its own (a busy port, a refused output)
// is returned as it is, with probe not called.
func serveSubprocess(t testing.TB, args []string, probe func(base string)) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), hostileCLIEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	mustDo(t, err)
	mustDo(t, cmd.Start())
	var stdout bytes.Buffer
	addr := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			stdout.WriteString(line + "\n")
			if rest, ok := strings.CutPrefix(line, "evalbook: serving http://"); ok {
				addr <- strings.TrimSuffix(strings.Fields(rest)[0], "/")
			}
		}
	}()
	exited := make(chan error, 1)
	wait := func() {
		<-copied // the pipe is drained before Wait closes it
		exited <- cmd.Wait()
	}
	go wait()
	select {
	case a := <-addr:
		probe("http://" + a)
		mustDo(t, cmd.Process.Signal(os.Interrupt))
	case <-exited:
		exited <- nil // re-armed below: the process has already exited
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("serve did not start within 60 s; stderr %q", stderr.String())
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("serve did not stop within 30 s of an interrupt")
	}
	code := cmd.ProcessState.ExitCode()
	return code, stdout.String(), stderr.String()
}

// gzipBytes compresses text.
func gzipBytes(t testing.TB, text string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	io.WriteString(w, text)
	mustDo(t, w.Close())
	return b.String()
}

// gzipBomb is a small .gz whose first line inflates to n bytes of 'a',
// streamed through the compressor from a 64 KiB buffer.
func gzipBomb(t testing.TB, n int) string {
	t.Helper()
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	mustDo(t, err)
	chunk := bytes.Repeat([]byte("a"), 64<<10)
	for written := 0; written < n; written += len(chunk) {
		w.Write(chunk)
	}
	mustDo(t, w.Close())
	return b.String()
}

// pqResult is one row of a long-form results table in Parquet.
type pqResult struct {
	Dataset string  `parquet:"dataset"`
	Method  string  `parquet:"method"`
	Metric  string  `parquet:"metric"`
	Value   float64 `parquet:"value"`
}

// pqTextResult stores the value as text.
type pqTextResult struct {
	Dataset string `parquet:"dataset"`
	Method  string `parquet:"method"`
	Metric  string `parquet:"metric"`
	Value   string `parquet:"value"`
}

// pqUnit is one row of a long-form units table in Parquet.
type pqUnit struct {
	Dataset string  `parquet:"dataset"`
	Method  string  `parquet:"method"`
	Unit    string  `parquet:"unit"`
	Metric  string  `parquet:"metric"`
	Value   float64 `parquet:"value"`
}

// repeatAfterPair is a units file in which unit u1 of method A comes
// again (line 6) after its pair with B's was made (lines 2 and 3).
const repeatAfterPair = "dataset,method,unit,metric,value\nd1,A,u1,m,0.5\nd1,B,u1,m,0.4\nd1,A,u2,m,0.6\nd1,B,u2,m,0.3\nd1,A,u1,m,0.7\nd1,A,u3,m,0.7\nd1,B,u3,m,0.2\n"

// unitsStudy plants a units file (its text from body) and a
// meta-analysis of A against B on metric m over it, with more keys.
func unitsStudy(path, more string, body func(testing.TB) string) func(testing.TB, string, string) []string {
	return func(t testing.TB, root, study string) []string {
		write(t, filepath.Join(study, filepath.FromSlash(path)), body(t))
		write(t, filepath.Join(study, "study.toml"), strings.Replace(baseManifest, "[inputs]\n", "[inputs]\nunits = \""+path+"\"\n", 1)+
			"[[analyses]]\nid = \"meta\"\ntype = \"meta_analysis\"\nmetric = \"m\"\ntreatment = \"A\"\ncontrol = \"B\"\n"+more)
		return build(study)
	}
}

// parquetBytes writes rows as a Parquet file.
func parquetBytes[T any](t testing.TB, rows []T) string {
	t.Helper()
	var b bytes.Buffer
	w := parquet.NewGenericWriter[T](&b, parquet.Compression(&parquet.Snappy))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	mustDo(t, w.Close())
	return b.String()
}

// mkfifo makes a named pipe, or skips the row where there is none.
func mkfifo(t testing.TB, p string) {
	t.Helper()
	mustDo(t, os.MkdirAll(filepath.Dir(p), 0o755))
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
}

// TestSnapshotSeesWritesToBigFiles: a byte written into the middle of a
// file above snapshotHashMax, its size and modification time put back,
// is a change; a file left alone is none.
func TestSnapshotSeesWritesToBigFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.csv")
	f, err := os.Create(p)
	mustDo(t, err)
	mustDo(t, f.Truncate(snapshotHashMax+1))
	mustDo(t, f.Close())
	before := snapshot(t, dir)
	if d := diffSnapshots(before, snapshot(t, dir)); len(d) != 0 {
		t.Fatalf("a file left alone: %v", d)
	}
	st, err := os.Stat(p)
	mustDo(t, err)
	f, err = os.OpenFile(p, os.O_WRONLY, 0)
	mustDo(t, err)
	_, err = f.WriteAt([]byte{'x'}, snapshotHashMax/2)
	mustDo(t, err)
	mustDo(t, f.Close())
	mustDo(t, os.Chtimes(p, st.ModTime(), st.ModTime()))
	if d := diffSnapshots(before, snapshot(t, dir)); len(d) != 1 || !strings.HasPrefix(d[0], "changed big.csv") {
		t.Errorf("a byte written into a big file, its time put back: %v", d)
	}
}
