//go:build linux

package report

import (
	"bytes"
	"context"
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

// demoUnitsLine is the demo manifest's units entry (files).
const demoUnitsLine = `units   = [{ path = "data/units/{method}_{dataset}.csv", columns = { unit = "user" } }]`

// engineDemo generates the demo study into dir and returns its manifest
// reduced to what the meta-analyses need (metrics but the challenge
// leaderboard's, datasets, methods,
// inputs, the meta_analysis entries that read the units files or a
// summary, and the characteristics analysis), so the two builds below
// stay cheap.
func engineDemo(t *testing.T, dir string) string {
	generatedDemo(t, dir)
	src, err := os.ReadFile(filepath.Join(dir, "study.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(demoUnitsLine)) {
		t.Fatalf("the demo manifest no longer has the units line %q", demoUnitsLine)
	}
	return filterManifest(string(src), func(header, block string) bool {
		switch header {
		case "[[pages]]":
			return false
		case "[[metrics]]": // not the challenge's: no analysis left reads them
			return !strings.Contains(block, "# challenge")
		case "[[analyses]]":
			return (strings.Contains(block, `"meta_analysis"`) && !strings.Contains(block, "ndcg@20")) || strings.Contains(block, `type     = "characteristics"`)
		}
		return true
	})
}

// filterManifest keeps the blocks of a manifest (a [header] line and the
// lines up to the next) that keep says to; a subtable [a.b] goes with its
// parent block.
func filterManifest(src string, keep func(header, block string) bool) string {
	var out strings.Builder
	var block []string
	header := ""
	parentKept := true
	flush := func() {
		text := strings.Join(block, "\n")
		sub := strings.HasPrefix(header, "[analyses.")
		k := header == "" || (sub && parentKept) || (!sub && keep(header, text))
		if !sub {
			parentKept = k
		}
		if k && len(block) > 0 {
			out.WriteString(text + "\n")
		}
		block = nil
	}
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(line, "[") {
			flush()
			header = strings.TrimSpace(line)
		}
		block = append(block, line)
	}
	flush()
	return out.String()
}

// engineEntry is the units entry of an engine table.
func engineEntry(url, table, extra string) string {
	return `units = [{ engine = "clickhouse", url = "` + url + `", table = "` + table + `"` + extra + ` }]`
}

// testEngineDemoEqualsFiles loads the demo's per-user values into the
// cluster, builds the demo's meta-analyses from the files and from the
// engine, and its characteristics from the demo's interaction logs loaded
// into the cluster, and compares every file of the two sites.
func testEngineDemoEqualsFiles(t *testing.T, c *chCluster) {
	dir := t.TempDir()
	manifest := engineDemo(t, dir)
	logRows := loadDemoLogs(t, c, dir, "logs")
	c.createUnitsTable(t, "per_user", "Nullable(Float64)")
	values := demoUnitValues(t, dir)
	c.load(t, "per_user", values)
	if got := strings.TrimSpace(c.shards[0].exec(t, "SELECT count() FROM per_user", nil)); got != strconv.Itoa(len(values)) {
		t.Fatalf("the Distributed table holds %s rows, want %d", got, len(values))
	}
	for i, s := range c.shards { // both shards hold a share
		if n, _ := strconv.Atoi(strings.TrimSpace(s.exec(t, "SELECT count() FROM per_user_local", nil))); n == 0 || n == len(values) {
			t.Fatalf("shard %d holds %d of %d rows: the values are not split", i+1, n, len(values))
		}
	}
	files := filepath.Join(dir, "study.toml")
	if err := os.WriteFile(files, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	// The engine study is a copy without the units files, its manifest
	// named the same (pages quote it) with the units line replaced.
	edir := t.TempDir()
	copyTree(t, dir, edir, filepath.Join("data", "units"))
	eng := filepath.Join(edir, "study.toml")
	if err := os.WriteFile(eng, []byte(engineLogsManifest(t, strings.Replace(manifest, demoUnitsLine, engineEntry(c.url(), "per_user", ""), 1), c.url(), "logs")), 0o644); err != nil {
		t.Fatal(err)
	}
	siteF, siteE := filepath.Join(dir, "site"), filepath.Join(edir, "site")
	for _, b := range [][2]string{{files, siteF}, {eng, siteE}} {
		if _, err := Build(context.Background(), Options{Manifest: b[0], Out: b[1], Format: "both", NoCache: true, Quiet: true}); err != nil {
			t.Fatalf("build %s: %v", filepath.Base(b[0]), err)
		}
	}
	compareSites(t, siteF, siteE)
	checkEngineProvenance(t, siteE, c)
	checkEngineLogsProvenance(t, siteE, len(demoLogRE.FindAllString(manifest, -1)))
	t.Logf("%d log rows in the engine", logRows)
}

// numberRE finds the numbers in a file's text.
var numberRE = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?`)

// compareSites checks that the two sites have the same files and that
// each is byte-identical or differs only in numbers within 1e-12
// (relative); provenance.json and .html (they name the inputs read)
// are checked apart.
func compareSites(t *testing.T, a, b string) {
	same, close := 0, 0
	worst := 0.0
	var closeFiles []string
	err := filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		if strings.HasPrefix(filepath.Base(rel), "provenance.") || strings.HasPrefix(filepath.Base(rel), ".") {
			return nil
		}
		x, _ := os.ReadFile(p)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil {
			t.Errorf("%s: in the file-based site only", rel)
			return nil
		}
		if bytes.Equal(x, y) {
			same++
			return nil
		}
		// The characteristics' popularity-bias and long-tail moments are
		// the engine's sums in its own order: a skewness or correlation
		// near zero keeps its absolute error (about 1e-15), not its
		// relative one, so below 0.01 they compare to 1e-14 absolute.
		scale := 1e-10
		if strings.Contains(rel, "characteristics") {
			scale = 1e-2
		}
		if msg := numbersClose(string(x), string(y), 1e-12, scale, &worst); msg != "" {
			t.Errorf("%s differs: %s", rel, msg)
			return nil
		}
		close++
		closeFiles = append(closeFiles, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if same == 0 {
		t.Fatal("no file compared")
	}
	t.Logf("%d files byte-identical, %d equal to 1e-12 but not byte-identical (largest difference %.2g): %v", same, close, worst, closeFiles)
}

// numbersClose compares two texts: the same text between numbers and
// numbers within tol relative to the larger (to tol·scale absolute below
// scale); "" when they match.
func numbersClose(x, y string, tol, scale float64, worst *float64) string {
	xi, yi := numberRE.FindAllStringIndex(x, -1), numberRE.FindAllStringIndex(y, -1)
	if len(xi) != len(yi) {
		return "not the same numbers of numbers"
	}
	px, py := 0, 0
	for k := range xi {
		if x[px:xi[k][0]] != y[py:yi[k][0]] {
			return "text differs near " + strconv.Quote(x[px:xi[k][0]])
		}
		a, _ := strconv.ParseFloat(x[xi[k][0]:xi[k][1]], 64)
		b, _ := strconv.ParseFloat(y[yi[k][0]:yi[k][1]], 64)
		diff := math.Abs(a-b) / math.Max(scale, math.Max(math.Abs(a), math.Abs(b)))
		*worst = math.Max(*worst, diff)
		if diff > tol {
			return x[xi[k][0]:xi[k][1]] + " vs " + y[yi[k][0]:yi[k][1]]
		}
		px, py = xi[k][1], yi[k][1]
	}
	if x[px:] != y[py:] {
		return "the ends differ"
	}
	return ""
}

// checkEngineProvenance checks provenance.json's engine record: the URL,
// table, fingerprint, and per meta-analysis the SQL and its row count.
func checkEngineProvenance(t *testing.T, site string, c *chCluster) {
	b, err := os.ReadFile(filepath.Join(site, "data", "provenance.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p Provenance
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if p.Engine == nil {
		t.Fatal("provenance.json has no engine record")
	}
	if p.Engine.URL != c.url() || p.Engine.Table != "per_user" || !strings.HasPrefix(p.Engine.Fingerprint, "rows=") {
		t.Errorf("engine record: %+v", p.Engine)
	}
	ran := map[string]engines.EngineQuery{}
	for _, q := range p.Engine.Queries {
		ran[q.Analysis] = q
	}
	for _, id := range []string{"meta-ease-vs-als-rmse", "meta-ease-vs-lightgcn-ndcg", "meta-lightgcn-vs-mostpop-domains"} {
		q, ok := ran[id]
		if !ok {
			t.Errorf("provenance: no engine query of %s", id)
			continue
		}
		if q.Rows != 32 || !strings.Contains(q.SQL, "GROUP BY") || q.Bytes <= 0 || q.Bytes > 64<<10 {
			t.Errorf("provenance of %s: rows %d, %d bytes received, SQL %.80s…", id, q.Rows, q.Bytes, q.SQL)
		}
	}
}

// copyTree copies the files of src into dst, leaving out the folder skip
// (relative to src).
func copyTree(t *testing.T, src, dst, skip string) {
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == skip {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
