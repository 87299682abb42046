package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/offline"
	"github.com/evalbook/evalbook/report/kinds"
)

// trecStudy is a TREC study: qrels with levels −1…2, three runs over 40
// queries, interleaved, with trailing text; "dense" retrieves the relevant
// documents first for every query, "bm25" for half of them, "rand" never.
func trecStudy(extra string) string {
	var qrels, bm25, dense, rnd strings.Builder
	for q := range 40 {
		fmt.Fprintf(&qrels, "%d 0 rel%d 2\n%d 0 also%d 1\n%d 0 non%d 0\n%d 0 pool%d -1\n", q, q, q, q, q, q, q, q)
	}
	for r := range 4 {
		for q := range 40 {
			docs := []string{fmt.Sprintf("rel%d", q), fmt.Sprintf("also%d", q), fmt.Sprintf("non%d", q), fmt.Sprintf("other%d", q)}
			fmt.Fprintf(&dense, "%d Q0 %s %d %g dense\n", q, docs[r], r+1, float64(10-r))
			fmt.Fprintf(&rnd, "%d Q0 %s %d %g rand with trailing text\n", q, docs[3-r], r+1, float64(10-r))
			if q%2 == 0 {
				fmt.Fprintf(&bm25, "%d Q0 %s %d %g bm25\n", q, docs[r], r+1, float64(10-r))
			} else {
				fmt.Fprintf(&bm25, "%d Q0 %s %d %g bm25\n", q, docs[3-r], r+1, float64(10-r))
			}
		}
	}
	return `
-- study.toml --
title = "TREC"
seed = 7
[[analyses]]
id = "om"
type = "offline_metrics"
runs = "runs/{method}.run"
truth = "qrels.txt"
k = [1, 3]
` + extra + `
-- qrels.txt --
` + qrels.String() + `-- runs/bm25.run --
` + bm25.String() + `-- runs/dense.run --
` + dense.String() + `-- runs/rand.run --
` + rnd.String()
}

// compare on an offline_metrics analysis: the table <id>-compare with
// exactly the columns in CSV and JSON, the ranx table with dense
// beating both others, and a bad compare value at its key's line.
func TestOfflineMetricsCompare(t *testing.T) {
	t.Parallel()
	dir := mustBuild(t, trecStudy(`compare = { test = "fisher", permutations = 2000, correction = "holm", alpha = 0.05, metrics = ["map", "ndcg@3"] }`))
	csv := readFile(t, dir, "data/om-compare.csv")
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if lines[0] != "dataset,metric,a,b,mean_a,mean_b,p,p_adjusted,significant" || len(lines) != 1+2*3 {
		t.Fatalf("compare CSV:\n%s", csv)
	}
	if !strings.Contains(csv, ",map,bm25,dense,") || !strings.Contains(csv, ",true") {
		t.Errorf("compare CSV:\n%s", csv)
	}
	summary := readFile(t, dir, "data/om-compare-summary.csv")
	if !strings.Contains(summary, "dense,b,1.0000^ac") {
		t.Errorf("ranx table:\n%s", summary)
	}
	js := readFile(t, dir, "data/om.json")
	if !strings.Contains(js, `"p_adjusted"`) {
		t.Errorf("the JSON lacks the compare table")
	}
	if svg := readFile(t, dir, "figures/om-pr.svg"); !strings.Contains(svg, "recall") {
		t.Errorf("no precision–recall figure")
	}
	iprec := readFile(t, dir, "data/om-iprec.csv")
	if !strings.Contains(iprec, "dense,0.5,1") {
		t.Errorf("iprec table:\n%s", iprec)
	}
	for _, c := range []struct{ opt, want string }{
		{`compare = { test = "wilcoxon" }`, `compare.test: unknown value "wilcoxon"`},
		{`compare = { correction = "bh" }`, `compare.correction: unknown value "bh"`},
		{`compare = { metrics = ["ndcg@10"] }`, `compare.metrics: unknown per-user metric "ndcg@10"`},
		{`compare = { alpha = 1.5 }`, `compare.alpha: must be in (0, 1)`},
		{`compare = { permutation = 100 }`, `unknown key "permutation" (did you mean "permutations"?)`},
		{`compare = "fisher"`, `want a table such as`},
	} {
		_, err := buildStudy(t, trecStudy(c.opt))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "study.toml:") {
			t.Errorf("%s: error %v, want %q at a line of study.toml", c.opt, err, c.want)
		}
	}
}

// Bad TREC input names file and line: a non-integer qrels level, a
// non-numeric score, a document listed twice for a query (both lines, the
// query's lines interleaved with another's), a run with too few fields.
func TestOfflineTRECBadInput(t *testing.T) {
	t.Parallel()
	base := "-- study.toml --\ntitle = \"T\"\n[[analyses]]\nid = \"om\"\ntype = \"offline_metrics\"\nruns = \"runs/{method}.run\"\ntruth = \"qrels.txt\"\n"
	for _, c := range []struct{ qrels, run, want string }{
		{"1 0 a 1\n1 0 b 1.5\n", "1 Q0 a 1 1 r\n", "qrels.txt:2: relevance level \"1.5\" is not an integer"},
		{"1 0 a 1\n", "1 Q0 a 1 1 r\n1 Q0 b 2 high r\n", `runs/m.run:2: score "high" is not a number`},
		{"1 0 a 1\n2 0 b 1\n", "1 Q0 a 1 3 r\n2 Q0 b 1 2 r\n1 Q0 a 2 1 r\n", `runs/m.run:3: user "1": item "a" is listed twice (lines 1 and 3)`},
		{"1 0 a 1\n", "1 Q0 a 1 1\n", "runs/m.run:1: 5 fields, a TREC run line has 6"},
		{"1 0 a 1\n", "\n", "runs/m.run: the run has no rows"},
	} {
		_, err := buildStudy(t, base+"-- qrels.txt --\n"+c.qrels+"-- runs/m.run --\n"+c.run)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// A TREC run's query absent from the qrels is ignored, as trec_eval
// ignores it, with a warning naming it; the values are those of the run
// without it.
func TestOfflineTRECUnknownQuery(t *testing.T) {
	t.Parallel()
	study := "-- study.toml --\ntitle = \"T\"\n[[analyses]]\nid = \"om\"\ntype = \"offline_metrics\"\nruns = \"runs/{method}.run\"\ntruth = \"qrels.txt\"\nk = [1]\n-- qrels.txt --\n1 0 a 1\n2 0 b 1\n-- runs/m.run --\n1 Q0 a 1 2 r\n"
	plain := readFile(t, mustBuild(t, study+"2 Q0 x 1 1 r\n"), "data/om.csv")
	dir := mustBuild(t, study+"999 Q0 a 1 1 r\n2 Q0 x 1 1 r\n")
	if got := readFile(t, dir, "data/om.csv"); got != plain {
		t.Errorf("with an unjudged query:\n%s\nwithout:\n%s", got, plain)
	}
	if js := readFile(t, dir, "data/om.json"); !strings.Contains(js, `1 quer(ies) of the run are not in the qrels (first \"999\")`) {
		t.Errorf("no warning: %s", js)
	}
}

// The analysis JSON's params state which trec_eval's iprec@L cut the
// values follow: "10" by default, "9" when the manifest asks for it.
func TestOfflineMetricsTrecEvalStated(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ extra, want string }{
		{"", "10"},
		{`trec_eval = "9"`, "9"},
	} {
		dir := mustBuild(t, trecStudy(c.extra))
		var js struct {
			Params map[string]any `json:"params"`
		}
		if err := json.Unmarshal([]byte(readFile(t, dir, "data/om.json")), &js); err != nil {
			t.Fatal(err)
		}
		if got := js.Params["trec_eval"]; got != c.want {
			t.Errorf("%q: data/om.json params.trec_eval = %v, want %q", c.extra, got, c.want)
		}
	}
}

// The method note states the iprec@L cut the values follow.
func TestOfflineMetricsTrecEvalNote(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ extra, want, not string }{
		{"", "as trec_eval 10 cuts it", "as trec_eval 9.x and pytrec_eval cut it"},
		{`trec_eval = "9"`, "as trec_eval 9.x and pytrec_eval cut it", "as trec_eval 10 cuts it"},
	} {
		note := kinds.OfflineMethod(offlineTestOpts("runs/{method}.run", "qrels.txt", func(o *offline.Options) {
			if c.extra != "" {
				o.TrecEval = offline.TrecEval9
			}
		}))
		if !strings.Contains(note, c.want) || strings.Contains(note, c.not) {
			t.Errorf("%q: the method note does not say %q:\n%s", c.extra, c.want, note)
		}
	}
}

// trec_eval = "9" in the manifest gives trec_eval 9's iprec@L, per query
// and per run, on the oracle's runs (analyses/offline/testdata/oracle/
// trec_eval, gen.py), where the two releases' cuts differ; without the
// key the values are trec_eval 10's. The whole path is the user's: the
// key as written in study.toml, the site's om-units.csv and om.csv.
func TestOfflineMetricsTrecEval9Build(t *testing.T) {
	t.Parallel()
	dir := "../analyses/offline/testdata/oracle/trec_eval"
	raw, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	type runFx struct {
		PerQuery map[string]map[string]float64 `json:"per_query"`
		Mean     map[string]float64            `json:"mean"`
	}
	var fx struct {
		Thresholds map[string]map[string]runFx `json:"thresholds"`
		TrecEval9  map[string]map[string]runFx `json:"trec_eval9"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	archive := "-- study.toml --\ntitle = \"T\"\n[[analyses]]\nid = \"om\"\ntype = \"offline_metrics\"\nruns = \"runs/{method}.run\"\ntruth = \"qrels.txt\"\nk = [5, 10]\nno_relevant = \"zero\"\nmissing_users = \"zero\"\n%s\n"
	for _, n := range []string{"qrels.txt", "runs/bm25.run", "runs/dense.run"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		archive += "-- " + n + " --\n" + string(b)
	}
	for _, c := range []struct {
		key  string
		want map[string]runFx
	}{{`trec_eval = "9"`, fx.TrecEval9["1"]}, {"", fx.Thresholds["1"]}} {
		site := mustBuild(t, fmt.Sprintf(archive, c.key))
		got := map[string]float64{} // method|unit|metric → value ("" unit: the run's mean)
		for _, f := range []struct{ name, head string }{{"data/om-units.csv", "dataset,method,unit,metric,value"}, {"data/om.csv", "dataset,method,metric,value"}} {
			lines := strings.Split(strings.TrimSpace(readFile(t, site, f.name)), "\n")
			if lines[0] != f.head {
				t.Fatalf("%s: header %q", f.name, lines[0])
			}
			for _, l := range lines[1:] {
				r := strings.Split(l, ",")
				if len(r) == 4 {
					r = []string{r[0], r[1], "", r[2], r[3]}
				}
				v, err := strconv.ParseFloat(r[4], 64)
				if err != nil {
					t.Fatalf("%s: %q", f.name, l)
				}
				got[r[1]+"|"+r[2]+"|"+r[3]] = v
			}
		}
		checked, differ := 0, 0
		for method, w := range c.want {
			other := fx.TrecEval9["1"][method]
			if c.key != "" {
				other = fx.Thresholds["1"][method]
			}
			check := func(unit, m string, want, alt float64) {
				if !strings.HasPrefix(m, "iprec@") {
					return
				}
				g, ok := got[method+"|"+unit+"|"+m]
				if !ok || math.Abs(g-want) > 1e-9 {
					t.Errorf("%q: %s %q %s = %v (present %v), want %v", c.key, method, unit, m, g, ok, want)
				}
				if math.Abs(alt-want) > 1e-9 {
					differ++
				}
				checked++
			}
			for q, ms := range w.PerQuery {
				for m, v := range ms {
					check(q, m, v, other.PerQuery[q][m])
				}
			}
			for m, v := range w.Mean {
				check("", m, v, other.Mean[m])
			}
		}
		if checked < 2*8*11 || differ == 0 {
			t.Errorf("%q: %d iprec values checked, %d differ between the two releases", c.key, checked, differ)
		}
	}
}
