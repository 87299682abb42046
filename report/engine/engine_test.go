package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

func TestParseURL(t *testing.T) {
	tg, err := ParseURL("clickhouse", "clickhouse://bob:pw@db.example/bench")
	if err != nil {
		t.Fatal(err)
	}
	if tg.Addr != "db.example:9000" || tg.Database != "bench" || tg.User != "bob" || tg.Password != "pw" || tg.String() != "clickhouse://bob@db.example:9000/bench" {
		t.Errorf("%+v %s", tg, tg)
	}
	if tg, _ := ParseURL("clickhouse", "clickhouse://127.0.0.1:19000"); tg.Database != "default" || tg.Addr != "127.0.0.1:19000" {
		t.Errorf("defaults: %+v", tg)
	}
	for _, bad := range []string{"postgres://db/x", "clickhouse:///x", "clickhouse://db/a/b", "clickhouse://db/x?secure=1"} {
		if _, err := ParseURL("clickhouse", bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	if r := Redact("clickhouse://bob:pw@db/x"); strings.Contains(r, "pw") {
		t.Errorf("Redact: %s", r)
	}
	if !HasPassword("clickhouse://bob:pw@db/x") || HasPassword("clickhouse://bob@db/x") {
		t.Error("HasPassword")
	}
}

// TestDyadic checks that a shift is exact: its SQL text is an integer or
// an integer over a power of two, and the value is the float64 that text
// denotes; it sits within 2^-19 (relative) of the number.
func TestDyadic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000; i++ {
		x := (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(30)-15))
		sql, v := ClickHouse.Dyadic(x)
		if x != 0 && math.Abs(v-x) > math.Abs(x)*math.Ldexp(1, -19) && v != 0 {
			t.Fatalf("Dyadic(%v) = %v", x, v)
		}
		var num, den int64
		if n, _ := fmt.Sscanf(sql, "(%d / %d)", &num, &den); n == 2 {
			if float64(num)/float64(den) != v || den&(den-1) != 0 || math.Abs(float64(num)) > 1<<21 {
				t.Fatalf("Dyadic(%v): %s is not %v", x, sql, v)
			}
		} else if sql != "0" && strings.ContainsAny(sql, ".eE") {
			t.Fatalf("Dyadic(%v): %s is not an integer", x, sql)
		}
	}
}

// TestSQLPortable checks that the generated queries keep to portable SQL
// (no window functions, no joins, no engine-specific aggregates) and
// quote every name given by the user.
func TestSQLPortable(t *testing.T) {
	s := Source{Dialect: ClickHouse, Table: "bench.per_user", Columns: Columns{Dataset: "ds", Method: "m", Unit: "user", Metric: "metric", Value: "v"}}
	sh := map[string]Shift{"a'b": {SQLT: "(1 / 2)", SQLC: "0", SQLD: "(1 / 2)"}}
	for _, q := range []string{s.CatalogueSQL(), s.PairedSQL("nd'cg", "A", "B", false, sh, []string{"a'b"}), s.GroupsSQL("x", "A", "B", true, sh, []string{"a'b"})} {
		up := strings.ToUpper(q)
		for _, bad := range []string{" OVER", " JOIN ", "SUMIF", "COUNTIF", "ANY("} {
			if strings.Contains(up, bad) {
				t.Errorf("%s in %s", bad, q)
			}
		}
		if !strings.Contains(q, `FROM "bench"."per_user"`) {
			t.Errorf("table not quoted: %s", q)
		}
	}
	q := s.PairedSQL("nd'cg", "A", "B", false, sh, []string{"a'b"})
	trim := func(col string) string { return fmt.Sprintf(ClickHouse.Trim, col) }
	for _, want := range []string{trim(`"metric"`) + ` = 'nd\'cg'`, `WHEN 'a\'b' THEN (1 / 2)`, `GROUP BY ` + trim(`"ds"`) + `, "user"`, "mt = 0 AND mc = 0"} {
		if !strings.Contains(q, want) {
			t.Errorf("paired SQL lacks %s:\n%s", want, q)
		}
	}
	s.Missing = "drop"
	if !strings.Contains(s.CatalogueSQL(), `WHERE "v" IS NOT NULL`) {
		t.Error("missing = drop: no WHERE")
	}
}

// TestLogSQLPortable checks the interaction-log queries: no window
// functions or engine aggregates, the only join the dialect's, names
// quoted, and a k-core round's query about twice the previous one's.
func TestLogSQLPortable(t *testing.T) {
	s := LogSource{Dialect: ClickHouse, Table: "bench.logs", Dataset: "ml'1m", Threshold: 3.5, HasThreshold: true,
		Columns: LogColumns{Dataset: "ds", User: "user", Item: "item", Rating: "r"}}
	f := s.UserFilter(s.ItemFilter(Filter{}, 5), 5)
	tail := Tail{Count: 4, After: "i'9", HasAfter: true}
	qs := []string{s.SummarySQL(), s.FingerprintSQL(), s.CountSQL(f), s.HistogramSQL(f, "u"), s.TailBoundarySQL(f, 4, 2),
		s.UserSumsSQL(f, tail, 10), s.UserMomentsSQL(f, tail, 10, "(1 / 2)", "0")}
	for _, q := range qs {
		up := strings.ToUpper(strings.ReplaceAll(q, ClickHouse.InnerJoin, ""))
		for _, bad := range []string{" OVER", " JOIN ", "SUMIF", "COUNTIF", "ANY("} {
			if strings.Contains(up, bad) {
				t.Errorf("%s in %s", bad, q)
			}
		}
		if !strings.Contains(q, `FROM "bench"."logs" WHERE `+fmt.Sprintf(ClickHouse.Trim, `"ds"`)+` = 'ml\'1m'`) {
			t.Errorf("table or dataset not quoted: %s", q)
		}
	}
	if q := s.UserSumsSQL(f, tail, 10); !strings.Contains(q, `(ni < 4 OR (ni = 4 AND i > 'i\'9'))`) || !strings.Contains(q, "toFloat64(\"r\") AS eb_r") || !strings.Contains(q, "eb_r >= 3.5") {
		t.Errorf("tail or threshold: %s", q)
	}
	r1 := s.CoreRound(f, 3)
	r2 := s.CoreRound(r1, 3)
	// The ids are trimmed once per copy of the pairs, in their subquery:
	// a round adds about one copy of it to twice the previous query.
	pairs := len(s.CountSQL(Filter{}))
	for _, id := range []string{"user", "item"} {
		if q := s.CountSQL(f); !strings.Contains(q, fmt.Sprintf(ClickHouse.Trim, `"`+id+`"`)) {
			t.Errorf("the %s ids are not trimmed: %.300s", id, q)
		}
	}
	if a, b := len(s.CountSQL(r1)), len(s.CountSQL(r2)); b < 2*a-200 || b > 2*a+pairs+100 {
		t.Errorf("a k-core round: %d bytes after %d", b, a)
	}
}

// TestLogSQLMaterialized checks the statements over temporary tables:
// the pairs stored once, and a step over a stored table reads it, not
// the engine table, with one condition per id whatever the rounds
// before it.
func TestLogSQLMaterialized(t *testing.T) {
	s := LogSource{Dialect: ClickHouse, Table: "logs", Dataset: "d", Columns: LogColumns{Dataset: "ds", User: "user", Item: "item"}}
	first := s.MaterializeSQL("eb_p1", Filter{})
	if !strings.HasPrefix(first, "CREATE TEMPORARY TABLE eb_p1 ENGINE = Memory AS SELECT u, i FROM (SELECT eb_u AS u") || strings.Count(first, `FROM "logs"`) != 1 {
		t.Errorf("the pairs' table: %s", first)
	}
	f := Kept("eb_p1")
	for r := 2; r <= 12; r++ {
		name := fmt.Sprintf("eb_p%d", r)
		q := s.MaterializeSQL(name, s.CoreRound(f, 3))
		want := "CREATE TEMPORARY TABLE " + name + " ENGINE = Memory AS SELECT u, i FROM " + f.base +
			" WHERE u IN (SELECT u FROM " + f.base + " GROUP BY u HAVING COUNT(*) >= 3) AND i IN (SELECT i FROM " + f.base + " GROUP BY i HAVING COUNT(*) >= 3)"
		if q != want {
			t.Fatalf("round %d:\n%s\nwant\n%s", r, q, want)
		}
		f = Kept(name)
	}
	if q := s.HistogramSQL(f, "u"); q != "SELECT n, COUNT(*) FROM (SELECT u, COUNT(*) AS n FROM eb_p12 GROUP BY u) GROUP BY n ORDER BY n" {
		t.Errorf("histogram: %s", q)
	}
	if q := s.UserMomentsSQL(f, Tail{Count: 2}, 5, "0", "0"); strings.Contains(q, `"logs"`) || strings.Count(q, "eb_p12") != 2 {
		t.Errorf("moments: %s", q)
	}
	if q := s.DropSQL("eb_p3"); q != "DROP TEMPORARY TABLE eb_p3" {
		t.Errorf("drop: %s", q)
	}
}

// TestMayPad checks the fast paired query's condition (no unit id needs
// a trim) against the trim's character class: every character the trim
// removes (Go's unicode.IsSpace, which the file readers use, and U+180E,
// white space in older Unicode tables) starts with a byte of padFirst and
// ends with one of padLast, so MayPad is never false for a padded id.
func TestMayPad(t *testing.T) {
	set := func(lits string) map[byte]bool {
		m := map[byte]bool{}
		for _, l := range strings.Split(lits, ", ") {
			var b byte
			if _, err := fmt.Sscanf(l, `'\x%02X'`, &b); err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			m[b] = true
		}
		return m
	}
	first, last := set(padFirst), set(padLast)
	n := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !unicode.IsSpace(r) && r != 0x180E {
			continue
		}
		n++
		b := []byte(string(r))
		if !first[b[0]] || !last[b[len(b)-1]] {
			t.Errorf("U+%04X (% X): MayPad would miss it", r, b)
		}
	}
	if n < 25 {
		t.Fatalf("only %d white-space characters", n)
	}
	if !strings.Contains(ClickHouse.MayPad, padFirst) || !strings.Contains(ClickHouse.MayPad, padLast) {
		t.Errorf("MayPad does not test the sets: %s", ClickHouse.MayPad)
	}
}
