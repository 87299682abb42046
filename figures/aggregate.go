package figures

import (
	"fmt"
	"sort"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
)

// Aggregate draws the Dolan–Moré performance profiles of an aggregate
// result (Dolan and Moré 2002, as Shevchenko et al. 2024 Fig. 3): one
// line per method in the method's study-wide style, AUC in the legend
// (beside the plot, never over the curves), methods ordered by AUC.
func Aggregate(id, title string, r *leaderboard.AggregateResult) ([]Figure, error) {
	if r.Profile == nil {
		return nil, nil
	}
	s := AggregateSpec(r)
	f, err := FigureOf(s, id, "Performance profiles", 460)
	if err != nil {
		return nil, err
	}
	return []Figure{f}, nil
}

// AggregateSpec is the performance-profile figure's spec.
func AggregateSpec(r *leaderboard.AggregateResult) *Spec {
	p := r.Profile
	order := make([]int, len(r.Methods))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p.AUC[order[a]] > p.AUC[order[b]] })
	order, dropped := topSeries(order, "methods (by AUC)")
	styles := StylesOf(r.Naming)
	pn := Panel{X: NewAxis("β (ratio to the best value)"), Y: NewAxis("share of datasets ρ(β)").Fixed(0, 1)}
	if len(p.Beta) > 0 {
		pn.X.Min = 1
	}
	for _, m := range order {
		y := make([]float64, len(p.Beta))
		copy(y, p.Rho[m])
		pn.Marks = append(pn.Marks, Mark{Kind: MarkLine, Series: fmt.Sprintf("%s (AUC %s)", r.Naming.Method(r.Methods[m]), analyses.FormatSig(p.AUC[m], 4)), // as the key finding
			Style: styles.Method(r.Methods[m]), X: append([]float64(nil), p.Beta...), Y: y})
	}
	return &Spec{Panels: []Panel{pn}, Legend: LegendRight, Width: 7, Height: 4.5,
		Subject: fmt.Sprintf("performance profiles of %d methods", len(r.Methods)),
		Caption: fmt.Sprintf("Dolan–Moré performance profiles of %s over %d datasets: the share of datasets on which each method is within a factor β of the best. AUC (normalised to sum to 1) in the legend.", r.Naming.Metric(r.Metric), len(r.Datasets)) + dropped}
}

// EChartsJSON returns a go-echarts chart's option as deterministic JSON.
func EChartsJSON(c interface {
	Validate()
	JSON() map[string]any
}) ([]byte, error) {
	c.Validate()
	m := c.JSON()
	return ChartJSON(m)
}
