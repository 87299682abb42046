package report

import (
	"regexp"
	"strings"
	"testing"
)

// TestCompactLeaderboard: the leaderboard's main table shows one column
// per rule, headed by its label, whose cell is the method's rank (its
// sort key: a rank column sorts by what it shows) with the score as its
// tooltip; the CSV keeps every score and rank column (issue 20).
func TestCompactLeaderboard(t *testing.T) {
	t.Parallel()
	dir, _, table := tieLeaderboard(t)
	var heads []string
	for _, h := range headerRe.FindAllStringSubmatch(table, -1) {
		heads = append(heads, h[2])
	}
	if got := strings.Join(heads, "|"); got != "Method|Mean|Mean rank" {
		t.Errorf("headers %q, want Method|Mean|Mean rank (one column per rule, no rank columns)", got)
	}
	// D is last under both rules: rank 4, its mean 0.05 as the tooltip
	d := regexp.MustCompile(`(?s)<tr><td>D</td>(.*?)</tr>`).FindStringSubmatch(table)
	if d == nil || !strings.Contains(d[1], `title="score 0.05`) || !strings.Contains(d[1], `data-v="4"`) || !strings.Contains(d[1], `>4</td>`) {
		t.Errorf("row D: %v", d)
	}
	if !strings.Contains(table, "hover a rank for its score") {
		t.Error("the caption does not say the cells are ranks")
	}
	csv := readFile(t, dir, "data/lb.csv")
	if head := csv[:strings.Index(csv, "\n")]; head != "method,mean,mean_rule_rank,mean_rank,mean_rank_rank" {
		t.Errorf("CSV header %q: the wide table must stay in the CSV", head)
	}
}

// tieStudy has three methods whose mean ndcg is the same number computed
// in different orders (0.1+0.2+0.3 against 0.3+0.2+0.1: the sums differ
// in the 17th digit) and a fourth that is worse.
var tieStudy = studyFixture("tie")

// TestTiedBestAllBold: the three tied means are all marked tied for the
// best on the page (analyses.Tied, relative 1e-9), and none is bold: a
// tie is no win; the worse one is not marked.
// The parameters read as the manifest wrote them, comments dropped, and
// defaults are marked.
func TestTiedBestAllBold(t *testing.T) {
	t.Parallel()
	_, page, table := tieLeaderboard(t)
	col := -1
	// the column of rule mean: its label ("Mean") shows
	for i, h := range headerRe.FindAllStringSubmatch(table, -1) {
		if h[2] == "Mean" {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("no mean column in %s", table)
	}
	values := map[string]string{}
	bold, tied := map[string]bool{}, map[string]bool{}
	for _, row := range regexp.MustCompile(`(?s)<tr><td>([A-D])</td>(.*?)</tr>`).FindAllStringSubmatch(table, -1) {
		cells := regexp.MustCompile(`<td([^>]*)>`).FindAllStringSubmatch("<td>"+row[1]+"</td>"+row[2], -1)
		attrs := cells[col][1]
		values[row[1]] = regexp.MustCompile(`title="score ([^"]*)"`).FindStringSubmatch(attrs)[1]
		bold[row[1]] = strings.Contains(attrs, "best")
		tied[row[1]] = strings.Contains(attrs, "tied")
	}
	if values["A"] == values["B"] && values["B"] == values["C"] {
		t.Fatalf("the means are identical (%v): the study no longer has float noise to tie", values)
	}
	for _, m := range []string{"A", "B", "C"} {
		if !tied[m] || bold[m] {
			t.Errorf("%s (mean %s) is tied for best: marked tied %v, bold %v", m, values[m], tied[m], bold[m])
		}
	}
	if bold["D"] || tied["D"] {
		t.Errorf("D (mean %s) is marked", values["D"])
	}
	params := page[strings.Index(page, `id="sec-parameters"`):]
	if !strings.Contains(params, "<th scope=\"row\"><code>rules</code></th><td><pre><code>[\n  &#34;mean&#34;,\n  &#34;mean_rank&#34;,\n]</code></pre>") {
		t.Errorf("rules not as written:\n%s", params)
	}
	if strings.Contains(params, "rule under test") {
		t.Error("a manifest comment is shown as a parameter")
	}
	if !strings.Contains(params, `<th scope="row"><code>metric</code></th><td><code>&#34;ndcg&#34;</code></td>`) {
		t.Errorf("metric not as written:\n%s", params)
	}
	if !regexp.MustCompile(`</code> <span class="default">\(default\)</span>`).MatchString(params) {
		t.Errorf("no default is marked:\n%s", params)
	}
}

// TestNumericHeadersAlignRight: a column of numbers is right-aligned,
// and so is its header (it stood at the left edge, away from the
// numbers under it); a text column's header stays left.
func TestNumericHeadersAlignRight(t *testing.T) {
	t.Parallel()
	_, _, table := tieLeaderboard(t)
	heads := headerRe.FindAllStringSubmatch(table, -1)
	if len(heads) < 3 {
		t.Fatalf("%d headers in %s", len(heads), table)
	}
	for i, h := range heads {
		if num := strings.Contains(h[1], `class="num"`); num != (i > 0) {
			t.Errorf("header %q: class num %v, want %v (the method column is text, the rules' ranks numbers)", h[2], num, i > 0)
		}
	}
}

// headerRe is a column header of a page's table: its attributes and its
// label.
var headerRe = regexp.MustCompile(`<th scope="col"([^>]*)>([^<]*)</th>`)

// tieLeaderboard builds tieStudy: its site, its leaderboard page and
// that page's main table.
func tieLeaderboard(t *testing.T) (dir, page, table string) {
	t.Helper()
	dir = mustBuild(t, tieStudy)
	page = readFile(t, dir, "lb.html")
	table = page[strings.Index(page, `<table class="data`):]
	return dir, page, table[:strings.Index(table, "</table>")]
}
