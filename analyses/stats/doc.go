// Package stats is the generic numerics of the analyses, with no
// knowledge of studies: ranks and correlation coefficients, Wilcoxon,
// Shapiro–Wilk, t, Mann–Whitney, sign and Friedman tests, the studentized
// range, the Bayesian signed-rank test, z-scores, PCA, k-means, cluster
// indices, the isolation forest, greedy optimal designs, Kraskov's mutual
// information and splitmix64. Each is checked against a reference
// implementation (testdata/oracle).
package stats
