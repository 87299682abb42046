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
		d, err := OfflineMetricsDerived(ctx, o, func(u *UnitRow) error {
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
}
