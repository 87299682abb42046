package report

import (
	"fmt"
	"github.com/evalbook/evalbook/internal/pqtest"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/offline"
	"github.com/evalbook/evalbook/report/kinds"
)

// runs and truth in every entry form give the same values as the plain
// TREC files: a table entry with a method constant, a CSV with a column
// mapping, Parquet runs and Parquet qrels with a mapping, mixed in a list.
func TestOfflineEntryForms(t *testing.T) {
	t.Parallel()
	type pqRun struct {
		Qid   string  `parquet:"qid"`
		Docno string  `parquet:"docno"`
		Sim   float64 `parquet:"sim"`
	}
	type pqQrel struct {
		Qid   string `parquet:"qid"`
		Docno string `parquet:"docno"`
		Level int64  `parquet:"level"`
	}
	var trec, csv strings.Builder
	var pqRows []pqRun
	csv.WriteString("qid,docno,sim\n")
	var qrels strings.Builder
	var pqQrels []pqQrel
	for q := range 12 {
		for r := range 8 {
			doc := fmt.Sprintf("d%d", (q*5+r*3)%17)
			sim := float64(20-r) / 2
			if r == 3 {
				sim = 8.5 // a tie with rank 4's score... broken by docno
			}
			fmt.Fprintf(&trec, "%d Q0 %s %d %g run\n", q, doc, r+1, sim)
			fmt.Fprintf(&csv, "%d,%s,%g\n", q, doc, sim)
			pqRows = append(pqRows, pqRun{fmt.Sprint(q), doc, sim})
		}
		for j := range 5 {
			lv := (q + j) % 4
			fmt.Fprintf(&qrels, "%d 0 d%d %d\n", q, (q+j*4)%17, lv)
			pqQrels = append(pqQrels, pqQrel{fmt.Sprint(q), fmt.Sprintf("d%d", (q+j*4)%17), int64(lv)})
		}
	}
	ctx := offlineTestCtx(t, map[string]string{"qrels.txt": qrels.String(), "runs/bm25.run": trec.String(), "csv/mapped.csv": csv.String(), "pq/README": "qrels", "pqruns/README": "runs"})
	pqtest.Write(t, filepath.Join(ctx.Study.Dir, "pqruns/bm25.parquet"), pqRows)
	pqtest.Write(t, filepath.Join(ctx.Study.Dir, "pq/qrels.parquet"), pqQrels)
	mapping := map[string]any{"user": "qid", "item": "docno", "score": "sim"}
	values := func(runs, truth any) map[string]map[string]float64 {
		t.Helper()
		o := offlineTestOpts("", "", func(o *offline.Options) { o.K = []int{3, 5}; o.Runs, o.Truth = runs, truth })
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		d, err := kinds.OfflineMetricsDerived(ctx, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]map[string]float64{}
		for _, r := range d.Runs {
			out[r.Method] = map[string]float64{}
			for m, v := range r.Values {
				if v != nil {
					out[r.Method][m] = *v
				}
			}
		}
		return out
	}
	ref := values("runs/{method}.run", "qrels.txt")["bm25"]
	got := values([]any{
		map[string]any{"path": "runs/bm25.run", "method": "table"},
		map[string]any{"path": "csv/mapped.csv", "method": "mapped", "columns": mapping},
		map[string]any{"path": "pqruns/{method}.parquet", "columns": mapping},
	}, map[string]any{"path": "pq/qrels.parquet", "columns": map[string]any{"user": "qid", "item": "docno", "relevance": "level"}})
	if len(got) != 3 {
		t.Fatalf("runs %v", got)
	}
	// Predictions through a mapping: mae of a prediction 0.5 above every
	// true level is 0.5.
	var preds strings.Builder
	preds.WriteString("q;d;p\n")
	for _, r := range pqQrels {
		fmt.Fprintf(&preds, "%s;%s;%g\n", r.Qid, r.Docno, float64(r.Level)+0.5)
	}
	writeFileT(t, filepath.Join(ctx.Study.Dir, "preds.tsv"), strings.ReplaceAll(preds.String(), ";", "\t"))
	o := offlineTestOpts("runs/{method}.run", "qrels.txt", func(o *offline.Options) {
		o.K = []int{3}
		o.Predictions = map[string]any{"path": "preds.tsv", "method": "bm25", "columns": map[string]any{"user": "q", "item": "d", "prediction": "p"}}
	})
	d, err := kinds.OfflineMetricsDerived(ctx, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if mae := d.Runs[0].Values["mae"]; mae == nil || math.Abs(*mae-0.5) > 1e-12 {
		t.Errorf("mae %v, want 0.5", mae)
	}
	for method, vals := range got {
		for m, w := range ref {
			if g, ok := vals[m]; !ok || math.Abs(g-w) > 1e-12 {
				t.Errorf("%s %s = %v, the TREC files give %v", method, m, g, w)
			}
		}
	}
}

// Entry problems are errors at the option's line of study.toml.
func TestOfflineEntryErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ runs, want string }{
		{`{ path = "runs/bm25.run" }`, "study.toml:5: runs: runs/bm25.run has no method"},
		{`{ path = "runs/bm25.csv", method = "b", columns = { metric = "m" } }`, `study.toml:5: runs[0].columns: "metric" is not a column of runs`},
		{`{ path = "runs/bm25.csv", method = "b", colums = { user = "q" } }`, `unknown key "colums"`},
		{`[{ path = "runs/bm25.run", method = "b", missing = "zero" }]`, "missing and missing_values do not apply to runs"},
	} {
		_, err := buildStudy(t, "-- study.toml --\ntitle = \"T\"\n[[analyses]]\nid = \"om\"\ntype = \"offline_metrics\"\nruns = "+c.runs+"\ntruth = \"qrels.txt\"\n-- qrels.txt --\n1 0 a 1\n-- runs/bm25.run --\n1 Q0 a 1 1 r\n-- runs/bm25.csv --\nq,d,s\n1,a,1\n")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("runs = %s: error %v, want %q", c.runs, err, c.want)
		}
	}
}

func writeFileT(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
