package figures

// Heatmaps of the association between dataset characteristics and
// performance (Shevchenko et al. 2024, Fig. 7): one per measure, features as rows and
// methods (then the pooled column) as columns, so a reader scans a row to
// see whether a feature matters for every method or only for some.

import (
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses/datasets"
)

// Characteristics draws Pearson, Spearman and mutual-information heatmaps
// of r; none when r has no metric.
func Characteristics(id, title string, r *datasets.CharacteristicsResult) ([]Figure, error) {
	if r.Metric == "" || len(r.Features) == 0 {
		return nil, nil
	}
	miMax := 0.0
	for _, row := range r.MutualInformation {
		for _, v := range row {
			if corrFinite(v) {
				miMax = math.Max(miMax, v)
			}
		}
	}
	if miMax == 0 {
		miMax = 1
	}
	panels := []struct {
		name, title string
		vals        [][]float64
		lo, hi      float64
		what        string
	}{
		{"pearson", "Pearson correlation", r.Pearson, -1, 1, "Pearson's r"},
		{"spearman", "Spearman correlation", r.Spearman, -1, 1, "Spearman's ρ"},
		{"mutual-information", "Mutual information", r.MutualInformation, 0, miMax, fmt.Sprintf("mutual information (nats, Kraskov k-NN estimator, k = %d)", r.Neighbors)},
	}
	var out []Figure
	for _, p := range panels {
		spec := HeatmapSpec(p.vals, labelled(r.Features, r.Naming.Feature), labelled(r.Methods, r.Naming.Method), p.lo, p.hi, p.title)
		spec.Subject = fmt.Sprintf("heatmap of the %s between %d dataset characteristics and %d methods", p.what, len(r.Features), len(r.Methods))
		spec.Caption = fmt.Sprintf("%s between each dataset characteristic and each method's %s over %d datasets; the last column, %s, pools every (dataset, method) pair.",
			corrCapitalise(p.what), r.Naming.Metric(r.Metric), len(r.Datasets), datasets.CharPooled)
		if anyUndefined(p.vals) { // named only where the figure has one
			spec.Caption += " Grey cells are undefined (see the notes)."
		}
		f, err := FigureOf(spec, id+"-"+p.name, p.title+" between dataset characteristics and "+r.Naming.Metric(r.Metric), 200+26*len(r.Features))
		if err != nil {
			return nil, fmt.Errorf("%s heatmap: %w", p.name, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// anyUndefined reports whether a heatmap has a cell without a value.
func anyUndefined(cells [][]float64) bool {
	for _, row := range cells {
		for _, v := range row {
			if !corrFinite(v) {
				return true
			}
		}
	}
	return false
}

func corrCapitalise(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	if r[0] >= 'a' && r[0] <= 'z' {
		r[0] -= 'a' - 'A'
	}
	return string(r)
}
