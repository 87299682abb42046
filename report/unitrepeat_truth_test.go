package report

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/load"
)

// metricSink is a units sink of one metric and every method that keeps
// nothing: its only error is the repeat check's.
type metricSink struct{ metric string }

func (s metricSink) Metric() string             { return s.metric }
func (s metricSink) Wants(string) bool          { return true }
func (s metricSink) Add(*load.UnitRow) error    { return nil }
func (s metricSink) OtherMetric(_, _, _ string) {}
func (s metricSink) Seen(_, _ string)           {}

// repeatPass writes files into dir and runs one units pass of the study
// with a metricSink per metric, under the repeat check's knobs; it
// returns each sink's error.
func repeatPass(t *testing.T, dir string, files map[string]string, text string, k repeatKnobs, metrics []string, twins *[2]int) []error {
	t.Helper()
	_, in := repeatInputs(t, dir, files, text, k)
	if twins != nil {
		in.OnRepeatTwins = func(n, parted int) { twins[0] += n; twins[1] += parted }
	}
	var sinks []load.UnitsSink
	for _, m := range metrics {
		sinks = append(sinks, metricSink{m})
	}
	return in.UnitsPass(context.Background(), sinks)
}

// TestUnitRepeatInRangeWhenTheFilterHasItsBits: an id given again after
// its slot's ids stopped increasing, whose first lies in the range of
// the ids before (not in the filter: past the few the check keeps, from
// two files), is a repeat even when the filter has the bits of its hash
// by chance (with a one-word filter, always). It was taken for a false
// positive of the filter: the spill holds its hash once.
func TestUnitRepeatInRangeWhenTheFilterHasItsBits(t *testing.T) {
	t.Parallel()
	// after the break (u4), ids enough to set every bit of the
	// one-word filter, then u5 again
	var after, all strings.Builder
	for i := 99; i >= 6; i-- {
		fmt.Fprintf(&after, "u%d,0.1\n", i)
	}
	for i := 1; i < 100; i++ {
		fmt.Fprintf(&all, "u%d,0.2\n", i)
	}
	files := map[string]string{
		"a/A_d.csv": "user,m\nu1,0.5\nu2,0.6\n",
		"b/A_d.csv": "user,m\nu3,0.5\nu5,0.6\nu4,0.7\n" + after.String() + "u5,0.9\n",
		"a/B_d.csv": "user,m\n" + all.String(),
	}
	text := "title = \"s\"\n[inputs]\nunits = [{ path = \"a/{method}_{dataset}.csv\", columns = { unit = \"user\" } }, { path = \"b/{method}_{dataset}.csv\", columns = { unit = \"user\" } }]\n" + strings.SplitN(repeatMeta, "\n", 4)[3]
	want := `b/A_d.csv:99: unit "u5" of method "A" on dataset "d" appears twice (first at b/A_d.csv:3)`
	for _, k := range []repeatKnobs{{words: 1, early: 1}, {early: 1}, {}} {
		errs := repeatPass(t, t.TempDir(), files, text, k, []string{"m"}, nil)
		if errs[0] == nil || !strings.Contains(errs[0].Error(), want) {
			t.Errorf("knobs %+v: %v\nwant %s", k, errs[0], want)
		}
	}
}

// TestUnitRepeatTwinNotOnTheLine: a slot whose values are another
// metric's, line for line, is parted from it before a line without
// its value (a file without its column): the other's repeat on that
// line is not its own.
func TestUnitRepeatTwinNotOnTheLine(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"a/A_d.csv": "user,m0,m1\nu1,0.1,0.2\nu2,0.3,0.4\n",
		"b/A_d.csv": "user,m0\nu3,0.5\nu3,0.6\n",
	}
	text := "title = \"s\"\n[inputs]\nunits = [{ path = \"a/{method}_{dataset}.csv\", columns = { unit = \"user\" }, missing = \"zero\" }, { path = \"b/{method}_{dataset}.csv\", columns = { unit = \"user\" }, missing = \"zero\" }]\n" + strings.SplitN(repeatMeta, "\n", 4)[3]
	for _, k := range []repeatKnobs{{}, {words: 1}} {
		var twins [2]int
		errs := repeatPass(t, t.TempDir(), files, text, k, []string{"m0", "m1"}, &twins)
		want := `b/A_d.csv:3: unit "u3" of method "A" on dataset "d" appears twice (first at b/A_d.csv:2)`
		if errs[0] == nil || !strings.Contains(errs[0].Error(), want) {
			t.Errorf("knobs %+v: m0: %v\nwant %s", k, errs[0], want)
		}
		if errs[1] != nil {
			t.Errorf("knobs %+v: m1 has no repeat: %v", k, errs[1])
		}
		if twins != [2]int{1, 1} {
			t.Errorf("knobs %+v: %d slots were twins and %d parted, want 1 and 1", k, twins[0], twins[1])
		}
	}
}

// truthStudy is a random study of wide units files: two datasets, two
// methods, each pair in one or two files (two entries), with the three
// metrics' columns in a random order, some metrics left out, each
// entry's empty cells dropped or kept, the ids sorted, shuffled or in sorted pieces, and at
// most one line given again (its id, with cells of its own) somewhere
// in the files of its dataset and method. want maps each metric to
// the two places of its repeat ("" for none).
type truthStudy struct {
	files    map[string]string
	manifest string
	want     map[string][2]string
	unit     map[string]string
}

func newTruthStudy(r *rand.Rand) truthStudy {
	metrics := []string{"m0", "m1", "m2"}
	st := truthStudy{files: map[string]string{}, want: map[string][2]string{}, unit: map[string]string{}}
	type line struct {
		unit  string
		cells map[string]string
	}
	type file struct {
		name  string
		cols  []string
		lines []line
	}
	var groups [][]*file // the files of each dataset and method
	next := 0
	for _, d := range []string{"d1", "d2"} {
		for _, m := range []string{"A", "B"} {
			var g []*file
			for _, dir := range []string{"a", "b"}[:1+r.IntN(2)] {
				cols := slices.Clone(metrics)
				r.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
				if r.IntN(4) == 0 {
					cols = cols[:1+r.IntN(2)]
				}
				f := &file{name: fmt.Sprintf("%s/%s_%s.csv", dir, m, d), cols: cols}
				n := 1 + r.IntN(300)
				ids := make([]int, n)
				for i := range ids {
					ids[i] = next + i
				}
				next += n
				switch r.IntN(3) {
				case 0: // sorted
				case 1:
					r.Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
				case 2: // sorted pieces
					k := r.IntN(n + 1)
					ids = append(ids[k:], ids[:k]...)
				}
				empty := []float64{0, 0.02, 0.3}[r.IntN(3)]
				for _, id := range ids {
					l := line{unit: fmt.Sprintf("u%d", id), cells: map[string]string{}}
					for _, c := range cols {
						if r.Float64() >= empty {
							l.cells[c] = fmt.Sprintf("%.3f", r.Float64())
						}
					}
					f.lines = append(f.lines, l)
				}
				g = append(g, f)
			}
			groups = append(groups, g)
		}
	}
	if r.IntN(5) != 0 { // a line given again
		g := groups[r.IntN(len(groups))]
		from, to := g[r.IntN(len(g))], g[r.IntN(len(g))]
		l := line{unit: from.lines[r.IntN(len(from.lines))].unit, cells: map[string]string{}}
		for _, c := range to.cols {
			if r.IntN(5) != 0 {
				l.cells[c] = "0.5"
			}
		}
		at := r.IntN(len(to.lines) + 1)
		to.lines = slices.Insert(to.lines, at, l)
	}
	var entries []string
	drops := map[string]bool{"a": r.IntN(2) == 0, "b": r.IntN(2) == 0}
	for _, dir := range []string{"a", "b"} {
		used := false
		for _, g := range groups {
			for _, f := range g {
				used = used || strings.HasPrefix(f.name, dir+"/")
			}
		}
		if !used {
			continue // a pattern must match a file
		}
		missing := []string{"zero", ""}[r.IntN(2)]
		if drops[dir] {
			missing = "drop"
		}
		entries = append(entries, fmt.Sprintf(`{ path = "%s/{method}_{dataset}.csv", columns = { unit = "user" }, missing = %q }`, dir, missing))
	}
	st.manifest = "title = \"truth\"\n[inputs]\nunits = [" + strings.Join(entries, ", ") + "]\n"
	for _, m := range metrics {
		st.manifest += fmt.Sprintf("[[analyses]]\nid = \"%s\"\ntype = \"meta_analysis\"\nmetric = \"%s\"\ntreatment = \"A\"\ncontrol = \"B\"\n", m, m)
	}
	// the files, and the truth: each metric's places of each unit
	places := map[string]map[string][]string{} // metric → dataset/method/unit → file:line
	for gi, g := range groups {
		for _, f := range g {
			var b strings.Builder
			b.WriteString("user," + strings.Join(f.cols, ",") + "\n")
			for i, l := range f.lines {
				row := []string{l.unit}
				for _, c := range f.cols {
					row = append(row, l.cells[c])
					if l.cells[c] != "" || !drops[f.name[:1]] {
						if places[c] == nil {
							places[c] = map[string][]string{}
						}
						k := fmt.Sprintf("%d/%s", gi, l.unit)
						places[c][k] = append(places[c][k], fmt.Sprintf("%s:%d", f.name, i+2))
					}
				}
				b.WriteString(strings.Join(row, ",") + "\n")
			}
			st.files[f.name] = b.String()
		}
	}
	for m, byUnit := range places {
		for k, p := range byUnit {
			if len(p) > 1 {
				st.want[m] = [2]string{p[0], p[1]}
				st.unit[m] = k[strings.Index(k, "/")+1:]
			}
		}
	}
	return st
}

// TestUnitRepeatAgainstTheTruth checks the repeat check against the
// truth (every id's places, counted) on random studies of wide files
// read in one pass by a sink per metric: every repeat is found, for
// every metric it is one of, with its two places, under every knob of
// the check, and no study without one gives an error. The studies make
// slots twins (a metric's values of lines whose other metric's are
// checked) and part them (a line with one but not the other). It found
// a repeat taken for a false positive of the filter (see
// TestUnitRepeatInRangeWhenTheFilterHasItsBits). EVALBOOK_REPEAT_DUMP
// and EVALBOOK_REPEAT_STUDY keep the files of one study to look at.
func TestUnitRepeatAgainstTheTruth(t *testing.T) {
	t.Parallel()
	n := 40
	if testing.Short() {
		n = 20
	}
	r := rand.New(rand.NewPCG(11, 29))
	// (cands: 64, not 2 as in TestUnitRepeated: with a one-word filter
	// every id is a candidate, and the rounds number about ids/cands,
	// each reading the files again)
	knobs := []repeatKnobs{{}, {early: 1}, {words: 1}, {words: 1, spillMem: 64}, {words: 1, spillMem: -1}, {words: 1, cands: 64}, {words: 1, early: 1}}
	repeats := 0
	var twins [2]int // slots made twins, and parted
	for i := range n {
		st := newTruthStudy(r)
		dir := t.TempDir()
		if d := os.Getenv("EVALBOOK_REPEAT_DUMP"); d != "" && fmt.Sprint(i) == os.Getenv("EVALBOOK_REPEAT_STUDY") {
			dir = d // to look at the study that failed
		}
		repeats += len(st.want)
		for _, k := range knobs {
			metrics := []string{"m0", "m1", "m2"}
			errs := repeatPass(t, dir, st.files, st.manifest, k, metrics, &twins)
			for j, m := range metrics {
				w, repeated := st.want[m]
				switch {
				case !repeated && errs[j] != nil:
					t.Errorf("study %d, knobs %+v, %s: no repeat, but %v", i, k, m, errs[j])
				case repeated && errs[j] == nil:
					t.Errorf("study %d, knobs %+v, %s: the repeat of %s at %s and %s not found", i, k, m, st.unit[m], w[0], w[1])
				case repeated:
					msg := errs[j].Error()
					if !strings.Contains(msg, fmt.Sprintf("unit %q", st.unit[m])) || !strings.Contains(msg, w[0]) || !strings.Contains(msg, w[1]) {
						t.Errorf("study %d, knobs %+v, %s: %v\nwant the repeat of %s at %s and %s", i, k, m, msg, st.unit[m], w[0], w[1])
					}
				}
			}
		}
	}
	if repeats < n/2 {
		t.Errorf("only %d repeats planted in %d studies", repeats, n)
	}
	if twins[0] < 10*len(knobs) || twins[1] < 5*len(knobs) {
		t.Errorf("%d slots were twins and %d parted: the studies do not exercise them", twins[0], twins[1])
	}
	t.Logf("%d repeats; %d slots were twins, %d parted", repeats, twins[0], twins[1])
}
