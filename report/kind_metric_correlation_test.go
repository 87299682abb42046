package report

import (
	"encoding/json"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
	"strings"
	"testing"
)

func TestMetricCorrelationKind(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"study.toml": `title = "corr"
[inputs]
results = "results.csv"
[[metrics]]
name = "rmse"
better = "lower"
[[analyses]]
id = "agree"
type = "metric_correlation"
metrics = ["ndcg", "recall", "rmse"]
`,
		// On d1 and d2 the three metrics rank x > y > z; rmse is lower-is-better.
		"results.csv": `dataset,method,metric,value
d1,x,ndcg,0.3
d1,y,ndcg,0.2
d1,z,ndcg,0.1
d1,x,recall,0.5
d1,y,recall,0.4
d1,z,recall,0.3
d1,x,rmse,0.8
d1,y,rmse,0.9
d1,z,rmse,1.0
d1,x,coverage,0.1
d2,x,ndcg,0.35
d2,y,ndcg,0.25
d2,z,ndcg,0.15
d2,x,recall,0.6
d2,y,recall,0.45
d2,z,recall,0.2
d2,x,rmse,0.7
d2,y,rmse,0.95
d2,z,rmse,1.1
`,
	}
	ctx, spec := corrStudy(t, files, "agree", 2)
	out, err := kinds.Kinds()[spec.Type].Run(ctx, spec.Options)
	if err != nil {
		t.Fatal(err)
	}
	long := tableByName(t, out.Result, "matrix")
	if strings.Join(long.Columns, ",") != "metric_a,metric_b,rho,datasets" || len(long.Rows) != 9 {
		t.Fatalf("-matrix %v, %d rows", long.Columns, len(long.Rows))
	}
	for _, row := range long.Rows {
		// Oriented, every pair agrees perfectly on both datasets.
		if row[2] != 1.0 || row[3] != 2 {
			t.Errorf("row %v: want rho 1 over 2 datasets", row)
		}
	}
	if len(out.Figures) != 1 || out.Figures[0].ID != "agree" || len(out.Figures[0].SVG) == 0 || len(out.Figures[0].Chart) == 0 {
		t.Fatalf("figures %+v", out.Figures)
	}
	if !json.Valid(out.Figures[0].Chart) {
		t.Error("chart is not JSON")
	}
	if _, err := json.Marshal(out.Result); err != nil {
		t.Errorf("result JSON: %v", err)
	}

	files["study.toml"] = strings.Replace(files["study.toml"], `metrics = ["ndcg", "recall", "rmse"]`, "raw = true\nmethod = \"kendall\"", 1)
	ctx, spec = corrStudy(t, files, "agree", 1)
	out, err = kinds.Kinds()[spec.Type].Run(ctx, spec.Options)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range tableByName(t, out.Result, "matrix").Rows {
		a, b := row[0].(string), row[1].(string)
		switch {
		case a == "coverage" || b == "coverage":
			if row[2] != nil || row[3] != 0 {
				t.Errorf("coverage (one method) row %v: want empty over 0 datasets", row)
			}
		case (a == "rmse") != (b == "rmse"):
			if row[2] != -1.0 {
				t.Errorf("raw rmse row %v: want -1", row)
			}
		}
	}
	if len(out.Result.Notes()) == 0 {
		t.Error("undefined coverage correlations gave no note")
	}

	files["study.toml"] = strings.Replace(files["study.toml"], `method = "kendall"`, `metrics = ["ndcg", "recal"]`, 1)
	ctx, spec = corrStudy(t, files, "agree", 1)
	if _, err := kinds.Kinds()[spec.Type].Run(ctx, spec.Options); err == nil || !strings.Contains(err.Error(), `did you mean "recall"`) {
		t.Errorf("unknown metric: %v", err)
	}
}

func TestMetricCorrelationManifestValidation(t *testing.T) {
	t.Parallel()
	_, err := manifest.ParseStudy("study.toml", []byte(`title = "x"
[[analyses]]
id = "agree"
type = "metric_correlation"
method = "spearmann"
`), kinds.Kinds())
	if err == nil || !strings.Contains(err.Error(), "study.toml:5") || !strings.Contains(err.Error(), `did you mean "spearman"`) {
		t.Errorf("validation error %v", err)
	}
}

// TestMetricCorrelationBuild builds a study end to end on 1 and 2
// workers: same bytes, the -matrix CSV holds every ordered pair.
func TestMetricCorrelationBuild(t *testing.T) {
	t.Parallel()
	study := `
-- study.toml --
title = "Metric correlation end to end"
[inputs]
results = "results.csv"
[[metrics]]
name = "rmse"
better = "lower"
[[analyses]]
id = "agree"
type = "metric_correlation"
method = "kendall"
-- results.csv --
dataset,method,ndcg,recall,rmse
d1,a,0.30,0.50,0.90
d1,b,0.20,0.45,0.95
d1,c,0.10,0.45,0.80
d2,a,0.33,0.60,0.85
d2,b,0.21,0.40,0.99
d2,c,0.25,0.41,1.10
`
	a := mustBuild(t, study, func(o *Options) { o.Jobs = 1 })
	b := mustBuild(t, study, func(o *Options) { o.Jobs = 2 })
	for _, name := range []string{"data/agree.json", "data/agree.csv", "data/agree-matrix.csv", "figures/agree.svg", "agree.html"} {
		if readFile(t, a, name) != readFile(t, b, name) {
			t.Errorf("%s differs between 1 and 2 workers", name)
		}
	}
	m := readFile(t, a, "data/agree-matrix.csv")
	lines := strings.Split(strings.TrimSpace(m), "\n")
	if lines[0] != "metric_a,metric_b,rho,datasets" || len(lines) != 1+9 {
		t.Fatalf("-matrix:\n%s", m)
	}
	// ndcg~recall: d1 tau-b of (.3,.2,.1) and (.5,.45,.45) = 2/sqrt(3·2) = 0.8165; d2 (.33,.21,.25) vs (.6,.4,.41) = 1.
	if !strings.Contains(m, "ndcg,recall,0.90824829046386") {
		t.Errorf("ndcg~recall row missing:\n%s", m)
	}
	if j := readJSON(t, a, "data/agree.json"); j["order"] == nil {
		t.Errorf("JSON lacks the clustered order: %v", j)
	}
}
