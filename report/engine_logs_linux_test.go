package report

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"github.com/evalbook/evalbook/report/load/engines"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// demoLogRE finds the demo's interaction log entries.
var demoLogRE = regexp.MustCompile(`interactions = "data/logs/([^"]+)\.csv"`)

// engineLogsManifest replaces every interactions file of the manifest by
// the engine table's rows of that dataset.
func engineLogsManifest(t *testing.T, manifest, url, table string) string {
	n := 0
	out := demoLogRE.ReplaceAllStringFunc(manifest, func(string) string {
		n++
		return `interactions = { engine = "clickhouse", url = "` + url + `", table = "` + table + `" }`
	})
	if n == 0 {
		t.Fatal("the demo manifest has no interaction logs")
	}
	return out
}

// loadDemoLogs creates a (dataset, user, item, rating) table on the
// cluster and loads the demo's logs into it, each row on the shard its
// user and item hash to (a user's rows and an item's rows lie on both
// shards). It returns the number of rows.
func loadDemoLogs(t *testing.T, c *chCluster, dir, name string) int {
	for _, s := range c.shards {
		s.exec(t, "DROP TABLE IF EXISTS "+name+"_local", nil)
		s.exec(t, "CREATE TABLE "+name+"_local (dataset String, user String, item String, rating Nullable(Float64)) ENGINE = MergeTree ORDER BY (dataset, user, item)", nil)
	}
	c.shards[0].exec(t, "DROP TABLE IF EXISTS "+name, nil)
	c.shards[0].exec(t, "CREATE TABLE "+name+" AS "+name+"_local ENGINE = Distributed(two_shards, default, "+name+"_local)", nil)
	files, err := filepath.Glob(filepath.Join(dir, "data", "logs", "*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no demo logs in %s (%v)", dir, err)
	}
	bufs := make([]bytes.Buffer, len(c.shards))
	str := func(b *bytes.Buffer, s string) {
		var l [binary.MaxVarintLen64]byte
		b.Write(l[:binary.PutUvarint(l[:], uint64(len(s)))])
		b.WriteString(s)
	}
	rows := 0
	for _, f := range files {
		ds := strings.TrimSuffix(filepath.Base(f), ".csv")
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(src)), "\n")
		if lines[0] != "user,item,rating,timestamp" {
			t.Fatalf("%s: header %q", f, lines[0])
		}
		for _, line := range lines[1:] {
			cells := strings.Split(line, ",")
			b := &bufs[(len(cells[0])+int(cells[0][len(cells[0])-1])+int(cells[1][len(cells[1])-1]))%len(c.shards)]
			str(b, ds)
			str(b, cells[0])
			str(b, cells[1])
			if cells[2] == "" {
				b.WriteByte(1)
			} else {
				v, err := strconv.ParseFloat(cells[2], 64)
				if err != nil {
					t.Fatal(err)
				}
				b.WriteByte(0)
				var x [8]byte
				binary.LittleEndian.PutUint64(x[:], math.Float64bits(v))
				b.Write(x[:])
			}
			rows++
		}
	}
	for i, s := range c.shards {
		if bufs[i].Len() == 0 {
			t.Fatalf("shard %d gets no log rows", i+1)
		}
		s.exec(t, "INSERT INTO "+name+"_local FORMAT RowBinary", bufs[i].Bytes())
	}
	return rows
}

// engineLogs reads the engine log records of a site's provenance.json,
// which must hold want of them.
func engineLogs(t *testing.T, site string, want int) []engines.EngineProvenance {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(site, "data", "provenance.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		EngineLogs []engines.EngineProvenance `json:"engine_logs"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.EngineLogs) != want {
		t.Fatalf("provenance: %d engine logs, want %d", len(p.EngineLogs), want)
	}
	return p.EngineLogs
}

// checkEngineLogsProvenance checks that the engine build read every log
// from the engine: a record per dataset with its fingerprint and the
// k-core and histogram queries, the k-core over temporary tables.
func checkEngineLogsProvenance(t *testing.T, site string, logs int) {
	for _, l := range engineLogs(t, site, logs) {
		var hist, rounds, created int
		for _, q := range l.Queries {
			if strings.HasPrefix(q.SQL, "CREATE TEMPORARY TABLE ") {
				created++
			}
			if strings.Contains(q.SQL, "HAVING COUNT(*) >= 2") {
				rounds++
			}
			if strings.HasPrefix(q.SQL, "SELECT n, COUNT(*)") {
				hist++
			}
		}
		if !strings.HasPrefix(l.Fingerprint, "rows=") || hist != 2 || rounds == 0 || l.Dataset == "" {
			t.Errorf("provenance of %s: fingerprint %q, %d histogram and %d k-core queries", l.Dataset, l.Fingerprint, hist, rounds)
		}
		// Over temporary tables: the pairs' and one per k-core round.
		if l.Note != "" || created < 2 {
			t.Errorf("provenance of %s: %d CREATE TEMPORARY TABLE, note %q: the k-core did not run over temporary tables", l.Dataset, created, l.Note)
		}
	}
}
