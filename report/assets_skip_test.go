package report

import (
	"os"
	"testing"

	"github.com/evalbook/evalbook/themes"
)

// The chart assets `make assets` builds from the npm registry into
// themes/assets before go test; a fresh clone has neither.
const (
	echartsAsset = "echarts.min.js"
	katexAsset   = "katex.min.js"
)

// haveAsset reports whether the test binary embeds themes/assets/<name>.
func haveAsset(name string) bool {
	switch name {
	case echartsAsset:
		return len(themes.ECharts()) > 0
	case katexAsset:
		return len(themes.KaTeX()) > 0
	}
	panic("haveAsset: unknown asset " + name)
}

// requireAsset skips a test whose checks need themes/assets/<name> when
// the test binary was built without it (plain go test in a fresh clone),
// naming the asset; under CI, whose run builds the assets, it fails the
// test instead, so a missing asset never turns these checks silently
// green. Call it after the checks that do not need the asset, so they
// still run.
func requireAsset(t testing.TB, name string) {
	t.Helper()
	if haveAsset(name) {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("themes/assets/%s was not built into this test binary; CI must run `make assets` before go test", name)
	}
	t.Skipf("themes/assets/%s was not built into this test binary (plain go test in a fresh clone): run `make assets` first, as make test does", name)
}
