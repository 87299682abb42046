package significance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// pText is how the report prints an oracle p-value.
func pText(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return fmt.Sprintf("p = %.3f", p)
}

// labelled runs a case with every method and the metric given a label,
// so the report must name them through Naming.
func labelled(t *testing.T, c autoCase, alpha float64) (*AutoResult, map[string]string) {
	t.Helper()
	res, err := Auto(c.input(), AutoOptions{Alpha: alpha})
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{}
	for _, m := range c.Methods {
		labels[m] = "Method " + strings.ToUpper(m)
	}
	res.Naming = analyses.Naming{Methods: labels, Metrics: map[string]string{"score": "nDCG@10"}}
	return res, labels
}

func mustContain(t *testing.T, name string, report []string, wants ...string) {
	t.Helper()
	text := strings.Join(report, " ")
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s: the report lacks %q:\n%s", name, w, strings.Join(report, "\n"))
		}
	}
}

// The paragraph of the ANOVA branch states the decisions with the
// oracle's statistics, the HSD groups and the effect sizes against the
// best method, naming methods by their labels.
func TestAutoReportNormal(t *testing.T) {
	c := loadAutoCases(t)["normal"]
	res, lab := labelled(t, c, c.Alpha)
	r := res.Report()
	for _, s := range r {
		if !strings.HasSuffix(s, ".") || strings.ContainsAny(s, "<>\\$") && !strings.Contains(s, "p < 0.001") {
			t.Errorf("sentence %q: not plain text ending in a full stop", s)
		}
	}
	minP := 1.0
	for _, p := range c.ShapiroP {
		minP = min(minP, p)
	}
	best := lab[c.Order[0]]
	mustContain(t, c.Name, r,
		"for 4 methods on 20 datasets by nDCG@10, at a family-wise significance level of α = 0.05.",
		fmt.Sprintf("at the Bonferroni-corrected level α/4 = 0.0125 did not reject normality for any method (smallest %s)", pText(minP)),
		fmt.Sprintf("Bartlett's test did not reject equal variances (%s)", pText(c.VarianceP)),
		"a repeated-measures ANOVA tested for differences between the means, with Tukey's HSD",
		fmt.Sprintf("(F(%g, %g) = %.3f, %s) rejects", *c.Omnibus.DF1, *c.Omnibus.DF2, c.Omnibus.Statistic, pText(c.Omnibus.P)),
		fmt.Sprintf("%s (M = %s, 95%% CI [%s, %s], SD = %s, MR = %.2f)", append([]any{best}, printedAlike(c.Central[0].Value, c.Central[0].Value, c.Central[0].Lower, c.Central[0].Upper, c.Central[0].Spread, c.MeanRanks[0])...)...),
		fmt.Sprintf("Against the best-ranked %s, the effect sizes (Cohen's d) are %s %.3f (%s)", best, lab[c.Pairs[0].B], *c.Pairs[0].Effect, c.Pairs[0].Magnitude),
	)
	// the groups: the oracle's significant pairs are exactly the pairs
	// not inside one group of the sentence
	var groups []string
	for _, cl := range res.Cliques {
		groups = append(groups, res.Naming.MethodList(cl))
	}
	mustContain(t, c.Name, r, "Tukey's HSD finds no significant difference within these groups: "+strings.Join(groups, "; ")+"; all other pairs differ significantly.")
	for _, p := range c.Pairs {
		inside := false
		for _, cl := range res.Cliques {
			a, b := false, false
			for _, m := range cl {
				a, b = a || m == p.A, b || m == p.B
			}
			inside = inside || (a && b)
		}
		if inside == p.Significant {
			t.Errorf("pair %s–%s: in a group %v, but the oracle's HSD says significant = %v", p.A, p.B, inside, p.Significant)
		}
	}
}

// The Friedman branch names the non-normal method with its p-value,
// Levene's median-centred test and Nemenyi's critical difference.
func TestAutoReportNonNormal(t *testing.T) {
	c := loadAutoCases(t)["nonnormal"]
	res, lab := labelled(t, c, c.Alpha)
	var rejected []string
	for i, p := range c.ShapiroP {
		if p < c.Alpha/4 {
			rejected = append(rejected, fmt.Sprintf("%s (%s)", lab[c.Order[i]], pText(p)))
		}
	}
	mustContain(t, c.Name, res.Report(),
		"rejected normality for "+analyses.JoinAnd(rejected)+", so not all methods are treated as normal.",
		fmt.Sprintf("Levene's test, centred on the median (Brown & Forsythe 1974), rejected equal variances (%s)", pText(c.VarianceP)),
		fmt.Sprintf("Because not all methods are normal, Friedman's test checked for differences in central tendency, with Nemenyi's test as post hoc test: two methods differ significantly when their mean ranks (MR) are more than the critical difference CD = %.3f apart", *c.CriticalDifference),
		"the 98.75% confidence interval of the median",
		fmt.Sprintf("Friedman's test (χ²(3) = %.3f, %s) rejects", c.Omnibus.Statistic, pText(c.Omnibus.P)),
		fmt.Sprintf("%s (MD = %s, 98.75%% CI [%s, %s], MAD = %s, MR = %.2f)", append([]any{lab[c.Order[0]]}, printedAlike(c.Central[0].Value, c.Central[0].Value, c.Central[0].Lower, c.Central[0].Upper, c.Central[0].Spread, c.MeanRanks[0])...)...),
		fmt.Sprintf("the effect sizes (Akinshin's γ) are %s %.3f (%s)", lab[c.Pairs[0].B], *c.Pairs[0].Effect, c.Pairs[0].Magnitude),
	)
}

// Two normal methods at α = 0.1, where the paired t-test rejects: the
// report says which is better with the oracle's d and Cliff's δ. At
// α = 0.05 it does not reject, and says so.
func TestAutoReportTwoNormal(t *testing.T) {
	c := loadAutoCases(t)["normal2"]
	p := c.Pairs[0]
	res, lab := labelled(t, c, 0.1)
	mustContain(t, c.Name, res.Report(),
		"Because both methods are normal, the paired t-test compared their means",
		"with two methods this does not change the test.",
		fmt.Sprintf("The paired t-test (t(11) = %.3f, %s) rejects that", *p.Statistic, pText(*p.P)),
		fmt.Sprintf("%s is significantly better than %s, with %s %s effect size (d = %.3f) and Cliff's δ = %.3f (%s).",
			lab[p.A], lab[p.B], article(p.Magnitude), p.Magnitude, *p.Effect, p.CliffsDelta, p.CliffsMagnitude),
	)
	res, _ = labelled(t, c, c.Alpha)
	mustContain(t, c.Name, res.Report(), fmt.Sprintf("(t(11) = %.3f, %s) does not reject that", *p.Statistic, pText(*p.P)),
		"there is no significant difference between them.")
}

func TestAutoReportTwoNonNormal(t *testing.T) {
	c := loadAutoCases(t)["nonnormal2"]
	p := c.Pairs[0]
	res, _ := labelled(t, c, c.Alpha)
	mustContain(t, c.Name, res.Report(),
		"Because one of the methods is not normal, Wilcoxon's signed-rank test (two-sided) compared them",
		fmt.Sprintf("Wilcoxon's test (T = %g, %s) does not reject", *p.Statistic, pText(*p.P)),
		"the 97.5% confidence interval of the median",
	)
}

// When the ANOVA rejects but the HSD separates no pair, the report says
// why instead of "all other pairs differ".
func TestAutoReportANOVAWithoutHSDPair(t *testing.T) {
	c := loadAutoCases(t)["normal_lower"]
	sig := false
	for _, p := range c.Pairs {
		sig = sig || p.Significant
	}
	if !c.Omnibus.Significant || sig {
		t.Fatal("the fixture no longer has an ANOVA rejection without an HSD pair: change the case")
	}
	res, _ := labelled(t, c, c.Alpha)
	r := strings.Join(res.Report(), " ")
	if strings.Contains(r, "all other pairs differ") || !strings.Contains(r, "treats the methods as independent samples (so its error includes the variation between datasets that the repeated-measures ANOVA removes), finds no pair of methods significantly different.") || len(res.Notes()) == 0 {
		t.Errorf("report %q, notes %v", r, res.Notes())
	}
}

// printedAlike is how the report prints a method's centre, interval and
// spread: each to the decimals that give the centre four significant
// digits (its exponent in scientific notation), trailing zeros kept; the
// last value (the mean rank) is passed on as it is.
func printedAlike(centre float64, vs ...float64) []any {
	e, _ := strconv.Atoi(strings.SplitN(strconv.FormatFloat(centre, 'e', 3, 64), "e", 2)[1])
	var out []any
	for _, v := range vs[:len(vs)-1] {
		out = append(out, strconv.FormatFloat(v, 'f', max(3-e, 0), 64))
	}
	return append(out, vs[len(vs)-1])
}
