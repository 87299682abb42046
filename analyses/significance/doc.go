// Package significance holds the hypothesis-testing analyses:
// critical_difference (Friedman, Nemenyi, Wilcoxon–Holm and Bayesian
// signed-rank tests over datasets) and paired_tests (two methods compared
// over the units or folds they share).
package significance
