package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// scaffold is the small working study `evalbook init` writes: a manifest,
// results of four methods on six datasets, and a page that cites them.
const scaffold = `-- study.toml --
title    = "My benchmark study"
subtitle = "Companion site"
authors  = ["Your Name"]
date     = "2025-01-01"
abstract = """
Four recommenders compared on six datasets. Edit *study.toml*, the data in
*data/* and the pages in *pages/*, then run ` + "`evalbook build`" + ` (or
` + "`evalbook serve`" + ` to see changes live).
"""
seed = 42

[[metrics]]
name   = "rmse"
label  = "RMSE"
better = "lower"

[[metrics]]
name  = "ndcg@10"
label = "nDCG@10"            # how pages and figures name it

# A baseline is never the headline of a key finding.
[[methods]]
name     = "MostPop"
label    = "Most popular"
baseline = true

[[datasets]]
name   = "movies-small"
domain = "movies"

[[datasets]]
name   = "movies-large"
domain = "movies"

[[datasets]]
name   = "books"
domain = "books"

[[datasets]]
name   = "music"
domain = "music"

[[datasets]]
name   = "retail-a"
domain = "retail"

[[datasets]]
name   = "retail-b"
domain = "retail"

[inputs]
results = "data/results.csv"

[[pages]]
title  = "Findings"
source = "pages/findings.md"

[[analyses]]
id      = "leaderboard"
type    = "aggregate"
title   = "Leaderboard"
caption = "Four methods ranked by nDCG@10 over six datasets."
metric  = "ndcg@10"

[[analyses]]
id      = "leaderboard-rmse"
type    = "aggregate"
title   = "Rating error"
caption = "The same rules on RMSE, where lower is better."
metric  = "rmse"
rules   = ["mean_rank", "mean", "geometric_mean", "copeland"]
-- pages/findings.md --
# Findings

Under the mean rank, EASE comes first with
{{value leaderboard tables.leaderboard[method=EASE].mean_rank %.2f}}
({{ref leaderboard}}); its performance profile is the highest for small
ratios $\beta$ to the best method.

{{figure leaderboard}}

Rating errors tell a similar story ({{ref tab:leaderboard-rmse}}).
-- data/results.csv --
dataset,method,metric,value
movies-small,EASE,ndcg@10,0.181
movies-small,ItemKNN,ndcg@10,0.152
movies-small,ALS,ndcg@10,0.166
movies-small,MostPop,ndcg@10,0.091
movies-large,EASE,ndcg@10,0.224
movies-large,ItemKNN,ndcg@10,0.201
movies-large,ALS,ndcg@10,0.219
movies-large,MostPop,ndcg@10,0.118
books,EASE,ndcg@10,0.072
books,ItemKNN,ndcg@10,0.081
books,ALS,ndcg@10,0.060
books,MostPop,ndcg@10,0.021
music,EASE,ndcg@10,0.133
music,ItemKNN,ndcg@10,0.127
music,ALS,ndcg@10,0.141
music,MostPop,ndcg@10,0.077
retail-a,EASE,ndcg@10,0.055
retail-a,ItemKNN,ndcg@10,0.061
retail-a,ALS,ndcg@10,0.043
retail-a,MostPop,ndcg@10,0.019
retail-b,EASE,ndcg@10,0.047
retail-b,ItemKNN,ndcg@10,0.044
retail-b,ALS,ndcg@10,0.039
retail-b,MostPop,ndcg@10,0.022
movies-small,EASE,rmse,0.912
movies-small,ItemKNN,rmse,0.951
movies-small,ALS,rmse,0.889
movies-small,MostPop,rmse,1.043
movies-large,EASE,rmse,0.861
movies-large,ItemKNN,rmse,0.902
movies-large,ALS,rmse,0.855
movies-large,MostPop,rmse,1.012
books,EASE,rmse,1.102
books,ItemKNN,rmse,1.087
books,ALS,rmse,1.121
books,MostPop,rmse,1.254
music,EASE,rmse,0.981
music,ItemKNN,rmse,0.995
music,ALS,rmse,0.964
music,MostPop,rmse,1.101
retail-a,EASE,rmse,1.211
retail-a,ItemKNN,rmse,1.198
retail-a,ALS,rmse,1.240
retail-a,MostPop,rmse,1.302
retail-b,EASE,rmse,1.188
retail-b,ItemKNN,rmse,1.201
retail-b,ALS,rmse,1.176
retail-b,MostPop,rmse,1.290
`

// Init writes the example study into dir (created if needed). It never
// overwrites anything: when any of its files (or a directory it needs)
// already exists, it writes nothing and names them all.
func Init(dir string) error {
	a := ParseArchive([]byte(scaffold))
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("init: %s is a file, not a directory", dir)
	}
	var exist []string
	for _, f := range a.Files {
		if p := initConflict(dir, f.Name); p != "" {
			exist = append(exist, p)
		}
	}
	if len(exist) > 0 {
		return fmt.Errorf("init: %s already has %s; init never overwrites a file, so nothing was written (choose an empty directory or move them away)",
			dir, strings.Join(exist, ", "))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	for _, f := range a.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("init: %w", err)
		}
		// O_EXCL: a file that appeared since the check is not overwritten.
		w, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("init: %w", err)
		}
		_, err = w.Write(f.Data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("init: %w", err)
		}
	}
	return nil
}

// initConflict returns the part of name (a slash path under dir) that is
// in the way: the file itself when anything exists there, or a parent
// that exists but is not a directory; "" when the file can be created.
func initConflict(dir, name string) string {
	parts := strings.Split(name, "/")
	for i := range parts {
		rel := strings.Join(parts[:i+1], "/")
		st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return ""
		}
		if i == len(parts)-1 {
			return rel
		}
		if !st.IsDir() {
			if st.Mode()&os.ModeSymlink != 0 {
				if t, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel))); err == nil && t.IsDir() {
					continue
				}
			}
			return rel + " (not a directory)"
		}
	}
	return ""
}
