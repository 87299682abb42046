package report

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evalbook/evalbook/analyses/offline"
	"github.com/evalbook/evalbook/report/input/bib"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/site"
)

// FuzzTruth: any truth file (CSV, TSV or TREC qrels) either gives values
// in [0, 1] for a fixed run, or an error that names the truth file.
func FuzzTruth(f *testing.F) {
	f.Add("user,item,relevance\nu1,a,1\nu1,b,2\nu2,c,1\n", 0)
	f.Add("user,item,relevance\nu1,a,1\nu1,a,2\n", 0)
	f.Add("user\titem\trelevance\nu1\ta\t3\n", 1)
	f.Add("u1 0 a 1\nu1 0 b 0\nu2 0 c 2\n", 2)
	f.Add("u1 0 a -1\n\nu2 0 c NaN\n", 2)
	f.Add("user,item,relevance\n\"u1\",\"a\"\"\",1e309\n", 0)
	f.Fuzz(func(t *testing.T, truth string, form int) {
		name := []string{"truth.csv", "truth.tsv", "truth.qrels"}[((form%3)+3)%3]
		ctx := offlineTestCtx(t, map[string]string{name: truth, "runs/m.csv": "user,item,rank\nu1,a,1\nu1,b,2\nu2,c,1\n"})
		o := offlineTestOpts("runs/{method}.csv", name, func(o *offline.Options) { o.K = []int{1, 2} })
		_, err := kinds.OfflineMetricsDerived(ctx, o, func(u *load.UnitRow) error {
			if !(u.Value >= 0 && u.Value <= 1) {
				t.Fatalf("user %s %s = %v, outside [0, 1]", u.Unit, u.Metric, u.Value)
			}
			return nil
		})
		if err != nil && !strings.Contains(err.Error(), "truth") && !strings.Contains(err.Error(), "m.csv") {
			t.Fatalf("error names no file: %v", err)
		}
	})
}

// FuzzBibTeX: any bibliography parses or fails with an error naming the
// file; what parses has keys and labels that are valid UTF-8 text.
func FuzzBibTeX(f *testing.F) {
	f.Add("@article{a1,\n  author = {Doe, J. and Roe, R.},\n  title = {A {T}itle},\n  year = {2020}\n}\n")
	f.Add("@inproceedings{k, title = \"Quoted \\\"x\\\"\", year = 2021}")
	f.Add("@comment{ignored}\n@string{x = {y}}\n@misc{m, note = {unbalanced {}")
	f.Add("@book{b,\n author = {\\\"{O}zg\\\"{u}r and {\\'E}mile},\n}\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, src string) {
		entries, err := bib.Parse("refs.bib", src)
		if err != nil {
			if !strings.Contains(err.Error(), "refs.bib") {
				t.Fatalf("error names no file: %v", err)
			}
			return
		}
		for key, e := range entries {
			if key == "" || e == nil {
				t.Fatalf("empty key or entry: %q", key)
			}
			label := site.CiteLabel(e)
			if utf8.ValidString(src) && !utf8.ValidString(label) {
				t.Fatalf("label %q of %q is not UTF-8", label, key)
			}
		}
	})
}

var _ = filepath.Join
