// Package datasets holds the analyses of the datasets themselves:
// characteristics (features of each dataset, computed from interaction
// logs or given, and their association with the methods' results),
// clusters (z-scores, PCA, outliers, k-means and per-cluster leaderboards)
// and dataset_selection (which subset of datasets ranks methods as the
// whole benchmark does).
package datasets
