package report

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testEngineTrim: names and unit ids with white space around them in
// the engine table (" d ", "\tEASE", "u1\u00a0") are read as the file
// readers read them, trimmed: the meta-analysis from the engine equals
// the one from files holding the same values unpadded (the oracle: the
// file readers, whose trimming the strict-input tests pin).
func testEngineTrim(t *testing.T, c *chCluster) {
	c.createUnitsTable(t, "trim_units", "Nullable(Float64)")
	var padded []unitValue
	var treat, ctrl strings.Builder
	treat.WriteString("unit,rmse\n")
	ctrl.WriteString("unit,rmse\n")
	pads := []string{" ", "\t", "\u00a0", "\u3000", ""}
	for i := 0; i < 8; i++ {
		p := pads[i%len(pads)]
		x, y := 1+float64(i)/10, 1+float64(i*i%5)/10
		padded = append(padded,
			unitValue{p + "d" + p, p + "EASE", fmt.Sprintf("%su%d", p, i), "rmse" + p, x},
			unitValue{"d", "ALS" + p, fmt.Sprintf("u%d%s", i, p), p + "rmse", y})
		fmt.Fprintf(&treat, "u%d,%v\n", i, x)
		fmt.Fprintf(&ctrl, "u%d,%v\n", i, y)
	}
	c.load(t, "trim_units", padded)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "study.toml")
	build := func(entry, site string) {
		t.Helper()
		if err := os.WriteFile(manifest, []byte(faultManifest(entry)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Build(context.Background(), Options{Manifest: manifest, Out: site, NoCache: true, Quiet: true}); err != nil {
			t.Fatalf("%s: %v", entry, err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "units"), 0o755)
	os.WriteFile(filepath.Join(dir, "units", "EASE_d.csv"), []byte(treat.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "units", "ALS_d.csv"), []byte(ctrl.String()), 0o644)
	build(`units = "units/{method}_{dataset}.csv"`, filepath.Join(dir, "files"))
	build(engineEntry(c.url(), "trim_units", ""), filepath.Join(dir, "engine"))
	want := readFile(t, filepath.Join(dir, "files"), "data/meta.csv")
	if got := readFile(t, filepath.Join(dir, "engine"), "data/meta.csv"); got != want {
		t.Errorf("the engine's padded names read otherwise than the files:\nengine:\n%s\nfiles:\n%s", got, want)
	}
}
