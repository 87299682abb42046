package meta

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/internal/testutil"
)

// effects.json is written by testdata/oracle/meta/gen.py, an independent
// NumPy implementation of the paired effect sizes (Borenstein et al. 2009,
// ch. 4; Sertkan et al. 2023, Eqs. 1–5).
type metaEffectsOracle struct {
	Cases []struct {
		Name       string             `json:"name"`
		Units      []string           `json:"units"`
		T          []*float64         `json:"t"`
		C          []*float64         `json:"c"`
		Drop       map[string]float64 `json:"drop"`
		DropRanger map[string]float64 `json:"drop_ranger"`
		Dropped    int                `json:"dropped"`
		Zero       map[string]float64 `json:"zero"`
		ZeroRanger map[string]float64 `json:"zero_ranger"`
	} `json:"cases"`
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// feed adds a case's values to a builder in one of several orders, so
// that the result cannot depend on the order of the stream.
func feed(t *testing.T, b *Builder, units []string, tv, cv []*float64, order int, byRow bool) {
	t.Helper()
	n := len(units)
	add := func(method string, j int, v float64) {
		u := units[j]
		if byRow {
			u = ""
		}
		if err := b.Add("ds", method, u, int64(j), v); err != nil {
			t.Fatal(err)
		}
	}
	switch order {
	case 0: // interleaved: T, C of each unit
		for j := 0; j < n; j++ {
			add("T", j, val(tv[j]))
			add("C", j, val(cv[j]))
		}
	case 1: // all treatment values first
		for j := 0; j < n; j++ {
			add("T", j, val(tv[j]))
		}
		b.Add("ds", "other", "x", 0, 1) // another method is ignored
		for j := 0; j < n; j++ {
			add("C", j, val(cv[j]))
		}
	case 2: // control first, in reverse order
		for j := n - 1; j >= 0; j-- {
			add("C", j, val(cv[j]))
		}
		for j := 0; j < n; j++ {
			add("T", j, val(tv[j]))
		}
	}
}

// TestMetaEffectsNumPy checks n, D, S_diff, r and every effect size and
// variance against NumPy to 1e-12, for missing = "drop" and "zero", with
// and without ranger_compat, pairing by id and by row, in three orders.
func TestMetaEffectsNumPy(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/oracle/meta/effects.json")
	if err != nil {
		t.Fatal(err)
	}
	var o metaEffectsOracle
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	const tol = 1e-12
	for _, cs := range o.Cases {
		for _, missing := range []string{"drop", "zero"} {
			for _, ranger := range []bool{false, true} {
				want := map[[2]any]map[string]float64{
					{"drop", false}: cs.Drop, {"drop", true}: cs.DropRanger,
					{"zero", false}: cs.Zero, {"zero", true}: cs.ZeroRanger,
				}[[2]any{missing, ranger}]
				if want == nil {
					continue
				}
				for order := 0; order < 3; order++ {
					for _, byRow := range []bool{false, true} {
						b := NewBuilder("T", "C", missing)
						feed(t, b, cs.Units, cs.T, cs.C, order, byRow)
						if w := b.Waiting(); w != 0 {
							t.Fatalf("%s: %d values still waiting", cs.Name, w)
						}
						st := b.Finish()
						if len(st) != 1 {
							t.Fatalf("%s: %d studies", cs.Name, len(st))
						}
						s := st[0]
						if s.N != int(want["n"]) {
							t.Fatalf("%s/%s: n = %d, NumPy %v", cs.Name, missing, s.N, want["n"])
						}
						if missing == "drop" && s.DroppedMissing != cs.Dropped {
							t.Errorf("%s: dropped %d, want %d", cs.Name, s.DroppedMissing, cs.Dropped)
						}
						for _, eff := range []string{"md", "smd", "hedges_g"} { // rom: meta_forms_test.go
							var opt Options
							opt.Defaults()
							opt.Treatment, opt.Control, opt.Metric, opt.Effect, opt.RangerCompat, opt.Missing = "T", "C", "m", eff, ranger, missing
							row := metaEffect(s, opt, 1.96)
							if !row.Included {
								t.Fatalf("%s/%s: left out: %s", cs.Name, eff, row.Reason)
							}
							check := func(name string, got, w float64) {
								if !testutil.Close(got, w, tol) {
									t.Errorf("%s missing=%s ranger=%v order=%d byRow=%v %s: %s = %.17g, NumPy %.17g", cs.Name, missing, ranger, order, byRow, eff, name, got, w)
								}
							}
							check("mean_diff", row.MeanDiff, want["mean_diff"])
							check("sd_diff", row.SDDiff, want["sd_diff"])
							check("r", row.R, want["r"])
							check("effect", row.Effect, want[eff])
							check("variance", row.Variance, want["v_"+eff])
						}
					}
				}
			}
		}
	}
}

// TestMetaBuilderUnmatched counts units without a partner, ignores other
// methods, and rejects a unit given twice.
func TestMetaBuilderUnmatched(t *testing.T) {
	t.Parallel()
	b := NewBuilder("T", "C", "drop")
	for _, a := range []struct {
		m, u string
		v    float64
	}{{"T", "a", 1}, {"C", "a", 0.5}, {"T", "b", 2}, {"C", "c", 1}, {"C", "d", 3}, {"X", "a", 9}, {"T", "e", 4}, {"C", "e", 3}, {"T", "f", 5}, {"C", "f", 3}} {
		if err := b.Add("ds", a.m, a.u, 0, a.v); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Add("ds", "T", "b", 0, 1); err == nil {
		t.Error("a unit given twice for a method was accepted")
	}
	s := b.Finish()[0]
	if s.N != 3 || s.UnmatchedTreatment != 1 || s.UnmatchedControl != 2 {
		t.Errorf("n=%d unmatched T=%d C=%d, want 3, 1, 2", s.N, s.UnmatchedTreatment, s.UnmatchedControl)
	}
	if s.MeanDiff != (0.5+1+2)/3 {
		t.Errorf("mean diff %v", s.MeanDiff)
	}
}

// BenchmarkMetaBuilderAdd: one Add per value, units interleaved by id.
func BenchmarkMetaBuilderAdd(b *testing.B) {
	ids := make([]string, 1<<16)
	for i := range ids {
		ids[i] = "u" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26)) + string(rune('0'+i/17576))
	}
	mb := NewBuilder("T", "C", "drop")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		u := i / 2
		m := "T"
		if i%2 == 1 {
			m = "C"
		}
		mb.Add("ds", m, ids[u%len(ids)], int64(u), float64(u%97)/97)
	}
}

// BenchmarkMetaBuilderAddInTurn: one method's values of a dataset, then
// the other's, units in the same order (files per method and dataset
// read one after the other).
func BenchmarkMetaBuilderAddInTurn(b *testing.B) {
	ids := make([]string, 1<<16)
	for i := range ids {
		ids[i] = fmt.Sprintf("%d", i*7919%100003)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; {
		mb := NewBuilder("T", "C", "drop")
		for _, m := range []string{"T", "C"} {
			for u := 0; u < len(ids) && i < b.N; u, i = u+1, i+1 {
				mb.Add("ds", m, ids[u], int64(u), float64(u%97)/97)
			}
		}
	}
}

// TestMetaBuilderQueues pairs by id through the queues: a control that
// lags the treatment by 100 units keeps the queue's buffer small (it is
// compacted as it is taken from), a drained one keeps no buffer, a
// control in another order moves the treatment's queue to the map, and
// a repeat is reported when it arrives twice in a row, not when its
// queue moves to the map (the caller's check names its place).
func TestMetaBuilderQueues(t *testing.T) {
	t.Parallel()
	const n, lag = 5000, 100
	b := NewBuilder("T", "C", "drop")
	id := func(i int) string { return fmt.Sprintf("u%d", i) }
	var sumD float64
	for i := 0; i < n+lag; i++ {
		if i < n {
			if err := b.Add("ds", "T", id(i), 0, float64(i)); err != nil {
				t.Fatal(err)
			}
		}
		if j := i - lag; j >= 0 {
			if err := b.Add("ds", "C", id(j), 0, float64(j)/2); err != nil {
				t.Fatal(err)
			}
			sumD += float64(j) - float64(j)/2
		}
		if c := b.cells.get("ds"); cap(c.wait[0].vs) > 4096 {
			t.Fatalf("after %d units the treatment's queue holds room for %d values; %d wait", i, cap(c.wait[0].vs), c.wait[0].n())
		}
	}
	if w := b.Waiting(); w != 0 {
		t.Fatalf("%d values waiting", w)
	}
	if c := b.cells.get("ds"); c.byID[0] != nil || c.byID[1] != nil {
		t.Error("units in the same order went through the map")
	}
	if s := b.Finish()[0]; s.N != n || math.Abs(s.MeanDiff-sumD/n) > 1e-9 {
		t.Errorf("n = %d, mean difference %v; want %d, %v", s.N, s.MeanDiff, n, sumD/n)
	}

	// datasets in turn, each method's units together: a dataset's queue
	// keeps no buffer once its values are paired (a study of many
	// datasets would otherwise keep one for each)
	b = NewBuilder("T", "C", "drop")
	for _, d := range []string{"d1", "d2", "d3"} {
		for _, m := range []string{"T", "C"} {
			for i := 0; i < 2000; i++ {
				if err := b.Add(d, m, id(i), 0, 1); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, d := range []string{"d1", "d2", "d3"} {
		if c := b.cells.get(d); cap(c.wait[0].vs) != 0 || cap(c.wait[0].ids) != 0 {
			t.Errorf("dataset %s: its paired queue keeps room for %d values (%d bytes of ids)", d, cap(c.wait[0].vs), cap(c.wait[0].ids))
		}
	}

	// another order: the waiting values move to the map, and pair there
	b = NewBuilder("T", "C", "drop")
	for _, u := range []string{"a", "b", "c"} {
		b.Add("ds", "T", u, 0, 1)
	}
	for _, u := range []string{"c", "a", "b"} {
		if err := b.Add("ds", "C", u, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	if s := b.Finish()[0]; s.N != 3 || s.UnmatchedTreatment != 0 || s.UnmatchedControl != 0 || s.MeanDiff != 1 {
		t.Errorf("in another order: n = %d, unmatched %d and %d, mean difference %v", s.N, s.UnmatchedTreatment, s.UnmatchedControl, s.MeanDiff)
	}

	for _, c := range []struct {
		name string
		adds string // method and unit of each Add: "Ta Tb Cz"
		at   int    // the Add that fails, -1: none
	}{
		{"twice in a row", "Ta Tb Tb Cz", 2},
		{"while the first waits in the map", "Ta Tb Cz Ta", 3},
		// not where the queue moves to the map: the value arriving then
		// (C's) is not the repeat, and an error would name its place
		{"apart, in the queue", "Ta Tb Ta Cz", -1},
	} {
		b := NewBuilder("T", "C", "drop")
		var err error
		at := -1
		for i, a := range strings.Fields(c.adds) {
			if err = b.Add("ds", a[:1], a[1:], 0, 1); err != nil {
				at = i
				break
			}
		}
		var re *RepeatError
		if at != c.at || c.at >= 0 && (!errors.As(err, &re) || re.Method != "T" || re.Dataset != "ds" || re.Unit != "a" && re.Unit != "b") {
			t.Errorf("%s: Add %d failed with %v; want Add %d with a repeat of method T (-1: none)", c.name, at, err, c.at)
		}
	}
}

// TestMetaBuilderPairsAsAMap: the queues pair the same values, at the
// same moments, as the plainest pairing by id (a map of waiting values
// per side), so the running moments are the same additions in the same
// order: Finish is bit for bit that of the same pair calls made in the
// map's order. 3,000 random streams without a repeat: several datasets
// and a second metric's noise left out, units per method in the same
// order, reversed, shuffled, lagging or in turn, some units missing on
// a side, empty values, missing = "drop" and "zero".
func TestMetaBuilderPairsAsAMap(t *testing.T) {
	t.Parallel()
	type add struct {
		dataset, method, unit string
		v                     float64
	}
	r := rand.New(rand.NewSource(7))
	for trial := 0; trial < 3000; trial++ {
		missing := []string{"drop", "zero"}[r.Intn(2)]
		var stream []add
		for d := 0; d < 1+r.Intn(3); d++ {
			dataset := fmt.Sprintf("d%d", d)
			n := r.Intn(40)
			var sides [2][]add
			for s, m := range []string{"T", "C"} {
				for u := 0; u < n; u++ {
					if r.Intn(10) == 0 {
						continue // a unit this method lacks
					}
					v := r.NormFloat64()
					if r.Intn(15) == 0 {
						v = math.NaN()
					}
					sides[s] = append(sides[s], add{dataset, m, fmt.Sprintf("u%d", u), v})
				}
				switch r.Intn(4) {
				case 1:
					slices.Reverse(sides[s])
				case 2:
					r.Shuffle(len(sides[s]), func(i, j int) { sides[s][i], sides[s][j] = sides[s][j], sides[s][i] })
				}
			}
			// merge the two sides: in turn, interleaved, or lagging
			lag := []int{0, 1, 5, 1 << 20}[r.Intn(4)]
			i, j := 0, 0
			for i < len(sides[0]) || j < len(sides[1]) {
				if j >= len(sides[1]) || i < len(sides[0]) && i <= j+lag && r.Intn(3) > 0 {
					stream = append(stream, sides[0][i])
					i++
				} else {
					stream = append(stream, sides[1][j])
					j++
				}
			}
		}
		b := NewBuilder("T", "C", missing)
		ref := NewBuilder("T", "C", missing)
		waiting := map[string]map[string]float64{} // dataset/side → unit → value
		for _, a := range stream {
			if err := b.Add(a.dataset, a.method, a.unit, 0, a.v); err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			// the reference: the same counts, and pair calls in the map's order
			c := ref.cells.get(a.dataset)
			side := 0
			if a.method == "C" {
				side = 1
			}
			c.seen[side]++
			v := a.v
			if missing == "zero" && math.IsNaN(v) {
				v = 0
			}
			other := a.dataset + "/" + string("TC"[1-side])
			if w, ok := waiting[other][a.unit]; ok {
				delete(waiting[other], a.unit)
				c.pair(side, v, w)
				continue
			}
			own := a.dataset + "/" + a.method
			if waiting[own] == nil {
				waiting[own] = map[string]float64{}
			}
			waiting[own][a.unit] = v
		}
		for key, m := range waiting { // what waits counts as unmatched
			dataset, side, _ := strings.Cut(key, "/")
			c := ref.cells.get(dataset)
			s := 0
			if side == "C" {
				s = 1
			}
			c.rowsWait[s] += len(m)
		}
		if got, want := fmt.Sprintf("%#v", b.Finish()), fmt.Sprintf("%#v", ref.Finish()); got != want {
			t.Fatalf("trial %d (missing = %s):\nqueues %s\nmap    %s", trial, missing, got, want)
		}
	}
}
