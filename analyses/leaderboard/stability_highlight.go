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
			parts = append(parts, fmt.Sprintf("removing datasets changes the %s ranking least (mean ρ %.3f) and the %s ranking most (%.3f)",
				r.Summary[best].Rule, float64(r.Summary[best].Area[PerturbDropDatasets]),
				r.Summary[worst].Rule, float64(r.Summary[worst].Area[PerturbDropDatasets])))
		}
	}
	var bad []string
	checked := 0
	for _, p := range r.Pareto {
		checked = max(checked, p.Checked)
		if p.Violations > 0 {
			bad = append(bad, p.Rule)
		}
	}
	if len(bad) == 0 {
		parts = append(parts, fmt.Sprintf("every rule is Pareto efficient on the %d matrices checked", checked))
	} else {
		parts = append(parts, fmt.Sprintf("%s rank a dominated method above its dominator at least once", strings.Join(bad, ", ")))
	}
	s := strings.Join(parts, "; ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}
