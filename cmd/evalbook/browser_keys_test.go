package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserKeyboard checks that the static SVG behind a drawn chart is
// not fetched, then uses the demo with the keyboard only: the first Tab
// reaches the skip link, which moves focus to the content; a table's
// header is a focusable button whose Enter sorts the column and sets
// aria-sort; the search box answers arrow keys (aria-activedescendant,
// aria-selected), Escape closes its list, ArrowDown reopens it and Enter
// opens the chosen (second) result; the theme toggle reports its state with aria-pressed.
func TestBrowserKeyboard(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	site := demoSite(t)
	page := "file://" + filepath.Join(site, "leaderboard.html")
	b.at("leaderboard.html")
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(b.ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	var s string
	wait := func(what, js, want string) {
		t.Helper()
		b.until(t, what, js, &s, func() bool { return s == want }, func() string { return fmt.Sprintf("got %q, want %q", s, want) })
	}
	run("load", chromedp.Navigate(page), chromedp.WaitReady("body", chromedp.ByQuery))
	b.chartState(t)
	// The static SVG of a figure drawn as a chart is not fetched (it
	// shows without JavaScript and in print).
	var hidden []string
	run("hidden figures", chromedp.Evaluate(`Array.prototype.map.call(document.querySelectorAll("img.static.with-chart"), function (i) { return i.getAttribute("src"); })`, &hidden))
	if len(hidden) == 0 {
		t.Error("leaderboard.html has no figure drawn as a chart")
	}
	b.mu.Lock()
	for _, src := range hidden {
		for _, u := range b.requests {
			if strings.HasSuffix(u, "/"+src) {
				t.Errorf("the hidden static figure %s was fetched", src)
			}
		}
	}
	b.mu.Unlock()

	// Skip link: the first Tab stop, and Enter moves focus to <main>.
	run("tab", chromedp.KeyEvent(kb.Tab))
	wait("skip link focused", `document.activeElement.className + ":" + document.activeElement.textContent`, "skip:Skip to content")
	run("enter", chromedp.KeyEvent(kb.Enter))
	wait("focus on the content", `document.activeElement.id`, "main")

	// A sortable header by keyboard.
	const firstNumericHead = `(function () {
  var th = Array.prototype.find.call(document.querySelectorAll("table.sortable thead th"), function (h, i) {
    var cell = h.closest("table").tBodies[0].rows[0].cells[i];
    return cell && cell.hasAttribute("data-v");
  });
  return th;
})()`
	wait("headers with aria-sort", firstNumericHead+`.getAttribute("aria-sort")`, "none")
	run("focus header", chromedp.Evaluate(firstNumericHead+`.querySelector("button").focus(); true`, nil))
	wait("header focusable", `document.activeElement.className + ":" + (document.activeElement.parentElement.tagName)`, "sort:TH")
	run("sort", chromedp.KeyEvent(kb.Enter))
	wait("ascending by Enter", firstNumericHead+`.getAttribute("aria-sort")`, "ascending")
	var sorted bool
	run("read column", chromedp.Evaluate(`(function () {
  var th = `+firstNumericHead+`, i = Array.prototype.indexOf.call(th.parentElement.children, th);
  var v = Array.prototype.map.call(th.closest("table").tBodies[0].rows, function (r) { return parseFloat(r.cells[i].getAttribute("data-v")); });
  for (var k = 1; k < v.length; k++) if (v[k] < v[k - 1]) return false;
  return v.length > 1;
})()`, &sorted))
	if !sorted {
		t.Error("Enter on a header did not sort its column ascending")
	}
	run("sort again", chromedp.KeyEvent(" "))
	wait("descending by Space", firstNumericHead+`.getAttribute("aria-sort")`, "descending")

	// Search by arrow keys.
	run("type", chromedp.Focus("#search", chromedp.ByQuery), chromedp.SendKeys("#search", "leaderboard", chromedp.ByQuery))
	wait("results listed", `document.getElementById("search").getAttribute("aria-expanded")`, "true")
	wait("live region", `/^\d+ results?$/.test(document.getElementById("search-status").textContent) + ""`, "true")
	run("down", chromedp.KeyEvent(kb.ArrowDown))
	wait("first result active", `document.getElementById("search").getAttribute("aria-activedescendant") + ":" + document.getElementById("search-hit-0").getAttribute("aria-selected")`, "search-hit-0:true")
	run("down", chromedp.KeyEvent(kb.ArrowDown))
	wait("second result active", `document.getElementById("search").getAttribute("aria-activedescendant")`, "search-hit-1")
	run("up", chromedp.KeyEvent(kb.ArrowUp))
	wait("back to the first", `document.getElementById("search").getAttribute("aria-activedescendant")`, "search-hit-0")
	var target string
	run("target", chromedp.Evaluate(`document.querySelector("#search-hit-0 a").href`, &target))
	run("escape", chromedp.KeyEvent(kb.Escape))
	wait("list closed", `document.getElementById("search-results").hidden + ":" + document.getElementById("search").getAttribute("aria-expanded")`, "true:false")
	run("reopen", chromedp.KeyEvent(kb.ArrowDown))
	wait("results listed again, the first active", `document.getElementById("search").getAttribute("aria-expanded") + ":" + document.getElementById("search").getAttribute("aria-activedescendant")`, "true:search-hit-0")
	run("down", chromedp.KeyEvent(kb.ArrowDown))
	run("target", chromedp.Evaluate(`document.querySelector("#search-hit-1 a").href`, &target))
	run("enter", chromedp.KeyEvent(kb.Enter))
	wait("the chosen result opened", `location.href`, target)
	if !strings.HasSuffix(target, ".html") {
		t.Errorf("search opened %q", target)
	}

	// A long table's header sticks to the top of its scroll box.
	b.at("critical-difference.html (sticky header)")
	run("load", chromedp.Navigate("file://"+filepath.Join(site, "critical-difference.html")), chromedp.WaitReady("body", chromedp.ByQuery))
	wait("a header that sticks", `(function () {
  document.querySelectorAll("details.more-table").forEach(function (d) { d.open = true; });
  var box = Array.prototype.find.call(document.querySelectorAll(".table-scroll"), function (b) { return b.scrollHeight > b.clientHeight + 200; });
  if (!box) return "no long table";
  box.scrollTop = 400;
  var th = box.querySelector("thead th");
  return Math.abs(th.getBoundingClientRect().top - box.getBoundingClientRect().top) <= 1 ? "sticks" : "scrolled away by " + Math.round(box.getBoundingClientRect().top - th.getBoundingClientRect().top) + " px";
})()`, "sticks")

	// The theme toggle says whether the dark theme is on.
	run("load", chromedp.Navigate(page), chromedp.WaitReady("#theme-toggle", chromedp.ByQuery))
	wait("toggle state", `document.getElementById("theme-toggle").getAttribute("aria-pressed")`, "false")
	run("toggle", chromedp.Click("#theme-toggle", chromedp.ByQuery, chromedp.NodeVisible))
	wait("toggle pressed", `document.getElementById("theme-toggle").getAttribute("aria-pressed")`, "true")

	// Without JavaScript no chart box is left empty: the static figures
	// show, and no button that needs a script.
	b.at("leaderboard.html (no JavaScript)")
	run("scripts off", emulation.SetScriptExecutionDisabled(true), chromedp.Navigate(page), chromedp.WaitReady("body", chromedp.ByQuery))
	wait("static figures only", `(function () {
  var boxes = Array.prototype.filter.call(document.querySelectorAll(".echart"), function (e) { return e.offsetHeight > 0; }).length;
  var imgs = Array.prototype.filter.call(document.querySelectorAll("img.static"), function (e) { return e.offsetHeight > 0; }).length;
  var menu = document.getElementById("menu-toggle").offsetParent !== null;
  return boxes + " chart boxes, " + (imgs === document.querySelectorAll("img.static").length && imgs > 0 ? "all" : imgs) + " figures shown" + (menu ? ", a menu button" : "");
})()`, "0 chart boxes, all figures shown")
	run("scripts on", emulation.SetScriptExecutionDisabled(false))
	b.report(t)
}
