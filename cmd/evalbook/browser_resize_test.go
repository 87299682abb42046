package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// slantJS lists, for every drawn chart of the page, whether each of its
// category axes writes its names slanted ("/") or level ("-").
const slantJS = `(function () {
  var out = [];
  document.querySelectorAll(".echart").forEach(function (el) {
    var chart = window.echarts && window.echarts.getInstanceByDom(el);
    if (!chart || el.offsetParent === null) return;
    var s = "";
    (chart.getOption().xAxis || []).forEach(function (a) {
      if (a.type === "category") s += a.axisLabel && a.axisLabel.rotate ? "/" : "-";
    });
    out.push(s);
  });
  return out.join(" ");
})()`

// TestBrowserResize: a chart laid out for the window's width is laid out
// again when the window changes: after a desktop window narrows to a
// phone's, its category names are level or slanted as a page opened on
// the phone writes them (names that fit level on the desktop slant where
// they no longer fit).
func TestBrowserResize(t *testing.T) {
	t.Parallel()
	site := demoSite(t)
	b := newBrowser(t)
	width := func(w int64) {
		if err := chromedp.Run(b.ctx, emulation.SetDeviceMetricsOverride(w, 900, 1, false)); err != nil {
			t.Fatal(err)
		}
	}
	// opened is the axes of page name opened at width w
	opened := func(name string, w int64) string {
		width(w)
		b.at(fmt.Sprintf("%s (opened at %d px)", name, w))
		b.loadInTheme(t, "file://"+filepath.Join(site, name+".html"), "light")
		b.chartState(t)
		var axes string
		if err := chromedp.Run(b.ctx, chromedp.Evaluate(slantJS, &axes)); err != nil {
			t.Fatal(err)
		}
		return axes
	}
	found := false
	for _, name := range []string{"dataset-selection", "leaderboard", "characteristics", "dataset-clusters", "submissions", "stability"} {
		var resized string
		phone, desktop := opened(name, 390), opened(name, 1280)
		if desktop == phone {
			continue // the same names either way: nothing to lay out again
		}
		found = true
		width(390)
		b.at(name + " (1280 px narrowed to 390)")
		b.until(t, "category names laid out again for 390 px", slantJS, &resized,
			func() bool { return resized == phone },
			func() string {
				return "axes " + resized + " after narrowing, " + phone + " when opened at 390 px, " + desktop + " at 1280"
			})
		break
	}
	if !found {
		t.Error("no demo page writes its category names differently at 390 and 1280 px: the resize is not checked")
	}
	b.report(t)
}
