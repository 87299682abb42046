package report

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// addOnlySink is a meta sink that the pass can only hand rows through
// Add (it is not a *metaSink, so the pass does not use TakeRound).
type addOnlySink struct{ *kinds.MetaSink }

func (a addOnlySink) Add(u *load.UnitRow) error { return a.MetaSink.Add(u) }

// TestMetaTakeRoundIsAdd: a meta sink fed whole rounds (TakeRound, its
// slots found once per batch) ends with exactly what the same sink fed
// row by row through Add ends with: the studies bit for bit, the
// methods and metrics it met, the values it counted and its error. The
// layouts: wide files read side by side (units listed in different
// orders, uneven lengths, empty cells), a long file with a method that
// is neither the treatment nor the control and rows paired by row, and
// files with a repeated unit id (an error with its line).
func TestMetaTakeRoundIsAdd(t *testing.T) {
	t.Parallel()
	for name, files := range map[string]map[string]string{
		"wide": metaRoundsWide(false),
		"dup":  metaRoundsWide(true),
		"long": metaRoundsLong(),
	} {
		for _, missing := range []string{"drop", "zero"} {
			for _, design := range []string{"", "independent"} {
				t.Run(name+"/"+missing+"/"+design, func(t *testing.T) {
					fast, slow := metaRoundsRun(t, files, missing, design)
					if fast != slow {
						t.Errorf("TakeRound gave\n%s\nAdd gave\n%s", fast, slow)
					}
					if want := "C_d2.csv:1029: unit \"u1569\" of method \"C\" on dataset \"d2\" appears twice"; name == "dup" && design == "" && !strings.Contains(fast, want) {
						t.Errorf("no error %q:\n%s", want, fast)
					}
				})
			}
		}
	}
}

// metaRoundsRun feeds a TakeRound sink and an Add-only sink of each of
// two analyses in one pass over files, and describes what each ended with.
func metaRoundsRun(t *testing.T, files map[string]string, missing, design string) (fast, slow string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	job := &kinds.Job{ID: "m", Study: s, Inputs: newInputs(s), ProgressTo: kinds.NoProgress{}}
	var fasts, slows []*kinds.MetaSink
	var sinks []load.UnitsSink
	for _, p := range [][3]string{{"A", "B", "s1"}, {"C", "A", "s2"}} {
		o := &meta.Options{Treatment: p[0], Control: p[1], Metric: p[2], Missing: missing, Design: design}
		f, sl := kinds.NewMetaSink(job, o), kinds.NewMetaSink(job, o)
		fasts, slows = append(fasts, f), append(slows, sl)
		sinks = append(sinks, f, addOnlySink{sl})
	}
	errs := job.Inputs.UnitsPass(context.Background(), sinks)
	describe := func(ms []*kinds.MetaSink, errs []error) string {
		var b strings.Builder
		for i, m := range ms {
			fmt.Fprintf(&b, "%d: values %d methods %v metrics %v err %v\n%v\n", i, m.Values, m.Methods, m.Metrics, errs[i], m.B.Finish())
		}
		return b.String()
	}
	if _, ok := fasts[0].B.(*meta.Builder); ok == (design == "independent") {
		t.Fatalf("design %q: builder %T", design, fasts[0].B)
	}
	return describe(fasts, []error{errs[0], errs[2]}), describe(slows, []error{errs[1], errs[3]})
}

// metaRoundsWide is a study of one wide file per (method, dataset):
// three methods, two datasets, two metrics; dup repeats a unit id in
// one file.
func metaRoundsWide(dup bool) map[string]string {
	files := map[string]string{"study.toml": "title = \"r\"\n[inputs]\nunits = [{ path = \"{method}_{dataset}.csv\", columns = { unit = \"user\" } }]\n"}
	for mi, m := range []string{"A", "B", "C"} {
		for di, d := range []string{"d1", "d2"} {
			var b strings.Builder
			b.WriteString("user,s1,s2\n")
			n := 3*load.UnitsBatch + 17*mi + di
			for k := 0; k < n; k++ {
				u := k
				if mi == 2 && di == 1 { // another order
					u = (k * 7) % n
				}
				v1, v2 := fmt.Sprint(float64((u*7+di*3+mi*5)%23)/23+1e3), fmt.Sprint(float64((u*11+di+mi*2)%19)/19)
				if (u+mi)%37 == 0 {
					v1 = ""
				}
				if (u+di)%41 == 0 {
					v2 = ""
				}
				if dup && mi == 2 && di == 1 && k == 2*load.UnitsBatch+3 {
					u = (673 * 7) % n // given at k = 673, and still waiting: A_d2 has no such unit
				}
				fmt.Fprintf(&b, "u%d,%s,%s\n", u, v1, v2)
			}
			files[m+"_"+d+".csv"] = b.String()
		}
	}
	return files
}

// metaRoundsLong is a study of one long file without unit ids (values
// paired by row) in which a method D that no sink pairs has values too.
func metaRoundsLong() map[string]string {
	var b strings.Builder
	b.WriteString("dataset,method,metric,value\n")
	for k := 0; k < 2*load.UnitsBatch+11; k++ {
		for _, d := range []string{"d1", "d2"} {
			for mi, m := range []string{"A", "B", "C", "D"} {
				v := fmt.Sprint(float64((k*13+mi*7)%29) / 29)
				if (k+mi)%31 == 0 {
					v = ""
				}
				fmt.Fprintf(&b, "%s,%s,s%d,%s\n", d, m, 1+(k+mi)%2, v)
			}
		}
	}
	return map[string]string{"study.toml": "title = \"r\"\n[inputs]\nunits = [\"units.csv\"]\n", "units.csv": b.String()}
}

// roundSizes is a sink that records the rows of the batches of each
// round it takes, by the number of batches in the round.
type roundSizes struct {
	metric string
	most   map[int]int // batches in a round → most rows in one of them
}

func (r *roundSizes) Metric() string             { return r.metric }
func (r *roundSizes) Wants(string) bool          { return true }
func (r *roundSizes) Add(*load.UnitRow) error    { return nil }
func (r *roundSizes) OtherMetric(_, _, _ string) {}
func (r *roundSizes) Seen(_, _ string)           {}
func (r *roundSizes) RoundSink() load.RoundTaker { return r }
func (r *roundSizes) TakeRound(round []*load.UnitsBatchOf, _ [][]bool) error {
	n := 0
	for _, b := range round {
		if b != nil {
			n++
		}
	}
	for _, b := range round {
		if b != nil {
			r.most[n] = max(r.most[n], len(b.Rows))
		}
	}
	return nil
}

// TestLoneFileBatchesAreBig: a units file alone in its group is handed
// to the sinks in batches of RangeBatch rows (each batch crosses between
// cores, and at UnitsBatch rows the crossings cost the Parquet twin of
// the 1 GB study a fifth of its CPU); files read side by side in a group
// keep batches of UnitsBatch rows, which bound the rows a round holds.
func TestLoneFileBatchesAreBig(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		files   map[string]string
		batches int // in a round
		want    int
	}{
		"alone":        {metaRoundsLong(), 1, 2*load.UnitsBatch + 11}, // 1035 rows of s1 and s2 each, d1 and d2: one batch
		"side by side": {metaRoundsWide(false), 3, load.UnitsBatch},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for f, text := range c.files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
			if err != nil {
				t.Fatal(err)
			}
			sink := &roundSizes{metric: "s1", most: map[int]int{}}
			if errs := newInputs(s).UnitsPass(context.Background(), []load.UnitsSink{sink}); errs[0] != nil {
				t.Fatal(errs[0])
			}
			if got := sink.most[c.batches]; got < c.want {
				t.Errorf("rounds of %d batches: at most %d rows in a batch, want %d (all rounds: %v)", c.batches, got, c.want, sink.most)
			}
			if c.batches > 1 && sink.most[c.batches] > load.UnitsBatch {
				t.Errorf("files side by side: a batch of %d rows, more than %d", sink.most[c.batches], load.UnitsBatch)
			}
		})
	}
}
