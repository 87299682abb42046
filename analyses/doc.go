// Package analyses is evalbook's computation stage: data in, result structs
// out. Nothing here or below reads files, prints, renders or plots.
//
// This package is the model every analysis shares: Table, Result,
// Highlighter and Warnings (what an analysis returns), Metric, Results and
// Matrix (what it reads), the bounds and checks of options (OptionError,
// Check*, OneOf) and small helpers for names (DidYouMean, SortedKeys) and
// optional numbers (Opt, CellValue, CellPtr). The analyses themselves live
// in one package per family, and generic numerics in stats:
//
//   - leaderboard: aggregate (ranking rules) and stability;
//   - significance: critical_difference and paired_tests;
//   - datasets: characteristics, clusters and dataset_selection;
//   - correlation: metric_correlation;
//   - meta: meta_analysis;
//   - offline: offline_metrics;
//   - multiobjective: multi_objective;
//   - stats: ranks, correlation coefficients, hypothesis tests, PCA,
//     k-means, isolation forest, mutual information, splitmix64.
//
// Every analysis follows one shape (see STYLE.md):
//
//   - an options struct decoded from its [[analyses]] TOML table, with
//     documented defaults and a Validate method;
//   - an input struct built by package report from the study's inputs;
//   - a pure function from (input, options) to a result struct;
//   - a result struct that carries Warnings and implements Result, so the
//     site writer can emit its tables as HTML, CSV, Markdown and JSON.
//
// Streaming inputs are handled with two-phase builders (Add, then Finish),
// after benchstat: package report pushes rows in, the builder keeps only
// what the analysis needs.
//
// Ranks are 1 = best; ties get the average rank. Metric direction is
// handled by the caller orienting values so that higher is better, or by
// the Better field where an analysis needs to know.
package analyses
