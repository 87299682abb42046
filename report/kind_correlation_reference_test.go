package report

import (
	"github.com/evalbook/evalbook/report/kinds"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// corrReference copies the reference files of Shevchenko et al. 2024
// (or skips when the folder is absent) into a temporary study with the
// given manifest.
func corrReference(t *testing.T, manifest string, names ...string) map[string]string {
	t.Helper()
	files := map[string]string{"study.toml": manifest}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("..", "..", "shared", "reference", "shevchenko2024", n))
		if err != nil {
			skipWithoutReference(t, err)
		}
		files[n] = string(b)
	}
	return files
}

// TestMetricCorrelationReference checks Shevchenko et al.'s (2024, §4.1)
// reading of Fig. 2 on the published results (k = 10, the nine metrics of
// the figure): the accuracy and ranking metrics correlate above 0.8 with
// each other, nDCG at least 0.9 with them, and the beyond-accuracy metrics
// weakly with the rest. These are the paper's statements, not numbers
// pasted from it.
func TestMetricCorrelationReference(t *testing.T) {
	t.Parallel()
	files := corrReference(t, `title = "Shevchenko et al. 2024"
[inputs]
results = "agg_metrics.csv"
[[analyses]]
id = "fig2"
type = "metric_correlation"
metrics = ["precision@10", "recall@10", "map@10", "ndcg@10", "mrr@10", "hitrate@10", "coverage@10", "novelty@10", "diversity@10"]
`, "agg_metrics.csv")
	ctx, spec := corrStudy(t, files, "fig2", 2)
	out, err := kinds.Kinds()[spec.Type].Run(ctx, spec.Options)
	if err != nil {
		t.Fatal(err)
	}
	rho := map[[2]string]float64{}
	for _, row := range tableByName(t, out.Result, "matrix").Rows {
		if v, ok := row[2].(float64); ok {
			rho[[2]string{row[0].(string), row[1].(string)}] = v
		}
	}
	acc := []string{"precision@10", "recall@10", "map@10", "ndcg@10", "mrr@10", "hitrate@10"}
	for _, a := range acc {
		for _, b := range acc {
			if a == b {
				continue
			}
			if rho[[2]string{a, b}] <= 0.8 {
				t.Errorf("%s~%s = %.3f, Shevchenko et al. 2024 report > 0.8", a, b, rho[[2]string{a, b}])
			}
			// "≥ 0.9" as read off the figure, i.e. at two decimals.
			if a == "ndcg@10" && rho[[2]string{a, b}] < 0.895 {
				t.Errorf("ndcg@10~%s = %.3f, Shevchenko et al. 2024 report ≥ 0.9", b, rho[[2]string{a, b}])
			}
		}
	}
	for _, beyond := range []string{"coverage@10", "novelty@10", "diversity@10"} {
		for _, a := range acc {
			if r := rho[[2]string{beyond, a}]; r > rho[[2]string{"ndcg@10", "recall@10"}]-0.3 {
				t.Errorf("%s~%s = %.3f: not clearly weaker than the accuracy block", beyond, a, r)
			}
		}
	}
	t.Logf("clustered order: %v", strings.Join(tableByName(t, out.Result, "").Columns[1:], ", "))
}

// TestCharacteristicsReference reads the published characteristics
// (pandas' unnamed index column) and nDCG@10, and checks Shevchenko et
// al.'s (2024, §4.3) reading of Fig. 7: higher APB and Density go with
// higher nDCG@10.
func TestCharacteristicsReference(t *testing.T) {
	t.Parallel()
	files := corrReference(t, `title = "Shevchenko et al. 2024"
[inputs]
results = "agg_metrics.csv"
characteristics = "statistics_df.csv"
[[analyses]]
id = "fig7"
type = "characteristics"
metric = "ndcg@10"
methods = ["recbole_EASE", "recbole_MultiVAE", "recbole_ItemKNN", "recbole_SLIMElastic", "recbole_LightGCN", "recbole_LightGCL", "implicit_als", "implicit_bpr", "lightfm"]
`, "agg_metrics.csv", "statistics_df.csv")
	ctx, spec := corrStudy(t, files, "fig7", 2)
	out, err := kinds.Kinds()[spec.Type].Run(ctx, spec.Options)
	if err != nil {
		t.Fatal(err)
	}
	feat := tableByName(t, out.Result, "features")
	if len(feat.Rows) != 30 || len(feat.Columns) != 19 || feat.Columns[0] != "dataset" {
		t.Fatalf("features: %d rows, columns %v", len(feat.Rows), feat.Columns)
	}
	// The file's Ginii/Giniu are shown under the README's names.
	if !slices.Contains(feat.Columns, "Gini_i") || !slices.Contains(feat.Columns, "Gini_u") {
		t.Errorf("features columns %v", feat.Columns)
	}
	pooled := map[string][]any{}
	for _, row := range tableByName(t, out.Result, "").Rows {
		pooled[row[0].(string)] = row
	}
	for _, f := range []string{"APB", "Density"} {
		if r, ok := pooled[f][2].(float64); !ok || r <= 0 {
			t.Errorf("%s: pooled Spearman %v, Shevchenko et al. 2024 read a positive association", f, pooled[f][2])
		}
		t.Logf("%s pooled: pearson %v spearman %v MI %v (n %v)", f, pooled[f][1], pooled[f][2], pooled[f][3], pooled[f][4])
	}
}
