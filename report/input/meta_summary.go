package input

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/evalbook/evalbook/analyses/meta"
)

// The readers of a meta_analysis `summary` file: per-dataset rows in one
// of the forms metafor reads (paired, two groups as escalc, generic yi/vi),
// or a measure's escalc columns.

// metaSummaryForms names the header of each summary form, for errors.
const metaSummaryForms = "dataset,n,mean_diff,sd_diff[,r] (paired), dataset,m1i,sd1i,n1i,m2i,sd2i,n2i (two groups, as metafor's escalc) or dataset,yi,vi (or dataset,yi,sei: effects as given)"

// metaSummaryForm tells the form of a summary table by its header.
func metaSummaryForm(t *TableReader) (string, error) {
	var forms []string
	if t.Col("yi") >= 0 {
		forms = append(forms, meta.Generic)
	}
	for _, c := range []string{"m1i", "m2i", "sd1i", "sd2i", "n1i", "n2i"} {
		if t.Col(c) >= 0 {
			forms = append(forms, meta.TwoGroup)
			break
		}
	}
	if t.Col("mean_diff") >= 0 || t.Col("sd_diff") >= 0 {
		forms = append(forms, meta.Paired)
	}
	switch len(forms) {
	case 1:
		return forms[0], nil
	case 0:
		return "", Errorf(t.File, 1, "not a summary table (header: %s): want %s; map other column names with summary = {path = …, columns = {m1i = \"…\"}}", strings.Join(t.Header, ","), metaSummaryForms)
	}
	return "", Errorf(t.File, 1, "the header mixes the columns of %s summaries: want one of %s", strings.Join(forms, " and "), metaSummaryForms)
}

// ReadMetaSummary parses per-dataset summary rows (the `summary` option):
// paired, two-group or generic by the header. A missing cell, an n below
// 2, a zero or negative sd or variance is an error at file:line:column.
func ReadMetaSummary(t *TableReader) ([]meta.Study, error) {
	form, err := metaSummaryForm(t)
	if err != nil {
		return nil, err
	}
	cols, err := metaSummaryColumns(t, form)
	if err != nil {
		return nil, err
	}
	kind := metaFormName(form)
	rcol := -1
	if form == meta.Paired {
		rcol = t.Col("r")
	}
	seen := map[string]bool{}
	var out []meta.Study
	for {
		rec, err := t.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		d, err := metaSummaryDataset(t, rec, cols["dataset"], seen)
		if err != nil {
			return nil, err
		}
		st, err := readMetaSummaryRow(metaCells{t: t, cols: cols, d: d, kind: kind}, form, rcol)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no rows", t.File)
	}
	return out, nil
}

// metaSummaryNeed lists the columns a summary of the form must have; a
// generic summary takes vi, else sei, and asks for vi when it has neither.
func metaSummaryNeed(t *TableReader, form string) []string {
	switch form {
	case meta.Paired:
		return []string{"dataset", "n", "mean_diff", "sd_diff"}
	case meta.TwoGroup:
		return []string{"dataset", "m1i", "sd1i", "n1i", "m2i", "sd2i", "n2i"}
	}
	need := []string{"dataset", "yi"}
	if t.Col("vi") >= 0 {
		need = append(need, "vi")
	} else if t.Col("sei") >= 0 {
		need = append(need, "sei")
	} else {
		need = append(need, "vi")
	}
	return need
}

// metaSummaryColumns finds the columns the form needs, by name; a missing
// one is an error that recalls the summary forms.
func metaSummaryColumns(t *TableReader, form string) (map[string]int, error) {
	cols := map[string]int{}
	for _, c := range metaSummaryNeed(t, form) {
		i, err := t.Require(c)
		if err != nil {
			return nil, fmt.Errorf("%w (a %s summary: %s)", err, metaFormName(form), metaSummaryForms)
		}
		cols[c] = i
	}
	return cols, nil
}

// metaSummaryDataset reads a row's dataset name, which must be given and
// not be on an earlier row (seen records the names read).
func metaSummaryDataset(t *TableReader, rec []string, col int, seen map[string]bool) (string, error) {
	d := strings.TrimSpace(rec[col])
	if d == "" {
		return "", t.Errorf(col, "empty dataset name")
	}
	if seen[d] {
		return "", t.Errorf(col, "dataset %q has a second row", d)
	}
	seen[d] = true
	return d, nil
}

// metaCells reads the numbers of one summary row (dataset d, a summary of
// the form named kind) from the columns cols, with errors that name the
// column, the dataset and the form.
type metaCells struct {
	t       *TableReader
	cols    map[string]int
	d, kind string
}

// num reads a number that must be given.
func (c metaCells) num(name string) (float64, error) {
	v, ok, err := c.t.Float(c.cols[name])
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, c.t.Errorf(c.cols[name], "%s of %s is missing (an empty cell; %s summary)", name, c.d, c.kind)
	}
	return v, nil
}

// positive reads a number that must be above 0 (an sd or a variance).
func (c metaCells) positive(name string) (float64, error) {
	v, err := c.num(name)
	if err == nil && !(v > 0) {
		what := "negative"
		if v == 0 {
			what = "zero"
		}
		return 0, c.t.Errorf(c.cols[name], "%s of %s is %s: it must be above 0 (%s summary)", name, c.d, what, c.kind)
	}
	return v, err
}

// count reads a sample size: a whole number of at least 2.
func (c metaCells) count(name string) (int, error) {
	n, err := c.num(name)
	if err != nil {
		return 0, err
	}
	if n < 2 || n != math.Trunc(n) || n > 1<<53 {
		return 0, c.t.Errorf(c.cols[name], "%s of %s must be a whole number ≥ 2, not %v (%s summary)", name, c.d, n, c.kind)
	}
	return int(n), nil
}

// readMetaSummaryRow reads one row of a summary of the form into a study
// whose unused fields are NaN. Every cell is read; the error is the first
// problem in column order.
func readMetaSummaryRow(c metaCells, form string, rcol int) (meta.Study, error) {
	st := meta.Study{Dataset: c.d, Form: form, R: math.NaN(), MeanDiff: math.NaN(), SDDiff: math.NaN(),
		MeanT: math.NaN(), MeanC: math.NaN(), SDT: math.NaN(), SDC: math.NaN(),
		M1: math.NaN(), M2: math.NaN(), SD1: math.NaN(), SD2: math.NaN(), Yi: math.NaN(), Vi: math.NaN()}
	var err error
	switch form {
	case meta.Paired:
		err = c.paired(&st, rcol)
	case meta.TwoGroup:
		err = c.twoGroup(&st)
	default:
		err = c.generic(&st)
	}
	return st, err
}

// paired reads n, mean_diff and sd_diff, then the optional correlation r
// (rcol, −1 without the column) when they are all good.
func (c metaCells) paired(st *meta.Study, rcol int) error {
	var errs [3]error
	st.N, errs[0] = c.count("n")
	st.MeanDiff, errs[1] = c.num("mean_diff")
	st.SDDiff, errs[2] = c.positive("sd_diff")
	if rcol >= 0 && errs[0] == nil && errs[1] == nil && errs[2] == nil {
		v, ok, err := c.t.Float(rcol)
		if err != nil {
			return err
		}
		if ok {
			if !(v >= -1 && v <= 1) {
				return c.t.Errorf(rcol, "r of %s must be between −1 and 1, not %v", c.d, v)
			}
			st.R = v
		}
	}
	return firstMetaError(errs[:])
}

// twoGroup reads the mean, sd and size of both groups; N is their total.
func (c metaCells) twoGroup(st *meta.Study) error {
	var errs [6]error
	st.M1, errs[0] = c.num("m1i")
	st.SD1, errs[1] = c.positive("sd1i")
	st.N1, errs[2] = c.count("n1i")
	st.M2, errs[3] = c.num("m2i")
	st.SD2, errs[4] = c.positive("sd2i")
	st.N2, errs[5] = c.count("n2i")
	st.N = st.N1 + st.N2
	return firstMetaError(errs[:])
}

// generic reads the effect yi and its variance: vi, or sei squared, which
// must be a finite number above 0.
func (c metaCells) generic(st *meta.Study) error {
	var errs [2]error
	st.Yi, errs[0] = c.num("yi")
	if _, ok := c.cols["vi"]; ok {
		st.Vi, errs[1] = c.positive("vi")
	} else {
		var se float64
		se, errs[1] = c.positive("sei")
		st.Vi = se * se
		if errs[1] == nil && !(st.Vi > 0 && !math.IsInf(st.Vi, 0)) {
			errs[1] = c.t.Errorf(c.cols["sei"], "sei of %s squares to %v: not a usable variance", c.d, st.Vi)
		}
	}
	return firstMetaError(errs[:])
}

// firstMetaError returns the first error of a row's cells, in column
// order, or nil.
func firstMetaError(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// metaFormName names a summary form in prose.
func metaFormName(form string) string {
	switch form {
	case meta.TwoGroup:
		return "two-group"
	case meta.Generic:
		return "generic (yi, vi)"
	}
	return "paired"
}

// measureSize is a measure's row size: a 2×2 table's total (ai + bi + ci
// + di, or n1i + n2i), ni; 0 for rates (person-time is no count) and
// where the size is not a whole number.
func measureSize(cols []string, given []float64) int {
	var n float64
	for c, name := range cols {
		switch name {
		case "ai", "bi", "ci", "di":
			if slices.Contains(cols, "n1i") && (name == "ai" || name == "ci") {
				continue
			}
			n += given[c]
		case "n1i", "n2i", "ni":
			n += given[c]
		}
	}
	if !(n > 0) || n != math.Trunc(n) || n > math.MaxInt32 {
		return 0
	}
	return int(n)
}

// MeasureSummary is what a summary of escalc columns gives the analysis:
// the effects, the notes for the rows left out, and each dataset's size
// ni (proportions and correlations; the PFT back-transformation needs
// the sizes of the studies it combines).
type MeasureSummary struct {
	Studies []meta.Study
	Notes   []string
	NI      map[string]float64
}

// ReadMeasureSummary reads rows of dataset and the measure's escalc
// columns (meta.MeasureColumns: a 2×2 table as ai, bi, ci, di, or ai,
// n1i, ci, n2i when the header has n1i or n2i) and computes their
// effects. An empty or non-numeric cell, and every refusal of escalc
// (a negative count, events above the group's size, r outside [−1, 1],
// …), is an error at the row's file and line.
func ReadMeasureSummary(t *TableReader, measure string, z meta.ZeroCells) (MeasureSummary, error) {
	groups := t.Col("n1i") >= 0 || t.Col("n2i") >= 0
	names := append([]string{"dataset"}, meta.MeasureColumns(measure, groups)...)
	cols := map[string]int{}
	for _, c := range names {
		i, err := t.Require(c)
		if err != nil {
			return MeasureSummary{}, fmt.Errorf("%w (measure = %q reads the columns %s, as metafor's escalc names them)", err, measure, strings.Join(names, ", "))
		}
		cols[c] = i
	}
	vals := map[string][]float64{}
	var datasets []string
	var lines []int
	seen := map[string]bool{}
	for {
		rec, err := t.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return MeasureSummary{}, err
		}
		d, err := metaSummaryDataset(t, rec, cols["dataset"], seen)
		if err != nil {
			return MeasureSummary{}, err
		}
		for _, c := range names[1:] {
			v, ok, err := t.Float(cols[c])
			if err != nil {
				return MeasureSummary{}, err
			}
			if !ok {
				return MeasureSummary{}, t.Errorf(cols[c], "%s of %s is empty (measure %s needs %s)", c, d, measure, strings.Join(names[1:], ", "))
			}
			vals[c] = append(vals[c], v)
		}
		datasets, lines = append(datasets, d), append(lines, t.Line())
	}
	if len(datasets) == 0 {
		return MeasureSummary{}, fmt.Errorf("%s: no rows", t.File)
	}
	es, err := meta.Escalc(measure, groups, vals, z)
	var re *meta.RowError
	if errors.As(err, &re) && re.Row < len(lines) {
		return MeasureSummary{}, Errorf(t.File, lines[re.Row], "%s of %s: %s", measure, datasets[re.Row], re.Msg)
	}
	if err != nil {
		return MeasureSummary{}, fmt.Errorf("%s: %w", t.File, err)
	}
	return measureStudies(datasets, names[1:], vals, es), nil
}

// measureStudies turns escalc's effects into generic studies, each with
// the columns (cols, vals[c][i]) it was computed from and its size, leaving
// out (with a note) those that got none.
func measureStudies(datasets, cols []string, vals map[string][]float64, es meta.EffectSizes) MeasureSummary {
	out := MeasureSummary{NI: map[string]float64{}}
	ni := vals["ni"]
	for i, d := range datasets {
		if math.IsNaN(es.Yi[i]) || math.IsNaN(es.Vi[i]) {
			out.Notes = append(out.Notes, fmt.Sprintf("dataset %s left out: no %s (%s)", d, es.Measure, es.Note[i]))
			continue
		}
		nan := math.NaN()
		given := make([]float64, len(cols))
		for c, name := range cols {
			given[c] = vals[name][i]
		}
		out.Studies = append(out.Studies, meta.Study{Dataset: d, Form: meta.Generic, Yi: es.Yi[i], Vi: es.Vi[i],
			N: measureSize(cols, given), Given: given, GivenCols: cols,
			R: nan, MeanDiff: nan, SDDiff: nan, MeanT: nan, MeanC: nan, SDT: nan, SDC: nan, M1: nan, M2: nan, SD1: nan, SD2: nan})
		if ni != nil {
			out.NI[d] = ni[i]
		}
	}
	return out
}
