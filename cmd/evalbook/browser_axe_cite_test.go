package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// TestBrowserAxeCiteBoxes runs axe-core with all its rules on an analysis
// page with its "Cite in LaTeX" box open (TestBrowserAxe sees it folded,
// and axe skips what is hidden) and on the overview with "Cite this
// study", in both themes.
func TestBrowserAxeCiteBoxes(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	axe := axeSource(t)
	site := demoSite(t)
	if err := chromedp.Run(b.ctx, chromedp.Navigate("file://"+filepath.Join(site, "index.html"))); err != nil {
		t.Fatal(err)
	}
	for _, theme := range []string{"light", "dark"} {
		for _, name := range []string{"index.html", "meta-ease-vs-als-rmse.html"} {
			b.at(name + " (" + theme + ", boxes open)")
			b.loadInTheme(t, "file://"+filepath.Join(site, name), theme)
			b.chartState(t)
			var opened int
			var violations []string
			err := chromedp.Run(b.ctx,
				chromedp.Evaluate(`(function(){var n=0;document.querySelectorAll("details.cite-latex, section.cite").forEach(function(d){if(d.tagName==="DETAILS"){d.open=true};n++});return n})()`, &opened),
				chromedp.Evaluate(axe+";true", nil),
				chromedp.Evaluate(axeJS, &violations, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
			)
			if err != nil && err != context.Canceled {
				t.Fatalf("%s: axe: %v", name, err)
			}
			if opened != 1 {
				t.Errorf("%s: %d cite boxes, want 1", name, opened)
			}
			for _, v := range violations {
				t.Errorf("%s (%s, boxes open): %s", name, theme, v)
			}
		}
	}
	b.report(t)
}
