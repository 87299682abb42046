package site

// The Explore page (explore.html): the study's values (Model.Explore) in
// the page, the controls of a reader's view, and the scripts that run
// the build's own analyses on it in the browser (the WebAssembly module
// of report/site/explore/wasm, embedded gzipped and base64-encoded, as
// a file:// page may not fetch). Only this page loads them.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"sync"

	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/themes"
)

// ExplorePage is the Explore page's file name.
const ExplorePage = "explore.html"

// The Explore page's scripts, written beside the other assets.
const (
	exploreWasmJS = "assets/explore-wasm.js" // the module (gzipped, base64) and wasm_exec.js, as strings
	exploreJS     = "assets/explore.js"      // the page's script (themes/static/explore.js)
)

// exploreView is what the Explore page's template shows.
type exploreView struct {
	Data                      template.JS // explore.Data as JSON
	Metrics                   []choiceView
	Rules, Datasets, Methods  []choiceView
	Aggregate, CriticalDiff   *navItem // the published analyses it recomputes
	Stability                 *navItem
	DatasetCount, MethodCount int
	// Charts: the page draws charts (the CD diagram, the stability
	// curves), so it loads the
	// chart library as an analysis page with a chart does.
	Charts bool
}

// choiceView is one option of a control: its id, label, and whether the
// published view has it.
type choiceView struct {
	ID, Label string
	On        bool
}

// hasExplore reports whether the site has an Explore page: a study with
// an analysis it recomputes, and a binary built with the module.
func (b *siteBuild) hasExplore() bool {
	return b.m.Explore != nil && len(b.assets.ExploreWasm) > 0 && len(b.assets.WasmExec) > 0 && !b.m.Options.SingleFile
}

// explorePage is the Explore page and writes its scripts.
func (b *siteBuild) explorePage() (htmlPage, error) {
	d := b.m.Explore
	data, err := json.Marshal(d) // escapes <, > and &: safe inside <script>
	if err != nil {
		return htmlPage{}, fmt.Errorf("%s: %w", ExplorePage, err)
	}
	n := b.study.Naming
	v := &exploreView{Data: template.JS(data), DatasetCount: len(d.Datasets), MethodCount: len(d.Methods)}
	for _, m := range d.Metrics {
		v.Metrics = append(v.Metrics, choiceView{ID: m.Name, Label: n.Metric(m.Name), On: m.Name == d.Published.Metric})
	}
	if d.Aggregate != nil {
		for _, r := range leaderboard.AllRules {
			v.Rules = append(v.Rules, choiceView{ID: r, Label: n.Rule(r), On: slices.Contains(d.Published.Rules, r)})
		}
		v.Aggregate = b.navOf(d.Aggregate.ID)
	}
	if d.CriticalDifference != nil {
		v.CriticalDiff = b.navOf(d.CriticalDifference.ID)
		v.Charts = true
	}
	if d.Stability != nil {
		v.Stability = b.navOf(d.Stability.ID)
		v.Charts = true
	}
	for _, ds := range d.Datasets {
		v.Datasets = append(v.Datasets, choiceView{ID: ds, Label: n.Dataset(ds), On: slices.Contains(d.Published.Datasets, ds)})
	}
	for _, m := range d.Methods {
		v.Methods = append(v.Methods, choiceView{ID: m, Label: n.Method(m), On: slices.Contains(d.Published.Methods, m)})
	}
	b.files[exploreWasmJS] = exploreWasmScript(b.assets.ExploreWasm, b.assets.WasmExec)
	b.files[exploreJS] = []byte(themes.ExploreJS())
	p := b.base("Explore", "explore")
	p.Explore = v
	p.Scripts = append(p.Scripts, exploreWasmJS, exploreJS)
	return htmlPage{slug: "explore", file: ExplorePage, title: "Explore", body: "explore-body", data: p}, nil
}

// exploreWasmScript is the module's script: the gzipped module as one
// base64 string the page decodes and inflates (DecompressionStream),
// and the Go toolchain's wasm_exec.js as a string, which starts each of
// the page's Web Workers (a worker made from a blob: URL cannot load a
// file:// script).
//
// The assets are the binary's, the same for every build of a process
// (serve rebuilds on every change), so the 1.9 MB script is made once
// for them and shared: callers must not change it.
func exploreWasmScript(gz, wasmExec []byte) []byte {
	exploreScript.Lock()
	defer exploreScript.Unlock()
	c := &exploreScript
	if c.out != nil && bytes.Equal(c.gz, gz) && bytes.Equal(c.exec, wasmExec) {
		return c.out
	}
	c.gz, c.exec, c.out = gz, wasmExec, makeExploreWasmScript(gz, wasmExec)
	return c.out
}

// exploreScript is the last script exploreWasmScript made, and its
// inputs.
var exploreScript struct {
	sync.Mutex
	gz, exec, out []byte
}

func makeExploreWasmScript(gz, wasmExec []byte) []byte {
	out := []byte("window.evalbookExploreWasm=\"")
	out = base64.StdEncoding.AppendEncode(out, gz)
	out = append(out, "\";\nwindow.evalbookWasmExec="...)
	exec, _ := json.Marshal(string(wasmExec)) // a string never fails to marshal
	out = append(out, exec...)
	return append(out, ";\n"...)
}

// navOf is the navigation item of analysis id.
func (b *siteBuild) navOf(id string) *navItem {
	for _, v := range b.views {
		if v.ID == id {
			return &navItem{Title: v.Title, Href: v.ID + ".html", Slug: v.ID, Kind: "analysis"}
		}
	}
	return nil
}
