//go:build linux

package report

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// faultManifest is a small study of one meta-analysis over an engine
// table; its units entry is on line 4.
func faultManifest(entry string) string {
	return `title = "Engine faults"

[inputs]
` + entry + `

[[analyses]]
id        = "meta"
type      = "meta_analysis"
treatment = "EASE"
control   = "ALS"
metric    = "rmse"
effect    = "smd"
`
}

// slowUnitsView is a units table of a billion rows generated as they
// are read, half a second per block of them: a query over it outlasts
// any timeout of a test while the server sleeps instead of computing
// (a billion rows as fast as it can took both cores for the test's 3 s).
const slowUnitsView = "CREATE VIEW slow_units AS SELECT 'd' AS dataset, if(number % 2 = 0, 'EASE', 'ALS') AS method, toString(intDiv(number, 2)) AS unit, 'rmse' AS metric, toFloat64(number % 7) AS value FROM numbers(1000000000) WHERE sleep(0.5) = 0"

// siteDigest hashes every file of a site (names and contents).
func siteDigest(t *testing.T, dir string) string {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// testEngineFaults plants each engine fault and checks that the build
// fails with an error at the units entry's line (study.toml:4) saying
// what went wrong, and that the previous site stays as it was.
func testEngineFaults(t *testing.T, c *chCluster) {
	c.createUnitsTable(t, "fault_units", "Nullable(Float64)")
	var good []unitValue
	for i := 0; i < 6; i++ {
		u := fmt.Sprintf("u%d", i)
		good = append(good, unitValue{"d", "EASE", u, "rmse", 1 + float64(i)/10}, unitValue{"d", "ALS", u, "rmse", 1 + float64(i*i%5)/10})
	}
	c.load(t, "fault_units", good)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "study.toml")
	site := filepath.Join(dir, "site")
	build := func(entry string) error {
		text := faultManifest(entry)
		if strings.HasSuffix(entry, "\n#independent") {
			text += "design    = \"independent\"\n"
		}
		if err := os.WriteFile(manifest, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Build(context.Background(), Options{Manifest: manifest, Out: site, NoCache: true, Quiet: true})
		return err
	}
	if err := build(engineEntry(c.url(), "fault_units", "")); err != nil {
		t.Fatalf("the good engine study: %v", err)
	}
	before := siteDigest(t, site)

	// Tables that carry a fault: a text value column, and a view of a
	// billion generated rows that no query reads within a second.
	for _, s := range c.shards {
		s.exec(t, "DROP TABLE IF EXISTS units_text_local", nil)
		s.exec(t, "CREATE TABLE units_text_local (dataset String, method String, unit String, metric String, value String) ENGINE = MergeTree ORDER BY dataset", nil)
	}
	c.shards[0].exec(t, "DROP TABLE IF EXISTS units_text", nil)
	c.shards[0].exec(t, "CREATE TABLE units_text AS units_text_local ENGINE = Distributed(two_shards, default, units_text_local)", nil)
	c.shards[0].exec(t, "DROP TABLE IF EXISTS slow_units", nil)
	c.shards[0].exec(t, slowUnitsView, nil)

	// A unit given twice, and a NaN stored as a value (not NULL).
	c.createUnitsTable(t, "dup_units", "Nullable(Float64)")
	c.load(t, "dup_units", []unitValue{{"d", "EASE", "u1", "rmse", 1}, {"d", "ALS", "u1", "rmse", 2}, {"d", "ALS", "u1", "rmse", 3}, {"d", "EASE", "u2", "rmse", 1}, {"d", "ALS", "u2", "rmse", 2}})
	// u2 three times and u3 twice for EASE: the first is named, with
	// its own count.
	c.createUnitsTable(t, "dup3_units", "Nullable(Float64)")
	c.load(t, "dup3_units", []unitValue{{"d", "EASE", "u1", "rmse", 1}, {"d", "ALS", "u1", "rmse", 2}, {"d", "EASE", "u2", "rmse", 1}, {"d", "EASE", "u2", "rmse", 1.5}, {"d", "EASE", "u2", "rmse", 1.7}, {"d", "ALS", "u2", "rmse", 2}, {"d", "EASE", "u3", "rmse", 1}, {"d", "EASE", "u3", "rmse", 1}, {"d", "ALS", "u3", "rmse", 2}})
	c.createUnitsTable(t, "nan_units", "Float64")
	c.shards[1].exec(t, "INSERT INTO nan_units_local VALUES ('d', 'EASE', 'u1', 'rmse', 1), ('d', 'ALS', 'u1', 'rmse', nan)", nil)

	closed := freePorts(t, 1)[0]
	cases := []struct {
		name, entry, want string
	}{
		{"unreachable", engineEntry(fmt.Sprintf("clickhouse://127.0.0.1:%d/default", closed), "fault_units", ""), "cannot reach the engine at clickhouse://127.0.0.1:" + strconv.Itoa(closed)},
		{"unknown table", engineEntry(c.url(), "no_such_table", ""), "no such table"},
		{"missing column", engineEntry(c.url(), "fault_units", `, columns = { unit = "user_id" }`), `the table has no column "user_id" (the unit column`},
		{"wrong column type", engineEntry(c.url(), "units_text", ""), `column "value" (the value column) has type String; it must hold numbers`},
		{"timeout", engineEntry(c.url(), "slow_units", `, timeout = "1s"`), "the query ran longer than the entry's timeout (1s; raise timeout"},
		{"unit twice", engineEntry(c.url(), "dup_units", ""), `unit "u1" of method "ALS" on dataset "d" appears twice`},
		{"unit twice, independent groups", engineEntry(c.url(), "dup_units", "") + "\n#independent", `unit "u1" of method "ALS" on dataset "d" appears twice`},
		{"unit three times", engineEntry(c.url(), "dup3_units", ""), `unit "u2" of method "EASE" on dataset "d" appears 3 times`},
		{"NaN value", engineEntry(c.url(), "nan_units", ""), "dataset d, method ALS, metric rmse: 1 NaN or infinite values (store a missing value as NULL)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "timeout" && raceEnabled && testing.Short() {
				t.Skip("the race pass leaves out the 3 s timeout (no shared state on that path)")
			}
			err := build(tc.entry)
			if err == nil {
				t.Fatal("the build succeeded")
			}
			if !strings.Contains(err.Error(), "study.toml:4: inputs.units") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q: want study.toml:4: inputs.units … %s", err, tc.want)
			}
			if siteDigest(t, site) != before {
				t.Error("the previous site changed")
			}
		})
	}
	t.Run("server dies mid-query", func(t *testing.T) {
		if raceEnabled && testing.Short() {
			t.Skip("the race pass leaves out the server of its own")
		}
		testEngineServerDies(t, build, site, before)
	})
}

// testEngineServerDies starts a server of its own with a slow view,
// kills it while evalbook's query runs, and checks the error.
func testEngineServerDies(t *testing.T, build func(string) error, site, before string) {
	bin, args := clickhouseBinary(t)
	ports := freePorts(t, 3)
	s := &chServer{dir: t.TempDir(), http: ports[0], tcp: ports[1], bin: bin, args: args}
	writeServerConfig(t, s, ports[2], []*chServer{s})
	s.start(t)
	defer s.stop()
	s.exec(t, slowUnitsView, nil)
	done := make(chan error, 1)
	go func() {
		done <- build(engineEntry(fmt.Sprintf("clickhouse://127.0.0.1:%d/default", s.tcp), "slow_units", ""))
	}()
	// Poll until the query runs, then kill the server.
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := strings.TrimSpace(s.exec(t, "SELECT count() FROM system.processes WHERE query LIKE '%slow_units%' AND query NOT LIKE '%system.processes%' AND query NOT LIKE 'DESCRIBE%'", nil))
		if n != "0" {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the build ended before the query was seen running: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("evalbook's query never showed in system.processes")
		}
	}
	s.stop()
	err := <-done
	if err == nil {
		t.Fatal("the build succeeded")
	}
	if !strings.Contains(err.Error(), "study.toml:4: inputs.units") || !strings.Contains(err.Error(), "broke during the query") {
		t.Errorf("error %q: want study.toml:4: inputs.units … broke during the query", err)
	}
	if siteDigest(t, site) != before {
		t.Error("the previous site changed")
	}
}

// testEngineCache checks the cache of an engine analysis: a rebuild of
// an unchanged table takes it from the cache (disk and memory); a row
// added to the table changes the fingerprint, and the analysis runs
// again with the new value counted.
func testEngineCache(t *testing.T, c *chCluster) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "study.toml")
	c.createUnitsTable(t, "cache_units", "Nullable(Float64)")
	var values []unitValue
	for i := 0; i < 20; i++ {
		u := fmt.Sprintf("u%d", i)
		values = append(values, unitValue{"d", "EASE", u, "rmse", 1 + float64(i%5)/10}, unitValue{"d", "ALS", u, "rmse", 1 + float64(i%3)/7})
	}
	c.load(t, "cache_units", values)
	if err := os.WriteFile(manifest, []byte(faultManifest(engineEntry(c.url(), "cache_units", ""))), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{Manifest: manifest, Out: filepath.Join(dir, "site"), Quiet: true, Cache: NewCache(), CacheDir: filepath.Join(dir, "cache")}
	build := func() *Summary {
		s, err := Build(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := build(); s.Cached != 0 {
		t.Fatalf("first build: %d cached", s.Cached)
	}
	if s := build(); s.Cached != 1 {
		t.Fatalf("unchanged table: %d analyses cached, want 1", s.Cached)
	}
	o.Cache = NewCache() // the disk cache alone
	if s := build(); s.Cached != 1 {
		t.Fatalf("unchanged table, disk cache: %d analyses cached, want 1", s.Cached)
	}
	c.load(t, "cache_units", []unitValue{{"d", "EASE", "u20", "rmse", 1.5}})
	if s := build(); s.Cached != 0 {
		t.Fatalf("a row added: %d analyses cached, want 0", s.Cached)
	}
	b, err := os.ReadFile(filepath.Join(dir, "site", "data", "meta-inputs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(string(b), "\n"); len(lines) < 2 || !strings.HasPrefix(lines[1], "d,20,") || !strings.Contains(lines[1], ",1,0,0,true,") {
		t.Errorf("after the new row, meta-inputs.csv should have 20 pairs and 1 unmatched treatment unit:\n%s", b)
	}
}
