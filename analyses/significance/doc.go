// Package significance holds the hypothesis-testing analyses:
// critical_difference (Friedman, Nemenyi, Wilcoxon–Holm and Bayesian
// signed-rank tests over datasets), paired_tests (two methods compared
// over the units or folds they share) and Auto, autorank's automatic
// choice between repeated-measures ANOVA with Tukey's HSD, Friedman with
// Nemenyi, the paired t-test and Wilcoxon's test (Herbold 2020).
package significance
