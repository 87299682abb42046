package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The dark-mode pixel test: every series of every chart, drawn alone,
// read back from the pixels the browser painted, against the background
// pixel the browser shows behind the chart.
//
// How the pixels are isolated: ECharts draws each series (and each
// marker: markLine, markPoint, markArea) as one group of elements of its
// own view. markSeriesJS hides every view of a chart (series, axes,
// legend, grid, markers), paints, and the test takes a screenshot of the
// chart's box: with nothing drawn, that is the background the reader's
// eye sees behind the marks (the charts are transparent over the page in
// the dark theme). Then each series' group alone is shown and painted,
// and its pixels are read from the chart's canvas (getImageData: the
// raster Chromium composites, before compositing). The series' colour is
// the colour (alpha included) most of its pixels have among its most
// opaque ones (the body of its line, bar or symbol, not the anti-aliased
// edges), composited over the background
// pixel as the compositor does (source-over); its WCAG contrast with that
// background must be at least 3:1 (WCAG 1.4.11, graphics). Heatmaps
// (colour scales), translucent bands shaded around a line (the line
// itself is read) and labels (text, not marks) are left out.

// pixelUnit is one series (or marker) of a chart as its pixels show it.
type pixelUnit struct {
	Name string `json:"name"`
	// Painted counts the pixels the unit painted (alpha > 0); Body those
	// of its dominant colour.
	Painted int `json:"painted"`
	Body    int `json:"body"`
	// RGBA is the dominant colour as the canvas holds it (not
	// premultiplied).
	RGBA [4]int `json:"rgba"`
}

// pixelChart is what markSeriesJS reads of one chart.
type pixelChart struct {
	Where string      `json:"where"`
	Rect  [4]float64  `json:"rect"` // the chart's box, in CSS pixels of the document
	Units []pixelUnit `json:"units"`
	// Bands counts the series left out: a line series whose line is not
	// drawn (opacity 0) and which fills an area (a translucent range
	// shaded around a line drawn by another series, which is read).
	Bands int `json:"bands"`
}

// hideChartsJS hides every view of every drawn, visible chart of the page
// and repaints it (the chart's box then shows the page behind it), and
// returns the charts' boxes in document coordinates.
const hideChartsJS = `(function () {
  var out = [];
  document.querySelectorAll(".echart").forEach(function (el, n) {
    var chart = window.echarts && window.echarts.getInstanceByDom(el);
    if (!chart || el.offsetParent === null) return;
    chart.getModel().eachComponent(function (mainType, m) {
      var v = mainType === "series" ? chart.getViewOfSeriesModel(m) : chart.getViewOfComponentModel(m);
      if (v && v.group) v.group.ignore = true;
    });
    chart.getZr().refreshImmediately();
    var r = el.getBoundingClientRect();
    out.push({ where: "chart " + n + " (" + (el.closest("figure") || el).id + ")",
      rect: [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height], units: [] });
  });
  return out;
})()`

// markSeriesJS shows each series and marker of every hidden chart alone,
// reads its pixels, and finally shows every view again.
const markSeriesJS = `(function () {
  var out = [];
  // The chart's pixels, its layers composited (source-over, not
  // premultiplied); one layer is read as it is.
  function pixels(el) {
    var layers = Array.prototype.filter.call(el.querySelectorAll("canvas"), function (c) { return c.width && c.height; });
    var w = layers[0].width, h = layers[0].height, acc = null;
    layers.forEach(function (c) {
      if (c.width !== w || c.height !== h) return;
      var d = c.getContext("2d").getImageData(0, 0, w, h).data;
      if (!acc) { acc = d; return; }
      var sum = new Uint8ClampedArray(d.length);
      for (var j = 0; j < d.length; j += 4) {
        var a = d[j + 3] / 255, b = acc[j + 3] / 255, o = a + b * (1 - a);
        for (var k = 0; k < 3; k++) sum[j + k] = o ? (d[j + k] * a + acc[j + k] * b * (1 - a)) / o : 0;
        sum[j + 3] = o * 255;
      }
      acc = sum;
    });
    return acc;
  }
  document.querySelectorAll(".echart").forEach(function (el, n) {
    var chart = window.echarts && window.echarts.getInstanceByDom(el);
    if (!chart || el.offsetParent === null) return;
    var zr = chart.getZr(), units = [], views = [], bands = 0;
    chart.getModel().eachComponent(function (mainType, m) {
      var v = mainType === "series" ? chart.getViewOfSeriesModel(m) : chart.getViewOfComponentModel(m);
      if (!v || !v.group) return;
      views.push(v);
      if (mainType === "series") {
        if (m.subType === "heatmap") return; // its colours are a scale (visualMap), not an identity
        if (m.subType === "line" && m.get("areaStyle") && m.get(["lineStyle", "opacity"]) === 0) { bands++; return; } // a shaded range around a drawn line
        units.push({ name: "series " + m.componentIndex + " " + JSON.stringify(m.name || ""), view: v });
      } else if (/^mark(Line|Point|Area)$/.test(mainType)) {
        units.push({ name: mainType + " " + m.componentIndex, view: v });
      }
    });
    var res = [];
    units.forEach(function (u) {
      views.forEach(function (v) { v.group.ignore = v !== u.view; });
      // Its labels are text, not the mark: hidden while it is read.
      var texts = [];
      u.view.group.traverse(function (e) {
        if (e.type === "text") texts.push(e);
        var label = e.getTextContent && e.getTextContent();
        if (label) texts.push(label);
      });
      var was = texts.map(function (e) { var w = e.ignore; e.ignore = true; return w; });
      zr.refreshImmediately();
      var px = pixels(el), count = new Map(), painted = 0, top = 0, best = -1, bestN = 0;
      for (var i = 3; i < px.length; i += 4) if (px[i]) { painted++; if (px[i] > top) top = px[i]; }
      // The body of the mark: the commonest colour (alpha included) among
      // its most opaque pixels (at least 90% of the top alpha): the
      // anti-aliased edges of a line are left out.
      for (var j = 0; j < px.length; j += 4) {
        var a = px[j + 3];
        if (!a || a < 0.9 * top) continue;
        var key = ((px[j] * 256 + px[j + 1]) * 256 + px[j + 2]) * 256 + a;
        var c = (count.get(key) || 0) + 1;
        count.set(key, c);
        if (c > bestN) { best = key; bestN = c; }
      }
      texts.forEach(function (e, k) { e.ignore = was[k]; });
      res.push({ name: u.name, painted: painted, body: bestN,
        rgba: best < 0 ? [0, 0, 0, 0] : [Math.floor(best / 16777216) % 256, Math.floor(best / 65536) % 256, Math.floor(best / 256) % 256, best % 256] });
    });
    views.forEach(function (v) { v.group.ignore = false; });
    zr.refreshImmediately();
    out.push({ where: "chart " + n + " (" + (el.closest("figure") || el).id + ")", units: res, bands: bands });
  });
  return out;
})()`

// relativeLuminance is WCAG 2's relative luminance of an sRGB colour.
func relativeLuminance(c [3]float64) float64 {
	var l [3]float64
	for i, v := range c {
		v /= 255
		if v <= 0.04045 {
			l[i] = v / 12.92
		} else {
			l[i] = math.Pow((v+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
}

// contrastRatio is WCAG 2's contrast ratio of two colours.
func contrastRatio(a, b [3]float64) float64 {
	x, y := relativeLuminance(a), relativeLuminance(b)
	return (math.Max(x, y) + 0.05) / (math.Min(x, y) + 0.05)
}

// dominantPixel is the colour most pixels of img have.
func dominantPixel(img image.Image) [3]float64 {
	count := map[[3]uint8]int{}
	var best [3]uint8
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			k := [3]uint8{uint8(cr >> 8), uint8(cg >> 8), uint8(cb >> 8)}
			count[k]++
			if count[k] > count[best] {
				best = k
			}
		}
	}
	return [3]float64{float64(best[0]), float64(best[1]), float64(best[2])}
}

// seriesPixelContrast reads every series of every drawn chart of the page
// in the tab (see the comment at the top of this file) and returns one
// problem for each series whose colour, as painted, has less than 3:1
// contrast with the background painted behind it, and the number of
// series read.
func (b *browser) seriesPixelContrast(t *testing.T, where string) (problems []string, read int) {
	t.Helper()
	var charts []pixelChart
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(hideChartsJS, &charts)); err != nil {
		t.Fatalf("%s: hiding the charts' marks: %v", where, err)
	}
	if len(charts) == 0 {
		return nil, 0
	}
	backgrounds := make([][3]float64, len(charts))
	for i, c := range charts {
		// the middle of the chart's box (it is clear of the page's other
		// elements: the chart covers it), with nothing drawn. The page is
		// scrolled to put it in the middle of the viewport: a capture
		// beyond the viewport would resize the page for each chart, and
		// every chart would be laid out and drawn again (a third of the
		// pixel test's time).
		w, h := math.Min(c.Rect[2], 40), math.Min(c.Rect[3], 40)
		var shot []byte
		err := chromedp.Run(b.ctx, chromedp.ActionFunc(func(ctx context.Context) error {
			var err error
			scroll := fmt.Sprintf(`window.scrollTo(0, %f - window.innerHeight / 2); true`, c.Rect[1]+c.Rect[3]/2)
			if err := chromedp.Evaluate(scroll, nil).Do(ctx); err != nil {
				return err
			}
			shot, err = page.CaptureScreenshot().WithClip(&page.Viewport{
				X: c.Rect[0] + (c.Rect[2]-w)/2, Y: c.Rect[1] + (c.Rect[3]-h)/2, Width: w, Height: h, Scale: 1,
			}).Do(ctx)
			return err
		}))
		if err != nil {
			t.Fatalf("%s: screenshot of %s: %v", where, c.Where, err)
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatalf("%s: screenshot of %s: %v", where, c.Where, err)
		}
		backgrounds[i] = dominantPixel(img)
	}
	var marked []pixelChart
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(markSeriesJS, &marked)); err != nil {
		t.Fatalf("%s: reading the series' pixels: %v", where, err)
	}
	if len(marked) != len(charts) {
		t.Fatalf("%s: %d charts hidden, %d read", where, len(charts), len(marked))
	}
	for i, c := range marked {
		bg := backgrounds[i]
		for _, u := range c.Units {
			if u.Painted == 0 {
				continue // draws nothing here (a series that only carries a marker, say)
			}
			read++
			a := float64(u.RGBA[3]) / 255
			var seen [3]float64
			for k := range seen {
				seen[k] = math.Round(a*float64(u.RGBA[k]) + (1-a)*bg[k])
			}
			if r := contrastRatio(seen, bg); r < 3 {
				problems = append(problems, fmt.Sprintf("%s: %s %s: %s as painted (%s at alpha %d, %d of its %d pixels) has contrast %.2f:1 with the background %s",
					where, c.Where, u.Name, hexColour(seen), hexColour([3]float64{float64(u.RGBA[0]), float64(u.RGBA[1]), float64(u.RGBA[2])}), u.RGBA[3], u.Body, u.Painted, r, hexColour(bg)))
			}
		}
	}
	return problems, read
}

func hexColour(c [3]float64) string {
	return fmt.Sprintf("#%02x%02x%02x", int(c[0]), int(c[1]), int(c[2]))
}
