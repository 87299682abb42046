package cachefmt

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// viaJSON is what the cache stored before tables went by column: each
// table through encoding/json, NaN and ±Inf as nil first.
func viaJSON(t *testing.T, ts []analyses.Table) []analyses.Table {
	t.Helper()
	safe := make([]analyses.Table, len(ts))
	for i, tab := range ts {
		rows := make([][]any, len(tab.Rows))
		for r, row := range tab.Rows {
			rows[r] = make([]any, len(row))
			for c, v := range row {
				if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
					v = nil
				}
				rows[r][c] = v
			}
		}
		tab.Rows = rows
		safe[i] = tab
	}
	b, err := json.Marshal(safe)
	if err != nil {
		t.Fatal(err)
	}
	var out []analyses.Table
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// roundTrip encodes tables, through JSON as the cache writes them, and
// decodes them.
func roundTrip(t *testing.T, ts []analyses.Table) []analyses.Table {
	t.Helper()
	b, err := json.Marshal(Encode(ts))
	if err != nil {
		t.Fatal(err)
	}
	var cts []Table
	if err := json.Unmarshal(b, &cts); err != nil {
		t.Fatal(err)
	}
	out, err := Decode(cts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTablesAsJSONRead: every kind of column (names, numbers with empty,
// NaN and infinite cells, ints, booleans, mixed cells, ragged rows, no
// rows) reads back exactly as the cell-by-cell JSON the cache stored
// before, table fields included.
func TestTablesAsJSONRead(t *testing.T) {
	t.Parallel()
	ts := []analyses.Table{
		{Title: "units", Columns: []string{"dataset", "method", "unit", "metric", "value"},
			Rows: [][]any{{"d1", "A", "u1", "ndcg", 0.5}, {"d1", "B", "u1", "ndcg", math.NaN()}, {"d2", "A", "u2", "ndcg", nil},
				{"d2", "B", "u10", "ndcg", math.Inf(1)}, {"d1", "A", "u3", "ndcg", math.Copysign(0, -1)}, {"d1", "A", "u4", "ndcg", 1e-300}}},
		{Name: "mixed", Title: "mixed", Columns: []string{"a", "b", "c"}, Better: map[string]string{"b": "lower"},
			Rows: [][]any{{"x", 1, true}, {nil, 2.5, false}, {"y", int(1 << 40), nil}, {"z"}}},
		{Name: "empty", Title: "no rows", Columns: []string{"a"}},
		{Name: "nums", Columns: []string{"n"}, Rows: [][]any{{nil}, {nil}}},
		{Name: "names", Columns: []string{"s"}, Rows: [][]any{{""}, {"é ü"}, {""}}},
	}
	got, want := roundTrip(t, ts), viaJSON(t, ts)
	if !reflect.DeepEqual(got, want) {
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("table %d:\n got %#v\nwant %#v", i, got[i], want[i])
			}
		}
	}
}

// TestDecodeRefusesBrokenColumns: columns that do not hold the rows they
// claim are an error, never a panic or a table with cells missing.
func TestDecodeRefusesBrokenColumns(t *testing.T) {
	t.Parallel()
	good := Encode([]analyses.Table{{Columns: []string{"s", "n"}, Rows: [][]any{{"a", 1.0}, {"b", nil}}}})[0]
	for name, broken := range map[string]func(*Table){
		"an index past the names":       func(ct *Table) { ct.Cols[0].Idx[1] = 5 },
		"a number missing":              func(ct *Table) { ct.Cols[1].Nums = ct.Cols[1].Nums[:1] },
		"an empty row past the end":     func(ct *Table) { ct.Cols[1].Empty = []int32{7} },
		"more rows than cells":          func(ct *Table) { ct.N = 3 },
		"a row longer than the columns": func(ct *Table) { ct.Lens = []int32{2, 3} },
		"an unknown form":               func(ct *Table) { ct.Cols[0].Kind = 'x' },
	} {
		ct := good
		ct.Cols = append([]Column(nil), good.Cols...)
		for i := range ct.Cols {
			ct.Cols[i].Idx = append([]int32(nil), good.Cols[i].Idx...)
			ct.Cols[i].Nums = append([]float64(nil), good.Cols[i].Nums...)
		}
		broken(&ct)
		if _, err := Decode([]Table{ct}); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}
