package site

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/site/explore"
)

// exploreLink is the navigation entry of the Explore page, on every page.
var exploreLink = regexp.MustCompile(`<li class="nav-explore"><a href="explore.html"( aria-current="page")?>Explore</a></li>\n`)

// TestExplorePageLeavesOtherPages: with the Explore page, every other
// file of the site is byte for byte what it is without it but for the
// navigation entry to the page; the page's scripts hold the module as
// given and are loaded by it alone; without the module, or in a single
// file, there is no page and no entry.
func TestExplorePageLeavesOtherPages(t *testing.T) {
	t.Parallel()
	plain := renderModel("# Findings\n\nText.\n")
	without, err := Render(plain)
	if err != nil {
		t.Fatal(err)
	}
	m := renderModel("# Findings\n\nText.\n")
	m.Explore = &explore.Data{Datasets: []string{"d"}, Methods: []string{"A", "B"}, Metrics: []explore.Metric{{Name: "m"}},
		Values: map[string][][]*float64{"m": {{nil, nil}}}, Published: explore.State{Metric: "m"}}
	m.Assets.ExploreWasm, m.Assets.WasmExec = []byte("\x1f\x8bmodule"), []byte("(() => { globalThis.Go = 1; })();")
	with, err := Render(m)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range without {
		got, ok := with[name]
		if !ok {
			t.Errorf("%s: gone with the Explore page", name)
			continue
		}
		if strings.HasSuffix(name, ".html") {
			if n := len(exploreLink.FindAll(got, -1)); n != 1 {
				t.Errorf("%s: %d links to the Explore page", name, n)
			}
			got = exploreLink.ReplaceAll(got, nil)
		}
		if !bytes.Equal(got, b) {
			t.Errorf("%s: differs with the Explore page beyond its link", name)
		}
	}
	for _, name := range []string{"explore.html", "assets/explore-wasm.js", "assets/explore.js"} {
		if _, ok := with[name]; !ok {
			t.Errorf("no %s", name)
		}
		delete(with, name)
	}
	if len(with) != len(without) {
		t.Errorf("%d files with the Explore page, %d without", len(with)+3, len(without))
	}
	js := string(exploreWasmScript(m.Assets.ExploreWasm, m.Assets.WasmExec))
	if want := `window.evalbookExploreWasm="` + base64.StdEncoding.EncodeToString(m.Assets.ExploreWasm) + `";`; !strings.HasPrefix(js, want) ||
		!strings.Contains(js, `window.evalbookWasmExec="(() =\u003e { globalThis.Go = 1; })();";`) {
		t.Errorf("explore-wasm.js: %.200s", js)
	}
	page := string(exploreHTML(t, m))
	for _, want := range []string{`<script src="assets/explore-wasm.js"></script>`, `<script src="assets/explore.js"></script>`,
		`<li class="nav-explore"><a href="explore.html" aria-current="page">Explore</a></li>`, `<script type="application/json" id="explore-data">{"naming":`} {
		if !strings.Contains(page, want) {
			t.Errorf("explore.html lacks %s", want)
		}
	}
	for _, c := range []struct {
		name string
		edit func(*Model)
	}{
		{"without the module", func(m *Model) { m.Assets.ExploreWasm = nil }},
		{"in a single file", func(m *Model) { m.Options.SingleFile = true }},
	} {
		mm := m
		c.edit(&mm)
		files, err := Render(mm)
		if err != nil {
			t.Fatal(err)
		}
		for name, b := range files {
			if name == "explore.html" || strings.HasPrefix(name, "assets/explore") || bytes.Contains(b, []byte("nav-explore")) {
				t.Errorf("%s: %s mentions the Explore page", c.name, name)
			}
		}
	}
}

// exploreHTML renders m and returns its Explore page.
func exploreHTML(t *testing.T, m Model) []byte {
	t.Helper()
	files, err := Render(m)
	if err != nil {
		t.Fatal(err)
	}
	return files["explore.html"]
}
