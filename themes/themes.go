package themes

import (
	"embed"
	"html/template"
	"io/fs"
	"strings"
	"sync"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/site.css
var css string

//go:embed static/site.js
var js string

//go:embed static/explore.js
var exploreJS string

// assets holds assets/README.txt always, and assets/echarts.min.js (the
// ECharts bundle of src/echarts.js) and assets/katex.min.js when `make
// assets` built them from the npm registry's packages before `go build`,
// and assets/explore.wasm.gz with assets/wasm_exec.js when it built the
// Explore page's module with the Go toolchain.
//
//go:embed assets
var assets embed.FS

// Templates parses the site templates with the given functions.
func Templates(funcs template.FuncMap) (*template.Template, error) {
	return template.New("site").Funcs(funcs).ParseFS(templateFS, "templates/*.html")
}

// CSS returns the site stylesheet.
func CSS() string { return css }

// JS returns the site script (chart drawing, theme toggle, table sorting).
func JS() string { return js }

// ExploreJS returns the Explore page's script: it inflates the
// WebAssembly module, keeps the reader's view in the URL fragment and
// draws what the module computes.
func ExploreJS() string { return exploreJS }

// ECharts returns the chart library (ECharts with only the series types,
// components and renderer the site uses, as src/echarts.js lists them),
// or nil when the binary was built without it.
func ECharts() []byte {
	b, err := fs.ReadFile(assets, "assets/echarts.min.js")
	if err != nil {
		return nil
	}
	return b
}

// KaTeX returns the KaTeX library (used to render TeX as MathML in the
// browser, so no font is needed), or nil when built without it.
func KaTeX() []byte {
	b, err := fs.ReadFile(assets, "assets/katex.min.js")
	if err != nil {
		return nil
	}
	return b
}

// Libraries are the chart library and KaTeX by name, as every site holds
// them (nil when the binary was built without one), read once per
// process: a rendered site's cache entry names them instead of holding
// them.
func Libraries() map[string][]byte {
	return map[string][]byte{"echarts": asset("assets/echarts.min.js"), "katex": asset("assets/katex.min.js")}
}

// ExploreWasm returns the Explore page's WebAssembly module, gzipped
// (report/site/explore/wasm, compiled by `make assets`), or nil when the
// binary was built without it.
func ExploreWasm() []byte { return asset("assets/explore.wasm.gz") }

// HasExplore tells whether the binary was built with the Explore page's
// module and its glue (ExploreWasm and WasmExec), without reading them.
func HasExplore() bool {
	for _, name := range []string{"assets/explore.wasm.gz", "assets/wasm_exec.js"} {
		if st, err := fs.Stat(assets, name); err != nil || st.Size() == 0 {
			return false
		}
	}
	return true
}

// WasmExec returns the Go toolchain's wasm_exec.js, the glue that runs
// ExploreWasm in the browser, or nil when built without it.
func WasmExec() []byte { return asset("assets/wasm_exec.js") }

// asset is an embedded asset, or nil when absent. It is read once per
// process (embed.FS copies a file on every read: 2.3 MB of chart
// library and module per build under serve): the bytes are shared, and
// callers must not change them.
func asset(name string) []byte {
	assetMu.Lock()
	defer assetMu.Unlock()
	if b, ok := assetCache[name]; ok {
		return b
	}
	b, err := fs.ReadFile(assets, name)
	if err != nil {
		b = nil
	}
	assetCache[name] = b
	return b
}

var (
	assetMu    sync.Mutex
	assetCache = map[string][]byte{}
)

// AssetVersions lists the npm packages the embedded assets were built
// from, one "name version" a line ("echarts 6.1.0"), or nil when the
// binary was built without them.
func AssetVersions() []string {
	b, err := fs.ReadFile(assets, "assets/versions.txt")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}
