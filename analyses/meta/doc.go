// Package meta is the meta_analysis analysis: each dataset's effect size
// of a treatment over a control (paired, two-group or given effects), a
// fixed- or random-effects summary with metafor's estimators, subgroups
// and sensitivity (leave-one-out, influence, Egger's test).
package meta
