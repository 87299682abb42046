// Package correlation is the metric_correlation analysis: how metrics
// agree, as per-dataset correlations across methods (Spearman, Pearson or
// Kendall's tau-b) averaged over datasets, and a leaf order that groups
// correlated metrics.
package correlation
