package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/evalbook/evalbook/analyses/meta"
)

// peakSink is a meta sink that records the builder's largest waiting set.
type peakSink struct {
	*metaSink
	peak int
}

func (p *peakSink) Add(u *UnitRow) error {
	err := p.metaSink.Add(u)
	p.peak = max(p.peak, p.b.Waiting())
	return err
}

// TestUnitsPassMemory: with one file per (method, dataset) sorted by
// method, streaming in file order keeps every treatment value waiting for
// its partner; the shared pass reads a dataset's files side by side and
// keeps at most about a batch per file, and both give the same studies.
func TestUnitsPassMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const rows = 3 * unitsBatch
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
	run := func(grouped bool) ([]meta.Study, int) {
		ctx := &Context{ID: "m", Study: s, inputs: newInputs(s), progress: noProgress{}}
		sink := &peakSink{metaSink: newMetaSink(ctx, &meta.Options{Treatment: "B", Control: "C", Metric: "score", Missing: "drop"})}
		groups, err := ctx.inputs.unitsGroups()
		if err != nil || groups == nil {
			t.Fatalf("groups: %v %v", groups, err)
		}
		if !grouped { // file after file, as for a layout without {method} and {dataset}
			groups = nil
			for _, e := range s.Inputs.Units {
				files, err := ctx.inputs.expand(e, "units")
				if err != nil {
					t.Fatal(err)
				}
				for _, mf := range files {
					groups = append(groups, &unitsGroup{files: []unitsJob{{e, mf}}})
				}
			}
		}
		p := &passSink{s: sink, in: make(chan passMsg, 4), done: make(chan struct{})}
		go p.run()
		for _, g := range groups {
			ctx.inputs.passGroup(g, []*passSink{p})
		}
		close(p.in)
		<-p.done
		if p.err != nil {
			t.Fatal(p.err)
		}
		return sink.b.Finish(), sink.peak
	}
	seq, seqPeak := run(false)
	lock, lockPeak := run(true)
	if seqPeak < 2*rows {
		t.Errorf("file-order streaming peak %d, expected all %d treatment values waiting", seqPeak, 2*rows)
	}
	if lockPeak > 2*unitsBatch {
		t.Errorf("side-by-side peak %d values waiting, want at most %d", lockPeak, 2*unitsBatch)
	}
	if fmt.Sprint(seq) != fmt.Sprint(lock) {
		t.Errorf("studies differ:\n%v\n%v", seq, lock)
	}
	if len(lock) != 2 || lock[0].N != rows {
		t.Errorf("studies %+v", lock)
	}
}

// TestMetaLockstepError: an error in the middle of a side-by-side read
// (a bad value a few batches into one file) stops the analysis and names
// the file and line.
func TestMetaLockstepError(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("user,score\n")
	for i := 0; i < 3*unitsBatch; i++ {
		fmt.Fprintf(&b, "u%d,%g\n", i, float64(i%7)/10)
	}
	bad := 2*unitsBatch + 5 // data row; line bad+2
	a := strings.Replace(b.String(), fmt.Sprintf("\nu%d,", bad), fmt.Sprintf("\nu%d,1_0", bad), 1)
	study := "-- study.toml --\ntitle = \"e\"\n[inputs]\nunits = [{ path = \"{method}_{dataset}.csv\", columns = { unit = \"user\" } }]\n" +
		"[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\ntitle = \"m\"\ntreatment = \"A\"\ncontrol = \"B\"\nmetric = \"score\"\n" +
		"-- A_d.csv --\n" + a + "-- B_d.csv --\n" + b.String()
	_, err := buildStudy(t, study)
	if want := fmt.Sprintf("A_d.csv:%d:", bad+2); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one at %s", err, want)
	}
}

// TestMetaDuplicateWaiting: a unit id given twice while its first value
// still waits for its partner is an error naming the file and line,
// whether the first value is the one pending or already in the map.
func TestMetaDuplicateWaiting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ a, b string }{
		{"u1,1\nu1,2\nu2,3\n", "u2,1\nu1,2\nu3,3\n"},             // the repeat follows the first
		{"u1,1\nu2,2\nu1,3\n", "u3,1\nu4,2\nu1,3\n"},             // the first has moved to the map
		{"u1,1\nu2,2\nu3,3\nu2,4\n", "u9,1\nu8,2\nu7,3\nu2,4\n"}, // a later repeat
	} {
		study := "-- study.toml --\ntitle = \"e\"\n[inputs]\nunits = [{ path = \"{method}_{dataset}.csv\", columns = { unit = \"user\" } }]\n" +
			"[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\ntitle = \"m\"\ntreatment = \"A\"\ncontrol = \"B\"\nmetric = \"score\"\n" +
			"-- A_d.csv --\nuser,score\n" + tc.a + "-- B_d.csv --\nuser,score\n" + tc.b
		_, err := buildStudy(t, study, func(o *Options) { o.NoCache = true })
		if err == nil || !strings.Contains(err.Error(), "appears twice") || !strings.Contains(err.Error(), "A_d.csv:") {
			t.Errorf("%q: error %v", tc.a, err)
		}
	}
}

// readOnceStudy is a study of five meta-analyses over one file per
// (method, dataset), three methods, two datasets and two metrics.
func readOnceStudy(long bool) string {
	var b strings.Builder
	b.WriteString("-- study.toml --\ntitle = \"r\"\n[inputs]\n")
	if long {
		b.WriteString("units = [\"units.csv\"]\n")
	} else {
		b.WriteString("units = [{ path = \"{method}_{dataset}.csv\", columns = { unit = \"user\" } }]\n")
	}
	pairs := [][3]string{{"A", "B", "s1"}, {"A", "C", "s1"}, {"B", "C", "s1"}, {"A", "B", "s2"}, {"C", "B", "s2"}}
	for i, p := range pairs {
		fmt.Fprintf(&b, "[[analyses]]\nid = \"m%d\"\ntype = \"meta_analysis\"\ntitle = \"m%d\"\ntreatment = %q\ncontrol = %q\nmetric = %q\n", i, i, p[0], p[1], p[2])
	}
	if long {
		b.WriteString("-- units.csv --\ndataset,method,unit,metric,value\n")
	}
	for mi, m := range []string{"A", "B", "C"} {
		for di, d := range []string{"d1", "d2"} {
			if !long {
				fmt.Fprintf(&b, "-- %s_%s.csv --\nuser,s1,s2\n", m, d)
			}
			for u := 0; u < 40; u++ {
				v1 := float64((u*7+di*3+mi*5)%23) / 23
				v2 := float64((u*11+di+mi*2)%19) / 19
				if long {
					fmt.Fprintf(&b, "%s,%s,u%d,s1,%g\n%s,%s,u%d,s2,%g\n", d, m, u, v1, d, m, u, v2)
				} else {
					fmt.Fprintf(&b, "u%d,%g,%g\n", u, v1, v2)
				}
			}
		}
	}
	return b.String()
}

// TestUnitsReadOnce: five meta-analyses over the same units files open
// each file once per build (the shared pass), and each analysis's numbers
// are those of a build of that analysis alone.
func TestUnitsReadOnce(t *testing.T) {
	t.Parallel()
	for _, long := range []bool{false, true} {
		archive := readOnceStudy(long)
		var mu sync.Mutex
		opens := map[string]int{}
		site := mustBuild(t, archive, func(o *Options) {
			o.NoCache = true
			o.onOpen = func(p string) {
				mu.Lock()
				opens[filepath.Base(p)]++
				mu.Unlock()
			}
		})
		units := 0
		for f, n := range opens {
			if strings.HasSuffix(f, ".csv") {
				units++
				if n != 1 {
					t.Errorf("long=%v: %s opened %d times in one build, want once", long, f, n)
				}
			}
		}
		if want := map[bool]int{false: 6, true: 1}[long]; units != want {
			t.Errorf("long=%v: %d units files opened, want %d: %v", long, units, want, opens)
		}
		// Each analysis alone: the same table.
		for i := 0; i < 5; i++ {
			id := fmt.Sprintf("m%d", i)
			alone := keepAnalysis(t, archive, id)
			solo := mustBuild(t, alone, func(o *Options) { o.NoCache = true })
			got, want := readFile(t, site, "data/"+id+".csv"), readFile(t, solo, "data/"+id+".csv")
			if got != want {
				t.Errorf("long=%v: %s in the shared pass differs from a build of it alone:\n%s\nvs\n%s", long, id, got, want)
			}
		}
	}
}

// keepAnalysis returns the archive with only the [[analyses]] entry id.
func keepAnalysis(t *testing.T, archive, id string) string {
	t.Helper()
	head, rest, _ := strings.Cut(archive, "[[analyses]]")
	body := "[[analyses]]" + rest
	files := ""
	if i := strings.Index(body, "\n-- "); i >= 0 {
		body, files = body[:i+1], body[i+1:]
	}
	var keep string
	for _, a := range strings.Split(body, "[[analyses]]")[1:] {
		if strings.Contains(a, "id = \""+id+"\"") {
			keep = "[[analyses]]" + a
		}
	}
	if keep == "" {
		t.Fatalf("no analysis %s", id)
	}
	return head + keep + files
}

// TestUnitsPassErrors: a bad value in the files of one method fails the
// analyses that pair that method, naming file and line, and no other: a
// wide file of a method an analysis does not pair is not parsed for it.
func TestUnitsPassErrors(t *testing.T) {
	t.Parallel()
	archive := readOnceStudy(false)
	i := strings.Index(archive, "-- C_d2.csv --")
	j := i + strings.Index(archive[i:], "u3,")
	k := j + strings.Index(archive[j:], ",")
	bad := archive[:k] + ",0x1p-2" + archive[k+strings.Index(archive[k+1:], ",")+1:]
	_, err := buildStudy(t, bad, func(o *Options) { o.NoCache = true })
	if err == nil {
		t.Fatal("a hexadecimal value built")
	}
	msg := err.Error()
	if !strings.Contains(msg, "C_d2.csv:5:") {
		t.Errorf("error does not name C_d2.csv:5: %v", msg)
	}
	for _, id := range []string{"m1", "m2", "m4"} { // the analyses with C
		if !strings.Contains(msg, id) {
			t.Errorf("error does not name %s: %v", id, msg)
		}
	}
	for _, id := range []string{"m0", "m3"} {
		if strings.Contains(msg, id) {
			t.Errorf("error names %s, which does not read C: %v", id, msg)
		}
	}
}
