package report

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The study test harness. A test writes a whole study as one txtar string:
//
//	dir, err := buildStudy(t, `
//	-- study.toml --
//	title = "t"
//	[inputs]
//	results = "results.csv"
//	[[analyses]]
//	id = "lb"
//	type = "aggregate"
//	metric = "ndcg"
//	-- results.csv --
//	dataset,method,metric,value
//	…`)
//
// buildStudy writes it into t.TempDir(), builds it (HTML and Markdown) and
// returns the site directory; mustBuild fails the test on error.
// readJSON(t, dir, "data/lb.json") decodes a data file; readFile returns a
// file's text.

func buildStudy(t testing.TB, archive string, edit ...func(*Options)) (string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := ParseArchive([]byte(archive)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Format: "both", Version: "test", Command: "evalbook build"}
	for _, e := range edit {
		e(&o)
	}
	sum, err := Build(context.Background(), o)
	if err != nil {
		return filepath.Join(dir, "site"), err
	}
	return sum.Out, nil
}

func mustBuild(t testing.TB, archive string, edit ...func(*Options)) string {
	t.Helper()
	dir, err := buildStudy(t, archive, edit...)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return dir
}

func readFile(t testing.TB, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readJSON(t testing.TB, dir, name string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(readFile(t, dir, name)), &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}
