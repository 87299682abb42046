package report

import (
	"context"
	"path/filepath"
	"testing"
)

func TestLabelFallsBackToID(t *testing.T) {
	var nilStudy *Study
	if got := nilStudy.Label(LabelMetric, "ndcg@10"); got != "ndcg@10" {
		t.Errorf("nil study: %q", got)
	}
	s := &Study{}
	s.setLabel(LabelMetric, "ndcg@10", "nDCG@10")
	s.setLabel(LabelMethod, "ndcg@10", "")
	if got := s.Label(LabelMetric, "ndcg@10"); got != "nDCG@10" {
		t.Errorf("metric label: %q", got)
	}
	if got := s.Label(LabelMethod, "ndcg@10"); got != "ndcg@10" {
		t.Errorf("a metric's label leaked to a method, or an empty label was kept: %q", got)
	}
}

// TestMethodsInvalidateTheCache: a [[methods]] edit (a label, a baseline)
// changes what a finding says, so a cached analysis is computed again.
func TestMethodsInvalidateTheCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	study := func(methods string) string {
		return "-- study.toml --\ntitle = \"m\"\n" + methods + "[inputs]\nresults = \"r.csv\"\n[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"ndcg\"\n" +
			"-- r.csv --\ndataset,method,metric,value\nd1,A,ndcg,0.3\nd1,B,ndcg,0.5\nd2,A,ndcg,0.4\nd2,B,ndcg,0.6\n"
	}
	write := func(s string) {
		if err := ParseArchive([]byte(s)).WriteDir(dir); err != nil {
			t.Fatal(err)
		}
	}
	write(study(""))
	cache := NewCache()
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", Cache: cache}
	if _, err := Build(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	write(study("[[methods]]\nname = \"B\"\nbaseline = true\n"))
	sum, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Cached != 0 {
		t.Errorf("after declaring B a baseline: %d analyses from the cache, want 0", sum.Cached)
	}
}
