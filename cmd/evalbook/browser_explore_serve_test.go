package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestBrowserExploreServe: `evalbook serve` serves the Explore page with
// everything it loads — the module's script (the gzipped module and
// Go's wasm_exec.js), the page's script and the chart library — as
// JavaScript, and the page works there: in Chromium over the served URL
// the module loads, the published view is drawn with its CD diagram, and
// a change of view (a dataset left out) is recomputed and drawn, with no
// console error and no request but to the server.
func TestBrowserExploreServe(t *testing.T) {
	t.Parallel()
	requireExploreAsset(t)
	b := newBrowser(t)
	generatedDemo(t)
	study := t.TempDir()
	res, err := os.ReadFile(filepath.Join(demoDir, "data", "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(study, "results.csv"), res, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(demoDir, "study.toml"))
	if err != nil {
		t.Fatal(err)
	}
	head := string(src)
	head = head[strings.Index(head, "[[metrics]]"):strings.Index(head, "[inputs]")]
	manifest := filepath.Join(study, "study.toml")
	m := "title = \"Served\"\nseed = 42\n\n" + head + "[inputs]\nresults = [\"results.csv\"]\n\n" +
		demoAnalysisBlock(t, "00-aggregate.toml") + "\n" + demoAnalysisBlock(t, "20-significance.toml")
	if err := os.WriteFile(manifest, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := serveSubprocess(t, []string{"serve", manifest, "--addr", "127.0.0.1:0"}, func(base string) {
		page := get(t, base+"/explore.html", "text/html")
		for _, s := range []string{"assets/explore-wasm.js", "assets/explore.js", "assets/echarts.min.js"} {
			if !strings.Contains(page, `<script src="`+s+`"></script>`) {
				t.Errorf("the served explore.html does not load %s", s)
			}
			body := get(t, base+"/"+s, "text/javascript")
			if s == "assets/explore-wasm.js" && (!strings.HasPrefix(body, `window.evalbookExploreWasm="`) || len(body) < 1<<20 || !strings.Contains(body, "window.evalbookWasmExec=")) {
				t.Errorf("%s: %d bytes, not the module and wasm_exec.js", s, len(body))
			}
		}
		exploreServed(t, b, base)
	})
	if code != 0 {
		t.Fatalf("serve: exit %d: %s", code, errOut)
	}
}

// get fetches url and returns its body, failing unless it answers 200
// with the content type.
func get(t *testing.T, url, contentType string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, contentType) {
		t.Fatalf("GET %s: %s, %s; want 200 and %s", url, resp.Status, ct, contentType)
	}
	return string(body)
}

// exploreServed opens the served Explore page in b (with the network on,
// for the server) and checks that it computes and draws the published
// view and a changed one.
func exploreServed(t *testing.T, b *browser, base string) {
	t.Helper()
	b.at("explore.html (served)")
	if err := chromedp.Run(b.ctx, network.EmulateNetworkConditions(false, 0, -1, -1), chromedp.Navigate(base+"/explore.html")); err != nil {
		t.Fatal(err)
	}
	draws := exploreDraws(t, b, 0)
	if cd := readExploreCD(t, b); cd.ID == "" {
		t.Error("the served page drew no CD diagram")
	}
	var v exploreView
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(`JSON.parse(document.getElementById("explore-data").textContent).published`, &v)); err != nil {
		t.Fatal(err)
	}
	v.Datasets = v.Datasets[1:]
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(setViewJS+`(`+mustJSON(v)+`)`, nil)); err != nil {
		t.Fatal(err)
	}
	exploreDraws(t, b, draws)
	var last exploreView
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(`window.evalbookExploreLast.state`, &last)); err != nil {
		t.Fatal(err)
	}
	if len(last.Datasets) != len(v.Datasets) || len(readTables(t, b, "x-tab-")) < 4 {
		t.Errorf("the served page's view after leaving a dataset out: %+v", last)
	}
	// the server is no network: only the requests to it are allowed
	b.mu.Lock()
	var kept []string
	for _, p := range b.problems {
		if !strings.Contains(p, "network request to "+base+"/") {
			kept = append(kept, p)
		}
	}
	b.problems = kept
	b.mu.Unlock()
	b.report(t)
}
