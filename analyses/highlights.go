package analyses

import (
	"fmt"
	"math"
	"strings"
)

// One-sentence key findings for the site's overview (Highlighter). They
// read only fields the analyses computed; nothing here is a new statistic.

// Highlight: the number of clusters, their quality and the outliers.
func (r *ClustersResult) Highlight() string {
	if r.K == 0 {
		return ""
	}
	s := fmt.Sprintf("%d clusters of %d datasets", r.K, len(r.Datasets))
	if r.Silhouette != nil {
		s += fmt.Sprintf(" (silhouette %.2f)", *r.Silhouette)
	}
	if len(r.Outliers) > 0 {
		s += fmt.Sprintf("; %d outlier(s): %s", len(r.Outliers), strings.Join(r.Outliers, ", "))
	}
	if len(r.Representatives) > 0 {
		s += "; representatives " + strings.Join(r.Representatives, ", ")
	}
	return s + "."
}

// Highlight: the strategy whose chosen datasets rank most like all.
func (r *SelectionResult) Highlight() string {
	best, bestV := "", math.Inf(-1)
	for _, st := range r.Strategies {
		var sum float64
		n := 0
		for _, m := range r.Metrics {
			if v, ok := r.MeanRho[st][m]; ok && !math.IsNaN(v) {
				sum += v
				n++
			}
		}
		if n > 0 && sum/float64(n) > bestV {
			best, bestV = st, sum/float64(n)
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("With %d of %d datasets, %s selection ranks most like all datasets (mean Spearman ρ %.3f over %d simulations).",
		r.Size, len(r.Datasets), best, bestV, r.Simulations)
}

// Highlight: the feature most associated with performance.
func (r *CharacteristicsResult) Highlight() string {
	bestF, bestM, best := -1, -1, 0.0
	for f := range r.Spearman {
		for m, v := range r.Spearman[f] {
			if !math.IsNaN(v) && math.Abs(v) > math.Abs(best) {
				bestF, bestM, best = f, m, v
			}
		}
	}
	s := fmt.Sprintf("%d features of %d datasets", len(r.Features), len(r.Datasets))
	if bestF >= 0 && bestM < len(r.Methods) {
		s += fmt.Sprintf("; %s is the feature most associated with %s of %s (Spearman %.2f)", r.Features[bestF], r.Metric, r.Methods[bestM], best)
	}
	return s + "."
}
