package report

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalbook/evalbook/report/engine"
	"github.com/evalbook/evalbook/report/load/engines"
)

// logFaultManifest is a small study of one characteristics analysis over
// the interaction log of dataset d; its interactions entry is on line 8.
func logFaultManifest(entry string) string {
	return `title = "Engine log faults"

[inputs]
results = "results.csv"

[[datasets]]
name         = "d"
interactions = ` + entry + `

[[analyses]]
id       = "chars"
type     = "characteristics"
core     = 2
`
}

// logEntry is an engine interactions entry.
func logEntry(url, table, extra string) string {
	return `{ engine = "clickhouse", url = "` + url + `", table = "` + table + `"` + extra + ` }`
}

// createLogTable creates a log table on both shards and its Distributed
// table, with the given column definitions.
func (c *chCluster) createLogTable(t *testing.T, name, cols string) {
	for _, s := range c.shards {
		s.exec(t, "DROP TABLE IF EXISTS "+name+"_local", nil)
		s.exec(t, "CREATE TABLE "+name+"_local ("+cols+") ENGINE = MergeTree ORDER BY tuple()", nil)
	}
	c.shards[0].exec(t, "DROP TABLE IF EXISTS "+name, nil)
	c.shards[0].exec(t, "CREATE TABLE "+name+" AS "+name+"_local ENGINE = Distributed(two_shards, default, "+name+"_local)", nil)
}

// testEngineLogs plants the faults of an engine interaction log (each an
// error at the entry's line, study.toml:8, the previous site intact),
// and checks that the cache keys on the log's fingerprint.
func testEngineLogs(t *testing.T, c *chCluster) {
	cols := "dataset String, user String, item String, rating Nullable(Float64)"
	c.createLogTable(t, "fault_logs", cols)
	var rows []string
	for u := 0; u < 8; u++ {
		for i := 0; i < 6; i++ {
			if (u*7+i*3)%4 != 0 {
				rows = append(rows, fmt.Sprintf("('d', 'u%d', 'i%d', %d)", u, i, 1+(u+i)%5))
			}
		}
	}
	rows = append(rows, "('d', 'u9', 'i9', 1)", "('other', 'u1', 'i1', 1)") // u9, i9 leave in the 2-core
	half := len(rows) / 2
	c.shards[0].exec(t, "INSERT INTO fault_logs_local VALUES "+strings.Join(rows[:half], ", "), nil)
	c.shards[1].exec(t, "INSERT INTO fault_logs_local VALUES "+strings.Join(rows[half:], ", "), nil)
	// A path u0 – i0 – u1 – i1 – … : the 2-core peels one pair off each
	// end per round, more rounds than the engine runs.
	c.createLogTable(t, "chain_logs", cols)
	var chain []string
	for j := 0; j < 30; j++ {
		chain = append(chain, fmt.Sprintf("('d', 'u%d', 'i%d', 1)", j, j), fmt.Sprintf("('d', 'u%d', 'i%d', 1)", j+1, j))
	}
	// On the query node's local table: the case reads it there, without
	// the Distributed table's round trips per subquery (the nested rounds
	// hold hundreds).
	c.shards[0].exec(t, "INSERT INTO chain_logs_local VALUES "+strings.Join(chain, ", "), nil)
	c.createLogTable(t, "nan_logs", "dataset String, user String, item String, rating Float64")
	c.shards[0].exec(t, "INSERT INTO nan_logs_local VALUES ('d', 'u1', 'i1', 1), ('d', 'u1', 'i2', nan)", nil)
	c.createLogTable(t, "int_logs", "dataset String, user UInt64, item String")
	c.shards[0].exec(t, "INSERT INTO int_logs_local VALUES ('d', 1, 'i1')", nil)

	dir := t.TempDir()
	manifest := filepath.Join(dir, "study.toml")
	site := filepath.Join(dir, "site")
	if err := os.WriteFile(filepath.Join(dir, "results.csv"), []byte("dataset,method,metric,value\nd,A,ndcg@10,0.3\nd,B,ndcg@10,0.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(src string) {
		if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := Options{Manifest: manifest, Out: site, Quiet: true, Cache: NewCache(), CacheDir: filepath.Join(dir, "cache")}
	build := func() (*Summary, error) { return Build(context.Background(), o) }
	write(logFaultManifest(logEntry(c.url(), "fault_logs", "")))
	s, err := build()
	if err != nil {
		t.Fatalf("the good engine study: %v", err)
	}
	if s.Cached != 0 {
		t.Fatalf("first build: %d cached", s.Cached)
	}
	features := func() string {
		b, err := os.ReadFile(filepath.Join(site, "data", "chars-features.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// 36 pairs of u0…u7 × i0…i5 minus those with (7u+3i) % 4 = 0; u9/i9
	// have one pair each and leave in the first round.
	first := features()
	if !strings.Contains(first, "\nd,8,6,36,") {
		t.Fatalf("features after the 2-core: want Nu 8, Ni 6, Nr 36:\n%s", first)
	}
	if s, err := build(); err != nil || s.Cached != 1 {
		t.Fatalf("unchanged log: %d cached (%v), want 1", s.Cached, err)
	}
	c.shards[1].exec(t, "INSERT INTO fault_logs_local VALUES ('d', 'u8', 'i0', 1), ('d', 'u8', 'i5', 2)", nil)
	if s, err := build(); err != nil || s.Cached != 0 {
		t.Fatalf("rows added: %d cached (%v), want 0", s.Cached, err)
	}
	if f := features(); !strings.Contains(f, "\nd,9,6,38,") {
		t.Fatalf("after u8's two rows: want Nu 9, Nr 38:\n%s", f)
	}
	t.Run("every preprocessing step equals the file", func(t *testing.T) {
		testEngineLogSteps(t, c, dir)
	})
	t.Run("a k-core of many rounds equals the file", func(t *testing.T) {
		testEngineLogManyRounds(t, c, dir)
	})
	t.Run("padded ids equal the file", func(t *testing.T) {
		testEngineLogPadded(t, c, dir)
	})
	t.Run("a session keeps its temporary tables", func(t *testing.T) {
		testEngineSession(t, c)
	})
	t.Run("the last k-core round's queries run", func(t *testing.T) {
		testEngineLogLongQuery(t, c)
	})
	before := siteDigest(t, site)
	o.NoCache, o.Cache, o.CacheDir = true, nil, ""
	cases := []struct {
		name, entry, want string
	}{
		{"unknown table", logEntry(c.url(), "no_such_logs", ""), "no such table"},
		{"missing column", logEntry(c.url(), "fault_logs", `, columns = { item = "movie" }`), `the table has no column "movie" (the item column`},
		{"wrong column type", logEntry(c.url(), "int_logs", ""), `column "user" (the user column) has type UInt64; it must hold text`},
		{"k-core beyond the nested queries' round bound", logEntry(c.readerURL(), "chain_logs_local", ""), "the 2-core still removed interactions after 8 rounds in the engine (the account may not create temporary tables"},
		{"NaN rating", logEntry(c.url(), "nan_logs", ""), "1 ratings are NaN or infinite"},
		{"no rows of the dataset", logEntry(c.url(), "fault_logs", `, columns = { dataset = "item" }`), "the table has no rows of this dataset"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.name, "k-core") && raceEnabled && testing.Short() {
				t.Skip("the race pass leaves out the 8 slow rounds (no shared state on that path)")
			}
			write(logFaultManifest(tc.entry))
			_, err := build()
			if err == nil {
				t.Fatal("the build succeeded")
			}
			if !strings.Contains(err.Error(), `study.toml:8: dataset "d": interactions (clickhouse://`) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q: want study.toml:8: dataset \"d\": interactions … %s", err, tc.want)
			}
			if siteDigest(t, site) != before {
				t.Error("the previous site changed")
			}
		})
	}
}

// testEngineLogSteps builds the features of the fault log with a rating
// threshold, the item and user filters and the 3-core, from the same rows
// in a file, from the engine (over temporary tables), and from the engine
// as an account with readonly = 1 (nested queries), and compares the
// tables; and checks in each engine build's provenance which way it ran.
func testEngineLogSteps(t *testing.T, c *chCluster, dir string) {
	csv := c.shards[0].exec(t, "SELECT user, item, rating FROM fault_logs WHERE dataset = 'd' FORMAT CSV", nil)
	if err := os.WriteFile(filepath.Join(dir, "log.csv"), []byte("user,item,rating\n"+csv), 0o644); err != nil {
		t.Fatal(err)
	}
	// Chosen so that every step removes pairs and the 3-core takes two
	// rounds: 39 rows, 11 below the threshold, 8 by the item filter, 2 by
	// the user filter, 9 by the core, 9 left.
	steps := "rating_threshold = 2\nmin_item = 5\nmin_user = 2\ncore     = 3\n"
	tables := map[string]string{}
	for _, entry := range []string{`"log.csv"`, logEntry(c.url(), "fault_logs", ""), logEntry(c.readerURL(), "fault_logs", "")} {
		src := strings.Replace(logFaultManifest(entry), "core     = 2\n", steps, 1)
		out := buildLogTables(t, dir, "steps", entry, src, tables)
		switch {
		case strings.Contains(entry, c.url()):
			// Item filter, user filter, two rounds and the round that
			// removes nothing: five steps after the pairs' table.
			checkLogRanMaterialized(t, out, "fault_logs", 6)
		case strings.Contains(entry, c.readerURL()):
			checkLogRanNested(t, out)
		}
	}
	if !strings.Contains(tables["chars-preprocessing.csv"], "\nd,39,0,11,8,2,9,2,9") {
		t.Errorf("the steps should each remove something:\n%s", tables["chars-preprocessing.csv"])
	}
	t.Logf("preprocessing:\n%s", tables["chars-preprocessing.csv"])
}

// engineLog reads the one engine log record of a site's provenance.json.
func engineLog(t *testing.T, site string) engines.EngineProvenance {
	t.Helper()
	return engineLogs(t, site, 1)[0]
}

// checkLogRanMaterialized checks that a build's one engine log was
// preprocessed over temporary tables: tables CREATE TEMPORARY TABLE
// statements in its provenance, the first the only statement after the
// summary that reads the table, and no statement holding more than one
// round's condition (two HAVING: one per id).
func checkLogRanMaterialized(t *testing.T, site, table string, tables int) {
	t.Helper()
	l := engineLog(t, site)
	if l.Note != "" {
		t.Errorf("provenance note %q: the log ran as nested queries", l.Note)
	}
	created := 0
	for _, q := range l.Queries {
		reads := strings.Count(q.SQL, `FROM "`+table+`"`)
		if strings.HasPrefix(q.SQL, "CREATE TEMPORARY TABLE ") {
			created++
		} else if created > 0 && reads > 0 {
			t.Errorf("a statement after the pairs' table reads the table again: %.200s", q.SQL)
		}
		if reads > 1 || strings.Count(q.SQL, "HAVING") > 2 {
			t.Errorf("a statement with %d copies of the pairs and %d HAVING (%d bytes): %.200s", reads, strings.Count(q.SQL, "HAVING"), len(q.SQL), q.SQL)
		}
	}
	if created != tables {
		t.Errorf("%d CREATE TEMPORARY TABLE in the provenance, want %d", created, tables)
	}
}

// checkLogRanNested checks that a build's one engine log was preprocessed
// as nested queries, the provenance saying why, with no CREATE recorded.
func checkLogRanNested(t *testing.T, site string) {
	t.Helper()
	l := engineLog(t, site)
	if !strings.Contains(l.Note, "the engine refused a temporary table (") || !strings.Contains(l.Note, "ran as nested queries") {
		t.Errorf("provenance note %q: want the refused temporary table", l.Note)
	}
	for _, q := range l.Queries {
		if strings.HasPrefix(q.SQL, "CREATE") {
			t.Errorf("a CREATE in the provenance of the nested run: %.200s", q.SQL)
		}
	}
}

// testEngineLogManyRounds: a 2-core that takes more rounds than nested
// queries may run (engine.MaxCoreRounds) runs over temporary tables and
// gives the file's features and counts. The log is a square of two users
// and two items (its 2-core) with a path of pairs hanging off it, which
// the 2-core peels one pair per round.
func testEngineLogManyRounds(t *testing.T, c *chCluster, dir string) {
	rows := []string{"u0,i0,1", "u0,i1,1", "u1,i0,1", "u1,i1,1"}
	for j := 1; j <= 9; j++ { // u1 – i2 – u2 – i3 – … – u9 – i10
		rows = append(rows, fmt.Sprintf("u%d,i%d,1", j, j+1), fmt.Sprintf("u%d,i%d,1", j+1, j+1))
	}
	c.createLogTable(t, "tail_logs", "dataset String, user String, item String, rating Nullable(Float64)")
	var values []string
	for _, r := range rows {
		f := strings.Split(r, ",")
		values = append(values, fmt.Sprintf("('d', '%s', '%s', %s)", f[0], f[1], f[2]))
	}
	c.shards[0].exec(t, "INSERT INTO tail_logs_local VALUES "+strings.Join(values[:7], ", "), nil)
	c.shards[1].exec(t, "INSERT INTO tail_logs_local VALUES "+strings.Join(values[7:], ", "), nil)
	if err := os.WriteFile(filepath.Join(dir, "tail.csv"), []byte("user,item,rating\n"+strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tables := map[string]string{}
	for _, entry := range []string{`"tail.csv"`, logEntry(c.url(), "tail_logs", "")} {
		out := buildLogTables(t, dir, "tail", entry, logFaultManifest(entry), tables)
		if entry != `"tail.csv"` {
			// The pairs' table, one per round, and the round that
			// removes nothing.
			checkLogRanMaterialized(t, out, "tail_logs", 1+18+1)
		}
	}
	// 22 pairs, the 18 of the path removed in 18 rounds, the square's 4 left.
	if !strings.Contains(tables["chars-preprocessing.csv"], "\nd,22,0,0,0,0,18,18,4") {
		t.Errorf("the 2-core should peel the path in 18 rounds:\n%s", tables["chars-preprocessing.csv"])
	}
}

// testEngineLogPadded: user and item ids (and the dataset name) with
// white space around them in the engine table are read as the file
// readers read them, trimmed: the features and preprocessing counts of
// the padded table equal those of the same log, unpadded, in a file
// (log.csv, written by testEngineLogSteps; its trimming the strict-input
// tests pin).
func testEngineLogPadded(t *testing.T, c *chCluster, dir string) {
	csv := c.shards[0].exec(t, "SELECT user, item, rating FROM fault_logs WHERE dataset = 'd' FORMAT TSV", nil)
	c.createLogTable(t, "padded_logs", "dataset String, user String, item String, rating Nullable(Float64)")
	pads := []string{" ", "\\t", "\u00a0", "\u3000", ""}
	var rows []string
	for k, line := range strings.Split(strings.TrimSpace(csv), "\n") {
		f := strings.Split(line, "\t")
		p, q := pads[k%len(pads)], pads[(k+2)%len(pads)]
		rows = append(rows, fmt.Sprintf("('%sd%s', '%s%s%s', '%s%s', %s)", q, p, p, f[0], q, f[1], p, f[2]))
	}
	c.shards[1].exec(t, "INSERT INTO padded_logs_local VALUES "+strings.Join(rows, ", "), nil)
	steps := "rating_threshold = 2\nmin_item = 5\nmin_user = 2\ncore     = 3\n"
	tables := map[string]string{}
	for _, entry := range []string{`"log.csv"`, logEntry(c.url(), "padded_logs", "")} {
		src := strings.Replace(logFaultManifest(entry), "core     = 2\n", steps, 1)
		buildLogTables(t, dir, "padded", entry, src, tables)
	}
}

// testEngineSession runs a k-core's pattern of statements on sessions
// side by side, as a build's runs do, many times over: query a temporary
// table, create the next one from it, drop it. Every statement must find
// the tables of the statements before it on the same connection. Over
// clickhouse-go's pool of one connection a second one is dialled now and
// then between a query and the next statement (the pool frees the
// connection's slot before it returns the connection): planted, this test
// failed in one run out of two at 100 rounds.
func testEngineSession(t *testing.T, c *chCluster) {
	target, err := engine.ParseURL("clickhouse", c.url())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	errs := make(chan error, 4)
	for g := 0; g < cap(errs); g++ {
		go func() { errs <- sessionRounds(ctx, target, 150) }()
	}
	for g := 0; g < cap(errs); g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// sessionRounds runs rounds of (query, create, drop) on one session.
func sessionRounds(ctx context.Context, target engine.Target, rounds int) error {
	conn, err := engine.OpenSession(ctx, target, time.Minute)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.Exec(ctx, "CREATE TEMPORARY TABLE s0 ENGINE = Memory AS SELECT user AS u, item AS i FROM fault_logs"); err != nil {
		return err
	}
	for k := 1; k <= rounds; k++ {
		prev, next := fmt.Sprintf("s%d", k-1), fmt.Sprintf("s%d", k)
		// The Distributed table's query: its last packets come after the
		// rows, where the pool's race was seen.
		rows, err := conn.Query(ctx, "SELECT COUNT(*) FROM fault_logs WHERE user IN (SELECT u FROM "+prev+")")
		if err != nil {
			return fmt.Errorf("round %d, query: %v (%d connections dialled)", k, err, conn.Dials())
		}
		if n := rows[0][0].(uint64); n < 36 {
			return fmt.Errorf("round %d: %d pairs", k, n)
		}
		if err := conn.Exec(ctx, "CREATE TEMPORARY TABLE "+next+" ENGINE = Memory AS SELECT u, i FROM "+prev+" WHERE u IN (SELECT u FROM "+prev+" GROUP BY u HAVING COUNT(*) >= 1)"); err != nil {
			return fmt.Errorf("round %d, create: %v (%d connections dialled)", k, err, conn.Dials())
		}
		if err := conn.Exec(ctx, "DROP TEMPORARY TABLE "+prev); err != nil {
			return fmt.Errorf("round %d, drop: %v (%d connections dialled)", k, err, conn.Dials())
		}
	}
	if n := conn.Dials(); n != 1 {
		return fmt.Errorf("%d connections dialled, want 1", n)
	}
	return nil
}

// testEngineLogLongQuery runs the longest queries evalbook sends, those
// after the last k-core round of nested queries (engine.MaxCoreRounds:
// an account that may not create temporary tables), past the server's
// default max_query_size of 256 KiB.
func testEngineLogLongQuery(t *testing.T, c *chCluster) {
	target, err := engine.ParseURL("clickhouse", c.url())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// What is tested is the size of the query, not its speed: ClickHouse
	// 18.16 plans the eight nested rounds slowly, past 30 s when the
	// machine is busy (seen in two runs of the whole suite). The query
	// reads the query node's local table: over the Distributed one each
	// of its hundreds of subqueries is a round trip to both shards (17 s
	// instead of 4 s here); the limits it passes are the parser's.
	conn, err := engine.Open(ctx, target, 3*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s := engine.LogSource{Dialect: engine.ClickHouse, Table: "fault_logs_local", Dataset: "d",
		Columns: engine.LogColumns{Dataset: "dataset", User: "user", Item: "item", Rating: "rating"}}
	f := engine.Filter{}
	for r := 0; r < engine.MaxCoreRounds; r++ {
		f = s.CoreRound(f, 2)
	}
	q := s.UserMomentsSQL(f, engine.Tail{Count: 2}, 8, "0", "0")
	if len(q) <= 256<<10 {
		t.Fatalf("the query is %d bytes: not past the default limit", len(q))
	}
	if _, err := conn.Query(ctx, q); err != nil {
		t.Fatalf("a %d-byte query: %v", len(q), err)
	}
}

// buildLogTables builds the manifest src (written to dir/name.toml) into
// dir/name-site without the cache and returns the site. The
// characteristics' feature and preprocessing tables go into tables, by
// file: one that differs from the table an earlier entry built there (the
// file's) is an error naming entry.
func buildLogTables(t *testing.T, dir, name, entry, src string, tables map[string]string) string {
	t.Helper()
	m := filepath.Join(dir, name+".toml")
	out := filepath.Join(dir, name+"-site")
	if err := os.WriteFile(m, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), Options{Manifest: m, Out: out, NoCache: true, Quiet: true}); err != nil {
		t.Fatalf("%s: %v", entry, err)
	}
	for _, f := range []string{"chars-features.csv", "chars-preprocessing.csv"} {
		b, err := os.ReadFile(filepath.Join(out, "data", f))
		if err != nil {
			t.Fatal(err)
		}
		if prev, ok := tables[f]; ok && prev != string(b) {
			t.Errorf("%s: %s gives\n%s\nnot the file's\n%s", f, entry, b, prev)
		}
		tables[f] = string(b)
	}
	return out
}
