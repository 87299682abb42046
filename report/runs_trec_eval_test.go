package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/offline"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
)

// TestOfflineTrecEvalOracle compares every per-query and mean value with
// the independent trec_eval re-implementation of
// analyses/offline/testdata/oracle/trec_eval (gen.py: trec_eval 10's
// measure definitions), at relevance thresholds 1 and 2 (trec_eval -l1,
// -l2, -c), on runs with trailing text, interleaved queries and score
// ties, graded qrels with levels −1…4, a query missing from a run and
// queries without relevant documents. The algorithms are the same, so
// the tolerance is 1e-9 (trec_eval prints 4 decimals).
func TestOfflineTrecEvalOracle(t *testing.T) {
	t.Parallel()
	dir := "../analyses/offline/testdata/oracle/trec_eval"
	raw, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	type runFx struct {
		PerQuery map[string]map[string]float64 `json:"per_query"`
		Mean     map[string]float64            `json:"mean"`
		Order    map[string][]string           `json:"order"`
	}
	var fx struct {
		K          []int                       `json:"k"`
		Thresholds map[string]map[string]runFx `json:"thresholds"`
		// TrecEval9 holds iprec@L under trec_eval 9's cut, ⌊L·R + 0.9⌋.
		TrecEval9 map[string]map[string]runFx `json:"trec_eval9"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, n := range []string{"qrels.txt", "runs/bm25.run", "runs/dense.run"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = string(b)
	}
	if !strings.Contains(files["runs/bm25.run"], "trailing text") || !strings.Contains(files["qrels.txt"], " -1\n") {
		t.Fatal("the fixture lost its trailing text or its negative levels")
	}
	for thrName, runs := range fx.Thresholds {
		thr, _ := strconv.ParseFloat(thrName, 64)
		ctx := offlineTestCtx(t, files)
		o := offlineTestOpts("runs/{method}.run", "qrels.txt", func(o *offline.Options) {
			o.K = fx.K
			o.RelevanceThreshold = thr
			o.NoRelevant = offline.RuleZero
			o.MissingUsers = offline.RuleZero
		})
		got := map[string]map[string]map[string]float64{}
		d, err := kinds.OfflineMetricsDerived(ctx, o, func(u *load.UnitRow) error {
			if got[u.Method] == nil {
				got[u.Method] = map[string]map[string]float64{}
			}
			if got[u.Method][u.Unit] == nil {
				got[u.Method][u.Unit] = map[string]float64{}
			}
			got[u.Method][u.Unit][u.Metric] = u.Value
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for method, want := range runs {
			for q, ms := range want.PerQuery {
				for m, w := range ms {
					g, ok := got[method][q][m]
					if !ok || math.Abs(g-w) > 1e-9 {
						t.Errorf("-l%s %s query %s %s = %v (present %v), trec_eval %v", thrName, method, q, m, g, ok, w)
					}
					checked++
				}
			}
			var rv *offline.RunValues
			for i := range d.Runs {
				if d.Runs[i].Method == method {
					rv = &d.Runs[i]
				}
			}
			if rv == nil {
				t.Fatalf("no run %s", method)
			}
			for m, w := range want.Mean {
				if g := rv.Values[m]; g == nil || math.Abs(*g-w) > 1e-9 {
					t.Errorf("-l%s %s mean %s = %v, trec_eval %v", thrName, method, m, g, w)
				}
			}
		}
		if checked < 2*8*25 {
			t.Errorf("only %d values checked", checked)
		}
	}
	// trec_eval = "9": every per-query and mean iprec@L against the same
	// walk with trec_eval 9's cut (20 per-query values differ from 10's).
	if len(fx.TrecEval9) != 2 {
		t.Fatalf("the fixture has %d trec_eval9 thresholds, want 2", len(fx.TrecEval9))
	}
	for thrName, runs := range fx.TrecEval9 {
		thr, _ := strconv.ParseFloat(thrName, 64)
		o := offlineTestOpts("runs/{method}.run", "qrels.txt", func(o *offline.Options) {
			o.K = fx.K
			o.RelevanceThreshold = thr
			o.NoRelevant = offline.RuleZero
			o.MissingUsers = offline.RuleZero
			o.TrecEval = offline.TrecEval9
		})
		got := map[[3]string]float64{}
		d, err := kinds.OfflineMetricsDerived(offlineTestCtx(t, files), o, func(u *load.UnitRow) error {
			got[[3]string{u.Method, u.Unit, u.Metric}] = u.Value
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		checked, differ := 0, 0
		for method, want := range runs {
			for q, ms := range want.PerQuery {
				for m, w := range ms {
					g, ok := got[[3]string{method, q, m}]
					if !ok || math.Abs(g-w) > 1e-9 {
						t.Errorf("trec_eval 9 -l%s %s query %s %s = %v (present %v), want %v", thrName, method, q, m, g, ok, w)
					}
					if v10 := fx.Thresholds[thrName][method].PerQuery[q][m]; math.Abs(v10-w) > 1e-9 {
						differ++
					}
					checked++
				}
			}
			for _, rv := range d.Runs {
				if rv.Method != method {
					continue
				}
				for m, w := range want.Mean {
					if g := rv.Values[m]; g == nil || math.Abs(*g-w) > 1e-9 {
						t.Errorf("trec_eval 9 -l%s %s mean %s = %v, want %v", thrName, method, m, g, w)
					}
				}
			}
		}
		if checked != 2*8*11 || differ == 0 {
			t.Errorf("-l%s: %d iprec values checked, %d of them differ from trec_eval 10's", thrName, checked, differ)
		}
	}
}
