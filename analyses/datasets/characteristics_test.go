package datasets

import (
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/internal/testutil"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/analyses/stats"

	"gonum.org/v1/gonum/floats/scalar"
)

// charCases is testdata/oracle/characteristics/cases.json, written by
// gen.py: features by an independent pandas implementation, mutual
// information by scikit-learn, correlations by scipy.
type charCases struct {
	FeatureNames []string `json:"feature_names"`
	Logs         []struct {
		Log      string
		Tau      *float64
		MinItem  int `json:"min_item"`
		MinUser  int `json:"min_user"`
		Core     int
		Counts   PreprocessCounts
		Empty    bool
		Features map[string]*float64
	}
	MI []struct {
		Note      string
		X, Y      []float64
		Sklearn   *float64
		NoiseFree float64 `json:"noise_free"`
	}
	Association struct {
		Features [][]*float64
		Perf     [][]*float64
		Expected []struct {
			Feature, Method, N int
			Pearson, Spearman  float64
			MutualInformation  float64 `json:"mutual_information"`
		}
	}
}

func loadCharCases(t *testing.T) charCases {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "oracle", "characteristics", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c charCases
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// readTestLog feeds a generated log to an InteractionLog (the report
// package does the same through its streaming table reader).
func readTestLog(t *testing.T, name string) *InteractionLog {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "oracle", "characteristics", "logs", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = gz
	}
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rc := slices.Index(recs[0], "rating")
	l := NewInteractionLog()
	for _, rec := range recs[1:] {
		v := math.NaN()
		if rc >= 0 {
			if v, err = strconv.ParseFloat(rec[rc], 64); err != nil {
				t.Fatal(err)
			}
		}
		l.Add(rec[0], rec[1], v)
	}
	return l
}

func TestCharacteristicsLogsPandas(t *testing.T) {
	skipUnderRace(t, "runs on the test's goroutine")
	t.Parallel()
	c := loadCharCases(t)
	if !slices.Equal(c.FeatureNames, LogFeatureNames) {
		t.Fatalf("feature names %v, oracle has %v", LogFeatureNames, c.FeatureNames)
	}
	if len(c.Logs) < 10 {
		t.Fatalf("only %d log cases", len(c.Logs))
	}
	var sawEmpty, sawNaN bool
	for _, lc := range c.Logs {
		p := Preprocessing{MinItem: lc.MinItem, MinUser: lc.MinUser, Core: lc.Core}
		if lc.Tau != nil {
			p.Threshold, p.HasThreshold = *lc.Tau, true
		}
		what := lc.Log + " " + strconv.Quote(strings.Trim(strings.ReplaceAll(strings.TrimSpace(
			strings.Join([]string{"tau", strconv.FormatBool(lc.Tau != nil), "item", strconv.Itoa(lc.MinItem), "user", strconv.Itoa(lc.MinUser), "core", strconv.Itoa(lc.Core)}, " ")), "  ", " "), " "))
		s, err := readTestLog(t, lc.Log).Finish(p)
		if lc.Empty {
			sawEmpty = true
			if !errors.Is(err, ErrEmptyLog) {
				t.Errorf("%s: error %v, want ErrEmptyLog", what, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if s.Counts != lc.Counts {
			t.Errorf("%s: counts %+v\n want (pandas) %+v", what, s.Counts, lc.Counts)
		}
		for k, name := range LogFeatureNames {
			want, got := lc.Features[name], s.Features[k]
			if want == nil {
				sawNaN = true
				if !math.IsNaN(got) {
					t.Errorf("%s: %s = %v, want undefined", what, name, got)
				}
				continue
			}
			if !testutil.Close(got, *want, 1e-9) {
				t.Errorf("%s: %s = %.17g, want %.17g (pandas)", what, name, got, *want)
			}
		}
	}
	if !sawEmpty || !sawNaN {
		t.Errorf("oracle lacks an emptied log (%v) or an undefined feature (%v)", sawEmpty, sawNaN)
	}
}

func TestInteractionLogEmptyNamesStep(t *testing.T) {
	t.Parallel()
	l := NewInteractionLog()
	l.Add("u", "i", 1)
	l.Add("u", "j", 2)
	_, err := l.Finish(Preprocessing{Threshold: 3, HasThreshold: true})
	if !errors.Is(err, ErrEmptyLog) || !strings.Contains(err.Error(), "rating threshold 3") {
		t.Errorf("threshold: %v", err)
	}
	l = NewInteractionLog()
	l.Add("u", "i", 1)
	_, err = l.Finish(Preprocessing{Core: 2})
	if !errors.Is(err, ErrEmptyLog) || !strings.Contains(err.Error(), "2-core") {
		t.Errorf("core: %v", err)
	}
	_, err = NewInteractionLog().Finish(Preprocessing{})
	if !errors.Is(err, ErrEmptyLog) || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("no rows: %v", err)
	}
}

func TestMutualInfoSklearn(t *testing.T) {
	t.Parallel()
	c := loadCharCases(t)
	withSklearn := 0
	for _, m := range c.MI {
		got := stats.MutualInfoKSG(m.X, m.Y, 3)
		if !testutil.Close(got, m.NoiseFree, 1e-9) {
			t.Errorf("%s: MI = %.17g, want %.17g (sklearn _compute_mi_cc, no noise)", m.Note, got, m.NoiseFree)
		}
		if m.Sklearn != nil {
			withSklearn++
			if !testutil.Close(got, *m.Sklearn, 1e-6) {
				t.Errorf("%s: MI = %.17g, want %.17g (sklearn mutual_info_regression)", m.Note, got, *m.Sklearn)
			}
		}
	}
	if withSklearn < 20 {
		t.Errorf("only %d continuous cases", withSklearn)
	}
	if !math.IsNaN(stats.MutualInfoKSG([]float64{1, 2, 3}, []float64{1, 2, 3}, 3)) {
		t.Error("n = k must be undefined")
	}
}

func TestCharacteristicsAssociationScipy(t *testing.T) {
	t.Parallel()
	c := loadCharCases(t)
	a := c.Association
	fl := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	in := CharacteristicsInput{Metric: "ndcg@10", Methods: []string{"m0", "m1", "m2"}, Features: []string{"f0", "f1", "f2", "f3"}}
	for d := range a.Features {
		in.Datasets = append(in.Datasets, "d"+strconv.Itoa(d))
		var fr, pr []float64
		for _, v := range a.Features[d] {
			fr = append(fr, fl(v))
		}
		for _, v := range a.Perf[d] {
			pr = append(pr, fl(v))
		}
		in.Values, in.Perf = append(in.Values, fr), append(in.Perf, pr)
	}
	r, err := Characteristics(in, CharacteristicsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Expected) != 4*4 {
		t.Fatalf("%d expected cells", len(a.Expected))
	}
	tabs := r.Tables()
	var assoc analyses.Table
	for _, tab := range tabs {
		if tab.Name == "association" {
			assoc = tab
		}
	}
	if !slices.Equal(assoc.Columns, []string{"feature", "method", "pearson", "spearman", "mutual_information", "n"}) {
		t.Fatalf("association columns %v", assoc.Columns)
	}
	for i, e := range a.Expected {
		row := assoc.Rows[i]
		what := row[0].(string) + "/" + row[1].(string)
		wantMethod := CharPooled
		if e.Method < 3 {
			wantMethod = in.Methods[e.Method]
		}
		if row[0] != in.Features[e.Feature] || row[1] != wantMethod || row[5] != e.N {
			t.Fatalf("row %d = %v, want feature %d method %s n %d", i, row, e.Feature, wantMethod, e.N)
		}
		for k, want := range []float64{e.Pearson, e.Spearman, e.MutualInformation} {
			if got := row[2+k].(float64); !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-9) {
				t.Errorf("%s %s = %.17g, want %.17g", what, assoc.Columns[2+k], got, want)
			}
		}
	}
	if len(r.Notes()) == 0 {
		t.Error("missing cells gave no warning")
	}
}

func TestCharacteristicsTablesNoNaN(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	in := CharacteristicsInput{
		Datasets: []string{"a", "b", "c"}, Features: []string{"Nu", "LTsk"},
		Values: [][]float64{{10, nan}, {20, 1}, {30, 2}},
		Counts: make([]PreprocessCounts, 3),
		Metric: "ndcg", Methods: []string{"x"}, Perf: [][]float64{{0.1}, {0.2}, {0.2}},
	}
	r, err := Characteristics(in, CharacteristicsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, tab := range r.Tables() {
		tab.Check()
		names = append(names, tab.Name)
		for _, row := range tab.Rows {
			for _, c := range row {
				if f, ok := c.(float64); ok && !analyses.Finite(f) {
					t.Errorf("table %q holds %v", tab.Name, f)
				}
			}
		}
	}
	if !slices.Equal(names, []string{"", "features", "association", "preprocessing"}) {
		t.Errorf("tables %q", names)
	}
	if notes := strings.Join(r.Notes(), "\n"); !strings.Contains(notes, "LTsk") || !strings.Contains(notes, "undefined") {
		t.Errorf("notes %q", notes)
	}
}

// TestInteractionLogCompaction merges duplicates in many small batches
// (the buffer limit lowered) and in one: a pair repeated across batches
// must keep its last rating, and every count and feature must agree.
func TestInteractionLogCompaction(t *testing.T) {
	skipUnderRace(t, "runs on the test's goroutine")
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 1))
	type row struct {
		u, i string
		r    float64
	}
	var rows []row
	for range 20000 {
		u := rng.IntN(300)
		rows = append(rows, row{fmt.Sprintf("user-%d", u*u%1009), fmt.Sprintf("i%d", rng.IntN(1+u%200)), float64(rng.IntN(5) + 1)})
	}
	p := Preprocessing{Threshold: 3, HasThreshold: true, MinItem: 2, MinUser: 3}
	var want *LogSummary
	for _, limit := range []int{logCompactMin, 1, 7, 1000} {
		l := NewInteractionLog()
		l.limit = limit
		last := map[[2]string]float64{}
		for _, r := range rows {
			l.Add(r.u, r.i, r.r)
			last[[2]string{r.u, r.i}] = r.r
		}
		if limit == 7 && l.distinct == 0 {
			t.Fatal("no compaction happened mid-stream")
		}
		s, err := l.Finish(p)
		if err != nil {
			t.Fatal(err)
		}
		below := 0
		for _, r := range last {
			if r < 3 {
				below++
			}
		}
		if s.Counts.Duplicates != int64(len(rows)-len(last)) || s.Counts.BelowThreshold != int64(below) {
			t.Errorf("limit %d: counts %+v, want %d duplicates and %d below the threshold", limit, s.Counts, len(rows)-len(last), below)
		}
		if want == nil {
			want = s
			continue
		}
		if s.Counts != want.Counts || !slices.Equal(s.Features, want.Features) {
			t.Errorf("limit %d: %+v %v\nwant %+v %v", limit, s.Counts, s.Features, want.Counts, want.Features)
		}
	}
}

func TestLogIDsPacking(t *testing.T) {
	skipUnderRace(t, "runs on the test's goroutine")
	t.Parallel()
	// Short ids are packed with their length, so "a" and "a\x00" differ;
	// long ids share a prefix with short ones.
	// Numeric ids with the first prefix seen ("u") take the dense path;
	// a leading zero, another prefix or a big number take the maps, so
	// no two strings share an id.
	m := newLogIDs()
	ids := []string{"a", "a\x00", "", "abcdefg", "abcdefgh", "abcdefghi", "a", "abcdefgh", "",
		"u42", "u042", "42", "u0", "u4194304", "u4194303", "u42", "x42", "u00", "42", "u4194304", "u-1", "u1x2"}
	got := make([]uint32, len(ids))
	for k, s := range ids {
		got[k] = m.id(s)
	}
	want := []uint32{0, 1, 2, 3, 4, 5, 0, 4, 2,
		6, 7, 8, 9, 10, 11, 6, 12, 13, 8, 10, 14, 15}
	if !slices.Equal(got, want) {
		t.Errorf("ids %v, want %v", got, want)
	}
	for k, s := range ids {
		if m.names[got[k]] != s {
			t.Errorf("name of %q is %q", s, m.names[got[k]])
		}
	}
}
