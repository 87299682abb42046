package main

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDemoFindingsQuoteTables: a number a key finding quotes reads as
// the analysis's page prints it: the text of one of its table cells, or,
// for a score behind a compact table's rank (shown on hover), its exact
// value rounded to the digits the finding gives. A bound after "<" (a
// level such as p < 0.001) is not a quote.
func TestDemoFindingsQuoteTables(t *testing.T) {
	t.Parallel()
	pages := demoPages(t)
	idx := pages["index.html"]
	start := strings.Index(idx, `<section class="findings">`)
	if start < 0 {
		t.Fatal("no key findings on the overview")
	}
	sec := idx[start:]
	sec = sec[:strings.Index(sec, "</section>")]
	itemRe := regexp.MustCompile(`(?s)<li><a href="([^"#]+\.html)">[^<]*</a>:(.*?)</li>`)
	anyTableRe := regexp.MustCompile(`(?s)<table[^>]*>(.*?)</table>`)
	tokenRe := regexp.MustCompile(`\d+(?:\.\d+)?(?:e-?\d+)?`)
	scoreRe := regexp.MustCompile(`title="score ([^"]+)"`)
	quoteRe := regexp.MustCompile(`(<\s*)?-?(\d+\.(\d+)(?:e-?\d+)?)`)
	quoted := 0
	for _, m := range itemRe.FindAllStringSubmatch(sec, -1) {
		page, ok := pages[m[1]]
		if !ok {
			t.Errorf("a finding links to %s, which the site lacks", m[1])
			continue
		}
		cells := map[string]bool{}
		var scores []float64
		for _, tm := range anyTableRe.FindAllStringSubmatch(page, -1) {
			for _, tok := range tokenRe.FindAllString(html.UnescapeString(tagRe.ReplaceAllString(tm[1], " ")), -1) {
				cells[tok] = true
			}
			for _, s := range scoreRe.FindAllStringSubmatch(tm[1], -1) {
				if v, err := strconv.ParseFloat(s[1], 64); err == nil {
					scores = append(scores, v)
				}
			}
		}
		text := html.UnescapeString(tagRe.ReplaceAllString(m[2], ""))
		for _, q := range quoteRe.FindAllStringSubmatch(text, -1) {
			if q[1] != "" {
				continue // a bound
			}
			quoted++
			if cells[q[2]] || roundsAScore(q[2], len(q[3]), scores) {
				continue
			}
			t.Errorf("%s: the key finding quotes %s, which its page's tables do not print (%q)", m[1], q[2], text)
		}
	}
	if quoted < 30 {
		t.Errorf("only %d numbers quoted by the demo's key findings", quoted)
	}
}

// roundsAScore reports whether text is one of scores (absolute values)
// written with d decimals.
func roundsAScore(text string, d int, scores []float64) bool {
	if strings.Contains(text, "e") {
		return false
	}
	for _, s := range scores {
		if strconv.FormatFloat(s, 'f', d, 64) == text || strconv.FormatFloat(-s, 'f', d, 64) == text {
			return true
		}
	}
	return false
}
