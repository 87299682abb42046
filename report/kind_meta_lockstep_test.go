package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// TestMetaLockstepMemory: with one file per (method, dataset) sorted by
// method, streaming in file order keeps every treatment value waiting for
// its partner; the lockstep reader keeps at most about a batch, and both
// give the same studies.
func TestMetaLockstepMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const rows = 3 * metaBatch
	for _, m := range []string{"A", "B", "C"} {
		for di, d := range []string{"d1", "d2"} {
			var b strings.Builder
			b.WriteString("user,score\n")
			for i := 0; i < rows; i++ {
				fmt.Fprintf(&b, "u%d,%g\n", i, float64((i*7+di*3+len(m))%101)/100)
			}
			os.WriteFile(filepath.Join(dir, m+"_"+d+".csv"), []byte(b.String()), 0o644)
		}
	}
	manifest := "title = \"l\"\n[inputs]\nunits = [{ path = \"{method}_{dataset}.csv\", columns = { unit = \"user\" } }]\n"
	os.WriteFile(filepath.Join(dir, "study.toml"), []byte(manifest), 0o644)
	s, err := LoadStudy(filepath.Join(dir, "study.toml"), Kinds())
	if err != nil {
		t.Fatal(err)
	}
	run := func(lockstep bool) ([]analyses.MetaStudy, int) {
		ctx := &Context{Study: s, inputs: newInputs(s), progress: noProgress{}}
		b := analyses.NewMetaBuilder("B", "C", "drop")
		peak := 0
		emit := func(u *UnitRow) error {
			if err := b.Add(u.Dataset, u.Method, u.Unit, u.Row, u.Value); err != nil {
				return err
			}
			peak = max(peak, b.Waiting())
			return nil
		}
		if lockstep {
			ok, err := metaUnitsLockstep(ctx, "B", "C", "score", emit, func(d, m string) { b.Seen(d) })
			if !ok || err != nil {
				t.Fatalf("lockstep: %v %v", ok, err)
			}
		} else if err := ctx.Units(emit); err != nil {
			t.Fatal(err)
		}
		return b.Finish(), peak
	}
	seq, seqPeak := run(false)
	lock, lockPeak := run(true)
	if seqPeak < 2*rows {
		t.Errorf("file-order streaming peak %d, expected all %d treatment values waiting", seqPeak, 2*rows)
	}
	if lockPeak > 2*metaBatch {
		t.Errorf("lockstep peak %d values waiting, want at most %d", lockPeak, 2*metaBatch)
	}
	if fmt.Sprint(seq) != fmt.Sprint(lock) {
		t.Errorf("studies differ:\n%v\n%v", seq, lock)
	}
	if len(lock) != 2 || lock[0].N != rows {
		t.Errorf("studies %+v", lock)
	}
}

// TestMetaLockstepError: an error in the middle of a lockstep read stops
// both readers and names the file and line.
func TestMetaLockstepError(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("user,score\n")
	for i := 0; i < 3*metaBatch; i++ {
		fmt.Fprintf(&b, "u%d,%g\n", i, float64(i%7)/10)
	}
	// A unit id given twice while its first value waits for its partner
	// is an error. (A repeat after the pair was completed cannot be seen
	// without keeping every id: ids must be unique per method and dataset.)
	a := strings.Replace(b.String(), "\nu1,", "\nu0,", 1)
	study := "-- study.toml --\ntitle = \"e\"\n[inputs]\nunits = [{ path = \"{method}_{dataset}.csv\", columns = { unit = \"user\" } }]\n" +
		"[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\ntitle = \"m\"\ntreatment = \"A\"\ncontrol = \"B\"\nmetric = \"score\"\n" +
		"-- A_d.csv --\n" + a + "-- B_d.csv --\n" + b.String()
	_, err := buildStudy(t, study)
	if err == nil || !strings.Contains(err.Error(), "appears twice") || !strings.Contains(err.Error(), "_d.csv:") {
		t.Errorf("error %v", err)
	}
}
