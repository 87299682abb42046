package engine

import (
	"fmt"
	"strings"
)

// Columns names the table's columns (the manifest's columns mapping;
// each defaults to its own name).
type Columns struct {
	Dataset, Method, Unit, Metric, Value string
}

// Names lists the columns with the names evalbook gives them.
func (c Columns) Names() [][2]string {
	return [][2]string{{"dataset", c.Dataset}, {"method", c.Method}, {"unit", c.Unit}, {"metric", c.Metric}, {"value", c.Value}}
}

// Source is one engine table of per-unit values.
type Source struct {
	Dialect Dialect
	Table   string
	Columns Columns
	// Missing is the entry's rule for a NULL value: "" (missing, NaN),
	// "zero" (0) or "drop" (the row is left out).
	Missing string
	// UnitText: the unit column holds text (not integers), trimmed as the
	// file readers trim unit ids. Set once the table's schema is read.
	UnitText bool
}

// text is a text column (dataset, method, metric) as the file readers
// read it: trimmed of surrounding white space (Dialect.Trim).
func (s Source) text(col string) string {
	if s.Dialect.Trim == "" {
		return s.Dialect.Ident(col)
	}
	return fmt.Sprintf(s.Dialect.Trim, s.Dialect.Ident(col))
}

// unit is the unit column: trimmed when it holds text (UnitText), as it
// is when the file readers read unit ids.
func (s Source) unit() string {
	if s.UnitText {
		return s.text(s.Columns.Unit)
	}
	return s.Dialect.Ident(s.Columns.Unit)
}

// value is the value column as a float, after the entry's missing rule;
// NULL stays NULL unless missing = "zero".
func (s Source) value() string {
	v := fmt.Sprintf(s.Dialect.ToFloat, s.Dialect.Ident(s.Columns.Value))
	if s.Missing == "zero" {
		return "COALESCE(" + v + ", 0)"
	}
	return v
}

// where is the WHERE clause every query shares (the missing = "drop"
// rule), and more conditions.
func (s Source) where(conds ...string) string {
	if s.Missing == "drop" {
		conds = append([]string{s.Dialect.Ident(s.Columns.Value) + " IS NOT NULL"}, conds...)
	}
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// trimmed is an expression (%s) trimmed as the file readers trim text
// (Dialect.Trim), or itself for a dialect without a trim.
func (s Source) trimmed(expr string) string {
	if s.Dialect.Trim == "" {
		return expr
	}
	return fmt.Sprintf(s.Dialect.Trim, expr)
}

// CatalogueSQL counts the values of every (dataset, method, metric) cell,
// their NULLs and non-finite values, averages them (the shifts of the
// paired sums) and sums a hash of every row: the sum of the cells' hash
// sums with the count is the table's content fingerprint. It also tells,
// per cell, whether some row names it with surrounding white space (a
// padded name: 1) and how many of its text unit ids may carry some (the
// fast paired query needs neither).
//
// The rows are grouped by the raw names first and the few groups trimmed
// after: the trim (a regular expression) runs once per distinct name,
// not once per row (issue 32: it was two thirds of the query's CPU).
func (s Source) CatalogueSQL() string {
	d := s.Dialect
	c := s.Columns
	cols := []string{d.Ident(c.Dataset), d.Ident(c.Method), d.Ident(c.Unit), d.Ident(c.Metric), "COALESCE(" + s.value() + ", -1e308)"}
	hash := fmt.Sprintf(d.RowHash, strings.Join(cols, ", "))
	v := s.value()
	pad := "0"
	if s.UnitText && d.MayPad != "" {
		pad = "SUM(CASE WHEN " + fmt.Sprintf(d.MayPad, d.Ident(c.Unit)) + " THEN 1 ELSE 0 END)"
	}
	inner := "SELECT " + strings.Join([]string{
		d.Ident(c.Dataset) + " AS eb_ds", d.Ident(c.Method) + " AS eb_me", d.Ident(c.Metric) + " AS eb_mt",
		"COUNT(*) AS eb_n",
		"SUM(CASE WHEN " + v + " IS NULL THEN 1 ELSE 0 END) AS eb_null",
		"SUM(CASE WHEN " + fmt.Sprintf(d.IsFinite, v) + " = 0 THEN 1 ELSE 0 END) AS eb_nf",
		"SUM(CASE WHEN " + fmt.Sprintf(d.IsFinite, v) + " = 1 THEN " + v + " ELSE 0 END) AS eb_sum",
		"SUM(" + hash + ") AS eb_hash",
		pad + " AS eb_pad",
	}, ", ") + " FROM " + d.TableName(s.Table) + s.where() +
		" GROUP BY " + d.Ident(c.Dataset) + ", " + d.Ident(c.Method) + ", " + d.Ident(c.Metric)
	ds, me, mt := s.trimmed("eb_ds"), s.trimmed("eb_me"), s.trimmed("eb_mt")
	return "SELECT " + strings.Join([]string{
		ds, me, mt,
		"SUM(eb_n)", "SUM(eb_null)", "SUM(eb_nf)", "SUM(eb_sum)", "SUM(eb_hash)",
		"MAX(CASE WHEN eb_ds = " + ds + " AND eb_me = " + me + " AND eb_mt = " + mt + " THEN 0 ELSE 1 END)",
		"SUM(eb_pad)",
	}, ", ") + " FROM (" + inner + ")" +
		" GROUP BY " + ds + ", " + me + ", " + mt +
		" ORDER BY " + ds + ", " + me + ", " + mt
}

// Shift is a dataset's shifts of the paired sums (about the treatment's,
// the control's and the differences' means, so that the sums of squares
// do not cancel); SQL holds each as an exact SQL expression.
type Shift struct {
	T, C, D          float64
	SQLT, SQLC, SQLD string
}

// PairedSQL returns the query of a paired meta-analysis's sufficient
// statistics over the values of one metric: per dataset, the values of
// each side, the unmatched units of each side, the pairs dropped for a
// missing value (zero = false) and, over the complete pairs, n and the
// shifted sums Σx, Σy, Σd, Σx², Σy², Σxy, Σd² (x treatment, y control,
// d = x − y, each minus its shift). A unit is paired within its dataset
// by its id; a unit with two values of one method is reported (dupT,
// dupC: the largest count and one such unit).
func (s Source) PairedSQL(metric, treatment, control string, zero bool, shifts map[string]Shift, datasets []string) string {
	d := s.Dialect
	c := s.Columns
	ds, me := s.text(c.Dataset), s.text(c.Method)
	is := func(m string) string { return me + " = " + d.String(m) }
	v := s.value()
	caseShift := func(pick func(Shift) string) string {
		if len(datasets) == 0 {
			return "0"
		}
		var b strings.Builder
		b.WriteString("CASE " + ds)
		for _, ds := range datasets {
			b.WriteString(" WHEN " + d.String(ds) + " THEN " + pick(shifts[ds]))
		}
		b.WriteString(" ELSE 0 END")
		return b.String()
	}
	inner := "SELECT " + strings.Join([]string{
		ds + " AS eb_ds",         // not the name of a column: ClickHouse would
		s.unit() + " AS eb_unit", // read the column in the trim as the alias
		"SUM(CASE WHEN " + is(treatment) + " THEN 1 ELSE 0 END) AS nt",
		"SUM(CASE WHEN " + is(control) + " THEN 1 ELSE 0 END) AS nc",
		"SUM(CASE WHEN " + is(treatment) + " AND " + v + " IS NULL THEN 1 ELSE 0 END) AS mt",
		"SUM(CASE WHEN " + is(control) + " AND " + v + " IS NULL THEN 1 ELSE 0 END) AS mc",
		"SUM(CASE WHEN " + is(treatment) + " THEN COALESCE(" + v + ", 0) ELSE 0 END) AS xt",
		"SUM(CASE WHEN " + is(control) + " THEN COALESCE(" + v + ", 0) ELSE 0 END) AS xc",
		caseShift(func(s Shift) string { return s.SQLT }) + " AS st",
		caseShift(func(s Shift) string { return s.SQLC }) + " AS sc",
		caseShift(func(s Shift) string { return s.SQLD }) + " AS sd",
	}, ", ") + " FROM " + d.TableName(s.Table) +
		s.where(s.text(c.Metric)+" = "+d.String(metric), me+" IN ("+d.String(treatment)+", "+d.String(control)+")") +
		" GROUP BY " + ds + ", " + s.unit()
	complete := "nt = 1 AND nc = 1"
	dropped := "0"
	if !zero {
		complete += " AND mt = 0 AND mc = 0"
		dropped = "SUM(CASE WHEN nt = 1 AND nc = 1 AND (mt > 0 OR mc > 0) THEN 1 ELSE 0 END)"
	}
	sum := func(expr string) string {
		return "SUM(CASE WHEN " + complete + " THEN " + expr + " ELSE 0 END)"
	}
	x, y, dd := "(xt - st)", "(xc - sc)", "((xt - xc) - sd)"
	return "SELECT " + strings.Join([]string{
		"eb_ds",
		"SUM(nt)", "SUM(nc)",
		"SUM(CASE WHEN nt = 1 AND nc = 0 THEN 1 ELSE 0 END)",
		"SUM(CASE WHEN nt = 0 AND nc = 1 THEN 1 ELSE 0 END)",
		dropped,
		"MAX(nt)", "MAX(CASE WHEN nt > 1 THEN eb_unit ELSE NULL END)",
		"MAX(nc)", "MAX(CASE WHEN nc > 1 THEN eb_unit ELSE NULL END)",
		"SUM(CASE WHEN " + complete + " THEN 1 ELSE 0 END)",
		sum(x), sum(y), sum(dd),
		sum(x + " * " + x), sum(y + " * " + y), sum(x + " * " + y), sum(dd + " * " + dd),
	}, ", ") + " FROM (" + inner + ") GROUP BY eb_ds ORDER BY eb_ds"
}

// FastPaired reports whether the dialect can write PairedFastSQL.
func (d Dialect) FastPaired() bool {
	return d.PairKey != "" && d.KeyIndex != "" && d.CheckHash != "" && d.Lookup != nil && d.Pick != nil
}

// PairedFastSQL returns the paired sums of PairedSQL from a cheaper
// query, for a table whose names and unit ids need no trim (the
// catalogue says which) and at most 255 datasets. Where ClickHouse spends
// PairedSQL's time (issue 32, measured in system.query_log): the trims, a
// regular expression per row and column, and the grouping by (dataset,
// unit) as strings, a hash table of one entry per unit; and ClickHouse
// 18.16 pays for every aggregate of every row it groups. Here the rows
// are filtered on the raw names and grouped by one 64-bit key per unit:
// the dataset's index (1–255, from the datasets list) in the top byte and
// 56 bits of the unit id's hash below. Counts are packed two to an
// integer (low + 2^32 × high: the table has fewer than 2^32 rows, the
// caller checks). Two units of one dataset whose hashes agree would share
// a group: each group also sums a second, independent hash of its unit,
// negated for the control's value, so that a pair sums to 0, and a
// group with one value per side and a non-zero sum is an anomaly, as is
// a group with two values of a side (a repeated id, or two ids sharing a
// key); the caller then sends the exact query, PairedSQL. nulls: some
// value may be NULL (then each group also counts them per side).
//
// Columns: dataset index; values of the treatment + 2^32 × of the
// control; unmatched units of the treatment + 2^32 × of the control;
// complete pairs + 2^32 × pairs dropped for a missing value; anomalies;
// the shifted sums Σx, Σy, Σd, Σx², Σy², Σxy, Σd² over the complete pairs.
func (s Source) PairedFastSQL(metric, treatment, control string, zero, nulls bool, shifts map[string]Shift, datasets []string) string {
	d := s.Dialect
	c := s.Columns
	me, unit := d.Ident(c.Method), d.Ident(c.Unit)
	v := s.value()
	index := make([]string, len(datasets))
	quoted := make([]string, len(datasets))
	for i, ds := range datasets {
		quoted[i] = d.String(ds)
		index[i] = fmt.Sprint(i + 1)
	}
	const hi = "4294967296" // 2^32: one control value in a group's count
	// Comparisons are numbers (0 or 1) and the sides are picked by
	// multiplying: ClickHouse 18.16 evaluates CASE (multiIf) several times
	// slower than arithmetic over a column (issue 32: a quarter of the
	// query). The values are finite (the catalogue refuses others), so a
	// product with 0 is 0.
	t := "(" + me + " = " + d.String(treatment) + ")"
	side := "(" + hi + " - " + t + " * (" + hi + " - 1))" // 1 or 2^32
	val := "COALESCE(" + v + ", 0)"
	cols := []string{
		fmt.Sprintf(d.PairKey, unit, d.Lookup(d.Ident(c.Dataset), quoted, index, "0")) + " AS eb_k",
		"SUM(" + side + ") AS eb_n",
		"SUM(" + fmt.Sprintf(d.CheckHash, unit) + " * (2 * " + t + " - 1)) AS eb_h",
		"SUM(" + val + " * " + t + ") AS eb_xt",
		"SUM(" + val + " * (1 - " + t + ")) AS eb_xc",
	}
	nulls = nulls && !zero
	if nulls {
		cols = append(cols, "SUM(("+v+" IS NULL) * "+side+") AS eb_m")
	}
	inner := "SELECT " + strings.Join(cols, ", ") + " FROM " + d.TableName(s.Table) +
		s.where(d.Ident(c.Metric)+" = "+d.String(metric), me+" IN ("+d.String(treatment)+", "+d.String(control)+")") +
		" GROUP BY eb_k"
	pick := func(f func(Shift) string) string {
		vals := make([]string, len(datasets))
		for i, ds := range datasets {
			vals[i] = f(shifts[ds])
		}
		return d.Pick("eb_d", vals)
	}
	// eb_c: a complete pair; x, y, dd: its shifted values, 0 for others.
	complete, pairs := "(eb_n = "+hi+" + 1)", "eb_c"
	if nulls {
		pairs = "eb_c + (eb_n = " + hi + " + 1 AND eb_m > 0) * " + hi
		complete = "(eb_n = " + hi + " + 1 AND eb_m = 0)"
	}
	mid := "SELECT " + strings.Join([]string{
		fmt.Sprintf(d.KeyIndex, "eb_k") + " AS eb_d", "eb_n", "eb_h", complete + " AS eb_c",
		"(eb_xt - " + pick(func(s Shift) string { return s.SQLT }) + ") * eb_c AS eb_x",
		"(eb_xc - " + pick(func(s Shift) string { return s.SQLC }) + ") * eb_c AS eb_y",
		"((eb_xt - eb_xc) - " + pick(func(s Shift) string { return s.SQLD }) + ") * eb_c AS eb_dd",
	}, ", ")
	if nulls {
		mid += ", eb_m"
	}
	return "SELECT " + strings.Join([]string{
		"eb_d",
		"SUM(eb_n)",
		"SUM((eb_n = 1) + (eb_n = " + hi + ") * " + hi + ")",
		"SUM(" + pairs + ")",
		"SUM((eb_n % " + hi + " > 1) + (eb_n > 2 * " + hi + " - 1) + (eb_n = " + hi + " + 1 AND eb_h <> 0))",
		"SUM(eb_x)", "SUM(eb_y)", "SUM(eb_dd)",
		"SUM(eb_x * eb_x)", "SUM(eb_y * eb_y)", "SUM(eb_x * eb_y)", "SUM(eb_dd * eb_dd)",
	}, ", ") + " FROM (" + mid + " FROM (" + inner + ")) GROUP BY eb_d ORDER BY eb_d"
}

// RepeatSQL returns the query of the first unit (by dataset, method and
// unit) with more than one value of the treatment or the control on the
// metric: its dataset, method, unit and count; no row when there is
// none. An independent-groups analysis pairs nothing, so this is how
// it finds a repeated unit id (PairedSQL counts them as it pairs).
func (s Source) RepeatSQL(metric, treatment, control string) string {
	d := s.Dialect
	c := s.Columns
	ds, me := s.text(c.Dataset), s.text(c.Method)
	return "SELECT " + ds + " AS eb_ds, " + me + " AS eb_me, " + s.unit() + " AS eb_unit, COUNT(*) AS eb_n FROM " + d.TableName(s.Table) +
		s.where(s.text(c.Metric)+" = "+d.String(metric), me+" IN ("+d.String(treatment)+", "+d.String(control)+")") +
		" GROUP BY " + ds + ", " + me + ", " + s.unit() +
		" HAVING COUNT(*) > 1 ORDER BY eb_ds, eb_me, eb_unit LIMIT 1"
}

// GroupsSQL returns the query of an independent-groups meta-analysis's
// statistics: per dataset and side, the values, the missing ones, and over
// the others n, Σ(v − shift) and Σ(v − shift)².
func (s Source) GroupsSQL(metric, treatment, control string, zero bool, shifts map[string]Shift, datasets []string) string {
	d := s.Dialect
	c := s.Columns
	v := s.value()
	if zero {
		v = "COALESCE(" + v + ", 0)"
	}
	dcol, me := s.text(c.Dataset), s.text(c.Method)
	var b strings.Builder
	b.WriteString("CASE WHEN 1 = 0 THEN 0")
	for _, ds := range datasets {
		sh := shifts[ds]
		b.WriteString(" WHEN " + dcol + " = " + d.String(ds) + " AND " + me + " = " + d.String(treatment) + " THEN " + sh.SQLT)
		b.WriteString(" WHEN " + dcol + " = " + d.String(ds) + " AND " + me + " = " + d.String(control) + " THEN " + sh.SQLC)
	}
	b.WriteString(" ELSE 0 END")
	x := "(" + v + " - (" + b.String() + "))"
	ok := v + " IS NOT NULL"
	return "SELECT " + strings.Join([]string{
		dcol, me,
		"COUNT(*)",
		"SUM(CASE WHEN " + ok + " THEN 1 ELSE 0 END)",
		"SUM(CASE WHEN " + ok + " THEN " + x + " ELSE 0 END)",
		"SUM(CASE WHEN " + ok + " THEN " + x + " * " + x + " ELSE 0 END)",
	}, ", ") + " FROM " + d.TableName(s.Table) +
		s.where(s.text(c.Metric)+" = "+d.String(metric), me+" IN ("+d.String(treatment)+", "+d.String(control)+")") +
		" GROUP BY " + dcol + ", " + me +
		" ORDER BY " + dcol + ", " + me
}

// SchemaSQL lists the table's columns and their types.
func (s Source) SchemaSQL() string {
	return "DESCRIBE TABLE " + s.Dialect.TableName(s.Table)
}
