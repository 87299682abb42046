package report

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalysisFilesNeverCollide: the ids "cd" and "cd-ranks" would both
// name data/cd-ranks.csv (the critical difference's rank table and the
// aggregate's main table); one table silently replaced the other. Build
// and validate now both refuse, naming the two ids and the file.
func TestAnalysisFilesNeverCollide(t *testing.T) {
	t.Parallel()
	const study = `
-- study.toml --
title = "t"
[inputs]
results = "results.csv"
[[analyses]]
id = "cd"
type = "critical_difference"
title = "cd"
metric = "m"
[[analyses]]
id = "cd-ranks"
type = "aggregate"
title = "lb"
metric = "m"
rules = ["mean"]
-- results.csv --
dataset,method,metric,value
d1,A,m,0.5
d1,B,m,0.25
d1,C,m,0.3
d2,A,m,0.75
d2,B,m,0.125
d2,C,m,0.2
d3,A,m,0.6
d3,B,m,0.3
d3,C,m,0.1
d4,A,m,0.6
d4,B,m,0.35
d4,C,m,0.4
`
	const want = `analyses "cd" and "cd-ranks" both write data/cd-ranks.csv`
	dir, err := buildStudy(t, study)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("build: %v, want %q", err, want)
	}
	_, verr := Validate(context.Background(), Options{Manifest: filepath.Join(filepath.Dir(dir), "study.toml"), Format: "both", Version: "test"})
	if verr == nil || verr.Error() != err.Error() {
		t.Errorf("validate: %v\nbuild:    %v", verr, err)
	}
}

// TestDeclaredMetricSlips: a [[metrics]] entry whose name is a slip for a
// metric of the results left the metric higher-is-better, and the worse
// method ranked first; it is an error at the entry's line. A declared
// metric with no near name in the results (one of the units only) stays
// allowed.
func TestDeclaredMetricSlips(t *testing.T) {
	t.Parallel()
	study := func(name string) string {
		return `
-- study.toml --
title = "t"
[[metrics]]
name = "` + name + `"
better = "lower"
[inputs]
results = "results.csv"
[[analyses]]
id = "lb"
type = "aggregate"
title = "lb"
metric = "rmse"
rules = ["mean_rank"]
-- results.csv --
dataset,method,metric,value
d1,A,rmse,0.5
d1,B,rmse,0.9
d2,A,rmse,0.4
d2,B,rmse,0.8
`
	}
	for _, c := range []struct{ name, want string }{
		{"RMSE@10", `metrics[0] (study.toml:3): no metric "RMSE@10" in the results (did you mean "rmse"?)`},
		{"rsme", `no metric "rsme" in the results (did you mean "rmse"?)`},
	} {
		if _, err := buildStudy(t, study(c.name)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("[[metrics]] name = %q: %v, want %q", c.name, err, c.want)
		}
	}
	site := mustBuild(t, study("RMSE"))
	if got := readFile(t, site, "data/lb.csv"); !strings.Contains(got, "\nA,") || strings.Index(got, "\nA,") > strings.Index(got, "\nB,") {
		t.Errorf("RMSE (any case) is rmse, lower is better: A first\n%s", got)
	}
	mustBuild(t, study("recall@20"))
}

// TestFixedNameAgreesWithColumn: an input entry's dataset = "…" (or a
// {dataset} in its path) and a dataset column in the file that names
// another: the column silently won, and three files fixed to three
// datasets became one. A row that disagrees is an error at its line; a
// column that agrees is fine.
func TestFixedNameAgreesWithColumn(t *testing.T) {
	t.Parallel()
	const head = `
-- study.toml --
title = "t"
[inputs]
results = [{ path = "a.csv", dataset = "ml-1m" }, { path = "b.csv", dataset = "lastfm" }]
[[analyses]]
id = "lb"
type = "aggregate"
title = "lb"
metric = "m"
rules = ["mean"]
-- b.csv --
dataset,method,metric,value
lastfm,A,m,0.5
lastfm,B,m,0.25
`
	_, err := buildStudy(t, head+`
-- a.csv --
dataset,method,metric,value
test,A,m,0.75
test,B,m,0.125
`)
	if want := `a.csv:2:1: dataset "test", but the file's input entry`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a dataset column against dataset = \"ml-1m\": %v, want %q", err, want)
	}
	site := mustBuild(t, head+`
-- a.csv --
dataset,method,metric,value
ml-1m,A,m,0.75
ml-1m,B,m,0.125
`)
	if got := readFile(t, site, "data/lb.csv"); !strings.Contains(got, "A,0.625") {
		t.Errorf("columns that agree with the entry:\n%s", got)
	}
	_, err = buildStudy(t, `
-- study.toml --
title = "t"
[inputs]
units = "{method}_{dataset}.csv"
[[analyses]]
id = "ma"
type = "meta_analysis"
title = "ma"
treatment = "T"
control = "C"
metric = "m"
-- T_d1.csv --
dataset,unit,m
d2,u1,0.5
-- C_d1.csv --
unit,m
u1,0.25
`)
	if want := `T_d1.csv:2:1: dataset "d2", but the file's input entry`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a units file's dataset column against its {dataset}: %v, want %q", err, want)
	}
}

// TestMetaMissingAgreesWithEntry: a units entry's missing = "zero" read
// every empty cell as 0 before the analysis's missing = "drop" could drop
// it; the page then said the pairs were dropped. The two contradicting
// is an error naming both lines; agreeing, or the analysis silent, is
// fine, and the method note says which rule applied to the empty cells.
func TestMetaMissingAgreesWithEntry(t *testing.T) {
	t.Parallel()
	study := func(entry, analysis string) string {
		return `
-- study.toml --
title = "t"
[inputs]
units = [{ path = "{method}_{dataset}.csv"` + entry + ` }]
[[analyses]]
id = "ma"
type = "meta_analysis"
title = "ma"
treatment = "T"
control = "C"
metric = "m"
` + analysis + `
-- T_d1.csv --
unit,m
u1,0.5
u2,
u3,0.6
u4,0.9
-- C_d1.csv --
unit,m
u1,0.25
u2,0.3
u3,0.5
u4,0.2
`
	}
	_, err := buildStudy(t, study(`, missing = "zero"`, `missing = "drop"`))
	if want := `missing = "drop" (study.toml:11), but the units input entry at study.toml:3 sets missing = "zero"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("contradicting rules: %v, want %q", err, want)
	}
	mustBuild(t, study(`, missing = "zero"`, `missing = "zero"`))
	mustBuild(t, study(``, `missing = "drop"`))
	// The analysis silent: its method note says what the entry did to
	// the empty cell (u2 of T), not what the analysis's default would.
	note := func(dir string) string {
		page := readFile(t, dir, "ma.md")
		return strings.Join(strings.Fields(page), " ")
	}
	for _, c := range []struct{ entry, want, unwanted string }{
		{`, missing = "zero"`, "An empty per-unit cell is read as 0 (the units input's `missing = \"zero\"`)", "is dropped"},
		{`, missing = "drop"`, "An empty per-unit cell gives no value as the file is read (the units input's `missing = \"drop\"`)", "is dropped"},
		{``, "A pair with an empty value is dropped (`missing = \"drop\"`).", "units input"},
	} {
		got := note(mustBuild(t, study(c.entry, ``)))
		if !strings.Contains(got, c.want) || strings.Contains(got, c.unwanted) {
			t.Errorf("entry %q, the analysis silent: the method note says\n%s\nwant %q, not %q", c.entry, got, c.want, c.unwanted)
		}
	}
	// Two entries, one with a rule: the note names its line.
	mixed := strings.Replace(study(``, ``), `units = [{ path = "{method}_{dataset}.csv" }]`,
		`units = [{ path = "T_{dataset}.csv", method = "T", missing = "zero" }, { path = "C_{dataset}.csv", method = "C" }]`, 1)
	want := "A pair with an empty value is dropped (`missing = \"drop\"`). In the files of the units input at study.toml line 3, an empty cell is read as 0 (that entry's `missing = \"zero\"`)."
	if got := note(mustBuild(t, mixed)); !strings.Contains(got, want) {
		t.Errorf("two entries, one with a rule: the method note says\n%s\nwant %q", got, want)
	}
}

// TestMetricCaseTwins: ndcg@10 and NDCG@10 in one study's results (two
// exports merged) were two metrics, and a [[metrics]] entry for one
// silently applied to both: an error naming both spellings.
func TestMetricCaseTwins(t *testing.T) {
	t.Parallel()
	_, err := buildStudy(t, lbStudy+lbResults+"d1,A,M,0.9\n")
	if want := `two metrics that differ only in case, "m" and "M"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("m and M: %v, want %q", err, want)
	}
}

// TestUnknownNameAtItsKey: a method an analysis's methods = […] lists and
// the data lacks was reported at the [[analyses]] header; the README
// promises the key's line.
func TestUnknownNameAtItsKey(t *testing.T) {
	t.Parallel()
	_, err := buildStudy(t, strings.Replace(lbStudy, `rules = ["mean"]`, `methods = ["A", "Bee"]`, 1)+lbResults)
	if want := `study.toml:9: analyses/lb: no method "Bee" in the results`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v, want %q", err, want)
	}
}

// TestManifestErrorsLineByLine: every line of a manifest's errors starts
// with its file and line; the first one was set apart by "manifest:".
func TestManifestErrorsLineByLine(t *testing.T) {
	t.Parallel()
	_, err := buildStudy(t, `
-- study.toml --
title = "t"
[inputs]
results = "r.csv"
[[analyses]]
id = "sel"
type = "dataset_selection"
metric = "m"
-- r.csv --
dataset,method,metric,value
d1,A,m,0.5
`)
	if err == nil {
		t.Fatal("a dataset_selection without metrics and with an unknown key built")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) < 2 {
		t.Fatalf("want two errors, one per line: %v", err)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "study.toml:") {
			t.Errorf("the line %q does not start with the manifest's file and line", l)
		}
	}
}
