package leaderboard

import (
	"math"
	"testing"
)

// TestStabilityReference runs the full stability analysis on Shevchenko et
// al.'s (2024) own data (nDCG@10, 30 datasets × 11 methods; skipped when
// ../shared/reference is absent) and checks that every curve is produced
// for every rule, then compares with the paper.
//
// Table 3 (numbers printed in the paper and cited in issue 5; DM AUC, DM
// LBO, Mean ranks, MA, Geom, Harm, Copeland, Minimax):
//
//	5 datasets   0.799 0.785 0.825 0.717 0.834 0.756 0.816 0.525
//	10 datasets  0.895 0.887 0.912 0.825 0.899 0.885 0.907 0.767
//
// The paper says these are ρ between 100 random pairs of subsets; our
// subset_pairs (disjoint pairs, as that text reads) gives much lower values
// here (0.59–0.71 for 5 and 0.66–0.81 for 10; Minimax 0.41 and 0.61). What
// matches the printed values is ρ between the ranking on 5 (10) random
// datasets and the ranking on all 30: our rho_vs_all_5/10 (the
// drop_datasets points at 25 and 20) are within 0.035 of every printed
// value except Minimax, which is within the error of 100 random draws (sd
// of ρ ≈ 0.1–0.2, so ±0.02–0.04).
//
// Minimax (ours 0.669 / 0.824 against 0.525 / 0.767): on 5 or 10 datasets
// its scores are small integers with many ties. We rank ties by average
// rank (scipy.stats.spearmanr); breaking them by method position instead
// gives 0.46 / 0.74 with the methods in alphabetical order and 0.81 / 0.87
// in the order of agg_metrics.csv (checked with scipy, 2000–4000 draws),
// so the paper's number reflects its tie-breaking, not a different rule:
// its Table 2 Minimax scores (EASE −0, SLIM −21, …) are the ones
// aggregate.go computes (−max over all methods would give EASE −9). The
// same position-based tie-breaking brings Mean ranks and Copeland to
// 0.823 / 0.903 and 0.822 / 0.903, nearer the printed 0.825 / 0.912 and
// 0.816 / 0.907.
//
// Figures (qualitative, read from the paper's text):
//   - Fig. 5 (drop datasets): every rule degrades slowly, Minimax worst
//     among the paper's eight rules — as here (area 0.85 against 0.87–0.93).
//     The paper names Geom, Harm and DM LBO the most stable; here mean rank
//     (= Borda), Copeland and Geom lead by about 0.01, less than the bands.
//     The paper's "low ρ after dropping 15 datasets" for Minimax is 0.89
//     here, higher for the tie reason above.
//   - Fig. 6 (drop methods): the three means are exactly 1 (a method's mean
//     does not depend on the others); Minimax degrades most, DM AUC more
//     than DM LBO, as the paper says.
//   - Fig. 9a (near-copy): Mean ranks is the least stable of the
//     non-Minimax rules (≈ 0.99) as in Table 3; Copeland stays ≥ 0.999 here
//     while the paper marks it unstable: a copy creates ties in Copeland's
//     integer scores, which average ranks count as half a swap (again tie
//     handling). Minimax falls to ≈ 0.78 once α > 1, as the paper reports.
//   - Fig. 9b (new best): DM LBO, Mean ranks, the means and Copeland stay
//     at exactly 1; Minimax is undefined for every α > 1 (the new method
//     beats every other on every dataset, so all its other scores equal
//     −D); DM AUC falls to ≈ 0.65 at α = 3 and is undefined beyond (every
//     other method is more than β̂ = 3 times worse on every dataset, so all
//     their areas are 0) — the paper's "DM AUC becomes unstable as α → 4".
//   - Fig. 9c (β̂): ρ = 1 at β̂ = 3 and falls towards β̂ = 1.5 for both DM
//     rules; DM LBO's mean ρ over the grid (0.974) is above DM AUC's
//     (0.961), as Shevchenko et al. (2024, §4.2.3) say ("DM LBO showing
//     more robustness"), while their Appendix B.3 says the opposite: the
//     paper contradicts itself.
func TestStabilityReference(t *testing.T) {
	skipUnderRace(t, "its workers are the ones TestStabilityJobsIndependent runs with 1, 2 and 5 jobs")
	t.Parallel()
	in := shevchenkoMatrix(t, "ndcg", "10")
	r, err := Stability(StabilityInput{Metric: in.Metric, Datasets: in.Datasets, Methods: in.Methods, Q: in.Q, Seed: 1, Jobs: 2},
		StabilityOptions{Metric: "ndcg"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rules) != len(AllRules) {
		t.Fatalf("rules %v", r.Rules)
	}
	points := map[string]int{PerturbDropDatasets: 28, PerturbDropMethods: 8, PerturbSimilarMethod: 31,
		PerturbBestMethod: 31, PerturbBeta: 86, PerturbSubsetPairs: 2}
	for _, p := range AllPerturbations {
		for _, rule := range AllRules {
			c := r.Curve(p, rule)
			if p == PerturbBeta && rule != RuleDMAUC && rule != RuleDMLBO {
				if c != nil {
					t.Errorf("beta curve for %s", rule)
				}
				continue
			}
			if c == nil || len(c.Points) != points[p] {
				t.Errorf("%s/%s: curve %v, want %d points", p, rule, c, points[p])
			}
		}
	}
	sum := map[string]StabilitySummary{}
	for _, s := range r.Summary {
		sum[s.Rule] = s
	}
	// Table 3, as printed in Shevchenko et al. 2024 (cited in issue 5).
	table3 := map[string][2]float64{
		RuleDMAUC: {0.799, 0.895}, RuleDMLBO: {0.785, 0.887}, RuleMeanRank: {0.825, 0.912}, RuleMean: {0.717, 0.825},
		RuleGeometricMean: {0.834, 0.899}, RuleHarmonicMean: {0.756, 0.885}, RuleCopeland: {0.816, 0.907}, RuleMinimax: {0.525, 0.767},
	}
	for rule, want := range table3 {
		for i, size := range []string{"5", "10"} {
			got := float64(sum[rule].VsAll[size])
			pairs := float64(sum[rule].SubsetRho[size])
			t.Logf("%-15s %2s datasets: vs all %.3f, disjoint pairs %.3f, Table 3 %.3f", rule, size, got, pairs, want[i])
			if rule == RuleMinimax {
				continue // tie handling, see the doc comment
			}
			if math.Abs(got-want[i]) > 0.04 {
				t.Errorf("%s, %s datasets: ρ vs all data %.3f, Table 3 %.3f", rule, size, got, want[i])
			}
			if !(pairs < got) {
				t.Errorf("%s, %s datasets: disjoint pairs %.3f not below vs-all %.3f", rule, size, pairs, got)
			}
		}
	}
	area := func(rule, p string) float64 { return float64(sum[rule].Area[p]) }
	for _, rule := range []string{RuleDMAUC, RuleDMLBO, RuleMeanRank, RuleMean, RuleGeometricMean, RuleHarmonicMean, RuleCopeland} {
		if area(RuleMinimax, PerturbDropDatasets) >= area(rule, PerturbDropDatasets) {
			t.Errorf("Fig. 5: minimax (%.3f) not below %s (%.3f)", area(RuleMinimax, PerturbDropDatasets), rule, area(rule, PerturbDropDatasets))
		}
		if area(RuleMinimax, PerturbDropMethods) >= area(rule, PerturbDropMethods) {
			t.Errorf("Fig. 6: minimax not below %s", rule)
		}
	}
	for _, rule := range []string{RuleMean, RuleGeometricMean, RuleHarmonicMean} {
		if area(rule, PerturbDropMethods) != 1 {
			t.Errorf("Fig. 6: %s area %v, want exactly 1", rule, area(rule, PerturbDropMethods))
		}
	}
	if !(area(RuleDMAUC, PerturbDropMethods) < area(RuleDMLBO, PerturbDropMethods)) {
		t.Error("Fig. 6: DM AUC should degrade more than DM LBO")
	}
	for _, rule := range []string{RuleDMLBO, RuleMeanRank, RuleMean, RuleGeometricMean, RuleHarmonicMean, RuleCopeland} {
		if area(rule, PerturbBestMethod) != 1 {
			t.Errorf("Fig. 9b: %s area %v, want 1", rule, area(rule, PerturbBestMethod))
		}
	}
	if a := area(RuleDMAUC, PerturbBestMethod); !(a < 0.95) {
		t.Errorf("Fig. 9b: DM AUC area %v, want unstable", a)
	}
	if c := r.Curve(PerturbBestMethod, RuleMinimax); c.Points[len(c.Points)-1].Undefined != 1 {
		t.Errorf("Fig. 9b: minimax at α = 4: %+v, want undefined", c.Points[len(c.Points)-1])
	}
	for _, rule := range []string{RuleDMAUC, RuleDMLBO} {
		for _, p := range r.Curve(PerturbBeta, rule).Points {
			if p.Size == 3 && p.Mean != 1 {
				t.Errorf("Fig. 9c: %s at β̂ = 3 has ρ %v", rule, p.Mean)
			}
		}
	}
	if !(area(RuleMeanRank, PerturbSimilarMethod) < area(RuleDMAUC, PerturbSimilarMethod)) {
		t.Error("Fig. 9a: mean rank should be less stable than DM AUC under a near-copy")
	}
	for _, p := range r.Pareto {
		if p.Violations != 0 {
			t.Errorf("%s: %d Pareto violations (%s)", p.Rule, p.Violations, p.First)
		}
	}
}
