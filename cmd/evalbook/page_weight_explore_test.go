package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/evalbook/evalbook/report"
	"github.com/evalbook/evalbook/report/site"
	"github.com/evalbook/evalbook/themes"
)

// exploreNavLink is the Explore page's entry in a page's navigation,
// the one thing the page adds to every other page.
var exploreNavLink = regexp.MustCompile(`<li class="nav-explore"><a href="explore.html">Explore</a></li>\n`)

// demoSiteWithoutExplore builds the demo as demoSite does, with the
// binary's chart library and KaTeX but without the Explore page's module,
// so without the Explore page, and returns the site.
func demoSiteWithoutExplore(t *testing.T) string {
	t.Helper()
	demoSite(t)
	manifest := filepath.Join(demoDir, "study.toml")
	out := filepath.Join(t.TempDir(), "site")
	assets := site.Assets{ECharts: themes.ECharts(), KaTeX: themes.KaTeX()}
	o := report.Options{Manifest: manifest, Out: out, Jobs: 8, Format: "both", Quiet: true, Version: toolVersion(),
		CacheDir: cacheDir(), Command: rebuildCommand(manifest, "both", false), Assets: &assets}
	if _, err := report.Build(context.Background(), o); err != nil {
		t.Fatalf("the demo without the Explore page: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "explore.html")); err == nil {
		t.Fatal("a build without the module has an Explore page")
	}
	return out
}

// checkExploreWeighsNothingElse: every page of the demo but the Explore
// page loads what it loads in a build without the Explore page, and
// weighs what it weighs there but for its navigation entry to the
// Explore page (the bytes of that link, ~80, and nothing else: its HTML
// without the link is byte for byte the same, and it loads the same
// files). The link is the navigation, not weight.
func checkExploreWeighsNothingElse(t *testing.T, with []pageWeight, siteWith string) {
	t.Helper()
	siteWithout := demoSiteWithoutExplore(t)
	without := map[string]pageWeight{}
	for _, w := range demoPageWeights(t, siteWithout) {
		without[w.page] = w
	}
	for _, w := range with {
		if w.page == "explore.html" {
			continue
		}
		wo, ok := without[w.page]
		if !ok {
			t.Errorf("%s: not in the build without the Explore page", w.page)
			continue
		}
		delete(without, w.page)
		page, err := os.ReadFile(filepath.Join(siteWith, w.page))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := os.ReadFile(filepath.Join(siteWithout, w.page))
		if err != nil {
			t.Fatal(err)
		}
		links := exploreNavLink.FindAll(page, -1)
		if len(links) != 1 {
			t.Errorf("%s: %d links to the Explore page, want 1", w.page, len(links))
			continue
		}
		if string(exploreNavLink.ReplaceAll(page, nil)) != string(plain) {
			t.Errorf("%s: differs from the build without the Explore page beyond the link to it", w.page)
		}
		if w.files != wo.files || w.raw != wo.raw+int64(len(links[0])) {
			t.Errorf("%s: %d files, %d bytes with what it loads; without the Explore page %d files, %d bytes (the link is %d bytes)",
				w.page, w.files, w.raw, wo.files, wo.raw, len(links[0]))
		}
	}
	for p := range without {
		t.Errorf("%s: only in the build without the Explore page", p)
	}
}
