//go:build linux

package report

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/engine"
)

// testEnginePaths: a paired meta-analysis takes the fast query when the
// catalogue finds no name or unit id to trim, and the exact one
// otherwise or when the fast one finds two unit ids sharing a group key;
// every way gives the files' numbers (the oracle: the same values read
// from per-method files). Two datasets of 30 units, a unit of each side
// unmatched in d1 (a, b), a missing value in d2 (a dropped pair). The
// collisions are planted by swapping ClickHouse's unit key for one under
// which a and b (or every unit) share a key; the dialect is copied into
// each manifest as it is read, and no other engine test runs meanwhile.
func testEnginePaths(t *testing.T, c *chCluster) {
	var values []unitValue
	files := map[string]*strings.Builder{}
	add := func(ds, method, unit string, v float64, padded string) {
		values = append(values, unitValue{ds, method, padded, "rmse", v})
		f := files[method+"_"+ds]
		if f == nil {
			f = &strings.Builder{}
			f.WriteString("unit,rmse\n")
			files[method+"_"+ds] = f
		}
		cell := fmt.Sprint(v)
		if math.IsNaN(v) {
			cell = ""
		}
		fmt.Fprintf(f, "%s,%s\n", unit, cell)
	}
	for _, ds := range []string{"d1", "d2"} {
		for i := 0; i < 30; i++ {
			u := fmt.Sprintf("u%d", i)
			x := 0.8 + float64((i*7+len(ds))%11)/37
			y := x - 0.05 + float64((i*5)%7)/53
			if ds == "d2" && i == 5 {
				y = math.NaN()
			}
			add(ds, "EASE", u, x, u)
			add(ds, "ALS", u, y, u)
		}
	}
	add("d1", "EASE", "a", 0.9, "a")
	add("d1", "ALS", "b", 0.7, "b")
	dir := t.TempDir()
	for name, f := range files {
		os.MkdirAll(filepath.Join(dir, "units"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, "units", name+".csv"), []byte(f.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.createUnitsTable(t, "paths_units", "Nullable(Float64)")
	c.load(t, "paths_units", values)
	// The same values with one unit id padded (" u3" for EASE on d2): its
	// rows pair only once trimmed, which the fast query does not do.
	for i := range values {
		if values[i].dataset == "d2" && values[i].method == "EASE" && values[i].unit == "u3" {
			values[i].unit = " u3"
		}
	}
	c.createUnitsTable(t, "paths_padded", "Nullable(Float64)")
	c.load(t, "paths_padded", values)

	manifest := filepath.Join(dir, "study.toml")
	build := func(entry, site string) string {
		t.Helper()
		if err := os.WriteFile(manifest, []byte(faultManifest(entry)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Build(context.Background(), Options{Manifest: manifest, Out: site, NoCache: true, Quiet: true}); err != nil {
			t.Fatalf("%s: %v", entry, err)
		}
		return readFile(t, site, "data/meta.csv")
	}
	// sent lists, per query the analysis sent, "fast" or "exact".
	sent := func(site string) string {
		t.Helper()
		var p Provenance
		if err := json.Unmarshal([]byte(readFile(t, site, "data/provenance.json")), &p); err != nil || p.Engine == nil {
			t.Fatalf("provenance: %v", err)
		}
		var kinds []string
		for _, q := range p.Engine.Queries {
			if q.Analysis == "meta" {
				kinds = append(kinds, map[bool]string{true: "fast", false: "exact"}[strings.Contains(q.SQL, "eb_k")])
			}
		}
		return strings.Join(kinds, ",")
	}
	want := build(`units = "units/{method}_{dataset}.csv"`, filepath.Join(dir, "files"))
	if !strings.Contains(want, "d1") || !strings.Contains(want, "d2") {
		t.Fatalf("the files' table lacks a dataset:\n%s", want)
	}
	key := engine.ClickHouse.PairKey
	defer func() { engine.ClickHouse.PairKey = key }()
	for _, tc := range []struct {
		name, table, pairKey, sent string
	}{
		{"clean", "paths_units", key, "fast"},
		{"padded unit id", "paths_padded", key, "exact"},
		// a (EASE only) and b (ALS only) share a key: a group of one
		// value per side, which only the check hash tells from a pair.
		{"two ids share a key", "paths_units", strings.Replace(key, "cityHash64(%[1]s)", "if(%[1]s IN ('a', 'b'), 0, cityHash64(%[1]s))", 1), "fast,exact"},
		{"every id shares a key", "paths_units", strings.Replace(key, "cityHash64(%[1]s)", "0", 1), "fast,exact"},
	} {
		engine.ClickHouse.PairKey = tc.pairKey
		site := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
		got := build(engineEntry(c.url(), tc.table, ""), site)
		if s := sent(site); s != tc.sent {
			t.Errorf("%s: the analysis sent %q, want %q", tc.name, s, tc.sent)
		}
		if _, err := sameTables(map[string][]byte{"meta": []byte(got)}, map[string][]byte{"meta": []byte(want)}, 1e-12); err != nil {
			t.Errorf("%s: the engine's numbers differ from the files': %v\nengine:\n%s\nfiles:\n%s", tc.name, err, got, want)
		}
	}

	// A table that changes between the catalogue and the paired query (a
	// view drawing a tenth of its 100,000 rows out at random on every
	// read; both sides' counts stay the same by chance about once in
	// 50,000) is an error at the entry's line, not numbers from two
	// states of it; the previous site stays.
	engine.ClickHouse.PairKey = key
	c.shards[0].exec(t, "DROP TABLE IF EXISTS paths_changing", nil)
	c.shards[0].exec(t, "CREATE VIEW paths_changing AS SELECT 'd' AS dataset, if(number % 2 = 0, 'EASE', 'ALS') AS method, toString(intDiv(number, 2)) AS unit, 'rmse' AS metric, toFloat64(number % 7) AS value FROM numbers(100000) WHERE rand() % 10 > 0", nil)
	site := filepath.Join(dir, "clean")
	before := siteDigest(t, site)
	if err := os.WriteFile(manifest, []byte(faultManifest(engineEntry(c.url(), "paths_changing", ""))), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Build(context.Background(), Options{Manifest: manifest, Out: site, NoCache: true, Quiet: true})
	if err == nil || !strings.Contains(err.Error(), "study.toml:4: inputs.units") || !strings.Contains(err.Error(), "the table was written to during the build; build again") {
		t.Errorf("a table changing during the build: %v", err)
	}
	if siteDigest(t, site) != before {
		t.Error("a table changing during the build: the previous site changed")
	}
}
