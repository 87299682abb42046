package report

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestMatrixLimits: an analysis over more methods or datasets than it
// may compare is an error naming the limit and the key that chooses
// fewer, at the analysis's header (no methods key written); results of
// more methods than the limit stop being read at the row of the first
// method past it.
func TestMatrixLimits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		nd, nm     int
		opts, want string
	}{
		{"aggregate over 10001 methods", 2, 10001, "type = \"aggregate\"\nmetric = \"m1\"",
			"study.toml:4: analyses/a: methods: 10001 methods, above the limit of 10000 for one analysis; list the ones to compare in `methods = [...]`"},
		{"aggregate over 10001 datasets", 10001, 2, "type = \"aggregate\"\nmetric = \"m1\"",
			"study.toml:4: analyses/a: datasets: 10001 datasets, above the limit of 10000 for one analysis; list the ones to compare in `datasets = [...]`"},
		{"critical_difference over 201 methods", 3, 201, "type = \"critical_difference\"\nmetric = \"m1\"",
			"study.toml:4: analyses/a: methods: 201 methods, above the limit of 200 for one analysis, as every pair is compared"},
		{"paired_tests over 201 methods", 3, 201, "type = \"paired_tests\"\nmetric = \"m1\"",
			"study.toml:4: analyses/a: methods: 201 methods, above the limit of 200 for one analysis, as every pair is compared"},
		{"metric_correlation over 10001 methods", 2, 10001, "type = \"metric_correlation\"",
			"study.toml:4: analyses/a: methods: 10001 methods, above the limit of 10000"},
		{"results of 100001 methods", 1, 100001, "type = \"aggregate\"\nmetric = \"m1\"",
			`results.csv:200002:21: method "method-100000" would be method number 100001 of the results, above the limit of 100000 methods in the results (and 10000 in one analysis)`},
	}
	for _, c := range cases {
		c := c
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeScalingStudy(t, dir, c.nd, c.nm, c.opts)
			_, err := Build(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml"), Format: "html", NoCache: true, Quiet: true})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant %s", err, c.want)
			}
		})
	}
}
