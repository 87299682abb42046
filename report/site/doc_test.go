package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/report/paper"
)

// The oracle of these tests is encoding/json: data/<id>.json used to be
// json.Marshal of the result, decoded into raw fields, re-indented with
// json.Indent; {{value}} used to decode that file with json.Unmarshal.
// The tree must give the same bytes and the same values.

// Inner is embedded in docResult (its fields are promoted).
type Inner struct {
	Depth  int    `json:"depth"`
	Shadow string `json:"name"` // hidden by docResult.Name (shallower)
}

type textKey int

func (k textKey) MarshalText() ([]byte, error) { return []byte(fmt.Sprintf("k%03d", int(k))), nil }

// docResult has a field of every kind results use.
type docResult struct {
	Score   float64              `json:"score"`
	Tiny    float64              `json:"tiny"`
	Huge    float64              `json:"huge"`
	F32     float32              `json:"f32"`
	Count   int                  `json:"count"`
	Big     uint64               `json:"big"`
	Curve   []float64            `json:"curve"`
	ByRule  map[string][]float64 `json:"by_rule"`
	ByInt   map[int]string       `json:"by_int"`
	ByText  map[textKey]float64  `json:"by_text"`
	Opt     leaderboard.OptFloat `json:"opt"`
	OptNaN  leaderboard.OptFloat `json:"opt_nan"`
	Ptr     *float64             `json:"ptr"`
	NilPtr  *float64             `json:"nil_ptr"`
	Empty   float64              `json:"empty,omitempty"`
	NilList []string             `json:"nil_list"`
	NoList  []string             `json:"no_list"`
	Bytes   []byte               `json:"bytes"`
	Nested  struct{ X, Y float64 }
	Rows    []map[string]any `json:"rows"`
	Any     any              `json:"any"`
	Name    string           `json:"name"`
	Texts   []string         `json:"texts"`
	Arr     [2]bool          `json:"arr"`
	Untag   string
	hidden  float64
	Skipped float64 `json:"-"`
	Inner
	*analyses.Warnings
}

func (r *docResult) Tables() []analyses.Table {
	return []analyses.Table{{Name: "main", Title: "Main", Columns: []string{"method", "score", "n", "ok", "dup", "dup"},
		Rows: [][]any{{"A", 0.5, 3, true, "x", "y"}, {"B<&>", math.NaN(), int64(4), false, nil, 1e-7}}}}
}

func (r *docResult) Notes() []string { return r.Warnings.Notes() }

func newDocResult(bad float64) *docResult {
	p := bad
	r := &docResult{Score: bad, Tiny: 1e-7, Huge: 5e20, F32: 0.1, Count: -3, Big: math.MaxUint64,
		Curve: []float64{1, bad, 3.25}, ByRule: map[string][]float64{"b": {bad}, "a": {0.5}},
		ByInt: map[int]string{10: "ten", 2: "two"}, ByText: map[textKey]float64{3: 1, 1: 2},
		Opt: 0.75, OptNaN: leaderboard.OptFloat(math.NaN()), Ptr: &p, NoList: []string{},
		Bytes: []byte("raw"), Rows: []map[string]any{{"method": "A", "v": 0.25, "n": 2}, {"method": "B", "v": 1.0}},
		Any: bad, Name: "<x> & \"y\"\n\u2028é", Texts: []string{"a", "b"}, Arr: [2]bool{true, false}, Untag: "u",
		hidden: bad, Skipped: bad, Inner: Inner{Depth: 2, Shadow: "shadowed"}, Warnings: &analyses.Warnings{}}
	r.Nested.X, r.Nested.Y = 1, bad
	r.Warnf("a note")
	return r
}

// TestTreeMatchesEncodingJSON: without non-finite values the tree is
// written as json.Marshal then json.Indent write it, and with them the
// values are null and each path is listed.
func TestTreeMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	finite := newDocResult(0.125)
	compact, err := json.Marshal(finite)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.Indent(&want, compact, "", " "); err != nil {
		t.Fatal(err)
	}
	tree, paths, err := treeOf(finite)
	if err != nil || len(paths) != 0 {
		t.Fatalf("treeOf: %v, paths %v", err, paths)
	}
	var got bytes.Buffer
	writeTree(&got, tree, 0)
	if got.String() != want.String() {
		t.Fatalf("tree\n%s\nencoding/json\n%s", got.String(), want.String())
	}

	tree, paths, err = treeOf(newDocResult(math.Inf(1)))
	if err != nil {
		t.Fatal(err)
	}
	wantPaths := []string{"score", "curve[1]", "by_rule.b[0]", "ptr", "Nested.Y", "any"}
	if strings.Join(paths, " ") != strings.Join(wantPaths, " ") {
		t.Errorf("paths %v, want %v", paths, wantPaths)
	}
	got.Reset()
	writeTree(&got, tree, 0)
	var m map[string]any
	if err := json.Unmarshal(got.Bytes(), &m); err != nil {
		t.Fatalf("invalid JSON %s: %v", got.Bytes(), err)
	}
	for _, k := range []string{"score", "ptr", "any", "opt_nan"} {
		if v, ok := m[k]; !ok || v != nil {
			t.Errorf("%s = %v, want null", k, v)
		}
	}
	if _, ok := m["empty"]; ok {
		t.Error("omitempty field written")
	}
	note := nonFiniteNote(paths)
	if !strings.HasPrefix(note, "6 values are not finite") || !strings.Contains(note, "score, curve[1], by_rule.b[0], ptr, Nested.Y and 1 more") {
		t.Errorf("note %q", note)
	}
	if _, _, err := treeOf(struct{ C chan int }{}); err == nil || !strings.Contains(err.Error(), "C: json: unsupported type chan int") {
		t.Errorf("a channel: %v", err)
	}
}

// docAnalysis is an analysis whose result is r.
func docAnalysis(r analyses.Result) *Analysis {
	return &Analysis{ID: "lb", Type: "aggregate", Title: "A <title>", Seed: 1<<63 + 5, Result: r, Tables: r.Tables(),
		Notes: r.Notes(), Resolved: map[string]any{"metric": "ndcg", "rules": []any{"mean", "borda"}, "alpha": 0.05, "n": int64(3)}}
}

// encodingJSONDoc is data/<id>.json as the writer wrote it before the
// tree: the result marshalled, decoded into raw fields, the fixed fields
// added, each field re-indented.
func encodingJSONDoc(t *testing.T, a *Analysis) []byte {
	t.Helper()
	own, err := json.Marshal(a.Result)
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(own, &fields); err != nil {
		t.Fatal(err)
	}
	put := func(k string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		fields[k] = b
	}
	put("id", a.ID)
	put("type", a.Type)
	put("title", a.Title)
	put("params", a.Resolved)
	put("seed", a.Seed)
	put("warnings", append([]string{}, a.Notes...))
	var tb bytes.Buffer
	tb.WriteByte('{')
	for i, tab := range a.Tables {
		if i > 0 {
			tb.WriteByte(',')
		}
		k, _ := json.Marshal(tab.ID(a.ID))
		tb.Write(k)
		tb.WriteString(":[")
		for j, row := range tab.Rows {
			if j > 0 {
				tb.WriteByte(',')
			}
			tb.WriteByte('{')
			for c, cell := range row {
				if c > 0 {
					tb.WriteByte(',')
				}
				ck, _ := json.Marshal(tab.Columns[c])
				cv, err := json.Marshal(jsonCell(cell))
				if err != nil {
					t.Fatal(err)
				}
				tb.Write(ck)
				tb.WriteByte(':')
				tb.Write(cv)
			}
			tb.WriteByte('}')
		}
		tb.WriteByte(']')
	}
	tb.WriteByte('}')
	fields["tables"] = tb.Bytes()
	var keys []string
	for k := range fields {
		if !contains(docKeys, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out bytes.Buffer
	out.WriteByte('{')
	for i, k := range append(append([]string{}, docKeys...), keys...) {
		if i > 0 {
			out.WriteString(",\n")
		}
		kb, _ := json.Marshal(k)
		out.Write(kb)
		out.WriteByte(':')
		if err := json.Indent(&out, fields[k], "", " "); err != nil {
			t.Fatal(err)
		}
	}
	out.WriteString("}\n")
	return out.Bytes()
}

// TestAnalysisDocBytes: data/<id>.json written from the tree is, byte
// for byte, what encoding/json made of the same analysis.
func TestAnalysisDocBytes(t *testing.T) {
	t.Parallel()
	a := docAnalysis(newDocResult(0.125))
	doc, notes, err := analysisDoc(a)
	if err != nil || len(notes) != 0 {
		t.Fatalf("analysisDoc: %v, notes %v", err, notes)
	}
	got, want := writeDoc(doc), encodingJSONDoc(t, a)
	if !bytes.Equal(got, want) {
		t.Fatalf("tree\n%s\nencoding/json\n%s", got, want)
	}
}

// TestLookupMatchesDecodedJSON: {{value}} finds in the tree what it
// found in the decoded data file, inside values that marshal themselves
// too, and fails where that failed.
func TestLookupMatchesDecodedJSON(t *testing.T) {
	t.Parallel()
	a := docAnalysis(newDocResult(0.125))
	doc, _, err := analysisDoc(a)
	if err != nil {
		t.Fatal(err)
	}
	b := &siteBuild{docs: map[string]*Object{"lb": doc}}
	var decoded map[string]any
	if err := json.Unmarshal(writeDoc(doc), &decoded); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]any{
		"score": decoded["score"], "huge": decoded["huge"], "f32": decoded["f32"], "big": decoded["big"],
		"curve[2]": 3.25, "by_rule.a[0]": 0.5, "by_int.10": "ten", "by_text.k001": 2.0, "opt": 0.75,
		"opt_nan": nil, "Nested.X": 1.0, "rows[method=B].v": 1.0, "rows[1].method": "B", "depth": 2.0,
		"name": decoded["name"], "tables.lb-main[method=B<&>].n": 4.0, "tables.lb-main[1].ok": false,
		"params.rules[1]": "borda", "params.n": 3.0, "seed": decoded["seed"], "warnings[0]": "a note", "title": "A <title>",
	} {
		got, err := b.lookup("lb", path)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s = %v (%T), %v; want %v (%T)", path, got, got, err, want, want)
		}
	}
	for path, msg := range map[string]string{
		"scor":                  `lb has no key "scor" (did you mean "score"?)`,
		"curve[3]":              "lb.curve has 3 entries, no [3]",
		"score[0]":              "lb.score is not a list",
		"rows[method=C]":        `lb.rows has no row with method = "C"`,
		"opt.x":                 `lb.opt has no key "x"`,
		"tables.lb-main[x]":     `bad selector "[x]"`,
		"tables.lb-main[1].nop": `lb.tables.lb-main.[1] has no key "nop"`,
	} {
		if _, err := b.lookup("lb", path); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %s", path, err, msg)
		}
	}
	if _, err := b.lookup("bl", "score"); err == nil || !strings.Contains(err.Error(), `no analysis "bl" (did you mean "lb"?)`) {
		t.Errorf("unknown analysis: %v", err)
	}
}

// TestMacrosFromTree: paper.Macros gives the same macros from the tree
// as from the text of data/<id>.json.
func TestMacrosFromTree(t *testing.T) {
	t.Parallel()
	doc, _, err := analysisDoc(docAnalysis(newDocResult(0.125)))
	if err != nil {
		t.Fatal(err)
	}
	value, _ := decoded(doc).(map[string]any)
	fromTree, err := paper.Macros([]paper.Doc{{ID: "lb", Value: value}})
	if err != nil {
		t.Fatal(err)
	}
	fromText, err := paper.Macros([]paper.Doc{{ID: "lb", JSON: writeDoc(doc)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(fromTree) == 0 || fmt.Sprint(fromTree) != fmt.Sprint(fromText) {
		t.Errorf("macros from the tree\n%v\nfrom the text\n%v", fromTree, fromText)
	}
}
