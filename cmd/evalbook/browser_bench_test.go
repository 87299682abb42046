package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// BenchmarkPageWeight prints the weight of every page of the demo with
// everything it loads, in bytes as written and gzipped (what
// TestDemoPageWeight holds to its budgets); `make bench-pages` runs it.
func BenchmarkPageWeight(b *testing.B) {
	requireChartAsset(b)
	site := demoSite(b)
	var ws []pageWeight
	for i := 0; i < b.N; i++ {
		ws = demoPageWeights(b, site)
	}
	if b.N == 1 { // the first of the runs -benchtime asks for: print once
		b.Logf("the demo's pages, heaviest first:\n%s", weightTable(ws))
	}
}

// BenchmarkPageFirstRender opens the demo's stability page (six charts,
// three of them large) in headless Chromium from file:// and reports, as
// the browser measured them: first-contentful-paint (the page's first
// render), DOMContentLoaded, and the moment the last chart was drawn
// (site.js marks it). `make bench-pages` prints them; nothing is asserted
// (machines are shared and noisy).
func BenchmarkPageFirstRender(b *testing.B) {
	exe := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			exe = p
			break
		}
	}
	if exe == "" {
		b.Skip("chromium not found (make deps)")
	}
	site := demoSite(b)
	page := "file://" + filepath.Join(site, "stability.html")
	profile, err := os.MkdirTemp("", "evalbook-bench-chromium-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(profile)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true), chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel2 := chromedp.NewContext(actx)
	defer cancel2()
	if err := chromedp.Run(ctx, chromedp.Navigate("about:blank")); err != nil {
		b.Fatal(err)
	}
	type timing struct {
		FCP    float64 `json:"fcp"`
		DCL    float64 `json:"dcl"`
		Charts float64 `json:"charts"`
	}
	const timingJS = `(function () {
  var p = performance.getEntriesByName("first-contentful-paint")[0], c = performance.getEntriesByName("evalbook-charts-drawn")[0];
  var n = performance.getEntriesByType("navigation")[0];
  return { fcp: p ? p.startTime : -1, dcl: n ? n.domContentLoadedEventEnd : -1, charts: c ? c.startTime : -1 };
})()`
	var sum timing
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := chromedp.Run(ctx, chromedp.Navigate(page)); err != nil {
			b.Fatal(err)
		}
		var t timing
		deadline := time.Now().Add(60 * time.Second)
		for {
			if err := chromedp.Run(ctx, chromedp.Evaluate(timingJS, &t)); err != nil {
				b.Fatal(err)
			}
			if t.FCP >= 0 && t.Charts >= 0 {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("no first paint or charts after 60 s: %+v", t)
			}
			time.Sleep(20 * time.Millisecond)
		}
		sum.FCP += t.FCP
		sum.DCL += t.DCL
		sum.Charts += t.Charts
	}
	n := float64(b.N)
	b.ReportMetric(sum.FCP/n, "first-paint-ms")
	b.ReportMetric(sum.DCL/n, "dom-ready-ms")
	b.ReportMetric(sum.Charts/n, "all-charts-ms")
}
