package report

// Declarations the data contradicts (a baseline no method has, a dataset
// misspelt, a value over a metric's max, a missing direction) used to pass
// silently: each test plants one and wants the error, at its file and
// line, that the user sees.

import (
	"fmt"
	"strings"
	"testing"
)

// slipStudy is a study of firstHourNDCG (EASE, ALS and Random on ml,
// lastfm, books, news) with decl (TOML) before [inputs] and one
// aggregate analysis; its analysis starts at line 6 + lines of decl.
func slipStudy(decl string, files ...string) string {
	return "-- study.toml --\ntitle = \"t\"\n" + decl + "[inputs]\nresults = { path = \"ndcg.csv\", metric = \"ndcg@10\" }\n[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"ndcg@10\"\n-- ndcg.csv --\n" + firstHourNDCG + strings.Join(files, "")
}

// wantBuildError builds archive and wants an error holding want.
func wantBuildError(t *testing.T, archive, want string) {
	t.Helper()
	_, err := buildStudy(t, archive)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
}

// TestDeclaredBaselineNowhere: baseline = true on a name no method of
// the results has, and no near one either, applied to nothing while
// Random, the real baseline, could headline the key findings.
func TestDeclaredBaselineNowhere(t *testing.T) {
	t.Parallel()
	wantBuildError(t, slipStudy("[[methods]]\nname = \"Chance\"\nbaseline = true\n"),
		`study.toml:7: analyses/lb: methods[0] (study.toml:3): no method "Chance" in the results; valid: "EASE", "ALS", "Random"; its baseline = true would apply to nothing, and key findings could headline the real baseline`)
	// a label alone for a method of the units only stays accepted
	mustBuild(t, slipStudy("[[methods]]\nname = \"Chance\"\nlabel = \"By chance\"\n"))
}

// TestDeclaredDatasetTypo: a [[datasets]] entry that misspells a dataset
// of the results gave its label and attributes to nothing.
func TestDeclaredDatasetTypo(t *testing.T) {
	t.Parallel()
	wantBuildError(t, slipStudy("[[datasets]]\nname = \"lastfn\"\ndomain = \"music\"\n"),
		`study.toml:7: analyses/lb: datasets[0] (study.toml:3): no dataset "lastfn" in the results (did you mean "lastfm"?); its label and attributes would apply to nothing`)
	// a name with no near dataset may be one of the units: accepted
	mustBuild(t, slipStudy("[[datasets]]\nname = \"movies-of-2020\"\ndomain = \"movies\"\n"))
}

// TestDeclaredMaxExceeded: a value above a metric's declared max was
// accepted by every analysis but stability; it is an error at its cell,
// wherever the metric is read.
func TestDeclaredMaxExceeded(t *testing.T) {
	t.Parallel()
	wantBuildError(t, slipStudy("[[metrics]]\nname = \"ndcg@10\"\nmax = 0.2\n"),
		`ndcg.csv:2:9: ndcg@10 of EASE on ml is 0.4, above the declared max = 0.2 of metric "ndcg@10" ([[metrics]] at study.toml:4); the data or the bound is wrong`)
	// at the bound is fine
	mustBuild(t, slipStudy("[[metrics]]\nname = \"ndcg@10\"\nmax = 0.4\n"))
}

// TestDeclaredMaxDerived: the bound holds for values an offline_metrics
// analysis computes too (here a declared max of 0.5 for a hit rate of 1).
func TestDeclaredMaxDerived(t *testing.T) {
	t.Parallel()
	wantBuildError(t, `-- study.toml --
title = "Derived"
[[metrics]]
name = "hitrate@1"
max  = 0.5
[[analyses]]
id     = "lb"
type   = "aggregate"
metric = "hitrate@1"
[[analyses]]
id    = "om"
type  = "offline_metrics"
runs  = "runs/{method}_{dataset}.csv"
truth = "truth/{dataset}.csv"
k     = [1]
-- truth/d1.csv --
user,item
u1,a
-- runs/A_d1.csv --
user,item,rank
u1,a,1
-- runs/B_d1.csv --
user,item,rank
u1,b,1
`, `analysis om computes hitrate@1 of A on d1 = 1, above the declared max = 0.5 of metric "hitrate@1" ([[metrics]] at study.toml:4); the bound is wrong`)
}

// TestSummaryDirection: a summary meta-analysis took higher as better
// when nothing declared the direction, so the forest plot's "favours"
// sides were backwards for a lower-is-better metric (length of stay).
// The direction is required: better = … or a [[metrics]] entry.
func TestSummaryDirection(t *testing.T) {
	t.Parallel()
	study := func(decl, opts string) string {
		return "-- study.toml --\ntitle = \"s\"\n" + decl + "[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\ntreatment = \"new\"\ncontrol = \"old\"\nsummary = \"los.csv\"\n" + opts +
			"-- los.csv --\ndataset,yi,vi\na,-1.5,0.2\nb,-0.5,0.1\n"
	}
	wantBuildError(t, study("", ""), `study.toml:2: analyses/m: a summary's metric needs its direction, which sets the forest plot's "favours" sides: add better = "higher" or "lower" to this analysis`)
	wantBuildError(t, study("", "metric = \"los\"\n"), `study.toml:2: analyses/m: a summary's metric needs its direction`)
	wantBuildError(t, study("[[metrics]]\nname = \"los\"\nbetter = \"lower\"\n", "metric = \"los\"\nbetter = \"higher\"\n"),
		`study.toml:5: analyses/m: better = "higher", while the [[metrics]] entry of "los" says better = "lower"; keep one`)
	// better with per-unit values applies to nothing
	wantBuildError(t, strings.Replace(study("", "better = \"lower\"\n"), "summary = \"los.csv\"\n", "metric = \"los\"\n", 1),
		`study.toml:8: analyses (m): better: gives the direction of a summary's metric`)
	for _, decl := range [][2]string{{"", "better = \"lower\"\n"}, {"[[metrics]]\nname = \"los\"\nbetter = \"lower\"\n", "metric = \"los\"\n"}} {
		dir := mustBuild(t, study(decl[0], decl[1]))
		if js := readJSON(t, dir, "data/m.json"); js["better"] != "lower" {
			t.Errorf("%q: better = %v, want lower", decl, js["better"])
		}
		// a shorter stay (negative effect) favours the treatment: left
		if svg := readFile(t, dir, "figures/m.svg"); !strings.Contains(svg, "favours new") || strings.Index(svg, "favours new") > strings.Index(svg, "favours old") {
			t.Errorf("%q: the forest plot does not put \"favours new\" left of \"favours old\"", decl)
		}
	}
}

// TestMissingTestsError: critical_difference and paired_tests left out
// the datasets (or units) without a value of every method with only a
// note; they are errors now unless missing = "drop" says to, as in
// aggregate and stability.
func TestMissingTestsError(t *testing.T) {
	t.Parallel()
	cd := strings.Replace(fmt.Sprintf(cdStudy, cdRows()), "missing  = \"drop\"\n", "", 1)
	wantBuildError(t, cd, `analyses/cd: metric "ndcg": no value for dataset "d3", method "E"; 1 of 8 datasets lack a value for some method (E lacks 1): missing = "drop" would rank on the other 7 datasets`)
	pt := strings.Replace(pairedStudy, "missing = \"drop\"\n", "", 1)
	wantBuildError(t, pt, `analyses/pt: metric "rmse": no value of method "C" for "f04" (one of the units of cv); 1 of the 10 lack a value for some method: leave the method out with methods = [...], or declare missing = "drop" to test each pair on the units of cv both methods have`)
}

// TestUnequalRuns: with a run column the runs of a cell are averaged; a
// method with 3 runs next to one with 5 on the same dataset was
// averaged silently. It is an error naming both counts, unless the
// input entry says unequal_runs = true.
func TestUnequalRuns(t *testing.T) {
	t.Parallel()
	var rows strings.Builder
	rows.WriteString("dataset,method,metric,run,value\n")
	for _, r := range []struct {
		d, m string
		runs int
	}{{"d1", "A", 3}, {"d1", "B", 5}, {"d2", "A", 2}, {"d2", "B", 2}} {
		for k := 1; k <= r.runs; k++ {
			fmt.Fprintf(&rows, "%s,%s,m,%d,0.%d\n", r.d, r.m, k, k+len(r.m))
		}
	}
	study := func(entry string) string {
		return "-- study.toml --\ntitle = \"t\"\n[inputs]\nresults = " + entry + "\n[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"m\"\n-- r.csv --\n" + rows.String()
	}
	wantBuildError(t, study(`"r.csv"`), `study.toml:3: inputs.results: m of B on d1 averages 5 runs (first at r.csv:5), A only 3 (first at r.csv:2): means over unequal runs are not comparable; give every method the same runs, or declare unequal_runs = true on the input entry to average them anyway`)
	dir := mustBuild(t, study(`{ path = "r.csv", unequal_runs = true }`))
	if !strings.Contains(readFile(t, dir, "data/lb.csv"), "A,") {
		t.Error("the accepted build has no leaderboard")
	}
}

// TestFormulaNames: a name that starts with =, +, @ or - and a
// non-digit went verbatim to the start of a CSV cell of the site, where
// a spreadsheet runs it as a formula. It is refused where it is read;
// "-1" stays a name.
func TestFormulaNames(t *testing.T) {
	t.Parallel()
	long := "-- study.toml --\ntitle = \"t\"\n[inputs]\nresults = \"r.csv\"\n[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"m\"\n-- r.csv --\ndataset,method,metric,value\n"
	for _, c := range []struct{ rows, want string }{
		{"d1,=HYPERLINK(1),m,1\n", `r.csv:2:4: method name "=HYPERLINK(1)" holds a leading "=", which a spreadsheet opening the site's CSV tables reads as a formula; rename it`},
		{"+d1,A,m,1\n", `r.csv:2:1: dataset name "+d1" holds a leading "+"`},
		{"d1,A,@m,1\n", `r.csv:2:6: metric name "@m" holds a leading "@"`},
		{"d1,-cmd,m,1\n", `r.csv:2:4: method name "-cmd" holds a leading "-" before a non-digit`},
	} {
		wantBuildError(t, long+c.rows, c.want)
	}
	wantBuildError(t, strings.Replace(long, "dataset,method,metric,value\n", "dataset,method,=m\nd1,A,1\n", 1),
		`r.csv:1: metric name "=m" (a column of the header) holds a leading "="`)
	wantBuildError(t, strings.Replace(long, "[inputs]", "[[datasets]]\nname = \"@d\"\ninteractions = \"l.csv\"\n[inputs]", 1)+"d1,A,m,1\n",
		`study.toml:3: datasets[0].name: "@d" holds a leading "@"`)
	mustBuild(t, long+"-1,A,m,1\n-1,B,m,2\n")
}
