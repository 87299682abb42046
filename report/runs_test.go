package report

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/offline"

	"github.com/evalbook/evalbook/report/input/runs"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// offlineTestCtx writes files into a temporary study directory and returns
// a Job on it.
func offlineTestCtx(t testing.TB, files map[string]string) *kinds.Job {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		data := []byte(text)
		if strings.HasSuffix(name, ".gz") {
			var b bytes.Buffer
			w := gzip.NewWriter(&b)
			w.Write(data)
			w.Close()
			data = b.Bytes()
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := &manifest.Study{File: filepath.Join(dir, "study.toml"), Dir: dir, Title: "study"}
	return &kinds.Job{ID: "om", Title: "Offline", Study: s, Workers: 2, Inputs: newInputs(s), ProgressTo: kinds.NoProgress{}}
}

func offlineTestOpts(runs, truth string, mut ...func(*offline.Options)) *offline.Options {
	o := &offline.Options{Runs: runs, Truth: truth}
	o.Defaults()
	for _, m := range mut {
		m(o)
	}
	return o
}

const offlineTruthCSV = "user,item,relevance\nu1,a,1\nu1,b,2\nu2,c,1\nu2,a,0\n"

// Each malformed input gives one error naming the file and the line.
func TestOfflineReaderErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, truth, run, runName, want string
	}{
		{"duplicate item", offlineTruthCSV, "user,item,rank\nu1,a,1\nu1,x,2\nu1,a,3\n", "runs/m.csv",
			`runs/m.csv:4: user "u1": item "a" is listed twice`},
		{"rank gap", offlineTruthCSV, "user,item,rank\nu1,a,1\nu1,b,2\nu1,c,4\n", "runs/m.csv",
			`runs/m.csv:4: user "u1": rank gap: rank 4 follows rank 2`},
		{"rank gap unsorted", offlineTruthCSV, "user,item,rank\nu1,c,5\nu1,a,1\nu1,b,2\n", "runs/m.csv",
			`runs/m.csv:2: user "u1": rank gap: rank 5 follows rank 2`},
		{"repeated rank", offlineTruthCSV, "user,item,rank\nu1,a,1\nu1,b,1\n", "runs/m.csv",
			`runs/m.csv:3: user "u1": rank 1 appears twice (lines 2 and 3)`},
		{"ranks from 0", offlineTruthCSV, "user,item,rank\nu1,a,0\n", "runs/m.csv",
			`runs/m.csv:2: rank "0" is not a positive integer`},
		{"ranks from 2", offlineTruthCSV, "user,item,rank\nu1,a,2\nu1,b,3\n", "runs/m.csv",
			`runs/m.csv:2: user "u1": ranks start at 2, want 1`},
		{"unknown user", offlineTruthCSV, "user,item,rank\nu1,a,1\nu9,a,1\n", "runs/m.csv",
			`runs/m.csv:3: unknown user "u9": not in the truth`},
		{"user split", offlineTruthCSV, "user,item,rank\nu1,a,1\nu2,a,1\nu1,b,1\n", "runs/m.csv",
			`runs/m.csv:4: user "u1" has a second list`},
		{"bad rank", offlineTruthCSV, "user,item,rank\nu1,a,first\n", "runs/m.csv",
			`runs/m.csv:2: rank "first" is not a positive integer`},
		{"no rank column", offlineTruthCSV, "user,item,position\nu1,a,1\n", "runs/m.csv",
			`runs/m.csv:1: no column "rank"`},
		{"short line", offlineTruthCSV, "user,item,rank\nu1,a\n", "runs/m.csv",
			`runs/m.csv:2: 2 fields, the header needs 3`},
		{"quote", offlineTruthCSV, "user,item,rank\nu1,\"a,1\n", "runs/m.csv",
			`runs/m.csv:2:4: extraneous or missing " in quoted-field`},
		{"empty item", offlineTruthCSV, "user,item,rank\nu1,,1\n", "runs/m.csv",
			`runs/m.csv:2: empty item id`},
		{"trec fields", offlineTruthCSV, "u1 Q0 a 1 0.5\n", "runs/m.run",
			`runs/m.run:1: 5 fields, a TREC run line has 6`},
		{"trec duplicate", offlineTruthCSV, "u1 Q0 a 1 0.5 t\nu1 Q0 b 2 0.4 t\nu1 Q0 a 3 0.3 t\n", "runs/m.run",
			`runs/m.run:3: user "u1": item "a" is listed twice`},
		{"trec bad score", offlineTruthCSV, "u1 Q0 a 1 high t\n", "runs/m.run",
			`runs/m.run:1: score "high" is not a number`},
		{"truth duplicate", "user,item\nu1,a\nu2,a\nu1,a\n", "user,item,rank\nu1,a,1\n", "runs/m.csv",
			`truth.csv:4: user "u1": item "a" is listed twice (first at truth.csv:2)`},
		{"truth relevance", "user,item,relevance\nu1,a,yes\n", "user,item,rank\nu1,a,1\n", "runs/m.csv",
			`truth.csv:2: relevance "yes" is not a number`},
		{"truth column", "user,itm\nu1,a\n", "user,item,rank\nu1,a,1\n", "runs/m.csv",
			`truth.csv:1: no column "item" (header: user,itm) (did you mean "itm"?)`},
		{"empty run", offlineTruthCSV, "user,item,rank\n", "runs/m.csv",
			`runs/m.csv: the run has no rows`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := offlineTestCtx(t, map[string]string{"truth.csv": c.truth, c.runName: c.run})
			pattern := "runs/{method}" + filepath.Ext(c.runName)
			_, err := kinds.OfflineMetricsDerived(ctx, offlineTestOpts(pattern, "truth.csv"), nil)
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q\nwant it to contain %q", err, c.want)
			}
		})
	}
}

// The three layouts of a run give the same values: a CSV in shuffled rank
// order, a gzipped TSV, and a CSV ordered by score with quoted ids.
func TestOfflineReaderLayouts(t *testing.T) {
	t.Parallel()
	ctx := offlineTestCtx(t, map[string]string{
		"truth.csv":         offlineTruthCSV,
		"runs/csv.csv":      "user,item,rank,score\nu1,x,2,0\nu1,b,1,0\nu1,a,3,0\nu2,c,1,0\n",
		"runs/tsv.tsv.gz":   "user\titem\trank\nu1\tb\t1\nu1\tx\t2\nu1\ta\t3\nu2\tc\t1\n",
		"runs/score.csv":    "\ufeffuser,item,score\r\nu1,\"a\",0.1\r\nu1,b,0.9\r\nu1,\"x\",0.5\r\n\r\nu2,c,1\r\n",
		"runs/scoretie.csv": "user,item,score\nu1,a,0.5\nu1,x,0.5\nu1,b,0.9\nu2,c,1\n", // tie a/x: x first (item descending)
	})
	o := offlineTestOpts("runs/{method}.*", "truth.csv", func(o *offline.Options) { o.K = []int{1, 2, 3} })
	d, err := kinds.OfflineMetricsDerived(ctx, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Runs) != 4 {
		t.Fatalf("%d runs", len(d.Runs))
	}
	ref := d.Runs[0].Values
	for _, r := range d.Runs[1:] {
		for name, v := range ref {
			if (v == nil) != (r.Values[name] == nil) || (v != nil && *v != *r.Values[name]) {
				t.Errorf("%s %s = %v, csv run has %v", r.Method, name, r.Values[name], v)
			}
		}
	}
	// u1: b (rel 2), x (not in truth), a (rel 1) → map@3 = (1/1 + 2/3)/2.
	if got, want := *ref["map@3"], ((1+2.0/3)/2+1)/2; math.Abs(got-want) > 1e-15 {
		t.Errorf("map@3 = %v, want %v", got, want)
	}
}

// The TREC fixture of testdata/oracle/offline_metrics (gen_trec.py): every
// per-query and mean value as trec_eval 9 defines them, to 1e-12.
func TestOfflineTRECFixture(t *testing.T) {
	t.Parallel()
	dir := "../analyses/offline/testdata/oracle/offline_metrics/trec"
	var fx struct {
		K        []int                         `json:"k"`
		Order    map[string][]string           `json:"order"`
		PerQuery map[string]map[string]float64 `json:"per_query"`
		Mean     map[string]float64            `json:"mean"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, n := range []string{"qrels.txt", "run.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		files["trec/"+n] = string(b)
	}
	// The run under a {method} pattern.
	files["trec/runs/bm25.txt"] = files["trec/run.txt"]
	ctx := offlineTestCtx(t, files)
	o := offlineTestOpts("trec/runs/{method}.txt", "trec/qrels.txt", func(o *offline.Options) { o.K = fx.K })
	got := map[string]map[string]float64{}
	d, err := kinds.OfflineMetricsDerived(ctx, o, func(u *load.UnitRow) error {
		if got[u.Unit] == nil {
			got[u.Unit] = map[string]float64{}
		}
		got[u.Unit][u.Metric] = u.Value
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for q, want := range fx.PerQuery {
		for m, w := range want {
			if g, ok := got[q][m]; !ok || math.Abs(g-w) > 1e-12 {
				t.Errorf("query %s %s = %v, trec_eval %v", q, m, g, w)
			}
		}
	}
	for m, w := range fx.Mean {
		if g := d.Runs[0].Values[m]; g == nil || math.Abs(*g-w) > 1e-12 {
			t.Errorf("mean %s = %v, trec_eval %v", m, g, w)
		}
	}
	// The order trec_eval evaluates (score descending, docno descending).
	rr, err := runs.OpenCapped(filepath.Join(ctx.Study.Dir, "trec/run.txt"), "run.txt", runs.FormatTREC, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	for {
		user, items, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, it := range items {
			names = append(names, string(it))
		}
		if want := strings.Join(fx.Order[string(user)], " "); strings.Join(names, " ") != want {
			t.Errorf("query %s order %v, trec_eval %s", user, names, want)
		}
	}
}

// FuzzOfflineRun feeds arbitrary run files to the reader and the
// evaluator: they must return values or an error, never panic, and an
// error must name the file.
func FuzzOfflineRun(f *testing.F) {
	f.Add("user,item,rank\nu1,a,1\nu1,b,2\nu2,c,1\n", false)
	f.Add("user,item,rank\nu1,a,1\nu1,a,2\n", false)
	f.Add("user,item,score\nu1,\"a\"\"\",0.5\nu2,c,NaN\n", false)
	f.Add("u1 Q0 a 1 0.5 t\nu2 Q0 c 1 0.7 t\n", true)
	f.Add("u1 Q0 a 1 -Inf t\n\n\nu1 Q0 b 2 +Inf t\n", true)
	f.Fuzz(func(t *testing.T, run string, trec bool) {
		name := "runs/m.csv"
		if trec {
			name = "runs/m.run"
		}
		ctx := offlineTestCtx(t, map[string]string{"truth.csv": offlineTruthCSV, name: run})
		o := offlineTestOpts("runs/{method}"+filepath.Ext(name), "truth.csv", func(o *offline.Options) { o.K = []int{1, 3} })
		d, err := kinds.OfflineMetricsDerived(ctx, o, func(u *load.UnitRow) error {
			if math.IsNaN(u.Value) || u.Value < 0 || u.Value > 1 {
				t.Fatalf("user %s %s = %v, outside [0, 1]", u.Unit, u.Metric, u.Value)
			}
			return nil
		})
		if err != nil {
			if !strings.Contains(err.Error(), "m.") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		for _, r := range d.Runs {
			for name, v := range r.Values {
				if v != nil && !analyses.Finite(*v) {
					t.Fatalf("%s = %v", name, *v)
				}
			}
		}
	})
}

// The values do not depend on the number of workers, and a duplicate
// truth entry across two truth files names both places.
func TestOfflineJobsAndSplitTruth(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"truth/part1.csv": "user,item,relevance\nu1,a,1\nu1,b,2\n",
		"truth/part2.csv": "user,item,relevance\nu2,c,1\nu2,a,3\n",
	}
	for m, list := range map[string]string{"m1": "a,b,c", "m2": "c,a", "m3": "b"} {
		var b strings.Builder
		b.WriteString("user,item,rank\n")
		for _, u := range []string{"u1", "u2"} {
			for r, it := range strings.Split(list, ",") {
				b.WriteString(u + "," + it + "," + strconv.Itoa(r+1) + "\n")
			}
		}
		files["runs/"+m+".csv"] = b.String()
	}
	var ref []offline.RunValues
	for _, jobs := range []int{1, 2, 4} {
		ctx := offlineTestCtx(t, files)
		ctx.Workers = jobs
		d, err := kinds.OfflineMetricsDerived(ctx, offlineTestOpts("runs/{method}.csv", "truth/*.csv"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = d.Runs
			continue
		}
		if !reflect.DeepEqual(ref, d.Runs) {
			t.Errorf("jobs %d: values differ", jobs)
		}
	}
	files["truth/part2.csv"] += "u1,b,1\n"
	ctx := offlineTestCtx(t, files)
	_, err := kinds.OfflineMetricsDerived(ctx, offlineTestOpts("runs/{method}.csv", "truth/*.csv"), nil)
	want := `truth/part2.csv:4: user "u1": item "b" is listed twice (first at truth/part1.csv:3)`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// TestOfflineKeptRowsParallel: the per-user rows the analysis keeps for
// its data file are the same, in the same order (datasets, methods
// sorted, users in file order), whether its runs are read one after the
// other or in parallel, each into its own buffer.
func TestOfflineKeptRowsParallel(t *testing.T) {
	t.Parallel()
	files := map[string]string{"truth.csv": offlineTruthCSV}
	for m, list := range map[string]string{"m1": "a,b,c", "m2": "c,a", "m3": "b", "m4": "a,c"} {
		var b strings.Builder
		b.WriteString("user,item,rank\n")
		for _, u := range []string{"u2", "u1"} {
			for r, it := range strings.Split(list, ",") {
				b.WriteString(u + "," + it + "," + strconv.Itoa(r+1) + "\n")
			}
		}
		files["runs/"+m+".csv"] = b.String()
	}
	var ref string
	for _, jobs := range []int{1, 2, 4} {
		ctx := offlineTestCtx(t, files)
		ctx.Workers = jobs
		out, err := kinds.RunOfflineMetrics(ctx, offlineTestOpts("runs/{method}.csv", "truth.csv"))
		if err != nil {
			t.Fatal(err)
		}
		rows := out.Result.(*offline.Result).UnitRows
		if len(rows) < 4*2*5 {
			t.Fatalf("%d rows", len(rows))
		}
		got := fmt.Sprint(rows)
		if !strings.HasPrefix(got, "[[study m1 u2 ") {
			t.Fatalf("rows start %.40s, want m1's user u2 first", got)
		}
		if ref == "" {
			ref = got
		} else if got != ref {
			t.Errorf("%d workers: rows\n%.300s\nwant\n%.300s", jobs, got, ref)
		}
	}
}

// TestOfflineRunChangedSinceScanned: a TREC run is streamed because the
// pass that hashed it found its queries contiguous; a file written to
// after that pass (here: a query's lines appended apart, which a stream
// would silently count twice) is an error, not a wrong number.
func TestOfflineRunChangedSinceScanned(t *testing.T) {
	t.Parallel()
	run := "zz Q0 a 1 0.9 t\nu1 Q0 a 1 0.9 t\nu1 Q0 b 2 0.8 t\n"
	ctx := offlineTestCtx(t, map[string]string{"truth.csv": offlineTruthCSV, "runs/m.run": run})
	o := offlineTestOpts("runs/{method}.run", "truth.csv")
	if _, err := kinds.OfflineMetricsDerived(ctx, o, nil); err != nil {
		t.Fatal(err)
	}
	ctx = offlineTestCtx(t, map[string]string{"truth.csv": offlineTruthCSV, "runs/m.run": run})
	appended := false
	ctx.Inputs.OnOpen = func(path string) {
		if strings.HasSuffix(path, "m.run") && !appended {
			appended = true
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			f.WriteString("zz Q0 b 2 0.1 t\n")
			f.Close()
		}
	}
	_, err := kinds.OfflineMetricsDerived(ctx, o, nil)
	if !appended {
		t.Fatal("the run was never opened")
	}
	if err == nil || !strings.Contains(err.Error(), "runs/m.run: the file changed while it was read") {
		t.Fatalf("got %v", err)
	}
}
