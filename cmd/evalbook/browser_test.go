package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/evalbook/evalbook/report"
)

// chromiumPath finds Debian's chromium. In CI (CI=true) a missing browser
// is a failure, not a skip: .ci/run installs it.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found; CI must install it (make deps)")
	}
	t.Skip("chromium not found; install Debian's chromium (make deps) to run the browser test")
	return ""
}

// browser is a headless Chromium with the network switched off, recording
// everything a page must not do: a request that is not file:// or data:,
// a failed load, a console error or an uncaught exception.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	problems []string
	page     string
}

func newBrowser(t *testing.T) *browser {
	if testing.Short() {
		// make test runs everything once in full, then again with -race
		// -short: the browser checks the rendered site, not Go's
		// concurrency, and has run already.
		t.Skip("browser tests run without -short")
	}
	exe := chromiumPath(t)
	// The profile directory is removed by hand, after the browser has
	// stopped: t.TempDir's own cleanup can race Chromium's last writes.
	profile, err := os.MkdirTemp("", "evalbook-chromium-")
	if err != nil {
		t.Fatal(err)
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
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel2 := chromedp.NewContext(actx)
	ctx, cancel3 := context.WithTimeout(ctx, 240*time.Second)
	t.Cleanup(func() {
		cancel3()
		cancel2()
		cancel()
		for i := 0; i < 20 && os.RemoveAll(profile) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	b := &browser{ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			u := e.Request.URL
			if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
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
		network.EmulateNetworkConditions(true, 0, 0, 0)); err != nil {
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

// chartState counts chart elements and those drawn (a canvas inside), and
// figure images that failed to load.
func (b *browser) chartState(t *testing.T) (want, drawn, broken int) {
	err := chromedp.Run(b.ctx,
		chromedp.Sleep(250*time.Millisecond),
		chromedp.Evaluate(`Array.prototype.filter.call(document.querySelectorAll(".echart"), function (e) { return e.offsetParent !== null }).length`, &want),
		chromedp.Evaluate(`Array.prototype.filter.call(document.querySelectorAll(".echart"), function (e) { return e.offsetParent !== null && e.querySelector("canvas") }).length`, &drawn),
		chromedp.Evaluate(`Array.prototype.filter.call(document.images, function (i) { return i.offsetParent !== null && !(i.complete && i.naturalWidth > 0) }).length`, &broken),
	)
	if err != nil {
		t.Fatal(err)
	}
	return
}

// screenshot saves a PNG under dir (the test's temp directory, or
// $EVALBOOK_SCREENSHOTS to keep them).
func (b *browser) screenshot(t *testing.T, dir, name string) {
	var png []byte
	if err := chromedp.Run(b.ctx, chromedp.Sleep(200*time.Millisecond), chromedp.CaptureScreenshot(&png)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func builtDemo(t *testing.T, extra ...string) string {
	demo := generatedDemo(t)
	site := filepath.Join(t.TempDir(), "site")
	args := append([]string{"build", filepath.Join(demo, "study.toml"), "-o", site, "--quiet"}, extra...)
	if code, _, errOut := runCLI(args...); code != 0 {
		t.Fatalf("build: %s", errOut)
	}
	return site
}

// TestBrowserDemo opens every page of the built demo in headless Chromium
// from file:// with the network off and checks: no request leaves the site,
// no console error or exception, every interactive chart is drawn and every
// static figure loads; search finds a method's page; the theme toggle
// redraws the charts in other colours. It saves screenshots of the
// overview, a forest-plot page and a narrative page in both themes.
func TestBrowserDemo(t *testing.T) {
	b := newBrowser(t)
	site := builtDemo(t)
	if _, err := os.Stat(filepath.Join(site, "assets", "echarts.min.js")); err != nil {
		t.Fatal("the demo was built without ECharts: run `make assets` before testing (make test does)")
	}
	pages, _ := filepath.Glob(filepath.Join(site, "*.html"))
	sort.Strings(pages)
	if len(pages) < 4 {
		t.Fatalf("only %d pages", len(pages))
	}
	charts := 0
	for _, p := range pages {
		b.at(filepath.Base(p))
		if err := chromedp.Run(b.ctx, chromedp.Navigate("file://"+p), chromedp.WaitReady("body", chromedp.ByQuery)); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		want, drawn, broken := b.chartState(t)
		if drawn < want {
			t.Errorf("%s: %d of %d charts drawn", filepath.Base(p), drawn, want)
		}
		if broken > 0 {
			t.Errorf("%s: %d figure images did not load", filepath.Base(p), broken)
		}
		charts += want
	}
	if charts == 0 {
		t.Error("the demo has no interactive chart")
	}

	// Search finds the analysis pages of a method by its name.
	b.at("search")
	var first string
	err := chromedp.Run(b.ctx,
		chromedp.Navigate("file://"+filepath.Join(site, "index.html")),
		chromedp.WaitReady("#search", chromedp.ByQuery),
		chromedp.SendKeys("#search", "LightGCN", chromedp.ByQuery),
		chromedp.Sleep(200*time.Millisecond),
		chromedp.AttributeValue("#search-results li a", "href", &first, nil, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatal(err)
	}
	// The method entry links to the first analysis listing it: the leaderboard.
	if filepath.Base(first) != "leaderboard.html" {
		t.Errorf("search for a method name led to %q", first)
	}

	// The theme toggle re-draws charts in the dark theme: the pixels change.
	b.at("leaderboard.html")
	var before, after string
	var dark bool
	err = chromedp.Run(b.ctx,
		chromedp.Navigate("file://"+filepath.Join(site, "leaderboard.html")),
		chromedp.WaitReady(".echart canvas", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector(".echart canvas").toDataURL()`, &before),
		chromedp.Click("#theme-toggle", chromedp.ByQuery, chromedp.NodeVisible),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.Evaluate(`document.querySelector(".echart canvas").toDataURL()`, &after),
		chromedp.Evaluate(`document.documentElement.dataset.theme === "dark"`, &dark),
		chromedp.Click("#theme-toggle", chromedp.ByQuery, chromedp.NodeVisible),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !dark || before == after {
		t.Errorf("the theme toggle did not re-draw the chart (dark=%v, same pixels=%v)", dark, before == after)
	}

	// Screenshots in both themes.
	shots := t.TempDir()
	if d := os.Getenv("EVALBOOK_SCREENSHOTS"); d != "" {
		shots = d
		os.MkdirAll(d, 0o755)
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
			err := chromedp.Run(b.ctx,
				chromedp.Navigate("file://"+p),
				chromedp.WaitReady("body", chromedp.ByQuery),
				chromedp.Evaluate(fmt.Sprintf(`localStorage.setItem("evalbook-theme", %q); location.reload(); true`, theme), nil),
				chromedp.WaitReady("body", chromedp.ByQuery),
			)
			if err != nil {
				t.Fatal(err)
			}
			b.screenshot(t, shots, name+"-"+theme)
		}
	}
	t.Logf("%d pages, %d charts checked; screenshots in %s", len(pages), charts, shots)
	b.report(t)
}

// TestBrowserSingleFile opens the --single-file site from file:// with the
// network off and visits every section: no request but file:// and data:,
// no console error, every chart drawn and every figure loaded; search
// answers from the inlined index.
func TestBrowserSingleFile(t *testing.T) {
	b := newBrowser(t)
	site := builtDemo(t, "--single-file")
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
	charts := 0
	for _, id := range ids {
		b.at("#" + id)
		var visible string
		err := chromedp.Run(b.ctx,
			chromedp.Navigate(index+"#"+id),
			chromedp.WaitReady("body", chromedp.ByQuery),
			chromedp.Evaluate(`(document.querySelector(".sf-page:not([hidden])") || {}).id`, &visible),
		)
		if err != nil {
			t.Fatal(err)
		}
		if visible != id {
			t.Errorf("#%s shows section %q", id, visible)
		}
		want, drawn, broken := b.chartState(t)
		if drawn < want || broken > 0 {
			t.Errorf("#%s: %d of %d charts drawn, %d images broken", id, drawn, want, broken)
		}
		charts += want
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
	t.Logf("%d sections, %d charts", len(ids), charts)
	b.report(t)
}
