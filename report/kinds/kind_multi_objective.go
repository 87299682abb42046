package kinds

// multi_objective reads either a leaderboard of submissions (CSV, TSV or
// Parquet: the EvalRS 2022 submissions are Parquet) or the study's
// results, and hands the pure analysis one row per model.

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/multiobjective"
	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report/manifest"
)

func init() { register(multiObjectiveKind) }

func multiObjectiveKind() Kind {
	k := NewKind("multi_objective", "Pareto fronts, fitted trade-offs against a base metric and one score with stated importance; the EvalRS 2022 score beside it (Chia et al. 2023)", runMultiObjective)
	return metricTitle(k, "Trade-offs", func(o *multiobjective.Options) string { return o.Base })
}

// moTable is the method set *input.TableReader and *parquet.Reader share.
type moTable interface {
	Col(name string) int
	Require(name string) (int, error)
	Next() ([]string, error)
	Float(col int) (float64, bool, error)
	Errorf(col int, format string, args ...any) error
	NameError(col int, what, name string) error
	Rows() int64
	Close() error
}

// moOpen opens the analysis's input table (CSV, TSV or Parquet),
// recording it for the provenance.
func moOpen(job *Job, rel string, mapping map[string]string) (moTable, func(), error) {
	path := job.Path(rel)
	t, err := job.Inputs.OpenMapped(path, mapping)
	if err != nil {
		return nil, nil, err
	}
	return t, func() { job.Inputs.CloseCounted(path, t) }, nil
}

// moMetrics lists every metric the options read: base, objectives, then
// the EvalRS 2022 metrics.
func moMetrics(o *multiobjective.Options) []string {
	out := append([]string{o.Base}, o.Objectives...)
	if o.EvalRS2022.Enabled() {
		for _, m := range o.EvalRS2022.Metrics() {
			if !manifest.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// moReadInput reads one row per model from the input table.
func moReadInput(job *Job, o *multiobjective.Options) (multiobjective.Input, error) {
	in := multiobjective.Input{Metrics: map[string]analyses.Metric{}, Values: map[string][]float64{}}
	for col := range o.Input.Columns {
		if col != "model" && !manifest.Contains(moMetrics(o), col) {
			return in, fmt.Errorf("input.columns: %q is neither model nor a metric of the analysis%s", col, analyses.NameHint(col, append([]string{"model"}, moMetrics(o)...)))
		}
	}
	t, done, err := moOpen(job, o.Input.Path, o.Input.Columns)
	if err != nil {
		return in, err
	}
	defer done()
	mcol := t.Col("model")
	if mcol < 0 {
		mcol = t.Col("method")
	}
	if mcol < 0 {
		if _, err := t.Require("model"); err != nil {
			return in, fmt.Errorf("%w; map the model id with input = {path = …, columns = {model = \"…\"}}", err)
		}
	}
	metrics := moMetrics(o)
	cols := make([]int, len(metrics))
	for i, m := range metrics {
		if cols[i], err = t.Require(m); err != nil {
			return in, err
		}
		in.Metrics[m] = job.Metric(m)
	}
	ids, err := moIDColumns(t, o.Input.IDs, mcol)
	if err != nil {
		return in, err
	}
	in.IDColumns = o.Input.IDs
	for {
		rec, err := t.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return in, err
		}
		model := strings.TrimSpace(rec[mcol])
		if model == "" {
			return in, t.Errorf(mcol, "empty model id")
		}
		if err := t.NameError(mcol, "model id", model); err != nil {
			return in, err
		}
		if ids != nil {
			row, err := ids.read(t, rec, model, len(in.Models)+1)
			if err != nil {
				return in, err
			}
			in.IDs = append(in.IDs, row)
		}
		in.Models = append(in.Models, model)
		for i, m := range metrics {
			v, ok, err := t.Float(cols[i])
			if err != nil {
				return in, err
			}
			if !ok {
				v = math.NaN()
			}
			in.Values[m] = append(in.Values[m], v)
		}
	}
	if len(in.Models) == 0 {
		return in, fmt.Errorf("%s: no rows", o.Input.Path)
	}
	return in, nil
}

// moIDs reads the identifier columns of input.ids and keeps every row
// apart: a row alike another in the model and every id is an error.
type moIDs struct {
	names []string
	cols  []int
	seen  map[string]int // model and ids → data row (1-based)
}

// moIDColumns finds the columns of input.ids (nil without any).
func moIDColumns(t moTable, names []string, mcol int) (*moIDs, error) {
	if len(names) == 0 {
		return nil, nil
	}
	ids := &moIDs{names: names, cols: make([]int, len(names)), seen: map[string]int{}}
	for i, c := range names {
		var err error
		if ids.cols[i], err = t.Require(c); err != nil {
			return nil, fmt.Errorf("input.ids: %w", err)
		}
		if ids.cols[i] == mcol {
			return nil, fmt.Errorf("input.ids: %q is the model's column", c)
		}
	}
	return ids, nil
}

// read returns the ids of data row n (1-based) of model.
func (ids *moIDs) read(t moTable, rec []string, model string, n int) ([]string, error) {
	row := make([]string, len(ids.cols))
	for i, c := range ids.cols {
		row[i] = strings.TrimSpace(rec[c])
		if row[i] == "" {
			return nil, t.Errorf(c, "empty %s (an identifier column of input.ids)", ids.names[i])
		}
	}
	key := strings.Join(append([]string{model}, row...), "\x00")
	if first, dup := ids.seen[key]; dup {
		return nil, t.Errorf(ids.cols[0], "model %q with %s %s repeats data row %d: the model and input.ids must tell rows apart", model, strings.Join(ids.names, ", "), strings.Join(row, ", "), first)
	}
	ids.seen[key] = n
	return row, nil
}

// moResultsInput takes one row per method of one dataset of the results.
func moResultsInput(job *Job, o *multiobjective.Options) (multiobjective.Input, error) {
	in := multiobjective.Input{Metrics: map[string]analyses.Metric{}, Values: map[string][]float64{}}
	res, err := job.Results()
	if err != nil {
		return in, err
	}
	ds := o.Dataset
	switch {
	case ds == "" && len(res.Datasets) == 1:
		ds = res.Datasets[0]
	case ds == "":
		return in, fmt.Errorf("the results hold %d datasets: set dataset = \"…\" (or give a leaderboard with input = \"…\")", len(res.Datasets))
	default:
		if err := manifest.CheckNames("dataset", []string{ds}, res.Datasets); err != nil {
			return in, err
		}
	}
	metrics := moMetrics(o)
	if err := manifest.CheckNames("metric", metrics, res.Metrics); err != nil {
		return in, err
	}
	for _, m := range res.Methods {
		any := false
		for _, met := range metrics {
			_, ok := res.Get(ds, m, met)
			any = any || ok
		}
		if !any {
			continue
		}
		in.Models = append(in.Models, m)
		for _, met := range metrics {
			v := math.NaN()
			if c, ok := res.Get(ds, m, met); ok {
				v = c.Value
			}
			in.Values[met] = append(in.Values[met], v)
		}
	}
	for _, met := range metrics {
		in.Metrics[met] = job.Metric(met)
	}
	if len(in.Models) == 0 {
		return in, fmt.Errorf("dataset %q has no method with any of %v", ds, metrics)
	}
	return in, nil
}

func runMultiObjective(job *Job, o *multiobjective.Options) (*Output, error) {
	var in multiobjective.Input
	var err error
	if o.Input.Path != "" {
		in, err = moReadInput(job, o)
	} else {
		in, err = moResultsInput(job, o)
	}
	if err != nil {
		return nil, err
	}
	r, err := multiobjective.Analyze(in, *o)
	if err != nil {
		return nil, err
	}
	r.Naming = job.Study.Naming()
	if len(in.IDColumns) == 0 {
		if shared := moShared(in.Models); shared > 0 {
			r.Warnf("%d rows share their model id with another row and nothing else tells them apart in the tables: name the input's other identifier columns with input = {…, ids = [\"submission\"]}", shared)
		}
	}
	figs, err := figures.MultiObjective(job.ID, job.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: MultiObjectiveMethod(o, r)}, nil
}

// moShared counts the rows whose model id another row has too.
func moShared(models []string) int {
	count := map[string]int{}
	for _, m := range models {
		count[m]++
	}
	n := 0
	for _, c := range count {
		if c > 1 {
			n += c
		}
	}
	return n
}

// MultiObjectiveMethod is the method note (notes/multi_objective.md),
// ending with the fitted slopes and implied importances of this study.
func MultiObjectiveMethod(o *multiobjective.Options, r *multiobjective.Result) string {
	type fit struct {
		Objective                   string
		HasSlope, HasR2, HasImplied bool
		Slope, R2, Implied          float64
		Points                      int
	}
	d := struct {
		EvalRS  bool
		Penalty float64
		Fits    []fit
	}{EvalRS: o.EvalRS2022.Enabled()}
	if d.EvalRS {
		d.Penalty = o.EvalRS2022.Penalty
	}
	for _, f := range r.Fits {
		x := fit{Objective: markdownText(r.Naming.Metric(f.Objective)), Points: len(f.ParetoRows)}
		if f.Slope != nil {
			x.HasSlope, x.Slope = true, *f.Slope
		}
		if f.R2 != nil {
			x.HasR2, x.R2 = true, *f.R2
		}
		if f.ImpliedImportance != nil {
			x.HasImplied, x.Implied = true, *f.ImpliedImportance
		}
		d.Fits = append(d.Fits, x)
	}
	return methodNote("multi_objective", d)
}
