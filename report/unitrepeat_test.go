package report

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"github.com/evalbook/evalbook/internal/pqtest"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repeatKnobs are the repeat check's knobs (0: as in a build).
type repeatKnobs struct{ words, cands, spillMem, early int }

// repeatStudy writes files into a fresh study directory and runs its
// first analysis with the repeat check's knobs; opens counts the files
// opened, toConfirm the candidates left to confirm after the spill (-1:
// there were none).
func repeatStudy(t *testing.T, files map[string]string, manifestPath string, k repeatKnobs) (opens, toConfirm int, err error) {
	t.Helper()
	s, in := repeatInputs(t, t.TempDir(), files, manifestPath, k)
	in.OnOpen = func(string) { opens++ }
	toConfirm = -1
	in.OnRepeatSettle = func(n int) { toConfirm = n }
	a := s.Analyses[0]
	job := &kinds.Job{ID: a.ID, Title: a.Title, Study: s, Workers: 1, Inputs: in, ProgressTo: kinds.NoProgress{}}
	_, err = kinds.Kinds()[a.Type].Run(job, a.Options)
	return opens, toConfirm, err
}

// repeatInputs writes files into dir and returns the study of its
// manifest text and its inputs, with the repeat check's knobs.
func repeatInputs(t *testing.T, dir string, files map[string]string, text string, k repeatKnobs) (*manifest.Study, *load.Inputs) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := manifest.ParseStudy(filepath.Join(dir, "study.toml"), []byte(text), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	in := newInputs(s)
	in.RepeatWords, in.RepeatMaxCands, in.RepeatSpillMem, in.RepeatEarlySlot = k.words, k.cands, k.spillMem, k.early
	return s, in
}

const repeatMeta = "title = \"s\"\n[inputs]\nunits = \"units.csv\"\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\nmetric = \"m\"\ntreatment = \"A\"\ncontrol = \"B\"\n"

// gzipText is text gzip-compressed.
func gzipText(t *testing.T, text string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(text))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

type pqUnit struct {
	Dataset string  `parquet:"dataset"`
	Method  string  `parquet:"method"`
	Unit    string  `parquet:"unit"`
	Metric  string  `parquet:"metric"`
	Value   float64 `parquet:"value"`
}

// parquetUnits writes a long units CSV text as a Parquet file.
func parquetUnits(t *testing.T, csv string) string {
	t.Helper()
	var rows []pqUnit
	for _, l := range strings.Split(strings.TrimSpace(csv), "\n")[1:] {
		f := strings.Split(l, ",")
		var v float64
		fmt.Sscan(f[4], &v)
		rows = append(rows, pqUnit{f[0], f[1], f[2], f[3], v})
	}
	p := filepath.Join(t.TempDir(), "u.parquet")
	pqtest.Write(t, p, rows)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// shuffledUnits is a long units file of n units of methods A and B on
// dataset d, in a random order (so the check needs its filter), the
// unit at index rep given again (A's value) at the end when rep >= 0.
func shuffledUnits(n, rep int) string {
	var b strings.Builder
	b.WriteString("dataset,method,unit,metric,value\n")
	rng := rand.New(rand.NewPCG(7, 9))
	order := rng.Perm(n)
	for _, u := range order {
		fmt.Fprintf(&b, "d,A,u%d,m,%.3f\nd,B,u%d,m,%.3f\n", u, rng.Float64(), u, rng.Float64())
	}
	if rep >= 0 {
		fmt.Fprintf(&b, "d,A,u%d,m,0.5\n", order[rep])
	}
	return b.String()
}

// TestUnitRepeated plants a unit id given twice for one method and
// dataset: next to the first, apart while both wait (found when a value
// of the other method arrives), after its pair was made (which the
// pairing counted as unmatched with a warning), in files read side by
// side, far apart in a file in a random order, in gzip CSV and in
// Parquet, for a paired and an independent meta-analysis and for
// paired tests. Each is an error naming the file and both lines.
func TestUnitRepeated(t *testing.T) {
	t.Parallel()
	afterPair := "dataset,method,unit,metric,value\nd,A,u1,m,0.5\nd,B,u1,m,0.4\nd,A,u2,m,0.6\nd,B,u2,m,0.3\nd,A,u1,m,0.7\nd,A,u3,m,0.7\nd,B,u3,m,0.2\n"
	const afterPairErr = `units.csv:6: unit "u1" of method "A" on dataset "d" appears twice (first at units.csv:2)`
	perFile := "title = \"s\"\n[inputs]\nunits = [{ path = \"runs/{method}_{dataset}.csv\", columns = { unit = \"user\" } }]\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\nmetric = \"m\"\ntreatment = \"A\"\ncontrol = \"B\"\n"
	shuffled := shuffledUnits(600, 234)
	lines := strings.Split(shuffled, "\n")
	firstLine := 0
	for i, l := range lines[:len(lines)-2] {
		if strings.HasPrefix(l, "d,A,"+strings.Split(lines[len(lines)-2], ",")[2]+",") {
			firstLine = i + 1
		}
	}
	for _, c := range []struct {
		name     string
		files    map[string]string
		manifest string
		want     string
	}{
		{"next to the first", map[string]string{"units.csv": "dataset,method,unit,metric,value\nd,A,u1,m,0.5\nd,A,u1,m,0.6\nd,B,u1,m,0.4\n"}, repeatMeta,
			`units.csv:3: unit "u1" of method "A" on dataset "d" appears twice (first at units.csv:2)`},
		{"after its pair was made", map[string]string{"units.csv": afterPair}, repeatMeta, afterPairErr},
		{"queued apart, found by another method's value", map[string]string{"units.csv": "dataset,method,unit,metric,value\nd,A,a,m,1\nd,A,b,m,2\nd,A,a,m,3\nd,B,z,m,1\n"}, repeatMeta,
			`units.csv:4: unit "a" of method "A" on dataset "d" appears twice (first at units.csv:2)`},
		{"independent design", map[string]string{"units.csv": afterPair}, strings.Replace(repeatMeta, "control = \"B\"\n", "control = \"B\"\ndesign = \"independent\"\n", 1), afterPairErr},
		{"paired tests", map[string]string{"units.csv": afterPair}, "title = \"s\"\n[inputs]\nunits = \"units.csv\"\n[[analyses]]\nid = \"p\"\ntype = \"paired_tests\"\nmetric = \"m\"\ndataset = \"d\"\nmissing = \"drop\"\n", afterPairErr},
		{"files side by side", map[string]string{
			"runs/A_d.csv": "user,m\nu1,0.5\nu2,0.6\nu3,0.7\nu2,0.9\n",
			"runs/B_d.csv": "user,m\nu1,0.4\nu2,0.5\nu3,0.6\n"}, perFile,
			`runs/A_d.csv:5: unit "u2" of method "A" on dataset "d" appears twice (first at runs/A_d.csv:3)`},
		{"another file of the method and dataset", map[string]string{
			"runs/A_d.csv": "user,m\nu1,0.5\nu2,0.6\nu3,0.7\n",
			"runs/B_d.csv": "user,m\nu1,0.4\nu2,0.5\nu3,0.6\n",
			"more/A_d.csv": "user,m\nu4,0.5\nu2,0.9\n"}, strings.Replace(perFile, "units = [", "units = [{ path = \"more/{method}_{dataset}.csv\", columns = { unit = \"user\" } }, ", 1),
			`runs/A_d.csv:3: unit "u2" of method "A" on dataset "d" appears twice (first at more/A_d.csv:3)`},
		{"far apart, in a random order", map[string]string{"units.csv": shuffled}, repeatMeta,
			fmt.Sprintf(`units.csv:%d: unit "%s" of method "A" on dataset "d" appears twice (first at units.csv:%d)`, len(lines)-1, strings.Split(lines[len(lines)-2], ",")[2], firstLine)},
		{"gzip CSV", map[string]string{"units.csv.gz": gzipText(t, afterPair)}, strings.Replace(repeatMeta, "units.csv", "units.csv.gz", 1),
			strings.ReplaceAll(afterPairErr, "units.csv", "units.csv.gz")},
		{"Parquet", map[string]string{"units.parquet": parquetUnits(t, afterPair)}, strings.Replace(repeatMeta, "units.csv", "units.parquet", 1),
			`units.parquet: row 5: unit "u1" of method "A" on dataset "d" appears twice (first at row 1)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, k := range []repeatKnobs{{}, {early: 1}, {words: 1}, {words: 1, spillMem: 64}, {words: 1, spillMem: -1}, {words: 1, cands: 2}, {words: 1, early: 1}} {
				_, _, err := repeatStudy(t, c.files, c.manifest, k)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("knobs %+v: error %v\nwant %q", k, err, c.want)
				}
			}
		})
	}
}

// TestUnitRepeatFalsePositive: ids that a filter of one word (every id
// a candidate after the first few) reports as possibly repeated give no
// error when they are not repeats. The spill of hashes (in memory, or
// in a file past 64 bytes) settles them without reading the file again;
// without it they are confirmed by reading it again; with two
// candidates kept, the check goes on in rounds.
func TestUnitRepeatFalsePositive(t *testing.T) {
	t.Parallel()
	files := map[string]string{"units.csv": shuffledUnits(600, -1)}
	for _, c := range []struct {
		k               repeatKnobs
		opens           string
		confirm, opened int // confirm -1: any; opened 0: any, -1: more than twice
	}{
		{repeatKnobs{words: 1}, "once (the pass)", 0, 1},
		{repeatKnobs{words: 1, spillMem: 64}, "once (the pass)", 0, 1},
		{repeatKnobs{words: 1, spillMem: -1}, "twice (the pass, then a confirmation)", -1, 2},
		{repeatKnobs{words: 1, spillMem: -1, cands: 2}, "more than twice (the pass, then each round's filter and confirmation)", -1, -1},
		{repeatKnobs{early: 1}, "any number of times", -1, 0},
		{repeatKnobs{words: 1, early: 1}, "any number of times", -1, 0},
		{repeatKnobs{words: 1, early: 1, spillMem: -1}, "any number of times", -1, 0},
	} {
		opens, confirm, err := repeatStudy(t, files, repeatMeta, c.k)
		if err != nil {
			t.Errorf("knobs %+v: %v", c.k, err)
		}
		if c.opened > 0 && opens != c.opened || c.opened < 0 && opens <= 2 {
			t.Errorf("knobs %+v: the file was opened %d times, want %s", c.k, opens, c.opens)
		}
		if c.confirm >= 0 && confirm != c.confirm {
			t.Errorf("knobs %+v: %d candidates left to confirm, want %d", c.k, confirm, c.confirm)
		}
		if c.k.spillMem < 0 && c.k.cands == 0 && confirm < 100 {
			t.Errorf("knobs %+v: %d candidates to confirm: a one-word filter should give hundreds", c.k, confirm)
		}
	}
}
