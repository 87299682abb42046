// Package cachefmt is the disk cache's file formats: its usage count and
// the names and heads of the first layout's entries (store.go), and how
// it stores an analysis's tables (this file): by
// columns, each in the narrowest form that holds its cells exactly — a
// column of names as a dictionary and indexes, a column of numbers as
// numbers with its empty cells listed — so that reading a cached entry
// costs a fraction of decoding every cell into an interface (a per-user
// table of 110,000 rows decoded in about a third of the time).
package cachefmt

import (
	"errors"
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses"
)

// Table is an analyses.Table with its rows stored by column.
type Table struct {
	analyses.Table
	N    int      `json:"n"`
	Cols []Column `json:"cols"`
	// Lens are the rows' lengths when they differ (nil when every row
	// has len(Cols) cells).
	Lens []int32 `json:"lens,omitempty"`
}

// Column is one column of a Table, in one of three forms: names (Dict
// and Idx: cell i is Dict[Idx[i]]), numbers (Nums, with Empty listing the
// rows whose cell is nil, stored as 0), or any other cells one by one
// (Any).
type Column struct {
	Dict  []string  `json:"dict,omitempty"`
	Idx   []int32   `json:"idx,omitempty"`
	Nums  []float64 `json:"nums,omitempty"`
	Empty []int32   `json:"empty,omitempty"`
	Any   []any     `json:"any,omitempty"`
	Kind  byte      `json:"kind"` // 's', 'n' or 'a'
}

// Encode stores tables by column. A NaN or infinite number is stored as
// an empty cell (nil), which every output prints the same way; an int is
// stored as its float64, as JSON would read it back.
func Encode(ts []analyses.Table) []Table {
	out := make([]Table, len(ts))
	for i, t := range ts {
		ct := Table{Table: t, N: len(t.Rows)}
		ct.Rows = nil
		width := 0
		for _, r := range t.Rows {
			width = max(width, len(r))
		}
		for c := 0; c < width; c++ {
			ct.Cols = append(ct.Cols, encodeColumn(t.Rows, c))
		}
		for _, row := range t.Rows {
			if len(row) != width {
				ct.Lens = make([]int32, len(t.Rows))
				for k := range t.Rows {
					ct.Lens[k] = int32(len(t.Rows[k]))
				}
				break
			}
		}
		out[i] = ct
	}
	return out
}

// encodeColumn stores column c of rows (a row shorter than c+1 has nil).
func encodeColumn(rows [][]any, c int) Column {
	cell := func(r []any) any {
		if c >= len(r) {
			return nil
		}
		switch v := r[c].(type) {
		case float64:
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil
			}
		case int:
			return float64(v)
		}
		return r[c]
	}
	kind := columnKind(rows, cell)
	col := Column{Kind: kind}
	switch kind {
	case 's':
		at := map[string]int32{}
		col.Idx = make([]int32, len(rows))
		for i, r := range rows {
			s := cell(r).(string)
			j, ok := at[s]
			if !ok {
				j = int32(len(col.Dict))
				at[s] = j
				col.Dict = append(col.Dict, s)
			}
			col.Idx[i] = j
		}
	case 'n':
		col.Nums = make([]float64, len(rows))
		for i, r := range rows {
			if v, ok := cell(r).(float64); ok {
				col.Nums[i] = v
			} else {
				col.Empty = append(col.Empty, int32(i))
			}
		}
	default:
		col.Any = make([]any, len(rows))
		for i, r := range rows {
			col.Any[i] = cell(r)
		}
	}
	return col
}

// columnKind is 's' for a column of strings only, 'n' for numbers and
// empty cells only, else 'a'.
func columnKind(rows [][]any, cell func([]any) any) byte {
	strs, nums := true, true
	for _, r := range rows {
		switch cell(r).(type) {
		case string:
			nums = false
		case float64:
			strs = false
		case nil:
			strs = false
		default:
			return 'a'
		}
	}
	switch {
	case strs && len(rows) > 0:
		return 's'
	case nums:
		return 'n'
	}
	return 'a'
}

// Decode is the tables Encode stored, with their rows; an error when
// their columns do not hold the rows they claim.
func Decode(cts []Table) ([]analyses.Table, error) {
	out := make([]analyses.Table, len(cts))
	for i, ct := range cts {
		if err := ct.check(); err != nil {
			return nil, fmt.Errorf("table %q: %w", ct.Name, err)
		}
		t := ct.Table
		w := len(ct.Cols)
		cells := make([]any, ct.N*w) // one allocation for every row
		t.Rows = make([][]any, ct.N)
		for r := range t.Rows {
			t.Rows[r] = cells[r*w : (r+1)*w : (r+1)*w]
		}
		for c, col := range ct.Cols {
			decodeColumn(t.Rows, c, col)
		}
		if ct.Lens != nil {
			for r, n := range ct.Lens {
				t.Rows[r] = t.Rows[r][:n:n]
			}
		}
		out[i] = t
	}
	return out, nil
}

// check reports a column that does not hold N cells in its form, an index
// or empty row out of range, or a row length beyond the columns.
func (ct *Table) check() error {
	if ct.N < 0 || (ct.Lens != nil && len(ct.Lens) != ct.N) {
		return errors.New("row count and lengths disagree")
	}
	for _, n := range ct.Lens {
		if n < 0 || int(n) > len(ct.Cols) {
			return errors.New("a row longer than the columns")
		}
	}
	for c, col := range ct.Cols {
		ok := false
		switch col.Kind {
		case 's':
			ok = len(col.Idx) == ct.N
			for _, j := range col.Idx {
				ok = ok && j >= 0 && int(j) < len(col.Dict)
			}
		case 'n':
			ok = len(col.Nums) == ct.N
			for _, r := range col.Empty {
				ok = ok && r >= 0 && int(r) < ct.N
			}
		case 'a':
			ok = len(col.Any) == ct.N
		}
		if !ok {
			return fmt.Errorf("column %d does not hold %d cells", c, ct.N)
		}
	}
	return nil
}

// decodeColumn fills column c of rows from col.
func decodeColumn(rows [][]any, c int, col Column) {
	switch col.Kind {
	case 's':
		dict := make([]any, len(col.Dict)) // each name boxed once
		for j, s := range col.Dict {
			dict[j] = s
		}
		for r, j := range col.Idx {
			rows[r][c] = dict[j]
		}
	case 'n':
		for r, v := range col.Nums {
			rows[r][c] = v
		}
		for _, r := range col.Empty {
			rows[r][c] = nil
		}
	default:
		for r, v := range col.Any {
			rows[r][c] = v
		}
	}
}
