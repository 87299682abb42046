package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// chartReport is what chartsJS reads from every drawn chart of a page.
type chartReport struct {
	Charts   int      `json:"charts"`
	Problems []string `json:"problems"`
	// Styles maps a series' name (its suffix in parentheses dropped) to
	// the colour it is drawn with, per chart.
	Styles []map[string]string `json:"styles"`
	// Regions counts the opaque regions read (evalbookRegion series).
	Regions int `json:"regions"`
}

// chartsJS checks every ECharts instance of the page (after the opt-in
// charts are switched on) and returns a chartReport. A category axis
// must carry its names; no number in axis data, labels or formatters may
// have more than 6 significant digits; no legend may be paged; every
// series mark must have 3:1 contrast with the page background (the
// colour ECharts draws, getVisual, after the page's own adjustments),
// but an opaque region (evalbookRegion), which is drawn in the colour its
// option gives it (the colour says what it is, as the caption does).
const chartsJS = `(function () {
  function lum(c) {
    var m = /^#([0-9a-f]{6})$/i.exec(c), v;
    if (m) { var n = parseInt(m[1], 16); v = [(n >> 16) & 255, (n >> 8) & 255, n & 255]; }
    else { m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(c); if (!m) return null; v = [+m[1], +m[2], +m[3]]; }
    var l = v.map(function (x) { x /= 255; return x <= 0.04045 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
  }
  function ratio(a, b) { return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); }
  var bg = lum(getComputedStyle(document.body).backgroundColor);
  var out = { charts: 0, problems: [], styles: [], regions: 0 };
  var styled = { line: 1, scatter: 1, bar: 1, boxplot: 1 };
  document.querySelectorAll(".echart").forEach(function (el, n) {
    var chart = window.echarts.getInstanceByDom(el);
    if (!chart) { out.problems.push("chart " + n + " not drawn"); return; }
    out.charts++;
    var o = chart.getOption(), where = "chart " + n + " (" + (el.closest("figure") || el).id + ")";
    ["xAxis", "yAxis"].forEach(function (k) {
      (o[k] || []).forEach(function (a) {
        if (a.type === "category" && !(a.data && a.data.length)) out.problems.push(where + ": a category " + k + " has no names");
      });
    });
    (o.legend || []).forEach(function (l) { if (l.type === "scroll") out.problems.push(where + ": the legend is paged"); });
    var texts = [];
    ["xAxis", "yAxis"].forEach(function (k) { (o[k] || []).forEach(function (a) { texts.push(JSON.stringify(a.data || []), String(a.min), String(a.max), String(a.name || "")); }); });
    (o.tooltip || []).forEach(function (t) { if (typeof t.formatter === "string") texts.push(t.formatter); });
    var styles = {}, seen = {}, count = 0, written = null;
    try { written = JSON.parse(el.getAttribute("data-option") || "null"); } catch (e) {}
    (o.series || []).forEach(function (s, i) {
      texts.push(String(s.name || ""));
      if (s.evalbookRegion) {
        out.regions++;
        var want = written && written.series[i] ? String((written.series[i].itemStyle || {}).color).toLowerCase() : "";
        var got = String(chart.getVisual({ seriesIndex: i }, "color")).toLowerCase();
        if (written && got !== want) out.problems.push(where + ": region " + s.name + " drawn in " + got + ", its option says " + want);
        return;
      }
      (s.data || []).forEach(function (d) { if (d && typeof d === "object" && !Array.isArray(d)) texts.push(String(d.name || ""), JSON.stringify(d.value), JSON.stringify((d.label || {}).formatter || "")); else texts.push(JSON.stringify(d)); });
      if (s.label && typeof s.label.formatter === "string") texts.push(s.label.formatter);
      if (!styled[s.type] || !s.name) return;
      // a band is two stacked series whose edges are not drawn: its
      // identity is its line's, read from that series
      if (s.stack && (s.lineStyle || {}).opacity === 0) return;
      count++;
      var colour = chart.getVisual({ seriesIndex: i }, "color");
      if (typeof colour !== "string") return;
      var l = lum(colour);
      if (l !== null && ratio(l, bg) < 3) out.problems.push(where + ": series " + s.name + " colour " + colour + " has contrast " + ratio(l, bg).toFixed(2) + ":1 with the background");
      var base = s.name.replace(/\s*\([^)]*\)\s*$/, ""), dash = (s.lineStyle || {}).type || "solid";
      var key = colour + "/" + dash + "/" + (s.symbol || "");
      if (s.type === "line" || s.type === "scatter") {
        if (seen[key] && seen[key] !== base) out.problems.push(where + ": " + seen[key] + " and " + base + " are drawn alike (" + key + ")");
        seen[key] = base;
      }
      styles[base] = colour; // the name's identity on the site
    });
    if (count >= 2) out.styles.push(styles);
    texts.join(" ").replace(/-?\d+\.\d+(?:e[-+]?\d+)?/gi, function (num) {
      var digits = num.replace(/^-/, "").split(/e/i)[0].replace(".", "").replace(/^0+/, "");
      if (digits.length > 6) out.problems.push(where + ": " + num + " has " + digits.length + " significant digits");
      return num;
    });
  });
  return out;
})()`

// colourMap checks that a series name keeps one colour over every chart
// the tests read (the site's colour map).
type colourMap struct {
	mu            sync.Mutex
	colour, where map[string]string
	regions       int // opaque regions read, in their option's colours
}

func newColourMap() *colourMap {
	return &colourMap{colour: map[string]string{}, where: map[string]string{}}
}

// checkCharts switches on the page's opt-in charts, waits until every
// chart is drawn and reads them all (chartsJS): names on category axes,
// no more than 6 significant digits, no paged legend, every series 3:1
// against the background, no two series of a chart drawn alike, and each
// name in the colour it has on the other pages (cm). It returns the
// number of charts read.
func (b *browser) checkCharts(t *testing.T, where string, cm *colourMap) int {
	t.Helper()
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(`document.querySelectorAll("button.show-chart").forEach(function (b) { b.click(); }); true`, nil)); err != nil {
		t.Fatal(err)
	}
	want, drawn, _ := b.chartState(t)
	if drawn != want {
		t.Errorf("%s: %d of %d charts drawn", where, drawn, want)
	}
	var r chartReport
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(chartsJS, &r)); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	for _, prob := range r.Problems {
		t.Errorf("%s: %s", where, prob)
	}
	cm.mu.Lock()
	defer cm.mu.Unlock()
	cm.regions += r.Regions
	for _, styles := range r.Styles {
		for series, colour := range styles {
			if prev, ok := cm.colour[series]; ok && prev != colour {
				t.Errorf("%s: %s is drawn %s, but %s on %s", where, series, colour, prev, cm.where[series])
			}
			cm.colour[series], cm.where[series] = colour, where
		}
	}
	return r.Charts
}

// darkTab sets a tab up for the dark theme at 1,400 px: the reader's
// stored choice (as the theme toggle stores it, in the tab's own
// storage), and reduced motion (site.js then draws the charts without
// animation, so their pixels are final once painted).
func darkTab(t *testing.T, first string) func(*browser) {
	return func(b *browser) {
		if err := chromedp.Run(b.ctx, chromedp.EmulateViewport(1400, 900),
			emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}})); err != nil {
			t.Fatal(err)
		}
		b.loadInTheme(t, first, "dark")
	}
}

// TestDarkPixelTestCatchesDarkMarks plants the fault the pixel test is
// for: one series of the leaderboard's chart redrawn in #222222 after
// the page drew it (past site.js's own adjustment), nearly invisible on
// the dark background. seriesPixelContrast must name that series, and
// only it.
func TestDarkPixelTestCatchesDarkMarks(t *testing.T) {
	t.Parallel()
	site := demoSite(t)
	page := "file://" + filepath.Join(site, "leaderboard.html")
	pool := newTabPool(t, 1, darkTab(t, page))
	b := <-pool
	b.chartState(t)
	if problems, read := b.seriesPixelContrast(t, "leaderboard.html (dark)"); len(problems) > 0 || read < 5 {
		t.Fatalf("before the fault: %d series read, problems %q", read, problems)
	}
	var name string
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(`(function () {
  var chart = echarts.getInstanceByDom(document.querySelector(".echart"));
  chart.setOption({ series: [{ lineStyle: { color: "#222222" }, itemStyle: { color: "#222222" } }] });
  return chart.getOption().series[0].name;
})()`, &name)); err != nil {
		t.Fatal(err)
	}
	problems, _ := b.seriesPixelContrast(t, "leaderboard.html (dark, planted)")
	if len(problems) != 1 || !strings.Contains(problems[0], "series 0 "+strconv.Quote(name)) || !strings.Contains(problems[0], "#222222") {
		t.Errorf("a series drawn #222222 on the dark background: the pixel test reports %q", problems)
	}
	pool <- b
	pool.report(t)
}

// TestDemoCaptionsTrueInDark: the dark theme turns the lightness of a
// static figure around (black lines read light, a white region dark),
// so a caption that names an achromatic colour or a lightness ("thick
// black lines", "white", "darker blue") is true in both themes only of
// a figure shown as drawn there (class keep-colours: heatmaps, the
// contour funnel's regions). The demo has such captions, and figures
// that keep their colours.
func TestDemoCaptionsTrueInDark(t *testing.T) {
	t.Parallel()
	colour := regexp.MustCompile(`(?i)\b(black|white|gr[ae]y|darker|lighter)\b`)
	figure := regexp.MustCompile(`(?s)<figure class="figure"[^>]*>(.*?)</figure>`)
	named, kept := 0, 0
	for name, page := range demoPages(t) {
		for _, m := range figure.FindAllStringSubmatch(page, -1) {
			caption := m[1][strings.Index(m[1], "<figcaption>"):]
			keeps := strings.Contains(m[1], "keep-colours")
			if keeps {
				kept++
			}
			if w := colour.FindString(caption); w != "" {
				named++
				if !keeps {
					t.Errorf("%s: a caption names %q of a figure the dark theme inverts: %.160s", name, w, caption)
				}
			}
		}
	}
	if named == 0 || kept == 0 {
		t.Errorf("%d captions name a colour, %d figures keep theirs: the demo has both (heatmaps, a contour funnel)", named, kept)
	}
}

// TestDemoCaptionsTrueOfBoth: no caption apologises for a difference
// between the static and the interactive figure.
func TestDemoCaptionsTrueOfBoth(t *testing.T) {
	t.Parallel()
	apology := regexp.MustCompile(`(?i)in the interactive (chart|version)|interactive chart (shows|draws)|static (figure|svg) (shows|only)`)
	for name, page := range demoPages(t) {
		for _, m := range regexp.MustCompile(`(?s)<figcaption>(.*?)</figcaption>`).FindAllStringSubmatch(page, -1) {
			if apology.MatchString(m[1]) {
				t.Errorf("%s: caption %s", name, fmt.Sprint(m[1][:min(len(m[1]), 200)]))
			}
		}
	}
}
