package report_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evalbook/evalbook/report"
)

// Build a study from Go: write a manifest and a results table into a
// directory, then build its site (as `evalbook build` does). The site's
// pages are HTML files in sum.Out, and every table is also a data file;
// the leaderboard's numbers are those worked by hand in the example of
// leaderboard.Aggregate (mean ranks 4/3, 5/3, 3; Borda 5, 4, 0).
func ExampleBuild() {
	dir, err := os.MkdirTemp("", "evalbook-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"study.toml": `title = "Three recommenders on three datasets"

[inputs]
results = "results.csv"

[[analyses]]
id     = "leaderboard"
type   = "aggregate"
metric = "ndcg@10"
rules  = ["mean_rank", "borda"]
`,
		"results.csv": `dataset,method,metric,value
d1,A,ndcg@10,0.30
d1,B,ndcg@10,0.25
d1,C,ndcg@10,0.20
d2,A,ndcg@10,0.40
d2,B,ndcg@10,0.45
d2,C,ndcg@10,0.35
d3,A,ndcg@10,0.50
d3,B,ndcg@10,0.42
d3,C,ndcg@10,0.41
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			panic(err)
		}
	}
	sum, err := report.Build(context.Background(), report.Options{
		Manifest: filepath.Join(dir, "study.toml"),
		Jobs:     1,
		Quiet:    true,
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("analyses: %d, narrative pages: %d\n", sum.Analyses, sum.Pages)
	pages, _ := filepath.Glob(filepath.Join(sum.Out, "*.html"))
	for _, p := range pages {
		// explore.html too, when the binary embeds the Explore page's
		// module (make assets): left out here, which a plain go test lacks
		if filepath.Base(p) != "explore.html" {
			fmt.Println(filepath.Base(p))
		}
	}
	csv, err := os.ReadFile(filepath.Join(sum.Out, "data", "leaderboard.csv"))
	if err != nil {
		panic(err)
	}
	fmt.Print(string(csv))
	// Output:
	// analyses: 1, narrative pages: 0
	// index.html
	// leaderboard.html
	// provenance.html
	// method,mean_rank,mean_rank_rank,borda,borda_rank
	// A,1.3333333333333333,1,5,1
	// B,1.6666666666666667,2,4,2
	// C,3,3,0,3
}
