package main

// The hostile-input catalogue of issue 13: one table of inputs a careless
// or malicious study can hold, each run through the CLI as a user runs
// it. Every row asserts
//
//   - the exit code (1 for bad input or a refused output, 0 for what must
//     be accepted, 2 for command-line usage errors);
//   - a substring of the message, with file:line[:column] or
//     study.toml:LINE where there is a position;
//   - for a failure, that the site built before it is byte-identical
//     afterwards;
//   - that no file outside the output directory was created, changed or
//     removed (the whole temporary root — study and neighbours — is
//     compared; only the output directory, and for an accepted build the
//     lock file evalbook keeps next to it, are left out; the disk cache
//     lives outside the root, see TestMain);
//   - that the message is valid UTF-8 without control bytes, quotes no
//     file outside the study and names no input by its absolute path.
//
// Every in-process run has a time limit, so a FIFO or a device that
// blocks fails its row instead of hanging the test. Rows with their own
// runner (serve, concurrent builds) assert the same through it; serve
// runs the test binary itself as the CLI in a subprocess, stopped with
// an interrupt as a user stops it.

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// hostileRow is one entry of the catalogue.
type hostileRow struct {
	cat  string // category
	name string
	// setup plants the fault in a copy of the base study (study is
	// root/study, with its site already built) and returns the CLI's
	// arguments.
	setup    func(t testing.TB, root, study string) []string
	wantCode int
	// wantMsg must appear in stderr (in stdout for an accepted row);
	// {root} and {study} stand for the row's directories.
	wantMsg string
	// out is the output directory of an accepted row, relative to root
	// (default study/site); it alone may change. "-" is a command that
	// writes nothing (validate).
	out string
	// touches are further paths (relative to root) an accepted row is
	// documented to create, change or remove: leftovers of a build
	// killed during its swap.
	touches []string
	// check asserts more, after the common checks.
	check func(t *testing.T, root, study string, r cliResult)
	// serial rows set the environment, so never run in parallel.
	serial bool
	// runner replaces the in-process CLI (serve, concurrent builds).
	runner func(t *testing.T, root, study string, args []string) (int, string, string)
}

type cliResult struct {
	code           int
	stdout, stderr string
}

// build is the default command line of a row.
func build(study string, extra ...string) []string {
	return append([]string{"build", study}, extra...)
}

// studyFiles writes files (relative to the study) over the base study and
// returns `build study` plus extra arguments.
func studyFiles(files map[string]string, extra ...string) func(testing.TB, string, string) []string {
	return func(t testing.TB, root, study string) []string {
		for name, body := range files {
			write(t, filepath.Join(study, filepath.FromSlash(name)), body)
		}
		return build(study, extra...)
	}
}

// withResults replaces data/results.csv.
func withResults(body string) func(testing.TB, string, string) []string {
	return studyFiles(map[string]string{"data/results.csv": body})
}

// withManifest replaces study.toml.
func withManifest(toml string) func(testing.TB, string, string) []string {
	return studyFiles(map[string]string{"study.toml": toml})
}

// withAnalysis appends TOML (an analysis, usually) to the base manifest;
// its first line is line 12 of study.toml.
func withAnalysis(toml string) func(testing.TB, string, string) []string {
	return withManifest(baseManifest + toml)
}

// withPage replaces pages/notes.md.
func withPage(body string) func(testing.TB, string, string) []string {
	return studyFiles(map[string]string{"pages/notes.md": body})
}

// withBib replaces refs.bib.
func withBib(body string) func(testing.TB, string, string) []string {
	return studyFiles(map[string]string{"refs.bib": body})
}

// resultsEntry is a manifest whose results are the given TOML value, and
// whose one analysis reads metric m.
func resultsEntry(value string) string {
	return strings.Replace(baseManifest, `results = "data/results.csv"`, "results = "+value, 1)
}

const hdr = "dataset,method,metric,value\n"

// geometricMeanOf reads lb's geometric mean of method from the site.
func geometricMeanOf(t *testing.T, site, method string) any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(site, "data", "lb.json"))
	mustDo(t, err)
	var js struct {
		Tables map[string][]map[string]any `json:"tables"`
	}
	mustDo(t, json.Unmarshal(b, &js))
	for _, row := range js.Tables["lb"] {
		if row["method"] == method {
			return row["geometric_mean"]
		}
	}
	t.Fatalf("no row for %s in lb.json", method)
	return nil
}

// tableValue reads a numeric column of the row of method in an
// analysis's main table.
func tableValue(t *testing.T, site, id, method, column string) float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(site, "data", id+".json"))
	mustDo(t, err)
	var js struct {
		Tables map[string][]map[string]any `json:"tables"`
	}
	mustDo(t, json.Unmarshal(b, &js))
	for _, row := range js.Tables[id] {
		if row["method"] == method {
			v, ok := row[column].(float64)
			if !ok {
				t.Fatalf("%s of %s in %s.json is %v, not a number", column, method, id, row[column])
			}
			return v
		}
	}
	t.Fatalf("no row for %s in %s.json", method, id)
	return 0
}

// noRawMarkup fails when an HTML or SVG file of the site holds markup
// that came from the study's text unescaped.
func noRawMarkup(t *testing.T, site, markup string) {
	t.Helper()
	n := 0
	filepath.WalkDir(site, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".svg")) {
			return err
		}
		n++
		if b, _ := os.ReadFile(p); strings.Contains(string(b), markup) {
			t.Errorf("%s holds the raw markup %q", p, markup)
		}
		return nil
	})
	if n == 0 {
		t.Error("no HTML in the site")
	}
}

// built checks that an accepted build wrote a marked site with an index.
func builtSite(t *testing.T, site string) {
	t.Helper()
	for _, name := range []string{".evalbook-site", "index.html", "data/provenance.json"} {
		if _, err := os.Stat(filepath.Join(site, name)); err != nil {
			t.Errorf("the site lacks %s: %v", name, err)
		}
	}
}

func hostileRows() []hostileRow {
	var rows []hostileRow
	add := func(r ...hostileRow) { rows = append(rows, r...) }
	bad := func(cat, name string, setup func(testing.TB, string, string) []string, msg string) hostileRow {
		return hostileRow{cat: cat, name: name, setup: setup, wantCode: 1, wantMsg: msg}
	}
	ok := func(cat, name string, setup func(testing.TB, string, string) []string, check func(t *testing.T, root, study string, r cliResult)) hostileRow {
		return hostileRow{cat: cat, name: name, setup: setup, wantCode: 0, wantMsg: "built 1 analysis and 1 page", check: check}
	}
	outArg := func(rel string) func(testing.TB, string, string) []string {
		return func(t testing.TB, root, study string) []string {
			return build(study, "-o", filepath.Join(root, filepath.FromSlash(rel)))
		}
	}

	// ---- output paths -------------------------------------------------
	add(
		bad("output", "-o the study directory", func(t testing.TB, root, study string) []string { return build(study, "-o", study) },
			"evalbook: output {study}: refusing to write the site into the study directory {study}, which it would replace; choose a directory of its own, such as {study}/site"),
		bad("output", "-o the study's data folder", outArg("study/data"),
			"refusing to replace {study}/data: it holds the study's input {study}/data/results.csv"),
		bad("output", "-o the parent of the study", outArg("."),
			"refusing to replace {root}: it holds the study directory {study}"),
		bad("output", "-o an existing file", outArg("notes.txt"),
			"{root}/notes.txt is an existing file, not a site directory"),
		hostileRow{cat: "output", name: "-o the home directory", serial: true, wantCode: 1,
			setup: func(t testing.TB, root, study string) []string {
				home := filepath.Join(root, "home")
				write(t, filepath.Join(home, ".bashrc"), "export PS1='$ '\n")
				t.(*testing.T).Setenv("HOME", home)
				return build(study, "-o", home)
			},
			wantMsg: "refusing to replace your home directory {root}/home"},
		hostileRow{cat: "output", name: "-o a directory holding the home directory", serial: true, wantCode: 1,
			setup: func(t testing.TB, root, study string) []string {
				home := filepath.Join(root, "users", "me")
				write(t, filepath.Join(home, ".profile"), "# mine\n")
				t.(*testing.T).Setenv("HOME", home)
				return build(study, "-o", filepath.Join(root, "users"))
			},
			wantMsg: "refusing to replace {root}/users: it holds your home directory {root}/users/me"},
		bad("output", "-o a non-empty directory evalbook did not write", outArg("other"),
			"{root}/other is a non-empty directory that evalbook did not write (it has no .evalbook-site file)"),
		bad("output", "-o a symbolic link to a file", func(t testing.TB, root, study string) []string {
			mustDo(t, os.Symlink("notes.txt", filepath.Join(root, "link")))
			return build(study, "-o", filepath.Join(root, "link"))
		}, "{root}/notes.txt is an existing file, not a site directory"),
		bad("output", "-o a symbolic link to the study", func(t testing.TB, root, study string) []string {
			mustDo(t, os.Symlink("study", filepath.Join(root, "alias")))
			return build(study, "-o", filepath.Join(root, "alias"))
		}, "refusing to write the site into the study directory {study}"),
		bad("output", "-o site/.. (the study, through ..)", func(t testing.TB, root, study string) []string {
			return build(study, "-o", study+"/site/..")
		}, "refusing to write the site into the study directory {study}"),
		bad("output", "-o the manifest", outArg("study/study.toml"),
			"refusing to replace {study}/study.toml: it holds the study's manifest {study}/study.toml"),
		bad("output", "-o the page", outArg("study/pages/notes.md"),
			"refusing to replace {study}/pages/notes.md: it holds the study's page {study}/pages/notes.md"),
		bad("output", "-o the pages folder", outArg("study/pages"),
			"refusing to replace {study}/pages: it holds the study's page {study}/pages/notes.md"),
		bad("output", "-o the bibliography's folder", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(study, "bib", "refs.bib"), baseBib)
			write(t, filepath.Join(study, "study.toml"), strings.Replace(baseManifest, `"refs.bib"`, `"bib/refs.bib"`, 1))
			return build(study, "-o", filepath.Join(study, "bib"))
		}, "refusing to replace {study}/bib: it holds the study's bibliography {study}/bib/refs.bib"),
		bad("output", "-o a folder whose .evalbook-site is a directory", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(root, "fake", ".evalbook-site", "x"), "x\n")
			return build(study, "-o", filepath.Join(root, "fake"))
		}, "{root}/fake is a non-empty directory that evalbook did not write"),
		hostileRow{cat: "output", name: "-o a new directory inside data/ (accepted)", setup: outArg("study/data/site"), out: "study/data/site",
			wantMsg: "built 1 analysis", check: func(t *testing.T, root, study string, r cliResult) {
				builtSite(t, filepath.Join(study, "data", "site"))
			}},
		hostileRow{cat: "output", name: "-o an empty directory (accepted)", out: "empty",
			setup: func(t testing.TB, root, study string) []string {
				mustDo(t, os.Mkdir(filepath.Join(root, "empty"), 0o755))
				return build(study, "-o", filepath.Join(root, "empty"))
			},
			wantMsg: "built 1 analysis", check: func(t *testing.T, root, study string, r cliResult) { builtSite(t, filepath.Join(root, "empty")) }},
		hostileRow{cat: "output", name: "-o a symbolic link to a site directory (the link stays)", out: "real",
			setup: func(t testing.TB, root, study string) []string {
				mustDo(t, os.Mkdir(filepath.Join(root, "real"), 0o755))
				mustDo(t, os.Symlink("real", filepath.Join(root, "sitelink")))
				return build(study, "-o", filepath.Join(root, "sitelink"))
			},
			wantMsg: "built 1 analysis", check: func(t *testing.T, root, study string, r cliResult) {
				if dest, err := os.Readlink(filepath.Join(root, "sitelink")); err != nil || dest != "real" {
					t.Errorf("the link was replaced: %q %v", dest, err)
				}
				builtSite(t, filepath.Join(root, "real"))
			}},
		bad("output", "init into a directory with pages and data but no study.toml", func(t testing.TB, root, study string) []string {
			dir := filepath.Join(root, "mine")
			write(t, filepath.Join(dir, "pages", "findings.md"), "# My own findings\n")
			write(t, filepath.Join(dir, "data", "results.csv"), "my,own,data\n")
			return []string{"init", dir}
		}, "evalbook: init: {root}/mine already has pages/findings.md, data/results.csv; init never overwrites a file, so nothing was written"),
		bad("output", "init over an existing study", func(t testing.TB, root, study string) []string { return []string{"init", study} },
			`evalbook: init: {study} already has study.toml, data/results.csv; init never overwrites a file, so nothing was written`),
		hostileRow{cat: "output", name: "init into a new directory (accepted)", out: "fresh", wantMsg: "wrote an example study to {root}/fresh",
			setup: func(t testing.TB, root, study string) []string { return []string{"init", filepath.Join(root, "fresh")} },
			check: func(t *testing.T, root, study string, r cliResult) {
				if _, err := os.Stat(filepath.Join(root, "fresh", "study.toml")); err != nil {
					t.Error(err)
				}
			}},
	)

	// ---- command line ---------------------------------------------------
	usage := func(name string, msg string, args ...string) hostileRow {
		return hostileRow{cat: "usage", name: name, wantCode: 2, wantMsg: msg,
			setup: func(t testing.TB, root, study string) []string {
				return append(append([]string(nil), args[0]), append([]string{study}, args[1:]...)...)
			}}
	}
	add(
		usage("unknown flag", "flag provided but not defined: -nope", "build", "--nope"),
		usage("--format pdf", `--format: unknown value "pdf" (want html, md, both, latex or paper)`, "build", "--format", "pdf"),
		usage("--jobs -1", "--jobs: must be at least 1", "build", "--jobs", "-1"),
		usage("two manifests", "too many arguments", "build", "other.toml"),
		hostileRow{cat: "usage", name: "unknown command", wantCode: 2, wantMsg: `evalbook: unknown command "bild"`,
			setup: func(t testing.TB, root, study string) []string { return []string{"bild", study} }},
	)

	// ---- manifest -------------------------------------------------------
	add(
		bad("manifest", "TOML syntax error", withManifest("title = \"t\"\nseed = = 4\n"), `study.toml:2:8: expected value but found '=' instead`),
		bad("manifest", "a key given twice", withManifest("title = \"t\"\ntitle = \"u\"\n"), `study.toml:2:13: Key 'title' has already been defined.`),
		bad("manifest", "unknown top-level key", withManifest(strings.Replace(baseManifest, "title =", "titel =", 1)), `study.toml:1: unknown key "titel" (did you mean "title"?)`),
		bad("manifest", "unknown analysis key", withAnalysis("rulez = [\"mean\"]\n"), `study.toml:12: analyses[0] (lb): unknown key "rulez" (did you mean "rules"?)`),
		bad("manifest", "title of the wrong type", withManifest(strings.Replace(baseManifest, `title = "Hostile"`, "title = 3", 1)), `study.toml:1: title: toml: line 1 (last key "title"): incompatible types: TOML value has type int64; destination has type string`),
		bad("manifest", "metric of the wrong type", withManifest(strings.Replace(baseManifest, `metric = "m"`, "metric = 3", 1)), `study.toml:11: analyses[0] (lb).metric: toml: line 11 (last key "analyses.metric"): incompatible types: TOML value has type int64; destination has type string`),
		bad("manifest", "duplicate analysis ids", withAnalysis("[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"m\"\n"), `study.toml:13: analyses[1].id: "lb" is already used by a page or another analysis (first at line 8)`),
		bad("manifest", "bad id characters", withManifest(strings.Replace(baseManifest, `id = "lb"`, `id = "Lead Board"`, 1)), `study.toml:9: analyses[0].id: "Lead Board" must be lower-case letters, digits and '-'`),
		bad("manifest", "id with a path", withManifest(strings.Replace(baseManifest, `id = "lb"`, `id = "../lb"`, 1)), `study.toml:9: analyses[0].id: "../lb" must be lower-case letters, digits and '-'`),
		bad("manifest", "unknown analysis type", withManifest(strings.Replace(baseManifest, `type = "aggregate"`, `type = "agregate"`, 1)), `study.toml:10: analyses[0] (lb): unknown type "agregate" (did you mean "aggregate"?)`),
		bad("manifest", "missing type", withManifest(strings.Replace(baseManifest, "type = \"aggregate\"\n", "", 1)), `study.toml:8: analyses[0] (lb): unknown type ""`),
		bad("manifest", "missing metric", withManifest(strings.Replace(baseManifest, "metric = \"m\"\n", "", 1)), `study.toml:8: analyses (lb): metric: required`),
		bad("manifest", "a metric absent from the data", withManifest(strings.Replace(baseManifest, `metric = "m"`, `metric = "ndcg"`, 1)), `study.toml:11: analyses/lb: no metric "ndcg" in the results`),
		bad("manifest", "duplicated rules", withAnalysis(`rules = ["mean", "copeland", "mean"]`+"\n"), `study.toml:12: analyses (lb): rules: "mean" is listed twice`),
		bad("manifest", "unknown rule", withAnalysis(`rules = ["meen"]`+"\n"), `study.toml:12: analyses (lb): rules: unknown rule "meen" (did you mean "mean"?)`),
		bad("manifest", "missing page source", withManifest(strings.Replace(baseManifest, "source = \"pages/notes.md\"\n", "", 1)), `study.toml:5: pages[0].source: required`),
		bad("manifest", "results of the wrong type", withManifest(resultsEntry("3")), `study.toml:4: inputs.results[0].path: required`),
		bad("manifest", "unknown input entry key", withManifest(resultsEntry(`{ path = "data/results.csv", duplicate = "mean" }`)), `study.toml:4: inputs.results: unknown key "duplicate" (did you mean "duplicates"?)`),
		bad("manifest", "unknown duplicates rule", withManifest(resultsEntry(`{ path = "data/results.csv", duplicates = "avg" }`)), `study.toml:4: inputs.results[0].duplicates: unknown value "avg" (want "mean", "first" or "last")`),
		bad("manifest", "an empty missing-value marker", withManifest(resultsEntry(`{ path = "data/results.csv", missing_values = [" "] }`)), `study.toml:4: inputs.results[0].missing_values: an empty marker`),
		bad("manifest", "seed of the wrong type", withManifest("seed = \"x\"\n"+baseManifest), `study.toml:1: seed: toml: line 1 (last key "seed"): incompatible types: TOML value has type string; destination has type integer`),
		bad("manifest", "metric better is neither", withManifest(baseManifest+"[[metrics]]\nname = \"m\"\nbetter = \"up\"\n"), `study.toml:14: metrics[0].better: unknown value "up"`),
		bad("manifest", "manifest not found", func(t testing.TB, root, study string) []string {
			return build(filepath.Join(study, "nothere.toml"))
		}, `read manifest: stat {study}/nothere.toml: no such file or directory`),
		bad("manifest", "a directory without study.toml", func(t testing.TB, root, study string) []string {
			return build(filepath.Join(root, "other"))
		}, `read manifest: stat {root}/other/study.toml: no such file or directory`),
		bad("manifest", "invalid UTF-8 in the manifest", withManifest("title = \"\xff\"\n"), `study.toml:1:9: invalid UTF-8 byte: 0xff`),
	)
	// Option bounds (README, "Option limits"), each named at its line.
	bound := func(name, toml, msg string) hostileRow {
		return bad("manifest", name, withAnalysis(toml), msg)
	}
	aggregateAt := func(key string) string {
		return "[[analyses]]\nid = \"x\"\ntype = \"aggregate\"\nmetric = \"m\"\n" + key + "\n"
	}
	kindAt := func(typ, keys string) string {
		return "[[analyses]]\nid = \"x\"\ntype = \"" + typ + "\"\n" + keys + "\n"
	}
	add(
		bound("beta_max = nan", aggregateAt("beta_max = nan"), `study.toml:16: analyses (x): beta_max: NaN is not a finite number`),
		bound("beta_max = 1e308", aggregateAt("beta_max = 1e308"), "study.toml:16: analyses (x): beta_max: 1e+308 is above the limit of 1000"),
		bound("beta_max = 1e7", aggregateAt("beta_max = 1e7"), "study.toml:16: analyses (x): beta_max: 1e+07 is above the limit of 1000"),
		bound("beta_max = inf", aggregateAt("beta_max = inf"), `study.toml:16: analyses (x): beta_max: +Inf is not a finite number`),
		bound("beta_max = 0", aggregateAt("beta_max = 0"), `study.toml:16: analyses (x): beta_max: 0 is below the minimum of 1`),
		bound("beta_max = -3", aggregateAt("beta_max = -3"), `study.toml:16: analyses (x): beta_max: -3 is below the minimum of 1`),
		bound("repeats = 1000000000", kindAt("stability", "metric = \"m\"\nrepeats = 1000000000"), "study.toml:16: analyses (x): repeats: 1000000000 is above the limit of 10000"),
		bound("repeats = 0", kindAt("stability", "metric = \"m\"\nrepeats = 0"), `study.toml:16: analyses (x): repeats: 0 is below the minimum of 1`),
		bound("repeats = -1", kindAt("stability", "metric = \"m\"\nrepeats = -1"), `study.toml:16: analyses (x): repeats: -1 is below the minimum of 1`),
		bound("betas value 0", kindAt("stability", "metric = \"m\"\nbetas = [0]"), `study.toml:16: analyses (x): betas: 0 is below the minimum of 1`),
		bound("alpha_similar 0", kindAt("stability", "metric = \"m\"\nalpha_similar = [0]"), `study.toml:16: analyses (x): alpha_similar: values must be positive, got 0`),
		bound("alpha_best 1e9", kindAt("stability", "metric = \"m\"\nalpha_best = [1e9]"), `study.toml:16: analyses (x): alpha_best: 1e+09 is above the limit of 1000`),
		bound("subset_sizes 0", kindAt("stability", "metric = \"m\"\nsubset_sizes = [0]"), `study.toml:16: analyses (x): subset_sizes: 0 is below the minimum of 1`),
		bound("duplicated perturbations", kindAt("stability", "metric = \"m\"\nperturbations = [\"beta\", \"beta\"]"), `study.toml:16: analyses (x): perturbations: "beta" is listed twice`),
		bound("samples = 99", kindAt("critical_difference", "metric = \"m\"\nsamples = 99"), `study.toml:16: analyses (x): samples: 99 is below the minimum of 100`),
		bound("samples = 2000000", kindAt("critical_difference", "metric = \"m\"\nsamples = 2000000"), `study.toml:16: analyses (x): samples: 2000000 is above the limit of 1000000`),
		bound("alpha = 0", kindAt("critical_difference", "metric = \"m\"\nalpha = 0"), `study.toml:16: analyses (x): alpha: must be in (0, 1), got 0`),
		bound("alpha = 1", kindAt("paired_tests", "metric = \"m\"\nmethods = [\"A\", \"B\"]\nalpha = 1"), `study.toml:17: analyses (x): alpha: must be in (0, 1), got 1`),
		bound("neighbors = 0", kindAt("characteristics", "neighbors = 0"), `study.toml:15: analyses (x): neighbors: 0 is below the minimum of 1`),
		bound("neighbors = 101", kindAt("characteristics", "neighbors = 101"), `study.toml:15: analyses (x): neighbors: 101 is above the limit of 100`),
		bound("clusters components = 0", kindAt("clusters", "components = 0"), `study.toml:15: analyses (x): components: 0 is below the minimum of 1`),
		bound("clusters trees = 1000000", kindAt("clusters", "trees = 1000000"), `study.toml:15: analyses (x): trees: 1000000 is above the limit of 10000`),
		bound("clusters k = 1", kindAt("clusters", "k = 1"), `study.toml:15: analyses (x): k: must be at least 2 (or 0 to choose by silhouette), got 1`),
		bound("clusters k_range [2, 5000]", kindAt("clusters", "k_range = [2, 5000]"), `study.toml:15: analyses (x): k_range: 5000 is above the limit of 1000`),
		bound("clusters inits = 0", kindAt("clusters", "inits = 0"), `study.toml:15: analyses (x): inits: 0 is below the minimum of 1`),
		bound("clusters max_iter = 100000", kindAt("clusters", "max_iter = 100000"), `study.toml:15: analyses (x): max_iter: 100000 is above the limit of 10000`),
		bound("dataset_selection size = 1", kindAt("dataset_selection", "metrics = [\"m\"]\nsize = 1"), `study.toml:16: analyses (x): size: 1 is below the minimum of 2`),
		bound("dataset_selection simulations = 50001", kindAt("dataset_selection", "metrics = [\"m\"]\nsimulations = 50001"), `study.toml:16: analyses (x): simulations: 50001 is above the limit of 50000`),
		bound("dataset_selection epsilon = 0", kindAt("dataset_selection", "metrics = [\"m\"]\nepsilon = 0"), `study.toml:16: analyses (x): epsilon: must be positive, got 0`),
		bound("dataset_selection components = -1", kindAt("dataset_selection", "metrics = [\"m\"]\ncomponents = -1"), `study.toml:16: analyses (x): components: -1 is below the minimum of 0`),
		bound("offline_metrics k = [0]", kindAt("offline_metrics", "runs = \"runs/{method}.csv\"\ntruth = \"truth.csv\"\nk = [0]"), `study.toml:17: analyses (x): k: 0 is below the minimum of 1`),
		bound("offline_metrics k = [2000000]", kindAt("offline_metrics", "runs = \"runs/{method}.csv\"\ntruth = \"truth.csv\"\nk = [2000000]"), `study.toml:17: analyses (x): k: 2000000 is above the limit of 1048576`),
		bound("offline_metrics half_life = -1", kindAt("offline_metrics", "runs = \"runs/{method}.csv\"\ntruth = \"truth.csv\"\nhalf_life = -1"), `study.toml:17: analyses (x): half_life: must be positive, got -1`),
		bound("offline_metrics relevance_threshold = 0", kindAt("offline_metrics", "runs = \"runs/{method}.csv\"\ntruth = \"truth.csv\"\nrelevance_threshold = 0"), `study.toml:17: analyses (x): relevance_threshold: must be positive, got 0`),
		bound("multi_objective compare = [-1]", kindAt("multi_objective", "dataset = \"d1\"\nbase = \"m\"\nobjectives = [\"other\"]\ncompare = [-1]"), `study.toml:18: analyses (x): compare: -1 is below the minimum of 0`),
		bound("stability beta_max = 1e308", kindAt("stability", "metric = \"m\"\nbeta_max = 1e308"), `study.toml:16: analyses (x): beta_max: 1e+308 is above the limit of 1000`),
		bound("dataset_selection beta_max = 0.5", kindAt("dataset_selection", "metrics = [\"m\"]\nbeta_max = 0.5"), `study.toml:16: analyses (x): beta_max: 0.5 is below the minimum of 1`),
		bound("betas value 2000", kindAt("stability", "metric = \"m\"\nbetas = [2000]"), `study.toml:16: analyses (x): betas: 2000 is above the limit of 1000`),
		bound("1001 betas", kindAt("stability", "metric = \"m\"\nbetas = ["+strings.Repeat("1.5, ", 1000)+"2]"), `study.toml:16: analyses (x): betas: 1001 values is above the limit of 1000`),
		bound("subset_sizes 20000", kindAt("stability", "metric = \"m\"\nsubset_sizes = [20000]"), `study.toml:16: analyses (x): subset_sizes: 20000 is above the limit of 10000`),
		bound("metric_correlation of one metric", kindAt("metric_correlation", "metrics = [\"m\"]"), `study.toml:15: analyses (x): metrics: need at least two metrics to correlate, got "m"`),
		bound("clusters components = 1001", kindAt("clusters", "components = 1001"), `study.toml:15: analyses (x): components: 1001 is above the limit of 1000`),
		bound("clusters trees = 0", kindAt("clusters", "trees = 0"), `study.toml:15: analyses (x): trees: 0 is below the minimum of 1`),
		bound("clusters inits = 5000", kindAt("clusters", "inits = 5000"), `study.toml:15: analyses (x): inits: 5000 is above the limit of 1000`),
		bound("clusters max_iter = 0", kindAt("clusters", "max_iter = 0"), `study.toml:15: analyses (x): max_iter: 0 is below the minimum of 1`),
		bound("dataset_selection size = 2000", kindAt("dataset_selection", "metrics = [\"m\"]\nsize = 2000"), `study.toml:16: analyses (x): size: 2000 is above the limit of 1000`),
		bound("dataset_selection simulations = 0", kindAt("dataset_selection", "metrics = [\"m\"]\nsimulations = 0"), `study.toml:16: analyses (x): simulations: 0 is below the minimum of 1`),
		bound("dataset_selection components = 1001", kindAt("dataset_selection", "metrics = [\"m\"]\ncomponents = 1001"), `study.toml:16: analyses (x): components: 1001 is above the limit of 1000`),
		bound("dataset_selection epsilon = nan", kindAt("dataset_selection", "metrics = [\"m\"]\nepsilon = nan"), `study.toml:16: analyses (x): epsilon: NaN is not a finite number`),
		bound("offline_metrics 101 cutoffs", kindAt("offline_metrics", "runs = \"runs/{method}.csv\"\ntruth = \"truth.csv\"\nk = ["+strings.Repeat("1, ", 100)+"1]"), `study.toml:17: analyses (x): k: 101 values is above the limit of 100`),
		bound("meta_analysis alpha = 1.5", kindAt("meta_analysis", "treatment = \"A\"\ncontrol = \"B\"\nmetric = \"m\"\nalpha = 1.5"), `study.toml:18: analyses (x): alpha: 1.5 is not between 0 and 1`),
		bound("multi_objective 101 objectives", kindAt("multi_objective", "dataset = \"d1\"\nbase = \"m\"\nobjectives = ["+func() string {
			var b strings.Builder
			for i := 0; i <= 100; i++ {
				fmt.Fprintf(&b, "%q, ", fmt.Sprint("o", i))
			}
			return strings.TrimSuffix(b.String(), ", ")
		}()+"]"), `study.toml:17: analyses (x): objectives: 101 values is above the limit of 100`),
		bound("metric_correlation duplicated metrics", kindAt("metric_correlation", "metrics = [\"m\", \"m\"]"), `study.toml:15: analyses (x): metrics: "m" is listed twice`),
	)

	// ---- local files and paths --------------------------------------------
	add(
		bad("paths", "page source ../../../../etc/passwd", withManifest(strings.Replace(baseManifest, `"pages/notes.md"`, `"../../../../etc/passwd"`, 1)),
			`study.toml:5: page "../../../../etc/passwd": ../../../../etc/passwd: outside the study directory; evalbook reads only files under the directory of study.toml unless the manifest says allow_outside = true`),
		bad("paths", "results outside the study", withManifest(resultsEntry(`"../shared/results.csv"`)), `study.toml:4: inputs.results: ../shared/results.csv: outside the study directory`),
		bad("paths", "results as an absolute host path", withManifest(resultsEntry(`"/etc/passwd"`)), `/etc/passwd: outside the study directory`),
		bad("paths", "results through a symbolic link out of the study", func(t testing.TB, root, study string) []string {
			mustDo(t, os.Symlink(filepath.Join(root, "secret.csv"), filepath.Join(study, "data", "link.csv")))
			write(t, filepath.Join(study, "study.toml"), resultsEntry(`"data/link.csv"`))
			return build(study)
		}, `study.toml:4: inputs.results: data/link.csv: outside the study directory`),
		bad("paths", "results glob reaching out with ..", withManifest(resultsEntry(`"../*/results.csv"`)), `study.toml:4: inputs.results: ../shared/results.csv: outside the study directory`),
		bad("paths", "units outside the study", withManifest(strings.Replace(baseManifest, "[inputs]\n", "[inputs]\nunits = \"../shared/results.csv\"\n", 1)), `study.toml:4: inputs.units: ../shared/results.csv: outside the study directory`),
		bad("paths", "interaction log outside the study", withManifest(baseManifest+"[[datasets]]\nname = \"d1\"\ninteractions = \"../secret.csv\"\n"), `study.toml:14: dataset "d1": interaction log "../secret.csv": ../secret.csv: outside the study directory`),
		bad("paths", "allow_outside: an error on ../../etc/passwd quotes none of it", withManifest("allow_outside = true\n"+resultsEntry(`"../../../../../../../../../../etc/passwd"`)), `passwd:1: no column "method" (the header of a file outside the study directory is not shown)`),
		hostileRow{cat: "paths", name: "allow_outside: no absolute host path in provenance.json", wantMsg: "built 1 analysis",
			setup: withManifest("allow_outside = true\n" + resultsEntry(`"../shared/results.csv"`)),
			check: func(t *testing.T, root, study string, r cliResult) {
				b, err := os.ReadFile(filepath.Join(study, "site", "data", "provenance.json"))
				mustDo(t, err)
				if strings.Contains(string(b), root) || strings.Contains(string(b), "/tmp") || !strings.Contains(string(b), "results.csv") {
					t.Errorf("provenance.json shows a host path or no input:\n%s", b)
				}
				filepath.WalkDir(filepath.Join(study, "site"), func(p string, d os.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						if b, _ := os.ReadFile(p); strings.Contains(string(b), root) {
							t.Errorf("%s holds the host path %s", p, root)
						}
					}
					return nil
				})
			}},
		hostileRow{cat: "paths", name: "--allow-outside: no absolute host path in provenance.json", wantMsg: "built 1 analysis",
			setup: func(t testing.TB, root, study string) []string {
				write(t, filepath.Join(study, "study.toml"), resultsEntry(`"../shared/results.csv"`))
				return build(study, "--allow-outside")
			},
			check: func(t *testing.T, root, study string, r cliResult) {
				b, err := os.ReadFile(filepath.Join(study, "site", "data", "provenance.json"))
				mustDo(t, err)
				if strings.Contains(string(b), root) || !strings.Contains(string(b), "results.csv") {
					t.Errorf("provenance.json shows a host path or no input:\n%s", b)
				}
			}},
		bad("paths", "validate: results outside the study", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(study, "study.toml"), resultsEntry(`"../shared/results.csv"`))
			return []string{"validate", study}
		}, "study.toml:4: inputs.results: ../shared/results.csv: outside the study directory"),
		bad("paths", "results = /dev/zero", withManifest(resultsEntry(`"/dev/zero"`)), "study.toml:4: inputs.results: zero: a device, not a regular file; evalbook reads only regular files"),
		bad("paths", "results = /dev/zero with allow_outside", withManifest("allow_outside = true\n"+resultsEntry(`"/dev/zero"`)), "study.toml:5: inputs.results: zero: a device, not a regular file; evalbook reads only regular files"),
		bad("paths", "results: a symbolic link to /dev/zero with allow_outside", func(t testing.TB, root, study string) []string {
			mustDo(t, os.Symlink("/dev/zero", filepath.Join(study, "data", "zero.csv")))
			write(t, filepath.Join(study, "study.toml"), "allow_outside = true\n"+resultsEntry(`"data/zero.csv"`))
			return build(study)
		}, `study.toml:5: inputs.results: data/zero.csv: a device, not a regular file; evalbook reads only regular files`),
		bad("paths", "results: a symbolic link to /dev/zero", func(t testing.TB, root, study string) []string {
			mustDo(t, os.Symlink("/dev/zero", filepath.Join(study, "data", "zero.csv")))
			write(t, filepath.Join(study, "study.toml"), resultsEntry(`"data/zero.csv"`))
			return build(study)
		}, `study.toml:4: inputs.results: data/zero.csv: a device, not a regular file; evalbook reads only regular files`),
		bad("paths", "results is a directory", withManifest(resultsEntry(`"data"`)), "study.toml:4: inputs.results: data: a directory, not a file; evalbook reads only regular files"),
		bad("paths", "results glob matching nothing", withManifest(resultsEntry(`"data/*.tsv"`)), `study.toml:4: inputs.results: no file matches "data/*.tsv"`),
		bad("paths", "results file missing", withManifest(resultsEntry(`"data/nothere.csv"`)), `study.toml:4: inputs.results: no file matches "data/nothere.csv"`),
		bad("paths", "results is a FIFO", func(t testing.TB, root, study string) []string {
			mkfifo(t, filepath.Join(study, "data", "pipe.csv"))
			write(t, filepath.Join(study, "study.toml"), resultsEntry(`"data/pipe.csv"`))
			return build(study)
		}, `study.toml:4: inputs.results: data/pipe.csv: a named pipe (FIFO), not a regular file; evalbook reads only regular files`),
		bad("paths", "the manifest is a FIFO", func(t testing.TB, root, study string) []string {
			mkfifo(t, filepath.Join(root, "pipe", "study.toml"))
			return build(filepath.Join(root, "pipe", "study.toml"))
		}, `read manifest: {root}/pipe/study.toml: not a regular file (a named pipe)`),
	)

	// ---- data -------------------------------------------------------------
	add(
		bad("data", "an unquoted decimal comma", withResults(hdr+"movies-small,BPR,m,0.149\nmovies-small,Pop,m,0.1\nmovies-small,ItemKNN,ndcg@10,0,152\n"),
			`data/results.csv:4:30: 5 fields, the header has 4 — a decimal comma in "0,152"? quote the value or use a dot`),
		bad("data", "an extra field", withResults(hdr+"d1,A,m,1,x\n"), "analyses/lb: data/results.csv:2:10: 5 fields, the header has 4"),
		bad("data", "a trailing comma", withResults(hdr+"d1,A,m,1,\n"), "analyses/lb: data/results.csv:2:10: 5 fields, the header has 4 — a trailing comma?"),
		bad("data", "too few fields", withResults(hdr+"d1,A,m\n"), "data/results.csv:2: 3 fields, the header has 4"),
		bad("data", "one cell twice with different values, no run column", withResults(baseResults+"d1,A,m,1.5\n"),
			`data/results.csv:6:8: m of A on d1 is also given at data/results.csv:2 with another value (1.5 vs 1); add a run column or declare duplicates = "mean" | "first" | "last"`),
		ok("data", "one cell twice with the same value (accepted)", withResults(baseResults+"d1,A,m,1.0\n"), nil),
		ok("data", `duplicates = "first" (accepted)`, studyFiles(map[string]string{
			"study.toml":       resultsEntry(`{ path = "data/results.csv", duplicates = "first" }`),
			"data/results.csv": baseResults + "d1,A,m,7\n",
		}), nil),
		ok("data", `duplicates = "mean" (accepted)`, studyFiles(map[string]string{
			"study.toml":       resultsEntry(`{ path = "data/results.csv", duplicates = "mean" }`),
			"data/results.csv": baseResults + "d1,A,m,7\n",
		}), nil),
		bad("data", "a run given twice with another value", withResults("dataset,method,metric,run,value\nd1,A,m,1,1\nd1,A,m,1,2\nd1,B,m,1,2\nd2,A,m,1,3\nd2,B,m,1,1\n"),
			`data/results.csv:3:10: run "1" of m of A on d1 is also given at data/results.csv:2 with another value (2 vs 1); give each run its own id`),
		bad("data", "NaN", withResults(hdr+"d1,A,m,NaN\n"), `data/results.csv:2:8: not a number: "NaN" (to read it as a missing value, declare missing_values = ["NaN"] on the input)`),
		bad("data", "+NaN", withResults(hdr+"d1,A,m,+NaN\n"), `data/results.csv:2:8: not a number: "+NaN"`),
		bad("data", "Inf", withResults(hdr+"d1,A,m,Inf\n"), `data/results.csv:2:8: not a finite number: "Inf"`),
		bad("data", "-inf", withResults(hdr+"d1,A,m,-inf\n"), `data/results.csv:2:8: not a finite number: "-inf"`),
		bad("data", "0x1p-2", withResults(hdr+"d1,A,m,0x1p-2\n"), `data/results.csv:2:8: not a decimal number: "0x1p-2" (hexadecimal is not accepted)`),
		bad("data", "1_000", withResults(hdr+"d1,A,m,1_000\n"), `data/results.csv:2:8: not a decimal number: "1_000" (digit separators are not accepted)`),
		bad("data", "1e999", withResults(hdr+"d1,A,m,1e999\n"), `data/results.csv:2:8: number out of range: "1e999"`),
		bad("data", "1e-400", withResults(hdr+"d1,A,m,1e-400\n"), `data/results.csv:2:8: number too small: "1e-400" rounds to 0`),
		bad("data", "abc", withResults(hdr+"d1,A,m,abc\n"), `data/results.csv:2:8: not a number: "abc"`),
		ok("data", "nan declared in missing_values (accepted)", studyFiles(map[string]string{
			"study.toml":       resultsEntry(`{ path = "data/results.csv", missing_values = ["nan"] }`),
			"data/results.csv": baseResults + "d1,A,other,nan\n",
		}), nil),
		ok("data", "5e-324 gives a correct geometric mean", withResults(hdr+"d1,A,m,5e-324\nd1,B,m,2\nd2,A,m,3\nd2,B,m,1\n"),
			func(t *testing.T, root, study string, r cliResult) {
				g, isNum := geometricMeanOf(t, filepath.Join(study, "site"), "A").(float64)
				want := math.Sqrt(5e-324 * 3) // exact product, correctly rounded root
				if !isNum || !(g < 1) || !(g > 0) || math.Abs(g-want) > 1e-12*want {
					t.Errorf("geometric mean of A = %v, want %v (< 1)", geometricMeanOf(t, filepath.Join(study, "site"), "A"), want)
				}
			}),
		hostileRow{cat: "data", name: "1e308 twice with a run column", wantCode: 0, wantMsg: "built 1 analysis",
			setup: withResults("dataset,method,metric,run,value\nd1,A,m,1,1e308\nd1,A,m,2,1e308\nd1,B,m,1,2\nd1,B,m,2,2\nd2,A,m,1,3\nd2,B,m,1,1\n"),
			check: func(t *testing.T, root, study string, r cliResult) {
				if got := tableValue(t, filepath.Join(study, "site"), "lb", "A", "mean"); got != (1e308+3)/2 {
					t.Errorf("mean of A = %v, want %v", got, (1e308+3)/2)
				}
			}},
		bad("data", "an overflowing mean over runs", withResults("dataset,method,metric,run,value\nd1,A,m,1,1.7e308\nd1,A,m,2,-1.7e308\nd1,B,m,1,2\nd2,A,m,1,3\nd2,B,m,1,1\n"),
			"data/results.csv:3:10: the mean or spread over the 2 values of m of A on d1 overflows float64"),
		bad("data", "an empty file", withResults(""), `study.toml:8: analyses/lb: data/results.csv: empty file (no header row)`),
		bad("data", "a header only", withResults(hdr), "analyses/lb: data/results.csv:1: no rows after the header: a results file must hold at least one row of values"),
		bad("data", "no value column", withResults("dataset,method,metric\nd1,A,m\n"), `data/results.csv:1: no metric columns: want dataset,method,metric,value or dataset,method,<metric…>`),
		bad("data", "a mapped column the file lacks", withManifest(resultsEntry(`{ path = "data/results.csv", columns = { value = "score" } }`)), `data/results.csv:1: no column "score" (mapped from "value")`),
		bad("data", "an empty method name", withResults(baseResults+"d1,,m,1\n"), `data/results.csv:6:4: empty method name`),
		bad("data", "0xFF in a method name", withResults(hdr+"d1,Item\xffKNN,m,0.5\n"), `data/results.csv:2:4: method name "Item\xffKNN" holds invalid UTF-8 (byte 0xFF)`),
		bad("data", "NUL in a method name", withResults(hdr+"d1,A\x00,m,0.5\n"), `data/results.csv:2:4: method name "A\x00" holds a control character (U+0000)`),
		bad("data", "a terminal escape in a header cell", withResults("dataset,method,\x1b[31mm\x1b[0m,value\nd1,A,m,1\n"), `data/results.csv:1:16: header cell "\x1b[31mm\x1b[0m" holds a control character (U+001B)`),
		bad("data", "a terminal escape in a dataset name", withResults(hdr+"d1\x1b[2J,A,m,1\n"), `data/results.csv:2:1: dataset name "d1\x1b[2J" holds a control character (U+001B)`),
		bad("data", "a bidirectional override in a metric name", withResults(hdr+"d1,A,m\u202e1,1\n"), `metric name "m\u202e1" holds a bidirectional control character (U+202E)`),
		bad("data", "a column name twice", withResults("dataset,method,metric,value,VALUE\nd1,A,m,1,1\n"), `data/results.csv:1:29: column "VALUE" appears twice in the header (columns 4 and 5); rename one`),
		bad("data", "a 2 MiB line", withResults(hdr+"d1,A,m,"+strings.Repeat("1", 2<<20)+"\n"), "data/results.csv:2: line longer than 1 MiB"),
		bad("data", "a quote that never closes", withResults(hdr+"d1,\"A,m,1\nd1,B,m,2\n"), `data/results.csv:2:4: extraneous or missing " in quoted-field`),
		bad("data", "a bare quote in a field", withResults(hdr+"d1,A\"x,m,1\n"), `data/results.csv:2:5: bare " in non-quoted-field`),
		ok("data", "BOM and CRLF (accepted)", withResults("\ufeff"+strings.ReplaceAll(baseResults, "\n", "\r\n")), nil),
		ok("data", "wide form (accepted)", withResults("dataset,method,m,other\nd1,A,1,5\nd1,B,2,5\nd2,A,3,5\nd2,B,1,5\n"), nil),
		bad("data", "a BOM in the middle of the header", withResults("dataset,\ufeffmethod,metric,value\nd1,A,m,1\n"), `data/results.csv:1:9: header cell "\ufeffmethod" holds an invisible format character (U+FEFF)`),
		bad("data", "a value in an unnamed column", withResults("dataset,method,m,\nd1,A,1,2\n"), "data/results.csv:2:8: a value in column 4, which has no name in the header"),
		bad("data", "100,000 metric columns with metric_correlation", func(t testing.TB, root, study string) []string {
			var b strings.Builder
			b.WriteString("dataset,method,m")
			for i := 0; i < 100000; i++ {
				fmt.Fprintf(&b, ",x%d", i)
			}
			b.WriteString("\n")
			for _, dm := range []string{"d1,A,1", "d1,B,2", "d2,A,3", "d2,B,1"} {
				b.WriteString(dm)
				b.WriteString(strings.Repeat(",1", 100000))
				b.WriteString("\n")
			}
			write(t, filepath.Join(study, "data", "results.csv"), b.String())
			write(t, filepath.Join(study, "study.toml"), baseManifest+"[[analyses]]\nid = \"corr\"\ntype = \"metric_correlation\"\n")
			return build(study)
		}, "metric_correlation over 100001 metrics is above the limit of 1000 metrics in one correlation matrix"),
		bad("data", "characteristics: a feature twice with another value", studyFiles(map[string]string{
			"study.toml":     strings.Replace(baseManifest, "[inputs]\n", "[inputs]\ncharacteristics = \"data/chars.csv\"\n", 1) + "[[analyses]]\nid = \"ch\"\ntype = \"characteristics\"\nfrom = \"input\"\n",
			"data/chars.csv": "dataset,feature,value\nd1,Nu,10\nd1,Nu,11\nd2,Nu,5\n",
		}), "data/chars.csv:3:7: Nu of d1 is also given at data/chars.csv:2 with another value (11 vs 10); keep one"),
		bad("data", "units: a unit twice", studyFiles(map[string]string{
			"study.toml":     strings.Replace(baseManifest, "[inputs]\n", "[inputs]\nunits = \"data/units.csv\"\n", 1) + "[[analyses]]\nid = \"meta\"\ntype = \"meta_analysis\"\nmetric = \"m\"\ntreatment = \"A\"\ncontrol = \"B\"\n",
			"data/units.csv": "dataset,method,unit,metric,value\nd1,A,u1,m,0.5\nd1,A,u1,m,0.6\nd1,B,u1,m,0.4\n",
		}), `data/units.csv:3: unit "u1" of method "A" on dataset "d1" appears twice (first at data/units.csv:2)`),
		bad("data", "units: a unit repeated after its pair was made", unitsStudy("data/units.csv", "", func(testing.TB) string { return repeatAfterPair }),
			`data/units.csv:6: unit "u1" of method "A" on dataset "d1" appears twice (first at data/units.csv:2)`),
		bad("data", "units: a unit repeated after its pair was made, gzip CSV", unitsStudy("data/units.csv.gz", "", func(t testing.TB) string { return gzipBytes(t, repeatAfterPair) }),
			`data/units.csv.gz:6: unit "u1" of method "A" on dataset "d1" appears twice (first at data/units.csv.gz:2)`),
		bad("data", "units: a unit repeated after its pair was made, Parquet", unitsStudy("data/units.parquet", "", func(t testing.TB) string {
			return parquetBytes(t, []pqUnit{{"d1", "A", "u1", "m", 0.5}, {"d1", "B", "u1", "m", 0.4}, {"d1", "A", "u2", "m", 0.6}, {"d1", "B", "u2", "m", 0.3}, {"d1", "A", "u1", "m", 0.7}, {"d1", "A", "u3", "m", 0.7}, {"d1", "B", "u3", "m", 0.2}})
		}), `data/units.parquet: row 5: unit "u1" of method "A" on dataset "d1" appears twice (first at row 1)`),
		bad("data", "units: a unit repeated, independent groups", unitsStudy("data/units.csv", "design = \"independent\"\n", func(testing.TB) string { return repeatAfterPair }),
			`data/units.csv:6: unit "u1" of method "A" on dataset "d1" appears twice (first at data/units.csv:2)`),
		bad("data", "units: a unit repeated far from the first, ids in no order", unitsStudy("data/units.csv", "", func(testing.TB) string {
			var b strings.Builder
			b.WriteString("dataset,method,unit,metric,value\n")
			for i := 0; i < 500; i++ {
				u := (i * 7919) % 500 // every unit once, in no order
				fmt.Fprintf(&b, "d1,A,u%d,m,0.5\nd1,B,u%d,m,0.4\n", u, u)
			}
			b.WriteString("d1,B,u3,m,0.9\n") // u3 comes at i = 37 (7919 × 37 = 293003): lines 76 and 77
			return b.String()
		}), `data/units.csv:1002: unit "u3" of method "B" on dataset "d1" appears twice (first at data/units.csv:77)`),
		bad("data", "interaction log: a non-numeric rating", studyFiles(map[string]string{
			"study.toml":  baseManifest + "[[datasets]]\nname = \"d1\"\ninteractions = \"logs/d1.csv\"\n[[analyses]]\nid = \"ch\"\ntype = \"characteristics\"\nfrom = \"logs\"\n",
			"logs/d1.csv": "user,item,rating\n1,2,3\n1,3,good\n",
		}), `analyses/ch: logs/d1.csv:3:5: dataset "d1": not a number: "good"`),
		bad("data", "interaction log: missing", withManifest(baseManifest+"[[datasets]]\nname = \"d1\"\ninteractions = \"logs/none.csv\"\n[[analyses]]\nid = \"ch\"\ntype = \"characteristics\"\nfrom = \"logs\"\n"),
			`study.toml:14: dataset "d1": interaction log "logs/none.csv": logs/none.csv: no such file`),
		bad("data", "interaction log: NaN rating", studyFiles(map[string]string{
			"study.toml":  baseManifest + "[[datasets]]\nname = \"d1\"\ninteractions = \"logs/d1.csv\"\n[[analyses]]\nid = \"ch\"\ntype = \"characteristics\"\nfrom = \"logs\"\n",
			"logs/d1.csv": "user,item,rating\n1,2,3\n1,3,NaN\n",
		}), `analyses/ch: logs/d1.csv:3:5: dataset "d1": not a number: "NaN"`),
	)

	// ---- compression ------------------------------------------------------
	gzManifest := resultsEntry(`"data/results.csv.gz"`)
	add(
		bad("compression", "a gzip bomb: one huge header line", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(study, "data", "results.csv.gz"), gzipBomb(t, 16<<20))
			write(t, filepath.Join(study, "study.toml"), gzManifest)
			return build(study)
		}, "data/results.csv.gz:1: line longer than 1 MiB"),
		bad("compression", "a truncated gzip file", func(t testing.TB, root, study string) []string {
			gz := gzipBytes(t, baseResults+strings.Repeat("d3,A,m,1\n", 1000))
			write(t, filepath.Join(study, "data", "results.csv.gz"), gz[:len(gz)/2])
			write(t, filepath.Join(study, "study.toml"), gzManifest)
			return build(study)
		}, `truncated gzip file: the compressed data end after line`),
		bad("compression", "not gzip, named .gz", studyFiles(map[string]string{"data/results.csv.gz": baseResults, "study.toml": gzManifest}), `study.toml:8: analyses/lb: data/results.csv.gz: not a gzip file: gzip: invalid header`),
		bad("compression", "an empty .gz file", studyFiles(map[string]string{"data/results.csv.gz": "", "study.toml": gzManifest}), `study.toml:8: analyses/lb: data/results.csv.gz: empty file: a .gz input must hold a gzip stream`),
		bad("compression", "a gzip file with a bad checksum", func(t testing.TB, root, study string) []string {
			gz := []byte(gzipBytes(t, baseResults))
			gz[len(gz)-8] ^= 0xff // the CRC-32 of the trailer
			write(t, filepath.Join(study, "data", "results.csv.gz"), string(gz))
			write(t, filepath.Join(study, "study.toml"), gzManifest)
			return build(study)
		}, `data/results.csv.gz:6: corrupt gzip file: its checksum does not match the data (after line 5)`),
		bad("compression", "gzip with a bad value inside", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(study, "data", "results.csv.gz"), gzipBytes(t, hdr+"d1,A,m,1\nd1,B,m,0x10\n"))
			write(t, filepath.Join(study, "study.toml"), gzManifest)
			return build(study)
		}, `data/results.csv.gz:3:8: not a decimal number: "0x10" (hexadecimal is not accepted)`),
		bad("compression", "a .gz past --max-decompressed", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(study, "data", "results.csv.gz"), gzipBytes(t, baseResults+strings.Repeat("d3,A,m,1\n", 2000)))
			write(t, filepath.Join(study, "study.toml"), gzManifest)
			return build(study, "--max-decompressed", "4K")
		}, "data/results.csv.gz:2006: decompresses to more than 4 KiB, the cap on a decompressed input"),
		hostileRow{cat: "usage", name: "--max-decompressed of no size", wantCode: 2, wantMsg: `--max-decompressed: "lots" is not a size`,
			setup: func(t testing.TB, root, study string) []string { return build(study, "--max-decompressed", "lots") }},
		ok("compression", "gzip of CSV (accepted)", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(study, "data", "results.csv.gz"), gzipBytes(t, baseResults))
			write(t, filepath.Join(study, "study.toml"), gzManifest)
			return build(study)
		}, nil),
		ok("compression", "gzip of TSV (accepted)", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(study, "data", "results.tsv.gz"), gzipBytes(t, strings.ReplaceAll(baseResults, ",", "\t")))
			write(t, filepath.Join(study, "study.toml"), resultsEntry(`"data/results.tsv.gz"`))
			return build(study)
		}, nil),
		bad("compression", "gzip of TSV with a decimal comma", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(study, "data", "results.tsv.gz"), gzipBytes(t, "dataset\tmethod\tmetric\tvalue\nd1\tA\tm\t0,5\n"))
			write(t, filepath.Join(study, "study.toml"), resultsEntry(`"data/results.tsv.gz"`))
			return build(study)
		}, `data/results.tsv.gz:2:8: not a number: "0,5" — a decimal comma? use a dot`),
		ok("compression", "two gzip members (accepted)", func(t testing.TB, root, study string) []string {
			half := strings.Index(baseResults, "d2,")
			write(t, filepath.Join(study, "data", "results.csv.gz"), gzipBytes(t, baseResults[:half])+gzipBytes(t, baseResults[half:]))
			write(t, filepath.Join(study, "study.toml"), gzManifest)
			return build(study)
		}, nil),
	)

	// ---- Parquet (the strict reader merged from main) ---------------------
	pqManifest := resultsEntry(`"data/results.parquet"`)
	pqGood := []pqResult{{"d1", "A", "m", 1}, {"d1", "B", "m", 2}, {"d2", "A", "m", 3}, {"d2", "B", "m", 1}}
	add(
		ok("parquet", "a valid Parquet file (accepted)", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(study, "data", "results.parquet"), parquetBytes(t, pqGood))
			write(t, filepath.Join(study, "study.toml"), pqManifest)
			return build(study)
		}, nil),
		bad("parquet", "a truncated Parquet file", func(t testing.TB, root, study string) []string {
			pq := parquetBytes(t, pqGood)
			write(t, filepath.Join(study, "data", "results.parquet"), pq[:len(pq)-20])
			write(t, filepath.Join(study, "study.toml"), pqManifest)
			return build(study)
		}, `study.toml:8: analyses/lb: data/results.parquet: not a readable Parquet file`),
		bad("parquet", "random bytes named .parquet", studyFiles(map[string]string{
			"data/results.parquet": "PAR1\x00\x01\x02garbage that is no parquet\xff\xfePAR1", "study.toml": pqManifest}), "study.toml:8: analyses/lb: data/results.parquet: not a readable Parquet file: the footer claims 4278154341 bytes in a file of 39"),
		bad("parquet", "an empty .parquet file", studyFiles(map[string]string{"data/results.parquet": "", "study.toml": pqManifest}), `study.toml:8: analyses/lb: data/results.parquet: not a readable Parquet file`),
		bad("parquet", "NaN in a float column", func(t testing.TB, root, study string) []string {
			rows := append([]pqResult(nil), pqGood...)
			rows[1].Value = math.NaN()
			write(t, filepath.Join(study, "data", "results.parquet"), parquetBytes(t, rows))
			write(t, filepath.Join(study, "study.toml"), pqManifest)
			return build(study)
		}, `data/results.parquet: row 2, column "value": not a finite number: NaN (declare it missing with missing_values = ["NaN"] on the input)`),
		bad("parquet", "+Inf in a float column", func(t testing.TB, root, study string) []string {
			rows := append([]pqResult(nil), pqGood...)
			rows[3].Value = math.Inf(1)
			write(t, filepath.Join(study, "data", "results.parquet"), parquetBytes(t, rows))
			write(t, filepath.Join(study, "study.toml"), pqManifest)
			return build(study)
		}, `study.toml:8: analyses/lb: data/results.parquet: row 4, column "value": not a finite number: Inf (declare it missing with missing_values = ["Inf"] on the input)`),
		bad("parquet", "hexadecimal text in a string column", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(study, "data", "results.parquet"), parquetBytes(t, []pqTextResult{{"d1", "A", "m", "0x1p-2"}}))
			write(t, filepath.Join(study, "study.toml"), pqManifest)
			return build(study)
		}, `data/results.parquet: row 1, column "value": not a decimal number: "0x1p-2" (hexadecimal is not accepted)`),
		bad("parquet", "a control character in a method name", func(t testing.TB, root, study string) []string {
			rows := append([]pqResult(nil), pqGood...)
			rows[0].Method = "A\x1b[31m"
			write(t, filepath.Join(study, "data", "results.parquet"), parquetBytes(t, rows))
			write(t, filepath.Join(study, "study.toml"), pqManifest)
			return build(study)
		}, `study.toml:8: analyses/lb: data/results.parquet: row 1, column "method": the text has a control character (U+001B) at byte 1`),
		bad("parquet", "a Parquet file without the value column", func(t testing.TB, root, study string) []string {
			type noValue struct {
				Dataset string `parquet:"dataset"`
				Method  string `parquet:"method"`
				Metric  string `parquet:"metric"`
			}
			write(t, filepath.Join(study, "data", "results.parquet"), parquetBytes(t, []noValue{{"d1", "A", "m"}}))
			write(t, filepath.Join(study, "study.toml"), pqManifest)
			return build(study)
		}, `data/results.parquet:1: no metric columns: want dataset,method,metric,value or dataset,method,<metric…>`),
	)

	// ---- offline_metrics: ranked runs, TREC, truth -------------------------
	offline := func(keys string) string {
		return "title = \"Offline\"\n[[analyses]]\nid = \"om\"\ntype = \"offline_metrics\"\nruns = \"runs/{method}_{dataset}.csv\"\ntruth = \"truth/{dataset}.csv\"\nk = [1, 2]\n" + keys
	}
	offlineFiles := func(over map[string]string) map[string]string {
		files := map[string]string{
			"study.toml":       offline(""),
			"truth/d1.csv":     "user,item,relevance\nu1,a,1\nu1,b,2\nu2,c,1\n",
			"runs/A_d1.csv":    "user,item,rank\nu1,a,1\nu1,x,2\nu2,c,1\n",
			"runs/B_d1.csv":    "user,item,rank\nu1,x,1\nu1,b,2\nu2,y,1\n",
			"data/results.csv": baseResults,
		}
		for k, v := range over {
			files[k] = v
		}
		return files
	}
	trec := map[string]string{
		"study.toml":  "title = \"Offline\"\n[[analyses]]\nid = \"om\"\ntype = \"offline_metrics\"\nruns = \"runs/{method}.run\"\ntruth = \"qrels.txt\"\nformat = \"trec\"\nk = [1, 2]\n",
		"qrels.txt":   "q1 0 a 1\nq1 0 b 2\nq2 0 c 1\n",
		"runs/A.run":  "q1 Q0 a 1 0.9 A\nq1 Q0 x 2 0.5 A\nq2 Q0 c 1 0.7 A\n",
		"runs/B.run":  "q1 Q0 x 1 0.9 B\nq2 Q0 y 1 0.8 B\n",
		"pages/x.txt": "",
	}
	add(
		hostileRow{cat: "offline", name: "ranked runs and truth (accepted)", setup: studyFiles(offlineFiles(nil)), wantMsg: "built 1 analysis and 0 pages"},
		hostileRow{cat: "offline", name: "TREC runs and qrels (accepted)", setup: studyFiles(trec), wantMsg: "built 1 analysis and 0 pages"},
		bad("offline", "NaN score", studyFiles(offlineFiles(map[string]string{"runs/A_d1.csv": "user,item,score\nu1,a,NaN\n"})),
			`runs/A_d1.csv:2: score "NaN" is not a number (NaN and infinite values are not accepted)`),
		bad("offline", "TREC: hexadecimal score", func(t testing.TB, root, study string) []string {
			files := map[string]string{}
			for k, v := range trec {
				files[k] = v
			}
			files["runs/A.run"] = "q1 Q0 a 1 0x1p-2 A\n"
			return studyFiles(files)(t, root, study)
		}, `runs/A.run:1: score "0x1p-2" is not a number (hexadecimal is not accepted)`),
		bad("offline", "TREC: a line of two fields", func(t testing.TB, root, study string) []string {
			files := map[string]string{}
			for k, v := range trec {
				files[k] = v
			}
			files["runs/A.run"] = "q1 Q0 a 1 0.9 A\nq1 Q0\n"
			return studyFiles(files)(t, root, study)
		}, `runs/A.run:2: 2 fields, a TREC run line has 6: qid Q0 docno rank score tag`),
		bad("offline", "a rank gap", studyFiles(offlineFiles(map[string]string{"runs/A_d1.csv": "user,item,rank\nu1,a,1\nu1,b,2\nu1,c,4\n"})),
			`runs/A_d1.csv:4: user "u1": rank gap: rank 4 follows rank 2`),
		bad("offline", "a hexadecimal rank", studyFiles(offlineFiles(map[string]string{"runs/A_d1.csv": "user,item,rank\nu1,a,0x1\n"})),
			`runs/A_d1.csv:2: rank "0x1" is not a positive integer`),
		bad("offline", "an item listed twice", studyFiles(offlineFiles(map[string]string{"runs/A_d1.csv": "user,item,rank\nu1,a,1\nu1,x,2\nu1,a,3\n"})),
			`runs/A_d1.csv:4: user "u1": item "a" is listed twice`),
		bad("offline", "a run with an extra field", studyFiles(offlineFiles(map[string]string{"runs/A_d1.csv": "user,item,score\nu1,a,0,5\n"})),
			`runs/A_d1.csv:2: 4 fields, the header has 3 — a decimal comma in "0,5"? quote the value or use a dot`),
		bad("offline", "truth relevance Infinity", studyFiles(offlineFiles(map[string]string{"truth/d1.csv": "user,item,relevance\nu1,a,Infinity\n"})),
			`truth/d1.csv:2: relevance "Infinity" is not a number (NaN and infinite values are not accepted)`),
		bad("offline", "a NUL in a truth user id", studyFiles(offlineFiles(map[string]string{"truth/d1.csv": "user,item\nu\x001,a\n"})),
			`truth/d1.csv:2: user id "u\x001" holds a control character (U+0000)`),
		bad("offline", "truth missing", func(t testing.TB, root, study string) []string {
			args := studyFiles(offlineFiles(nil))(t, root, study)
			mustDo(t, os.Remove(filepath.Join(study, "truth", "d1.csv")))
			return args
		}, `study.toml:2: analyses/om: truth: no file matches "truth/{dataset}.csv"`),
		bad("offline", "runs matching nothing", studyFiles(offlineFiles(map[string]string{"study.toml": strings.Replace(offline(""), "runs/{method}_{dataset}.csv", "ranked/{method}_{dataset}.csv", 1)})),
			`study.toml:2: analyses/om: runs: no file matches "ranked/{method}_{dataset}.csv"`),
		bad("offline", "runs outside the study", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(root, "A_d1.csv"), "user,item,rank\nu1,a,1\n")
			write(t, filepath.Join(root, "B_d1.csv"), "user,item,rank\nu1,b,1\n")
			return studyFiles(offlineFiles(map[string]string{"study.toml": strings.Replace(offline(""), "runs/{method}_{dataset}.csv", "../{method}_{dataset}.csv", 1)}))(t, root, study)
		}, `study.toml:2: analyses/om: runs: ../A_d1.csv: outside the study directory`),
		bad("offline", "a value also given by the results", studyFiles(offlineFiles(map[string]string{
			"study.toml":       strings.Replace(offline(""), "title = \"Offline\"\n", "title = \"Offline\"\n[inputs]\nresults = \"data/results.csv\"\n", 1) + "[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"ndcg@1\"\n",
			"data/results.csv": hdr + "d1,A,ndcg@1,0.5\n",
		})), `study.toml:10: analyses/lb: analysis om computes ndcg@1 of A on d1, which the results files also give; rename the metric or leave it out of one of them`),
		bad("offline", "a value also given by the results, read by no other analysis", studyFiles(offlineFiles(map[string]string{
			"study.toml":       strings.Replace(offline(""), "title = \"Offline\"\n", "title = \"Offline\"\n[inputs]\nresults = \"data/results.csv\"\n", 1),
			"data/results.csv": hdr + "d1,A,ndcg@1,0.5\n",
		})), `inputs: analysis om computes ndcg@1 of A on d1, which the results files also give; rename the metric or leave it out of one of them`),
		bad("offline", "predictions with nan", studyFiles(offlineFiles(map[string]string{
			"study.toml":     offline("predictions = \"preds/{method}_{dataset}.csv\"\n"),
			"preds/A_d1.csv": "user,item,prediction\nu1,a,nan\n",
			"preds/B_d1.csv": "user,item,prediction\nu1,b,1\n",
		})), `preds/A_d1.csv:2: prediction "nan" is not a number`),
	)

	// ---- meta-analysis summaries ---------------------------------------------
	meta := "title = \"Meta\"\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\ntreatment = \"new\"\ncontrol = \"old\"\nsummary = \"summary.csv\"\nbetter = \"higher\"\n"
	summary := func(body string) func(testing.TB, string, string) []string {
		return studyFiles(map[string]string{"study.toml": meta, "summary.csv": body})
	}
	add(
		hostileRow{cat: "meta", name: "a valid summary (accepted)", setup: summary("dataset,n,mean_diff,sd_diff\na,100,0.5,2\nb,50,0.2,1.5\n"), wantMsg: "built 1 analysis and 0 pages"},
		bad("meta", "a negative sd", summary("dataset,n,mean_diff,sd_diff\na,5,0.1,-1\n"), "sd_diff of a is negative"),
		bad("meta", "n < 2", summary("dataset,n,mean_diff,sd_diff\na,1,0.1,1\n"), "summary.csv:2:3: n of a must be a whole number ≥ 2, not 1 (paired summary)"),
		bad("meta", "a non-numeric n", summary("dataset,n,mean_diff,sd_diff\na,ten,0.1,0.2\n"), `summary.csv:2:3: not a number: "ten"`),
		bad("meta", "NaN mean_diff", summary("dataset,n,mean_diff,sd_diff\na,5,NaN,1\n"), `summary.csv:2:5: not a number: "NaN"`),
		bad("meta", "a missing column", summary("dataset,n,mean_diff\na,10,0.1\n"), `no column "sd_diff"`),
		bad("meta", "a dataset twice", summary("dataset,n,mean_diff,sd_diff\na,5,0.1,1\na,6,0.1,1\n"), `"a" has a second row`),
		bad("meta", "r out of range", summary("dataset,n,mean_diff,sd_diff,r\na,5,0.1,1,1.5\n"), "between −1 and 1"),
	)

	// ---- multi_objective -------------------------------------------------------
	mo := "title = \"Challenge\"\n[[analyses]]\nid = \"mo\"\ntype = \"multi_objective\"\ninput = { path = \"subs.csv\", columns = { model = \"team\" } }\nbase = \"hit_rate\"\nobjectives = [\"fairness\"]\n"
	subs := "team,hit_rate,fairness\nred,0.40,-0.40\nblue,0.20,-0.15\ngreen,0.35,-0.30\n"
	moFiles := func(body string) func(testing.TB, string, string) []string {
		return studyFiles(map[string]string{"study.toml": mo, "subs.csv": body})
	}
	add(
		hostileRow{cat: "multi_objective", name: "a valid table (accepted)", setup: moFiles(subs), wantMsg: "built 1 analysis and 0 pages"},
		bad("multi_objective", "NaN", moFiles(strings.Replace(subs, "0.40", "NaN", 1)), `subs.csv:2:5: not a number: "NaN"`),
		bad("multi_objective", "inf", moFiles(strings.Replace(subs, "0.40", "inf", 1)), `subs.csv:2:5: not a finite number: "inf"`),
		bad("multi_objective", "1_0", moFiles(strings.Replace(subs, "0.40", "1_0", 1)), `subs.csv:2:5: not a decimal number: "1_0"`),
		bad("multi_objective", "a terminal escape in a model id", moFiles(strings.Replace(subs, "blue", "bl\x1b[2Jue", 1)), `subs.csv:3:1: model id "bl\x1b[2Jue" holds a control character (U+001B)`),
		bad("multi_objective", "a missing objective column", moFiles("team,hit_rate\nred,0.4\n"), `subs.csv:1: no column "fairness" (header: team,hit_rate)`),
		bad("multi_objective", "input outside the study", studyFiles(map[string]string{"study.toml": strings.Replace(mo, `"subs.csv"`, `"../secret.csv"`, 1)}), `study.toml:2: analyses/mo: ../secret.csv: outside the study directory`),
	)

	// ---- pages -------------------------------------------------------------
	add(
		bad("pages", "a missing page", withManifest(strings.Replace(baseManifest, `"pages/notes.md"`, `"pages/none.md"`, 1)), `study.toml:5: page "pages/none.md": pages/none.md: no such file`),
		bad("pages", "a page that is a directory", withManifest(strings.Replace(baseManifest, `"pages/notes.md"`, `"pages"`, 1)), `study.toml:5: page "pages": pages: a directory, not a file; evalbook reads only regular files`),
		bad("pages", "a page that is a FIFO", func(t testing.TB, root, study string) []string {
			mkfifo(t, filepath.Join(study, "pages", "pipe.md"))
			write(t, filepath.Join(study, "study.toml"), strings.Replace(baseManifest, `"pages/notes.md"`, `"pages/pipe.md"`, 1))
			return build(study)
		}, `study.toml:5: page "pages/pipe.md": pages/pipe.md: a named pipe (FIFO), not a regular file; evalbook reads only regular files`),
		bad("pages", "a page outside the study", withManifest(strings.Replace(baseManifest, `"pages/notes.md"`, `"../notes.txt"`, 1)), `study.toml:5: page "../notes.txt": ../notes.txt: outside the study directory`),
		bad("pages", "a page through a symbolic link out of the study", func(t testing.TB, root, study string) []string {
			mustDo(t, os.Symlink(filepath.Join(root, "notes.txt"), filepath.Join(study, "pages", "link.md")))
			write(t, filepath.Join(study, "study.toml"), strings.Replace(baseManifest, `"pages/notes.md"`, `"pages/link.md"`, 1))
			return build(study)
		}, `study.toml:5: page "pages/link.md": pages/link.md: outside the study directory`),
		bad("pages", "{{value … %q}}", withPage("# N\n\nx\n{{value lb tables.lb[method=A].mean_rank %q}}\n"),
			`pages/notes.md:4: {{value lb tables.lb[method=A].mean_rank %q}}: format "%q": want one of %.Nf, %.Ne, %.Ng, %.N%, %d or %s`),
		bad("pages", "{{bogus x}}", withPage("# N\n\n{{bogus x}}\n"), `pages/notes.md:3: {{bogus x}}: unknown directive "bogus" (known: figure, table, ref, value; write \{{ for literal braces)`),
		bad("pages", "an unterminated {{value", withPage("# N\n\n{{value lb tables.lb[method=A].mean_rank\n"), `pages/notes.md:3: unterminated directive "{{value …"`),
		bad("pages", "a value of an unknown analysis", withPage("# N\n\n{{value nope x}}\n"), `pages/notes.md:3: {{value nope x}}: no analysis "nope"`),
		bad("pages", "a value path that is not there", withPage("# N\n\n{{value lb tables.lb[method=Z].mean_rank}}\n"), `pages/notes.md:3: {{value lb tables.lb[method=Z].mean_rank}}: lb.tables.lb has no row with method = "Z"`),
		bad("pages", "a number format on a text value", withPage("# N\n\n{{value lb tables.lb[method=A].method %.2f}}\n"), `pages/notes.md:3: {{value lb tables.lb[method=A].method %.2f}}: format "%.2f" needs a number, but the value is the text "A" (use %s or no format)`),
		bad("pages", "a figure that does not exist", withPage("# N\n\n{{figure nope}}\n"), `pages/notes.md:3: {{figure nope}}: unknown figure "nope"`),
		bad("pages", "a broken {{ref}}", withPage("# N\n\nsee {{ref nope}}\n"), `pages/notes.md:3: {{ref nope}}: unknown figure or table "nope"`),
		bad("pages", "a terminal escape in a directive", withPage("# N\n\n{{bogus\x1b[31m x}}\n"), `pages/notes.md:3: "{{bogus\x1b[31m x}}": unknown directive "bogus\x1b[31m"`),
		bad("pages", "invalid UTF-8 in a page", withPage("# N\n\n\xff\xfe\n"), `study.toml:5: page "pages/notes.md": pages/notes.md:3: invalid UTF-8 (byte 0xFF); pages and the bibliography must be UTF-8`),
		bad("pages", "a terminal escape in a value path", withPage("# N\n\n{{value lb tables.lb[method=\x1b[31m].mean_rank}}\n"), `pages/notes.md:3: "{{value lb tables.lb[method=\x1b[31m].mean_rank}}": lb.tables.lb has no row with method = "\x1b[31m"`),
		ok("pages", "directives in code are left alone (accepted)", withPage("# N\n\n`{{bogus x}}`\n\n```\n{{value nope %q}}\n```\n"), nil),
		ok("pages", "raw HTML is dropped (accepted)", withPage("# N\n\n<script>alert(1)</script>\n"), func(t *testing.T, root, study string, r cliResult) {
			b, err := os.ReadFile(filepath.Join(study, "site", "notes.html"))
			mustDo(t, err)
			if strings.Contains(string(b), "alert(1)") {
				t.Error("raw HTML reached the page")
			}
		}),
	)

	// ---- bibliography ----------------------------------------------------------
	add(
		bad("bibliography", "unbalanced braces", withBib("@article{knuth1984,\n  title = {Literate {Programming},\n  year = {1984}\n}\n"), `refs.bib:1: unbalanced braces`),
		bad("bibliography", "a key defined twice", withBib(baseBib+baseBib), `refs.bib:7: key "knuth1984" is defined twice`),
		bad("bibliography", "an empty key", withBib("@article{,\n  title = {X},\n  year = {1984}\n}\n"), "refs.bib:1: @article entry without a key"),
		bad("bibliography", "a key with a terminal escape", withBib("@article{k\x1b[31m,\n  title = {X}\n}\n"), `refs.bib:1: key "k\x1b[31m": a citation key is letters, digits and :-_./+ only`),
		bad("bibliography", "a missing file", withManifest(strings.Replace(baseManifest, `"refs.bib"`, `"none.bib"`, 1)), `study.toml:2: bibliography "none.bib": none.bib: no such file`),
		bad("bibliography", "outside the study", withManifest(strings.Replace(baseManifest, `"refs.bib"`, `"../notes.txt"`, 1)), `study.toml:2: bibliography "../notes.txt": ../notes.txt: outside the study directory`),
		bad("bibliography", "a directory", withManifest(strings.Replace(baseManifest, `"refs.bib"`, `"pages"`, 1)), `study.toml:2: bibliography "pages": pages: a directory, not a file; evalbook reads only regular files`),
		bad("bibliography", "in Latin-1", withBib(strings.Replace(baseBib, "Knuth", "Kn\xfcth", 1)), `study.toml:2: bibliography "refs.bib": refs.bib:2: invalid UTF-8 (byte 0xFC); pages and the bibliography must be UTF-8`),
		bad("bibliography", "an unknown citation key", withPage("# N\n\nSee [@knuth1948].\n"), `pages/notes.md:3: [@knuth1948]: no bibliography entry "knuth1948" (did you mean "knuth1984"?)`),
		bad("bibliography", "a citation without a bibliography", withManifest(strings.Replace(baseManifest, "bibliography = \"refs.bib\"\n", "", 1)), "a citation, but the manifest has no bibliography"),
	)

	// ---- validate writes nothing; markup in names stays text -----------------
	add(
		hostileRow{cat: "output", name: "validate a good study writes nothing (accepted)", out: "-", wantMsg: "study: ok (1 analysis, 1 page)",
			setup: func(t testing.TB, root, study string) []string { return []string{"validate", study} }},
		hostileRow{cat: "output", name: "validate reports a bad value as build does", wantCode: 1, wantMsg: `data/results.csv:2:8: not a number: "abc"`,
			setup: func(t testing.TB, root, study string) []string {
				write(t, filepath.Join(study, "data", "results.csv"), hdr+"d1,A,m,abc\n")
				return []string{"validate", study}
			}},
		hostileRow{cat: "manifest", name: "markup in the title stays text (accepted)", wantMsg: "built 1 analysis",
			setup: withManifest(strings.Replace(baseManifest, `title = "Hostile"`, `title = "<script>alert(1)</script>"`, 1)),
			check: func(t *testing.T, root, study string, r cliResult) {
				noRawMarkup(t, filepath.Join(study, "site"), "<script>alert(1)")
			}},
		hostileRow{cat: "data", name: "markup in a method name stays text (accepted)", wantMsg: "built 1 analysis",
			setup: withResults(strings.ReplaceAll(baseResults, ",B,", ",<img src=x onerror=alert(1)>,")),
			check: func(t *testing.T, root, study string, r cliResult) {
				noRawMarkup(t, filepath.Join(study, "site"), "<img src=x")
			}},
		bad("data", "CR-only line endings", withResults(strings.ReplaceAll(baseResults, "\n", "\r")), `data/results.csv:1:23: header cell "value\rd1" holds a control character (U+000D)`),
		bad("data", "a UTF-16 file", withResults("\xff\xfe"+strings.Join(strings.Split(hdr, ""), "\x00")), `data/results.csv:1:1: header cell "\xff\xfed\x00a\x00t\x00a\x00s\x00e\x00t\x00" holds invalid UTF-8 (byte 0xFF)`),
		bad("manifest", "the manifest through a symbolic link to /dev/zero", func(t testing.TB, root, study string) []string {
			mustDo(t, os.Symlink("/dev/zero", filepath.Join(root, "zero.toml")))
			return build(filepath.Join(root, "zero.toml"))
		}, "read manifest: {root}/zero.toml: not a regular file (a character device)"),
		bad("paths", "allow_outside: truth = ../../etc/passwd quotes none of it", studyFiles(map[string]string{
			"study.toml": "title = \"Offline\"\nallow_outside = true\n[[analyses]]\nid = \"om\"\ntype = \"offline_metrics\"\nruns = \"runs/{method}.csv\"\ntruth = \"../../../../../../../../../../etc/passwd\"\n",
			"runs/A.csv": "user,item,rank\nu1,a,1\n",
		}), "analyses/om: passwd:1: 1 fields, a TREC qrels line has 4: qid iter docno rel"),
	)

	// ---- the disk cache never serves another file's numbers -------------------
	add(
		hostileRow{cat: "cache", name: "a copy of the study with other data gets its own numbers", wantMsg: "built 1 analysis",
			setup: func(t testing.TB, root, study string) []string {
				copyTree(t, study, filepath.Join(root, "copy"))
				write(t, filepath.Join(root, "copy", "data", "results.csv"), hdr+"d1,A,m,10\nd1,B,m,2\nd2,A,m,30\nd2,B,m,1\n")
				if code, _, stderr := runCLI("build", filepath.Join(root, "copy"), "--quiet"); code != 0 {
					t.Fatalf("build of the copy: %s", stderr)
				}
				return build(study)
			},
			check: func(t *testing.T, root, study string, r cliResult) {
				if got := tableValue(t, filepath.Join(study, "site"), "lb", "A", "mean"); got != 2 {
					t.Errorf("mean of A = %v, want 2 (20 is the copy's)", got)
				}
			}},
		hostileRow{cat: "cache", name: "an edit that keeps size and modification time is seen", wantMsg: "built 1 analysis",
			setup: func(t testing.TB, root, study string) []string {
				if code, _, stderr := runCLI("build", study, "--quiet"); code != 0 { // fills the cache
					t.Fatalf("first build: %s", stderr)
				}
				p := filepath.Join(study, "data", "results.csv")
				st, err := os.Stat(p)
				mustDo(t, err)
				write(t, p, strings.Replace(baseResults, "d2,A,m,3", "d2,A,m,5", 1)) // same size
				mustDo(t, os.Chtimes(p, st.ModTime(), st.ModTime()))
				return build(study)
			},
			check: func(t *testing.T, root, study string, r cliResult) {
				if got := tableValue(t, filepath.Join(study, "site"), "lb", "A", "mean"); got != 3 {
					t.Errorf("mean of A = %v, want 3 after the edit", got)
				}
			}},
	)

	// ---- concurrent and interrupted builds -------------------------------------
	add(
		hostileRow{cat: "concurrency", name: "concurrent builds into one site", wantMsg: "",
			runner: func(t *testing.T, root, study string, args []string) (int, string, string) {
				for round := 0; round < 3; round++ {
					var wg sync.WaitGroup
					codes := make([]int, 4)
					errs := make([]string, 4)
					for i := range codes {
						wg.Add(1)
						go func(i int) {
							defer wg.Done()
							var done bool
							codes[i], _, errs[i], done = runCLITimed(60*time.Second, "build", study, "--quiet")
							if !done {
								codes[i], errs[i] = -1, "a concurrent build did not return within 60 s"
							}
						}(i)
					}
					wg.Wait()
					for i, c := range codes {
						if c != 0 {
							return c, "", errs[i]
						}
					}
				}
				return 0, "", ""
			},
			check: func(t *testing.T, root, study string, r cliResult) {
				builtSite(t, filepath.Join(study, "site"))
				entries, _ := os.ReadDir(study)
				for _, e := range entries {
					if strings.Contains(e.Name(), ".old-") || strings.Contains(e.Name(), ".new-") {
						t.Errorf("a leftover %s", e.Name())
					}
				}
			}},
		hostileRow{cat: "concurrency", name: "a leftover site.old-* with no site/ is restored and replaced", wantMsg: "built 1 analysis",
			touches: []string{"study/site.old-123"},
			setup: func(t testing.TB, root, study string) []string {
				// as a build killed between its two renames leaves it: it
				// named the site retired before moving it aside
				write(t, filepath.Join(study, "site", ".evalbook-retired"), "site.old-123\n")
				mustDo(t, os.Rename(filepath.Join(study, "site"), filepath.Join(study, "site.old-123")))
				return build(study)
			},
			check: func(t *testing.T, root, study string, r cliResult) {
				builtSite(t, filepath.Join(study, "site"))
				if _, err := os.Stat(filepath.Join(study, "site.old-123")); err == nil {
					t.Error("the leftover site.old-123 is still there")
				}
			}},
		hostileRow{cat: "concurrency", name: "a user's own marked copy site.old-2023 is never touched", wantMsg: "built 1 analysis",
			touches: []string{"study/site.old-2023"},
			setup: func(t testing.TB, root, study string) []string {
				mustDo(t, os.Rename(filepath.Join(study, "site"), filepath.Join(study, "site.old-2023")))
				write(t, filepath.Join(study, "site.old-2023", "notes.txt"), "my review notes\n")
				return build(study)
			},
			check: func(t *testing.T, root, study string, r cliResult) {
				builtSite(t, filepath.Join(study, "site"))
				if b, err := os.ReadFile(filepath.Join(study, "site.old-2023", "notes.txt")); err != nil || string(b) != "my review notes\n" {
					t.Errorf("the user's site.old-2023/notes.txt: %q %v", b, err)
				}
			}},
		hostileRow{cat: "concurrency", name: "a leftover .site.new-* is removed", wantMsg: "built 1 analysis",
			touches: []string{"study/.site.new-456"},
			setup: func(t testing.TB, root, study string) []string {
				write(t, filepath.Join(study, ".site.new-456", ".evalbook-site"), "evalbook site\n")
				write(t, filepath.Join(study, ".site.new-456", "index.html"), "<p>half</p>")
				return build(study)
			},
			check: func(t *testing.T, root, study string, r cliResult) {
				if _, err := os.Stat(filepath.Join(study, ".site.new-456")); err == nil {
					t.Error("the leftover .site.new-456 is still there")
				}
			}},
		hostileRow{cat: "concurrency", name: "an unmarked site.old-* is left alone", wantMsg: "built 1 analysis",
			setup: func(t testing.TB, root, study string) []string {
				write(t, filepath.Join(study, "site.old-789", "thesis.tex"), "mine\n")
				return build(study)
			}},
		hostileRow{cat: "concurrency", name: "an unmarked .site.new-* is left alone", wantMsg: "built 1 analysis",
			setup: func(t testing.TB, root, study string) []string {
				write(t, filepath.Join(study, ".site.new-789", "thesis.tex"), "mine\n")
				return build(study)
			}},
		hostileRow{cat: "concurrency", name: "a failed build next to a good one leaves a whole site", wantMsg: "",
			runner: func(t *testing.T, root, study string, args []string) (int, string, string) {
				other := filepath.Join(root, "broken")
				write(t, filepath.Join(other, "study.toml"), baseManifest)
				write(t, filepath.Join(other, "data", "results.csv"), hdr+"d1,A,m,NaN\n")
				var wg sync.WaitGroup
				var badCode, goodCode int
				var goodErr string
				wg.Add(2)
				var badDone, goodDone bool
				go func() {
					defer wg.Done()
					badCode, _, _, badDone = runCLITimed(60*time.Second, "build", other, "-o", filepath.Join(study, "site"))
				}()
				go func() {
					defer wg.Done()
					goodCode, _, goodErr, goodDone = runCLITimed(60*time.Second, "build", study)
				}()
				wg.Wait()
				if !badDone || !goodDone {
					return -1, "", "a build did not return within 60 s"
				}
				if badCode != 1 {
					return badCode, "", "the broken build exited " + fmt.Sprint(badCode)
				}
				return goodCode, "", goodErr
			},
			touches: []string{"broken"},
			check: func(t *testing.T, root, study string, r cliResult) {
				builtSite(t, filepath.Join(study, "site"))
			}},
	)

	// ---- serve ----------------------------------------------------------------
	serveRow := func(name string, probe func(t *testing.T, base string)) hostileRow {
		return hostileRow{cat: "serve", name: name, wantCode: 0, wantMsg: "evalbook: serving http://127.0.0.1:",
			setup: func(t testing.TB, root, study string) []string {
				return []string{"serve", study, "--addr", "127.0.0.1:0"}
			},
			runner: func(t *testing.T, root, study string, args []string) (int, string, string) {
				return serveSubprocess(t, args, func(base string) { probe(t, base) })
			}}
	}
	request := func(t *testing.T, method, url, host string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, url, nil)
		mustDo(t, err)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		mustDo(t, err)
		resp.Body.Close()
		return resp
	}
	add(
		serveRow("a POST gets 405", func(t *testing.T, base string) {
			if resp := request(t, http.MethodPost, base+"/index.html", ""); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("POST: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
			}
		}),
		serveRow("a DELETE gets 405", func(t *testing.T, base string) {
			if resp := request(t, http.MethodDelete, base+"/index.html", ""); resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("DELETE: %d", resp.StatusCode)
			}
		}),
		serveRow("Host: evil.example gets 421", func(t *testing.T, base string) {
			if resp := request(t, http.MethodGet, base+"/index.html", "evil.example"); resp.StatusCode != http.StatusMisdirectedRequest {
				t.Errorf("Host evil.example: %d", resp.StatusCode)
			}
		}),
		serveRow("Host: localhost is served", func(t *testing.T, base string) {
			if resp := request(t, http.MethodHead, base+"/index.html", "localhost:1"); resp.StatusCode != http.StatusOK {
				t.Errorf("HEAD with Host localhost: %d", resp.StatusCode)
			}
		}),
		serveRow("a path out of the site is refused", func(t *testing.T, base string) {
			for _, p := range []string{"/../study.toml", "/%2e%2e/study.toml", "/..%2fstudy.toml", "/data/..%2f..%2fstudy.toml"} {
				req, err := http.NewRequest(http.MethodGet, base+"/index.html", nil)
				mustDo(t, err)
				req.URL.Opaque = p // sent as it is, not cleaned by the client
				resp, err := http.DefaultClient.Do(req)
				mustDo(t, err)
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK || strings.Contains(string(body), `title = "Hostile"`) {
					t.Errorf("GET %s: %d, %q", p, resp.StatusCode, body)
				}
			}
		}),
		hostileRow{cat: "serve", name: "a second serve on the port of a running one exits 1", wantCode: 1,
			wantMsg: "address already in use (is another server using that address? choose another with --addr); nothing was built",
			setup: func(t testing.TB, root, study string) []string {
				return []string{"serve", study, "--addr", "127.0.0.1:0"}
			},
			runner: func(t *testing.T, root, study string, args []string) (int, string, string) {
				var second cliResult
				code, _, stderr := serveSubprocess(t, args, func(base string) {
					before := snapshot(t, root)
					second.code, second.stdout, second.stderr = runCLIWithin(t, 60*time.Second, "serve", study, "--addr", strings.TrimPrefix(base, "http://"))
					if d := diffSnapshots(before, snapshot(t, root)); len(d) > 0 {
						t.Errorf("the second serve changed files: %v", d)
					}
				})
				if code != 0 {
					t.Errorf("the first serve exited %d: %s", code, stderr)
				}
				return second.code, second.stdout, second.stderr
			}},
		hostileRow{cat: "serve", name: "serve on a port another program holds exits 1", wantCode: 1,
			wantMsg: "address already in use (is another server using that address? choose another with --addr); nothing was built",
			setup: func(t testing.TB, root, study string) []string {
				busy, err := net.Listen("tcp", "127.0.0.1:0")
				mustDo(t, err)
				t.Cleanup(func() { busy.Close() })
				return []string{"serve", study, "--addr", busy.Addr().String()}
			}},
		hostileRow{cat: "serve", name: "serve -o the study directory exits 1", wantCode: 1,
			wantMsg: "refusing to write the site into the study directory {study}",
			setup: func(t testing.TB, root, study string) []string {
				return []string{"serve", study, "--addr", "127.0.0.1:0", "-o", study}
			}},
		hostileRow{cat: "serve", name: "serve of a broken study keeps the previous site", wantCode: 0, wantMsg: "evalbook: serving http://127.0.0.1:",
			setup: func(t testing.TB, root, study string) []string {
				write(t, filepath.Join(study, "data", "results.csv"), hdr+"d1,A,m,NaN\n")
				return []string{"serve", study, "--addr", "127.0.0.1:0"}
			},
			runner: func(t *testing.T, root, study string, args []string) (int, string, string) {
				before := snapshot(t, filepath.Join(study, "site"))
				code, stdout, stderr := serveSubprocess(t, args, func(base string) {
					if resp := request(t, http.MethodGet, base+"/index.html", ""); resp.StatusCode == http.StatusOK {
						t.Errorf("a failed build served: %d", resp.StatusCode)
					}
				})
				if d := diffSnapshots(before, snapshot(t, filepath.Join(study, "site"))); len(d) > 0 {
					t.Errorf("a failed serve build changed the previous site: %v", d)
				}
				if !strings.Contains(stdout, `data/results.csv:2:8: not a number: "NaN"`) {
					t.Errorf("serve did not report the bad value: %q", stdout)
				}
				return code, stdout, stderr
			}},
	)
	// ---- issue 31, the safety group: pack -o, verify bounds, pseudo-files ----
	add(
		bad("output", "pack -o an RO-Crate another tool made (kept)", func(t testing.TB, root, study string) []string {
			writeTestZip(t, filepath.Join(root, "crate.zip"), "ro-crate-metadata.json", otherToolCrate, "thesis.tex", "my thesis\n")
			return []string{"pack", study, "-o", filepath.Join(root, "crate.zip")}
		}, "evalbook: output {root}/crate.zip: exists and is not an archive evalbook packed (its ro-crate-metadata.json does not name evalbook as the software that made it), so pack will not replace it"),
		bad("paths", "results: a link to /proc/kmsg with --allow-outside", func(t testing.TB, root, study string) []string {
			mustDo(t, os.Symlink("/proc/kmsg", filepath.Join(study, "data", "kmsg.csv")))
			write(t, filepath.Join(study, "study.toml"), resultsEntry(`"data/kmsg.csv"`))
			return build(study, "--allow-outside")
		}, "study.toml:4: inputs.results: data/kmsg.csv: on the kernel's proc pseudo-filesystem, not a stored file; evalbook never reads /proc, /sys or other pseudo-filesystems, even with allow_outside"),
		bad("paths", "results = /proc/self/status with allow_outside", withManifest("allow_outside = true\n"+resultsEntry(`"/proc/self/status"`)),
			"study.toml:5: inputs.results: status: on the kernel's proc pseudo-filesystem"),
		hostileRow{cat: "paper", name: "a DOI that would close its BibTeX field", wantMsg: "built 1 analysis",
			setup: func(t testing.TB, root, study string) []string {
				write(t, filepath.Join(study, "study.toml"), "doi = \"10.1/z}, publisher = {Evil\"\n"+strings.Replace(baseManifest, `title = "Hostile"`, `title = "Hostile } title, note = {x"`, 1))
				return build(study, "--format", "latex")
			},
			check: func(t *testing.T, root, study string, r cliResult) {
				citationHasOnlyItsFields(t, filepath.Join(study, "site", "paper", "citation.bib"))
			}},
		hostileRow{cat: "meta", name: "effects 20 standard errors from 0: p published as computed (accepted)", wantMsg: "built 1 analysis and 0 pages",
			setup: summary("dataset,n,mean_diff,sd_diff\na,100,2,1\nb,100,2.2,1\n"),
			check: func(t *testing.T, root, study string, r cliResult) {
				metaPValuesInTail(t, filepath.Join(study, "site"))
			}},
		bad("archive", "verify of a named pipe", func(t testing.TB, root, study string) []string {
			mkfifo(t, filepath.Join(root, "x.zip"))
			return []string{"verify", filepath.Join(root, "x.zip")}
		}, "evalbook: verify {root}/x.zip: {root}/x.zip: a named pipe, not a regular file; verify reads the zip file pack wrote"),
		bad("archive", "verify --inputs holding a named pipe", func(t testing.TB, root, study string) []string {
			z := packedStudy(t, root, study, "--exclude-inputs")
			mkfifo(t, filepath.Join(root, "inputs", "data", "results.csv"))
			return []string{"verify", z, "--inputs", filepath.Join(root, "inputs")}
		}, "evalbook: verify {root}/study.zip: --inputs: {root}/inputs/data/results.csv: a named pipe, not a regular file"),
		bad("archive", "verify of a 64 MiB entry (deflated: 64 KiB) listed with its true hash", func(t testing.TB, root, study string) []string {
			z := packedStudy(t, root, study)
			addZeroEntry(t, z, "site/big.bin", 64<<20)
			return []string{"verify", z}
		}, "evalbook: verify {root}/study.zip: site/big.bin: the archive holds this file, the rebuild does not write it"),
	)

	// ---- issue 31: inputs, outputs, serve and pack (branch inputs) ----
	add(
		bad("compression", "gzip data in a file named .csv", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(study, "data", "results.csv"), gzipBytes(t, baseResults))
			return build(study)
		}, "study.toml:8: analyses/lb: data/results.csv: the file is gzip-compressed but its name does not end in .gz: rename it to results.csv.gz"),
		bad("data", "a header and blank lines only", withResults(hdr+"\n\n"),
			"analyses/lb: data/results.csv:1: no rows after the header"),
		bad("parquet", "an int64 value beyond 2^53 that a float64 cannot hold", func(t testing.TB, root, study string) []string {
			type intResult struct {
				Dataset string `parquet:"dataset"`
				Method  string `parquet:"method"`
				Metric  string `parquet:"metric"`
				Value   int64  `parquet:"value"`
			}
			write(t, filepath.Join(study, "data", "results.parquet"), parquetBytes(t, []intResult{{"d1", "A", "m", 3}, {"d1", "B", "m", 1<<53 + 1}}))
			write(t, filepath.Join(study, "study.toml"), resultsEntry(`"data/results.parquet"`))
			return build(study)
		}, `data/results.parquet: row 2, column "value": the integer 9007199254740993 is beyond ±2^53 and a float64 cannot hold it exactly (it would read as 9007199254740992)`),
		bad("meta", "a dataset whose treatment file is missing", studyFiles(map[string]string{
			"study.toml":      "title = \"Meta\"\n[inputs]\nunits = \"units/{method}_{dataset}.csv\"\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\ntreatment = \"new\"\ncontrol = \"old\"\nmetric = \"m\"\n",
			"units/new_a.csv": "unit,m\nu1,0.5\nu2,0.25\nu3,0.75\n",
			"units/old_a.csv": "unit,m\nu1,0.25\nu2,0.25\nu3,0.5\n",
			"units/old_b.csv": "unit,m\nu1,0.25\nu2,0.5\nu3,0.5\n",
		}), `study.toml:4: analyses/m: dataset "b": method "new" has no per-unit values of m (expected in units/new_b.csv, which is missing or holds none); give them, or leave the dataset out of this analysis with datasets = ["a"]`),
		hostileRow{cat: "concurrency", name: "a failed build restores a site.old-* left by a killed swap", wantCode: 1,
			wantMsg: `data/results.csv:2:8: not a number: "NaN"`,
			touches: []string{"study/site", "study/site.old-123"},
			setup: func(t testing.TB, root, study string) []string {
				write(t, filepath.Join(study, "site", ".evalbook-retired"), "site.old-123\n")
				mustDo(t, os.Rename(filepath.Join(study, "site"), filepath.Join(study, "site.old-123")))
				write(t, filepath.Join(study, "data", "results.csv"), hdr+"d1,A,m,NaN\n")
				return build(study)
			},
			check: func(t *testing.T, root, study string, r cliResult) {
				// the harness compared the site with the one before: it is back
				builtSite(t, filepath.Join(study, "site"))
				if _, err := os.Stat(filepath.Join(study, "site.old-123")); err == nil {
					t.Error("the leftover site.old-123 is still there")
				}
			}},
		bad("output", "-o a mount point", func(t testing.TB, root, study string) []string {
			pub := filepath.Join(root, "pub")
			mustDo(t, os.MkdirAll(pub, 0o755))
			if os.Geteuid() != 0 {
				t.Skip("needs root to mount")
			}
			if err := syscall.Mount("tmpfs", pub, "tmpfs", 0, "size=1m"); err != nil {
				t.Skip("cannot mount here:", err)
			}
			t.Cleanup(func() { syscall.Unmount(pub, syscall.MNT_DETACH) })
			return build(study, "-o", pub)
		}, "output {root}/pub: {root}/pub is a mount point: a build replaces its output directory by renaming it, which a mount point does not allow; build into a directory inside it (-o {root}/pub/site)"),
		bad("output", "-o the site of another study", func(t testing.TB, root, study string) []string {
			other := filepath.Join(root, "other-study")
			for name, body := range baseStudyFiles {
				write(t, filepath.Join(other, name), body)
			}
			write(t, filepath.Join(other, "study.toml"), strings.Replace(baseManifest, `title = "Hostile"`, `title = "Another"`, 1))
			return build(other, "-o", filepath.Join(study, "site"))
		}, `refusing to replace {study}/site: it is the site of another study, "Hostile" (study.toml), and this build is of "Another" (study.toml); choose another -o, or pass --force`),
		hostileRow{cat: "output", name: "-o the site of another study with --force (accepted)", wantCode: 0, wantMsg: "built 1 analysis and 1 page",
			setup: func(t testing.TB, root, study string) []string {
				other := filepath.Join(root, "other-study")
				for name, body := range baseStudyFiles {
					write(t, filepath.Join(other, name), body)
				}
				write(t, filepath.Join(other, "study.toml"), strings.Replace(baseManifest, `title = "Hostile"`, `title = "Another"`, 1))
				return build(other, "-o", filepath.Join(study, "site"), "--force")
			},
			check: func(t *testing.T, root, study string, r cliResult) {
				b, err := os.ReadFile(filepath.Join(study, "site", ".evalbook-site"))
				if err != nil || !strings.Contains(string(b), "study: Another\n") {
					t.Errorf("the marker: %q, %v", b, err)
				}
			}},
		hostileRow{cat: "serve", name: "after a failed rebuild serve withholds the data files", wantCode: 0, wantMsg: "evalbook: serving http://127.0.0.1:",
			touches: []string{"study/data/results.csv"},
			setup: func(t testing.TB, root, study string) []string {
				return []string{"serve", study, "--addr", "127.0.0.1:0"}
			},
			runner: func(t *testing.T, root, study string, args []string) (int, string, string) {
				return serveSubprocess(t, args, func(base string) {
					get := func(url string) (int, string) {
						resp, err := http.Get(url)
						mustDo(t, err)
						defer resp.Body.Close()
						body, _ := io.ReadAll(resp.Body)
						return resp.StatusCode, string(body)
					}
					if code, _ := get(base + "/data/lb.csv"); code != http.StatusOK {
						t.Fatalf("data/lb.csv of a good build: %d", code)
					}
					write(t, filepath.Join(study, "data", "results.csv"), hdr+"d1,A,m,NaN\n")
					deadline := time.Now().Add(60 * time.Second)
					for {
						code, body := get(base + "/data/lb.csv")
						if code == http.StatusServiceUnavailable {
							if !strings.Contains(body, `data/results.csv:2:8: not a number: "NaN"`) {
								t.Errorf("the 503 does not carry the error: %q", body)
							}
							break
						}
						if time.Now().After(deadline) {
							t.Fatalf("data/lb.csv still answers %d after the failed rebuild", code)
						}
						time.Sleep(50 * time.Millisecond)
					}
					if code, body := get(base + "/lb.html"); code != http.StatusOK || !strings.Contains(body, "build failed (this page is the last good build") {
						t.Errorf("lb.html after the failed rebuild: %d, no banner", code)
					}
				})
			}},
		hostileRow{cat: "paths", name: "pack --include a file outside the study", wantCode: 1,
			wantMsg: "--include ../secret.csv: not a path inside the study directory",
			setup: func(t testing.TB, root, study string) []string {
				withCrateMetadata(t, study)
				return []string{"pack", study, "--include", "../secret.csv"}
			}},
		hostileRow{cat: "paths", name: "pack --include a link out of the study", wantCode: 1,
			wantMsg: "--include scripts/*: scripts/secret.py: outside the study directory",
			setup: func(t testing.TB, root, study string) []string {
				mustDo(t, os.MkdirAll(filepath.Join(study, "scripts"), 0o755))
				mustDo(t, os.Symlink(filepath.Join(root, "secret.csv"), filepath.Join(study, "scripts", "secret.py")))
				withCrateMetadata(t, study)
				return []string{"pack", study, "--include", "scripts/*"}
			}},
		hostileRow{cat: "parquet", name: "a float32 column reads as its shortest decimal (accepted)", wantCode: 0, wantMsg: "built 1 analysis and 1 page",
			setup: func(t testing.TB, root, study string) []string {
				type f32Result struct {
					Dataset string  `parquet:"dataset"`
					Method  string  `parquet:"method"`
					Metric  string  `parquet:"metric"`
					Value   float32 `parquet:"value"`
				}
				write(t, filepath.Join(study, "data", "results.parquet"), parquetBytes(t, []f32Result{{"d1", "A", "m", 0.1}, {"d1", "B", "m", 0.7}}))
				write(t, filepath.Join(study, "study.toml"), resultsEntry(`"data/results.parquet"`))
				return build(study)
			},
			check: func(t *testing.T, root, study string, r cliResult) {
				// 0.1f is 0.100000001490116 as bits; as written it is 0.1
				if v := tableValue(t, filepath.Join(study, "site"), "lb", "A", "mean"); v != 0.1 {
					t.Errorf("the mean of A is %v, want 0.1", v)
				}
			}},
	)

	// ---- checks of issue 31: slips that passed silently ---------------------
	add(
		usage("-o \"\" (an empty output path)", `-o: the path is empty (an unset variable?); name the output, or leave -o out for the default`, "build", "-o", ""),
		usage("pack -o \"\"", `-o: the path is empty`, "pack", "-o", ""),
		bad("manifest", "an analysis id the page took", withAnalysis("[[analyses]]\nid = \"notes\"\ntype = \"aggregate\"\nmetric = \"m\"\n"),
			`study.toml:13: analyses[1].id: "notes" is already used by a page or another analysis (first at line 5)`),
		bad("manifest", "compare.permutations = 0", withAnalysis("[[analyses]]\nid = \"o\"\ntype = \"offline_metrics\"\nruns = \"r/{method}_{dataset}.csv\"\ntruth = \"t/{dataset}.csv\"\ncompare = { permutations = 0 }\n"),
			`study.toml:17: analyses (o): compare.permutations: 0 permutations test nothing; give at least 100, or leave the key out for 10,000`),
		hostileRow{cat: "meta", name: "a fixed-effect model with Knapp–Hartung warns as metafor", wantCode: 0, wantMsg: "built 2 analyses",
			setup: studyFiles(map[string]string{
				"study.toml":     strings.Replace(baseManifest, "[inputs]\n", "[inputs]\nunits = \"data/units.csv\"\n", 1) + "[[analyses]]\nid = \"meta\"\ntype = \"meta_analysis\"\nmetric = \"m\"\ntreatment = \"A\"\ncontrol = \"B\"\nmodel = \"fixed\"\ntest = \"knha\"\n",
				"data/units.csv": "dataset,method,unit,metric,value\nd1,A,u1,m,0.5\nd1,A,u2,m,0.6\nd1,A,u3,m,0.2\nd1,B,u1,m,0.4\nd1,B,u2,m,0.45\nd1,B,u3,m,0.25\nd2,A,u1,m,0.3\nd2,A,u2,m,0.7\nd2,A,u3,m,0.1\nd2,B,u1,m,0.4\nd2,B,u2,m,0.45\nd2,B,u3,m,0.05\n",
			}),
			check: func(t *testing.T, root, study string, r cliResult) {
				b, err := os.ReadFile(filepath.Join(study, "site", "meta.html"))
				mustDo(t, err)
				if !strings.Contains(string(b), "Knapp &amp; Hartung method is not meant to be used in the context of FE models") {
					t.Error("meta.html lacks metafor's warning about Knapp–Hartung with a fixed-effect model")
				}
			}},
		bad("manifest", "a baseline that names no method of the results", withAnalysis("[[methods]]\nname = \"Chance\"\nbaseline = true\n"),
			`study.toml:8: analyses/lb: methods[0] (study.toml:13): no method "Chance" in the results; valid: "A", "B"; its baseline = true would apply to nothing`),
		bad("manifest", "a [[datasets]] name that misspells one of the results", withAnalysis("[[datasets]]\nname = \"D1\"\ndomain = \"movies\"\n"),
			`study.toml:8: analyses/lb: datasets[0] (study.toml:13): no dataset "D1" in the results (did you mean "d1"?); its label and attributes would apply to nothing`),
		bad("data", "a value above the metric's declared max", withAnalysis("[[metrics]]\nname = \"m\"\nmax = 2.5\n"),
			`data/results.csv:4:8: m of A on d2 is 3, above the declared max = 2.5 of metric "m" ([[metrics]] at study.toml:14); the data or the bound is wrong`),
		bad("meta", "a summary without the metric's direction", studyFiles(map[string]string{
			"study.toml":  "title = \"Meta\"\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\ntreatment = \"new\"\ncontrol = \"old\"\nsummary = \"summary.csv\"\n",
			"summary.csv": "dataset,yi,vi\na,-1.5,0.2\nb,-0.5,0.1\n",
		}), `study.toml:2: analyses/m: a summary's metric needs its direction, which sets the forest plot's "favours" sides: add better = "higher" or "lower" to this analysis`),
		bad("data", "critical_difference with a missing value", studyFiles(map[string]string{
			"study.toml":       "title = \"Hostile\"\n[inputs]\nresults = \"data/results.csv\"\n[[analyses]]\nid = \"cd\"\ntype = \"critical_difference\"\nmetric = \"m\"\n",
			"data/results.csv": baseResults + "d3,A,m,2\nd4,A,m,1\nd4,B,m,3\n",
		}), `study.toml:4: analyses/cd: metric "m": no value for dataset "d3", method "B"`),
		bad("data", "paired_tests with a missing value", studyFiles(map[string]string{
			"study.toml":       "title = \"Hostile\"\n[inputs]\nresults = \"data/results.csv\"\n[[analyses]]\nid = \"pt\"\ntype = \"paired_tests\"\nmetric = \"m\"\n",
			"data/results.csv": baseResults + "d3,A,m,2\nd4,A,m,1\nd4,B,m,3\n",
		}), `study.toml:4: analyses/pt: metric "m": no value of method "B" for "d3" (one of the datasets)`),
		bad("data", "unequal run counts per method", withResults("dataset,method,metric,run,value\nd1,A,m,1,1\nd1,A,m,2,1.2\nd1,A,m,3,0.9\nd1,B,m,1,2\nd2,A,m,1,3\nd2,B,m,1,1\n"),
			`study.toml:4: inputs.results: m of A on d1 averages 3 runs (first at data/results.csv:2), B only 1 (first at data/results.csv:5): means over unequal runs are not comparable; give every method the same runs, or declare unequal_runs = true on the input entry to average them anyway`),
		ok("data", "unequal run counts with unequal_runs = true (accepted)", studyFiles(map[string]string{
			"study.toml":       resultsEntry(`{ path = "data/results.csv", unequal_runs = true }`),
			"data/results.csv": "dataset,method,metric,run,value\nd1,A,m,1,1\nd1,A,m,2,1.2\nd1,A,m,3,0.9\nd1,B,m,1,2\nd2,A,m,1,3\nd2,B,m,1,1\n",
		}), nil),
		bad("data", "a method name that a spreadsheet runs as a formula", withResults(hdr+"d1,=HYPERLINK(1),m,1\n"),
			`data/results.csv:2:4: method name "=HYPERLINK(1)" holds a leading "=", which a spreadsheet opening the site's CSV tables reads as a formula; rename it`),
		bad("data", "a dataset name starting with - and a letter", withResults(hdr+"-d1,A,m,1\n"),
			`data/results.csv:2:1: dataset name "-d1" holds a leading "-" before a non-digit`),
		hostileRow{cat: "data", name: "interaction log: a pair rated twice differently is noted", wantCode: 0, wantMsg: "built 2 analyses",
			setup: studyFiles(map[string]string{
				"study.toml":  baseManifest + "[[datasets]]\nname = \"d1\"\ninteractions = \"logs/d1.csv\"\n[[analyses]]\nid = \"ch\"\ntype = \"characteristics\"\nfrom = \"logs\"\nrating_threshold = 3\n",
				"logs/d1.csv": "user,item,rating\n1,2,4\n1,3,5\n2,2,4\n2,3,4\n1,2,2\n",
			}),
			check: func(t *testing.T, root, study string, r cliResult) {
				b, err := os.ReadFile(filepath.Join(study, "site", "ch.html"))
				mustDo(t, err)
				if !strings.Contains(string(b), "dataset d1: 1 rows give a (user, item) pair another rating than the pair&#39;s row before; each pair keeps its last row&#39;s rating, which decides the rating threshold (3)") {
					t.Error("ch.html does not say which rating of the pair rated twice was kept")
				}
			}},
		bad("pack", "pack without a license says so before the build", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(study, "data", "results.csv"), hdr+"d1,A,m,NaN\n")
			return []string{"pack", study}
		}, `study.toml: pack needs abstract, date, license in the manifest`),
	)

	// Copeland and Minimax compare every pair of methods: past 10⁸
	// comparisons, naming them is an error at the rules line (that the
	// default rules leave them out with a warning is
	// TestMajorityRulesBounded's).
	var wide strings.Builder
	wide.WriteString(hdr)
	for m := 0; m < 8200; m++ { // 3 · 8200 · 8199 / 2 > 10⁸
		fmt.Fprintf(&wide, "d1,m%d,m,%d\nd2,m%d,m,%d\nd3,m%d,m,%d\n", m, m, m, (m*7919)%8200, m, (m*104729)%8200)
	}
	add(
		bad("data", "copeland over 8 200 methods", studyFiles(map[string]string{
			"data/results.csv": wide.String(),
			"study.toml":       baseManifest + "rules = [\"mean_rank\", \"copeland\"]\n",
		}), `study.toml:12: analyses/lb: rules: copeland: they compare every pair of methods on every dataset, and 8200 methods on 3 datasets are 1.01e+08 comparisons, more than the limit of 1e+08`),
	)
	// A stability analysis scores thousands of matrices: past 3·10⁹
	// comparisons of two methods over all of them, a rules list that
	// names a rule whose work grows with the square of the methods is an
	// error at its line, before any work (the default rules leaving them
	// out is TestStabilityPairwiseBound's).
	var wideStab strings.Builder
	wideStab.WriteString(hdr)
	for m := 0; m < 1000; m++ {
		for d := 1; d <= 10; d++ {
			fmt.Fprintf(&wideStab, "d%d,m%d,m,%d\n", d, m, (m*7919+d*104729)%1000)
		}
	}
	add(
		bad("data", "stability dm_lbo over 1 000 methods", studyFiles(map[string]string{
			"data/results.csv": wideStab.String(),
			"study.toml":       strings.Replace(baseManifest, `type = "aggregate"`, `type = "stability"`, 1) + "repeats = 10\nrules = [\"mean\", \"dm_lbo\"]\n",
		}), `study.toml:13: analyses/lb: rules: dm_lbo: its work grows with the square of the methods, and 2268 perturbed matrices of 10 datasets × 1000 methods are 1.13e+10 comparisons of two methods on a dataset, more than the limit of 3e+09`),
	)
	// Issue 31, nothing unbounded: sizes and nesting past their limits
	// end in an error at the file and line where the limit is passed.
	nested := ""
	for i := 0; i < 20; i++ {
		nested += strings.Repeat("    ", i) + "- a\n"
	}
	manyMethods := func(n int) string {
		var b strings.Builder
		b.WriteString(hdr)
		for m := 0; m < n; m++ {
			fmt.Fprintf(&b, "d1,M%d,m,%d\n", m, m)
		}
		return b.String()
	}
	manyKeys := func(n int) string {
		var b strings.Builder
		b.WriteString("[x]\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "k%d=1\n", i)
		}
		return b.String()
	}
	unknownKeys := "title = \"Hostile\"\n"
	for i := 0; i < 50; i++ {
		unknownKeys += fmt.Sprintf("k%02d = 1\n", i)
	}
	wideResults := func(nd, nm int) string {
		var b strings.Builder
		b.WriteString(hdr)
		for d := 0; d < nd; d++ {
			for m := 0; m < nm; m++ {
				fmt.Fprintf(&b, "d%d,M%d,m,%d\n", d, m, (m*7+d*3)%101)
			}
		}
		return b.String()
	}
	rows = append(rows,
		// The base manifest holds 11 keys and tables, [x] is the 12th
		// (line 12), key k_i the (13 + i)th: the 100 001st is on line
		// 13 + 99 988.
		bad("bounds", "manifest of 100 000 keys in one table", withAnalysis(manyKeys(100000)),
			fmt.Sprintf("study.toml:%d: more than 100000 keys, tables and arrays (the limit", 13+99988)),
		bad("bounds", "manifest of 50 unknown top-level keys", withManifest(unknownKeys),
			"study.toml:12: 40 more unknown keys at the top level (the first 10 are listed)"),
		// Past 50 methods the perturbed matrices stop growing with the
		// methods, but the cells to score still grow with them: 10 000
		// methods at the default repeats are past the limit.
		bad("bounds", "stability over 10 000 methods", func(t testing.TB, root, study string) []string {
			write(t, filepath.Join(study, "study.toml"), baseManifest+"[[analyses]]\nid = \"st\"\ntype = \"stability\"\nmetric = \"m\"\n")
			write(t, filepath.Join(study, "data", "results.csv"), wideResults(10, 10000))
			return build(study)
		}, "stability on 10 datasets and 10000 methods with repeats = 100 needs 7468 perturbed matrices of up to 10 × 10000, 7.5e+08 cells to score, above the limit of 5e+08"),
		bad("bounds", "manifest of inline tables 16000 deep", withAnalysis("x = "+strings.Repeat("{a=", 16000)+"1"+strings.Repeat("}", 16000)+"\n"),
			"study.toml:12: tables, arrays and dotted keys nested deeper than 16 levels (the limit)"),
		bad("bounds", "page of lists nested 20 deep", withPage(nested),
			"pages/notes.md:17: blockquotes, lists and indentation nested 17 deep, above the limit of 16"),
		bad("bounds", "page of 300 MB", func(t testing.TB, root, study string) []string {
			f, err := os.OpenFile(filepath.Join(study, "pages", "notes.md"), os.O_WRONLY, 0)
			mustDo(t, err)
			mustDo(t, f.Truncate(300<<20))
			mustDo(t, f.Close())
			return build(study)
		}, `page "pages/notes.md": pages/notes.md: 314572800 bytes, above the limit of 1048576`),
		bad("bounds", "aggregate over 10001 methods", withResults(manyMethods(10001)),
			"study.toml:8: analyses/lb: methods: 10001 methods, above the limit of 10000 for one analysis; list the ones to compare in `methods = [...]`"),
		bad("bounds", "results of 100001 methods", withResults(manyMethods(100001)),
			`data/results.csv:100002:14: method "M100000" would be method number 100001 of the results, above the limit of 100000 methods`),
	)
	return rows
}

// TestBadInputs runs the catalogue.
func TestBadInputs(t *testing.T) {
	template := hostileTemplate(t)
	rows := hostileRows()
	counts := map[string]int{}
	names := map[string]bool{}
	for _, r := range rows {
		counts[r.cat]++
		if names[r.cat+"/"+r.name] {
			t.Errorf("row %s/%s twice", r.cat, r.name)
		}
		names[r.cat+"/"+r.name] = true
	}
	if len(rows) < 120 {
		t.Errorf("the catalogue has %d rows, want at least 120", len(rows))
	}
	t.Logf("%d rows: %v", len(rows), counts)
	for _, r := range rows {
		if testing.Short() && !concurrentCategory[r.cat] {
			// With -short (make test's race-detector pass) only the rows
			// whose code runs concurrently; every row has run already.
			continue
		}
		t.Run(r.cat+"/"+r.name, func(t *testing.T) {
			if !r.serial {
				t.Parallel()
			}
			runHostileRow(t, template, r)
		})
	}
}

// concurrentCategory: the rows -short keeps, whose code paths run
// goroutines (builds into one output, serve, the output lock and swap,
// the cache).
var concurrentCategory = map[string]bool{"concurrency": true, "serve": true, "output": true, "cache": true}

func runHostileRow(t *testing.T, template string, r hostileRow) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	mustDo(t, err)
	study := filepath.Join(root, "study")
	copyTree(t, filepath.Join(template, "study"), study)
	for name, body := range neighbourFiles {
		write(t, filepath.Join(root, filepath.FromSlash(name)), body)
	}
	site := filepath.Join(study, "site")
	siteBefore := snapshot(t, site)

	var args []string
	if r.setup != nil {
		args = r.setup(t, root, study)
	}
	// What the setup planted is part of the "before".
	planted := snapshot(t, root)

	var res cliResult
	if r.runner != nil {
		res.code, res.stdout, res.stderr = r.runner(t, root, study, args)
	} else {
		res.code, res.stdout, res.stderr = runCLIWithin(t, 60*time.Second, args...)
	}
	t.Logf("evalbook %s\nexit %d\nstdout %q\nstderr %q", strings.Join(args, " "), res.code, res.stdout, res.stderr)
	expand := strings.NewReplacer("{root}", root, "{study}", study).Replace
	want := expand(r.wantMsg)
	if res.code != r.wantCode {
		t.Errorf("exit %d, want %d\nstdout %q\nstderr %q", res.code, r.wantCode, res.stdout, res.stderr)
	}
	where := res.stderr
	if r.wantCode == 0 {
		where = res.stdout
	}
	if !strings.Contains(where, want) {
		t.Errorf("message\n%q\ndoes not contain\n%q", where, want)
	}
	for _, stream := range []string{res.stdout, res.stderr} {
		if !utf8.ValidString(stream) {
			t.Errorf("the output is not valid UTF-8: %q", stream)
		}
		if i := strings.IndexFunc(stream, func(c rune) bool { return c < 0x20 && c != '\n' && c != '\t' || c == 0x7f }); i >= 0 {
			t.Errorf("the output holds a raw control byte %q: %q", stream[i], stream)
		}
		for _, secret := range []string{"root:x:0:0", "SECRET-CONTENT", "my notes"} {
			if strings.Contains(stream, secret) {
				t.Errorf("the output quotes a file outside the study (%q): %q", secret, stream)
			}
		}
	}
	// Input errors name files relative to the study, never by their
	// absolute host path (output rows name the -o path they refuse).
	if r.cat != "output" {
		for _, abs := range []string{study + "/data", study + "/pages", study + "/refs.bib", root + "/shared", root + "/secret", " /etc/passwd", `"/etc/passwd`, " /dev/zero", `"/dev/zero`} {
			if strings.Contains(res.stderr, abs) {
				t.Errorf("the message shows the absolute path %s: %q", abs, res.stderr)
			}
		}
	}
	if r.wantCode != 0 && res.stdout != "" && r.runner == nil {
		t.Errorf("a failure printed on stdout: %q", res.stdout)
	}

	// The previous site and everything around it.
	var exclude []string
	if r.wantCode == 0 && r.out != "-" {
		out := r.out
		if out == "" {
			out = "study/site"
		}
		exclude = append(exclude, out, filepath.Join(filepath.Dir(out), ".evalbook."+filepath.Base(out)+".lock"))
		exclude = append(exclude, r.touches...)
	} else {
		if d := diffSnapshots(siteBefore, snapshot(t, site)); len(d) > 0 {
			t.Errorf("the previous site is not byte-identical after the failure: %v", d)
		}
		// a failure may repair what the setup planted (a site left
		// aside by a killed swap): its paths are named in touches
		exclude = append(exclude, r.touches...)
	}
	after := snapshot(t, root, exclude...)
	before := planted
	for _, x := range exclude {
		for name := range before {
			if name == x || strings.HasPrefix(name, x+"/") {
				delete(before, name)
			}
		}
	}
	if d := diffSnapshots(before, after); len(d) > 0 {
		t.Errorf("files outside the output directory were created, changed or removed: %v", d)
	}
	if r.check != nil {
		r.check(t, root, study, res)
	}
}
