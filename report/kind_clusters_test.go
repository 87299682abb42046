package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clustersStudy is a txtar study of 15 datasets in three groups (by
// their characteristics, and by a `group` attribute), 4 methods and two
// metrics, with a clusters and a dataset_selection analysis.
func clustersStudy(extra string) string {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString(`-- study.toml --
title = "Clusters study"
seed = 7
[[metrics]]
name = "rmse"
better = "lower"
[inputs]
results = "results.csv"
characteristics = "chars.csv"
`)
	for d := 0; d < 15; d++ {
		fmt.Fprintf(&b, "[[datasets]]\nname = \"ds%02d\"\ngroup = \"g%d\"\n", d, d%3)
	}
	b.WriteString(`[[analyses]]
id = "groups"
type = "clusters"
title = "Groups of datasets"
metric = "ndcg"
compare = "group"
trees = 200
[[analyses]]
id = "pick"
type = "dataset_selection"
title = "Choosing datasets"
metrics = ["ndcg", "rmse"]
size = 4
simulations = 40
` + extra + `
-- chars.csv --
dataset,Nu,Ni,Density,Gini
`)
	// Each group stands out on one feature, so the three are equally far
	// apart after z-scoring.
	for d := 0; d < 15; d++ {
		v := []float64{1000, 800, 0.001, 0.4}
		switch d % 3 {
		case 0:
			v[0] = 90000
		case 1:
			v[2] = 0.09
		case 2:
			v[3] = 0.9
		}
		fmt.Fprintf(&b, "ds%02d,%g,%g,%g,%g\n", d, v[0]*(1+0.02*rng.NormFloat64()), v[1]*(1+0.02*rng.NormFloat64()),
			v[2]*(1+0.02*rng.NormFloat64()), v[3]*(1+0.02*rng.NormFloat64()))
	}
	b.WriteString("-- results.csv --\ndataset,method,metric,value\n")
	for d := 0; d < 15; d++ {
		for m, name := range []string{"EASE", "ALS", "BPR", "Pop"} {
			v := 0.3 - 0.05*float64(m) + 0.1*float64(d%3) + 0.02*rng.Float64()
			fmt.Fprintf(&b, "ds%02d,%s,ndcg,%g\nds%02d,%s,rmse,%g\n", d, name, v, d, name, 1.5-v)
		}
	}
	return b.String()
}

func TestClustersAndSelectionEndToEnd(t *testing.T) {
	t.Parallel()
	dir := mustBuild(t, clustersStudy(""))
	g := readJSON(t, dir, "data/groups.json")
	if g["type"] != "clusters" || g["k"].(float64) != 3 {
		t.Errorf("clusters: type %v, k %v", g["type"], g["k"])
	}
	if ari, _ := g["adjusted_rand_index"].(float64); ari != 1 {
		t.Errorf("adjusted Rand index with the group attribute = %v", g["adjusted_rand_index"])
	}
	if head := strings.SplitN(readFile(t, dir, "data/groups.csv"), "\n", 2)[0]; head != "dataset,cluster,outlier,representative,pc1,pc2,pc3" {
		t.Errorf("main table header %q", head)
	}
	for _, f := range []string{"data/groups-k.csv", "data/groups-pca.csv", "data/groups-loadings.csv", "data/pick-means.csv", "data/groups-leaderboard.csv",
		"figures/groups.svg", "figures/groups-k.svg", "figures/groups-leaderboard.svg",
		"data/pick.csv", "data/pick-chosen.csv", "figures/pick.svg", "figures/pick-chosen.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	p := readJSON(t, dir, "data/pick.json")
	mr := p["mean_rho"].(map[string]any)
	for _, s := range []string{"random", "kmeans", "d_optimal", "a_optimal"} {
		row, ok := mr[s].(map[string]any)
		if !ok || len(row) != 2 {
			t.Errorf("mean_rho[%s] = %v", s, mr[s])
		}
	}
	page := readFile(t, dir, "pick.html")
	if !strings.Contains(page, "Spearman") {
		t.Error("selection page lacks its method note")
	}
	// Byte-identical whatever the number of workers.
	dir1 := mustBuild(t, clustersStudy(""), func(o *Options) { o.Jobs = 1 })
	for _, f := range []string{"data/groups.json", "data/pick.json", "figures/groups.svg", "figures/pick.svg", "figures/pick-chosen.svg"} {
		if readFile(t, dir, f) != readFile(t, dir1, f) {
			t.Errorf("%s differs between jobs = 1 and the default", f)
		}
	}
}

func TestClustersEndToEndErrors(t *testing.T) {
	t.Parallel()
	noChars := strings.Replace(clustersStudy(""), "characteristics = \"chars.csv\"\n", "", 1)
	if _, err := buildStudy(t, noChars); err == nil || !strings.Contains(err.Error(), "no dataset characteristics") {
		t.Errorf("no characteristics: %v", err)
	}
	badFeature := strings.Replace(clustersStudy(""), "compare = \"group\"", "features = [\"Nu\", \"Densty\"]", 1)
	if _, err := buildStudy(t, badFeature); err == nil || !strings.Contains(err.Error(), `did you mean "Density"`) {
		t.Errorf("bad feature: %v", err)
	}
	if _, err := buildStudy(t, clustersStudy(`strategies = ["random", "kmean"]`)); err == nil || !strings.Contains(err.Error(), `did you mean "kmeans"`) {
		t.Errorf("bad strategy: %v", err)
	}
}

// TestClustersReferenceEndToEnd builds the 30 datasets of Shevchenko et
// al. 2024 (their reference data; skipped when absent) as a study and
// compares the clusters with Table 5 through a dataset attribute.
func TestClustersReferenceEndToEnd(t *testing.T) {
	t.Parallel()
	ref, err := filepath.Abs("../../shared/reference/shevchenko2024")
	if err != nil {
		t.Fatal(err)
	}
	withClusters, err := os.ReadFile(filepath.Join(ref, "statistics_df_with_clusters.csv"))
	if os.IsNotExist(err) {
		skipWithoutReference(t, "shevchenko2024")
	}
	if err != nil {
		t.Fatal(err)
	}
	stats, err := os.ReadFile(filepath.Join(ref, "statistics_df.csv"))
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Split(strings.TrimSpace(string(stats)), "\n")[1:]
	paper := strings.Split(strings.TrimSpace(string(withClusters)), "\n")[1:]
	var b strings.Builder
	ndcg, err := os.ReadFile(filepath.Join(ref, "metrics_ndcg_10.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// The reference files go into the test's temporary study (inputs
	// resolve relative to the manifest), never into the project.
	b.WriteString("-- study.toml --\ntitle = \"Shevchenko et al. 2024\"\nseed = 1\n[inputs]\nresults = \"ndcg.csv\"\ncharacteristics = \"stats.csv\"\n")
	for i, line := range names {
		cells := strings.Split(paper[i], ",")
		fmt.Fprintf(&b, "[[datasets]]\nname = %q\ntable5 = %q\n", strings.SplitN(line, ",", 2)[0], cells[len(cells)-1])
	}
	b.WriteString("[[analyses]]\nid = \"table5\"\ntype = \"clusters\"\nmetric = \"ndcg@10\"\ncompare = \"table5\"\n")
	b.WriteString("-- ndcg.csv --\nmethod,dataset,metric,value\n")
	for _, line := range strings.Split(strings.TrimSpace(string(ndcg)), "\n")[1:] {
		c := strings.Split(strings.TrimSpace(line), ",") // Method,Dataset,Value
		fmt.Fprintf(&b, "%s,%s,ndcg@10,%s\n", c[0], c[1], c[2])
	}
	b.WriteString("-- stats.csv --\n" + string(stats))
	dir := mustBuild(t, b.String())
	g := readJSON(t, dir, "data/table5.json")
	ari, _ := g["adjusted_rand_index"].(float64)
	t.Logf("k = %v, outliers %v, ARI with Table 5 = %v", g["k"], g["outliers"], ari)
	if g["k"].(float64) != 6 || len(g["outliers"].([]any)) != 5 || math.Abs(ari-1) > 0.1 {
		t.Errorf("k = %v, outliers %v, ARI %v; the paper: 6 clusters, 5 outliers (Table 5)", g["k"], g["outliers"], ari)
	}
}
