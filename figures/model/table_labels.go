package model

import (
	"strings"
	"unicode"

	"github.com/evalbook/evalbook/analyses"
)

// columnInfo is what a generic column id means: its label and unit, the
// role it plays, which end is better, and whether a paper leaves it out
// (a detail kept in the site and the data files).
type columnInfo struct {
	label, unit string
	role        Role
	better      string
	detail      bool
	// percent: a share the data files keep as a fraction, shown in
	// percent (unit "%") with analyses.PercentDecimals.
	percent bool
}

// columnInfos are the generic columns of evalbook's tables. Columns named
// by a metric, method, dataset or rule take their label from the study's
// naming (analyses.Naming) instead.
var columnInfos = map[string]columnInfo{
	// keys
	"method": {label: "Method", role: RoleKey}, "a": {label: "Method A", role: RoleKey}, "b": {label: "Method B", role: RoleKey},
	"dataset": {label: "Dataset", role: RoleKey}, "metric": {label: "Metric", role: RoleKey}, "rule": {label: "Rule", role: RoleKey},
	"metric_a": {label: "Metric A", role: RoleKey}, "metric_b": {label: "Metric B", role: RoleKey},
	"strategy": {label: "Strategy", role: RoleKey}, "feature": {label: "Feature", role: RoleKey},
	"cluster": {label: "Cluster", role: RoleKey}, "component": {label: "Component", role: RoleKey},
	"perturbation": {label: "Perturbation", role: RoleKey}, "quantity": {label: "Quantity", role: RoleKey},
	"group": {label: "Group", role: RoleKey}, "subgroup": {label: "Subgroup", role: RoleKey},
	"model": {label: "Model", role: RoleKey}, "objective": {label: "Objective", role: RoleKey}, "unit": {label: "Unit", role: RoleKey},
	// counts
	"n": {label: "n", role: RoleCount}, "k": {label: "k", role: RoleCount}, "df": {label: "df", role: RoleCount},
	"datasets": {label: "Datasets", role: RoleCount}, "simulations": {label: "Simulations", role: RoleCount},
	"times_chosen": {label: "Times chosen", role: RoleCount}, "count": {label: "Defined", role: RoleCount},
	"undefined": {label: "Undefined", role: RoleCount}, "checked": {label: "Checked", role: RoleCount},
	"violations": {label: "Violations", role: RoleCount}, "first_violation": {label: "First violation", role: RoleCount},
	"pareto_checked": {label: "Pareto: checked", role: RoleCount, detail: true}, "pareto_violations": {label: "Pareto: violations", role: RoleCount},
	"users": {label: "Users", role: RoleCount}, "users_listed": {label: "Users listed", role: RoleCount},
	"users_evaluated": {label: "Users evaluated", role: RoleCount}, "users_no_relevant": {label: "Users without a relevant item", role: RoleCount},
	"users_missing": {label: "Users missing", role: RoleCount}, "catalog_items": {label: "Catalogue items", role: RoleCount},
	"rows": {label: "Rows", role: RoleCount}, "duplicates": {label: "Duplicates", role: RoleCount},
	"below_threshold": {label: "Below threshold", role: RoleCount}, "item_filter": {label: "Item filter", role: RoleCount},
	"user_filter": {label: "User filter", role: RoleCount}, "core": {label: "k-core", role: RoleCount},
	"core_rounds": {label: "k-core rounds", role: RoleCount}, "interactions": {label: "Interactions", role: RoleCount},
	"unmatched_treatment": {label: "Unmatched (treatment)", role: RoleCount, detail: true},
	"unmatched_control":   {label: "Unmatched (control)", role: RoleCount, detail: true},
	"dropped_missing":     {label: "Dropped (missing)", role: RoleCount, detail: true},
	"pareto_points":       {label: "Pareto points", role: RoleCount}, "front": {label: "Front", role: RoleCount},
	"n1i": {label: "n (treatment)", role: RoleCount}, "n2i": {label: "n (control)", role: RoleCount},
	"ai": {label: "Events (treatment)", role: RoleCount}, "bi": {label: "Non-events (treatment)", role: RoleCount},
	"ci": {label: "Events (control)", role: RoleCount}, "di": {label: "Non-events (control)", role: RoleCount},
	"xi": {label: "Events", role: RoleCount}, "ni": {label: "n", role: RoleCount},
	// flags and text
	"significant": {label: "Significant", role: RoleFlag}, "chosen": {label: "Chosen", role: RoleFlag},
	"outlier": {label: "Outlier", role: RoleFlag}, "representative": {label: "Representative", role: RoleFlag},
	"included": {label: "Included", role: RoleFlag}, "influential": {label: "Influential", role: RoleFlag},
	"pareto_efficient": {label: "Pareto efficient", role: RoleFlag}, "note": {label: "Note", role: RoleText, detail: true},
	"recommended": {label: "Recommended test", role: RoleText},
	// p-values
	"p": {label: "p", role: RolePValue}, "p_holm": {label: "p (Holm)", role: RolePValue},
	"p_left": {label: "p (left)", role: RolePValue}, "p_rope": {label: "p (ROPE)", role: RolePValue}, "p_right": {label: "p (right)", role: RolePValue},
	"p_paired_t": {label: "p (paired t)", role: RolePValue, detail: true}, "p_wilcoxon": {label: "p (Wilcoxon)", role: RolePValue, detail: true},
	"p_sign": {label: "p (sign test)", role: RolePValue, detail: true}, "p_welch": {label: "p (Welch)", role: RolePValue, detail: true},
	"p_mannwhitney": {label: "p (Mann–Whitney)", role: RolePValue, detail: true}, "p_shapiro": {label: "p (Shapiro–Wilk)", role: RolePValue, detail: true},
	"p_Q": {label: "p (Q)", role: RolePValue}, "p_between": {label: "p (between)", role: RolePValue},
	// values
	"value": {label: "Value", role: RoleValue}, "statistic": {label: "Statistic", role: RoleValue},
	"pearson": {label: "Pearson r", role: RoleValue}, "spearman": {label: "Spearman ρ", role: RoleValue},
	"mutual_information": {label: "Mutual information", role: RoleValue},
	"mean_rank":          {label: "Mean rank", role: RoleRank, better: "lower"}, "rank": {label: "Rank", role: RoleRank, better: "lower"},
	"geometric_mean": {label: "Geometric mean", role: RoleValue}, "mean": {label: "Mean", role: RoleValue},
	"sd": {label: "SD", role: RoleValue}, "min": {label: "Min", role: RoleValue}, "max": {label: "Max", role: RoleValue},
	"silhouette": {label: "Silhouette", role: RoleValue}, "davies_bouldin": {label: "Davies–Bouldin", role: RoleValue},
	"inertia":            {label: "Inertia", role: RoleValue},
	"explained_variance": {label: "Explained variance", role: RoleValue}, "explained_variance_ratio": {label: "Share of variance", role: RoleValue, percent: true},
	"share": {label: "Share", role: RoleValue, percent: true}, "mean_rho": {label: "Mean ρ", role: RoleValue}, "sd_rho": {label: "SD of ρ", role: RoleValue},
	"q05_rho": {label: "ρ, 5% quantile", role: RoleValue}, "median_rho": {label: "Median ρ", role: RoleValue}, "q95_rho": {label: "ρ, 95% quantile", role: RoleValue},
	"beta": {label: "β", role: RoleValue}, "rho": {label: "ρ", role: RoleValue}, "size": {label: "Size", role: RoleValue},
	"effect": {label: "Effect", role: RoleValue}, "variance": {label: "Variance", role: RoleValue, detail: true},
	"se": {label: "SE", role: RoleValue}, "weight": {label: "Weight", role: RoleValue, percent: true},
	"tau2": {label: "τ²", role: RoleValue}, "Q": {label: "Q", role: RoleValue}, "I2": {label: "I²", unit: "%", role: RoleValue},
	"H2": {label: "H²", role: RoleValue, detail: true}, "mean_diff": {label: "Mean difference", role: RoleValue},
	"ri": {label: "r", role: RoleValue}, "ti": {label: "Person-time", role: RoleValue},
	"yi": {label: "yi", role: RoleValue}, "vi": {label: "vi", role: RoleValue}, // escalc's names
	"sd_diff": {label: "SD of differences", role: RoleValue}, "r": {label: "r", role: RoleValue},
	"rstudent": {label: "Studentized residual", role: RoleValue}, "dffits": {label: "DFFITS", role: RoleValue},
	"cooks_d": {label: "Cook's distance", role: RoleValue}, "cov_r": {label: "Covariance ratio", role: RoleValue},
	"tau2_del": {label: "τ² (left out)", role: RoleValue}, "Q_del": {label: "Q (left out)", role: RoleValue}, "hat": {label: "Hat", role: RoleValue},
	"m1i": {label: "Mean (treatment)", role: RoleValue}, "sd1i": {label: "SD (treatment)", role: RoleValue},
	"m2i": {label: "Mean (control)", role: RoleValue}, "sd2i": {label: "SD (control)", role: RoleValue},
	"Q_between": {label: "Q (between)", role: RoleValue},
	"recall":    {label: "Recall", role: RoleValue}, "iprec": {label: "Interpolated precision", role: RoleValue},
	"mean_list_length": {label: "Mean list length", role: RoleValue},
	"power_paired":     {label: "Power (paired)", role: RoleValue, detail: true}, "power_independent": {label: "Power (independent)", role: RoleValue, detail: true},
	"cohen_dz": {label: "Cohen's dz", role: RoleValue}, "rank_biserial": {label: "Rank-biserial r", role: RoleValue, detail: true},
	"cohen_d": {label: "Cohen's d", role: RoleValue, detail: true}, "t_paired": {label: "t (paired)", role: RoleValue, detail: true},
	"wilcoxon_statistic": {label: "W (Wilcoxon)", role: RoleValue, detail: true}, "t_welch": {label: "t (Welch)", role: RoleValue, detail: true},
	"mannwhitney_u": {label: "U (Mann–Whitney)", role: RoleValue, detail: true}, "shapiro_w": {label: "W (Shapiro–Wilk)", role: RoleValue, detail: true},
	"slope": {label: "Slope", role: RoleValue}, "intercept": {label: "Intercept", role: RoleValue}, "r2": {label: "R²", role: RoleValue},
	"implied_importance": {label: "Implied importance", role: RoleValue},
	"best_score":         {label: "Best score", role: RoleValue}, "score": {label: "Score", role: RoleValue},
	"pc1": {label: "PC1", role: RoleValue}, "pc2": {label: "PC2", role: RoleValue}, "pc3": {label: "PC3", role: RoleValue},
	// autorank's automatic choice (critical_difference, test = "auto")
	"step": {label: "Step"}, "test": {label: "Test"}, "decision": {label: "Decision"},
	"center": {label: "Centre", role: RoleValue}, "spread": {label: "Spread", role: RoleValue},
	"mean_rank_diff": {label: "Δ mean rank", role: RoleValue}, "difference": {label: "Difference", role: RoleValue},
	"akinshin_gamma": {label: "Akinshin's γ", role: RoleValue}, "cliffs_delta": {label: "Cliff's δ", role: RoleValue},
	"magnitude": {label: "Magnitude"}, "cliffs_magnitude": {label: "Magnitude (δ)"},
}

// intervals are the column pairs shown as one interval column; detail:
// shown in the paper's table only as its estimate is (H²'s, which I²
// determines).
var intervals = []struct {
	low, high, label string
	detail           bool
	// estimate: the column the interval is of, printed with it in one
	// format (sharedFormats); "" where the analysis sets the decimals
	estimate string
}{
	{"ci_low", "ci_high", "95% CI", false, ""},
	{"pi_low", "pi_high", "95% PI", false, ""},
	// the Q-profile intervals of the heterogeneity (metafor's confint)
	{"tau2_ci_low", "tau2_ci_high", "95% CI of τ²", false, "tau2"},
	{"I2_ci_low", "I2_ci_high", "95% CI of I² (%)", false, ""},
	{"H2_ci_low", "H2_ci_high", "95% CI of H²", true, "H2"},
	{"ci_lower", "ci_upper", "CI", false, ""}, // at the level the table's title states
}

// methodColumns, datasetColumns, metricColumns and ruleColumns hold the
// ids of methods, datasets, metrics and rules: their cells are shown by
// label.
var (
	methodColumns  = map[string]bool{"method": true, "a": true, "b": true}
	datasetColumns = map[string]bool{"dataset": true}
	metricColumns  = map[string]bool{"metric": true, "metric_a": true, "metric_b": true, "objective": true}
	ruleColumns    = map[string]bool{"rule": true}
)

// CellLabel is a key cell's text: a method, dataset, metric, rule or
// perturbation id by its label.
func CellLabel(col, id string, n analyses.Naming) string {
	// the study's naming decides every name it knows (one place for
	// names); the table's own words fill in the rest
	if l := n.Cell(col, id); l != id {
		return l
	}
	switch {
	case methodColumns[col]:
		return n.Method(id)
	case datasetColumns[col]:
		return n.Dataset(id)
	case metricColumns[col]:
		return n.Metric(id)
	case ruleColumns[col]:
		return n.Rule(id)
	case col == "quantity":
		return quantityLabel(id)
	case col == "recommended" || col == "test":
		if l, ok := testLabels[id]; ok {
			return l
		}
	}
	return id
}

// testLabels name the paired tests.
var testLabels = map[string]string{
	"paired_t": "paired t", "wilcoxon": "Wilcoxon", "sign": "sign", "welch": "Welch", "mannwhitney": "Mann–Whitney",
	"shapiro_wilk": "Shapiro–Wilk", "bartlett": "Bartlett", "levene": "Levene (median)",
	"anova_tukey": "RM ANOVA + Tukey's HSD", "friedman_nemenyi": "Friedman + Nemenyi",
}

// quantityLabels name the rows of a table of named quantities that the
// study's naming does not (its Terms name the Friedman and Nemenyi
// quantities, in the table and in sentences alike).
var quantityLabels = map[string]string{
	"alpha": "α",
	// meta_analysis's publication bias (sensitivity = true)
	"trimfill_side": "Trim and fill: side filled", "trimfill_k0": "Trim and fill: studies filled (k0)",
	"trimfill_effect": "Trim and fill: adjusted effect", "trimfill_ci_low": "Trim and fill: CI low", "trimfill_ci_high": "Trim and fill: CI high",
	"trimfill_p": "Trim and fill: p", "ranktest_tau": "Rank correlation test: Kendall's τ", "ranktest_p": "Rank correlation test: p",
	"QM": "QM (moderators)", "df_QM": "df (QM)", "p_QM": "p (QM)", "QE": "QE (residual heterogeneity)", "df_QE": "df (QE)",
	"p_QE": "p (QE)", "tau2_res": "Residual τ²", "I2_res": "Residual I² (%)", "R2": "R² (%, pseudo)",
	"egger_z": "Egger's test: z", "egger_t": "Egger's test: t", "egger_df": "Egger's test: df", "egger_p": "Egger's test: p",
	"egger_limit": "Egger's test: limit estimate (SE → 0)", "egger_limit_ci_low": "Egger's test: limit estimate, CI low",
	"egger_limit_ci_high": "Egger's test: limit estimate, CI high",
	"fsn_rosenthal":       "Fail-safe N (Rosenthal)", "fsn_orwin": "Fail-safe N (Orwin)", "fsn_rosenberg": "Fail-safe N (Rosenberg)",
}

// quantityLabel is a named quantity's label.
func quantityLabel(id string) string {
	if l, ok := quantityLabels[id]; ok {
		return l
	}
	return humanize(id)
}

// ColumnLabel is the label of a column id: a metric, method, dataset or
// rule by its label in the study's naming; a rule's rank column
// ("dm_auc_rank") as "<rule> rank"; a stability area ("beta_area") as
// "<perturbation> area"; a generic column by its label ("p_paired_t" →
// "p (paired t)"); anything else with its underscores as spaces.
func ColumnLabel(id string, n analyses.Naming) string {
	if l := declaredLabel(id, n); l != "" {
		return l
	}
	if info, ok := columnInfos[id]; ok {
		return info.label
	}
	// the study's naming first; a label it builds around a name it has
	// no label for keeps the name as the study gives it ("Δ mred_gender",
	// as the rows, captions and axes write mred_gender; not "Delta mred
	// gender" or "Δ mred gender")
	if l := n.Column(id); l != id {
		return l
	}
	if rule, ok := strings.CutSuffix(id, "_rank"); ok {
		if rule == "mean_rule" {
			rule = "mean"
		}
		if l, ok := n.Rules[rule]; ok {
			return l + " rank"
		}
	}
	return humanize(id)
}

// declaredLabel is the label the study gives an id used as a column
// (a metric, a rule, a method or a dataset), or "".
func declaredLabel(id string, n analyses.Naming) string {
	for _, m := range []map[string]string{n.Metrics, n.Rules, n.Methods, n.Datasets} {
		if l, ok := m[id]; ok && l != "" {
			return l
		}
	}
	for k, l := range n.Metrics { // metrics match case-insensitively
		if strings.EqualFold(k, id) && l != "" {
			return l
		}
	}
	return ""
}

// humanize writes an id as words: underscores as spaces, the first
// letter capitalised when the id is lower-case.
func humanize(id string) string {
	s := strings.ReplaceAll(id, "_", " ")
	if s == strings.ToLower(s) && s != "" {
		r := []rune(s)
		r[0] = unicode.ToUpper(r[0])
		s = string(r)
	}
	return s
}

// columnInfoOf is a column's role, unit and direction: columnInfos', or
// for a family of columns one per size, stability's "rho_subsets_<k>"
// and "rho_vs_all_<k>" (higher is better), whose label the study's
// naming gives for every k alike ("ρ subsets (12)").
func columnInfoOf(id string) (columnInfo, bool) {
	if info, ok := columnInfos[id]; ok {
		return info, true
	}
	if strings.HasPrefix(id, "rho_subsets_") || strings.HasPrefix(id, "rho_vs_all_") {
		return columnInfo{role: RoleValue, better: "higher"}, true
	}
	return columnInfo{}, false
}
