package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/page"
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

// axeRules says which of axe's rules a run enables.
type axeRules int

const (
	// axeAll: every rule, experimental and best-practice ones included,
	// but AAA contrast (color-contrast-enhanced): the site aims at AA
	// contrast for text.
	axeAll axeRules = iota
	// axeColours: the rules about colour (axe's tag cat.color: text
	// contrast, links told from text), but AAA contrast. The other
	// rules read the document's structure, which a theme does not
	// change: a page checked with axeAll in one theme needs only these
	// in the other.
	axeColours
)

// axeJS runs axe on the document with the rules of RULES and returns its
// violations, each as "rule: help (n nodes: first targets)".
const axeJS = `(async function (colours) {
  var rules = {};
  axe.getRules().forEach(function (r) {
    rules[r.ruleId] = { enabled: r.ruleId !== "color-contrast-enhanced" && (!colours || r.tags.indexOf("cat.color") >= 0) };
  });
  var res = await axe.run(document, { rules: rules, resultTypes: ["violations"] });
  return res.violations.map(function (v) {
    return v.id + ": " + v.help + " (" + v.nodes.length + " nodes: " + v.nodes.slice(0, 3).map(function (n) { return n.target.join(" "); }).join(", ") + ")";
  });
})`

// preloadAxe has the tab evaluate axe-core's source in every document it
// loads from now on, before the page's own scripts: the source (560 kB)
// then crosses the DevTools connection once per tab, not once per page
// (each crossing costs the browser about 0.15 s of CPU, more than
// compiling it). axe-core only defines window.axe; it does nothing until
// it is run.
func (b *browser) preloadAxe(t *testing.T, axeSrc string) {
	t.Helper()
	if err := chromedp.Run(b.ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(axeSrc).Do(ctx)
		return err
	})); err != nil {
		t.Fatalf("preloading axe-core: %v", err)
	}
}

// axe opens every "Cite" box of the page in the tab (axe skips what is
// hidden, and a folded box hides its table), runs axe-core on it with
// rules and reports each violation as an error of t, naming where. It
// evaluates axe-core's source first unless the page has it already
// (preloadAxe).
func (b *browser) axe(t *testing.T, axeSrc, where string, rules axeRules) {
	t.Helper()
	arg := "false"
	if rules == axeColours {
		arg = "true"
	}
	var loaded bool
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(`typeof window.axe === "object" && typeof window.axe.run === "function"`, &loaded)); err != nil {
		t.Fatalf("%s: axe: %v", where, err)
	}
	if !loaded {
		if err := chromedp.Run(b.ctx, chromedp.Evaluate(axeSrc+";true", nil)); err != nil {
			t.Fatalf("%s: axe: %v", where, err)
		}
	}
	var violations []string
	err := chromedp.Run(b.ctx,
		chromedp.Evaluate(`document.querySelectorAll("details.cite-latex").forEach(function (d) { d.open = true; }); true`, nil),
		chromedp.Evaluate(axeJS+"("+arg+")", &violations, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	)
	if err != nil && err != context.Canceled {
		t.Fatalf("%s: axe: %v", where, err)
	}
	for _, v := range violations {
		t.Errorf("%s: axe: %s", where, v)
	}
}
