package report

import (
	"regexp"
	"strings"
	"testing"
)

// TestCompactLeaderboard: the leaderboard's main table shows one column
// per rule, headed by its label, whose cell is the method's rank with the
// score as its tooltip and sort key; the CSV keeps every score and rank
// column (issue 20).
func TestCompactLeaderboard(t *testing.T) {
	t.Parallel()
	dir := mustBuild(t, tieStudy)
	page := readFile(t, dir, "lb.html")
	table := page[strings.Index(page, `<table class="data`):]
	table = table[:strings.Index(table, "</table>")]
	var heads []string
	for _, h := range regexp.MustCompile(`<th scope="col"[^>]*>([^<]*)</th>`).FindAllStringSubmatch(table, -1) {
		heads = append(heads, h[1])
	}
	if got := strings.Join(heads, "|"); got != "method|Mean|Mean rank" {
		t.Errorf("headers %q, want method|Mean|Mean rank (one column per rule, no rank columns)", got)
	}
	// D is last under both rules: rank 4, its mean 0.05 as the tooltip
	d := regexp.MustCompile(`(?s)<tr><td>D</td>(.*?)</tr>`).FindStringSubmatch(table)
	if d == nil || !strings.Contains(d[1], `title="score 0.05`) || !strings.Contains(d[1], `>4</td>`) {
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
