package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Dialect is what differs between SQL engines in the queries of sql.go.
// Everything else is portable SQL: SELECT, WHERE, GROUP BY, ORDER BY,
// SUM, COUNT(*), MAX, CASE WHEN, COALESCE, IS NULL, CAST, a subquery in
// FROM or IN; no window functions, and one join (InnerJoin, the
// interaction logs' per-user query). A second engine is one more value
// of this type (docs/ENGINE.md has the table of differences).
type Dialect struct {
	Name string
	// ToFloat converts a number column (%s) to a 64-bit float, NULL
	// staying NULL (standard SQL: CAST(%s AS DOUBLE PRECISION)).
	ToFloat string
	// RowHash hashes the columns of a row into a 64-bit integer whose sum
	// over the table is the content fingerprint (%s: the column list).
	RowHash string
	// IsFinite is 1 when an expression (%s) is a finite number.
	IsFinite string
	// Numeric reports whether a column type (as the engine names it) holds
	// numbers evalbook can read as values.
	Numeric func(typ string) bool
	// Text reports whether a column type holds text (dataset, method,
	// metric and unit columns).
	Text func(typ string) bool
	// Integer reports whether a column type holds integers (a unit
	// column may).
	Integer func(typ string) bool
	// InnerJoin is an inner join keeping every match (standard SQL: INNER
	// JOIN); only the interaction logs' per-user query joins.
	InnerJoin string
	// Trim removes the white space around a text column (%s) as the
	// file readers do (Go's strings.TrimSpace: Unicode White_Space), so
	// that " u1" and "u1" are one unit, and " EASE" the method EASE.
	Trim string
	// TempTable stores a query's rows (%[2]s) in a temporary table named
	// %[1]s that lives as long as the connection (standard SQL: CREATE
	// LOCAL TEMPORARY TABLE %[1]s AS %[2]s); DropTemp drops one (%s).
	// Empty: the engine has none, and the interaction logs' k-core runs
	// as nested queries.
	TempTable, DropTemp string

	// The fast paired query (PairedFastSQL; a dialect without these sends
	// the portable PairedSQL alone).

	// PairKey is a unit's 64-bit group key: the dataset's index (%[2]s,
	// 1–255) in the top byte, 56 bits of a hash of the unit id (%[1]s)
	// below.
	PairKey string
	// KeyIndex is the dataset index of a PairKey (%s).
	KeyIndex string
	// CheckHash is a signed 64-bit hash of a unit id (%s) independent of
	// PairKey's, whose per-side sums find two units sharing a key.
	CheckHash string
	// Lookup maps a text expression to the value at its key's position,
	// def when it is none of the keys (keys and values are SQL literals).
	Lookup func(expr string, keys, values []string, def string) string
	// Pick is the index-th (from 1) of the values (SQL expressions), 0
	// for any other index.
	Pick func(index string, values []string) string
	// MayPad is true for a text (%s) that may start or end with white
	// space as Trim removes it: a cheap test on its first and last byte
	// that is never false when Trim would change the text.
	MayPad string
}

// trimClass is Unicode White_Space as an RE2 class in an SQL literal
// (backslashes doubled): Go's unicode.IsSpace
// is \t \n \v \f \r, U+0085 and the separators \p{Z} (Zs, Zl, Zp).
const trimClass = `[\\t\\n\\x0B\\f\\r\\x{85}\\p{Z}]`

// padFirst and padLast are the bytes a Unicode White_Space character
// (UTF-8) starts and ends with, as SQL literals: \t \n \v \f \r and
// space; U+0085 and U+00A0 start with C2, U+1680 and U+180E (white space
// in older Unicode tables) with E1, U+2000–U+200A, U+2028, U+2029, U+202F
// and U+205F with E2, U+3000 with E3; they end with 85, A0, 80–8A, 8E,
// A8, A9, AF or 9F.
const (
	padFirst = `'\x09', '\x0A', '\x0B', '\x0C', '\x0D', '\x20', '\xC2', '\xE1', '\xE2', '\xE3'`
	padLast  = `'\x09', '\x0A', '\x0B', '\x0C', '\x0D', '\x20', '\x80', '\x81', '\x82', '\x83', '\x84', '\x85', '\x86', '\x87', '\x88', '\x89', '\x8A', '\x8E', '\x9F', '\xA0', '\xA8', '\xA9', '\xAF'`
)

// ClickHouse is the dialect of ClickHouse (checked on 18.16).
var ClickHouse = Dialect{
	Name:      "clickhouse",
	ToFloat:   "toFloat64(%s)",
	RowHash:   "cityHash64(%s)",
	IsFinite:  "isFinite(%s)",
	InnerJoin: "ALL INNER JOIN",
	TempTable: "CREATE TEMPORARY TABLE %s ENGINE = Memory AS %s",
	DropTemp:  "DROP TEMPORARY TABLE %s",
	Trim:      "replaceRegexpAll(%s, '^" + trimClass + "+|" + trimClass + "+$', '')",
	PairKey:   "bitOr(bitAnd(cityHash64(%[1]s), 72057594037927935), %[2]s * 72057594037927936)",
	KeyIndex:  "intDiv(%s, 72057594037927936)",
	CheckHash: "toInt64(sipHash64(%s))",
	Lookup: func(expr string, keys, values []string, def string) string {
		return "transform(" + expr + ", [" + strings.Join(keys, ", ") + "], [" + strings.Join(values, ", ") + "], " + def + ")"
	},
	Pick: func(index string, values []string) string {
		return "[" + strings.Join(values, ", ") + "][" + index + "]"
	},
	MayPad: "(substring(%[1]s, 1, 1) IN (" + padFirst + ") OR substring(%[1]s, -1, 1) IN (" + padLast + "))",
	Numeric: func(typ string) bool {
		t := unwrapType(typ)
		for _, p := range []string{"Float32", "Float64", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64", "Decimal"} {
			if t == p || strings.HasPrefix(t, p+"(") {
				return true
			}
		}
		return false
	},
	Integer: func(typ string) bool {
		t := unwrapType(typ)
		return strings.HasPrefix(t, "Int") || strings.HasPrefix(t, "UInt")
	},
	Text: func(typ string) bool {
		t := unwrapType(typ)
		return t == "String" || strings.HasPrefix(t, "FixedString(")
	},
}

// unwrapType strips Nullable(…) and LowCardinality(…).
func unwrapType(t string) string {
	for _, w := range []string{"Nullable(", "LowCardinality("} {
		if strings.HasPrefix(t, w) && strings.HasSuffix(t, ")") {
			return unwrapType(t[len(w) : len(t)-1])
		}
	}
	return t
}

// Ident quotes an identifier (double quotes: standard SQL, and accepted by
// ClickHouse).
func (d Dialect) Ident(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// TableName quotes a possibly qualified table name ("db.table").
func (d Dialect) TableName(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = d.Ident(p)
	}
	return strings.Join(parts, ".")
}

// String quotes a string literal.
func (d Dialect) String(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
}

// Dyadic returns x rounded to 20 significant bits as an exact SQL
// expression (an integer, or an integer divided by a power of two) and its
// value: the engine and Go read the same float64 from it, whatever their
// decimal parsers do.
func (d Dialect) Dyadic(x float64) (string, float64) {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return "0", 0
	}
	_, exp := math.Frexp(x)
	shift := 20 - exp // x·2^shift has 20 bits before the point
	m := math.Round(math.Ldexp(x, shift))
	if shift <= 0 {
		v := math.Ldexp(m, -shift)
		return strconv.FormatFloat(v, 'f', -1, 64), v
	}
	if shift > 62 { // |x| < 2^-42: no shift (it only guards against cancellation)
		return "0", 0
	}
	return fmt.Sprintf("(%d / %d)", int64(m), int64(1)<<shift), math.Ldexp(m, -shift)
}
