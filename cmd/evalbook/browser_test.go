package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/evalbook/evalbook/report"
)

// chromiumNames are the browsers the tests run, best first: Debian's
// chromium-headless-shell (the old headless mode: Blink and V8 without
// the browser's own UI, whose omnibox popups are WebUI pages of their
// own in the new headless mode; the browser tests take about a third
// less CPU), then Debian's chromium. .ci/run installs both. The shell is
// run as the binary itself: Debian's /usr/bin/chromium-headless-shell is
// a script that starts it without exec, and stopping the script would
// leave the browser running.
var chromiumNames = []string{"/usr/lib/chromium/chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"}

// findChromium returns the first of chromiumNames found, or "".
func findChromium() string {
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// chromiumPath finds Debian's chromium. In CI (CI=true) a missing browser
// is a failure, not a skip: .ci/run installs it.
func chromiumPath(t *testing.T) string {
	if p := findChromium(); p != "" {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found; CI must install it (make deps)")
	}
	t.Skip("chromium not found; install Debian's chromium (make deps) to run the browser test")
	return ""
}

// browser is a headless Chromium with the network switched off, recording
// everything a page must not do: a request that is not file://, data: or blob:,
// a failed load, a console error or an uncaught exception.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	problems []string
	page     string
	requests []string // every URL the pages asked for, in order
}

// sharedChromium is the one headless Chromium of the test binary: every
// browser test opens tabs in it (newBrowser), each tab in a browser
// context of its own (its own storage, so a theme stored by one test
// cannot reach another's page). Starting Chromium costs a second or more
// of CPU; TestMain stops it after the last test.
var sharedChromium struct {
	once    sync.Once
	ctx     context.Context // the browser's first tab, which keeps it running
	stop    func()
	profile string
	err     error
}

// chromiumContext starts the shared Chromium on first use and returns a
// context to open tabs from.
func chromiumContext(t *testing.T) context.Context {
	t.Helper()
	chromiumPath(t) // skips (fails in CI) without a Chromium
	startChromium()
	c := &sharedChromium
	if c.err != nil {
		t.Fatalf("starting chromium: %v", c.err)
	}
	return c.ctx
}

// startChromium starts the shared Chromium once (TestMain may call it
// early, before a test needs it).
func startChromium() {
	c := &sharedChromium
	c.once.Do(func() {
		exe := findChromium()
		if exe == "" {
			c.err = fmt.Errorf("no chromium")
			return
		}
		// The profile directory is removed by hand, after the browser has
		// stopped: removing it while Chromium writes its last files races.
		c.profile, c.err = os.MkdirTemp("", "evalbook-chromium-")
		if c.err != nil {
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(exe),
			chromedp.Flag("headless", true),
			chromedp.Flag("no-sandbox", true),
			chromedp.Flag("disable-gpu", true),
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("no-first-run", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.UserDataDir(c.profile),
			chromedp.WindowSize(1280, 900),
		)
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelBrowser := chromedp.NewContext(actx)
		c.ctx = ctx
		c.stop = func() {
			cancelBrowser()
			cancelAlloc()
			for i := 0; i < 20 && os.RemoveAll(c.profile) != nil; i++ {
				time.Sleep(100 * time.Millisecond)
			}
		}
		c.err = chromedp.Run(ctx) // starts the browser
	})
}

// stopChromium stops the shared Chromium, if a test started it.
func stopChromium() {
	sharedChromium.once.Do(func() {}) // waits for a start under way
	if sharedChromium.stop != nil {
		sharedChromium.stop()
	}
}

// newBrowser opens a tab of the shared Chromium, in a browser context of
// its own, at 1280×900, with the network switched off, recording what a
// page must not do (see browser). The tab closes when t ends.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	if testing.Short() {
		// make test runs everything once in full, then again with -race
		// -short: the browser checks the rendered site, not Go's
		// concurrency, and has run already.
		t.Skip("browser tests run without -short")
	}
	parent := chromiumContext(t)
	// A browser context and a tab in a window of its own (headless
	// Chromium opens no tab in a new context without one; chromedp's
	// WithNewBrowserContext asks for none).
	var browserContext cdp.BrowserContextID
	var tabID target.ID
	if err := chromedp.Run(parent, chromedp.ActionFunc(func(ctx context.Context) error {
		exec := cdp.WithExecutor(ctx, chromedp.FromContext(ctx).Browser)
		var err error
		if browserContext, err = target.CreateBrowserContext().WithDisposeOnDetach(true).Do(exec); err != nil {
			return err
		}
		tabID, err = target.CreateTarget("about:blank").WithBrowserContextID(browserContext).WithNewWindow(true).Do(exec)
		return err
	})); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	tab, closeTab := chromedp.NewContext(parent, chromedp.WithTargetID(tabID))
	// No deadline of its own: a state that never comes fails after
	// waitLimit (until), and go test's -timeout stops a hung browser; a
	// deadline on the whole tab would fail a slow (shared) machine.
	ctx := tab
	t.Cleanup(func() {
		closeTab()
		chromedp.Run(parent, chromedp.ActionFunc(func(ctx context.Context) error {
			return target.DisposeBrowserContext(browserContext).Do(cdp.WithExecutor(ctx, chromedp.FromContext(ctx).Browser))
		}))
	})
	b := &browser{ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			u := e.Request.URL
			b.mu.Lock()
			b.requests = append(b.requests, u)
			b.mu.Unlock()
			// blob: is the page's own memory (the Explore page's workers)
			if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "blob:") {
				b.add("network request to %s", u)
			}
		case *network.EventLoadingFailed:
			b.add("failed to load a resource: %s", e.ErrorText)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value))
				}
				b.add("console.%s %s", e.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			b.add("exception %s", e.ExceptionDetails.Error())
		case *log.EventEntryAdded:
			if e.Entry.Level == log.LevelError {
				b.add("%s", e.Entry.Text)
			}
		}
	})
	// The network is off: the site must need none of it.
	if err := chromedp.Run(ctx, network.Enable(), runtime.Enable(), log.Enable(),
		network.EmulateNetworkConditions(true, 0, 0, 0), chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *browser) add(format string, args ...any) {
	b.mu.Lock()
	b.problems = append(b.problems, b.page+": "+fmt.Sprintf(format, args...))
	b.mu.Unlock()
}

func (b *browser) at(page string) {
	b.mu.Lock()
	b.page = page
	b.mu.Unlock()
}

func (b *browser) report(t *testing.T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Error(p)
	}
}

// pollEvery is how often the browser tests look at the page again while
// they wait for a state; waitLimit is how long before they give up. The
// limit only stops a hung page from hanging the test: a page reaches each
// state in well under a second.
const (
	pollEvery = 50 * time.Millisecond
	waitLimit = 60 * time.Second
)

// until evaluates the JavaScript expression js (into res) every pollEvery
// until ok() holds, or fails the test after waitLimit saying what it
// waited for and what it saw last (describe).
func (b *browser) until(t *testing.T, what, js string, res any, ok func() bool, describe func() string) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		if err := chromedp.Run(b.ctx, chromedp.Evaluate(js, res)); err != nil {
			t.Fatalf("%s: waiting for %s: %v", b.page, what, err)
		}
		if ok() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no %s after %v: %s", b.page, what, waitLimit, describe())
		}
		time.Sleep(pollEvery)
	}
}

// pageState is what chartState reads from the page: visible chart
// elements, those painted (a canvas with a pixel on it), visible images
// and those that finished loading, well or not.
type pageState struct {
	Ready    bool `json:"ready"`
	Charts   int  `json:"charts"`
	Painted  int  `json:"painted"`
	Images   int  `json:"images"`
	Complete int  `json:"complete"`
	Broken   int  `json:"broken"`
}

const pageStateJS = `(function () {
  function shown(e) { return e.offsetParent !== null; }
  var charts = Array.prototype.filter.call(document.querySelectorAll(".echart"), shown);
  var images = Array.prototype.filter.call(document.images, shown);
  var painted = charts.filter(function (e) {
    var c = e.querySelector("canvas");
    if (!c || !c.width || !c.height) return false;
    var small = document.createElement("canvas");
    small.width = small.height = 64;
    var ctx = small.getContext("2d");
    ctx.drawImage(c, 0, 0, 64, 64);
    var px = ctx.getImageData(0, 0, 64, 64).data;
    for (var i = 3; i < px.length; i += 4) if (px[i] !== 0) return true;
    return false;
  }).length;
  var complete = images.filter(function (i) { return i.complete; });
  // The Explore page makes its chart once its module has run: it is
  // ready when the module says so (or failed, which the tests report).
  var x = document.getElementById("explore");
  var explored = !x || x.dataset.state === "error" || x.dataset.state === "ready" && Number(x.dataset.draws || 0) > 0;
  return {
    ready: document.readyState === "complete" && explored,
    charts: charts.length, painted: painted,
    images: images.length, complete: complete.length,
    broken: complete.filter(function (i) { return !(i.naturalWidth > 0); }).length
  };
})()`

// chartState waits until the page has loaded (the Explore page: its
// module has drawn the view), every visible chart is painted and every
// visible image has finished loading, then counts chart elements, those
// drawn, and figure images that failed to load. A chart that never
// paints fails the test after waitLimit.
func (b *browser) chartState(t *testing.T) (want, drawn, broken int) {
	t.Helper()
	var s pageState
	b.until(t, "painted charts and loaded images", pageStateJS, &s,
		func() bool { return s.Ready && s.Painted == s.Charts && s.Complete == s.Images },
		func() string {
			return fmt.Sprintf("%d of %d charts painted, %d of %d images loaded", s.Painted, s.Charts, s.Complete, s.Images)
		})
	return s.Charts, s.Painted, s.Broken
}

// stillCanvas waits until the first chart's canvas is painted, has not
// changed for stillFor (its animation is over) and differs from not (when
// not is given), and returns its pixels as a data URL.
func (b *browser) stillCanvas(t *testing.T, what, not string) string {
	t.Helper()
	const stillFor = 300 * time.Millisecond
	var last, now string
	var since time.Time
	b.until(t, what, `(function () {
  var c = document.querySelector(".echart canvas");
  if (!c) return "";
  var blank = document.createElement("canvas");
  blank.width = c.width;
  blank.height = c.height;
  var u = c.toDataURL();
  return u === blank.toDataURL() ? "" : u;
})()`, &now, func() bool {
		if now != last || now == "" || now == not {
			last, since = now, time.Now()
			return false
		}
		return time.Since(since) >= stillFor
	}, func() string {
		switch {
		case now == "":
			return "no painted chart canvas"
		case now == not:
			return "the canvas kept its pixels"
		}
		return "the canvas kept changing"
	})
	return now
}

// theme waits until the page's theme is want ("dark" or "light").
func (b *browser) theme(t *testing.T, want string) {
	t.Helper()
	var got string
	b.until(t, want+" theme", `document.documentElement.dataset.theme || ""`, &got,
		func() bool { return got == want }, func() string { return fmt.Sprintf("the theme is %q", got) })
}

// toggleTheme presses the page's theme toggle, as a reader does, and
// waits until the page is in the theme want and its charts have been
// drawn again (site.js marks "evalbook-charts-drawn" when a drawing of
// all of them ends; a drawing the toggle started supersedes any before
// it, so a new mark after the click is the toggle's). A page without a
// chart loads no ECharts and draws nothing.
func (b *browser) toggleTheme(t *testing.T, want string) {
	t.Helper()
	var before int
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(`(function () {
  var n = window.echarts && document.querySelector(".echart") ? performance.getEntriesByName("evalbook-charts-drawn").length : -1;
  document.getElementById("theme-toggle").click();
  return n;
})()`, &before)); err != nil {
		t.Fatalf("%s: pressing the theme toggle: %v", b.page, err)
	}
	var s struct {
		Theme string `json:"theme"`
		Marks int    `json:"marks"`
	}
	b.until(t, "charts drawn again in the "+want+" theme", `({theme: document.documentElement.dataset.theme || "",
  marks: performance.getEntriesByName("evalbook-charts-drawn").length})`, &s,
		func() bool { return s.Theme == want && (before < 0 || s.Marks > before) },
		func() string {
			return fmt.Sprintf("the theme is %q, %d drawings ended since the toggle", s.Theme, s.Marks-before)
		})
}

// loadInTheme stores theme as the reader's choice, as the toggle does,
// and loads url until it opens in that theme. The choice reaches the next
// document through Chromium's storage, which under load has been seen to
// miss the first load after the write (one run in five): each look is a
// fresh load, as a reader's next page would be.
func (b *browser) loadInTheme(t *testing.T, url, theme string) {
	t.Helper()
	var protocol string
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(`location.protocol`, &protocol)); err != nil {
		t.Fatal(err)
	}
	if protocol != "file:" { // a new tab's about:blank has no storage of the site's
		if err := chromedp.Run(b.ctx, chromedp.Navigate(url)); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Run(b.ctx,
		chromedp.Evaluate(fmt.Sprintf(`localStorage.setItem("evalbook-theme", %q); true`, theme), nil),
		chromedp.Navigate(url),
	); err != nil {
		t.Fatal(err)
	}
	loads := 1
	var got string
	b.until(t, "page opened in the "+theme+" theme", `document.documentElement.dataset.theme || ""`, &got, func() bool {
		if got == theme {
			return true
		}
		loads++
		// Store the theme again before reloading: a setItem that ran
		// while the tab's previous page was still unloading can be lost
		// (seen once in a loop of make test at load 10: 39 reloads, the
		// theme never set), and only the page's own script reads it.
		if err := chromedp.Run(b.ctx,
			chromedp.Evaluate(fmt.Sprintf(`localStorage.setItem("evalbook-theme", %q); true`, theme), nil),
			chromedp.Reload(),
		); err != nil {
			t.Fatal(err)
		}
		return false
	}, func() string { return fmt.Sprintf("%d loads, the theme is %q", loads, got) })
	if loads > 1 {
		t.Logf("%s opened in the %s theme at load %d", url, theme, loads)
	}
}

// screenshot waits for the page's charts to be drawn and, when dir is
// not "" ($EVALBOOK_SHOTS, make shots), saves a PNG of the page there.
func (b *browser) screenshot(t *testing.T, dir, name string) {
	t.Helper()
	b.chartState(t)
	if dir == "" {
		return // no screenshots asked for
	}
	var png []byte
	if err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// tabPool holds tabs of the shared Chromium for parallel subtests: each
// subtest takes one, uses it alone and gives it back.
type tabPool chan *browser

// newTabPool opens n tabs for t, each set up by setup (a viewport, a
// stored theme).
func newTabPool(t *testing.T, n int, setup func(*browser)) tabPool {
	t.Helper()
	pool := make(tabPool, n)
	for i := 0; i < n; i++ {
		b := newBrowser(t)
		if setup != nil {
			setup(b)
		}
		pool <- b
	}
	return pool
}

// report reports every tab's problems (after its subtests).
func (p tabPool) report(t *testing.T) {
	t.Helper()
	for i := 0; i < cap(p); i++ {
		b := <-p
		b.report(t)
		p <- b
	}
}

// eachPage runs check on every page in a parallel subtest named after
// it, each with a tab of pool, and returns once all are done. The
// subtests share the test binary's parallel slots with the other tests.
func eachPage(t *testing.T, pool tabPool, pages []string, check func(t *testing.T, b *browser, page string)) {
	t.Helper()
	t.Run("pages", func(t *testing.T) {
		for _, p := range pages {
			t.Run(filepath.Base(p), func(t *testing.T) {
				t.Parallel()
				b := <-pool
				defer func() { pool <- b }()
				b.at(filepath.Base(p))
				check(t, b, p)
			})
		}
	})
}

// demoHTMLPages lists the demo's pages, sorted.
func demoHTMLPages(t *testing.T) []string {
	t.Helper()
	requireChartAsset(t) // skips without it (fails under CI)
	site := demoSite(t)
	if _, err := os.Stat(filepath.Join(site, "assets", "echarts.min.js")); err != nil {
		t.Fatal("the demo was built without ECharts: run `make assets` before testing (make test does)")
	}
	pages, _ := filepath.Glob(filepath.Join(site, "*.html"))
	sort.Strings(pages)
	if len(pages) < 10 {
		t.Fatalf("only %d pages", len(pages))
	}
	return pages
}

// TestBrowserDemo opens every page of the built demo in headless
// Chromium from file:// with the network off, at 1,400 px (a legend must
// not page there), and checks it in both themes. Each page is loaded
// with the dark theme stored, as a reader who chose it opens it: every
// interactive chart is drawn (the opt-in ones switched on) and read
// (checkCharts: every series 3:1 against the dark background by the
// colours ECharts holds, the site's colour map), every series as painted
// has 3:1 contrast with the background painted behind it
// (seriesPixelContrast) and axe-core's colour rules find no violation.
// Then the theme toggle switches the same page to the light theme, as a
// reader does: the charts are drawn again and read again, and axe-core
// with all its rules (axeAll) finds no violation. axe-core reads each
// page with every folded box open (the data behind the tables too), and
// each rendering of a long table's rows once (distinctRows: the rows
// alike in what it reads are one check). On every page: no request
// leaves the site, no console error or exception, every static figure
// loads. Then: search finds a
// method's page; the toggle changes a chart's pixels both ways. It saves
// screenshots of the overview, a forest-plot page and a narrative page in
// both themes. (TestBrowserPhone loads every page in the light theme.)
func TestBrowserDemo(t *testing.T) {
	t.Parallel()
	axe := axeSource(t)
	site := demoSite(t)
	pool := newTabPool(t, 2, func(b *browser) {
		b.preloadAxe(t, axe)
		darkTab(t, "file://"+filepath.Join(site, "index.html"))(b)
	})
	pages := demoHTMLPages(t)
	light, dark := newColourMap(), newColourMap()
	var mu sync.Mutex
	charts, read, series, rowsKept, rowsRemoved := 0, 0, 0, 0, 0
	eachPage(t, pool, pages, func(t *testing.T, b *browser, p string) {
		name := filepath.Base(p)
		b.loadInTheme(t, "file://"+p, "dark")
		if name == "explore.html" {
			exploreSettled(t, b) // its stability charts come last
		}
		want, drawn, broken := b.chartState(t)
		if drawn < want {
			t.Errorf("%s: %d of %d charts drawn", name, drawn, want)
		}
		if broken > 0 {
			t.Errorf("%s: %d figure images did not load", name, broken)
		}
		nDark := b.checkCharts(t, name+" (dark)", dark)
		if name == "explore.html" && nDark == 0 {
			t.Errorf("%s: no chart read (the module's view has its critical-difference diagram)", name)
		}
		problems, nSeries := b.seriesPixelContrast(t, name+" (dark)")
		for _, prob := range problems {
			t.Error(prob)
		}
		// every folded box open: axe-core skips what is hidden, and the
		// data behind the tables is read too
		if err := chromedp.Run(b.ctx, chromedp.Evaluate(`document.querySelectorAll("details").forEach(function (d) { d.open = true; }); true`, nil)); err != nil {
			t.Fatal(err)
		}
		kept, removed := b.distinctRows(t) // axe reads each rendering of a row once
		b.axe(t, axe, name+" (dark)", axeColours)

		b.toggleTheme(t, "light")
		nLight := b.checkCharts(t, name+" (light)", light)
		if nLight != nDark {
			t.Errorf("%s: %d charts read in the dark theme, %d after the toggle to light", name, nDark, nLight)
		}
		b.axe(t, axe, name+" (light)", axeAll)
		mu.Lock()
		charts += want
		read += nLight
		series += nSeries
		rowsKept += kept
		rowsRemoved += removed
		mu.Unlock()
	})
	if charts == 0 {
		t.Error("the demo has no interactive chart")
	}
	if read < 40 || series < 150 {
		t.Errorf("read %d charts and %d series by their pixels; the demo has more", read, series)
	}
	if light.regions < 12 || dark.regions < 12 {
		t.Errorf("read %d series of opaque regions in the light theme and %d in the dark; the demo's two contour-enhanced funnel plots have 12 (3 regions of two series each)", light.regions, dark.regions)
	}
	if rowsKept < 200 || rowsRemoved == 0 {
		t.Errorf("axe-core read %d table rows, %d left out as renderings read already", rowsKept, rowsRemoved)
	}
	t.Logf("%d pages, %d charts read in each theme, %d series by their pixels, %d names in the colour map; axe-core on every page in both themes (%d table rows, %d more of the same renderings left out)", len(pages), read, series, len(light.colour), rowsKept, rowsRemoved)
	b := <-pool
	if err := chromedp.Run(b.ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}

	// Search finds the analysis pages of a method by its name.
	b.at("search")
	err := chromedp.Run(b.ctx,
		chromedp.Navigate("file://"+filepath.Join(site, "index.html")),
		chromedp.WaitReady("#search", chromedp.ByQuery),
		chromedp.SendKeys("#search", "LightGCN", chromedp.ByQuery),
	)
	if err != nil {
		t.Fatal(err)
	}
	var first string
	b.until(t, "search result", `(document.querySelector("#search-results li a") || {}).href || ""`, &first,
		func() bool { return first != "" }, func() string { return "the result list is empty" })
	// The method entry links to the first analysis listing it: the leaderboard.
	if filepath.Base(first) != "leaderboard.html" {
		t.Errorf("search for a method name led to %q", first)
	}

	// The theme toggle re-draws charts in the dark theme: the pixels
	// change; toggled back, the chart is drawn again without an error.
	b.at("leaderboard.html")
	if err := chromedp.Run(b.ctx,
		chromedp.Navigate("file://"+filepath.Join(site, "leaderboard.html")),
		chromedp.WaitReady(".echart canvas", chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	before := b.stillCanvas(t, "drawn chart", "")
	if err := chromedp.Run(b.ctx, chromedp.Click("#theme-toggle", chromedp.ByQuery, chromedp.NodeVisible)); err != nil {
		t.Fatal(err)
	}
	b.theme(t, "dark")
	b.stillCanvas(t, "chart re-drawn in the dark theme", before)
	if err := chromedp.Run(b.ctx, chromedp.Click("#theme-toggle", chromedp.ByQuery, chromedp.NodeVisible)); err != nil {
		t.Fatal(err)
	}
	b.theme(t, "light")
	b.stillCanvas(t, "chart re-drawn in the light theme", "")

	// Both themes drawn (and, with $EVALBOOK_SHOTS, screenshots of them).
	shots := os.Getenv("EVALBOOK_SHOTS")
	if shots != "" {
		os.MkdirAll(shots, 0o755)
	}
	forest := ""
	for _, p := range pages {
		if body, _ := os.ReadFile(p); strings.Contains(string(body), `data-analysis-type="meta_analysis"`) {
			forest = p
			break
		}
	}
	targets := map[string]string{"overview": filepath.Join(site, "index.html"), "narrative": filepath.Join(site, "introduction.html")}
	if forest != "" {
		targets["forest"] = forest
	} else {
		t.Log("no meta_analysis page in the demo yet: no forest-plot screenshot")
	}
	for name, p := range targets {
		for _, theme := range []string{"light", "dark"} {
			b.at(name + "/" + theme)
			b.loadInTheme(t, "file://"+p, theme)
			b.screenshot(t, shots, name+"-"+theme)
		}
	}
	if shots != "" {
		t.Logf("screenshots in %s", shots)
	}
	pool <- b
	pool.report(t)
}

// TestBrowserSingleFile opens the --single-file site from file:// with the
// network off and visits every section: no request but file:// and data:,
// no console error, every chart drawn and every figure loaded; search
// answers from the inlined index.
func TestBrowserSingleFile(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	site := singleFileSite(t)
	entries, _ := os.ReadDir(site)
	if len(entries) == 2 && entries[0].Name() == report.SiteMarker { // marks the directory for the next build; not part of the site
		entries = entries[1:]
	}
	if len(entries) != 1 || entries[0].Name() != "index.html" {
		t.Fatalf("single-file site has %d files", len(entries))
	}
	index := "file://" + filepath.Join(site, "index.html")
	b.at("index.html")
	var ids []string
	err := chromedp.Run(b.ctx,
		chromedp.Navigate(index),
		chromedp.WaitReady("body", chromedp.ByQuery),
		chromedp.Evaluate(`Array.prototype.map.call(document.querySelectorAll(".sf-page"), function (s) { return s.id })`, &ids),
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) < 5 {
		t.Fatalf("only %d sections", len(ids))
	}
	// show opens section id by its hash; the section is shown on the
	// hashchange event, after the navigation.
	show := func(id string) {
		t.Helper()
		if err := chromedp.Run(b.ctx, chromedp.Navigate(index+"#"+id)); err != nil {
			t.Fatal(err)
		}
		var visible string
		b.until(t, "section #"+id+" shown", `(document.querySelector(".sf-page:not([hidden])") || {}).id || ""`, &visible,
			func() bool { return visible == id }, func() string { return fmt.Sprintf("the page shows section %q", visible) })
	}
	charts := 0
	var withCharts []string
	for _, id := range ids {
		b.at("#" + id)
		show(id)
		want, drawn, broken := b.chartState(t)
		if drawn < want || broken > 0 {
			t.Errorf("#%s: %d of %d charts drawn, %d images broken", id, drawn, want, broken)
		}

		charts += want
		if want > 0 {
			withCharts = append(withCharts, id)
		}
	}
	// Each chart element got one ECharts instance, kept while its section
	// was hidden and reused when it is shown again: none made twice, none
	// disposed (disposing one that is still painting throws in the next
	// frame).
	b.at("instances")
	const instancesJS = `(function () {
  var ids = [];
  document.querySelectorAll(".echart[data-option]").forEach(function (el) {
    var c = window.echarts.getInstanceByDom(el);
    ids.push(c && !c.isDisposed() ? c.id : "");
  });
  var listed = window.evalbookCharts();
  return { ids: ids, listed: listed.length, live: listed.filter(function (c) { return !c.isDisposed(); }).length };
})()`
	type instances struct {
		IDs    []string `json:"ids"`
		Listed int      `json:"listed"`
		Live   int      `json:"live"`
	}
	var first, again instances
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(instancesJS, &first)); err != nil {
		t.Fatal(err)
	}
	made := 0
	for _, id := range first.IDs {
		if id != "" {
			made++
		}
	}
	if made != charts || first.Listed != charts || first.Live != charts {
		t.Errorf("%d charts shown, %d elements with a live instance, %d instances listed, %d of them live", charts, made, first.Listed, first.Live)
	}
	// Four sections with charts shown again (each redraw is the same code).
	for _, id := range withCharts[:min(4, len(withCharts))] {
		b.at("#" + id + " again")
		show(id)
		b.chartState(t)
	}
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(instancesJS, &again)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(first.IDs, again.IDs) || again.Listed != first.Listed || again.Live != first.Live {
		t.Errorf("showing the sections again changed the chart instances: %+v, then %+v", first, again)
	}

	var hit string
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(`(window.evalbookSearch("EASE")[0] || {}).u`, &hit)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(hit, ".html") {
		t.Errorf("search in the single file found %q", hit)
	}
	if charts == 0 {
		t.Error("no chart in the single file")
	}
	// axe-core with every rule on the single file's own frame (its
	// navigation, its sections) in two views: the overview, and the
	// leaderboard's section with its chart. The pages' contents are the
	// multi-page site's, which TestBrowserDemo checks page by page. axe
	// reads the whole document, hidden parts too (the other sections:
	// seconds of work each time), so they are removed first.
	axe := axeSource(t)
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(`document.querySelectorAll(".sf-page").forEach(function (s) {
  if (s.id !== "p-index" && s.id !== "p-leaderboard") s.remove();
}); true`, nil)); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"p-index", "p-leaderboard"} {
		b.at("#" + id + " (axe)")
		show(id)
		b.chartState(t)
		b.axe(t, axe, "single file #"+id, axeAll)
	}
	t.Logf("%d sections, %d charts", len(ids), charts)
	b.report(t)
}
