package significance

// The generated paragraph of the automatic test choice, in the manner of
// autorank's create_report (Herbold 2020), and the result's tables.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// Report returns the paragraph stating the procedure and its result, as
// plain-text sentences (Unicode: α, χ², δ, γ, ±, –), each ending in a
// full stop, with methods and the metric named through r.Naming. It holds
// no markup: a renderer escapes each sentence for Markdown or LaTeX and
// joins them with spaces.
func (r *AutoResult) Report() []string {
	if len(r.Methods) == 0 {
		return nil
	}
	n := r.Naming
	k := len(r.Methods)
	var out []string
	out = append(out, fmt.Sprintf("The tests were chosen automatically as in autorank (Herbold 2020) for %d methods on %s by %s, at a family-wise significance level of α = %g.",
		k, analyses.Count(len(r.Datasets), "dataset", "datasets"), n.Metric(r.Metric), r.Alpha))
	out = append(out, r.reportNormality())
	out = append(out, r.reportVariance())
	out = append(out, r.reportBranch())
	out = append(out, r.reportOmnibus()...)
	return out
}

// reportNormality states the Shapiro–Wilk decisions.
func (r *AutoResult) reportNormality() string {
	n := r.Naming
	head := fmt.Sprintf("Shapiro–Wilk tests at the Bonferroni-corrected level α/%d = %.4g", len(r.Methods), r.AlphaNormality)
	if r.AllNormal {
		minP := math.Inf(1)
		for _, nm := range r.Normality {
			minP = math.Min(minP, *nm.P)
		}
		return head + fmt.Sprintf(" did not reject normality for any method (smallest %s), so all methods are treated as normal.", fmtP(&minP))
	}
	var rejected, undefined []string
	for _, nm := range r.Normality {
		switch {
		case nm.P == nil:
			undefined = append(undefined, n.Method(nm.Method))
		case !nm.Normal:
			rejected = append(rejected, fmt.Sprintf("%s (%s)", n.Method(nm.Method), fmtP(nm.P)))
		}
	}
	var parts []string
	if len(rejected) > 0 {
		parts = append(parts, "rejected normality for "+analyses.JoinAnd(rejected))
	}
	if len(undefined) > 0 {
		parts = append(parts, "could not be run for "+analyses.JoinAnd(undefined)+" (every value the same), which is treated as not normal")
	}
	return head + " " + strings.Join(parts, " and ") + ", so not all methods are treated as normal."
}

// reportVariance states the test of equal variances.
func (r *AutoResult) reportVariance() string {
	name := "Bartlett's test"
	if r.VarianceTest == "levene" {
		name = "Levene's test, centred on the median (Brown & Forsythe 1974),"
	}
	if r.VarianceP == nil {
		return name + " of equal variances is undefined for these values, so the variances are treated as unequal."
	}
	var s string
	if r.Homoscedastic {
		s = fmt.Sprintf("%s did not reject equal variances (%s), so the variances are treated as equal", name, fmtP(r.VarianceP))
	} else {
		s = fmt.Sprintf("%s rejected equal variances (%s), so the variances are treated as unequal", name, fmtP(r.VarianceP))
	}
	if len(r.Methods) == 2 {
		s += "; with two methods this does not change the test"
	}
	return s + "."
}

// reportBranch states which tests were chosen, why, and what is reported.
func (r *AutoResult) reportBranch() string {
	level := fmtPercent(r.CILevel)
	var report string
	if r.AllNormal {
		report = fmt.Sprintf("the mean (M), the standard deviation (SD) and the %s confidence interval of the mean", level)
	} else {
		report = fmt.Sprintf("the median (MD), the median absolute deviation (MAD) and the %s confidence interval of the median", level)
	}
	switch r.Branch {
	case AutoANOVATukey:
		return fmt.Sprintf("Because all methods are normal with equal variances, a repeated-measures ANOVA tested for differences between the means, with Tukey's HSD as post hoc test; each method is reported with its mean (M), its standard deviation (SD) and Tukey's simultaneous %s interval, and two methods differ significantly when their intervals do not overlap.", level)
	case AutoFriedmanNemenyi:
		why := "not all methods are normal"
		if r.AllNormal {
			why = "the variances are unequal"
		}
		return fmt.Sprintf("Because %s, Friedman's test checked for differences in central tendency, with Nemenyi's test as post hoc test: two methods differ significantly when their mean ranks (MR) are more than the critical difference CD = %.3f apart; each method is reported with %s.",
			why, *r.CriticalDifference, report)
	case AutoPairedT:
		return fmt.Sprintf("Because both methods are normal, the paired t-test compared their means; each method is reported with %s.", report)
	}
	which := "both methods are"
	if r.Normality[0].Normal || r.Normality[1].Normal {
		which = "one of the methods is"
	}
	return fmt.Sprintf("Because %s not normal, Wilcoxon's signed-rank test (two-sided) compared them; each method is reported with %s.", which, report)
}

// reportOmnibus states the omnibus (or two-method) test and the post hoc
// groups and effect sizes.
func (r *AutoResult) reportOmnibus() []string {
	n := r.Naming
	all := make([]string, len(r.Methods))
	for i := range r.Methods {
		all[i] = r.methodStats(i)
	}
	methods := analyses.JoinAnd(all)
	if r.OmnibusP == nil {
		name := map[string]string{AutoANOVATukey: "The repeated-measures ANOVA", AutoFriedmanNemenyi: "Friedman's test", AutoPairedT: "The paired t-test", AutoWilcoxon: "Wilcoxon's test"}[r.Branch]
		return []string{fmt.Sprintf("%s is undefined for %s (see the notes), so no conclusion is drawn about differences between the methods.", name, methods)}
	}
	if len(r.Methods) == 2 {
		p := r.Pairs[0]
		var test string
		if r.Branch == AutoPairedT {
			test = "The paired t-test" + paren(fmt.Sprintf("t(%g) = %.3f", num(r.OmnibusDF1), num(r.OmnibusStatistic)), r.OmnibusStatistic != nil, r.OmnibusP)
		} else {
			test = "Wilcoxon's test" + paren(fmt.Sprintf("T = %g", num(r.OmnibusStatistic)), r.OmnibusStatistic != nil, r.OmnibusP)
		}
		if !r.OmnibusSignificant {
			return []string{fmt.Sprintf("%s does not reject that %s perform the same: there is no significant difference between them.", test, methods)}
		}
		return []string{fmt.Sprintf("%s rejects that %s perform the same: %s is significantly better than %s, with %s.",
			test, methods, n.Method(p.A), n.Method(p.B), r.effectPhrase(p))}
	}
	var test string
	if r.Branch == AutoANOVATukey {
		test = "The repeated-measures ANOVA" + paren(fmt.Sprintf("F(%g, %g) = %.3f", num(r.OmnibusDF1), num(r.OmnibusDF2), num(r.OmnibusStatistic)), r.OmnibusStatistic != nil, r.OmnibusP)
	} else {
		test = "Friedman's test" + paren(fmt.Sprintf("χ²(%g) = %.3f", num(r.OmnibusDF1), num(r.OmnibusStatistic)), r.OmnibusStatistic != nil, r.OmnibusP)
	}
	if !r.OmnibusSignificant {
		return []string{fmt.Sprintf("%s does not reject that %s perform the same: there is no significant difference between the methods.", test, methods)}
	}
	out := []string{fmt.Sprintf("%s rejects that %s perform the same: there are significant differences between the methods.", test, methods)}
	post := "Tukey's HSD"
	if r.Branch == AutoFriedmanNemenyi {
		post = "Nemenyi's test"
	}
	switch {
	case len(r.Cliques) == 0:
		out = append(out, post+" finds every pair of methods significantly different.")
	case len(r.Cliques) == 1 && len(r.Cliques[0]) == len(r.Methods) && r.Branch == AutoANOVATukey:
		out = append(out, "Tukey's HSD, which as in autorank treats the methods as independent samples (so its error includes the variation between datasets that the repeated-measures ANOVA removes), finds no pair of methods significantly different.")
	case len(r.Cliques) == 1 && len(r.Cliques[0]) == len(r.Methods):
		out = append(out, post+" finds no pair of methods significantly different.")
	default:
		groups := make([]string, len(r.Cliques))
		for i, c := range r.Cliques {
			groups[i] = n.MethodList(c)
		}
		out = append(out, fmt.Sprintf("%s finds no significant difference within %s: %s; all other pairs differ significantly.",
			post, plural(len(groups), "this group", "these groups"), strings.Join(groups, "; ")))
	}
	var effects []string
	for _, p := range r.Pairs {
		if p.A != r.Methods[0] {
			continue
		}
		effects = append(effects, fmt.Sprintf("%s %s", n.Method(p.B), fmtEffect(p.Effect, p.EffectMagnitude)))
	}
	out = append(out, fmt.Sprintf("Against the best-ranked %s, the effect sizes (%s) are %s.", n.Method(r.Methods[0]), effectName(r.Effect), analyses.JoinAnd(effects)))
	return out
}

// methodStats is "A (M = 0.6120, 95% CI [0.5900, 0.6340], SD = 0.0510,
// MR = 1.45)": the centre, its interval and the spread to the same
// decimals, those that show the centre to four significant digits
// (sameDecimals), as a paper prints one method's numbers.
func (r *AutoResult) methodStats(i int) string {
	c := r.Central[i]
	sym, spread := "M", "SD"
	if !r.AllNormal {
		sym, spread = "MD", "MAD"
	}
	f := sameDecimals(c.Value)
	return fmt.Sprintf("%s (%s = %s, %s CI [%s, %s], %s = %s, MR = %.2f)", r.Naming.Method(c.Method), sym, f(c.Value),
		fmtPercent(r.CILevel), f(c.Lower), f(c.Upper), spread, f(c.Spread), r.MeanRanks[i])
}

// sameDecimals returns a formatter of numbers to the decimals that show
// x to four significant digits, trailing zeros kept (0.74 next to 0.9008
// is 0.7400); for x of zero, four decimals, and where that would take
// more than eight (|x| < 0.001) or x is not finite, four significant
// digits each (%.4g).
func sameDecimals(x float64) func(float64) string {
	d := 4
	if x != 0 {
		d = 3 - int(math.Floor(math.Log10(math.Abs(x))))
	}
	if d > 8 || math.IsNaN(x) || math.IsInf(x, 0) {
		return func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	}
	d = max(d, 0)
	return func(v float64) string { return strconv.FormatFloat(v, 'f', d, 64) }
}

// effectPhrase is "a large effect size (d = 1.234) and Cliff's δ = 0.500 (large)".
func (r *AutoResult) effectPhrase(p AutoPair) string {
	sym := "d"
	if r.Effect == EffectAkinshinGamma {
		sym = "γ"
	}
	e := "an undefined effect size (" + sym + ": zero spread)"
	if p.Effect != nil {
		e = fmt.Sprintf("%s %s effect size (%s = %.3f)", article(p.EffectMagnitude), p.EffectMagnitude, sym, *p.Effect)
	}
	if p.CliffsDelta != nil {
		e += fmt.Sprintf(" and Cliff's δ = %.3f (%s)", *p.CliffsDelta, p.CliffsMagnitude)
	}
	return e
}

// effectName names the effect size measure.
func effectName(e string) string {
	if e == EffectAkinshinGamma {
		return "Akinshin's γ"
	}
	return "Cohen's d"
}

// fmtEffect is "0.412 (small)", or "undefined" for nil.
func fmtEffect(e *float64, mag string) string {
	if e == nil {
		return "undefined"
	}
	return fmt.Sprintf("%.3f (%s)", *e, mag)
}

// paren is " (F(2, 38) = 4.123, p = 0.024)" from the statistic's text,
// with "∞" for a missing statistic whose p is 0 (Auto's infinite F or t).
func paren(stat string, ok bool, p *float64) string {
	if !ok {
		stat = stat[:strings.LastIndex(stat, "= ")] + "= ∞"
	}
	return " (" + stat + ", " + fmtP(p) + ")"
}

// num is *p, or NaN for nil.
func num(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// fmtP is "p = 0.012", "p < 0.001" or "p undefined".
func fmtP(p *float64) string {
	switch {
	case p == nil:
		return "p undefined"
	case *p < 0.001:
		return "p < 0.001"
	}
	return fmt.Sprintf("p = %.3f", *p)
}

// fmtPercent is a level as a percentage to at most two decimals: 0.95 →
// "95%", 0.9875 → "98.75%", 1 − 0.05/3 → "98.33%".
func fmtPercent(x float64) string {
	return strconv.FormatFloat(math.Round(100*x*100)/100, 'f', -1, 64) + "%"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// Highlight: the branch taken, the best method and the omnibus result.
func (r *AutoResult) Highlight() string {
	if len(r.Methods) == 0 {
		return ""
	}
	n := r.Naming
	names := map[string]string{
		AutoANOVATukey:      "repeated-measures ANOVA with Tukey's HSD",
		AutoFriedmanNemenyi: "Friedman's test with Nemenyi's post hoc test",
		AutoPairedT:         "the paired t-test",
		AutoWilcoxon:        "Wilcoxon's signed-rank test",
	}
	s := fmt.Sprintf("%s ranks best on %s over %s; the automatic choice (autorank) ran %s", n.Method(r.Methods[0]), n.Metric(r.Metric), analyses.Count(len(r.Datasets), "dataset", "datasets"), names[r.Branch])
	s += ", " + fmtP(r.OmnibusP)
	sig := 0
	for _, p := range r.Pairs {
		if p.Significant {
			sig++
		}
	}
	if len(r.Pairs) > 1 {
		s += fmt.Sprintf("; %d of %d pairs differ", sig, len(r.Pairs))
	}
	return s + "."
}

// ciWords name the central-tendency intervals in a table's title.
var ciWords = map[string]string{
	CIMeanT:          "mean, t interval",
	CIMeanTukey:      "mean, Tukey's simultaneous interval",
	CIMedianBinomial: "median, binomial interval",
}

// Tables implements Result: the decisions, the methods and the pairs.
func (r *AutoResult) Tables() []analyses.Table {
	val := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	dec := analyses.Table{Title: "Automatic test choice (" + r.Naming.Metric(r.Metric) + ")", Columns: []string{"step", "method", "test", "statistic", "p", "decision"}}
	for _, nm := range r.Normality {
		d := "normal"
		if !nm.Normal {
			d = "not normal"
		}
		dec.Rows = append(dec.Rows, []any{"normality", nm.Method, "shapiro_wilk", val(nm.W), val(nm.P), d})
	}
	d := "equal"
	if !r.Homoscedastic {
		d = "unequal"
	}
	dec.Rows = append(dec.Rows, []any{"equal variances", nil, r.VarianceTest, val(r.VarianceStatistic), val(r.VarianceP), d})
	d = "no difference"
	if r.OmnibusSignificant {
		d = "difference"
	}
	dec.Rows = append(dec.Rows, []any{"omnibus", nil, r.Branch, val(r.OmnibusStatistic), val(r.OmnibusP), d})

	meth := analyses.Table{Name: "methods", Title: "Central tendency (" + ciWords[r.CI] + ", level " + fmtPercent(r.CILevel) + ")",
		Columns: []string{"method", "mean_rank", "center", "spread", "ci_lower", "ci_upper"}}
	for i, c := range r.Central {
		meth.Rows = append(meth.Rows, []any{c.Method, r.MeanRanks[i], c.Value, c.Spread, c.Lower, c.Upper})
	}
	pairs := analyses.Table{Name: "pairs", Title: "Pairs (A ranked ahead of B; differences A − B, higher is better)",
		Columns: []string{"a", "b", "mean_rank_diff", "difference", "ci_lower", "ci_upper", "statistic", "p", "significant", r.Effect, "magnitude", "cliffs_delta", "cliffs_magnitude"}}
	for _, p := range r.Pairs {
		pairs.Rows = append(pairs.Rows, []any{p.A, p.B, p.MeanRankDiff, val(p.Difference), val(p.Lower), val(p.Upper), val(p.Statistic), val(p.P),
			p.Significant, val(p.Effect), p.EffectMagnitude, val(p.CliffsDelta), p.CliffsMagnitude})
	}
	return []analyses.Table{dec, meth, pairs}
}
