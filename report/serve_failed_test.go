package report

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeWithholdsDataAfterFailure: after a failed rebuild the pages
// show the last good build under the error banner, and its data files
// (data/, paper/, the citation files) answer 503 with the error instead
// of the previous build's numbers; a good build serves them again.
func TestServeWithholdsDataAfterFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	manifest := writeTiny(t, dir)
	srv := NewServer(Options{Manifest: manifest, Version: "test", Format: "html", Paper: true}, nil)
	if err := srv.Build(); err != nil {
		t.Fatal(err)
	}
	h := srv.Handler()
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		b, _ := io.ReadAll(rec.Result().Body)
		return rec.Code, string(b)
	}
	data := []string{"/data/lb.csv", "/data/lb.json", "/data/provenance.json", "/paper/evalbook.tex", "/CITATION.cff"}
	for _, p := range append(data, "/lb.html", "/index.html") {
		if code, _ := get(p); code != 200 {
			t.Fatalf("GET %s after a good build: %d", p, code)
		}
	}
	results := filepath.Join(dir, "data", "results.csv")
	good, _ := os.ReadFile(results)
	os.WriteFile(results, []byte("dataset,method,metric,value\nd1,A,m,NaN\n"), 0o644)
	if err := srv.Build(); err == nil {
		t.Fatal("the broken study built")
	}
	for _, p := range data {
		code, body := get(p)
		if code != http.StatusServiceUnavailable || !strings.Contains(body, `data/results.csv:2:8: not a number: "NaN"`) || !strings.Contains(body, "withheld") {
			t.Errorf("GET %s after a failed build: %d %q", p, code, body)
		}
	}
	if code, body := get("/lb.html"); code != 200 || !strings.Contains(body, "build failed (this page is the last good build; its data files answer 503") {
		t.Errorf("GET /lb.html after a failed build: %d, banner missing", code)
	}
	os.WriteFile(results, good, 0o644)
	if err := srv.Build(); err != nil {
		t.Fatal(err)
	}
	for _, p := range data {
		if code, _ := get(p); code != 200 {
			t.Errorf("GET %s after the fix: %d", p, code)
		}
	}
}
