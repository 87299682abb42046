package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// phoneJS measures a page at phone width: every text of every drawn chart
// must lie inside its chart's canvas (ECharts' own bounding boxes, so a
// label cut at the figure's edge is caught), every figure too wide for
// the screen must scroll (not be cut), and no text block of the page may
// run past the screen's right edge unless it is inside a scroll box.
const phoneJS = `(function () {
  var out = { texts: 0, wide: 0, wideTables: 0, heatmaps: 0, level: 0, formulas: 0, problems: [] }, vw = document.documentElement.clientWidth;
  document.querySelectorAll(".echart").forEach(function (el) {
    var chart = window.echarts && window.echarts.getInstanceByDom(el);
    if (!chart || el.offsetParent === null) return;
    var w = chart.getWidth(), h = chart.getHeight(), where = (el.closest("figure") || el).id, rects = [];
    // category names of more than four letters written level, where
    // they fit (their overlap is checked below with the other texts)
    (chart.getOption().xAxis || []).forEach(function (a) {
      if (a.type === "category" && (a.data || []).length > 2 && a.data.some(function (c) { return String(c).length > 4; }) && !(a.axisLabel && a.axisLabel.rotate)) out.level++;
    });
    chart.getZr().storage.getDisplayList(true).forEach(function (e) {
      if (!e.style || typeof e.style.text !== "string" || !e.style.text.trim() || e.invisible || e.ignore) return;
      var r = e.getBoundingRect().clone();
      if (e.transform) r.applyTransform(e.transform);
      out.texts++;
      if (r.x < -1 || r.y < -1 || r.x + r.width > w + 1 || r.y + r.height > h + 1)
        out.problems.push(where + ": text " + JSON.stringify(e.style.text) + " at x " + Math.round(r.x) + "–" + Math.round(r.x + r.width) + " of " + w + ", y " + Math.round(r.y) + "–" + Math.round(r.y + r.height) + " of " + h);
      // (a rotated text's box is not its shape: 45° axis labels' boxes
      // overlap where their letters do not)
      if (!e.transform || Math.abs(e.transform[1]) < 1e-6 && Math.abs(e.transform[2]) < 1e-6) rects.push({ t: e.style.text, r: r });
    });
    // no two texts run over each other (a heatmap's numbers in cells
    // narrower than they are): reported once per chart
    var overlaps = 0, first = "";
    rects.forEach(function (p, i) {
      rects.slice(i + 1).forEach(function (q) {
        var dx = Math.min(p.r.x + p.r.width, q.r.x + q.r.width) - Math.max(p.r.x, q.r.x);
        var dy = Math.min(p.r.y + p.r.height, q.r.y + q.r.height) - Math.max(p.r.y, q.r.y);
        if (dx > 2 && dy > 2 && !overlaps++) first = JSON.stringify(p.t) + " and " + JSON.stringify(q.t);
      });
    });
    if (overlaps) out.problems.push(where + ": " + overlaps + " pairs of texts overlap, first " + first);
    // a heatmap keeps its numbers: its figure scrolls sideways instead
    (chart.getOption().series || []).forEach(function (s) {
      if (s.type !== "heatmap") return;
      out.heatmaps++;
      if (!s.label || !s.label.show || (s.label.fontSize || 12) < 12) out.problems.push(where + ": the heatmap's numbers are shrunk or left out at " + vw + " px");
    });
  });
  document.querySelectorAll("figure.figure").forEach(function (f) {
    var inner = f.querySelector(".echart:not([hidden]), img.static:not([hidden])");
    if (!inner || inner.offsetParent === null) return;
    var style = getComputedStyle(f);
    var wide = inner.getBoundingClientRect().width > f.clientWidth + 1 || f.scrollWidth > f.clientWidth + 1;
    if (wide && style.overflowX !== "auto" && style.overflowX !== "scroll")
      out.problems.push(f.id + ": a figure wider than the screen is cut, not scrolled");
    var cue = f.querySelector(".scroll-cue");
    if (wide && (!cue || cue.offsetParent === null || cue.getBoundingClientRect().width === 0 || cue.getBoundingClientRect().left < -1))
      out.problems.push(f.id + ": a figure wider than the screen (" + Math.round(inner.getBoundingClientRect().width) + " px in " + f.clientWidth + ") scrolls with no visible cue");
    if (wide) out.wide++;
  });
  // every formula of the page parses (the page renders them with
  // throwOnError off, which would show a bad one as red source text)
  document.querySelectorAll(".math[data-tex]").forEach(function (m) {
    out.formulas++;
    if (!window.katex) { out.problems.push("a formula, but no KaTeX on the page"); return; }
    try { window.katex.renderToString(m.getAttribute("data-tex"), { throwOnError: true }); }
    catch (e) { out.problems.push("formula " + JSON.stringify(m.getAttribute("data-tex")) + ": " + e.message); }
  });
  // a table's caption (and its CSV and LaTeX buttons) stays within the
  // screen, and a table wider than the screen says so under its caption
  document.querySelectorAll(".table-scroll").forEach(function (s) {
    if (s.offsetParent === null) return;
    var cap = s.querySelector(":scope > table > caption");
    if (cap && cap.getBoundingClientRect().right > s.getBoundingClientRect().right + 1)
      out.problems.push((s.getAttribute("aria-label") || "a table") + ": its caption " + JSON.stringify(cap.textContent.trim().slice(0, 40)) + " runs to x " + Math.round(cap.getBoundingClientRect().right) + ", past its box's edge at " + Math.round(s.getBoundingClientRect().right));
    if (s.scrollWidth <= s.clientWidth + 1) return;
    out.wideTables++;
    var cue = cap && cap.querySelector(".scroll-cue");
    if (!s.classList.contains("scrolls") || !cue || cue.offsetParent === null || cue.textContent.indexOf("scroll sideways") < 0)
      out.problems.push((s.getAttribute("aria-label") || "a table") + ": a table wider than the screen (" + s.scrollWidth + " px in " + s.clientWidth + ") scrolls with no cue under its caption");
  });
  document.querySelectorAll(".echart").forEach(function (el) {
    if (el.offsetParent === null) return;
    if (el.getBoundingClientRect().width > vw + 1 && !(el.closest("figure.figure.scrolls")))
      out.problems.push((el.closest("figure") || el).id + ": a chart " + Math.round(el.getBoundingClientRect().width) + " px wide on a " + vw + " px screen, with no cue");
  });
  document.querySelectorAll("main p, main h1, main h2, main h3, main figcaption, main li, main button, .top *").forEach(function (e) {
    if (e.offsetParent === null || e.closest(".table-scroll, figure.figure, pre, .math")) return;
    var r = e.getBoundingClientRect();
    if (r.right > vw + 1) out.problems.push(e.tagName.toLowerCase() + " " + JSON.stringify((e.textContent || "").trim().slice(0, 40)) + " runs to x " + Math.round(r.right) + " of " + vw);
  });
  return out;
})()`

// TestBrowserPhone opens every page of the demo at 390 px (a phone; the
// forest and CD pages in the dark theme too), with the interactive charts
// and, for the forest plot, its default static figure: no chart text is
// clipped at the figure's edges (by ECharts' bounding boxes), no chart
// is wider than the screen, no two of a chart's unrotated texts overlap
// (a heatmap's numbers, a value axis's ticks), a heatmap keeps its
// numbers at their size, a figure wider than the screen scrolls with
// a visible cue above it, a table's caption stays on the screen and,
// when the table is wider, says so, no text runs off the screen, and the contents
// sit behind a menu button that opens them. The charts are measured at
// rest (the tab asks for reduced motion, so they are not animated). With
// $EVALBOOK_SHOTS set, screenshots of every view go there, taken at the
// phone's pixel ratio of 3 (the checks run at 1: they measure in CSS
// pixels).
func TestBrowserPhone(t *testing.T) {
	t.Parallel()
	site := demoSite(t)
	shots := os.Getenv("EVALBOOK_SHOTS")
	if shots == "" {
		// no screenshots: b.screenshot checks the charts only
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	// The checks measure in CSS pixels, which the pixel ratio does not
	// change; a phone's ratio of 3 paints nine times the pixels of every
	// canvas, so it is emulated only for the screenshots.
	ratio := 1.0
	if shots != "" {
		ratio = 3
	}
	pool := newTabPool(t, 2, func(b *browser) {
		if err := chromedp.Run(b.ctx,
			emulation.SetDeviceMetricsOverride(390, 844, ratio, true),
			emulation.SetTouchEmulationEnabled(true),
			// reduced motion: the charts are drawn without animation, so
			// what is measured and shot is the chart at rest, not a line
			// halfway across
			emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}),
		); err != nil {
			t.Fatal(err)
		}
	})
	var views []string // page:theme
	for _, p := range demoHTMLPages(t) {
		name := strings.TrimSuffix(filepath.Base(p), ".html")
		views = append(views, name+":light")
		if name == "critical-difference" || name == "meta-ease-vs-als-rmse" {
			views = append(views, name+":dark")
		}
	}
	var mu sync.Mutex
	texts, wide, tables, heatmaps, level, formulas := 0, 0, 0, 0, 0, 0
	eachPage(t, pool, views, func(t *testing.T, b *browser, view string) {
		name, theme, _ := strings.Cut(view, ":")
		b.at(name + " (phone, " + theme + ")")
		b.loadInTheme(t, "file://"+filepath.Join(site, name+".html"), theme)
		if name == "explore" {
			exploreSettled(t, b) // its stability charts measured too
		}
		b.chartState(t)
		var r struct {
			Texts    int      `json:"texts"`
			Wide     int      `json:"wide"`
			Tables   int      `json:"wideTables"`
			Level    int      `json:"level"`
			Formulas int      `json:"formulas"`
			Heatmaps int      `json:"heatmaps"`
			Problems []string `json:"problems"`
		}
		if err := chromedp.Run(b.ctx, chromedp.Evaluate(phoneJS, &r)); err != nil {
			t.Fatal(err)
		}
		for _, p := range r.Problems {
			t.Errorf("%s (390 px, %s): %s", name, theme, p)
		}
		mu.Lock()
		texts += r.Texts
		wide += r.Wide
		tables += r.Tables
		level += r.Level
		formulas += r.Formulas
		heatmaps += r.Heatmaps
		mu.Unlock()
		b.screenshot(t, shots, fmt.Sprintf("phone-%s-%s", name, theme))
	})
	if texts < 50 || heatmaps < 5 || tables < 10 {
		t.Errorf("only %d chart texts, %d heatmaps and %d tables wider than the screen measured", texts, heatmaps, tables)
	}
	// the dataset-selection strategies fit level even on a phone: names
	// are slanted only where they would not fit
	if level == 0 {
		t.Error("no category axis of long names is written level: every one is slanted, fitting or not")
	}
	if formulas < 20 {
		t.Errorf("only %d formulas parsed on the demo's pages", formulas)
	}
	t.Logf("%d pages, %d chart texts, %d figures and %d tables wider than the screen (each with its cue)", len(views), texts, wide, tables)
	b := <-pool

	// The contents: hidden behind the menu button, opened by it.
	b.at("menu (phone)")
	var state string
	const navState = `(function () {
  var nav = document.getElementById("side-nav"), menu = document.getElementById("menu-toggle");
  return (nav.offsetParent === null ? "hidden" : "shown") + ":" + (menu.offsetParent === null ? "no-button" : menu.getAttribute("aria-expanded"));
})()`
	if err := chromedp.Run(b.ctx, chromedp.Navigate("file://"+filepath.Join(site, "index.html")), chromedp.WaitReady("#menu-toggle", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	b.until(t, "contents behind the menu button", navState, &state, func() bool { return state == "hidden:false" }, func() string { return state })
	if err := chromedp.Run(b.ctx, chromedp.Click("#menu-toggle", chromedp.ByQuery, chromedp.NodeVisible)); err != nil {
		t.Fatal(err)
	}
	b.until(t, "contents opened", navState, &state, func() bool { return state == "shown:true" }, func() string { return state })
	b.screenshot(t, shots, "phone-menu-open")
	if shots != "" {
		t.Logf("screenshots in %s", shots)
	}
	pool <- b
	pool.report(t)
}
