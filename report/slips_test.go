package report

// Slips that passed silently (issue 31): each test plants one and wants
// the error, at its file and line, that the user sees.

import (
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
