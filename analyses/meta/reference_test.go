package meta

import (
	"encoding/csv"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/analyses/internal/testutil"
)

// The per-user runs of Sertkan et al. 2023, see
// ../shared/reference/sertkan2023/SOURCE.txt; the test skips without them.
const sertkanRuns = "../../../shared/reference/sertkan2023/runs"

var sertkanDatasets = []string{"amazon-clothing", "amazon-digital-music", "amazon-office", "amazon-toy", "filmtrust", "movielens-10M", "netflix-small"}

// sertkanStudies streams the runs of two models into a Builder the
// way the report does: one file per (method, dataset), values paired by
// row, an empty NDCG@10 read as 0 (as the paper's notebook did).
func sertkanStudies(t *testing.T, treatment, control string, col int, missing string) []Study {
	t.Helper()
	b := NewBuilder(treatment, control, missing)
	for _, m := range []string{"BPR", "MF-bias", "MF"} { // sorted glob order
		for _, d := range sertkanDatasets {
			f, err := os.Open(filepath.Join(sertkanRuns, m+"_"+d+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			r := csv.NewReader(f)
			if _, err := r.Read(); err != nil {
				t.Fatal(err)
			}
			for row := int64(0); ; row++ {
				rec, err := r.Read()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				v := math.NaN()
				if rec[col] != "" {
					if v, err = strconv.ParseFloat(rec[col], 64); err != nil {
						t.Fatal(err)
					}
				}
				if err := b.Add(d, m, "", row, v); err != nil {
					t.Fatal(err)
				}
			}
			f.Close()
		}
	}
	return b.Finish()
}

// sertkanPublished holds the numbers printed by the paper's notebook
// (experiments.ipynb of github.com/MeteSertkan/meta-analysis-based-recsys-eval,
// the Ranger output behind the paper's Figures 1 and 2), to 6 decimals:
// effect, ci_low, ci_high, weight; the last row is the combined effect.
// These are published numbers, copied by hand on purpose.
var sertkanPublished = map[string][][4]float64{
	// Figure 1: MF-bias vs MF, standardised mean difference (Ranger's SMD
	// is Hedges' g) of RMSE.
	"fig1": {
		{-3.077933, -3.273481, -2.882384, 0.115094},
		{-0.145250, -0.162494, -0.128006, 0.147958},
		{-0.578521, -0.621275, -0.535768, 0.146273},
		{-0.556238, -0.573282, -0.539194, 0.147966},
		{-0.222639, -0.266003, -0.179275, 0.146216},
		{-0.030320, -0.031711, -0.028928, 0.148288},
		{-0.050401, -0.059129, -0.041674, 0.148205},
		{-0.587187, -0.727401, -0.446973, 1},
	},
	// Figure 2: MF-bias vs MF, mean difference of NDCG@10.
	"fig2": {
		{-0.026760, -0.033196, -0.020323, 0.107380},
		{-0.008537, -0.010142, -0.006932, 0.158909},
		{-0.000434, -0.001242, 0.000375, 0.162775},
		{-0.008101, -0.009108, -0.007094, 0.162036},
		{-0.048758, -0.057333, -0.040182, 0.084681},
		{-0.001074, -0.001523, -0.000625, 0.163711},
		{-0.000911, -0.002241, 0.000419, 0.160508},
		{-0.010064, -0.013651, -0.006477, 1},
	},
}

// Published p values of Figure 2 that are not 0 (notebook, 7 digits).
var sertkanFig2P = map[string]float64{"amazon-office": 2.930711e-01, "movielens-10M": 2.719976e-06, "netflix-small": 1.795993e-01, "summary": 3.808665e-08}

func sertkanRun(t *testing.T, studies []Study, metric analyses.Metric, effect string, datasets []string, subgroup map[string]string) *Result {
	t.Helper()
	var o Options
	o.Defaults()
	o.Treatment, o.Control, o.Metric, o.Effect, o.RangerCompat, o.Missing = "x", "y", metric.Name, effect, true, "zero"
	o.Datasets = datasets
	if subgroup != nil {
		o.Subgroup = "domain"
	}
	r, err := Analyze(Input{Metric: metric, Studies: studies, Groups: subgroup}, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func logMeta(t *testing.T, name string, r *Result) {
	t.Helper()
	for _, row := range r.Rows {
		t.Logf("%s %-22s n=%6d effect=%+.6f CI [%+.6f, %+.6f] p=%.3g weight=%.6f", name, row.Dataset, row.N, row.Effect, row.CILow, row.CIHigh, row.P, row.Weight)
	}
	s := r.Summary
	t.Logf("%s %-22s k=%d effect=%+.6f CI [%+.6f, %+.6f] p=%.3g tau2=%.3g I2=%.1f%% PI [%+.6f, %+.6f]", name, "summary", s.K, *s.Effect, *s.CILow, *s.CIHigh, *s.P, *s.Tau2, *s.I2, *s.PILow, *s.PIHigh)
}

// TestMetaSertkan2023 reproduces Figures 1–5 of Sertkan et al. 2023 from
// the published per-user runs with ranger_compat = true: Figures 1 and 2
// number for number against the notebook's printed values (6 decimals),
// Figures 3–5 against the paper's statements (Sections 5 and 6).
func TestMetaSertkan2023(t *testing.T) {
	skipUnderRace(t, "runs on the test's goroutine (no sensitivity analysis)")
	t.Parallel()
	if _, err := os.Stat(sertkanRuns); err != nil {
		testutil.SkipWithoutReference(t, err)
	}
	rmse := analyses.Metric{Name: "RMSE", Better: analyses.LowerIsBetter}
	ndcg := analyses.Metric{Name: "NDCG@10"}
	checkPublished := func(name string, r *Result) {
		want := sertkanPublished[name]
		for i, w := range want {
			var got [4]float64
			if i < len(r.Rows) {
				row := r.Rows[i]
				got = [4]float64{row.Effect, row.CILow, row.CIHigh, row.Weight}
			} else {
				s := r.Summary
				got = [4]float64{*s.Effect, *s.CILow, *s.CIHigh, 1}
			}
			for j := range w {
				if math.Abs(got[j]-w[j]) > 5.01e-7 { // printed to 6 decimals
					t.Errorf("%s row %d col %d: got %.7f, published %.6f", name, i, j, got[j], w[j])
				}
			}
		}
	}

	fig1 := sertkanRun(t, sertkanStudies(t, "MF-bias", "MF", 1, "zero"), rmse, "hedges_g", sertkanDatasets, nil)
	logMeta(t, "fig1", fig1)
	checkPublished("fig1", fig1)

	ndcgBias := sertkanStudies(t, "MF-bias", "MF", 2, "zero")
	fig2 := sertkanRun(t, ndcgBias, ndcg, "md", sertkanDatasets, nil)
	logMeta(t, "fig2", fig2)
	checkPublished("fig2", fig2)
	for _, row := range fig2.Rows {
		if p, ok := sertkanFig2P[row.Dataset]; ok && math.Abs(row.P-p) > 1e-6*p {
			t.Errorf("fig2 %s p = %.7g, published %.7g", row.Dataset, row.P, p)
		}
	}
	if p := *fig2.Summary.P; math.Abs(p-sertkanFig2P["summary"]) > 1e-6*p {
		t.Errorf("fig2 summary p = %.7g, published %.7g", p, sertkanFig2P["summary"])
	}

	bpr := sertkanStudies(t, "BPR", "MF", 2, "zero")
	sig := func(lo, hi float64) bool { return lo > 0 || hi < 0 }
	// Figure 3: "we generally expect a boost in ranking performance when
	// choosing BPR over MF … less certain than in the prior meta-analysis,
	// it is still significant."
	fig3 := sertkanRun(t, bpr, ndcg, "md", sertkanDatasets, nil)
	logMeta(t, "fig3", fig3)
	s3 := fig3.Summary
	if !(*s3.Effect > 0 && *s3.CILow > 0) {
		t.Errorf("fig3: summary %v [%v, %v], published: positive and significant", *s3.Effect, *s3.CILow, *s3.CIHigh)
	}
	if *s3.SE <= *fig2.Summary.SE {
		t.Errorf("fig3: summary se %v not above fig2's %v (published: less certain)", *s3.SE, *fig2.Summary.SE)
	}
	// Figure 4, retail: "a performance decline for amazon-clothing, no
	// significant difference for amazon-toy, and performance gains for
	// amazon-digital-music and amazon-office … we do not expect
	// significant differences … for retail datasets."
	retail := sertkanDatasets[:4]
	fig4 := sertkanRun(t, bpr, ndcg, "md", retail, nil)
	logMeta(t, "fig4", fig4)
	wantSign := map[string]int{"amazon-clothing": -1, "amazon-toy": 0, "amazon-digital-music": 1, "amazon-office": 1}
	for _, row := range fig4.Rows {
		got := 0
		if sig(row.CILow, row.CIHigh) {
			got = int(math.Copysign(1, row.Effect))
		}
		if got != wantSign[row.Dataset] {
			t.Errorf("fig4 %s: effect %v [%v, %v], published sign %d", row.Dataset, row.Effect, row.CILow, row.CIHigh, wantSign[row.Dataset])
		}
	}
	if s := fig4.Summary; sig(*s.CILow, *s.CIHigh) {
		t.Errorf("fig4: summary [%v, %v] is significant; published: not", *s.CILow, *s.CIHigh)
	}
	// Figure 5, movies: "consistent and significant improvements".
	fig5 := sertkanRun(t, bpr, ndcg, "md", sertkanDatasets[4:], nil)
	logMeta(t, "fig5", fig5)
	for _, row := range fig5.Rows {
		if !(row.CILow > 0) {
			t.Errorf("fig5 %s: CI [%v, %v], published: significant gain", row.Dataset, row.CILow, row.CIHigh)
		}
	}
	if s := fig5.Summary; !(*s.CILow > 0) {
		t.Errorf("fig5: summary CI [%v, %v], published: significant gain", *s.CILow, *s.CIHigh)
	}
	// The same comparison with subgroups by domain gives Figures 4 and 5
	// as its subgroup summaries.
	dom := map[string]string{}
	for i, d := range sertkanDatasets {
		dom[d] = map[bool]string{true: "retail", false: "movies"}[i < 4]
	}
	sub := sertkanRun(t, bpr, ndcg, "md", nil, dom)
	for g, want := range map[string]Summary{"retail": fig4.Summary, "movies": fig5.Summary} {
		if got := sub.Subgroups[g]; math.Abs(*got.Effect-*want.Effect) > 1e-15 || math.Abs(*got.SE-*want.SE) > 1e-15 {
			t.Errorf("subgroup %s: %v ± %v, separate analysis %v ± %v", g, *got.Effect, *got.SE, *want.Effect, *want.SE)
		}
	}
	t.Logf("subgroups retail vs movies: Q_between=%.4g df=%d p=%.3g", *sub.QBetween, sub.DFBetween, *sub.PBetween)
}
