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
