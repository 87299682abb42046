package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/themes"
)

// requireExploreAsset skips a test of the Explore page when the test
// binary was built without its module (plain go test in a fresh clone),
// and fails it under CI, whose run builds the assets.
func requireExploreAsset(t testing.TB) {
	t.Helper()
	if len(themes.ExploreWasm()) > 0 && len(themes.WasmExec()) > 0 {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("themes/assets/explore.wasm.gz was not built into this test binary; CI must run `make assets` before go test")
	}
	t.Skip("the Explore page's module is not built into this test binary (make assets)")
}

// exploreTablesJS reads every table of a page whose wrapper's id starts
// with prefix ("tab-" on an analysis page, "x-tab-" on the Explore page):
// by the table's id, its column labels and each cell as the reader sees
// it (text with its marks) with its class (best, second, tied).
const exploreTablesJS = `(function (prefix, root) {
  var out = {};
  document.querySelector(root).querySelectorAll('div.table-wrap[id^="' + prefix + '"]').forEach(function (w) {
    var t = w.querySelector("table");
    var cols = Array.prototype.map.call(t.querySelectorAll("thead th"), function (th) { return th.textContent; });
    var rows = Array.prototype.map.call(t.querySelectorAll("tbody tr"), function (tr) {
      return Array.prototype.map.call(tr.querySelectorAll("td"), function (td) { return td.textContent + " |" + td.className; });
    });
    out[w.id.slice(prefix.length)] = {cols: cols, rows: rows};
  });
  return out;
})`

// shownTable is a table as the reader sees it.
type shownTable struct {
	Cols []string   `json:"cols"`
	Rows [][]string `json:"rows"`
}

// exploreView is a view the test sets through the page's controls.
type exploreView struct {
	Metric   string   `json:"metric"`
	Datasets []string `json:"datasets"`
	Methods  []string `json:"methods"`
	Rules    []string `json:"rules"`
}

// setViewJS ticks the controls to a view and tells the form, as a
// reader's clicks do.
const setViewJS = `(function (v) {
  var f = document.getElementById("explore-form");
  document.getElementById("explore-metric").value = v.metric;
  [["dataset", v.datasets], ["method", v.methods], ["rule", v.rules]].forEach(function (p) {
    f.querySelectorAll('input[name="' + p[0] + '"]').forEach(function (c) { c.checked = p[1].indexOf(c.value) >= 0; });
  });
  f.dispatchEvent(new Event("change"));
  return Number(document.getElementById("explore").dataset.draws);
})`

// exploreDraws waits until the Explore page has drawn more than after
// views and returns its count.
func exploreDraws(t *testing.T, b *browser, after int) int {
	t.Helper()
	var st struct {
		State string `json:"state"`
		Draws string `json:"draws"`
		Msg   string `json:"msg"`
	}
	js := `({state: document.getElementById("explore").dataset.state, draws: document.getElementById("explore").dataset.draws || "0", msg: document.getElementById("explore-status").textContent})`
	b.until(t, "the Explore page drawn", js, &st, func() bool {
		var n int
		fmt.Sscan(st.Draws, &n)
		return st.State == "error" || st.State == "ready" && n > after
	}, func() string { return fmt.Sprintf("%+v", st) })
	if st.State == "error" {
		t.Fatalf("explore.html: %s", st.Msg)
	}
	var n int
	fmt.Sscan(st.Draws, &n)
	return n
}

// exploreSettled waits until the Explore page open in b has drawn its
// full view (the Bayesian test's too) and its stability analysis has
// finished or said why not, so that what is read next stays as it is:
// the stability section's charts come last, from a worker.
func exploreSettled(t *testing.T, b *browser) {
	t.Helper()
	var st struct {
		State string `json:"state"`
		Stab  string `json:"stab"`
	}
	js := `({state: document.getElementById("explore").dataset.state || "", stab: (document.getElementById("explore-stability") || {dataset: {state: "none"}}).dataset.state || ""})`
	b.until(t, "the Explore page settled", js, &st, func() bool {
		return st.State == "error" || st.State == "ready" && (st.Stab == "ready" || st.Stab == "error" || st.Stab == "none")
	}, func() string { return fmt.Sprintf("%+v", st) })
}

// readTables reads the tables of the page open in b: on an analysis
// page (prefix "tab-") all of them, on the Explore page ("x-tab-") those
// of the leaderboard and the significance tests.
func readTables(t *testing.T, b *browser, prefix string) map[string]shownTable {
	t.Helper()
	root := "body"
	if prefix == "x-tab-" {
		root = "#explore-results"
	}
	return readTablesIn(t, b, prefix, root)
}

// readTablesIn reads the tables under the element root selects.
func readTablesIn(t *testing.T, b *browser, prefix, root string) map[string]shownTable {
	t.Helper()
	var out map[string]shownTable
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(exploreTablesJS+`(`+jsString(prefix)+`, `+jsString(root)+`)`, &out)); err != nil {
		t.Fatal(err)
	}
	return out
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// demoAnalysisBlock is the first [[analyses]] block of a fragment of
// the demo's manifest, as written.
func demoAnalysisBlock(t *testing.T, fragment string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "sites", "demo", "manifest.d", fragment))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(src), "[[analyses]]")
	if len(parts) < 2 {
		t.Fatalf("%s: no [[analyses]]", fragment)
	}
	return "[[analyses]]" + strings.TrimRight(parts[1], "\n") + "\n"
}

// restrictedStudy writes a study of the demo's results, metrics and
// methods with only the demo's leaderboard and critical-difference
// analyses, restricted to a view by datasets = […], methods = […] and
// rules = […], and returns its manifest.
func restrictedStudy(t *testing.T, dir string, v exploreView, agg, cd string, more ...string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(demoDir, "study.toml"))
	if err != nil {
		t.Fatal(err)
	}
	head := string(src)
	head = head[strings.Index(head, "[[metrics]]"):strings.Index(head, "[inputs]")]
	list := func(ids []string) string {
		b, _ := json.Marshal(ids)
		return string(b)
	}
	sub := fmt.Sprintf("metric = %q\ndatasets = %s\nmethods = %s\n", v.Metric, list(v.Datasets), list(v.Methods))
	strip := func(block string) string { // the view's metric, not the block's
		var keep []string
		for _, l := range strings.Split(block, "\n") {
			if !strings.HasPrefix(l, "metric ") && !strings.HasPrefix(l, "metric=") && !strings.HasPrefix(l, "methods ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	m := "title = \"Restricted\"\nseed = 42\n\n" + head + "[inputs]\nresults = [\"results.csv\"]\n\n" +
		strip(agg) + sub + "rules = " + list(v.Rules) + "\n\n" + strip(cd) + sub
	for _, block := range more { // a stability analysis: the view's rules too
		m += "\n" + strip(block) + sub + "rules = " + list(v.Rules) + "\n"
	}
	path := filepath.Join(dir, "study.toml")
	if err := os.WriteFile(path, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// randomSubset keeps each id with probability 1/2, at least min of them,
// in their order.
func randomSubset(r *rand.Rand, ids []string, min int) []string {
	for {
		var out []string
		for _, id := range ids {
			if r.IntN(2) == 0 {
				out = append(out, id)
			}
		}
		if len(out) >= min {
			return out
		}
	}
}

// TestBrowserExplore opens the demo's Explore page from file:// and, for
// random views (datasets, methods, rules and metric; 50 of them, 8
// under EVALBOOK_EXPLORE_QUICK), compares every table it recomputes —
// leaderboard, Friedman/Nemenyi, mean ranks, pairwise Wilcoxon–Holm —
// with the same table on the pages of an `evalbook build` of the demo's
// manifest restricted to that view by datasets = […], methods = […] and
// rules = […]: every column label, cell text (to the printed precision,
// with its marks) and mark class; and the CD diagram it draws (an ECharts
// instance that painted its canvas) with that build's
// data/critical-difference.json (mean ranks, critical difference,
// cliques) and its chart option. Then a reload with the view's fragment
// draws the same view, the stability analysis of the last view (its
// perturbations in a worker, with progress) equals the stability page of
// the restricted build, its tables and its curves' charts, reset goes
// back to the published one, Space on a focused checkbox changes the
// view, a fragment naming an unknown method shows the published view and
// says so, and axe-core finds nothing in
// the light and the dark theme. No network request, no console error.
func TestBrowserExplore(t *testing.T) {
	t.Parallel()
	requireExploreAsset(t)
	axe := axeSource(t)
	page := newBrowser(t)
	page.preloadAxe(t, axe)
	built := newBrowser(t)
	site := demoSite(t)
	study := t.TempDir()
	res, err := os.ReadFile(filepath.Join(demoDir, "data", "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(study, "results.csv"), res, 0o644); err != nil {
		t.Fatal(err)
	}
	agg, cd := demoAnalysisBlock(t, "00-aggregate.toml"), demoAnalysisBlock(t, "20-significance.toml")

	n := 50
	if os.Getenv("EVALBOOK_EXPLORE_QUICK") != "" {
		n = 8
	}
	url := "file://" + filepath.Join(site, "explore.html")
	data, published, last := compareViews(t, page, built, url, n, []string{"ndcg@10", "rmse"}, func(k int, v exploreView) string {
		dir := filepath.Join(study, fmt.Sprint(k))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(study, "results.csv"), filepath.Join(dir, "results.csv")); err != nil {
			t.Fatal(err)
		}
		return restrictedStudy(t, dir, v, agg, cd)
	})

	// The stability analysis of the last view, computed meanwhile in a
	// worker with progress, equals the restricted build's.
	var stab struct {
		State string  `json:"state"`
		Value float64 `json:"value"`
		Max   float64 `json:"max"`
		Msg   string  `json:"msg"`
	}
	page.until(t, "the stability of the last view", `({state: document.getElementById("explore-stability").dataset.state,
  value: document.getElementById("explore-stability-progress").value, max: document.getElementById("explore-stability-progress").max,
  msg: document.getElementById("explore-stability-status").textContent})`, &stab,
		func() bool { return stab.State == "ready" || stab.State == "error" }, func() string { return fmt.Sprintf("%+v", stab) })
	if stab.State != "ready" || stab.Value != stab.Max || stab.Max <= 1 {
		t.Fatalf("the stability section: %+v", stab)
	}
	gotStab := readTablesIn(t, page, "x-tab-", "#explore-stability-results")
	dir := filepath.Join(study, "stability")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(study, "results.csv"), filepath.Join(dir, "results.csv")); err != nil {
		t.Fatal(err)
	}
	manifest := restrictedStudy(t, dir, last, agg, cd, demoAnalysisBlock(t, "40-stability.toml"))
	if code, _, errOut := runCLI("build", manifest, "--quiet"); code != 0 {
		t.Fatalf("evalbook build of the restricted manifest with stability: exit %d: %s", code, errOut)
	}
	built.at("stability.html")
	if err := chromedp.Run(built.ctx, chromedp.Navigate("file://"+filepath.Join(dir, "site", "stability.html"))); err != nil {
		t.Fatal(err)
	}
	wantStab := readTables(t, built, "tab-")
	if len(wantStab) == 0 || !reflect.DeepEqual(gotStab, wantStab) {
		t.Errorf("view %+v: the stability tables differ:\nExplore: %v\n  build: %v", last, gotStab, wantStab)
	}
	checkExploreStabilityFigures(t, page, filepath.Join(dir, "site"), fmt.Sprintf("%+v", last))

	// The view is in the fragment: a reload draws it again.
	var hash string
	if err := chromedp.Run(page.ctx, chromedp.Evaluate(`location.hash`, &hash)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hash, "datasets=") {
		t.Fatalf("the view %+v is not in the address: %q", last, hash)
	}
	shown := readTables(t, page, "x-tab-")
	if err := chromedp.Run(page.ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	exploreDraws(t, page, 0)
	var after exploreView
	if err := chromedp.Run(page.ctx, chromedp.Evaluate(`window.evalbookExploreLast.state`, &after)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after, last) {
		t.Errorf("after a reload of %s the view is %+v, want %+v", hash, after, last)
	}
	if again := readTables(t, page, "x-tab-"); !reflect.DeepEqual(again, shown) {
		t.Errorf("after a reload of %s the tables differ", hash)
	}
	var banner bool
	if err := chromedp.Run(page.ctx, chromedp.Evaluate(`!document.getElementById("explore-banner").hidden`, &banner)); err != nil {
		t.Fatal(err)
	}
	if !banner {
		t.Error("a view that differs from the published study shows no banner")
	}

	// Reset: the published view, no banner, an address without a view.
	var d int
	if err := chromedp.Run(page.ctx, chromedp.Evaluate(`(function(){var n=Number(document.getElementById("explore").dataset.draws); document.getElementById("explore-reset").click(); return n})()`, &d)); err != nil {
		t.Fatal(err)
	}
	exploreDraws(t, page, d)
	if err := chromedp.Run(page.ctx, chromedp.Evaluate(`location.hash + (document.getElementById("explore-banner").hidden ? "" : " banner")`, &hash)); err != nil {
		t.Fatal(err)
	}
	if hash != "" {
		t.Errorf("after reset: address fragment and banner %q, want none", hash)
	}
	if again := readTables(t, page, "x-tab-"); !reflect.DeepEqual(again, published) {
		t.Error("after reset the tables are not the published view's")
	}
	page.axe(t, axe, "explore.html (light)", axeAll)
	page.screenshot(t, os.Getenv("EVALBOOK_SHOTS"), "explore-light")

	// The keyboard: Space on a focused checkbox leaves its dataset out.
	if err := chromedp.Run(page.ctx, chromedp.Evaluate(`Number(document.getElementById("explore").dataset.draws)`, &d),
		chromedp.Focus(`input[name="dataset"]`, chromedp.ByQuery), chromedp.KeyEvent(" ")); err != nil {
		t.Fatal(err)
	}
	exploreDraws(t, page, d)
	if err := chromedp.Run(page.ctx, chromedp.Evaluate(`decodeURIComponent(location.hash)`, &hash)); err != nil {
		t.Fatal(err)
	}
	if want := "#datasets=" + strings.Join(data.Datasets[1:], ","); hash != want {
		t.Errorf("Space on the first dataset's checkbox: address %q, want %q", hash, want)
	}

	// A fragment naming what the study lacks: the published view, and why.
	if err := chromedp.Run(page.ctx, chromedp.Evaluate(`Number(document.getElementById("explore").dataset.draws)`, &d),
		chromedp.Evaluate(`location.hash = "#methods=EASE,NoSuchMethod"; true`, nil)); err != nil {
		t.Fatal(err)
	}
	exploreDraws(t, page, d)
	var msg string
	if err := chromedp.Run(page.ctx, chromedp.Evaluate(`document.getElementById("explore-status").textContent`, &msg)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "no method NoSuchMethod") || !reflect.DeepEqual(readTables(t, page, "x-tab-"), published) {
		t.Errorf("a fragment naming an unknown method: %q, and the published tables: %v", msg, reflect.DeepEqual(readTables(t, page, "x-tab-"), published))
	}

	// The dark theme: axe-core again, with the view drawn.
	page.at("explore.html (dark)")
	page.loadInTheme(t, url+"#rules=borda", "dark")
	exploreDraws(t, page, 0)
	page.axe(t, axe, "explore.html (dark)", axeAll)
	page.screenshot(t, os.Getenv("EVALBOOK_SHOTS"), "explore-dark")

	if !slices.Equal(data.Published.Datasets, data.Datasets) {
		t.Errorf("the demo's published view has datasets %v, want all", data.Published.Datasets)
	}
	page.report(t)
	built.report(t)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// exploreData is what the equality tests read of the Explore page's data.
type exploreData struct {
	Datasets  []string    `json:"datasets"`
	Methods   []string    `json:"methods"`
	Published exploreView `json:"published"`
}

// compareViews opens an Explore page (url), sets n random views through
// its controls (the metric cycling through metrics) and compares every
// table it recomputes with the analysis pages leaderboard.html and
// critical-difference.html of an evalbook build of the manifest that
// restricted(k, view) writes: every column label, cell text and mark;
// and the CD diagram it draws (checkExploreCD) with that build's. It
// returns the page's data, the published view's tables and the last view.
//
// The restricted builds run in the background (buildViews) while the
// page draws the views one after another; the built pages are read
// once the page has drawn them all, so the page's workers, which start
// over on every view, are not left computing a view while its study is
// built. The built pages' tables are the HTML the build wrote (site.js
// only moves a sortable header's text into a button), read from the
// files (tablesInHTML) for every view; those of the first and the last
// view are also opened in Chromium, as a reader opens them (scripts
// running, the console watched) and with the tab's scripts off, and
// each of those readings must equal the files'. Chromium does not load
// the other 2 × (n − 2) pages, which no other assertion reads (about a
// quarter of the test's CPU).
func compareViews(t *testing.T, page, built *browser, url string, n int, metrics []string, restricted func(k int, v exploreView) string) (exploreData, map[string]shownTable, exploreView) {
	t.Helper()
	page.at(filepath.Base(url))
	if err := chromedp.Run(page.ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	draws := exploreDraws(t, page, 0)
	var data exploreData
	if err := chromedp.Run(page.ctx, chromedp.Evaluate(`JSON.parse(document.getElementById("explore-data").textContent)`, &data)); err != nil {
		t.Fatal(err)
	}
	published := readTables(t, page, "x-tab-")
	if len(published) < 4 {
		t.Fatalf("the published view shows %d tables, want the leaderboard's and critical_difference's", len(published))
	}
	r := rand.New(rand.NewPCG(35, 2026))
	views := make([]exploreView, n)
	manifests := make([]string, n)
	for k := range views {
		views[k] = exploreView{Metric: metrics[k%len(metrics)], Datasets: randomSubset(r, data.Datasets, 3),
			Methods: randomSubset(r, data.Methods, 2), Rules: randomSubset(r, leaderboard.AllRules, 1)}
		manifests[k] = restricted(k, views[k])
	}
	builds := buildViews(t, manifests)

	// What the page shows for each view, in turn.
	got := make([]map[string]shownTable, n)
	cds := make([]drawnCD, n)
	for k, v := range views {
		// Only the last view's stability analysis is read (by
		// TestBrowserExplore): the page perturbs no other view, so its
		// workers leave the CPU to the views' tables and the builds.
		noStab := fmt.Sprintf("window.evalbookExploreNoStability = %v;", k < n-1)
		if err := chromedp.Run(page.ctx, chromedp.Evaluate(noStab+setViewJS+`(`+mustJSON(v)+`)`, nil)); err != nil {
			t.Fatal(err)
		}
		draws = exploreDraws(t, page, draws)
		got[k] = readTables(t, page, "x-tab-")
		cds[k] = readExploreCD(t, page)
	}

	// What each restricted build shows.
	for k, v := range views {
		manifest := manifests[k]
		if b := <-builds[k]; b.code != 0 {
			t.Fatalf("view %d: evalbook build of the restricted manifest: exit %d: %s", k, b.code, b.stderr)
		}
		site := filepath.Join(filepath.Dir(manifest), "site")
		want := builtTablesFromFiles(t, site)
		if k == 0 || k == n-1 {
			for _, noScripts := range []bool{false, true} {
				if read := builtTables(t, built, site, noScripts); !reflect.DeepEqual(read, want) {
					t.Fatalf("view %d: the built pages' tables read in Chromium (scripts off: %v) differ from those read from the files:\nChromium: %v\n   files: %v", k, noScripts, read, want)
				}
			}
		}
		if len(want) < 4 || len(want["leaderboard"].Rows) != len(v.Methods) {
			t.Fatalf("view %d: the restricted build shows %d tables, its leaderboard %d rows for %d methods", k, len(want), len(want["leaderboard"].Rows), len(v.Methods))
		}
		if k == 0 {
			t.Logf("view 0 %+v: %d tables, the leaderboard's first row %v", v, len(want), want["leaderboard"].Rows[0])
		}
		checkExploreCD(t, cds[k], site, fmt.Sprintf("%d %+v", k, v))
		if !reflect.DeepEqual(got[k], want) {
			for id, w := range want {
				if g, ok := got[k][id]; !ok {
					t.Errorf("view %d %+v: table %s missing on the Explore page", k, v, id)
				} else if !reflect.DeepEqual(g, w) {
					t.Errorf("view %d %+v: table %s differs:\nExplore: %v\n  build: %v", k, v, id, g, w)
				}
			}
			for id := range got[k] {
				if _, ok := want[id]; !ok {
					t.Errorf("view %d: table %s on the Explore page only", k, id)
				}
			}
			t.FailNow()
		}
	}
	return data, published, views[n-1]
}

// builtTables reads the tables of leaderboard.html and
// critical-difference.html in a build's site, in the tab of b, with
// the tab's scripts off when noScripts.
func builtTables(t *testing.T, b *browser, site string, noScripts bool) map[string]shownTable {
	t.Helper()
	if err := chromedp.Run(b.ctx, emulation.SetScriptExecutionDisabled(noScripts)); err != nil {
		t.Fatal(err)
	}
	defer chromedp.Run(b.ctx, emulation.SetScriptExecutionDisabled(false))
	want := map[string]shownTable{}
	for _, p := range []string{"leaderboard.html", "critical-difference.html"} {
		b.at(p)
		if err := chromedp.Run(b.ctx, chromedp.Navigate("file://"+filepath.Join(site, p))); err != nil {
			t.Fatal(err)
		}
		for id, tab := range readTables(t, b, "tab-") {
			want[id] = tab
		}
	}
	return want
}

// builtTablesFromFiles reads the tables of leaderboard.html and
// critical-difference.html in a build's site from the files, as
// builtTables reads them in Chromium with scripts off.
func builtTablesFromFiles(t *testing.T, site string) map[string]shownTable {
	t.Helper()
	want := map[string]shownTable{}
	for _, p := range []string{"leaderboard.html", "critical-difference.html"} {
		page, err := os.ReadFile(filepath.Join(site, p))
		if err != nil {
			t.Fatal(err)
		}
		tabs, err := tablesInHTML(string(page), "tab-")
		if err != nil {
			t.Fatalf("%s: %v", filepath.Join(site, p), err)
		}
		maps.Copy(want, tabs)
	}
	return want
}

// tablesInHTML is exploreTablesJS for a page as evalbook writes it, read
// from its HTML: each table of a <div class="table-wrap" id="…"> whose
// id starts with prefix, by the id without it, with the text of each
// th in its thead and, for each tr of its tbody, each td's text, " |"
// and its class. The text of an element is its textContent: all the
// text inside it, entities decoded. Only a table's own markup is parsed
// (encoding/xml's HTML mode: no script or style lies inside a table).
func tablesInHTML(page, prefix string) (map[string]shownTable, error) {
	const wrap = `<div class="table-wrap" id="`
	out := map[string]shownTable{}
	for rest := page; ; {
		i := strings.Index(rest, wrap+prefix)
		if i < 0 {
			return out, nil
		}
		rest = rest[i+len(wrap):]
		id, _, _ := strings.Cut(rest, `"`)
		from, to := strings.Index(rest, "<table"), strings.Index(rest, "</table>")
		if from < 0 || to < from {
			return nil, fmt.Errorf("table %s: no <table> … </table>", id)
		}
		tab, err := tableInHTML(rest[from : to+len("</table>")])
		if err != nil {
			return nil, fmt.Errorf("table %s: %v", id, err)
		}
		out[strings.TrimPrefix(id, prefix)] = tab
		rest = rest[to:]
	}
}

// tableInHTML reads one <table> … </table> (see tablesInHTML).
func tableInHTML(src string) (shownTable, error) {
	d := xml.NewDecoder(strings.NewReader(src))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	// as JSON decodes exploreTablesJS's arrays: empty, not nil
	tab := shownTable{Cols: []string{}, Rows: [][]string{}}
	var open []string // the elements open, outermost first
	var text strings.Builder
	class := ""
	in := func(name string) bool { return slices.Contains(open, name) }
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return tab, nil
		}
		if err != nil {
			return tab, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			open = append(open, e.Name.Local)
			switch {
			case e.Name.Local == "tr" && in("tbody"):
				tab.Rows = append(tab.Rows, []string{})
			case e.Name.Local == "td" && in("tbody") || e.Name.Local == "th" && in("thead"):
				text.Reset()
				class = ""
				for _, a := range e.Attr {
					if a.Name.Local == "class" {
						class = a.Value
					}
				}
			}
		case xml.CharData:
			if in("td") || in("th") {
				text.Write(e)
			}
		case xml.EndElement:
			switch {
			case e.Name.Local == "th" && in("thead"):
				tab.Cols = append(tab.Cols, text.String())
			case e.Name.Local == "td" && in("tbody") && len(tab.Rows) > 0:
				r := &tab.Rows[len(tab.Rows)-1]
				*r = append(*r, text.String()+" |"+class)
			}
			for k := len(open) - 1; k >= 0; k-- { // closes what it encloses too
				if open[k] == e.Name.Local {
					open = open[:k]
					break
				}
			}
		}
	}
}

// viewBuild is what an in-process evalbook build returned.
type viewBuild struct {
	code   int
	stderr string
}

// buildViews runs `evalbook build --quiet` on each manifest in the
// background, two at a time, in order; the k-th channel gets the k-th
// build's result. Builds still running when t ends are waited for, so
// none writes into a removed temporary directory.
func buildViews(t *testing.T, manifests []string) []chan viewBuild {
	t.Helper()
	out := make([]chan viewBuild, len(manifests))
	for k := range out {
		out[k] = make(chan viewBuild, 1)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				code, _, errOut := runCLI("build", manifests[k], "--quiet")
				out[k] <- viewBuild{code, errOut}
			}
		}()
	}
	go func() {
		defer close(next)
		for k := range manifests {
			select {
			case next <- k:
			case <-stop:
				return
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		wg.Wait()
	})
	return out
}

// TestBrowserExploreReference is TestBrowserExplore's equality on the
// study of Shevchenko et al. (2024) from ../shared/reference (their
// published per-dataset values: 30 datasets × 11 methods): its Explore
// page against restricted builds, for 50 random views on nDCG@10 and
// HitRate@10 (8 under EVALBOOK_EXPLORE_QUICK).
func TestBrowserExploreReference(t *testing.T) {
	t.Parallel()
	requireExploreAsset(t)
	ref, err := filepath.Abs(filepath.Join(repoRoot(t), "..", "shared", "reference", "shevchenko2024", "agg_metrics.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ref); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("reference data absent under CI: %v", err)
		}
		t.Skipf("reference data absent: %v", err)
	}
	page, built := newBrowser(t), newBrowser(t)
	root := t.TempDir()
	write := func(dir string, v *exploreView) string {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		sub := ""
		if v != nil {
			sub = fmt.Sprintf("datasets = %s\nmethods = %s\n", mustJSON(v.Datasets), mustJSON(v.Methods))
		}
		metric := "ndcg@10"
		rules := ""
		if v != nil {
			metric, rules = v.Metric, "rules = "+mustJSON(v.Rules)+"\n"
		}
		m := fmt.Sprintf("title = \"Shevchenko et al. 2024\"\nallow_outside = true\n[inputs]\nresults = %q\n\n"+
			"[[analyses]]\nid = \"leaderboard\"\ntype = \"aggregate\"\nmetric = %q\n%s%s\n"+
			"[[analyses]]\nid = \"critical-difference\"\ntype = \"critical_difference\"\nmetric = %q\n%s",
			filepath.ToSlash(ref), metric, sub, rules, metric, sub)
		path := filepath.Join(dir, "study.toml")
		if err := os.WriteFile(path, []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	full := write(filepath.Join(root, "full"), nil)
	if code, _, errOut := runCLI("build", full, "--quiet"); code != 0 {
		t.Fatalf("build: exit %d: %s", code, errOut)
	}
	n := 50
	if os.Getenv("EVALBOOK_EXPLORE_QUICK") != "" {
		n = 8
	}
	data, _, _ := compareViews(t, page, built, "file://"+filepath.Join(root, "full", "site", "explore.html"), n, []string{"ndcg@10", "hitrate@10"},
		func(k int, v exploreView) string { return write(filepath.Join(root, fmt.Sprint(k)), &v) })
	t.Logf("%d datasets × %d methods", len(data.Datasets), len(data.Methods))
	page.report(t)
	built.report(t)
}

// TestTablesInHTML reads tables as Chromium's textContent does: every
// text inside a cell, entities decoded, marks kept in the class; only
// the tables of the prefix, none of a caption's or another section's
// text; an empty row and an empty cell kept.
func TestTablesInHTML(t *testing.T) {
	page := `<html><head><script>if (a < b && c) {}</script></head><body>
<div class="table-wrap" id="tab-lb">
<div class="table-scroll" tabindex="0"><table class="data sortable">
<caption><a class="num" href="#tab-lb">Table 1.</a> A &amp; B <a class="dl" href="data/lb.csv" download>CSV</a></caption>
<thead><tr><th scope="col" title="method">Method</th><th scope="col" class="num">nDCG@10 &#43; <span class="mark">†</span></th></tr></thead>
<tbody>
<tr><td>EASE &lt;1&gt;</td><td class="num best" data-v="0.5" title="0.5"><strong>0.500</strong><span class="mark">*</span></td></tr>
<tr></tr>
<tr><td>&#34;x&#39;</td><td class="num"></td></tr>
</tbody>
</table></div>
</div><div class="table-wrap" id="other-x"><table><thead><tr><th>no</th></tr></thead></table></div>
<div class="table-wrap" id="tab-empty"><table class="data"></table></div>`
	got, err := tablesInHTML(page, "tab-")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]shownTable{
		"lb": {Cols: []string{"Method", "nDCG@10 + †"}, Rows: [][]string{
			{"EASE <1> |", "0.500* |num best"}, {}, {`"x' |`, " |num"}}},
		"empty": {Cols: []string{}, Rows: [][]string{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
	if _, err := tablesInHTML(`<div class="table-wrap" id="tab-cut"><table><tr><td>x`, "tab-"); err == nil {
		t.Error("a table without its end: no error")
	}
}
