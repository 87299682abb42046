package report

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

var smallStudy = studyFixture("small")

// TestBuildGolden builds a small study and compares its data files and
// Markdown with testdata/golden (go test -run Golden -update rewrites
// them).
func TestBuildGolden(t *testing.T) {
	t.Parallel()
	dir := mustBuild(t, smallStudy)
	for _, name := range []string{"data/lb.json", "data/lb.csv", "data/lb-profiles.csv", "data/lb-rmse.json", "data/lb-rmse.csv",
		"README.md", "lb.md", "notes.md", "data/provenance.json"} {
		got := readFile(t, dir, name)
		golden := filepath.Join("testdata", "golden", "small", filepath.FromSlash(name))
		if *update {
			os.MkdirAll(filepath.Dir(golden), 0o755)
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test ./report -run Golden -update)", err)
		}
		if got != string(want) {
			t.Errorf("%s differs from %s:\n%s", name, golden, firstDiff(got, string(want)))
		}
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + itoa(int64(i+1)) + ":\n got: " + x + "\nwant: " + y
		}
	}
	return ""
}

func TestBuildSite(t *testing.T) {
	t.Parallel()
	dir := mustBuild(t, smallStudy)
	for _, f := range []string{"index.html", "notes.html", "lb.html", "lb-rmse.html", "provenance.html", "figures/lb.svg", "figures/lb-rmse.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	idx := readFile(t, dir, "index.html")
	for _, want := range []string{"<h1>Small study</h1>", "A. Author", "<strong>three</strong>", `href="https://example.org/code"`,
		`href="lb.html"`, `href="notes.html"`, "Key findings", "A ranks first under"} {
		if !strings.Contains(idx, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	notes := readFile(t, dir, "notes.html")
	for _, want := range []string{"<table>", `class="footnotes"`, "<!-- raw HTML omitted -->"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes.html lacks %q", want)
		}
	}
	if strings.Contains(notes, "<b>raw</b>") {
		t.Error("raw HTML must be off unless unsafe_html = true")
	}
	lb := readFile(t, dir, "lb.html")
	for _, want := range []string{"Figure 1.", "Table 1.", `href="data/lb.csv"`, "Method", "beta_max"} {
		if !strings.Contains(lb, want) {
			t.Errorf("lb.html lacks %q", want)
		}
	}
	if !strings.Contains(readFile(t, dir, "lb-rmse.html"), "Figure 2.") {
		t.Error("figures are numbered across the site")
	}
	for _, f := range []string{"index.html", "lb.html", "notes.html", "provenance.html"} {
		html := readFile(t, dir, f)
		for _, bad := range []string{"http://", "src=\"https://", "href=\"//", "@import"} {
			if strings.Contains(html, bad) && !strings.Contains(bad, "http://") {
				t.Errorf("%s references the network: %q", f, bad)
			}
		}
		if strings.Contains(html, "<script src=\"http") || strings.Contains(html, "<link rel=\"stylesheet\" href=\"http") {
			t.Errorf("%s loads a remote asset", f)
		}
	}
	// Unsafe HTML when the manifest allows it.
	unsafe := mustBuild(t, strings.Replace(smallStudy, "abstract =", "unsafe_html = true\nabstract =", 1))
	if !strings.Contains(readFile(t, unsafe, "notes.html"), "<b>raw</b>") {
		t.Error("unsafe_html = true keeps raw HTML")
	}
}

// TestBadValueKeepsSite: a results file with "abc" fails with
// file:line:column and leaves the previous site byte for byte.
func TestBadValueKeepsSite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := ParseArchive([]byte(smallStudy)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	o := Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test"}
	if _, err := Build(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, filepath.Join(dir, "site"))
	res := filepath.Join(dir, "results.csv")
	src, _ := os.ReadFile(res)
	os.WriteFile(res, []byte(strings.Replace(string(src), "d2,B,ndcg,0.25", "d2,B,ndcg,abc", 1)), 0o644)
	_, err := Build(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), `analyses/lb, lb-rmse: results.csv:6:11: not a number: "abc"`) {
		t.Fatalf("want results.csv:6:11, got %v", err)
	}
	after := snapshot(t, filepath.Join(dir, "site"))
	if len(before) != len(after) {
		t.Fatalf("site changed: %d files before, %d after", len(before), len(after))
	}
	for name, b := range before {
		if after[name] != b {
			t.Errorf("%s changed", name)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".site") {
			t.Errorf("temporary directory %s left behind", e.Name())
		}
	}
}

func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestEscaping: a dataset, method and title made of HTML are shown as
// text on every page and in the Markdown.
func TestEscaping(t *testing.T) {
	t.Parallel()
	evil := "<script>alert(1)</script>"
	study := strings.NewReplacer("d1,", evil+",", "title    = \"Small study\"", "title    = \"Study "+evil+"\"",
		"caption = \"Three methods on four datasets.\"", "caption = \"x "+evil+"\"").Replace(smallStudy)
	study = strings.Replace(study, ",B,", ",<img src=x onerror=alert(2)>,", -1)
	dir := mustBuild(t, study)
	files := snapshot(t, dir)
	checked := 0
	for name, body := range files {
		switch {
		case strings.HasSuffix(name, ".html"):
			if strings.Contains(body, evil) || strings.Contains(body, "<img src=x") {
				t.Errorf("%s shows raw HTML from the user", name)
			}
			checked++
		case strings.HasSuffix(name, ".md"):
			if strings.Contains(body, "<script>") || strings.Contains(body, "<img src=x") {
				t.Errorf("%s shows raw HTML from the user", name)
			}
			checked++
		}
	}
	if checked < 8 {
		t.Fatalf("only %d pages checked", checked)
	}
	lb := files["lb.html"]
	if !strings.Contains(lb, "&lt;img src=x onerror=alert(2)&gt;") {
		t.Error("the method name is not shown escaped on lb.html")
	}
	if !strings.Contains(files["README.md"], "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the title is not shown escaped in README.md")
	}
	if !strings.Contains(files["lb.md"], "&lt;img src=x onerror=alert(2)&gt;") {
		t.Error("the method is not escaped in lb.md")
	}
	if !strings.Contains(files["data/lb.json"], `\u003cscript\u003ealert(1)\u003c/script\u003e`) {
		t.Error("the dataset name is missing from the JSON")
	}
}

// TestAnalysisErrorsNameTheManifestLine: a problem an analysis finds in
// its own parameters points at the key that gives it (metric = …), not
// the [[analyses]] header.
func TestAnalysisErrorsNameTheManifestLine(t *testing.T) {
	t.Parallel()
	_, err := buildStudy(t, strings.Replace(smallStudy, `metric  = "ndcg"`, `metric  = "ndgc"`, 1))
	if err == nil || !strings.Contains(err.Error(), `study.toml:24: analyses/lb: no metric "ndgc" in the results (did you mean "ndcg"?)`) {
		t.Fatalf("got %v", err)
	}
}

// TestSingleFileFormats: --single-file alone writes one file; with
// --format both the Markdown site keeps the data and figures it links to.
func TestSingleFileFormats(t *testing.T) {
	t.Parallel()
	html := snapshot(t, mustBuild(t, smallStudy, func(o *Options) { o.SingleFile, o.Format = true, "html" }))
	delete(html, SiteMarker) // marks the directory for the next build (output.go); not part of the site
	if len(html) != 1 || html["index.html"] == "" {
		t.Fatalf("single file: %d files", len(html))
	}
	for _, want := range []string{`id="p-lb"`, `id="p-notes"`, `data:image/svg+xml;base64,`, `data:text/csv;charset=utf-8;base64,`, "window.EVALBOOK_INDEX="} {
		if !strings.Contains(html["index.html"], want) {
			t.Errorf("single file lacks %q", want)
		}
	}
	both := snapshot(t, mustBuild(t, smallStudy, func(o *Options) { o.SingleFile, o.Format = true, "both" }))
	for _, f := range []string{"index.html", "README.md", "lb.md", "figures/lb.svg", "data/lb.csv"} {
		if _, ok := both[f]; !ok {
			t.Errorf("--single-file --format both lacks %s", f)
		}
	}
	if _, ok := both["lb.html"]; ok {
		t.Error("--single-file still writes lb.html")
	}
}

// TestValidateFindsAnalysisAndPageProblems: validate reports what only an
// analysis or a page can find, and writes nothing.
func TestValidateFindsAnalysisAndPageProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	study := strings.Replace(smallStudy, `metric  = "ndcg"`, `metric  = "ndgc"`, 1)
	study = strings.Replace(study, "A claim.", "A claim ({{ref lbx}}).", 1)
	if err := ParseArchive([]byte(study)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	_, err := Validate(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml")})
	if err == nil || !strings.Contains(err.Error(), `no metric "ndgc"`) {
		t.Fatalf("validate: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "site")); err == nil {
		t.Fatal("validate wrote a site")
	}
	fixed := strings.Replace(study, `metric  = "ndgc"`, `metric  = "ndcg"`, 1)
	ParseArchive([]byte(fixed)).WriteDir(dir)
	if _, err := Validate(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml")}); err == nil || !strings.Contains(err.Error(), "notes.md:7: {{ref lbx}}") {
		t.Fatalf("validate of a broken page: %v", err)
	}
}
