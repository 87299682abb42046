// Package explore is the pure core of the Explore page: from the study's
// values of each dataset and method (Data, which the build embeds in the
// page) and a reader's view (State: the datasets and methods ticked, the
// metric, the aggregation rules), it runs the build's own aggregate and
// critical_difference code and formats their tables with the published
// pages' presentation (figures/model). The page calls it through the
// WebAssembly module of explore/wasm; a Go test calls it directly.
//
// It imports no gonum/plot, reads no file and keeps no state.
package explore

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/analyses/significance"
	"github.com/evalbook/evalbook/figures/model"
)

// Data is the study as the Explore page embeds it: every dataset, method
// and metric of the results, the values, the labels, and the published
// analyses the page recomputes with their options.
type Data struct {
	Naming   analyses.Naming `json:"naming"`
	Datasets []string        `json:"datasets"`
	Methods  []string        `json:"methods"`
	Metrics  []Metric        `json:"metrics"`
	// Values are metric → [dataset][method] in the order of Datasets
	// and Methods; null is a missing cell.
	Values map[string][][]*float64 `json:"values"`
	// Aggregate and CriticalDifference are the published analyses the
	// page recomputes (nil: the study has none).
	Aggregate          *Aggregate          `json:"aggregate,omitempty"`
	CriticalDifference *CriticalDifference `json:"critical_difference,omitempty"`
	Stability          *Stability          `json:"stability,omitempty"`
	// Published is the view the published study shows: the one the page
	// opens on and compares the reader's view with.
	Published State `json:"published"`
}

// Metric is one metric, its direction and its bound (nil: none), which
// the stability perturbations respect.
type Metric struct {
	Name           string   `json:"name"`
	HigherIsBetter bool     `json:"higher_is_better"`
	Max            *float64 `json:"max,omitempty"`
}

// Stability is a published stability analysis: its id, options and
// seed (the build's stream of that analysis).
type Stability struct {
	ID      string                       `json:"id"`
	Seed    uint64                       `json:"seed,string"`
	Options leaderboard.StabilityOptions `json:"options"`
}

// Aggregate is a published aggregate analysis: its id and options.
type Aggregate struct {
	ID      string                       `json:"id"`
	Options leaderboard.AggregateOptions `json:"options"`
}

// CriticalDifference is a published critical_difference analysis: its
// id, its options and its Monte Carlo seed (the build's stream of that
// analysis, so the Bayesian test draws the same samples).
type CriticalDifference struct {
	ID      string                                 `json:"id"`
	Seed    uint64                                 `json:"seed,string"`
	Options significance.CriticalDifferenceOptions `json:"options"`
}

// State is a reader's view: the metric, the datasets and methods on
// (ids, in the study's order), and the aggregation rules.
type State struct {
	Metric   string   `json:"metric"`
	Datasets []string `json:"datasets"`
	Methods  []string `json:"methods"`
	Rules    []string `json:"rules"`
}

// Result is what the page shows for a view.
type Result struct {
	// Tables are the recomputed analyses' tables, as their pages show
	// them.
	Tables []Table `json:"tables"`
	// Problems are the analyses that cannot run on this view, in words
	// ("critical_difference: needs at least 2 datasets").
	Problems []string `json:"problems,omitempty"`
	// Changes say how the view differs from the published study; none
	// when it is the published view.
	Changes []string `json:"changes,omitempty"`
	// Pending names what a quick result (ComputeQuick) left out and the
	// full one (Compute) adds: "the Bayesian signed-rank test".
	Pending []string `json:"pending,omitempty"`
	// Figures are the recomputed analyses' figures that the page draws
	// (the CD diagram, the stability curves), from the same figure specs
	// as their pages'.
	Figures []Figure `json:"figures,omitempty"`
}

// Figure is one figure as the page draws it: the ECharts option of the
// figure spec the build draws the analysis page's figure from
// (model.CDSpec, model.StabilitySpec), styled as the site styles its charts
// (model.StyleChart), with its caption and alt text.
type Figure struct {
	Analysis string          `json:"analysis"`
	ID       string          `json:"id"`
	Title    string          `json:"title"`
	Caption  string          `json:"caption"`
	Alt      string          `json:"alt"`
	Option   json.RawMessage `json:"option"`
	// Height is the chart's height in CSS pixels, as on the analysis
	// page.
	Height int `json:"height"`
}

// Table is one table as a page shows it (model.Table, flattened).
type Table struct {
	Analysis string   `json:"analysis"`
	ID       string   `json:"id"`
	Name     string   `json:"name,omitempty"`
	Title    string   `json:"title"`
	Columns  []Column `json:"columns"`
	Rows     [][]Cell `json:"rows"`
	// More is the table's number of rows when it has more than MaxRows
	// (only the first MaxRows are in Rows), as on its page.
	More int `json:"more,omitempty"`
}

// MaxRows is the most rows of a table a page shows (report/site's
// maxHTMLRows): the rest are in its CSV.
const MaxRows = 500

// Column is a column header: its label, and its id when they differ.
type Column struct {
	Label string `json:"label"`
	ID    string `json:"id"`
}

// Cell is one cell as shown: its text, its full value (a title), and its
// mark ("best", "second", "tied" or "").
type Cell struct {
	Text  string `json:"text"`
	Title string `json:"title,omitempty"`
	Num   bool   `json:"num,omitempty"`
	Mark  string `json:"mark,omitempty"`
	Sig   bool   `json:"sig,omitempty"`
	Count string `json:"count,omitempty"`
}

// Compute runs the published analyses on the view s and formats their
// tables. An error is a view that does not fit the study (an unknown
// metric, dataset, method or rule); an analysis that cannot run on a
// valid view (too few datasets) is a Problem of the result.
func Compute(d *Data, s State) (*Result, error) { return compute(d, s, true) }

// ComputeQuick is Compute without the Bayesian signed-rank test, the
// one slow part (about a second for 30 datasets × 11 methods at 20,000
// draws, natively): the page draws it at once, then Compute's result.
// Its Pending names the test when the published analysis runs it.
func ComputeQuick(d *Data, s State) (*Result, error) { return compute(d, s, false) }

func compute(d *Data, s State, bayesian bool) (*Result, error) {
	metric, err := d.check(s)
	if err != nil {
		return nil, err
	}
	in := leaderboard.AggregateInput{Metric: metric, Datasets: s.Datasets, Methods: s.Methods, Q: d.matrix(s)}
	res := &Result{Changes: d.Changes(s)}
	if a := d.Aggregate; a != nil {
		o := a.Options
		o.Metric, o.Rules, o.Datasets, o.Methods = s.Metric, s.Rules, nil, nil
		r, err := runAggregate(in, o)
		res.add(a.ID, "aggregate", r, err, d.Naming, 0)
	}
	if c := d.CriticalDifference; c != nil {
		o := c.Options
		o.Metric, o.Datasets, o.Methods = s.Metric, nil, nil
		if o.Bayesian && !bayesian {
			o.Bayesian, o.Rope, o.Samples = false, 0, 0
			o.Defaults()
			res.Pending = append(res.Pending, "the Bayesian signed-rank test")
		}
		r, err := runCriticalDifference(significance.CriticalDifferenceInput{AggregateInput: in, Seed: c.Seed, Jobs: 1}, o)
		res.add(c.ID, "critical_difference", r, err, d.Naming, o.Alpha)
	}
	return res, nil
}

func runAggregate(in leaderboard.AggregateInput, o leaderboard.AggregateOptions) (analyses.Result, error) {
	if err := analyses.CheckMatrixSize(len(in.Datasets), len(in.Methods), false); err != nil {
		return nil, err
	}
	return leaderboard.Aggregate(in, o)
}

func runCriticalDifference(in significance.CriticalDifferenceInput, o significance.CriticalDifferenceOptions) (analyses.Result, error) {
	if err := analyses.CheckMatrixSize(len(in.Datasets), len(in.Methods), true); err != nil {
		return nil, err
	}
	return significance.CriticalDifference(in, o)
}

// ComputeStability runs the published stability analysis (its
// perturbations: seconds to minutes) on the view s, with the view's
// rules, telling progress how many perturbed matrices of each
// perturbation are done; its Result holds the stability tables only.
func ComputeStability(d *Data, s State, progress func(label string, done, total int)) (*Result, error) {
	metric, err := d.check(s)
	if err != nil {
		return nil, err
	}
	res := &Result{Changes: d.Changes(s)}
	st := d.Stability
	if st == nil {
		return res, nil
	}
	o := st.Options
	o.Metric, o.Datasets, o.Methods = s.Metric, nil, nil
	if len(s.Rules) > 0 {
		o.Rules = s.Rules
	}
	in := leaderboard.StabilityInput{Metric: metric, Datasets: s.Datasets, Methods: s.Methods, Q: d.matrix(s),
		Seed: st.Seed, Jobs: 1, Progress: progress}
	var r analyses.Result
	if err = analyses.CheckMatrixSize(len(in.Datasets), len(in.Methods), false); err == nil {
		r, err = leaderboard.Stability(in, o)
	}
	res.add(st.ID, "stability", r, err, d.Naming, 0)
	return res, nil
}

// add formats r's tables as its page does, or records why it did not run.
func (res *Result) add(id, typ string, r analyses.Result, err error, n analyses.Naming, alpha float64) {
	if err != nil {
		res.Problems = append(res.Problems, typ+": "+err.Error())
		return
	}
	setNaming(r, n)
	tables := r.Tables()
	for _, t := range tables {
		spec := model.NewTable(t, id, model.TableOptions{Naming: n, Alpha: alpha, Siblings: tables})
		res.Tables = append(res.Tables, flatten(id, t.Name, spec))
	}
	figs, err := figuresOf(id, r)
	if err != nil {
		res.Problems = append(res.Problems, typ+": its figures: "+err.Error())
		return
	}
	res.Figures = append(res.Figures, figs...)
}

// figuresOf are the figures of r the page draws: a critical_difference
// analysis's CD diagram, a stability analysis's curves (one figure per
// perturbation).
func figuresOf(id string, r analyses.Result) ([]Figure, error) {
	switch r := r.(type) {
	case *significance.CriticalDifferenceResult:
		f, err := cdFigure(id, r)
		return []Figure{f}, err
	case *leaderboard.StabilityResult:
		var out []Figure
		for _, pert := range r.Perturbations {
			curves := model.StabilityCurves(r, pert)
			if len(curves) == 0 {
				continue
			}
			f, err := figureOf(id, model.StabilityFigureID(id, pert), model.StabilityTitle(pert), model.StabilitySpec(r, pert, curves), model.StabilityChartHeight)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
		return out, nil
	}
	return nil, nil
}

// figureOf is a figure spec as the page draws it: its ECharts option
// styled as the site styles its charts, its height grown as the site
// grows it for the legend's rows.
func figureOf(analysis, id, title string, s *model.Spec, height int) (Figure, error) {
	f := Figure{Analysis: analysis, ID: id, Title: title, Caption: s.Caption, Alt: s.Alt(), Height: height}
	raw, err := json.Marshal(s.EChartsOption())
	if err == nil {
		f.Option, err = model.StyleChart(raw, &f.Height)
	}
	return f, err
}

// cdFigure is the CD diagram of r, with the figure id, title, chart
// option and height of the analysis page (figures.CriticalDifference,
// styled by the site).
func cdFigure(id string, r *significance.CriticalDifferenceResult) (Figure, error) {
	return figureOf(id, id, "Critical-difference diagram", model.CDSpec(r), model.CDChartHeight(len(r.Methods), len(r.Cliques)+len(r.BayesianCliques)))
}

// setNaming gives a result the study's labels, as the build's kinds do.
func setNaming(r analyses.Result, n analyses.Naming) {
	switch r := r.(type) {
	case *leaderboard.AggregateResult:
		r.Naming = n
	case *significance.CriticalDifferenceResult:
		r.Naming = n
	case *leaderboard.StabilityResult:
		r.Naming = n
	}
}

// flatten is the table as the site's page shows it (report/site's
// tableView: a column's label and id, a cell's text, full value, mark).
func flatten(analysis, name string, spec *model.Table) Table {
	out := Table{Analysis: analysis, ID: spec.ID, Name: name, Title: spec.Title}
	for _, c := range spec.Columns {
		out.Columns = append(out.Columns, Column{Label: c.Header(), ID: c.ID})
	}
	rows := spec.Rows
	if len(rows) > MaxRows {
		out.More, rows = len(rows), rows[:MaxRows]
	}
	for _, r := range rows {
		row := make([]Cell, len(r))
		for j, c := range r {
			row[j] = Cell{Text: c.Text, Title: c.Title, Num: c.Num, Sig: c.Sig, Count: c.CountText(), Mark: markName(c.Mark)}
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

func markName(m model.CellMark) string {
	switch m {
	case model.MarkBest:
		return "best"
	case model.MarkSecond:
		return "second"
	case model.MarkTied:
		return "tied"
	}
	return ""
}

// check returns the view's metric, or what in the view the study does
// not have.
func (d *Data) check(s State) (analyses.Metric, error) {
	i := slices.IndexFunc(d.Metrics, func(m Metric) bool { return m.Name == s.Metric })
	if i < 0 {
		return analyses.Metric{}, fmt.Errorf("unknown metric %q%s", s.Metric, analyses.NameHint(s.Metric, metricNames(d.Metrics)))
	}
	if _, ok := d.Values[s.Metric]; !ok {
		return analyses.Metric{}, fmt.Errorf("metric %q: no values", s.Metric)
	}
	for _, c := range []struct {
		what       string
		got, valid []string
	}{{"dataset", s.Datasets, d.Datasets}, {"method", s.Methods, d.Methods}, {"rule", s.Rules, leaderboard.AllRules}} {
		seen := map[string]bool{}
		for _, x := range c.got {
			if !slices.Contains(c.valid, x) {
				return analyses.Metric{}, fmt.Errorf("unknown %s %q%s", c.what, x, analyses.NameHint(x, c.valid))
			}
			if seen[x] {
				return analyses.Metric{}, fmt.Errorf("%s %q twice", c.what, x)
			}
			seen[x] = true
		}
	}
	if len(s.Rules) == 0 && d.Aggregate != nil {
		return analyses.Metric{}, fmt.Errorf("no aggregation rule chosen")
	}
	m := analyses.Metric{Name: s.Metric, Better: analyses.LowerIsBetter, Max: math.Inf(1)}
	if d.Metrics[i].HigherIsBetter {
		m.Better = analyses.HigherIsBetter
	}
	if mx := d.Metrics[i].Max; mx != nil {
		m.Max = *mx
	}
	return m, nil
}

func metricNames(ms []Metric) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}

// matrix is q[d][m] of the view (NaN: missing), looked up by name.
func (d *Data) matrix(s State) analyses.Matrix {
	di, mi := index(d.Datasets), index(d.Methods)
	vals := d.Values[s.Metric]
	q := make(analyses.Matrix, len(s.Datasets))
	for i, ds := range s.Datasets {
		q[i] = make([]float64, len(s.Methods))
		for j, m := range s.Methods {
			q[i][j] = math.NaN()
			if r := di[ds]; r < len(vals) && mi[m] < len(vals[r]) && vals[r][mi[m]] != nil {
				q[i][j] = *vals[r][mi[m]]
			}
		}
	}
	return q
}

func index(ids []string) map[string]int {
	out := make(map[string]int, len(ids))
	for i, id := range ids {
		out[id] = i
	}
	return out
}

// Changes says in words how s differs from the published view: the
// metric, the datasets and methods left out or added, the rules.
func (d *Data) Changes(s State) []string {
	p := d.Published
	var out []string
	if s.Metric != p.Metric {
		out = append(out, "metric "+d.Naming.Metric(s.Metric)+" instead of "+d.Naming.Metric(p.Metric))
	}
	out = append(out, diff("dataset", p.Datasets, s.Datasets, d.Naming.Dataset)...)
	out = append(out, diff("method", p.Methods, s.Methods, d.Naming.Method)...)
	if d.Aggregate != nil && !sameSet(p.Rules, s.Rules) {
		out = append(out, "rules: "+labels(s.Rules, func(r string) string { return d.Naming.Rule(r) }))
	}
	return out
}

// diff lists what was left out of and added to a published list.
func diff(what string, published, now []string, label func(string) string) []string {
	var out, left, added []string
	for _, x := range published {
		if !slices.Contains(now, x) {
			left = append(left, x)
		}
	}
	for _, x := range now {
		if !slices.Contains(published, x) {
			added = append(added, x)
		}
	}
	if len(left) > 0 {
		out = append(out, plural(what, len(left))+" left out: "+labels(left, label))
	}
	if len(added) > 0 {
		out = append(out, plural(what, len(added))+" added: "+labels(added, label))
	}
	return out
}

func plural(what string, n int) string {
	if n == 1 {
		return strconv.Itoa(n) + " " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func labels(ids []string, label func(string) string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = label(id)
	}
	return strings.Join(out, ", ")
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
