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

// browserProblems records everything a page must not do.
type browserProblems struct {
	mu   sync.Mutex
	list []string
}

func (b *browserProblems) add(format string, args ...any) {
	b.mu.Lock()
	b.list = append(b.list, fmt.Sprintf(format, args...))
	b.mu.Unlock()
}

// TestBrowserDemo opens every page of the built demo in headless Chromium
// from file:// and checks: no request leaves the site (every URL is
// file:// or data:), no console error or exception, and every interactive
// chart is drawn (a canvas inside each chart element, and the static SVG
// figures load).
func TestBrowserDemo(t *testing.T) {
	exe := chromiumPath(t)
	demo := generatedDemo(t)
	site := filepath.Join(t.TempDir(), "site")
	if code, _, errOut := runCLI("build", filepath.Join(demo, "study.toml"), "-o", site, "--quiet"); code != 0 {
		t.Fatalf("build: %s", errOut)
	}
	if _, err := os.Stat(filepath.Join(site, "assets", "echarts.min.js")); err != nil {
		t.Fatal("the demo was built without ECharts: run `make assets` before testing (make test does)")
	}
	pages, _ := filepath.Glob(filepath.Join(site, "*.html"))
	sort.Strings(pages)
	if len(pages) < 4 {
		t.Fatalf("only %d pages", len(pages))
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
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 120*time.Second)
	defer cancel()

	var problems browserProblems
	current := ""
	var curMu sync.Mutex
	page := func() string { curMu.Lock(); defer curMu.Unlock(); return current }
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			u := e.Request.URL
			if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
				problems.add("%s: network request to %s", page(), u)
			}
		case *network.EventLoadingFailed:
			problems.add("%s: failed to load a resource: %s", page(), e.ErrorText)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value))
				}
				problems.add("%s: console.%s %s", page(), e.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			problems.add("%s: exception %s", page(), e.ExceptionDetails.Error())
		case *log.EventEntryAdded:
			if e.Entry.Level == log.LevelError {
				problems.add("%s: %s", page(), e.Entry.Text)
			}
		}
	})
	if err := chromedp.Run(ctx, network.Enable(), runtime.Enable(), log.Enable()); err != nil {
		t.Fatal(err)
	}
	charts := 0
	for _, p := range pages {
		name := filepath.Base(p)
		curMu.Lock()
		current = name
		curMu.Unlock()
		var want, drawn, images, broken int
		err := chromedp.Run(ctx,
			chromedp.Navigate("file://"+p),
			chromedp.WaitReady("body", chromedp.ByQuery),
			chromedp.Sleep(300*time.Millisecond),
			chromedp.Evaluate(`document.querySelectorAll(".echart").length`, &want),
			chromedp.Evaluate(`document.querySelectorAll(".echart canvas").length`, &drawn),
			chromedp.Evaluate(`document.images.length`, &images),
			chromedp.Evaluate(`Array.prototype.filter.call(document.images, function (i) { return !(i.complete && i.naturalWidth > 0) }).length`, &broken),
		)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if drawn < want {
			t.Errorf("%s: %d of %d charts drawn", name, drawn, want)
		}
		if broken > 0 {
			t.Errorf("%s: %d of %d figure images did not load", name, broken, images)
		}
		charts += want
	}
	// The theme toggle redraws the charts in the dark theme.
	var dark bool
	err := chromedp.Run(ctx,
		chromedp.Navigate("file://"+filepath.Join(site, "leaderboard.html")),
		chromedp.WaitReady("body", chromedp.ByQuery),
		chromedp.Click("#theme-toggle", chromedp.ByQuery, chromedp.NodeVisible),
		chromedp.Sleep(200*time.Millisecond),
		chromedp.Evaluate(`document.documentElement.dataset.theme === "dark" && document.querySelectorAll(".echart canvas").length > 0`, &dark),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !dark {
		t.Error("the theme toggle did not switch to dark with charts drawn")
	}
	if charts == 0 {
		t.Error("the demo has no interactive chart")
	}
	for _, p := range problems.list {
		t.Error(p)
	}
	t.Logf("%d pages, %d charts checked", len(pages), charts)
}
