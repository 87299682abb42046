package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// LogColumns names an interaction table's columns (each defaults to its
// own name); Rating is optional ("" when the table has none).
type LogColumns struct {
	Dataset, User, Item, Rating string
}

// LogSource is one dataset's interaction log in an engine table: the rows
// whose dataset column holds Dataset. A log is reduced to the counts of
// the characteristics analysis's preprocessing (rating threshold, item and
// user filters, k-core) and the per-user and per-item histograms of
// interaction counts; the pairs stay in the engine.
type LogSource struct {
	Dialect Dialect
	Table   string
	Columns LogColumns
	Dataset string
	// Threshold keeps pairs whose rating is at least it, when HasThreshold.
	Threshold    float64
	HasThreshold bool
}

// text is a text column as the file readers read it: trimmed of
// surrounding white space (Dialect.Trim).
func (s LogSource) text(col string) string {
	if s.Dialect.Trim == "" {
		return s.Dialect.Ident(col)
	}
	return fmt.Sprintf(s.Dialect.Trim, s.Dialect.Ident(col))
}

// rows is the dataset's rows, its dataset names compared trimmed.
func (s LogSource) rows() string {
	d := s.Dialect
	return " FROM " + d.TableName(s.Table) + " WHERE " + s.text(s.Columns.Dataset) + " = " + d.String(s.Dataset)
}

// trimmed is the subquery of the dataset's rows with the user and item
// ids trimmed as the file readers trim them (eb_u, eb_i) and the rating
// as a float (eb_r; 0 without a rating column). The ids are trimmed here,
// once per copy of the pairs: the queries above it group and compare the
// trimmed columns. (A common table expression would trim them once per
// query, but ClickHouse 18.16 has none: WITH names only expressions.)
func (s LogSource) trimmed() string {
	d := s.Dialect
	c := s.Columns
	r := "0"
	if c.Rating != "" {
		r = fmt.Sprintf(d.ToFloat, d.Ident(c.Rating))
	}
	return "(SELECT " + s.text(c.User) + " AS eb_u, " + s.text(c.Item) + " AS eb_i, " + r + " AS eb_r" + s.rows() + ")"
}

// pairs is the subquery of the distinct (u, i) pairs left after the
// rating threshold (a pair's rows must agree on the rating, which
// SummarySQL checks).
func (s LogSource) pairs() string {
	where := ""
	if s.HasThreshold {
		where = " WHERE eb_r >= " + strconv.FormatFloat(s.Threshold, 'g', -1, 64)
	}
	return "(SELECT eb_u AS u, eb_i AS i FROM " + s.trimmed() + where + " GROUP BY eb_u, eb_i)"
}

// SummarySQL returns, for the dataset: its rows, distinct pairs, empty
// user and item ids, pairs whose rows disagree on the rating or lack one,
// pairs below the threshold, and ratings that are NaN or infinite.
func (s LogSource) SummarySQL() string {
	below := "0"
	if s.HasThreshold {
		below = "SUM(CASE WHEN lo < " + strconv.FormatFloat(s.Threshold, 'g', -1, 64) + " THEN 1 ELSE 0 END)"
	}
	r := "eb_r"
	inner := "SELECT " + strings.Join([]string{
		"eb_u AS u", "eb_i AS i",
		"COUNT(*) AS n",
		"MIN(" + r + ") AS lo", "MAX(" + r + ") AS hi",
		"SUM(CASE WHEN " + r + " IS NULL THEN 1 ELSE 0 END) AS nulls",
		"SUM(CASE WHEN " + fmt.Sprintf(s.Dialect.IsFinite, r) + " = 0 THEN 1 ELSE 0 END) AS bad",
	}, ", ") + " FROM " + s.trimmed() + " GROUP BY eb_u, eb_i"
	return "SELECT " + strings.Join([]string{
		"SUM(n)", "COUNT(*)",
		"SUM(CASE WHEN u = '' THEN 1 ELSE 0 END)", "SUM(CASE WHEN i = '' THEN 1 ELSE 0 END)",
		"SUM(CASE WHEN lo <> hi THEN 1 ELSE 0 END)", "SUM(CASE WHEN nulls > 0 THEN 1 ELSE 0 END)",
		below, "SUM(bad)",
	}, ", ") + " FROM (" + inner + ")"
}

// FingerprintSQL returns the dataset's rows and the sum of a hash of
// every row's mapped columns (the log's content fingerprint). The rating
// column is the one of the mapping: a rating column found by name is not
// in it.
func (s LogSource) FingerprintSQL() string {
	d := s.Dialect
	c := s.Columns
	cols := []string{d.Ident(c.Dataset), d.Ident(c.User), d.Ident(c.Item)}
	if c.Rating != "" {
		cols = append(cols, "COALESCE("+fmt.Sprintf(d.ToFloat, d.Ident(c.Rating))+", -1e308)")
	}
	return "SELECT COUNT(*), SUM(" + fmt.Sprintf(d.RowHash, strings.Join(cols, ", ")) + ")" + s.rows()
}

// Filter is the pairs kept so far: those of a base (the distinct pairs,
// or a temporary table of them, Kept) that meet the conditions of the
// item and user filters and the k-core rounds, each an IN over the pairs
// the previous conditions keep.
type Filter struct {
	base         string // a temporary table of pairs (u, i); "" = the pairs
	users, items string // conditions on u and on i ("" = all)
}

// Kept is the filter of the pairs stored in the temporary table name
// (MaterializeSQL).
func Kept(name string) Filter { return Filter{base: name} }

func (f Filter) where() string {
	var conds []string
	for _, c := range []string{f.users, f.items} {
		if c != "" {
			conds = append(conds, c)
		}
	}
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// from is the pairs f keeps, as the source of a FROM.
func (s LogSource) from(f Filter) string {
	if f.base != "" {
		return f.base + f.where()
	}
	return s.pairs() + f.where()
}

// keep returns the ids (u or i) with at least k pairs among those f
// keeps. It implies f's own condition on that id (k ≥ 1), so a filter
// replaces the previous condition instead of adding to it.
func (s LogSource) keep(f Filter, id string, k int) string {
	return id + " IN (SELECT " + id + " FROM " + s.from(f) + " GROUP BY " + id + " HAVING COUNT(*) >= " + strconv.Itoa(k) + ")"
}

// ItemFilter keeps the items with at least k pairs (one pass).
func (s LogSource) ItemFilter(f Filter, k int) Filter {
	return Filter{base: f.base, users: f.users, items: s.keep(f, "i", k)}
}

// UserFilter keeps the users with at least k pairs (one pass).
func (s LogSource) UserFilter(f Filter, k int) Filter {
	return Filter{base: f.base, users: s.keep(f, "u", k), items: f.items}
}

// CoreRound is one round of the iterated k-core: the users and the items
// with at least k of the pairs f keeps. The condition holds two copies
// of f's (one per id): over the distinct pairs, round r's query holds
// 2^r copies of them, so those rounds are bounded (MaxCoreRounds); over
// a temporary table of the previous round's pairs (Kept, MaterializeSQL)
// it is one short query per round.
func (s LogSource) CoreRound(f Filter, k int) Filter {
	return Filter{base: f.base, users: s.keep(f, "u", k), items: s.keep(f, "i", k)}
}

// MaxCoreRounds bounds the k-core rounds run as nested queries (an
// account that may not create temporary tables): each round's query is
// about twice as long as the previous one's.
const MaxCoreRounds = 8

// MaxMaterializedCoreRounds bounds the k-core rounds run over temporary
// tables: each round is three short statements (store the round's pairs,
// count them, drop the previous round's), so the bound is on the number
// of statements, not on their size. Real logs converge in tens of
// rounds; a log that needs more (a long path of pairs, peeled one pair
// per round) is better computed from a file, which has no bound.
const MaxMaterializedCoreRounds = 1000

// Materializes reports whether the dialect has temporary tables, in
// which a log's pairs can be stored step by step (MaterializeSQL).
func (d Dialect) Materializes() bool { return d.TempTable != "" && d.DropTemp != "" }

// MaterializeSQL returns the statement that stores the pairs f keeps, as
// columns u and i, in the temporary table name (it lives as long as the
// connection: the statements that read it must use the same one).
func (s LogSource) MaterializeSQL(name string, f Filter) string {
	return fmt.Sprintf(s.Dialect.TempTable, name, "SELECT u, i FROM "+s.from(f))
}

// DropSQL returns the statement that drops the temporary table name.
func (s LogSource) DropSQL(name string) string {
	return fmt.Sprintf(s.Dialect.DropTemp, name)
}

// CountSQL counts the pairs f keeps.
func (s LogSource) CountSQL(f Filter) string {
	return "SELECT COUNT(*) FROM " + s.from(f)
}

// HistogramSQL returns the histogram of interaction counts per user
// (id = "u") or per item ("i") over the pairs f keeps: (count, number of
// ids with that count), by count.
func (s LogSource) HistogramSQL(f Filter, id string) string {
	return "SELECT n, COUNT(*) FROM (SELECT " + id + ", COUNT(*) AS n FROM " + s.from(f) + " GROUP BY " + id + ") GROUP BY n ORDER BY n"
}

// TailBoundarySQL returns the name of the item at 0-based position
// offset, by name, among the items with count interactions in the pairs
// f keeps: the last head item of the long tail (the shortest prefix of
// items by count holding 80% of the interactions) when the 80% cut
// falls among items of equal count (ties go by id, as in the file path).
func (s LogSource) TailBoundarySQL(f Filter, count int64, offset int64) string {
	return "SELECT i FROM (SELECT i, COUNT(*) AS n FROM " + s.from(f) + " GROUP BY i) WHERE n = " +
		strconv.FormatInt(count, 10) + " ORDER BY i LIMIT 1 OFFSET " + strconv.FormatInt(offset, 10)
}

// Tail is the long tail's condition on an item's count (ni) and id (i):
// count below Count, or equal to it and the id after After (when
// HasAfter).
type Tail struct {
	Count    int64
	After    string
	HasAfter bool
}

func (s LogSource) tail(t Tail) string {
	c := strconv.FormatInt(t.Count, 10)
	if !t.HasAfter {
		return "ni < " + c
	}
	return "(ni < " + c + " OR (ni = " + c + " AND i > " + s.Dialect.String(t.After) + "))"
}

// perUser is the subquery of each user's values over the pairs f keeps:
// pb, the mean popularity of the user's items (an item's popularity is
// its count over nu, the users left) and lt, the share of long-tail
// items. The divisions are those of the file path, in its order.
func (s LogSource) perUser(f Filter, t Tail, nu int64) string {
	items := "(SELECT i, COUNT(*) AS ni FROM " + s.from(f) + " GROUP BY i)"
	pairs := "(SELECT u, i FROM " + s.from(f) + ")"
	return "(SELECT SUM(ni) / COUNT(*) / " + strconv.FormatInt(nu, 10) + " AS pb, " +
		"SUM(CASE WHEN " + s.tail(t) + " THEN 1 ELSE 0 END) / COUNT(*) AS lt FROM " +
		pairs + " " + s.Dialect.InnerJoin + " " + items + " USING i GROUP BY u)"
}

// UserSumsSQL returns the users and the sums of pb and lt (their means
// give the shifts of UserMomentsSQL).
func (s LogSource) UserSumsSQL(f Filter, t Tail, nu int64) string {
	return "SELECT COUNT(*), SUM(pb), SUM(lt) FROM " + s.perUser(f, t, nu)
}

// UserMomentsSQL returns the sums of the first four powers of pb − sp
// and of lt − sl, shifts given as exact SQL expressions (Dialect.Dyadic).
func (s LogSource) UserMomentsSQL(f Filter, t Tail, nu int64, sp, sl string) string {
	var cols []string
	for _, d := range []string{"dp", "dl"} {
		cols = append(cols, "SUM("+d+")", "SUM("+d+" * "+d+")", "SUM("+d+" * "+d+" * "+d+")", "SUM("+d+" * "+d+" * "+d+" * "+d+")")
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM (SELECT pb - " + sp + " AS dp, lt - " + sl + " AS dl FROM " + s.perUser(f, t, nu) + ")"
}

// SchemaSQL lists the table's columns and their types.
func (s LogSource) SchemaSQL() string {
	return "DESCRIBE TABLE " + s.Dialect.TableName(s.Table)
}
