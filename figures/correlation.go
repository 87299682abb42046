package figures

// The metric-correlation heatmap (Shevchenko et al. 2024, Fig. 2). Metrics are shown in
// the analysis's clustered order, so blocks of metrics that agree (the
// accuracy and ranking metrics in Shevchenko et al. 2024) appear as one dark square and
// the beyond-accuracy metrics stand apart.

import (
	"fmt"

	"github.com/evalbook/evalbook/analyses/correlation"
)

// MetricCorrelation draws the mean correlation matrix of r as an annotated
// heatmap, rows and columns in r.Order.
func MetricCorrelation(id, title string, r *correlation.Result) ([]Figure, error) {
	n := len(r.Order)
	names := make([]string, n)
	vals := make([][]float64, n)
	for i, a := range r.Order {
		names[i] = r.Naming.Metric(r.Metrics[a])
		vals[i] = make([]float64, n)
		for j, b := range r.Order {
			vals[i][j] = r.Rho[a][b]
		}
	}
	method := map[string]string{correlation.Spearman: "Spearman", correlation.Pearson: "Pearson", correlation.Kendall: "Kendall tau-b"}[r.Method]
	spec := HeatmapSpec(vals, names, names, -1, 1, "mean "+method)
	how := "Lower-is-better metrics are negated first, so a positive value means the metrics agree on which methods are better."
	if r.Raw {
		how = "Values are correlated as given (raw = true)."
	}
	spec.Subject = fmt.Sprintf("heatmap of the mean correlation between %d metrics", n)
	spec.Caption = fmt.Sprintf("Mean %s correlation between metrics across methods, computed per dataset and averaged over the datasets where both metrics are defined. "+
		"Metrics are ordered by average-linkage clustering on 1 − ρ, so metrics that agree sit together; darker blue is stronger positive correlation, vermillion negative, grey undefined. %s",
		method, how)
	f, err := FigureOf(spec, id, "Correlation between metrics", 160+28*n)
	if err != nil {
		return nil, fmt.Errorf("metric correlation heatmap: %w", err)
	}
	return []Figure{f}, nil
}
