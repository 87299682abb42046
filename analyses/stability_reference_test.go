package analyses

import (
	"testing"
	"time"
)

func TestStabilitySmokeReference(t *testing.T) {
	in := shevchenkoMatrix(t, "ndcg", "10")
	start := time.Now()
	r, err := Stability(StabilityInput{Metric: in.Metric, Datasets: in.Datasets, Methods: in.Methods, Q: in.Q, Seed: 1, Jobs: 2},
		StabilityOptions{Metric: "ndcg"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("took %v", time.Since(start))
	for _, s := range r.Summary {
		t.Logf("%-15s %v %v %d/%d", s.Rule, s.Area, s.SubsetRho, s.ParetoViolate, s.ParetoChecked)
	}
	for _, c := range r.Curves {
		if c.Perturbation == PerturbDropDatasets {
			t.Logf("%s 25:%.3f 20:%.3f", c.Rule, c.Points[24].Mean, c.Points[19].Mean)
		}
	}
	for _, w := range r.List {
		t.Log(w)
	}
}
