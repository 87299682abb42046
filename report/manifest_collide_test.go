package report

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalysisFilesNeverCollide: the ids "cd" and "cd-ranks" would both
// name data/cd-ranks.csv (the critical difference's rank table and the
// aggregate's main table); one table silently replaced the other. Build
// and validate now both refuse, naming the two ids and the file.
func TestAnalysisFilesNeverCollide(t *testing.T) {
	t.Parallel()
	const study = `
-- study.toml --
title = "t"
[inputs]
results = "results.csv"
[[analyses]]
id = "cd"
type = "critical_difference"
title = "cd"
metric = "m"
[[analyses]]
id = "cd-ranks"
type = "aggregate"
title = "lb"
metric = "m"
rules = ["mean"]
-- results.csv --
dataset,method,metric,value
d1,A,m,0.5
d1,B,m,0.25
d1,C,m,0.3
d2,A,m,0.75
d2,B,m,0.125
d2,C,m,0.2
d3,A,m,0.6
d3,B,m,0.3
d3,C,m,0.1
d4,A,m,0.6
d4,B,m,0.35
d4,C,m,0.4
`
	const want = `analyses "cd" and "cd-ranks" both write data/cd-ranks.csv`
	dir, err := buildStudy(t, study)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("build: %v, want %q", err, want)
	}
	_, verr := Validate(context.Background(), Options{Manifest: filepath.Join(filepath.Dir(dir), "study.toml"), Format: "both", Version: "test"})
	if verr == nil || verr.Error() != err.Error() {
		t.Errorf("validate: %v\nbuild:    %v", verr, err)
	}
}
