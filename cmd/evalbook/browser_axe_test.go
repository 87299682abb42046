package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// axeSource is axe-core's browser build, from the npm registry (pinned in
// package.json and package-lock.json; `make assets` installs it into
// node_modules, which is never committed).
func axeSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("axe-core not installed (make assets): %v", err)
		}
		t.Skipf("axe-core not installed; run make assets: %v", err)
	}
	return string(b)
}

// axeJS runs every axe rule (experimental and best-practice ones
// included) on the document and returns its violations, each as
// "rule: help (n nodes: first targets)". AAA contrast
// (color-contrast-enhanced) is the one rule left out: the site aims at
// AA contrast for text.
const axeJS = `(async function () {
  var rules = {};
  axe.getRules().forEach(function (r) { rules[r.ruleId] = { enabled: r.ruleId !== "color-contrast-enhanced" }; });
  var res = await axe.run(document, { rules: rules, resultTypes: ["violations"] });
  return res.violations.map(function (v) {
    return v.id + ": " + v.help + " (" + v.nodes.length + " nodes: " + v.nodes.slice(0, 3).map(function (n) { return n.target.join(" "); }).join(", ") + ")";
  });
})()`

// TestBrowserAxe runs axe-core with all its rules on a sample of the
// demo's pages covering every template, in the light and the dark theme,
// after the charts are drawn: no violation but AAA contrast.
func TestBrowserAxe(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	axe := axeSource(t)
	site := demoSite(t)
	if err := chromedp.Run(b.ctx, chromedp.Navigate("file://"+filepath.Join(site, "index.html"))); err != nil {
		t.Fatal(err)
	}
	checked := 0
	// Every template and every kind of figure and table, light and dark:
	// the overview, a narrative page embedding a figure and tables, the
	// provenance, and analysis pages of seven types. (axe with every rule
	// takes seconds a page; the other pages repeat these templates.)
	sample := map[string][]string{
		"light": {"index", "findings", "introduction", "provenance", "leaderboard", "critical-difference", "meta-ease-vs-als-rmse",
			"dataset-clusters", "paired-users", "characteristics", "submissions"},
		"dark": {"index", "leaderboard", "meta-ease-vs-als-rmse"},
	}
	for _, theme := range []string{"light", "dark"} {
		for _, name := range sample[theme] {
			p := filepath.Join(site, name+".html")
			name := name + ".html"
			b.at(name + " (" + theme + ")")
			b.loadInTheme(t, "file://"+p, theme)
			b.chartState(t)
			var violations []string
			err := chromedp.Run(b.ctx,
				chromedp.Evaluate(axe+";true", nil),
				chromedp.Evaluate(axeJS, &violations, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
			)
			if err != nil && err != context.Canceled {
				t.Fatalf("%s: axe: %v", name, err)
			}
			for _, v := range violations {
				t.Errorf("%s (%s): %s", name, theme, v)
			}
			checked++
		}
	}
	t.Logf("axe-core on %d page views", checked)
	b.report(t)
}
