package model

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// Role is what a table column holds.
type Role int

// The roles of a table column.
const (
	RoleText     Role = iota // words that are not a key (a note, a test's name)
	RoleKey                  // what a row is about: a method, a dataset, a pair…
	RoleValue                // a measured or computed number
	RoleInterval             // a confidence or prediction interval (two data columns)
	RoleRank                 // a rank (1 = best)
	RolePValue               // a p-value
	RoleCount                // a whole count
	RoleFlag                 // yes / no
	RoleQuantity             // the value of a table of named quantities: each row its own rule
)

// Column is one column of a table spec: its label and unit, its role,
// which end is better, and the one number format every row of it uses.
type Column struct {
	// ID is the data column (the CSV's header); an interval's lower
	// bound, with HighID its upper bound.
	ID, HighID string
	Label      string
	Unit       string // "%" …; "" for none
	Role       Role
	// Better is "higher" or "lower" when the column's best cell is
	// marked, else "".
	Better string
	Format NumberFormat
	// Detail columns are left out of the paper view (they stay on the
	// site and in the data files).
	Detail bool
	// Scale is what the data's numbers are multiplied by to be shown
	// (100 for a share shown in percent; 0 for 1).
	Scale float64
}

// Header is the column's heading: its label and, when it has one, its
// unit in parentheses.
func (c Column) Header() string {
	if c.Unit != "" {
		return c.Label + " (" + c.Unit + ")"
	}
	return c.Label
}

// Numeric reports whether the column's cells are numbers (aligned on the
// decimal point).
func (c Column) Numeric() bool {
	switch c.Role {
	case RoleValue, RoleRank, RolePValue, RoleCount, RoleQuantity:
		return c.Format.Kind != NumText
	}
	return false
}

// CellMark is how a cell stands among its column.
type CellMark int

// The marks of a cell.
const (
	MarkNone   CellMark = iota
	MarkBest            // the column's best, alone
	MarkSecond          // the second best, alone
	MarkTied            // tied with another cell for the best: not a win
)

// Cell is one cell of a table spec as every output shows it.
type Cell struct {
	// Text is the cell's words or its number by the column's format
	// (an interval "[lo, hi]"); "—" when it has no value.
	Text string
	// Title is what a pointer shows over it: the id behind a label, the
	// exact number, the score behind a rank; "" for none.
	Title string
	// Sort is the number the cell shows, for sorting ("" when none).
	Sort  string
	Num   bool
	Value float64 // the number shown (Num)
	Mark  CellMark
	// Sig marks a significant row's p-value (Table.SigNote explains it).
	Sig bool
	// Undefined says why a cell has no value ("" when it has one).
	Undefined string
	// Defined of Of: a summary over Of values of which only Defined are
	// defined (Of 0: not such a summary). Shown beside the value in
	// every output, so a summary of a few defined values never reads as
	// one of all.
	Defined, Of int
}

// Partial reports whether the cell summarises fewer values than it
// stands for.
func (c Cell) Partial() bool { return c.Of > 0 && c.Defined < c.Of }

// CountText is "d/n" for a partial summary, else "".
func (c Cell) CountText() string {
	if !c.Partial() {
		return ""
	}
	return fmt.Sprintf("%d/%d", c.Defined, c.Of)
}

// Table is the presentation of one analyses.Table: every backend (HTML,
// Markdown, LaTeX) renders it and decides nothing itself. Ids stay in
// the data files (CSV, JSON); a Table shows labels.
type Table struct {
	// ID is the table id (data/<ID>.csv).
	ID string
	// Title is the table's short title; Caption says what it shows.
	Title, Caption string
	Columns        []Column
	Rows           [][]Cell
	// Rows is Total rows long at most; Total is the data's row count.
	Total int
	// SigNote explains the significance mark ("" when no cell has it).
	SigNote string
	// CountNote explains the d/n counts of partial summaries ("" when
	// no cell is one).
	CountNote string
	// UndefinedNote explains the cells without a value ("" when none).
	UndefinedNote string
	// RankNote says what a compact table of ranks leaves out ("" none).
	RankNote string
	// Paper is the table's paper view.
	Paper PaperView
}

// HasMark reports whether any cell carries mark m.
func (t *Table) HasMark(m CellMark) bool {
	for _, r := range t.Rows {
		for _, c := range r {
			if c.Mark == m {
				return true
			}
		}
	}
	return false
}

// TableOptions are what a table's presentation needs beyond the table.
type TableOptions struct {
	// Naming labels methods, datasets, metrics and rules.
	Naming analyses.Naming
	// Alpha is the analysis's significance level (0: unknown).
	Alpha float64
	// Siblings are the analysis's other tables (a summary's counts may
	// come from its detail table).
	Siblings []analyses.Table
	// MaxRows bounds the rows shown (0: all).
	MaxRows int
}

// NewTable builds the presentation of table t of analysis analysisID.
func NewTable(t analyses.Table, analysisID string, o TableOptions) *Table {
	spec := &Table{ID: t.ID(analysisID), Title: t.Title, Total: len(t.Rows)}
	idx := map[string]int{}
	for j, c := range t.Columns {
		idx[c] = j
	}
	rows := t.Rows
	if o.MaxRows > 0 && len(rows) > o.MaxRows {
		rows = rows[:o.MaxRows]
	}
	compact := compactPairs(t, idx)
	srcs := buildColumns(spec, t, idx, compact, o)
	sharedFormats(spec, t, idx)
	buildRows(spec, t, rows, idx, srcs, o)
	annotateStability(spec, t, o.Siblings)
	markBest(spec)
	for _, r := range spec.Rows {
		for _, c := range r {
			if c.Undefined != "" && spec.UndefinedNote == "" {
				spec.UndefinedNote = "— no value: " + c.Undefined + " (see the analysis's notes)."
			}
		}
	}
	if len(compact) > 0 {
		spec.RankNote = "Tied methods share the mean of their ranks; each rule's scores are in data/" + spec.ID + ".csv."
	}
	spec.Caption = caption(spec)
	spec.Paper = paperView(spec)
	return spec
}

// source is the data columns a spec column reads: lo, and hi for an
// interval's upper bound or a rank's score (-1 none).
type source struct{ lo, hi int }

// buildColumns sets the spec's columns: the keys and values of t, an
// interval's two bounds as one column, a compact pair as its rank, each
// with its label, role, direction and format. It returns the data
// columns each reads.
func buildColumns(spec *Table, t analyses.Table, idx map[string]int, compact []analyses.CompactColumn, o TableOptions) []source {
	var srcs []source
	used := map[int]bool{}
	for _, cc := range compact {
		used[idx[cc.Score]], used[idx[cc.Rank]] = true, true
	}
	keyCols := 0
	for j, id := range t.Columns {
		if used[j] || isIntervalHigh(id) {
			continue // in a compact pair, or merged into its interval
		}
		if hi, label, detail, ok := intervalOf(id, idx); ok {
			if o.Alpha > 0 && o.Alpha < 1 {
				label = strings.Replace(label, "95%", strconv.FormatFloat(100*(1-o.Alpha), 'g', 4, 64)+"%", 1)
			}
			col := Column{ID: id, HighID: t.Columns[hi], Label: label, Role: RoleInterval, Detail: detail}
			if d, ok := t.Decimals[id]; ok {
				col.Format = NumberFormat{Kind: NumFixed, Decimals: d}
			}
			spec.Columns = append(spec.Columns, col)
			srcs = append(srcs, source{j, hi})
			continue
		}
		col := valueColumn(t, j, idx)
		if col.Role == RoleKey {
			keyCols++
		}
		spec.Columns = append(spec.Columns, col)
		srcs = append(srcs, source{j, -1})
	}
	keys := rowKeyLabels(t, idx, spec.Columns, o.Naming)
	for j := range spec.Columns {
		spec.Columns[j].Label = labelOf(spec.Columns[j], o.Naming)
		if l, ok := keys[spec.Columns[j].ID]; ok && spec.Columns[j].Role != RoleKey {
			spec.Columns[j].Label = l
		}
	}
	for _, cc := range compact {
		ri, si := idx[cc.Rank], idx[cc.Score]
		spec.Columns = append(spec.Columns, Column{ID: cc.Rank, HighID: cc.Score, Label: cc.Label, Role: RoleRank, Better: "lower", Format: ChooseFormat(cc.Rank, columnCells(t, ri))})
		srcs = append(srcs, source{ri, si})
	}
	// a direction marks a best cell only where rows are competitors:
	// one key column (methods, rules), not pairs or dataset × method
	if keyCols != 1 {
		for j := range spec.Columns {
			if t.Better[spec.Columns[j].ID] == "" && !isArea(spec.Columns[j].ID) {
				spec.Columns[j].Better = ""
			}
		}
	}
	return srcs
}

// rowKeyLabels are the labels of the table's row keys (the metrics of
// a metric × metric matrix), by id: a column named after one is headed
// as its row is labelled, so an unlabelled metric reads "time_fit@5" in
// both places, not "Time fit@5" above the column.
func rowKeyLabels(t analyses.Table, idx map[string]int, cols []Column, n analyses.Naming) map[string]string {
	keys := map[string]string{}
	for _, c := range cols {
		j, ok := idx[c.ID]
		if c.Role != RoleKey || !ok {
			continue
		}
		for _, r := range t.Rows {
			if v, ok := r[j].(string); ok {
				keys[v] = CellLabel(c.ID, v, n)
			}
		}
	}
	return keys
}

// labelOf is a column's label: an interval's is set already.
func labelOf(c Column, n analyses.Naming) string {
	if c.Role == RoleInterval {
		return c.Label
	}
	return ColumnLabel(c.ID, n)
}

// columnCells are the cells of data column j.
func columnCells(t analyses.Table, j int) []any {
	cells := make([]any, len(t.Rows))
	for i, r := range t.Rows {
		cells[i] = r[j]
	}
	return cells
}

// valueColumn is data column j of t as a spec column (its label is set
// by the caller): its role, unit and detail from columnInfos or guessed,
// its direction and its format.
func valueColumn(t analyses.Table, j int, idx map[string]int) Column {
	id := t.Columns[j]
	col := Column{ID: id}
	info, known := columnInfoOf(id)
	if known {
		col.Unit, col.Role, col.Detail = info.unit, info.role, info.detail
	}
	cells := columnCells(t, j)
	col.Format = ChooseFormat(id, cells)
	if info.percent && col.Format.Kind != NumText {
		col.Unit, col.Scale = "%", 100
		col.Format = NumberFormat{Kind: NumFixed, Decimals: analyses.PercentDecimals}
	}
	if !known {
		col.Role = guessRole(id, cells, col.Format)
		if j == 0 && col.Format.Kind == NumText {
			col.Role = RoleKey
		}
	}
	if col.Role == RolePValue && col.Format.Kind != NumText {
		col.Format = NumberFormat{Kind: NumPValue}
	}
	if r := t.Resolution[id]; r > 0 && col.Format.Kind != NumText {
		// a Monte Carlo estimate: printed at the resolution it has
		col.Format = NumberFormat{Kind: NumMonteCarlo, Res: r}
		if col.Role != RolePValue {
			col.Role = RolePValue
		}
	}
	if d, ok := t.Decimals[id]; ok && col.Format.Kind != NumText && col.Role != RolePValue {
		col.Format = NumberFormat{Kind: NumFixed, Decimals: d} // the analysis's one precision
	}
	if t.Mixed[id] && col.Format.Kind != NumText && col.Role != RolePValue {
		col.Format = NumberFormat{Kind: NumSignificant} // each row its own scale
	}
	if id == "value" && idx["quantity"] == 0 && len(t.Columns) == 2 {
		col.Role = RoleQuantity
	}
	col.Better = t.Better[id]
	if col.Better == "" {
		col.Better = info.better
	}
	if isArea(id) {
		col.Better, col.Role = "higher", RoleValue
	}
	return col
}

// buildRows sets the spec's rows: each cell by its column's rule, a
// rank's score as its title, a named quantity by its own rule, the
// significance mark on a significant row's p-value.
func buildRows(spec *Table, t analyses.Table, rows [][]any, idx map[string]int, srcs []source, o TableOptions) {
	sigCol, pCol := sigColumns(spec.Columns, idx)
	for _, r := range rows {
		cells := make([]Cell, len(spec.Columns))
		for j, col := range spec.Columns {
			s := srcs[j]
			switch {
			case col.Role == RoleInterval:
				cells[j] = intervalCell(r[s.lo], r[s.hi], spec.Columns, j, t.Rows, s.lo, s.hi)
			case col.Role == RoleQuantity:
				name, _ := r[idx["quantity"]].(string)
				cells[j] = makeCell(Column{ID: name, Role: RoleValue, Format: ChooseFormat(name, []any{r[s.lo]})}, r[s.lo], o.Naming)
			default:
				cells[j] = makeCell(col, r[s.lo], o.Naming)
			}
			if f, ok := cellFloat(r, s.hi); ok && col.Role == RoleRank {
				cells[j].Title = "score " + strconv.FormatFloat(f, 'g', -1, 64)
			}
		}
		if sigCol >= 0 && pCol >= 0 && r[sigCol] == true {
			cells[pCol].Sig = true
			spec.SigNote = sigNote(spec.Columns[pCol].Label, o.Alpha)
		}
		spec.Rows = append(spec.Rows, cells)
	}
}

// cellFloat is r[j] when j is a column and r[j] a finite float.
func cellFloat(r []any, j int) (float64, bool) {
	if j < 0 {
		return 0, false
	}
	f, ok := r[j].(float64)
	return f, ok && analyses.Finite(f)
}

// compactPairs are the table's score and rank column pairs when every
// pair names two of its columns, else nil.
func compactPairs(t analyses.Table, idx map[string]int) []analyses.CompactColumn {
	for _, cc := range t.Compact {
		_, ok1 := idx[cc.Score]
		_, ok2 := idx[cc.Rank]
		if !ok1 || !ok2 {
			return nil
		}
	}
	return t.Compact
}

// intervalOf reports whether id is an interval's lower bound whose upper
// bound is a column too: its index, the interval's label and whether it
// is a detail.
func intervalOf(id string, idx map[string]int) (hi int, label string, detail, ok bool) {
	for _, iv := range intervals {
		if id == iv.low {
			if h, ok := idx[iv.high]; ok {
				return h, iv.label, iv.detail, true
			}
		}
	}
	return 0, "", false, false
}

// sharedFormats prints an interval and the estimate it is of in one
// format, chosen from the values of both: τ² "4.49e-04" beside its
// interval "[0.000351, 0.001077]" read as two precisions of one
// quantity; both now read "0.000449" and "[0.000351, 0.001077]". A
// column whose decimals the analysis sets keeps them.
func sharedFormats(spec *Table, t analyses.Table, idx map[string]int) {
	at := map[string]int{}
	for j, c := range spec.Columns {
		at[c.ID] = j
	}
	for _, iv := range intervals {
		e, ok1 := at[iv.estimate]
		v, ok2 := at[iv.low]
		if iv.estimate == "" || !ok1 || !ok2 || spec.Columns[v].Role != RoleInterval {
			continue
		}
		if _, set := t.Decimals[iv.estimate]; set || spec.Columns[e].Format.Kind != NumFixed && spec.Columns[e].Format.Kind != NumScientific {
			continue
		}
		var cells []any
		for _, id := range []string{iv.estimate, iv.low, iv.high} {
			cells = append(cells, columnCells(t, idx[id])...)
		}
		f := ChooseFormat(iv.estimate, cells)
		if f.Kind == NumFixed || f.Kind == NumScientific {
			spec.Columns[e].Format, spec.Columns[v].Format = f, f
		}
	}
}

// isIntervalHigh reports whether id is an interval's upper bound.
func isIntervalHigh(id string) bool {
	for _, iv := range intervals {
		if id == iv.high {
			return true
		}
	}
	return false
}

// isArea reports whether id is a stability area (more is more stable).
func isArea(id string) bool { return strings.HasSuffix(id, "_area") }

// guessRole is the role of a column evalbook does not know: a p-value,
// a rank, a count or a value by its name and values.
func guessRole(id string, cells []any, f NumberFormat) Role {
	switch {
	case f.Kind == NumText:
		for _, c := range cells {
			if _, ok := c.(bool); ok {
				return RoleFlag
			}
		}
		return RoleText
	case f.Kind == NumPValue || f.Kind == NumMonteCarlo:
		return RolePValue
	case strings.HasSuffix(id, "_rank") || id == "rank":
		return RoleRank
	}
	return RoleValue
}

// sigColumns finds the p-value column a significant row's mark goes on
// (p_holm, else p) and the data column that says which rows are.
func sigColumns(cols []Column, idx map[string]int) (sigCol, pCol int) {
	sigCol, pCol = -1, -1
	if j, ok := idx["significant"]; ok {
		sigCol = j
	}
	for j, c := range cols {
		if c.ID == "p_holm" {
			pCol = j
		}
	}
	if pCol < 0 {
		for j, c := range cols {
			if c.ID == "p" {
				pCol = j
			}
		}
	}
	return sigCol, pCol
}

// sigNote explains the significance mark.
func sigNote(pLabel string, alpha float64) string {
	at := "the analysis's level α"
	if alpha > 0 {
		at = "α = " + strconv.FormatFloat(alpha, 'g', -1, 64)
	}
	return "* significant at " + at + " (" + pLabel + ")."
}

// makeCell is a data value as its column shows it.
func makeCell(col Column, v any, n analyses.Naming) Cell {
	switch x := v.(type) {
	case nil:
		return Cell{Text: "—", Undefined: "undefined or not applicable"}
	case bool:
		if x {
			return Cell{Text: "yes"}
		}
		return Cell{Text: "no"}
	case string:
		l := CellLabel(col.ID, x, n)
		c := Cell{Text: l}
		if l != x {
			c.Title = x
		}
		return c
	case int:
		return numCell(col.Format, float64(x))
	case int64:
		return numCell(col.Format, float64(x))
	case float64:
		if !analyses.Finite(x) {
			return Cell{Text: "—", Undefined: "undefined or not applicable"}
		}
		if col.Scale != 0 {
			x *= col.Scale
		}
		return numCell(col.Format, x)
	}
	return Cell{Text: fmt.Sprint(v)}
}

// numCell is a finite number by its column's format: the text, the exact
// value as its title when the text rounds it, and the shown number as
// its sort key.
func numCell(f NumberFormat, x float64) Cell {
	if f.Kind == NumText {
		f = NumberFormat{Kind: NumFixed, Decimals: 4}
	}
	text := f.Format(x)
	full := strconv.FormatFloat(x, 'g', -1, 64)
	c := Cell{Text: text, Num: true, Value: x, Sort: full}
	if full != text {
		c.Title = full
	}
	return c
}

// intervalCell is "[lo, hi]" with the precision that suits the interval
// column's bounds.
func intervalCell(lo, hi any, cols []Column, j int, rows [][]any, li, hj int) Cell {
	l, ok1 := lo.(float64)
	h, ok2 := hi.(float64)
	if !ok1 || !ok2 || !analyses.Finite(l) || !analyses.Finite(h) {
		return Cell{Text: "—", Undefined: "undefined or not applicable"}
	}
	if cols[j].Format.Kind == NumText {
		var all []any
		for _, r := range rows {
			all = append(all, r[li], r[hj])
		}
		cols[j].Format = ChooseFormat(cols[j].ID, all)
	}
	f := cols[j].Format
	return Cell{Text: "[" + f.Format(l) + ", " + f.Format(h) + "]", Title: strconv.FormatFloat(l, 'g', -1, 64) + " to " + strconv.FormatFloat(h, 'g', -1, 64)}
}

// markBest marks, in every column with a direction, the best cell (bold)
// and the second (underlined) when each is alone; cells tied for the best
// (analyses.Tied) are marked as tied, none of them as a win. A partial
// summary of fewer than half its values is never marked. A column whose
// cells all tie marks nothing.
func markBest(t *Table) {
	for j, col := range t.Columns {
		if col.Better != "higher" && col.Better != "lower" {
			continue
		}
		higher := col.Better == "higher"
		var vals []float64
		var at []int
		for i, r := range t.Rows {
			c := r[j]
			if !c.Num || (c.Of > 0 && 2*c.Defined < c.Of) {
				continue
			}
			vals = append(vals, c.Value)
			at = append(at, i)
		}
		if len(vals) < 2 {
			continue
		}
		order := slices.Clone(vals)
		slices.SortFunc(order, func(a, b float64) int {
			if higher {
				a, b = b, a
			}
			return analyses.CompareScores(a, b)
		})
		best := order[0]
		var tiedBest, second []int
		for k, v := range vals {
			if analyses.Tied(v, best) {
				tiedBest = append(tiedBest, at[k])
			}
		}
		if len(tiedBest) == len(vals) {
			continue
		}
		if len(tiedBest) > 1 {
			for _, i := range tiedBest {
				t.Rows[i][j].Mark = MarkTied
			}
			continue
		}
		t.Rows[tiedBest[0]][j].Mark = MarkBest
		next := math.NaN()
		for _, v := range order {
			if !analyses.Tied(v, best) {
				next = v
				break
			}
		}
		for k, v := range vals {
			if analyses.Tied(v, next) {
				second = append(second, at[k])
			}
		}
		if len(second) == 1 {
			t.Rows[second[0]][j].Mark = MarkSecond
		}
	}
}

// caption says what the table shows: its title, what a row is and what
// its columns hold.
func caption(t *Table) string {
	var keys, ids, vals []string
	for _, c := range t.Columns {
		if c.Role == RoleKey {
			keys = append(keys, strings.ToLower(c.Label))
			ids = append(ids, c.ID)
		}
	}
	if strings.Join(ids, ",") == "a,b" {
		keys = []string{"pair of methods"}
	}
	var c string
	if t.Title != "" {
		c = strings.TrimSuffix(t.Title, ".") + "."
	}
	if len(keys) > 0 {
		c += " One row per " + strings.Join(keys, " and ") + "."
	}
	c = strings.TrimSpace(c)
	if t.RankNote != "" {
		vals = append(vals, "Rank of each method under each rule (1 = best).")
	}
	if len(vals) > 0 {
		c += " " + strings.Join(vals, " ")
	}
	return c
}
