package figures

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/evalbook/evalbook/analyses"
)

func TestDumpStabilityRef(t *testing.T) {
	f, err := os.Open("../../shared/reference/shevchenko2024/agg_metrics.csv")
	if err != nil {
		t.Skip()
	}
	recs, _ := csv.NewReader(f).ReadAll()
	var b analyses.ResultsBuilder
	for _, r := range recs[1:] {
		if r[2] == "ndcg" && r[3] == "10" {
			v, _ := strconv.ParseFloat(r[4], 64)
			b.Add(r[1], r[0], "ndcg", v)
		}
	}
	res := b.Finish()
	r, err := analyses.Stability(analyses.StabilityInput{Metric: analyses.Metric{Name: "ndcg", Max: math.Inf(1)}, Datasets: res.Datasets, Methods: res.Methods, Q: res.Matrix("ndcg", res.Datasets, res.Methods), Seed: 1, Jobs: 2}, analyses.StabilityOptions{Metric: "ndcg"})
	if err != nil {
		t.Fatal(err)
	}
	figs, err := Stability("s", "", r)
	if err != nil {
		t.Fatal(err)
	}
	colourOf := map[string]int{}
	for i, rule := range r.Rules {
		colourOf[rule] = i
	}
	for _, pert := range r.Perturbations {
		var curves []*analyses.StabilityCurve
		for _, rule := range r.Rules {
			if c := r.Curve(pert, rule); c != nil {
				curves = append(curves, c)
			}
		}
		p, _ := stabilityPlot(r, pert, curves, colourOf, len(curves[0].Points) <= 12)
		p.Save(7*vg.Inch, 4.5*vg.Inch, "/tmp/stabfig/"+pert+".png")
	}
	for _, f := range figs {
		os.WriteFile("/tmp/stabfig/"+f.ID+".svg", f.SVG, 0o644)
		os.WriteFile("/tmp/stabfig/"+f.ID+".json", f.Chart, 0o644)
	}
}
