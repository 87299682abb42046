package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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
	for _, v := range b.axeViolations(t, axeSrc, where, rules) {
		t.Errorf("%s: axe: %s", where, v)
	}
}

// axeViolations is axe without reporting: the violations found.
func (b *browser) axeViolations(t *testing.T, axeSrc, where string, rules axeRules) []string {
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
	return violations
}

// distinctRowsJS leaves in each long table body (more than eight rows)
// one row of each rendering: rows alike in their elements, in the
// attributes axe-core reads (class, style, role, aria-*, scope, spans,
// headers, tabindex, lang, dir; the others by name only: an id, a
// title, a link's target or a data-v differ from row to row and no
// rule reads their values) and in which of their texts are empty. axe
// checks each element, so a table of 800 rows costs it seconds, while
// its rows are one template filled 800 times: what one row of a
// rendering passes, every row of it passes. It returns the rows left
// and the rows removed.
const distinctRowsJS = `(function () {
  function sig(el) {
    var out = el.tagName;
    for (var i = 0; i < el.attributes.length; i++) {
      var a = el.attributes[i], n = a.name;
      var read = n === "class" || n === "style" || n === "role" || n.indexOf("aria-") === 0 || n === "scope" ||
        n === "colspan" || n === "rowspan" || n === "headers" || n === "tabindex" || n === "lang" || n === "dir";
      out += " " + n + (read ? "=" + a.value : "");
    }
    out += "[";
    el.childNodes.forEach(function (c) {
      if (c.nodeType === 1) out += sig(c);
      else if (c.nodeType === 3 && c.textContent.trim() !== "") out += "T";
    });
    return out + "]";
  }
  var kept = 0, removed = 0;
  document.querySelectorAll("tbody").forEach(function (body) {
    var rows = Array.prototype.slice.call(body.rows);
    if (rows.length <= 8) { kept += rows.length; return; }
    var seen = {};
    rows.forEach(function (r) {
      var s = sig(r);
      if (seen[s]) { r.remove(); removed++; } else { seen[s] = true; kept++; }
    });
  });
  return [kept, removed];
})()`

// distinctRows applies distinctRowsJS to the page open in b, before
// axe-core reads it; it returns the rows left and removed.
func (b *browser) distinctRows(t *testing.T) (kept, removed int) {
	t.Helper()
	var n []int
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(distinctRowsJS, &n)); err != nil || len(n) != 2 {
		t.Fatalf("distinct rows: %v %v", n, err)
	}
	return n[0], n[1]
}

// TestDistinctRowsKeepEveryRendering plants what distinctRows must not
// leave out: on the demo's leaderboard page, a long table shown on the
// page gets a copy of its first row, last, whose cells have a class
// more, of a grey that fails contrast. That row is a rendering of its
// own (its class values differ), so it stays, and axe-core names it;
// the page as built has no violation, and many of its rows go.
func TestDistinctRowsKeepEveryRendering(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	axe := axeSource(t)
	site := demoSite(t)
	b.preloadAxe(t, axe)
	open := func() {
		t.Helper()
		b.at("leaderboard.html")
		b.loadInTheme(t, "file://"+filepath.Join(site, "leaderboard.html"), "light")
	}
	open()
	kept, removed := b.distinctRows(t)
	if removed < 100 || kept == 0 {
		t.Fatalf("%d rows left, %d removed", kept, removed)
	}
	if v := b.axeViolations(t, axe, "leaderboard.html", axeColours); len(v) > 0 {
		t.Fatalf("the page as built: %v", v)
	}
	open()
	var planted string
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(`(function () {
  var body = Array.prototype.slice.call(document.querySelectorAll("tbody")).filter(function (b) { return b.rows.length > 8 && b.offsetParent !== null; })[0];
  var style = document.createElement("style");
  style.textContent = "td.planted-grey, td.planted-grey * { color: #f4f4f4 !important; }";
  document.head.appendChild(style);
  // the first row's rendering, last, but its cells' classes (axe reads
  // them: they set the colour) name a grey
  var row = body.rows[0].cloneNode(true);
  row.querySelectorAll("td[class]").forEach(function (c) { c.classList.add("planted-grey"); });
  body.appendChild(row);
  return row.textContent.trim().slice(0, 40);
})()`, &planted)); err != nil {
		t.Fatal(err)
	}
	b.distinctRows(t)
	v := b.axeViolations(t, axe, "leaderboard.html (planted)", axeColours)
	if len(v) != 1 || !strings.HasPrefix(v[0], "color-contrast:") {
		t.Errorf("a row of a grey that fails contrast (%q), late in a long table: axe found %q", planted, v)
	}
	b.report(t)
}
