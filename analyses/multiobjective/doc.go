// Package multiobjective is the multi_objective analysis: Pareto fronts of
// methods over pairs of objectives, fitted trade-off lines, and scores
// that weigh objectives, including the EvalRS 2022 scheme.
package multiobjective
