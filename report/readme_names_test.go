package report

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/datasets"
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/analyses/offline"
	"github.com/evalbook/evalbook/report/kinds"
)

// TestReadmeNameTables: the README's "Names" tables list exactly the
// registered rules (with their built-in labels), analysis types, derived
// metric names, features, perturbations and strategies, so they cannot
// drift from the code.
func TestReadmeNameTables(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	i := strings.Index(text, "\n## Names\n")
	if i < 0 {
		t.Fatal("README.md has no Names section")
	}
	section := text[i+1:]
	if j := strings.Index(section[3:], "\n## "); j >= 0 {
		section = section[:j+3]
	}
	// rows of the tables under a ### heading: first cell `name`, second cell
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\| ([^|]*) \\|")
	sub := func(heading string) [][]string {
		k := strings.Index(section, "\n### "+heading+"\n")
		if k < 0 {
			t.Fatalf("Names has no ### %s", heading)
		}
		s := section[k+1:]
		if j := strings.Index(s[4:], "\n### "); j >= 0 {
			s = s[:j+4]
		}
		return row.FindAllStringSubmatch(s, -1)
	}
	names := func(rows [][]string) []string {
		var out []string
		for _, r := range rows {
			out = append(out, r[1])
		}
		slices.Sort(out)
		return out
	}
	same := func(what string, got, want []string) {
		want = slices.Clone(want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("README Names, %s: lists %v, the code has %v", what, got, want)
		}
	}
	rules := sub("Aggregation rules")
	same("rules", names(rules), leaderboard.AllRules)
	for _, r := range rules {
		if want := leaderboard.RuleLabels[r[1]]; strings.TrimSpace(r[2]) != want {
			t.Errorf("README gives rule %s the label %q, the code %q", r[1], strings.TrimSpace(r[2]), want)
		}
	}
	same("types", names(sub("Analysis types")), kinds.Kinds().Types())
	same("metric names", names(sub("Metric names")), slices.Concat(offline.UserMetrics, offline.RunMetrics, offline.RatingMetrics))
	same("features", names(sub("Feature names")), datasets.LogFeatureNames)
	same("perturbations and strategies", names(sub("Perturbations and selection strategies")), slices.Concat(leaderboard.AllPerturbations, datasets.AllStrategies))
}
