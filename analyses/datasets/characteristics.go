package datasets

// Dataset characteristics and what they explain (Shevchenko et al. 2024,
// §4.3, Fig. 7). The paper asks which properties of a dataset make it hard
// for recommenders; it answers with three association measures between
// each feature and each method's per-dataset nDCG@10, because a feature
// can matter monotonically (Spearman), linearly (Pearson) or in some other
// way (mutual information). A pooled column over all methods asks the same
// question of the benchmark as a whole.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/analyses/stats"
)

// Feature sources of a characteristics analysis.
const (
	CharFromAuto  = "auto"
	CharFromLogs  = "logs"
	CharFromInput = "input"
)

// CharPooled names the pooled column of the association table: every
// (dataset, method) pair at once.
const CharPooled = "(pooled)"

// CharacteristicsOptions are the keys of a `characteristics` analysis.
type CharacteristicsOptions struct {
	// Metric is the per-dataset performance the features are related to;
	// without it only the features are computed.
	Metric   string   `toml:"metric"`
	Methods  []string `toml:"methods"`  // default: every method of the results
	Features []string `toml:"features"` // default: all
	// From is where features come from: "logs" (the [[datasets]]
	// interaction logs), "input" (the characteristics input) or "auto"
	// (default: logs when some dataset has one, else the input).
	From string `toml:"from"`
	// Preprocessing of the logs (see Preprocessing). A dataset attribute
	// rating_threshold = "…" overrides RatingThreshold for that dataset,
	// as Shevchenko et al. (2024, App. A.1) use dataset-specific
	// thresholds.
	RatingThreshold *float64 `toml:"rating_threshold"`
	MinItem         int      `toml:"min_item"`
	MinUser         int      `toml:"min_user"`
	Core            int      `toml:"core"`
	// Neighbors is k of the Kraskov estimator (default 3, scikit-learn's,
	// which the code of Shevchenko et al. 2024 uses).
	Neighbors int `toml:"neighbors"`
}

// Defaults fills unset options.
func (o *CharacteristicsOptions) Defaults() {
	if o.From == "" {
		o.From = CharFromAuto
	}
	if o.Neighbors == 0 {
		o.Neighbors = 3
	}
}

// Validate checks the options.
func (o *CharacteristicsOptions) Validate() error {
	if err := analyses.OneOf("from", o.From, CharFromAuto, CharFromLogs, CharFromInput); err != nil {
		return err
	}
	for _, kv := range []struct {
		key string
		v   int
	}{{"min_item", o.MinItem}, {"min_user", o.MinUser}, {"core", o.Core}} {
		if kv.v < 0 {
			return analyses.OptionErrorf(kv.key, "must not be negative, got %d", kv.v)
		}
	}
	if err := analyses.CheckInt("neighbors", o.Neighbors, 1, analyses.MaxNeighbors); err != nil {
		return err
	}
	if o.RatingThreshold != nil {
		if err := analyses.CheckFloat("rating_threshold", *o.RatingThreshold, math.Inf(-1), math.MaxFloat64); err != nil {
			return err
		}
	}
	if o.From == CharFromInput && (o.RatingThreshold != nil || o.MinItem > 0 || o.MinUser > 0 || o.Core > 0) {
		return fmt.Errorf("rating_threshold, min_item, min_user and core preprocess interaction logs; they have no effect with from = \"input\"")
	}
	return analyses.FirstError(analyses.CheckDistinct("methods", o.Methods), CheckFeatureNames(o.Features))
}

// Preprocessing returns the log preprocessing of the options.
func (o *CharacteristicsOptions) Preprocessing() Preprocessing {
	p := Preprocessing{MinItem: o.MinItem, MinUser: o.MinUser, Core: o.Core}
	if o.RatingThreshold != nil {
		p.Threshold, p.HasThreshold = *o.RatingThreshold, true
	}
	return p
}

// CharacteristicsInput is the features of each dataset and, optionally,
// each method's performance on it.
type CharacteristicsInput struct {
	Datasets []string
	Features []string
	Values   [][]float64 // [dataset][feature]; NaN when missing
	// Counts are the preprocessing counts per dataset when the features
	// come from logs; nil otherwise.
	Counts []PreprocessCounts
	// Metric, Methods and Perf[dataset][method] (NaN when missing) are
	// empty when no metric is associated.
	Metric  string
	Methods []string
	Perf    [][]float64
}

// CharacteristicsResult holds the features and their associations.
type CharacteristicsResult struct {
	Datasets      []string           `json:"datasets"`
	Features      []string           `json:"features"`
	Values        [][]float64        `json:"-"` // in the -features table
	Preprocessing []PreprocessCounts `json:"preprocessing,omitempty"`
	Metric        string             `json:"metric,omitempty"`
	// Columns of the association matrices: the methods, then CharPooled.
	Methods []string `json:"methods,omitempty"`
	// Pearson[f][m], Spearman[f][m], MutualInformation[f][m] and the
	// number of datasets N[f][m] behind them (pairs, for the pooled column).
	Pearson           [][]float64 `json:"-"`
	Spearman          [][]float64 `json:"-"`
	MutualInformation [][]float64 `json:"-"`
	N                 [][]int     `json:"-"`
	Neighbors         int         `json:"neighbors"`
	// Naming is how the key finding names things, and which methods are
	// baselines (set by the caller; not in JSON).
	Naming analyses.Naming `json:"-"`
	analyses.Warnings
}

// Characteristics relates each feature to each method's per-dataset metric:
// Pearson's r and Spearman's rho (as scipy.stats pearsonr and spearmanr)
// and the Kraskov mutual information (as scikit-learn's
// mutual_info_regression, see MutualInfoKSG), over the datasets where both
// are present, and the same over all (dataset, method) pairs pooled.
func Characteristics(in CharacteristicsInput, opts CharacteristicsOptions) (*CharacteristicsResult, error) {
	opts.Defaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(in.Values) != len(in.Datasets) || (in.Counts != nil && len(in.Counts) != len(in.Datasets)) {
		panic("datasets: Characteristics input sizes do not match")
	}
	if len(in.Datasets) == 0 {
		return nil, fmt.Errorf("no dataset has characteristics")
	}
	r := &CharacteristicsResult{Datasets: in.Datasets, Features: in.Features, Values: in.Values,
		Preprocessing: in.Counts, Metric: in.Metric, Neighbors: opts.Neighbors}
	charWarnUndefined(in, r)
	if in.Metric == "" {
		return r, nil
	}
	M := len(in.Methods)
	r.Methods = append(append([]string{}, in.Methods...), CharPooled)
	F := len(in.Features)
	alloc := func() [][]float64 {
		m := make([][]float64, F)
		for f := range m {
			m[f] = make([]float64, M+1)
		}
		return m
	}
	r.Pearson, r.Spearman, r.MutualInformation = alloc(), alloc(), alloc()
	r.N = make([][]int, F)
	charWarnMissingPerf(in, r)
	var undefined []string
	for f := range F {
		undefined = charAssociate(in, r, f, opts.Neighbors, undefined)
	}
	if len(undefined) > 0 {
		show := undefined
		if len(show) > 6 {
			show = append(show[:6:6], "…")
		}
		r.Warnf("%d feature/method associations are undefined and left empty (a constant feature or metric, fewer than 2 datasets for the correlations, or no more than %d for the mutual information): %s", len(undefined), opts.Neighbors, strings.Join(show, ", "))
	}
	return r, nil
}

// charWarnUndefined warns once per feature that is undefined on a dataset.
func charWarnUndefined(in CharacteristicsInput, r *CharacteristicsResult) {
	undefinedFeature := map[string]bool{}
	for d, row := range in.Values {
		for f, v := range row {
			if !analyses.Finite(v) && !undefinedFeature[in.Features[f]] {
				undefinedFeature[in.Features[f]] = true
				r.Warnf("feature %s is undefined on dataset %s (first of possibly several): a constant per-user share has no skewness or kurtosis, or the input left the cell empty; that dataset is left out of the feature's associations", in.Features[f], in.Datasets[d])
			}
		}
	}
}

// charWarnMissingPerf warns of the (dataset, method) cells without a value.
func charWarnMissingPerf(in CharacteristicsInput, r *CharacteristicsResult) {
	missingPerf := 0
	for d := range in.Datasets {
		for m := range in.Methods {
			if !analyses.Finite(in.Perf[d][m]) {
				missingPerf++
			}
		}
	}
	if missingPerf > 0 {
		r.Warnf("%d (dataset, method) cells of %s are missing; each association uses the datasets where both the feature and the method's value are present (the n column)", missingPerf, in.Metric)
	}
}

// charAssociate computes feature f's associations with every method and
// pooled over them, and returns undefined with the feature/method pairs
// whose association is undefined appended.
func charAssociate(in CharacteristicsInput, r *CharacteristicsResult, f, neighbors int, undefined []string) []string {
	M := len(in.Methods)
	r.N[f] = make([]int, M+1)
	var px, py []float64
	for m := 0; m <= M; m++ {
		var x, y []float64
		if m < M {
			for d := range in.Datasets {
				fv, pv := in.Values[d][f], in.Perf[d][m]
				if analyses.Finite(fv) && analyses.Finite(pv) {
					x, y = append(x, fv), append(y, pv)
				}
			}
			px, py = append(px, x...), append(py, y...)
		} else {
			x, y = px, py
		}
		r.N[f][m] = len(x)
		r.Pearson[f][m] = stats.Pearson(x, y)
		r.Spearman[f][m] = stats.Spearman(x, y)
		r.MutualInformation[f][m] = stats.MutualInfoKSG(x, y, neighbors)
		if math.IsNaN(r.Pearson[f][m]) || math.IsNaN(r.MutualInformation[f][m]) {
			undefined = append(undefined, in.Features[f]+"/"+r.Methods[m])
		}
	}
	return undefined
}

// Tables implements Result: the pooled association per feature (main),
// -features, -association and, from logs, -preprocessing.
func (r *CharacteristicsResult) Tables() []analyses.Table {
	var out []analyses.Table
	if r.Metric != "" {
		pooled := len(r.Methods) - 1
		main := analyses.Table{Title: fmt.Sprintf("Association of each feature with %s over all methods pooled", r.Naming.Metric(r.Metric)),
			Columns: []string{"feature", "pearson", "spearman", "mutual_information", "n"}}
		for f, name := range r.Features {
			main.Rows = append(main.Rows, []any{name, analyses.CellValue(r.Pearson[f][pooled]), analyses.CellValue(r.Spearman[f][pooled]),
				analyses.CellValue(r.MutualInformation[f][pooled]), r.N[f][pooled]})
		}
		out = append(out, main)
	}
	feat := analyses.Table{Name: "features", Title: "Characteristics of each dataset", Columns: append([]string{"dataset"}, r.Features...)}
	for d, name := range r.Datasets {
		row := []any{name}
		for f, v := range r.Values[d] {
			if r.Preprocessing != nil && logCountFeatures[r.Features[f]] && analyses.Finite(v) && v < 1<<53 {
				row = append(row, int(v))
				continue
			}
			row = append(row, analyses.CellValue(v))
		}
		feat.Rows = append(feat.Rows, row)
	}
	if r.Metric == "" {
		out = append(out, feat)
	} else {
		assoc := analyses.Table{Name: "association", Title: fmt.Sprintf("Association of each feature with each method's %s", r.Naming.Metric(r.Metric)),
			Columns: []string{"feature", "method", "pearson", "spearman", "mutual_information", "n"}}
		for f, name := range r.Features {
			for m, meth := range r.Methods {
				assoc.Rows = append(assoc.Rows, []any{name, meth, analyses.CellValue(r.Pearson[f][m]), analyses.CellValue(r.Spearman[f][m]),
					analyses.CellValue(r.MutualInformation[f][m]), r.N[f][m]})
			}
		}
		out = append(out, feat, assoc)
	}
	if r.Preprocessing != nil {
		pre := analyses.Table{Name: "preprocessing", Title: "Preprocessing of the interaction logs: interactions removed at each step",
			Columns: []string{"dataset", "rows", "duplicates", "below_threshold", "item_filter", "user_filter", "core", "core_rounds", "interactions"}}
		for d, c := range r.Preprocessing {
			pre.Rows = append(pre.Rows, []any{r.Datasets[d], int(c.Rows), int(c.Duplicates), int(c.BelowThreshold), int(c.ItemFilter), int(c.UserFilter), int(c.Core), c.CoreRounds, int(c.Interactions)})
		}
		out = append(out, pre)
	}
	return out
}

// Highlight: the feature most associated with performance, over the
// methods that are not declared baselines (a baseline's performance is
// rarely what a reader asks about).
func (r *CharacteristicsResult) Highlight() string {
	n := r.Naming
	bestF, bestM, best := -1, -1, 0.0
	for f := range r.Spearman {
		for m, v := range r.Spearman[f] {
			if m < len(r.Methods) && n.IsBaseline(r.Methods[m]) {
				continue
			}
			if !math.IsNaN(v) && math.Abs(v) > math.Abs(best) {
				bestF, bestM, best = f, m, v
			}
		}
	}
	s := analyses.Count(len(r.Features), "feature", "features") + " of " + analyses.Count(len(r.Datasets), "dataset", "datasets")
	if bestF >= 0 && bestM < len(r.Methods) {
		var col []float64 // the association table's column, as it prints it
		for _, row := range r.Spearman {
			for _, v := range row {
				if analyses.Finite(v) {
					col = append(col, v)
				}
			}
		}
		s += fmt.Sprintf("; %s is the feature most associated with %s of %s (Spearman %s)", n.Feature(r.Features[bestF]), n.Metric(r.Metric), n.Method(r.Methods[bestM]), analyses.ColumnText(best, col))
		var left []string
		for _, m := range r.Methods {
			if n.IsBaseline(m) {
				left = append(left, n.Method(m))
			}
		}
		switch len(left) {
		case 0:
		case 1:
			s += fmt.Sprintf(", baseline %s left out", left[0])
		default:
			s += fmt.Sprintf(", baselines %s left out", analyses.JoinAnd(left))
		}
	}
	return s + "."
}

// Highlight: the number of clusters, their quality and the outliers.
func (r *ClustersResult) Highlight() string {
	if r.K == 0 {
		return ""
	}
	s := analyses.Count(r.K, "cluster", "clusters") + " of " + analyses.Count(len(r.Datasets), "dataset", "datasets")
	if r.Silhouette != nil {
		var col []float64 // the k table's column, as it prints it
		for _, k := range r.KScan {
			if k.Silhouette != nil && analyses.Finite(*k.Silhouette) {
				col = append(col, *k.Silhouette)
			}
		}
		s += fmt.Sprintf(" (silhouette %s)", analyses.ColumnText(*r.Silhouette, append(col, *r.Silhouette)))
	}
	names := func(ids []string) string {
		l := make([]string, len(ids))
		for i, id := range ids {
			l[i] = r.Naming.Dataset(id)
		}
		return strings.Join(l, ", ")
	}
	if len(r.Outliers) > 0 {
		s += fmt.Sprintf("; %s: %s", analyses.Count(len(r.Outliers), "outlier", "outliers"), names(r.Outliers))
	}
	if len(r.Representatives) > 0 {
		s += "; representatives " + names(r.Representatives)
	}
	return s + "."
}

// Highlight: per metric, the strategies in order of how closely the
// rankings on their chosen datasets follow the ranking on all datasets
// (mean Spearman ρ). Metrics are never averaged: a strategy that wins on
// one metric and loses on another is shown as such, as is random choice
// beating a designed strategy.
func (r *SelectionResult) Highlight() string {
	n := r.Naming
	vals := r.meanRhos()
	var per []string
	for _, m := range r.Metrics {
		type entry struct {
			st  string
			rho float64
		}
		var es []entry
		for _, st := range r.Strategies {
			if v, ok := r.MeanRho[st][m]; ok && !math.IsNaN(v) {
				es = append(es, entry{st, v})
			}
		}
		if len(es) == 0 {
			continue
		}
		sort.SliceStable(es, func(i, j int) bool { return analyses.CompareScores(es[i].rho, es[j].rho) > 0 })
		parts := make([]string, len(es))
		for i, e := range es {
			parts[i] = n.Strategy(e.st) + " " + analyses.ColumnText(e.rho, vals)
			if i > 0 {
				sep := " > "
				if analyses.Tied(es[i-1].rho, e.rho) {
					sep = " = "
				}
				parts[i] = sep + parts[i]
			}
		}
		per = append(per, n.Metric(m)+": "+strings.Join(parts, ""))
	}
	if len(per) == 0 {
		return ""
	}
	return fmt.Sprintf("With %d of %d datasets, how closely each selection ranks like all datasets (mean Spearman ρ over %d simulations, per metric) — %s.",
		r.Size, len(r.Datasets), r.Simulations, strings.Join(per, "; "))
}
