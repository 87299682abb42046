package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/themes"
)

// The reader's-eye checks that need no browser: they read the demo's
// HTML as built, in both site forms.

var (
	idRe       = regexp.MustCompile(`\sid="([^"]+)"`)
	xrefRe     = regexp.MustCompile(`<a class="xref" href="([^"]*)">(Figure|Table) \d+</a>`)
	tableRe    = regexp.MustCompile(`(?s)<table class="data[^"]*">(.*?)</table>`)
	headRe     = regexp.MustCompile(`<th scope="col"(?: class="num")?(?: title="([^"]*)")?>([^<]*)</th>`)
	rowRe      = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRe     = regexp.MustCompile(`(?s)<td([^>]*)>(.*?)</td>`)
	tagRe      = regexp.MustCompile(`<[^>]+>`)
	optionRe   = regexp.MustCompile(`data-option="([^"]*)"`)
	longNumRe  = regexp.MustCompile(`-?\d+\.\d+(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+`)
	pColumnRe  = regexp.MustCompile(`(?i)^(p|p[_-].*|.*[_-]p)$`)
	elementAt  = regexp.MustCompile(`<([a-z0-9]+)[^>]*\sid="`)
	singleFile = regexp.MustCompile(`<section class="sf-page" id="([^"]+)"`)
)

// demoPages reads every page of the demo's multi-page site, by file name.
func demoPages(t *testing.T) map[string]string {
	t.Helper()
	site := demoSite(t)
	files, _ := filepath.Glob(filepath.Join(site, "*.html"))
	if len(files) < 10 {
		t.Fatalf("the demo has %d pages", len(files))
	}
	pages := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages[filepath.Base(f)] = string(b)
	}
	return pages
}

// duplicateIDs lists the ids used more than once in a page.
func duplicateIDs(page string) []string {
	seen := map[string]int{}
	for _, m := range idRe.FindAllStringSubmatch(page, -1) {
		seen[m[1]]++
	}
	var dups []string
	for id, n := range seen {
		if n > 1 {
			dups = append(dups, id)
		}
	}
	sort.Strings(dups)
	return dups
}

// elementWithID returns the tag name and the HTML from the element with
// id on (up to its end, roughly: the rest of the page).
func elementWithID(page, id string) (tag, rest string, ok bool) {
	i := strings.Index(page, ` id="`+id+`"`)
	if i < 0 {
		return "", "", false
	}
	start := strings.LastIndexByte(page[:i], '<')
	m := elementAt.FindStringSubmatch(page[start:])
	if m == nil {
		return "", "", false
	}
	return m[1], page[start:], true
}

// landsRight checks that an xref's target is an element of its kind: a
// <figure> for "Figure", an element holding a data table (before any
// other figure or table starts) for "Table".
func landsRight(t *testing.T, where, kind, page, id string) {
	t.Helper()
	tag, rest, ok := elementWithID(page, id)
	if !ok {
		t.Errorf("%s: %s reference to #%s: no element has that id", where, kind, id)
		return
	}
	switch kind {
	case "Figure":
		if tag != "figure" {
			t.Errorf("%s: Figure reference to #%s lands on a <%s>", where, id, tag)
		}
	case "Table":
		next := strings.Index(rest[1:], `<figure class="figure"`)
		tab := strings.Index(rest, `<table class="data`)
		if tab < 0 || (next >= 0 && next+1 < tab) {
			t.Errorf("%s: Table reference to #%s lands on a <%s> that holds no table", where, id, tag)
		}
	}
}

// TestDemoIDsAndReferences: on every page of the demo, in both site forms,
// no id is used twice, figures and tables have ids of their own kind
// (fig-…, tab-…), and every {{ref}} lands on an element of the kind it
// names: a figure for "Figure n", a table for "Table n".
func TestDemoIDsAndReferences(t *testing.T) {
	t.Parallel()
	pages := demoPages(t)
	refs := 0
	for name, page := range pages {
		if d := duplicateIDs(page); len(d) > 0 {
			t.Errorf("%s: ids used twice: %v", name, d)
		}
		for _, m := range regexp.MustCompile(`<figure class="figure" id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
			if !strings.HasPrefix(m[1], "fig-") {
				t.Errorf("%s: figure id %q is not fig-…", name, m[1])
			}
		}
		for _, m := range regexp.MustCompile(`<div class="table-wrap" id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
			if !strings.HasPrefix(m[1], "tab-") {
				t.Errorf("%s: table id %q is not tab-…", name, m[1])
			}
		}
		for _, m := range xrefRe.FindAllStringSubmatch(page, -1) {
			file, frag, _ := strings.Cut(html.UnescapeString(m[1]), "#")
			target, ok := pages[file]
			if !ok {
				t.Errorf("%s: reference to missing page %s", name, m[1])
				continue
			}
			landsRight(t, name, m[2], target, frag)
			refs++
		}
	}
	if refs < 3 {
		t.Errorf("the demo's pages hold %d references; want the findings page's three at least", refs)
	}

	// The single file: every page is a section of one document.
	site := singleFileSite(t)
	b, err := os.ReadFile(filepath.Join(site, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	single := string(b)
	if d := duplicateIDs(single); len(d) > 0 {
		t.Errorf("single file: ids used twice: %v", d[:min(len(d), 10)])
	}
	// every page but the Explore page, which the single file leaves out
	explorePages := 0
	if _, ok := pages["explore.html"]; ok {
		explorePages = 1
	}
	if n := len(singleFile.FindAllString(single, -1)); n != len(pages)-explorePages {
		t.Errorf("single file: %d sections for %d pages (%d Explore page)", n, len(pages), explorePages)
	}
	singleRefs := 0
	for _, m := range xrefRe.FindAllStringSubmatch(single, -1) {
		frag := strings.TrimPrefix(html.UnescapeString(m[1]), "#")
		if frag == html.UnescapeString(m[1]) {
			t.Errorf("single file: reference %q is not an in-page anchor", m[1])
			continue
		}
		// It lands in the analysis's own section, not on a copy
		// embedded in a narrative page.
		section, _, _ := strings.Cut(frag, "--")
		if !strings.HasPrefix(section, "p-") || strings.Contains(section, "findings") {
			t.Errorf("single file: reference #%s does not land on an analysis page's section", frag)
		}
		landsRight(t, "single file", m[2], single, frag)
		singleRefs++
	}
	if singleRefs != refs {
		t.Errorf("single file has %d references, the site %d", singleRefs, refs)
	}
}

// TestDemoNumbersForPeople reads every table and chart of the demo as a
// reader sees them: no p-value reads "0"; a column's numbers have the
// same decimals (aligned); a whole-number column has no decimals; every
// tied best value of a column is bold, never one of a tie alone; no
// parameter shows a Go struct (field names such as UniformSet); no
// literal backtick; and no number in a chart's option has more than six
// significant digits (float noise such as 0.6799999999999999 in an axis
// bound, 16 digits in a tooltip).
func TestDemoNumbersForPeople(t *testing.T) {
	t.Parallel()
	pages := demoPages(t)
	tables, pCells := 0, 0
	for name, page := range pages {
		visible := tagRe.ReplaceAllString(regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<pre.*?</pre>|<code>.*?</code>`).ReplaceAllString(page, ""), "")
		if strings.Contains(html.UnescapeString(visible), "`") {
			t.Errorf("%s: a literal backtick in the page's text", name)
		}
		if strings.Contains(page, "UniformSet") || strings.Contains(page, "PerObjective") {
			t.Errorf("%s: a Go struct under Parameters", name)
		}
		for _, tm := range tableRe.FindAllStringSubmatch(page, -1) {
			tables++
			heads := headRe.FindAllStringSubmatch(tm[1], -1)
			var rows [][][]string
			for _, rm := range rowRe.FindAllStringSubmatch(tm[1], -1) {
				if cells := cellRe.FindAllStringSubmatch(rm[1], -1); len(cells) == len(heads) {
					rows = append(rows, cells)
				}
			}
			if strings.Contains(tm[1], `title="quantity">`) {
				continue // named quantities, one format per row
			}
			for j, h := range heads {
				id := h[2]
				if h[1] != "" {
					id = h[1]
				}
				checkColumn(t, name, id, j, rows, &pCells)
			}
		}
		options := []string{}
		for _, om := range optionRe.FindAllStringSubmatch(page, -1) {
			options = append(options, html.UnescapeString(om[1]))
		}
		for _, src := range regexp.MustCompile(`data-option-src="([^"]*)"`).FindAllStringSubmatch(page, -1) {
			b, err := os.ReadFile(filepath.Join(demoSite(t), filepath.FromSlash(src[1])))
			if err != nil {
				t.Errorf("%s: chart option %s: %v", name, src[1], err)
				continue
			}
			options = append(options, string(b))
		}
		for _, option := range options {
			for _, num := range longNumRe.FindAllString(option, -1) {
				if sig := significant(num); sig > 6 {
					t.Errorf("%s: chart option number %s has %d significant digits", name, num, sig)
					break
				}
			}
		}
	}
	if tables < 20 || pCells < 50 {
		t.Errorf("read %d tables and %d p-values; the demo has more", tables, pCells)
	}
}

// marksRe is a cell's marks and count of defined values.
var marksRe = regexp.MustCompile(`<sup class="mark"[^>]*>[^<]*</sup>| <span class="count"[^>]*>[^<]*</span>`)

// checkColumn checks one column of a rendered table.
func checkColumn(t *testing.T, page, col string, j int, rows [][][]string, pCells *int) {
	t.Helper()
	decimals, mixed, fourDigits := -1, "", true
	type best struct {
		value float64
		bold  bool
	}
	var vals []best
	for _, cells := range rows {
		// the number as shown, without its marks (a tie's =, a
		// significance *) and a partial summary's count
		shown := marksRe.ReplaceAllString(cells[j][2], "")
		attrs, text := cells[j][1], html.UnescapeString(tagRe.ReplaceAllString(shown, ""))
		if !strings.Contains(attrs, `class="num`) {
			continue
		}
		full, err := strconv.ParseFloat(regexp.MustCompile(`data-v="([^"]*)"`).FindStringSubmatch(attrs)[1], 64)
		if err != nil {
			t.Fatalf("%s: %s: data-v: %v", page, col, err)
		}
		vals = append(vals, best{full, strings.Contains(attrs, "best")})
		if pColumnRe.MatchString(col) && full >= 0 && full <= 1 {
			*pCells++
			if f, err := strconv.ParseFloat(text, 64); err == nil && f == 0 {
				t.Errorf("%s: column %s: p-value %g shown as %q", page, col, full, text)
			}
			continue
		}
		if strings.ContainsAny(text, "e<") {
			continue // e-notation for a value the column's decimals would show as zero
		}
		d := 0
		if i := strings.IndexByte(text, '.'); i >= 0 {
			d = len(text) - i - 1
		}
		if decimals >= 0 && d != decimals && mixed == "" {
			mixed = fmt.Sprintf("mixes %d and %d decimals (%q)", decimals, d, text)
		}
		decimals = d
		fourDigits = fourDigits && significant(text) == 4
	}
	// one number of decimals, unless the rows are each on a scale of
	// their own: four significant digits in every cell
	if mixed != "" && !fourDigits {
		t.Errorf("%s: column %s %s", page, col, mixed)
		return
	}
	// Ties: a value tied with a bold one (relative 1e-9) is bold too.
	for _, a := range vals {
		if !a.bold {
			continue
		}
		for _, b := range vals {
			if !b.bold && math.Abs(a.value-b.value) <= 1e-9*math.Max(math.Abs(a.value), math.Abs(b.value)) {
				t.Errorf("%s: column %s: %v is bold, the tied %v is not", page, col, a.value, b.value)
				return
			}
		}
	}
}

// significant counts the significant digits of a decimal number's text.
func significant(num string) int {
	mant, _, _ := strings.Cut(strings.ToLower(strings.TrimPrefix(num, "-")), "e")
	digits := strings.TrimLeft(strings.ReplaceAll(mant, ".", ""), "0")
	if strings.Contains(mant, ".") {
		return len(digits)
	}
	return len(strings.TrimRight(digits, "0"))
}

// pageWeight is what opening one page of the site costs the reader: the
// page and every file it loads (scripts, images, the option scripts of
// its large charts), each counted once, in bytes as written and gzipped.
type pageWeight struct {
	page     string
	analysis bool // an analysis's page (its entry in the contents is current)
	files    int  // files loaded besides the page
	raw, gz  int64
}

// pageLoadRe finds what a page loads: scripts, images, stylesheets, and
// the option scripts of large charts (loaded when the chart is drawn).
var pageLoadRe = regexp.MustCompile(`<script src="([^"]+)"|<img[^>]*\ssrc="([^"]+)"|data-option-src="([^"]+)"|<link[^>]*\shref="([^"]+\.css)"`)

// gzipSize is the size of b gzipped at gzip's fastest level (the
// default of nginx's gzip module): an upper bound on what a server that
// compresses sends.
func gzipSize(b []byte) int64 {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	w.Write(b)
	w.Close()
	return int64(buf.Len())
}

// demoPageWeights weighs every page of the demo's multi-page site,
// heaviest (gzipped) first.
func demoPageWeights(t testing.TB, site string) []pageWeight {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(site, "*.html"))
	sizes := map[string][2]int64{}
	size := func(path string) ([2]int64, error) {
		if s, ok := sizes[path]; ok {
			return s, nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return [2]int64{}, err
		}
		sizes[path] = [2]int64{int64(len(b)), gzipSize(b)}
		return sizes[path], nil
	}
	var out []pageWeight
	for _, f := range files {
		s, err := size(f)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(f)
		page := string(b)
		name := filepath.Base(f)
		w := pageWeight{page: name, raw: s[0], gz: s[1],
			analysis: strings.Contains(page, `<li class="nav-analysis"><a href="`+name+`" aria-current="page">`)}
		seen := map[string]bool{}
		for _, m := range pageLoadRe.FindAllStringSubmatch(page, -1) {
			src := html.UnescapeString(m[1] + m[2] + m[3] + m[4])
			if seen[src] {
				continue
			}
			seen[src] = true
			s, err := size(filepath.Join(site, filepath.FromSlash(src)))
			if err != nil {
				t.Errorf("%s loads %s: %v", name, src, err)
				continue
			}
			w.files++
			w.raw += s[0]
			w.gz += s[1]
		}
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].gz > out[j].gz || out[i].gz == out[j].gz && out[i].page < out[j].page
	})
	return out
}

// weightTable prints the weights as a table.
func weightTable(ws []pageWeight) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-42s %-8s %5s %12s %12s\n", "page (with what it loads)", "kind", "files", "bytes", "gzip bytes")
	for _, w := range ws {
		kind := "page"
		if w.analysis {
			kind = "analysis"
		} else if w.page == "explore.html" {
			kind = "explore"
		}
		fmt.Fprintf(&b, "%-42s %-8s %5d %12d %12d\n", w.page, kind, w.files, w.raw, w.gz)
	}
	return b.String()
}

// analysisPageBudget is the most an analysis page may weigh with
// everything it loads, gzipped as a server sends it (issue 30).
const analysisPageBudget = 500 << 10

// explorePageBudget is the most the Explore page may weigh with
// everything it loads (its WebAssembly module, base64 of gzip), as
// written (issue 35).
const explorePageBudget = 3 << 20

// exploreAssets are the scripts only the Explore page loads.
var exploreAssets = []string{"assets/explore-wasm.js", "assets/explore.js"}

// TestDemoPageWeight: a page without a chart loads no ECharts and weighs
// at most 200 KB with everything it loads (HTML, scripts, images); a page
// with charts loads ECharts once; a page loads KaTeX if and only if it
// has math; a figure's static SVG, hidden while its chart is shown, is
// lazy (not fetched until shown). Every analysis page, with everything
// it loads (the chart library, KaTeX, its charts' option scripts and
// every static SVG, lazy or not), weighs at most 500 KB as a server
// sends it (gzip at its fastest level); the table of every page's weight
// is in the verbose log (make bench-pages prints it). The Explore page
// weighs at most 3 MB with what it loads, no other page loads its
// scripts or data, and every other page weighs what it weighs in a build
// without the Explore page but for the link to it
// (checkExploreWeighsNothingElse).
func TestDemoPageWeight(t *testing.T) {
	t.Parallel()
	requireChartAsset(t)
	site := demoSite(t)
	for name, page := range demoPages(t) {
		// the Explore page draws the CD diagram its module computes
		charts := strings.Contains(page, `class="echart"`) || name == "explore.html"
		echarts := strings.Count(page, `src="assets/echarts.min.js"`)
		switch {
		case charts && echarts != 1:
			t.Errorf("%s: has charts and loads ECharts %d times", name, echarts)
		case !charts && echarts != 0:
			t.Errorf("%s: has no chart but loads ECharts", name)
		}
		math := strings.Contains(page, `class="math`)
		katex := strings.Count(page, `src="assets/katex.min.js"`)
		switch {
		case math && katex != 1:
			t.Errorf("%s: has math and loads KaTeX %d times", name, katex)
		case !math && katex != 0:
			t.Errorf("%s: has no math but loads KaTeX", name)
		}
		for _, img := range regexp.MustCompile(`<img class="static with-chart"[^>]*>`).FindAllString(page, -1) {
			if !strings.Contains(img, `loading="lazy"`) {
				t.Errorf("%s: a hidden static figure is not lazy: %s", name, img)
			}
		}
	}
	weights := demoPageWeights(t, site)
	t.Logf("the demo's pages, heaviest first:\n%s", weightTable(weights))
	textOnly, analyses, explore := 0, 0, 0
	for _, w := range weights {
		page, err := os.ReadFile(filepath.Join(site, w.page))
		if err != nil {
			t.Fatal(err)
		}
		if w.analysis {
			analyses++
			if w.gz > analysisPageBudget {
				t.Errorf("%s: an analysis page weighs %d KB gzipped with what it loads (%d KB as written; at most %d KB gzipped)", w.page, w.gz>>10, w.raw>>10, analysisPageBudget>>10)
			}
		}
		if w.page == "explore.html" {
			explore++
			if w.raw > explorePageBudget {
				t.Errorf("%s weighs %d KB with what it loads (at most %d KB)", w.page, w.raw>>10, explorePageBudget>>10)
			}
			continue
		}
		for _, a := range exploreAssets {
			if strings.Contains(string(page), `src="`+a+`"`) {
				t.Errorf("%s loads %s, which only the Explore page may load", w.page, a)
			}
		}
		if strings.Contains(string(page), `id="explore-data"`) {
			t.Errorf("%s holds the Explore page's data", w.page)
		}
		if strings.Contains(string(page), `class="echart"`) {
			continue
		}
		textOnly++
		if w.raw > 200<<10 {
			t.Errorf("%s: a text-only page weighs %d KB with what it loads (at most 200 KB)", w.page, w.raw>>10)
		}
	}
	if textOnly < 3 || analyses < 10 {
		t.Errorf("only %d text-only pages and %d analysis pages in the demo", textOnly, analyses)
	}
	if len(themes.ExploreWasm()) > 0 && explore != 1 {
		t.Errorf("%d Explore pages in the demo, want 1", explore)
	}
	if explore == 1 {
		checkExploreWeighsNothingElse(t, weights, site)
	}
}

// TestDemoNoEqualsBound: a bound is written "p < 0.0001", never
// "p = < 0.0001", in captions, tooltips and findings.
func TestDemoNoEqualsBound(t *testing.T) {
	t.Parallel()
	for name, page := range demoPages(t) {
		// text and attributes (tooltips in chart options) hold "<" as &lt;
		if i := strings.Index(page, "= &lt;"); i >= 0 {
			t.Errorf("%s: %q", name, html.UnescapeString(page[max(0, i-60):i+16]))
		}
	}
}
