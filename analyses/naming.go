package analyses

import (
	"strings"
)

// Naming is the one place that says how an id is shown: the display
// label of a method, dataset, metric, rule, feature, selection strategy,
// perturbation, or of a statistic or table column ("friedman_statistic"
// → "Friedman statistic", "dm_auc_rank" → "DM-AUC rank"). Declared labels
// (`[[metrics]] label = "nDCG@10"`, `[[methods]]`, `[[datasets]]`) come
// first, then the built-in ones (MetricLabel, FeatureLabels,
// StrategyLabels, PerturbationLabels, Terms; the rule labels are set by
// the study from leaderboard.RuleLabels). Ids stay in data/*.csv and
// data/*.json and in title attributes; every page, chart, table,
// finding and macro shows the label. It also says which methods are
// baselines (declared with `baseline = true`), which a finding never
// makes its headline. The zero value knows only the built-in labels and
// no baseline.
type Naming struct {
	// Metrics are declared metric labels; a metric is looked up as
	// given, then lower-cased (the manifest's [[metrics]] match
	// case-insensitively).
	Metrics, Methods, Datasets, Rules map[string]string
	Baselines                         []string
	// MethodOrder is the study's methods in its naming order (declared
	// [[methods]] first, then the results' methods as first seen): each
	// method's colour, dash and symbol in every figure derive from it.
	MethodOrder []string
}

func label(m map[string]string, id string) (string, bool) {
	if l, ok := m[id]; ok && l != "" {
		return l, true
	}
	return "", false
}

// Metric is a metric's label: the declared one, else the built-in label
// of a metric offline_metrics derives (MetricLabel: "ndcg@20" →
// "nDCG@20"), else the id.
func (n Naming) Metric(id string) string {
	if l, ok := label(n.Metrics, id); ok {
		return l
	}
	if l, ok := label(n.Metrics, strings.ToLower(id)); ok {
		return l
	}
	if l, ok := MetricLabel(id); ok {
		return l
	}
	return id
}

// Method is a method's label.
func (n Naming) Method(id string) string {
	if l, ok := label(n.Methods, id); ok {
		return l
	}
	return id
}

// Dataset is a dataset's label.
func (n Naming) Dataset(id string) string {
	if l, ok := label(n.Datasets, id); ok {
		return l
	}
	return id
}

// Rule is an aggregation rule's label.
func (n Naming) Rule(id string) string {
	if l, ok := label(n.Rules, id); ok {
		return l
	}
	return id
}

// Feature is a dataset characteristic's label (FeatureLabels: "LTku" →
// "Long-tail kurtosis"); a feature of the characteristics input that is
// not built in is its own label.
func (n Naming) Feature(id string) string {
	if l, ok := FeatureLabels[id]; ok {
		return l
	}
	return id
}

// Strategy is a dataset-selection strategy's label ("d_optimal" →
// "D-optimal").
func (n Naming) Strategy(id string) string {
	if l, ok := StrategyLabels[id]; ok {
		return l
	}
	return id
}

// Perturbation is a stability perturbation's label ("drop_datasets" →
// "Removing datasets").
func (n Naming) Perturbation(id string) string {
	if l, ok := PerturbationLabels[id]; ok {
		return l
	}
	return id
}

// Term is the label of a statistic, option value or other word an
// analysis writes as an id ("friedman_statistic" → "Friedman
// statistic", "spearman" → "Spearman", "smd" → "standardised mean
// difference"), from the built-in Terms; an id it does not know is its
// own label.
func (n Naming) Term(id string) string {
	if l, ok := Terms[id]; ok {
		return l
	}
	return id
}

// Column is the label of a table column or of a row that names a
// statistic (a key column's "friedman_statistic"): in order, a Term, a
// rule (and "<rule>_rank", "mean_rule_rank" → "Mean rank"'s rank), a
// metric, a feature, a strategy, a perturbation, the columns an analysis
// derives from those ("delta_<metric>" → "Δ <metric>",
// "<perturbation>_area", "rho_subsets_<n>", "rho_vs_all_<n>"), else the
// id. Ids stay the CSV's header; Column is what a page, a LaTeX table or
// a Markdown table shows.
func (n Naming) Column(id string) string {
	if l, ok := Terms[id]; ok {
		return l
	}
	if l, ok := label(n.Rules, id); ok {
		return l
	}
	switch id { // "mean_rank" is the mean-rank rule's score, "mean" the mean's
	case "mean_rule_rank":
		return n.Rule("mean") + " rank"
	case "mean_rank_rank":
		return "Rank by " + strings.ToLower(n.Rule("mean_rank"))
	}
	if r, ok := strings.CutSuffix(id, "_rank"); ok {
		if l, ok := label(n.Rules, r); ok {
			return l + " rank"
		}
	}
	if l := n.Metric(id); l != id {
		return l
	}
	if l := n.Feature(id); l != id {
		return l
	}
	if l := n.Strategy(id); l != id {
		return l
	}
	if l := n.Perturbation(id); l != id {
		return l
	}
	if m, ok := strings.CutPrefix(id, "delta_"); ok {
		return "Δ " + n.Metric(m)
	}
	if p, ok := strings.CutSuffix(id, "_area"); ok {
		if l := n.Perturbation(p); l != p {
			return l + ": area"
		}
	}
	if k, ok := strings.CutPrefix(id, "rho_subsets_"); ok {
		return "ρ subsets (" + k + ")"
	}
	if k, ok := strings.CutPrefix(id, "rho_vs_all_"); ok {
		return "ρ vs all (" + k + ")"
	}
	return id
}

// HasLabel reports whether Column gives id a label other than itself.
func (n Naming) HasLabel(id string) bool { return n.Column(id) != id }

// IsBaseline reports whether a method is a declared baseline.
func (n Naming) IsBaseline(method string) bool {
	for _, b := range n.Baselines {
		if b == method {
			return true
		}
	}
	return false
}

// MethodList names methods by their labels: "A", "A and B", "A, B and C".
func (n Naming) MethodList(ids []string) string {
	l := make([]string, len(ids))
	for i, id := range ids {
		l[i] = n.Method(id)
	}
	return JoinAnd(l)
}

// JoinAnd joins words as prose: "a", "a and b", "a, b and c".
func JoinAnd(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// metricBases are the labels of the metrics offline_metrics derives (the
// README's metric names), before their "@k".
var metricBases = map[string]string{
	"precision": "Precision", "recall": "Recall", "f1": "F1", "ndcg": "nDCG", "map": "MAP",
	"mrr": "MRR", "hitrate": "HitRate", "success": "Success", "rankscore": "RankScore",
	"liftindex": "LiftIndex", "coverage": "Coverage", "novelty": "Novelty", "mae": "MAE",
	"rmse": "RMSE", "rprec": "R-Prec", "bpref": "bpref", "iprec": "iPrec", "gm_map": "GM-MAP",
}

// wholeList are the metrics offline_metrics derives without a cutoff.
var wholeList = map[string]bool{"map": true, "mrr": true, "rprec": true, "bpref": true, "gm_map": true, "mae": true, "rmse": true}

// MetricLabel is the built-in label of a metric offline_metrics derives,
// as it names it ("ndcg@20" → "nDCG@20", "rmse" → "RMSE", "iprec@0.5" →
// "iPrec@0.5"); ok is false for any other name (a metric of the user's
// results without a [[metrics]] label, "ndcg" without a cutoff, is its
// own label).
func MetricLabel(id string) (string, bool) {
	base, k, cut := strings.Cut(id, "@")
	l, ok := metricBases[base]
	if !ok || (!cut && !wholeList[base]) || (cut && k == "") {
		return "", false
	}
	if cut {
		return l + "@" + k, true
	}
	return l, true
}

// FeatureLabels are the labels of the dataset characteristics
// (Deldjoo et al. 2020; the README's feature names).
var FeatureLabels = map[string]string{
	"Nu": "Users", "Ni": "Items", "Nr": "Interactions", "SpaceSize": "Space size",
	"Shape": "Shape", "Density": "Density", "Rpu": "Interactions per user",
	"Rpi": "Interactions per item", "Gini_u": "Gini (users)", "Gini_i": "Gini (items)",
	"APB": "Popularity bias", "StPB": "Popularity bias SD", "SkPB": "Popularity bias skewness",
	"KuPB": "Popularity bias kurtosis", "LTavg": "Long-tail share", "LTstd": "Long-tail share SD",
	"LTsk": "Long-tail skewness", "LTku": "Long-tail kurtosis",
}

// StrategyLabels are the labels of the dataset-selection strategies.
var StrategyLabels = map[string]string{
	"random": "Random", "kmeans": "k-means", "d_optimal": "D-optimal", "a_optimal": "A-optimal",
}

// PerturbationLabels are the labels of the stability perturbations.
var PerturbationLabels = map[string]string{
	"drop_datasets":  "Removing datasets",
	"drop_methods":   "Removing methods",
	"similar_method": "Adding a near-copy",
	"best_method":    "Adding a new best",
	"beta":           "Changing β̂",
	"subset_pairs":   "Disjoint subsets",
}

// Terms are the labels of the statistics, table columns and option
// values analyses write as ids. A label is what a table header or a
// sentence shows; the id stays in the CSV header and the JSON.
var Terms = map[string]string{
	// keys and common columns
	"method": "Method", "dataset": "Dataset", "metric": "Metric", "feature": "Feature",
	"rule": "Rule", "strategy": "Strategy", "perturbation": "Perturbation", "model": "Model",
	"objective": "Objective", "group": "Group", "subgroup": "Subgroup", "cluster": "Cluster",
	"component": "Component", "quantity": "Quantity", "value": "Value", "unit": "Unit",
	"a": "Method A", "b": "Method B", "metric_a": "Metric A", "metric_b": "Metric B",
	"datasets": "Datasets", "methods": "Methods", "users": "Users", "rows": "Rows",
	"interactions": "Interactions", "size": "Size", "undefined": "Undefined",
	"note": "Note", "included": "Included", "rank": "Rank", "score": "Score", "share": "Share",
	"mean": "Mean", "sd": "SD", "min": "Min", "max": "Max", "weight": "Weight",
	// correlations and associations
	"pearson": "Pearson", "spearman": "Spearman", "kendall": "Kendall tau-b",
	"mutual_information": "Mutual information", "rho": "ρ", "beta": "β",
	// critical difference and pairs
	"friedman_statistic": "Friedman statistic", "friedman_p": "Friedman p",
	"iman_davenport_f": "Iman–Davenport F", "iman_davenport_p": "Iman–Davenport p",
	"critical_difference": "Critical difference", "nemenyi_q": "Nemenyi q",
	"statistic": "Statistic", "p_holm": "p (Holm)", "significant": "Significant",
	"mean_diff": "Mean difference", "p_paired_t": "p (paired t)", "p_wilcoxon": "p (Wilcoxon)",
	"p_sign": "p (sign test)", "p_welch": "p (Welch)", "p_mannwhitney": "p (Mann–Whitney)",
	"p_shapiro": "p (Shapiro–Wilk)", "recommended": "Recommended test",
	"power_paired": "Power (paired)", "power_independent": "Power (independent)",
	"cohen_dz": "Cohen's dz", "rank_biserial": "Rank-biserial r", "cohen_d": "Cohen's d",
	"t_paired": "t (paired)", "wilcoxon_statistic": "W (Wilcoxon)", "t_welch": "t (Welch)",
	"mannwhitney_u": "U (Mann–Whitney)", "shapiro_w": "W (Shapiro–Wilk)",
	"paired_t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
	"welch": "Welch test", "mannwhitney": "Mann–Whitney test",
	// autorank's automatic choice (critical_difference, test = "auto")
	"akinshin_gamma": "Akinshin's γ", "cliffs_delta": "Cliff's δ", "shapiro_wilk": "Shapiro–Wilk",
	"bartlett": "Bartlett's test", "levene": "Levene's test (median)",
	"anova_tukey": "repeated-measures ANOVA with Tukey's HSD", "friedman_nemenyi": "Friedman's test with Nemenyi's post hoc test",
	"mean_t": "mean, t interval", "mean_tukey": "mean, Tukey's simultaneous interval", "median_binomial": "median, binomial interval",
	// clusters and selection
	"silhouette": "Silhouette", "davies_bouldin": "Davies–Bouldin", "inertia": "Inertia",
	"chosen": "Chosen", "outlier": "Outlier", "representative": "Representative",
	"explained_variance": "Explained variance", "explained_variance_ratio": "Share of variance",
	"pc1": "PC1", "pc2": "PC2", "pc3": "PC3", "pc4": "PC4", "pc5": "PC5",
	"times_chosen": "Times chosen", "mean_rho": "Mean ρ", "sd_rho": "SD of ρ",
	"q05_rho": "ρ, 5% quantile", "median_rho": "Median ρ", "q95_rho": "ρ, 95% quantile",
	"simulations": "Simulations",
	// characteristics preprocessing
	"duplicates": "Duplicates", "below_threshold": "Below threshold", "item_filter": "Item filter",
	"user_filter": "User filter", "core": "k-core", "core_rounds": "k-core rounds",
	// meta-analysis
	"effect": "Effect", "variance": "Variance", "se": "SE", "ci_low": "CI low", "ci_high": "CI high",
	"tau2": "τ²", "df": "df", "p_Q": "p (Q)", "I2": "I²", "H2": "H²", "pi_low": "PI low",
	"pi_high": "PI high", "sd_diff": "SD of differences", "unmatched_treatment": "Unmatched (treatment)",
	"unmatched_control": "Unmatched (control)", "dropped_missing": "Dropped (missing)",
	"rstudent": "Studentized residual", "dffits": "DFFITS", "cooks_d": "Cook's distance",
	"cov_r": "Covariance ratio", "tau2_del": "τ² (left out)", "Q_del": "Q (left out)", "hat": "Hat",
	"influential": "Influential", "m1i": "Mean (treatment)", "sd1i": "SD (treatment)",
	"n1i": "n (treatment)", "m2i": "Mean (control)", "sd2i": "SD (control)", "n2i": "n (control)",
	"ai": "Events (treatment)", "bi": "Non-events (treatment)", "ci": "Events (control)", "di": "Non-events (control)",
	"xi": "Events", "ni": "n", "ri": "r", "ti": "Person-time", "yi": "yi", "vi": "vi",
	"Q_between": "Q (between)", "p_between": "p (between)",
	"md": "mean difference", "smd": "standardised mean difference", "rom": "log ratio of means",
	"two_group": "two groups", "knha": "Knapp–Hartung", "pratt": "Pratt", "wilcox": "Wilcoxon",
	// offline metrics
	"users_listed": "Users listed", "users_evaluated": "Users evaluated",
	"users_no_relevant": "Users without a relevant item", "users_missing": "Users missing",
	"mean_list_length": "Mean list length", "catalog_items": "Catalogue items",
	// stability
	"checked": "Checked", "violations": "Violations", "first_violation": "First violation",
	"pareto_checked": "Pareto: checked", "pareto_violations": "Pareto: violations",
	"pareto_efficient": "Pareto efficient",
	// multi-objective
	"front": "Front", "evalrs2022_score": "EvalRS 2022 score", "best_score": "Best score",
	"best_evalrs2022_score": "Best EvalRS 2022 score", "pareto_points": "Pareto points",
	"slope": "Slope", "intercept": "Intercept", "r2": "R²", "implied_importance": "Implied importance",
}

// Cell is the label of a table cell that holds an id, by the id of its
// column: a method under "method", "a", "b" or "model", a dataset under
// "dataset", a metric under "metric", "metric_a", "metric_b",
// "objective" or "base", a feature, rule, strategy or perturbation
// under its own name, and a statistic under "quantity" or "component"
// (Column). Any other cell is shown as it is.
func (n Naming) Cell(column, value string) string {
	switch column {
	case "method", "a", "b", "model":
		return n.Method(value)
	case "dataset":
		return n.Dataset(value)
	case "metric", "metric_a", "metric_b", "objective", "base":
		return n.Metric(value)
	case "feature":
		return n.Feature(value)
	case "rule":
		return n.Rule(value)
	case "strategy":
		return n.Strategy(value)
	case "perturbation":
		return n.Perturbation(value)
	case "quantity", "component":
		return n.Column(value)
	}
	return value
}
