package report

import (
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/manifest"
)

// TestDirectionAssumedNote: a metric left to the default direction
// (higher is better) whose name reads as an error or a loss gets a note
// on each page that ranks it, with the [[metrics]] entry that settles
// it; an entry that gives only a label does not settle it, one that
// says better = … does, and a metric whose name reads as neither gets
// no note. The leaderboard ranks as the manifest says, note or not.
func TestDirectionAssumedNote(t *testing.T) {
	t.Parallel()
	const note = `is taken as higher is better, the default`
	for _, c := range []struct {
		name, metric, entry string
		want                bool
	}{
		{"undeclared RMSE", "RMSE", "", true},
		{"label only", "RMSE", "[[metrics]]\nname = \"RMSE\"\nlabel = \"Root mean squared error\"\n", true},
		{"log loss", "log_loss", "", true},
		{"declared lower", "RMSE", "[[metrics]]\nname = \"RMSE\"\nbetter = \"lower\"\n", false},
		{"declared higher", "RMSE", "[[metrics]]\nname = \"RMSE\"\nbetter = \"higher\"\n", false},
		{"nDCG", "nDCG@10", "", false},
	} {
		archive := fmt.Sprintf(`
-- study.toml --
title = "t"
%s[inputs]
results = "results.csv"
[[analyses]]
id = "lb"
type = "aggregate"
title = "lb"
metric = %q
rules = ["mean"]
-- results.csv --
dataset,method,metric,value
d1,A,%[2]s,0.5
d1,B,%[2]s,0.25
d2,A,%[2]s,0.75
d2,B,%[2]s,0.125
`, c.entry, c.metric)
		dir := mustBuild(t, archive)
		page := readFile(t, dir, "lb.html")
		if got := strings.Contains(page, note); got != c.want {
			t.Errorf("%s: note on the page %v, want %v", c.name, got, c.want)
		}
		if c.want && !strings.Contains(html.UnescapeString(page), fmt.Sprintf("name = %q, better = \"lower\"", c.metric)) {
			t.Errorf("%s: the note does not give the entry that settles it", c.name)
		}
		rows := readFile(t, dir, "data/lb.csv")
		first := strings.Split(rows, "\n")[1]
		wantFirst := "A" // higher is better: A's mean 0.625 ranks first
		if c.name == "declared lower" {
			wantFirst = "B"
		}
		if !strings.HasPrefix(first, wantFirst+",") {
			t.Errorf("%s: the leaderboard's first row %q, want %s first", c.name, first, wantFirst)
		}
	}
}

func TestLooksLowerIsBetter(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"RMSE": true, "rmse@10": true, "MAE": true, "log_loss": true, "error rate": true,
		"Perplexity": true, "nDCG@10": false, "terror": false, "Hit rate": false, "coverage": false, "mred_gender": false} {
		if got := manifest.LooksLowerIsBetter(name); got != want {
			t.Errorf("%q: %v, want %v", name, got, want)
		}
	}
}
