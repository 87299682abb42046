package multiobjective

// Choosing one model from many metrics has no answer without a stated
// trade-off (Chia et al. 2023, §2.2). This analysis makes the trade-off
// explicit the way Chia et al. (2023, §4.2) propose: every objective is
// converted into units of a base metric through the line fitted to the
// Pareto front of (base, objective), and the importance λ of each objective
// is a separate, human knob. It also recomputes the EvalRS 2022 score and
// the importance that score implied (Chia et al. 2023, §4.3), so a reader
// can see both side by side.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/evalbook/evalbook/analyses"

	"gonum.org/v1/gonum/stat"
)

// Options are the keys of a `multi_objective` analysis.
type Options struct {
	// Input is an optional leaderboard file with one row per model
	// (submission); without it the study's results are used, one point
	// per method of Dataset.
	Input Source `toml:"input" json:"input"`
	// Dataset picks the dataset of the results (required when the results
	// hold several; ignored with Input).
	Dataset    string     `toml:"dataset" json:"dataset,omitempty"`
	Base       string     `toml:"base" json:"base"`
	Objectives []string   `toml:"objectives" json:"objectives"`
	Importance Importance `toml:"importance" json:"importance"`
	// Compare lists the uniform importances of the figure comparing the
	// new score with the 2022 score (Chia et al. 2023, Fig. 3); default
	// 1, 2, 4.
	Compare []float64 `toml:"compare" json:"compare"`
	// RankBy orders the leaderboard: "score" (default) or "evalrs2022".
	RankBy     string             `toml:"rank_by" json:"rank_by"`
	EvalRS2022 *EvalRS2022Options `toml:"evalrs2022" json:"evalrs2022,omitempty"`
}

// Defaults fills unset options.
func (o *Options) Defaults() {
	if len(o.Compare) == 0 {
		o.Compare = []float64{1, 2, 4}
	}
	if o.RankBy == "" {
		o.RankBy = "score"
	}
}

// Validate checks the options.
func (o *Options) Validate() error {
	if o.Base == "" {
		return analyses.OptionErrorf("base", "required (the metric every objective is traded against, e.g. hit_rate)")
	}
	if len(o.Objectives) == 0 {
		return analyses.OptionErrorf("objectives", "required (at least one metric besides base)")
	}
	if err := analyses.CheckLen("objectives", len(o.Objectives), analyses.MaxObjectives); err != nil {
		return err
	}
	if err := analyses.CheckDistinct("objectives", o.Objectives); err != nil {
		return err
	}
	for _, m := range o.Objectives {
		if m == o.Base {
			return analyses.OptionErrorf("objectives", "%q is the base", m)
		}
	}
	if _, err := o.Importance.resolve(o.Objectives); err != nil {
		return err
	}
	if err := analyses.CheckFloats("compare", o.Compare, 0, math.MaxFloat64, analyses.MaxCompare); err != nil {
		return err
	}
	if err := analyses.OneOf("rank_by", o.RankBy, "score", "evalrs2022"); err != nil {
		return err
	}
	if err := o.validateIDs(); err != nil {
		return err
	}
	if o.RankBy == "evalrs2022" && !o.EvalRS2022.Enabled() {
		return analyses.OptionErrorf("rank_by", "rank_by = \"evalrs2022\" needs an [analyses.evalrs2022] table")
	}
	if o.EvalRS2022 != nil {
		if err := o.EvalRS2022.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// validateIDs checks input.ids: distinct names, none of them the model,
// a metric of the analysis or a column the tables write.
func (o *Options) validateIDs() error {
	if err := analyses.CheckDistinct("input.ids", o.Input.IDs); err != nil {
		return err
	}
	taken := map[string]string{"model": "the model"}
	for _, m := range moMetrics(*o) {
		taken[m] = "a metric of the analysis"
	}
	for _, c := range []string{"front", "score", "evalrs2022_score", "best_score", "best_evalrs2022_score"} {
		taken[c] = "a column of the tables"
	}
	for _, m := range o.Objectives {
		taken["delta_"+m] = "a column of the tables"
	}
	for _, id := range o.Input.IDs {
		what, ok := taken[id]
		if !ok {
			what, ok = taken[strings.ToLower(id)]
		}
		if ok {
			return analyses.OptionErrorf("input.ids", "%q is %s: ids name the file's other identifier columns (a team's submission)", id, what)
		}
	}
	return nil
}

// Input is one row per model: Values[metric][row] holds the
// raw value (NaN when missing) of every metric the analysis reads.
// IDs[row] holds the row's values of the input's other identifier
// columns, IDColumns (nil without input.ids).
type Input struct {
	Models    []string
	IDColumns []string
	IDs       [][]string
	Metrics   map[string]analyses.Metric // direction of every metric in Values
	Values    map[string][]float64
}

// Fit is the optimal trade-off line of one objective.
type Fit struct {
	Objective string `json:"objective"`
	// ParetoRows are the input rows on the front of (base, objective),
	// one per distinct point (the first of duplicates), in input order.
	ParetoRows []int    `json:"pareto_rows"`
	Slope      *float64 `json:"slope"`
	Intercept  *float64 `json:"intercept"`
	R2         *float64 `json:"r2"`
	Importance float64  `json:"importance"`
	// ImpliedSlope is the slope of base on the objective that the 2022
	// score implied at λ = 1: −(w_i/w_base)·(best_base − baseline_base)/
	// (best_i − baseline_i), on oriented values.
	ImpliedSlope *float64 `json:"implied_slope"`
	// ImpliedImportance is the λ at which the new score weighs the
	// objective against the base as the 2022 score did: ImpliedSlope/Slope.
	ImpliedImportance *float64 `json:"implied_importance"`
}

// Compare holds the new score of every row at one uniform
// importance (Chia et al. 2023, Fig. 3); nil where a row has no score.
type Compare struct {
	Importance float64    `json:"importance"`
	Scores     []*float64 `json:"scores"`
}

// Result is the outcome of Analyze.
type Result struct {
	analyses.Warnings
	Base       string   `json:"base"`
	Objectives []string `json:"objectives"`
	Models     []string `json:"models"`
	// IDColumns are the input's other identifier columns (input.ids) and
	// IDs[row] the row's values of them: rows of one model stay apart in
	// every table and data file.
	IDColumns []string   `json:"id_columns,omitempty"`
	IDs       [][]string `json:"ids,omitempty"`
	// Front is the non-dominated-sorting front of each row over all
	// metrics (1 = not dominated); 0 for a row with a missing value.
	Front       []int        `json:"front"`
	Fronts      int          `json:"fronts"`
	Fits        []Fit        `json:"fits"`
	Delta       [][]*float64 `json:"delta"` // [objective][row]
	Score       []*float64   `json:"score"`
	EvalRS2022  []*float64   `json:"evalrs2022_score,omitempty"`
	Penalised   []bool       `json:"below_threshold,omitempty"`
	Compare     []Compare    `json:"compare"`
	Leaderboard []Entry      `json:"-"`
	// Oriented holds the base and objective values oriented so higher is
	// better (NaN when missing), for the figures.
	Oriented map[string][]float64 `json:"-"`
	RankBy   string               `json:"rank_by"`
	Scored   bool                 `json:"has_evalrs2022"`
	// Naming names models (as methods) in Highlight and the metrics in
	// the figures (set by the kind).
	Naming analyses.Naming `json:"-"`
}

// Entry is one model of the leaderboard: its best rows. IDs are the
// identifiers (Result.IDColumns) of the row whose score ranks it
// (RankBy's), nil when it has none.
type Entry struct {
	Model      string
	IDs        []string
	BestScore  *float64
	BestEvalRS *float64
}

// Analyze computes Pareto fronts, fitted trade-offs and scores (Chia et al.
// 2023, §4.2, Eqn. 3). The Pareto set of each pair and the non-dominated
// sorting follow paretoset (tommyod 2020), which Chia et al. used, with
// distinct = True for the fit; the line is the least squares fit of
// numpy.polyfit(m, base, 1).
func Analyze(in Input, o Options) (*Result, error) {
	n := len(in.Models)
	lambda, err := o.Importance.resolve(o.Objectives)
	if err != nil {
		return nil, err
	}
	metrics := moMetrics(o)
	r := &Result{Base: o.Base, Objectives: o.Objectives, Models: in.Models, IDColumns: in.IDColumns, IDs: in.IDs,
		Oriented: map[string][]float64{}, RankBy: o.RankBy, Scored: o.EvalRS2022.Enabled()}
	if len(in.IDColumns) > 0 && len(in.IDs) != n {
		panic(fmt.Sprintf("multiobjective: %d rows of ids for %d models", len(in.IDs), n))
	}
	for _, m := range metrics {
		v, ok := in.Values[m]
		if !ok {
			return nil, fmt.Errorf("no values for metric %q", m)
		}
		if len(v) != n {
			panic(fmt.Sprintf("multiobjective: multi_objective metric %q has %d values for %d models", m, len(v), n))
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("no models to compare")
	}
	rows := moOrient(in, o, r, metrics[:1+len(o.Objectives)])
	if len(rows) == 0 {
		return nil, fmt.Errorf("no model has every metric of %v", metrics[:1+len(o.Objectives)])
	}
	moFronts(r, rows, metrics[:1+len(o.Objectives)])

	// Per objective: Pareto points of (base, objective), the fitted line,
	// and the differential of every row.
	r.Delta = make([][]*float64, len(o.Objectives))
	for j, m := range o.Objectives {
		fit := moObjective(in, o, r, rows, m, lambda[j])
		r.Fits = append(r.Fits, fit)
		r.Delta[j] = make([]*float64, n)
		if fit.Slope != nil {
			base, obj := r.Oriented[o.Base], r.Oriented[m]
			for _, i := range rows {
				d := base[i] - *fit.Intercept - lambda[j]*(*fit.Slope)*obj[i]
				r.Delta[j][i] = &d
			}
		}
	}
	moScores(o, r, rows, lambda)
	if o.EvalRS2022.Enabled() {
		r.EvalRS2022, r.Penalised = moEvalRS2022Scores(in, o.EvalRS2022, &r.Warnings)
	}
	r.Leaderboard = moLeaderboard(r)
	return r, nil
}

// moMetrics lists the base, the objectives and the other metrics the
// evalrs2022 score needs.
func moMetrics(o Options) []string {
	metrics := append([]string{o.Base}, o.Objectives...)
	if o.EvalRS2022.Enabled() {
		for _, m := range o.EvalRS2022.Metrics() {
			if moIndexOf(metrics, m) < 0 {
				metrics = append(metrics, m)
			}
		}
	}
	return metrics
}

// moOrient orients the base and the objectives so that higher is better
// and returns the rows that have all of them; the others take part in
// nothing.
func moOrient(in Input, o Options, r *Result, metrics []string) []int {
	n := len(in.Models)
	complete := make([]bool, n)
	for i := range complete {
		complete[i] = true
	}
	for _, m := range metrics {
		met := in.Metrics[m]
		or := make([]float64, n)
		for i, x := range in.Values[m] {
			or[i] = met.Orient(x)
			if !analyses.Finite(x) {
				or[i] = math.NaN()
				complete[i] = false
			}
		}
		r.Oriented[m] = or
	}
	var rows []int
	for i, ok := range complete {
		if ok {
			rows = append(rows, i)
		} else {
			r.Warnf("model %q (row %d) has a missing or non-finite %s or objective value: it has no front and no score", in.Models[i], i+1, o.Base)
		}
	}
	return rows
}

// moFronts is the non-dominated sorting of the rows over the metrics.
func moFronts(r *Result, rows []int, metrics []string) {
	pts := make([][]float64, len(rows))
	for k, i := range rows {
		p := make([]float64, len(metrics))
		for j, m := range metrics {
			p[j] = r.Oriented[m][i]
		}
		pts[k] = p
	}
	fronts := moNonDominatedSort(pts)
	r.Front = make([]int, len(r.Models))
	for k, i := range rows {
		r.Front[i] = fronts[k]
		r.Fronts = max(r.Fronts, fronts[k])
	}
}

// moObjective fits the trade-off line of objective m against the base on
// the Pareto points of (base, m), and the slope and importance the
// evalrs2022 constants imply.
func moObjective(in Input, o Options, r *Result, rows []int, m string, lambda float64) Fit {
	base, obj := r.Oriented[o.Base], r.Oriented[m]
	bx, oy := make([]float64, len(rows)), make([]float64, len(rows))
	for k, i := range rows {
		bx[k], oy[k] = base[i], obj[i]
	}
	fit := Fit{Objective: m, Importance: lambda}
	var xs, ys []float64
	for _, k := range moPareto2D(bx, oy) {
		fit.ParetoRows = append(fit.ParetoRows, rows[k])
		xs = append(xs, obj[rows[k]])
		ys = append(ys, base[rows[k]])
	}
	if slope, icept, r2, ok := moFitLine(xs, ys); ok {
		fit.Slope, fit.Intercept = &slope, &icept
		if !math.IsNaN(r2) {
			fit.R2 = &r2
		}
		if slope >= 0 {
			r.Warnf("%s does not compete with %s on its Pareto front (fitted slope %.4g ≥ 0): the trade-off line does not describe a cost", m, o.Base, slope)
		}
	} else {
		r.Warnf("the Pareto front of (%s, %s) has %s and %s takes a single value on it: no trade-off line can be fitted (it does not compete with %s), so it is left out of the score", o.Base, m, analyses.Count(len(xs), "distinct point", "distinct points"), m, o.Base)
	}
	if o.EvalRS2022.Enabled() {
		moImplied(in, o, r, &fit)
	}
	return fit
}

// moImplied sets the slope and importance of fit.Objective that the
// evalrs2022 constants imply.
func moImplied(in Input, o Options, r *Result, fit *Fit) {
	e, m := o.EvalRS2022, fit.Objective
	wb, wi := e.metricWeight(o.Base), e.metricWeight(m)
	if wb <= 0 || wi <= 0 {
		r.Warnf("no implied importance for %s: %s or %s is in no evalrs2022 group", m, o.Base, m)
		return
	}
	bm, im := in.Metrics[o.Base], in.Metrics[m]
	k := (wi / wb) * (bm.Orient(e.Best[o.Base]) - bm.Orient(e.Baseline[o.Base])) /
		(im.Orient(e.Best[m]) - im.Orient(e.Baseline[m]))
	s := -k
	fit.ImpliedSlope = &s
	if fit.Slope != nil && *fit.Slope != 0 {
		l := s / *fit.Slope
		fit.ImpliedImportance = &l
		if l < 0 {
			r.Warnf("the 2022 constants imply a negative importance for %s (%.4g): the 2022 score rewarded what the data says is a gain as a loss, or the reverse", m, l)
		}
	}
}

// moScores sums every row's differentials over the objectives with a
// fitted line, with the given importances and with each compared one. An
// objective without a line (its front is one point: it does not trade off
// against the base) is left out of the score rather than leaving every
// model without one.
func moScores(o Options, r *Result, rows []int, lambda []float64) {
	n := len(r.Models)
	base := r.Oriented[o.Base]
	var fitted []int
	for j, f := range r.Fits {
		if f.Slope != nil {
			fitted = append(fitted, j)
		}
	}
	r.Score = make([]*float64, n)
	if len(fitted) == 0 {
		r.Warnf("no objective has a fitted trade-off line, so no model has a score")
		return
	}
	score := func(i int, l func(j int) float64) *float64 {
		s := 0.0
		for _, j := range fitted {
			f := r.Fits[j]
			s += base[i] - *f.Intercept - l(j)*(*f.Slope)*r.Oriented[o.Objectives[j]][i]
		}
		return &s
	}
	for _, i := range rows {
		r.Score[i] = score(i, func(j int) float64 { return lambda[j] })
	}
	for _, l := range o.Compare {
		c := Compare{Importance: l, Scores: make([]*float64, n)}
		for _, i := range rows {
			c.Scores[i] = score(i, func(int) float64 { return l })
		}
		r.Compare = append(r.Compare, c)
	}
}

// moFitLine is numpy.polyfit(x, y, 1) and the R² of the fit, from gonum's
// centred least squares. ok is false when x has fewer than two distinct
// values.
func moFitLine(x, y []float64) (slope, intercept, r2 float64, ok bool) {
	distinct := false
	for _, v := range x[min(1, len(x)):] {
		distinct = distinct || v != x[0]
	}
	if len(x) < 2 || !distinct {
		return 0, 0, 0, false
	}
	intercept, slope = stat.LinearRegression(x, y, nil, false)
	ssRes, ssTot := 0.0, 0.0
	my := stat.Mean(y, nil)
	for i := range x {
		e := y[i] - (intercept + slope*x[i])
		ssRes += e * e
		ssTot += (y[i] - my) * (y[i] - my)
	}
	r2 = math.NaN()
	if ssTot > 0 {
		r2 = 1 - ssRes/ssTot
	}
	return slope, intercept, r2, true
}

// moEvalRS2022Scores is the stage-two score of EvalRS 2022 (Chia et al.
// 2023, Eqn. 2; RecList/evalRS-CIKM-2022 EvalRSRunner): per metric
// (x − baseline)/(best − baseline), the mean per group, the weighted mean
// of the groups, and the penalty for a model worse than a threshold.
func moEvalRS2022Scores(in Input, e *EvalRS2022Options, w *analyses.Warnings) ([]*float64, []bool) {
	n := len(in.Models)
	out := make([]*float64, n)
	pen := make([]bool, n)
	names := analyses.SortedKeys(e.Groups)
	total := 0.0
	for _, g := range names {
		total += e.Groups[g].Weight
	}
	missing := 0
rows:
	for i := 0; i < n; i++ {
		for _, m := range analyses.SortedKeys(e.Threshold) {
			met := in.Metrics[m]
			x := in.Values[m][i]
			if !analyses.Finite(x) {
				missing++
				continue rows
			}
			if met.Orient(x) < met.Orient(e.Threshold[m]) {
				p := e.Penalty
				out[i], pen[i] = &p, true
			}
		}
		if pen[i] {
			continue
		}
		s := 0.0
		for _, g := range names {
			grp := e.Groups[g]
			mean := 0.0
			for _, m := range grp.Metrics {
				x := in.Values[m][i]
				if !analyses.Finite(x) {
					missing++
					continue rows
				}
				mean += (x - e.Baseline[m]) / (e.Best[m] - e.Baseline[m])
			}
			s += grp.Weight * mean / float64(len(grp.Metrics))
		}
		s /= total
		out[i] = &s
	}
	if missing > 0 {
		if missing == 1 {
			w.Warnf("1 model misses a value the EvalRS 2022 score needs: it has no 2022 score")
		} else {
			w.Warnf("%d models miss a value the EvalRS 2022 score needs: they have no 2022 score", missing)
		}
	}
	return out, pen
}

// moLeaderboard keeps each model's best score and best 2022 score (rows
// sharing a model id are separate points, the leaderboard keeps the best),
// best first by RankBy, then by the other score, then by name.
func moLeaderboard(r *Result) []Entry {
	idx := map[string]int{}
	var out []Entry
	better := func(cur **float64, v *float64) bool {
		if v != nil && (*cur == nil || *v > **cur) {
			x := *v
			*cur = &x
			return true
		}
		return false
	}
	for i, m := range r.Models {
		k, ok := idx[m]
		if !ok {
			k = len(out)
			idx[m] = k
			out = append(out, Entry{Model: m})
		}
		byScore := better(&out[k].BestScore, r.Score[i])
		byEvalRS := r.EvalRS2022 != nil && better(&out[k].BestEvalRS, r.EvalRS2022[i])
		if r.IDs != nil && ((r.RankBy == "evalrs2022" && byEvalRS) || (r.RankBy != "evalrs2022" && byScore)) {
			out[k].IDs = r.IDs[i]
		}
	}
	key := func(e Entry) (a, b *float64) {
		if r.RankBy == "evalrs2022" {
			return e.BestEvalRS, e.BestScore
		}
		return e.BestScore, e.BestEvalRS
	}
	// nil sorts last.
	cmp := func(x, y *float64) int {
		switch {
		case x == nil && y == nil:
			return 0
		case x == nil:
			return 1
		case y == nil:
			return -1
		case *x > *y:
			return -1
		case *x < *y:
			return 1
		}
		return 0
	}
	sort.SliceStable(out, func(i, j int) bool {
		ai, bi := key(out[i])
		aj, bj := key(out[j])
		if c := cmp(ai, aj); c != 0 {
			return c < 0
		}
		if c := cmp(bi, bj); c != 0 {
			return c < 0
		}
		return out[i].Model < out[j].Model
	})
	return out
}

// Tables implements Result: the per-row table, the leaderboard and the
// fits (under the column names the README lists).
func (r *Result) Tables() []analyses.Table {
	ids := func(vals []string) []any {
		out := make([]any, len(r.IDColumns))
		for j := range out {
			if j < len(vals) {
				out[j] = vals[j]
			}
		}
		return out
	}
	cols := append(append([]string{"model"}, r.IDColumns...), "front", "score", "evalrs2022_score")
	for _, m := range r.Objectives {
		cols = append(cols, "delta_"+m)
	}
	main := analyses.Table{Name: "", Title: "Models: front, score and differential per objective", Columns: cols}
	at := 1 + len(r.IDColumns) // the front's column
	for i, m := range r.Models {
		row := append([]any{m}, ids(r.rowIDs(i))...)
		row = append(row, nil, moCell(r.Score[i]), nil)
		if r.Front[i] > 0 {
			row[at] = r.Front[i]
		}
		if r.EvalRS2022 != nil {
			row[at+2] = moCell(r.EvalRS2022[i])
		}
		for j := range r.Objectives {
			row = append(row, moCell(r.Delta[j][i]))
		}
		main.Rows = append(main.Rows, row)
	}
	title := "Leaderboard: each model's best score"
	if len(r.IDColumns) > 0 {
		title += " and the " + strings.Join(r.IDColumns, ", ") + " that scored it"
	}
	lb := analyses.Table{Name: "leaderboard", Title: title, Columns: append(append([]string{"model"}, r.IDColumns...), "best_score", "best_evalrs2022_score")}
	for _, e := range r.Leaderboard {
		row := append([]any{e.Model}, ids(e.IDs)...)
		lb.Rows = append(lb.Rows, append(row, moCell(e.BestScore), moCell(e.BestEvalRS)))
	}
	fits := analyses.Table{Name: "fits", Title: "Fitted trade-offs per objective", Columns: []string{"objective", "pareto_points", "slope", "intercept", "r2", "implied_importance"},
		Mixed: map[string]bool{"slope": true, "intercept": true}} // each objective's own units
	for _, f := range r.Fits {
		fits.Rows = append(fits.Rows, []any{f.Objective, len(f.ParetoRows), moCell(f.Slope), moCell(f.Intercept), moCell(f.R2), moCell(f.ImpliedImportance)})
	}
	for _, t := range []analyses.Table{main, lb, fits} {
		t.Check()
	}
	return []analyses.Table{main, lb, fits}
}

// rowIDs are row i's identifiers (nil without input.ids).
func (r *Result) rowIDs(i int) []string {
	if i < len(r.IDs) {
		return r.IDs[i]
	}
	return nil
}

// RowName names row i for a reader: the model's label, then its
// identifiers ("aurora (submission 2)"); the model alone without ids.
func (r *Result) RowName(i int) string {
	name := r.Naming.Method(r.Models[i])
	var parts []string
	for j, c := range r.IDColumns {
		if ids := r.rowIDs(i); j < len(ids) {
			parts = append(parts, c+" "+ids[j])
		}
	}
	if len(parts) > 0 {
		name += " (" + strings.Join(parts, ", ") + ")"
	}
	return name
}

func moCell(p *float64) any {
	if p == nil || !analyses.Finite(*p) {
		return nil
	}
	return *p
}

// dominates reports whether a Pareto-dominates b (every coordinate at
// least as high, one strictly higher; all maximised).
func moDominates(a, b []float64) bool {
	strict := false
	for i := range a {
		if a[i] < b[i] {
			return false
		}
		if a[i] > b[i] {
			strict = true
		}
	}
	return strict
}

// moNonDominatedSort returns the front of every point (1 = non-dominated,
// 2 = non-dominated once front 1 is removed, …), every coordinate
// maximised. Equal points are never dominated by each other and share a
// front. It is Deb et al.'s fast non-dominated sort, O(k·n²) time, but
// recomputes "who does this front dominate" instead of storing every
// dominated pair, so memory is O(n) whatever the number of models.
func moNonDominatedSort(pts [][]float64) []int {
	n := len(pts)
	count := make([]int, n) // how many points dominate i
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			switch {
			case moDominates(pts[i], pts[j]):
				count[j]++
			case moDominates(pts[j], pts[i]):
				count[i]++
			}
		}
	}
	front := make([]int, n)
	var cur []int
	for i := range count {
		if count[i] == 0 {
			front[i] = 1
			cur = append(cur, i)
		}
	}
	for f := 1; len(cur) > 0; f++ {
		var next []int
		for j := 0; j < n; j++ {
			if front[j] != 0 {
				continue
			}
			for _, i := range cur {
				if moDominates(pts[i], pts[j]) {
					count[j]--
				}
			}
			if count[j] == 0 {
				front[j] = f + 1
				next = append(next, j)
			}
		}
		cur = next
	}
	return front
}

// moPareto2D returns, in input order, the rows whose point (x[i], y[i]) no
// other point dominates (both maximised), keeping only the first of equal
// points: paretoset(…, distinct=True), which Chia et al. 2023 used. It
// sorts by x descending, then y descending, then row, and keeps a point
// when its y beats every y seen so far: O(n log n).
func moPareto2D(x, y []float64) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		i, j := idx[a], idx[b]
		if x[i] != x[j] {
			return x[i] > x[j]
		}
		if y[i] != y[j] {
			return y[i] > y[j]
		}
		return i < j
	})
	var out []int
	best := math.Inf(-1)
	for k, i := range idx {
		if k == 0 || y[i] > best {
			out = append(out, i)
			best = y[i]
		}
	}
	sort.Ints(out)
	return out
}

// Highlight: the best model under the new score and under the 2022 one.
func (r *Result) Highlight() string {
	if len(r.Leaderboard) == 0 {
		return ""
	}
	bestNew, bestOld := "", ""
	var vNew, vOld float64
	var news, olds []float64 // the leaderboard table's columns, whose decimals the finding quotes them with
	for _, e := range r.Leaderboard {
		if e.BestScore != nil {
			news = append(news, *e.BestScore)
			if bestNew == "" || *e.BestScore > vNew {
				bestNew, vNew = r.Naming.Method(e.Model), *e.BestScore
			}
		}
		if e.BestEvalRS != nil {
			olds = append(olds, *e.BestEvalRS)
			if bestOld == "" || *e.BestEvalRS > vOld {
				bestOld, vOld = r.Naming.Method(e.Model), *e.BestEvalRS
			}
		}
	}
	s := analyses.Count(len(r.Leaderboard), "model", "models") + " on " + analyses.Count(r.Fronts, "front", "fronts")
	if bestNew != "" {
		s += fmt.Sprintf("; best trade-off score: %s (%s)", bestNew, analyses.ColumnText(vNew, news))
	}
	if bestOld != "" {
		s += fmt.Sprintf("; best EvalRS 2022 score: %s (%s)", bestOld, analyses.ColumnText(vOld, olds))
	}
	return s + "."
}
