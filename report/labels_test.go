package report

import (
	"context"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
	"path/filepath"
	"strings"
	"testing"
)

func TestLabelFallsBackToID(t *testing.T) {
	var nilStudy *manifest.Study
	if got := nilStudy.Label(manifest.LabelMetric, "hit_rate"); got != "hit_rate" {
		t.Errorf("nil study: %q", got)
	}
	if got := nilStudy.Label(manifest.LabelMetric, "ndcg@20"); got != "nDCG@20" {
		t.Errorf("nil study, a metric offline_metrics derives: %q, want its built-in label", got)
	}
	s := &manifest.Study{}
	s.SetLabel(manifest.LabelMetric, "ndcg@10", "nDCG@10")
	s.SetLabel(manifest.LabelMethod, "ndcg@10", "")
	if got := s.Label(manifest.LabelMetric, "ndcg@10"); got != "nDCG@10" {
		t.Errorf("metric label: %q", got)
	}
	if got := s.Label(manifest.LabelMethod, "ndcg@10"); got != "ndcg@10" {
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

// TestFigureWidth: figure_width takes inches as an integer or a float and
// refuses what is not a sensible width, at its line.
func TestFigureWidth(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		value string
		want  float64
		err   string
	}{
		{"7", 7, ""},
		{"3.5", 3.5, ""},
		{"0.2", 0, `study.toml:2: figure_width is a width in inches from 1 to 20 (one column is 3.33, a page 7), got 0.2`},
		{"nan", 0, `study.toml:2: figure_width is a width in inches from 1 to 20`},
		{`"7in"`, 0, `study.toml:2: figure_width is a width in inches (a number), got 7in`},
	} {
		s, err := manifest.ParseStudy("study.toml", []byte("title = \"t\"\nfigure_width = "+c.value+"\n"), kinds.Kinds())
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.value, err)
		case c.err == "" && s.FigureWidth != c.want:
			t.Errorf("%s: width %v, want %v", c.value, s.FigureWidth, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.value, err, c.err)
		}
	}
}
