package leaderboard

// Why this file exists: the site's overview shows one key finding per
// analysis (Highlighter); for stability it is which rule keeps its ranking
// best when datasets are removed, and whether any rule broke Pareto
// efficacy. It reads only what Stability computed.

import (
	"fmt"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// Highlight: the most and least stable rule under drop_datasets (the
// curve's mean height) and the Pareto check.
func (r *StabilityResult) Highlight() string {
	if len(r.Summary) == 0 {
		return ""
	}
	var parts []string
	if r.has(PerturbDropDatasets) {
		best, worst := -1, -1
		for i, s := range r.Summary {
			a := float64(s.Area[PerturbDropDatasets])
			if !analyses.Finite(a) {
				continue
			}
			if best < 0 || a > float64(r.Summary[best].Area[PerturbDropDatasets]) {
				best = i
			}
			if worst < 0 || a < float64(r.Summary[worst].Area[PerturbDropDatasets]) {
				worst = i
			}
		}
		if best >= 0 && best != worst {
			var col []float64 // the table's column of areas, as it prints it
			for _, s := range r.Summary {
				if a := float64(s.Area[PerturbDropDatasets]); analyses.Finite(a) {
					col = append(col, a)
				}
			}
			parts = append(parts, fmt.Sprintf("removing datasets changes the %s ranking least (mean ρ %s) and the %s ranking most (%s)",
				ruleName(r.Naming, r.Summary[best].Rule), analyses.ColumnText(float64(r.Summary[best].Area[PerturbDropDatasets]), col),
				ruleName(r.Naming, r.Summary[worst].Rule), analyses.ColumnText(float64(r.Summary[worst].Area[PerturbDropDatasets]), col)))
		}
	}
	if len(r.Pareto) > 0 {
		parts = append(parts, r.paretoHighlight())
	}
	if len(parts) == 0 {
		return ""
	}
	s := strings.Join(parts, "; ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// paretoHighlight says which rules kept Pareto efficacy, each with its
// own count of checked matrices (a rule that cannot be computed on some
// perturbed matrices checks fewer): rules that checked as many are named
// together.
func (r *StabilityResult) paretoHighlight() string {
	var bad []string
	var counts []int
	byCount := map[int][]string{}
	for _, p := range r.Pareto {
		name := ruleName(r.Naming, p.Rule)
		if p.Violations > 0 {
			bad = append(bad, fmt.Sprintf("%s (%d of %d matrices)", name, p.Violations, p.Checked))
			continue
		}
		if byCount[p.Checked] == nil {
			counts = append(counts, p.Checked)
		}
		byCount[p.Checked] = append(byCount[p.Checked], name)
	}
	var good []string
	for _, c := range counts {
		good = append(good, fmt.Sprintf("%s on %d matrices", analyses.JoinAnd(byCount[c]), c))
	}
	switch {
	case len(bad) == 0 && len(counts) == 1:
		return fmt.Sprintf("every rule is Pareto efficient on the %d matrices each checked", counts[0])
	case len(bad) == 0:
		return "every rule is Pareto efficient: " + strings.Join(good, ", ")
	case len(good) == 0:
		return analyses.JoinAnd(bad) + " rank a dominated method above its dominator"
	}
	return analyses.JoinAnd(bad) + " rank a dominated method above its dominator; " + strings.Join(good, ", ") + " never do"
}

// Notes are the warnings, those about one perturbation under one rule
// led by their labels ("Removing methods, Plurality: ρ is undefined
// …"): the warnings are written while computing, before the study's
// naming is set (or restored from the cache without it), so they keep
// the ids, in code spans ("`drop_methods`, `plurality`: …").
func (r *StabilityResult) Notes() []string {
	out := make([]string, len(r.List))
	for i, w := range r.List {
		out[i] = w
		p, rest, ok1 := strings.Cut(w, ", ")
		rule, tail, ok2 := strings.Cut(rest, ": ")
		pid, rid := strings.Trim(p, "`"), strings.Trim(rule, "`")
		if _, known := analyses.PerturbationLabels[pid]; ok1 && ok2 && known && p == "`"+pid+"`" && rule == "`"+rid+"`" {
			tail = strings.ReplaceAll(tail, "`"+pid+"_area`", "its area") // the column the note's perturbation heads
			out[i] = r.Naming.Perturbation(pid) + ", " + ruleName(r.Naming, rid) + ": " + tail
		}
	}
	return out
}
