// Command cachebench times evalbook's cache on a study, side by side with
// a build without it: `--no-cache`, a cold build (empty cache), a warm
// one (nothing changed), one after a single value of one input was
// edited, and one after the edit was undone (the file's bytes put back).
// The --no-cache build is of the edited study over the site of the
// original, as a user who edits a value builds without the cache: it
// reads, computes and writes what the edit's rebuild and the undo's do,
// so each ratio compares the same rebuild with and without the cache.
// Each is a separate process (as a user runs them), timed in CPU (user +
// system, from the kernel's accounting of the child) and wall; it prints
// the median of -n rounds and each median's ratio to --no-cache, and
// last the cost of starting the process at all (evalbook version), the
// floor under any build. It prints figures and never fails on them (make
// bench-cache).
//
//	go run ./sites/bench/cachebench -bin bin/evalbook -edit runs/MF_movielens-10M.csv [-callgrind] STUDY
//
// STUDY is built in place; its site goes to STUDY/site and its cache to
// a directory of its own (XDG_CACHE_HOME), emptied before each round.
// The edit changes the last digit (1 to 8) of the first data line of the
// -edit file to the next digit: one value, the size kept.
//
// With -callgrind, each process runs under valgrind's callgrind instead
// and the table counts the instructions it executed: a count that the
// machine's load and speed do not change (repeated builds agree to
// within about 1 %), where CPU seconds on a shared machine drift by a
// quarter. It counts the work of the process in user space only, on one
// core (GOMAXPROCS=1: a second core adds the scheduler's hand-offs,
// whose count depends on timing), and not the kernel's (system calls,
// page faults); under valgrind, sha256 runs its AVX2 code instead of the
// processor's SHA instructions, so hashing weighs more than it does in
// CPU seconds.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/evalbook/evalbook/report/cachefmt"
)

func main() {
	bin := flag.String("bin", "bin/evalbook", "the evalbook binary")
	edit := flag.String("edit", "", "the input (relative to the study) whose first data line gets one digit changed")
	rounds := flag.Int("n", 5, "rounds; medians are printed")
	flag.IntVar(&others, "others", 0, "entries of other studies (37 kB each) put in the cache before each round, as a user's cache holds them")
	flag.BoolVar(&callgrind, "callgrind", false, "count each process's instructions under valgrind's callgrind instead of timing it")
	flag.Parse()
	if flag.NArg() != 1 || *edit == "" {
		fmt.Fprintln(os.Stderr, "usage: cachebench -bin BIN -edit FILE [-n N] [-others N] [-callgrind] STUDY")
		os.Exit(2)
	}
	if err := run(*bin, flag.Arg(0), *edit, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "cachebench:", err)
		os.Exit(1)
	}
}

type sample struct{ cpu, wall, instr float64 }

// others is how many entries of other studies the cache holds (-others).
var others int

// callgrind: count instructions (-callgrind).
var callgrind bool

// fillOthers puts n entries of other studies into the cache directory
// dir (XDG_CACHE_HOME): one per analysis key, 37 kB each (the size of
// this study's entries), under keys no build of this study reads, and
// the store's usage count as the builds that wrote them left it. A
// build that scans the whole store lists and stats them all.
func fillOthers(dir string, n int) error {
	if n == 0 {
		return nil
	}
	body := bytes.Repeat([]byte("x"), 37<<10)
	usage := cachefmt.FormatUsage(int64(n)*int64(len(body)), 0)
	if err := os.MkdirAll(filepath.Join(dir, "evalbook", "v2"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "evalbook", "v2", cachefmt.UsageFile), usage, 0o644); err != nil {
		return err
	}
	for i := range n {
		kd := filepath.Join(dir, "evalbook", "v2", fmt.Sprintf("other-%06d-%024x", i, i))
		if err := os.MkdirAll(kd, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(kd, fmt.Sprintf("%016x-%032x.entry", i, i)), body, 0o644); err != nil {
			return err
		}
	}
	return nil
}

var steps = []struct{ name, label string }{
	{"nocache", "--no-cache"},
	{"cold", "cold (none of its own)"},
	{"warm", "warm (nothing changed)"},
	{"edit", "after one edit"},
	{"undo", "after the undo"},
}

func run(bin, study, edit string, rounds int) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	cache, err := os.MkdirTemp(filepath.Dir(filepath.Clean(study)), "cachebench-xdg-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cache)
	path := filepath.Join(study, edit)
	original, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	edited, err := editOne(original)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer os.WriteFile(path, original, 0o644)
	build := func(args ...string) (sample, error) {
		cmd := exec.Command(bin, append([]string{"build", study, "--quiet"}, args...)...)
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
		return timed(cmd)
	}
	got := map[string][]sample{}
	for range rounds {
		x, err := timed(exec.Command(bin, "version")) // the floor: the process alone
		if err != nil {
			return err
		}
		got["start"] = append(got["start"], x)
		if err := os.RemoveAll(filepath.Join(cache, "evalbook")); err != nil {
			return err
		}
		if err := fillOthers(cache, others); err != nil {
			return err
		}
		if err := os.WriteFile(path, original, 0o644); err != nil {
			return err
		}
		for _, s := range steps {
			var args []string
			switch s.name {
			case "nocache": // the edit, over the original's site
				args = []string{"--no-cache"}
				err = os.WriteFile(path, edited, 0o644)
			case "cold":
				err = os.WriteFile(path, original, 0o644)
			case "edit":
				err = os.WriteFile(path, edited, 0o644)
			case "undo":
				err = os.WriteFile(path, original, 0o644)
			}
			if err != nil {
				return err
			}
			x, err := build(args...)
			if err != nil {
				return err
			}
			got[s.name] = append(got[s.name], x)
		}
	}
	printTable(got, study, edit, rounds)
	return nil
}

// timed runs a command: its CPU (user and system, from the kernel's
// accounting of the child) and wall time; with -callgrind, the
// instructions it executed instead (counted).
func timed(cmd *exec.Cmd) (sample, error) {
	if callgrind {
		return counted(cmd)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
	wall := time.Since(start).Seconds()
	ps := cmd.ProcessState
	return sample{cpu: (ps.UserTime() + ps.SystemTime()).Seconds(), wall: wall}, nil
}

// counted runs a command under callgrind, on one core and without
// asynchronous preemption (callgrind stops at the signal that preempts a
// goroutine), and returns the instructions it executed.
func counted(cmd *exec.Cmd) (sample, error) {
	out, err := os.CreateTemp("", "cachebench-callgrind-")
	if err != nil {
		return sample{}, err
	}
	out.Close()
	defer os.Remove(out.Name())
	vg := exec.Command("valgrind", append([]string{"--tool=callgrind", "--callgrind-out-file=" + out.Name()}, cmd.Args...)...)
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	godebug := "asyncpreemptoff=1"
	if v := os.Getenv("GODEBUG"); v != "" {
		godebug = v + "," + godebug
	}
	vg.Env = append(env, "GOMAXPROCS=1", "GODEBUG="+godebug)
	var stderr bytes.Buffer
	vg.Stderr = &stderr
	if err := vg.Run(); err != nil {
		return sample{}, fmt.Errorf("%s: %v\n%s", strings.Join(vg.Args, " "), err, stderr.String())
	}
	m := collected.FindSubmatch(stderr.Bytes())
	if m == nil {
		return sample{}, fmt.Errorf("%s: no instruction count in what callgrind printed:\n%s", strings.Join(vg.Args, " "), stderr.String())
	}
	n, err := strconv.ParseFloat(strings.ReplaceAll(string(m[1]), ",", ""), 64)
	return sample{instr: n}, err
}

// collected is callgrind's summary line: "==pid== Collected : N".
var collected = regexp.MustCompile(`Collected : ([0-9,]+)`)

// printTable prints the medians and their ratios to --no-cache.
func printTable(got map[string][]sample, study, edit string, rounds int) {
	if callgrind {
		printCounts(got, study, edit, rounds)
		return
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("evalbook build of %s, one value of %s edited then put back; %d entries of other studies in the cache; median of %d rounds (load %s)\n",
		study, edit, others, rounds, strings.Fields(string(load) + " ?")[0])
	fmt.Printf("%-24s %8s %10s %8s %10s\n", "", "CPU s", "× no-cache", "wall s", "× no-cache")
	base := median(got["nocache"])
	for _, s := range rows() {
		m := median(got[s.name])
		fmt.Printf("%-24s %8.3f %9.2fx %8.3f %9.2fx\n", s.label, m.cpu, m.cpu/base.cpu, m.wall, m.wall/base.wall)
	}
}

// printCounts prints the median instruction counts (-callgrind) and
// their ratios to --no-cache.
func printCounts(got map[string][]sample, study, edit string, rounds int) {
	fmt.Printf("evalbook build of %s, one value of %s edited then put back; %d entries of other studies in the cache; instructions under callgrind (one core, user space), median of %d rounds\n",
		study, edit, others, rounds)
	fmt.Printf("%-24s %14s %10s\n", "", "instructions", "× no-cache")
	base := medianOf(got["nocache"], func(x sample) float64 { return x.instr })
	for _, s := range rows() {
		m := medianOf(got[s.name], func(x sample) float64 { return x.instr })
		fmt.Printf("%-24s %14.0f %9.3fx\n", s.label, m, m/base)
	}
}

// rows are the tables' rows: the steps, then the process start.
func rows() []struct{ name, label string } {
	return append(slices.Clone(steps), struct{ name, label string }{"start", "process start (version)"})
}

// medianOf is the median of one figure of samples.
func medianOf(xs []sample, f func(sample) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	sort.Float64s(v)
	return v[len(v)/2]
}

// editOne changes the last digit from 1 to 8 of the first data line (the
// second line) to the next digit.
func editOne(b []byte) ([]byte, error) {
	start := bytes.IndexByte(b, '\n') + 1
	end := bytes.IndexByte(b[start:], '\n')
	if start == 0 || end < 0 {
		return nil, fmt.Errorf("no data line")
	}
	out := bytes.Clone(b)
	for i := start + end - 1; i >= start; i-- {
		if out[i] >= '1' && out[i] <= '8' {
			out[i]++
			return out, nil
		}
	}
	return nil, fmt.Errorf("no digit from 1 to 8 on the first data line")
}

// median is the median CPU and the median wall (each on its own).
func median(xs []sample) sample {
	return sample{cpu: medianOf(xs, func(x sample) float64 { return x.cpu }), wall: medianOf(xs, func(x sample) float64 { return x.wall })}
}
