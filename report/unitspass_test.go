package report

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// peakSink is a meta sink that records the builder's largest waiting set.
type peakSink struct {
	*kinds.MetaSink
	peak int
}

func (p *peakSink) Add(u *load.UnitRow) error {
	err := p.MetaSink.Add(u)
	p.peak = max(p.peak, p.B.(*meta.Builder).Waiting())
	return err
}

// TestUnitsPassMemory: with one file per (method, dataset) sorted by
// method, streaming in file order keeps every treatment value waiting for
// its partner; the shared pass reads a dataset's files side by side and
// keeps at most about a batch per file, and both give the same studies.
func TestUnitsPassMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const rows = 3 * load.UnitsBatch
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
	manifestPath := "title = \"l\"\n[inputs]\nunits = [{ path = \"{method}_{dataset}.csv\", columns = { unit = \"user\" } }]\n"
	os.WriteFile(filepath.Join(dir, "study.toml"), []byte(manifestPath), 0o644)
	s, err := manifest.LoadStudy(filepath.Join(dir, "study.toml"), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	run := func(grouped bool) ([]meta.Study, int) {
		ctx := &kinds.Job{ID: "m", Study: s, Inputs: newInputs(s), ProgressTo: kinds.NoProgress{}}
		sink := &peakSink{MetaSink: kinds.NewMetaSink(ctx, &meta.Options{Treatment: "B", Control: "C", Metric: "score", Missing: "drop"})}
		groups, err := ctx.Inputs.UnitsGroups()
		if err != nil || groups == nil {
			t.Fatalf("groups: %v %v", groups, err)
		}
		if !grouped { // file after file, as for a layout without {method} and {dataset}
			groups = nil
			for _, e := range ctx.Inputs.Study.Inputs.Units {
				files, err := ctx.Inputs.Expand(e, "units")
				if err != nil {
					t.Fatal(err)
				}
				for _, mf := range files {
					groups = append(groups, &load.UnitsGroup{Files: []load.UnitsJob{load.NewUnitsJob(e, mf)}})
				}
			}
		}
		p := load.NewPassSink(sink)
		go p.Run()
		for _, g := range groups {
			ctx.Inputs.PassGroup(g, []*load.PassSink{p})
		}
		close(p.In)
		<-p.Done
		if p.Err != nil {
			t.Fatal(p.Err)
		}
		return sink.B.Finish(), sink.peak
	}
	seq, seqPeak := run(false)
	lock, lockPeak := run(true)
	if seqPeak < 2*rows {
		t.Errorf("file-order streaming peak %d, expected all %d treatment values waiting", seqPeak, 2*rows)
	}
	if lockPeak > 2*load.UnitsBatch {
		t.Errorf("side-by-side peak %d values waiting, want at most %d", lockPeak, 2*load.UnitsBatch)
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
	for i := 0; i < 3*load.UnitsBatch; i++ {
		fmt.Fprintf(&b, "u%d,%g\n", i, float64(i%7)/10)
	}
	bad := 2*load.UnitsBatch + 5 // data row; line bad+2
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

// TestUnitsPassBigFiles: files larger than the read buffer, whose unit
// ids alias it while a row is parsed: every unit pairs (an id copied too
// late would be overwritten by the next read and pair wrongly or not at
// all), in the per-file and the long layout, and the mean difference is
// the one built in.
func TestUnitsPassBigFiles(t *testing.T) {
	t.Parallel()
	const rows = 60000 // about 1.5 MB per file, 3 MB long
	var a, b, long strings.Builder
	a.WriteString("user,score\n")
	b.WriteString("user,score\n")
	long.WriteString("dataset,method,unit,metric,value\n")
	sum := 0.0
	for i := 0; i < rows; i++ {
		c := float64(i%97) / 97
		d := 0.25 * float64(1+i%3)
		sum += d
		fmt.Fprintf(&a, "user-%08d-with-a-long-id,%g\n", i, c+d)
		fmt.Fprintf(&b, "user-%08d-with-a-long-id,%g\n", i, c)
		fmt.Fprintf(&long, "d,A,user-%08d-with-a-long-id,score,%g\nd,B,user-%08d-with-a-long-id,score,%g\n", i, c+d, i, c)
	}
	analysis := "[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\ntitle = \"m\"\ntreatment = \"A\"\ncontrol = \"B\"\nmetric = \"score\"\n"
	for name, archive := range map[string]string{
		"per file": "-- study.toml --\ntitle = \"big\"\n[inputs]\nunits = [{ path = \"{method}_{dataset}.csv\", columns = { unit = \"user\" } }]\n" + analysis +
			"-- A_d.csv --\n" + a.String() + "-- B_d.csv --\n" + b.String(),
		"long": "-- study.toml --\ntitle = \"big\"\n[inputs]\nunits = [\"u.csv\"]\n" + analysis + "-- u.csv --\n" + long.String(),
	} {
		site := mustBuild(t, archive, func(o *Options) { o.NoCache = true })
		row := readJSON(t, site, "data/m.json")["tables"].(map[string]any)["m"].([]any)[0].(map[string]any)
		if n := row["n"].(float64); n != rows {
			t.Errorf("%s: %v pairs, want %d: %v", name, n, rows, row)
		}
		if md := row["effect"].(float64); math.Abs(md-sum/rows) > 1e-12 {
			t.Errorf("%s: mean difference %v, want %v", name, md, sum/rows)
		}
	}
}

// TestUnitsParallelRanges: a units file parsed in parallel byte ranges
// (here from 16 KiB, in ranges of 4 KiB) gives every analysis exactly
// what reading it in order gives — by unit id and by row, with blank
// lines and CRLF — and an error or a quoted field anywhere is handled as
// in order: the error at its absolute line, the quoted field parsed.
func TestUnitsParallelRanges(t *testing.T) {
	t.Parallel()
	const rows = 6000
	long := func(edit func(i int, line string) string) string {
		var b strings.Builder
		b.WriteString("dataset,method,unit,metric,value\r\n")
		for i := 0; i < rows; i++ {
			for mi, m := range []string{"A", "B"} {
				v := float64((i*7+mi*i*i*13)%101) / 100
				line := fmt.Sprintf("d%d,%s,u%d,s,%g", i%3, m, i, v)
				if edit != nil {
					line = edit(i, line)
				}
				b.WriteString(line + "\r\n")
			}
			if i%1000 == 999 {
				b.WriteString("\r\n") // a blank line
			}
		}
		return b.String()
	}
	study := func(data string) string {
		return "-- study.toml --\ntitle = \"p\"\n[inputs]\nunits = [\"u.csv\"]\n" +
			"[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\ntitle = \"m\"\ntreatment = \"A\"\ncontrol = \"B\"\nmetric = \"s\"\n" +
			"[[analyses]]\nid = \"p\"\ntype = \"paired_tests\"\ntitle = \"p\"\nmetric = \"s\"\ndataset = \"d1\"\n" +
			"-- u.csv --\n" + data
	}
	var mu sync.Mutex
	ranged := map[string]bool{}
	parallel := func(o *Options) {
		o.NoCache, o.Jobs, o.parallelMin, o.chunkBytes = true, 4, 16<<10, 4<<10
		o.onParallel = func(p string) {
			mu.Lock()
			ranged[filepath.Base(p)] = true
			mu.Unlock()
		}
	}
	inOrder := func(o *Options) { o.NoCache, o.Jobs = true, 1 }
	for _, tc := range []struct {
		name string
		data string
	}{
		{"ids", long(nil)},
		{"rows", ""},
		{"quoted", long(func(i int, line string) string {
			if i == 4000 {
				return strings.Replace(line, "d1,", `"d1",`, 1)
			}
			return line
		})},
	} {
		archive := study(tc.data)
		if tc.name == "rows" { // a file per method, paired by row
			var f [2]strings.Builder
			for mi := range f {
				f[mi].WriteString("dataset,s\n")
				for i := 0; i < rows; i++ {
					fmt.Fprintf(&f[mi], "d%d,%g\n", i%3, float64((i*7+mi*i*i*13)%101)/100)
				}
			}
			archive = strings.Replace(strings.TrimSuffix(study(""), "-- u.csv --\n"), "units = [\"u.csv\"]", "units = [\"{method}.csv\"]", 1) +
				"-- A.csv --\n" + f[0].String() + "-- B.csv --\n" + f[1].String()
		}
		a := mustBuild(t, archive, parallel)
		b := mustBuild(t, archive, inOrder)
		for _, f := range []string{"data/m.json", "data/p.json"} {
			if x, y := readFile(t, a, f), readFile(t, b, f); x != y {
				t.Errorf("%s: %s differs between parallel ranges and reading in order", tc.name, f)
			}
		}
		mu.Lock()
		if want := map[bool]string{false: "u.csv", true: "B.csv"}[tc.name == "rows"]; !ranged[want] {
			t.Errorf("%s: %s was not read in ranges: %v", tc.name, want, ranged)
		}
		mu.Unlock()
	}
	// Errors at their line, as in order: a bad value deep in the file.
	for _, at := range []int{5, 3000, 5999} {
		bad := long(func(i int, line string) string {
			if i == at && strings.Contains(line, ",B,") {
				return strings.TrimSuffix(line, line[strings.LastIndex(line, ",")+1:]) + "0x10"
			}
			return line
		})
		_, e1 := buildStudy(t, study(bad), parallel)
		_, e2 := buildStudy(t, study(bad), inOrder)
		if e1 == nil || e2 == nil || e1.Error() != e2.Error() {
			t.Errorf("bad value at row %d: parallel %v, in order %v", at, e1, e2)
		}
		// line: header 1, two lines per row, a blank line per 1000 rows
		if want := fmt.Sprintf("u.csv:%d:", 1+2*at+2+at/1000); e1 == nil || !strings.Contains(e1.Error(), want) {
			t.Errorf("bad value at row %d: %v, want %s", at, e1, want)
		}
	}
}

// TestUnitsHashedInRanges: a units file bigger than what opening it reads
// ahead (1 MiB), read in parallel byte ranges, gets the sha256 of its
// bytes from the ranges as they were read to be parsed (in file order,
// the bytes the header's read already hashed skipped), and no read of
// its own to hash it.
func TestUnitsHashedInRanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := ParseArchive([]byte(hashStudy(60000))).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "long.csv")); err != nil || st.Size() < 2<<20 {
		t.Fatalf("long.csv: %v, want over 2 MiB", err)
	}
	cache := NewCache()
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test", Cache: cache, Format: "html",
		Jobs: 2, parallelMin: 64 << 10, chunkBytes: 48 << 10}
	var mu sync.Mutex // a dataset's files are read side by side
	var ranged []string
	o.onParallel = func(p string) {
		mu.Lock()
		defer mu.Unlock()
		ranged = append(ranged, filepath.Base(p))
	}
	sum, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(ranged) != 3 {
		t.Fatalf("files read in ranges: %q, want all three", ranged)
	}
	got := provenanceSums(t, sum.Out)
	for _, f := range []string{"runs/A.csv", "runs/B.csv", "long.csv"} {
		if want := fileSum(t, filepath.Join(dir, f)); got[f] != want {
			t.Errorf("provenance sha256 of %s is %q, want %q", f, got[f], want)
		}
	}
	if n := cache.hashStore().Hashed(); n != 0 {
		t.Errorf("the build read %d files to hash them, want 0", n)
	}
}

// TestStartGroupAsyncPanics: a group started on its own goroutine
// (startGroupAsync) that panics hands the panic to the dispatcher, which
// panics with it where feedUnits turns it into every sink's error,
// instead of taking the process down from a goroutine nobody recovers.
func TestStartGroupAsyncPanics(t *testing.T) {
	t.Parallel()
	var in *load.Inputs // opening a file panics
	g := &load.UnitsGroup{Files: []load.UnitsJob{{}}}
	r := <-in.StartGroupAsync(g, []*load.PassSink{{}})
	if r.P == nil || r.Sg != nil {
		t.Fatalf("startGroupAsync gave %+v, want the panic", r)
	}
	t.Logf("handed over: %v", r.P)
}
