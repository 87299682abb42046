package report

import (
	"math"
	"regexp"
	"strings"
	"testing"
)

// TestColumnFormats: a column's numbers share one format chosen from its
// values; the expected texts follow the rules in docs/READING.md.
func TestColumnFormats(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		vals []any
		want []string
	}{
		// ragged four-significant-digit columns become fixed decimals
		{"ndcg", []any{0.1197, 0.09429, 0.0868}, []string{"0.11970", "0.09429", "0.08680"}},
		// whole numbers as integers, whatever their Go type
		{"count", []any{3.0, 12.0, int64(7)}, []string{"3", "12", "7"}},
		// half ranks: the fewest decimals that write every value exactly
		{"mean_rank_rank", []any{1.0, 2.5, 2.5}, []string{"1.0", "2.5", "2.5"}},
		// a non-zero value the column's decimals would round to zero
		{"mean_diff", []any{0.5, 0.25, 1e-7}, []string{"0.5000", "0.2500", "1.0e-07"}},
		// p-values: never 0, a bound below float64's resolution
		{"p_holm", []any{0.0, 1e-300, 2e-16, 3.2e-7, 0.00081, 0.0345, 1.0}, []string{"< 1e-15", "< 1e-15", "< 1e-15", "3.2e-07", "8.1e-04", "0.0345", "1.0000"}},
		{"p", []any{0.5, 0.0}, []string{"0.5000", "< 1e-15"}},
		// big or tiny columns in e-notation, three significant digits
		{"seconds", []any{1234567.5, 2.25e7 + 0.25}, []string{"1.23e+06", "2.25e+07"}},
		{"users", []any{1.5e6, 2.25e7}, []string{"1500000", "22500000"}},
		{"variance", []any{1.5e-9, 2.25e-9}, []string{"1.50e-09", "2.25e-09"}},
		// a column named like a p-value but outside [0, 1] is no p-value
		{"t_p", []any{-2.5, 3.25}, []string{"-2.50", "3.25"}},
	} {
		f := chooseFormat(c.name, c.vals)
		for i, v := range c.vals {
			got := formatTableCell(v, f).Text
			if got != c.want[i] {
				t.Errorf("%s %v: %v shown as %q, want %q", c.name, c.vals, v, got, c.want[i])
			}
		}
	}
	if got := formatTableCell(math.NaN(), columnFormat{kind: colFixed, decimals: 2}).Text; got != "—" {
		t.Errorf("NaN shown as %q", got)
	}
}

// TestRoundChartOption: float noise and long digits leave chart options;
// integers, strings and key order of content stay.
func TestRoundChartOption(t *testing.T) {
	t.Parallel()
	option, err := decodeOption([]byte(`{"yAxis":{"min":0.6799999999999999,"max":1},"series":[{"name":"a<b","data":[[0.3522804456660098,1.4095823078410374],[12345678,1e-20]]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := encodeOption(option)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"series":[{"data":[[0.35228,1.40958],[12345678,1e-20]],"name":"a<b"}],"yAxis":{"max":1,"min":0.68}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, err := decodeOption([]byte(`{"a":`)); err == nil {
		t.Error("a broken option is not an error")
	}
}

// TestInlineCode: `spans` in notes become <code>, HTML is escaped and an
// unpaired backtick stays.
func TestInlineCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"counted in `undefined`": "counted in <code>undefined</code>",
		"a <b> `x` and ` alone":  "a &lt;b&gt; <code>x</code> and ` alone",
		"plain":                  "plain",
	} {
		if got := string(inlineCode(in)); got != want {
			t.Errorf("inlineCode(%q) = %q, want %q", in, got, want)
		}
	}
}

// tieStudy has three methods whose mean ndcg is the same number computed
// in different orders (0.1+0.2+0.3 against 0.3+0.2+0.1: the sums differ
// in the 17th digit) and a fourth that is worse.
const tieStudy = `-- study.toml --
title = "Ties"

[inputs]
results = "results.csv"

[[analyses]]
id     = "lb"
type   = "aggregate"
metric = "ndcg"
rules  = [
  "mean",      # the rule under test
  "mean_rank",
]
-- results.csv --
dataset,method,metric,value
d1,A,ndcg,0.1
d2,A,ndcg,0.2
d3,A,ndcg,0.3
d1,B,ndcg,0.3
d2,B,ndcg,0.2
d3,B,ndcg,0.1
d1,C,ndcg,0.2
d2,C,ndcg,0.1
d3,C,ndcg,0.3
d1,D,ndcg,0.05
d2,D,ndcg,0.05
d3,D,ndcg,0.05
`

// TestTiedBestAllBold: the three tied means are all marked best on the
// page (analyses.Tied, relative 1e-9), none alone; the worse one is not.
// The parameters read as the manifest wrote them, comments dropped, and
// defaults are marked.
func TestTiedBestAllBold(t *testing.T) {
	t.Parallel()
	dir := mustBuild(t, tieStudy)
	page := readFile(t, dir, "lb.html")
	table := page[strings.Index(page, `<table class="data`):]
	table = table[:strings.Index(table, "</table>")]
	col := -1
	// the column of rule mean: its label ("Mean") shows, its id is the title
	for i, h := range regexp.MustCompile(`<th scope="col"([^>]*)>([^<]*)</th>`).FindAllStringSubmatch(table, -1) {
		if h[2] == "mean" || strings.Contains(h[1], `title="mean"`) {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("no mean column in %s", table)
	}
	values := map[string]string{}
	bold := map[string]bool{}
	for _, row := range regexp.MustCompile(`(?s)<tr><td>([A-D])</td>(.*?)</tr>`).FindAllStringSubmatch(table, -1) {
		cells := regexp.MustCompile(`<td([^>]*)>`).FindAllStringSubmatch("<td>"+row[1]+"</td>"+row[2], -1)
		attrs := cells[col][1]
		values[row[1]] = regexp.MustCompile(`data-v="([^"]*)"`).FindStringSubmatch(attrs)[1]
		bold[row[1]] = strings.Contains(attrs, "best")
	}
	if values["A"] == values["B"] && values["B"] == values["C"] {
		t.Fatalf("the means are identical (%v): the study no longer has float noise to tie", values)
	}
	for _, m := range []string{"A", "B", "C"} {
		if !bold[m] {
			t.Errorf("%s (mean %s) is tied for best but not bold; bold: %v", m, values[m], bold)
		}
	}
	if bold["D"] {
		t.Errorf("D (mean %s) is bold", values["D"])
	}
	params := page[strings.Index(page, `id="sec-parameters"`):]
	if !strings.Contains(params, "<th scope=\"row\">rules</th><td><pre><code>[\n  &#34;mean&#34;,\n  &#34;mean_rank&#34;,\n]</code></pre>") {
		t.Errorf("rules not as written:\n%s", params)
	}
	if strings.Contains(params, "rule under test") {
		t.Error("a manifest comment is shown as a parameter")
	}
	if !strings.Contains(params, `<th scope="row">metric</th><td><code>&#34;ndcg&#34;</code></td>`) {
		t.Errorf("metric not as written:\n%s", params)
	}
	if !regexp.MustCompile(`</code> <span class="default">\(default\)</span>`).MatchString(params) {
		t.Errorf("no default is marked:\n%s", params)
	}
}
