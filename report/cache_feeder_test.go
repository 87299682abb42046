package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// feederStudy is a study whose only inputs are ranked runs: an
// offline_metrics analysis derives the results of an aggregate
// leaderboard and the per-user units of a meta-analysis.
func feederStudy(metaExtra string) string {
	var truth, runA, runB strings.Builder
	truth.WriteString("user,item\n")
	runA.WriteString("user,item,rank\n")
	runB.WriteString("user,item,rank\n")
	for u := 0; u < 40; u++ {
		fmt.Fprintf(&truth, "u%d,i%d\nu%d,i%d\n", u, u%7, u, (u+3)%7)
		for r := 1; r <= 3; r++ {
			fmt.Fprintf(&runA, "u%d,i%d,%d\n", u, (u+r-1)%7, r)
			fmt.Fprintf(&runB, "u%d,i%d,%d\n", u, (u*3+r)%7, r)
		}
	}
	return "-- study.toml --\ntitle = \"Derived inputs\"\n" +
		"[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"ndcg@3\"\nrules = [\"mean_rank\", \"mean\"]\n" +
		"[[analyses]]\nid = \"effect\"\ntype = \"meta_analysis\"\ntreatment = \"A\"\ncontrol = \"B\"\nmetric = \"ndcg@3\"\n" + metaExtra +
		"[[analyses]]\nid = \"om\"\ntype = \"offline_metrics\"\nruns = \"runs/{method}_{dataset}.csv\"\ntruth = \"truth/{dataset}.csv\"\nk = [3]\n" +
		"-- truth/d1.csv --\n" + truth.String() + "-- truth/d2.csv --\n" + truth.String() +
		"-- runs/A_d1.csv --\n" + runA.String() + "-- runs/B_d1.csv --\n" + runB.String() +
		"-- runs/A_d2.csv --\n" + runB.String() + "-- runs/B_d2.csv --\n" + runA.String()
}

// TestCacheFeedingAnalysis: an analysis whose values feed the others
// (offline_metrics) is taken from the disk cache like any other, so a
// rebuild with nothing changed computes nothing. The cache keeps its
// derived results but not its per-user units: when an analysis that
// reads them must run (its options changed), the feeder is computed
// again for it, and the site equals a build without the cache.
func TestCacheFeedingAnalysis(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "study")
	if err := ParseArchive([]byte(feederStudy(""))).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "study.toml")
	o := Options{Manifest: manifest, Version: "test", CacheDir: filepath.Join(base, "cache"), Out: filepath.Join(base, "site")}
	if sum, _ := buildSite(t, o); sum.Cached != 0 {
		t.Fatalf("first build: %d from the cache", sum.Cached)
	}
	sum, got := buildSite(t, o)
	_, want := buildSite(t, Options{Manifest: manifest, Version: "test", NoCache: true, Out: filepath.Join(base, "fresh")})
	if sum.Cached != 3 {
		t.Errorf("rebuild with nothing changed: %d of 3 analyses from the cache (the feeder computed again?)", sum.Cached)
	}
	if name := sameSite(got, want); name != "" {
		t.Errorf("rebuild from the cache: the site differs from a build without it in %s", name)
	}

	// The meta-analysis's options change: it runs, reading the units the
	// cached feeder no longer holds.
	before := got["data/effect.json"]
	if err := os.WriteFile(manifest, ParseArchive([]byte(feederStudy("test = \"t\"\n"))).Files[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, got = buildSite(t, o)
	_, want = buildSite(t, Options{Manifest: manifest, Version: "test", NoCache: true, Out: filepath.Join(base, "fresh2")})
	if sum.Cached != 2 {
		t.Errorf("after an edit of the meta-analysis: %d of 3 from the cache, want the leaderboard and the feeder", sum.Cached)
	}
	if name := sameSite(got, want); name != "" {
		t.Errorf("after an edit of the meta-analysis: the site differs from a build without the cache in %s", name)
	}
	if got["data/effect.json"] == before {
		t.Error("the edited meta-analysis (test = \"t\") reads as before")
	}
}
