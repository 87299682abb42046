package main

// The multi_objective demo needs what Chia et al. 2023 had: a data
// challenge's leaderboard, where teams submit several models that trade
// accuracy against fairness and diversity. This writes one, with the shape
// of the EvalRS 2022 submissions (MRED-like fairness stored negated so that
// higher is better; a few submissions below the hit-rate threshold).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
)

// genMultiObjective writes data/submissions.csv: about 60 submissions by
// 15 teams, one row each (team, submission, hit_rate, mrr, mred_gender,
// mred_country, diversity).
func genMultiObjective(dir string, rng *rand.Rand) error {
	teams := []string{"aurora", "basalt", "cobalt", "delta-rec", "ember", "fjord", "granite", "helix",
		"ion", "juniper", "krill", "lumen", "meridian", "nimbus", "onyx"}
	lines := []string{"team,submission,hit_rate,mrr,mred_gender,mred_country,diversity"}
	for _, team := range teams {
		skill := 0.4 + 0.6*rng.Float64()
		style := rng.Float64() // 1: chases accuracy, 0: chases fairness and diversity
		n := 3 + rng.IntN(4)
		for s := 1; s <= n; s++ {
			// Each submission moves along the team's own trade-off.
			t := clamp(style+0.25*rng.NormFloat64(), 0, 1)
			q := skill * (0.85 + 0.3*rng.Float64()*float64(s)/float64(n))
			hit := clamp(0.004+0.24*q*(0.25+0.75*t)+0.006*rng.NormFloat64(), 0.002, 0.4)
			if s == 1 && rng.Float64() < 0.35 {
				// A first try near the baseline, below the threshold.
				hit = 0.006 + 0.008*rng.Float64()
			}
			mrr := clamp(hit*(0.22+0.04*rng.NormFloat64()), 0.0002, 0.2)
			gender := -math.Abs(0.0005 + 0.009*t*(1.2-0.5*q) + 0.0008*rng.NormFloat64())
			country := -math.Abs(0.003 + 0.006*t*(1.2-0.5*q) + 0.0008*rng.NormFloat64())
			div := clamp(-0.45+0.3*(1-t)+0.12*q+0.02*rng.NormFloat64(), -0.6, 0)
			lines = append(lines, fmt.Sprintf("%s,%d,%s,%s,%s,%s,%s", team, s, fmtF(hit), fmtF(mrr), fmtF(gender), fmtF(country), fmtF(div)))
		}
	}
	return writeLines(filepath.Join(dir, "data", "submissions.csv"), lines)
}
