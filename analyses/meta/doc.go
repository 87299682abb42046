// Package meta is the meta_analysis analysis: each dataset's effect size
// of a treatment over a control (paired, two-group or given effects), a
// fixed- or random-effects summary with metafor's estimators, subgroups
// and sensitivity (leave-one-out, influence, Egger's test).
//
// It also holds metafor's (Viechtbauer 2010) computations beyond that
// analysis, each checked against R metafor 3.8 fixtures in
// testdata/oracle/meta/: effect sizes from the numbers papers print
// (escalc.go: 2×2 tables, proportions, correlations, incidence rates,
// zero-cell options and back-transformations), meta-regression with
// numeric and categorical moderators and tests z, t and knha
// (regression.go), Q-profile intervals of τ², I² and H²
// (heterogeneity.go), trim and fill, the rank correlation test and the
// fail-safe N (pubbias.go), and cumulative meta-analysis (cumul.go).
package meta
