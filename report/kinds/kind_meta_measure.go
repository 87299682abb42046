package kinds

// A meta_analysis summary of counts, proportions, correlations or rates
// (measure = "OR", …): each row's escalc columns become a generic effect
// (yi, vi) as metafor's escalc computes it (meta.Escalc); a row that gets
// no effect (drop00, a zero it cannot fix) is left out with a note.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/evalbook/evalbook/analyses/meta"

	"github.com/evalbook/evalbook/report/input"
)

// measureSummary is what a summary of escalc columns gives the analysis:
// the effects, the notes for the rows left out, and each dataset's size
// ni (proportions and correlations; the PFT back-transformation needs
// the sizes of the studies it combines).
type measureSummary struct {
	studies []meta.Study
	notes   []string
	ni      map[string]float64
}

// metaReadMeasure opens the analysis's summary and reads it by measure.
func metaReadMeasure(job *Job, o *meta.Options) (measureSummary, error) {
	path := job.Path(o.Summary.Path)
	t, err := job.Inputs.OpenMapped(path, o.Summary.Columns)
	if err != nil {
		return measureSummary{}, fmt.Errorf("summary: %w", err)
	}
	defer job.Inputs.CloseCounted(path, t)
	return ReadMeasureSummary(t, o.Measure, o.ZeroCells())
}

// ReadMeasureSummary reads rows of dataset and the measure's escalc
// columns (meta.MeasureColumns: a 2×2 table as ai, bi, ci, di, or ai,
// n1i, ci, n2i when the header has n1i or n2i) and computes their
// effects. An empty or non-numeric cell, and every refusal of escalc
// (a negative count, events above the group's size, r outside [−1, 1],
// …), is an error at the row's file and line.
func ReadMeasureSummary(t *input.TableReader, measure string, z meta.ZeroCells) (measureSummary, error) {
	groups := t.Col("n1i") >= 0 || t.Col("n2i") >= 0
	names := append([]string{"dataset"}, meta.MeasureColumns(measure, groups)...)
	cols := map[string]int{}
	for _, c := range names {
		i, err := t.Require(c)
		if err != nil {
			return measureSummary{}, fmt.Errorf("%w (measure = %q reads the columns %s, as metafor's escalc names them)", err, measure, strings.Join(names, ", "))
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
			return measureSummary{}, err
		}
		d, err := metaSummaryDataset(t, rec, cols["dataset"], seen)
		if err != nil {
			return measureSummary{}, err
		}
		for _, c := range names[1:] {
			v, ok, err := t.Float(cols[c])
			if err != nil {
				return measureSummary{}, err
			}
			if !ok {
				return measureSummary{}, t.Errorf(cols[c], "%s of %s is empty (measure %s needs %s)", c, d, measure, strings.Join(names[1:], ", "))
			}
			vals[c] = append(vals[c], v)
		}
		datasets, lines = append(datasets, d), append(lines, t.Line())
	}
	if len(datasets) == 0 {
		return measureSummary{}, fmt.Errorf("%s: no rows", t.File)
	}
	es, err := meta.Escalc(measure, groups, vals, z)
	var re *meta.RowError
	if errors.As(err, &re) && re.Row < len(lines) {
		return measureSummary{}, input.Errorf(t.File, lines[re.Row], "%s of %s: %s", measure, datasets[re.Row], re.Msg)
	}
	if err != nil {
		return measureSummary{}, fmt.Errorf("%s: %w", t.File, err)
	}
	return measureStudies(datasets, vals["ni"], es), nil
}

// measureStudies turns escalc's effects into generic studies, leaving out
// (with a note) those that got none.
func measureStudies(datasets []string, ni []float64, es meta.EffectSizes) measureSummary {
	out := measureSummary{ni: map[string]float64{}}
	for i, d := range datasets {
		if math.IsNaN(es.Yi[i]) || math.IsNaN(es.Vi[i]) {
			out.notes = append(out.notes, fmt.Sprintf("dataset %s left out: no %s (%s)", d, es.Measure, es.Note[i]))
			continue
		}
		nan := math.NaN()
		out.studies = append(out.studies, meta.Study{Dataset: d, Form: meta.Generic, Yi: es.Yi[i], Vi: es.Vi[i],
			R: nan, MeanDiff: nan, SDDiff: nan, MeanT: nan, MeanC: nan, SDT: nan, SDC: nan, M1: nan, M2: nan, SD1: nan, SD2: nan})
		if ni != nil {
			out.ni[d] = ni[i]
		}
	}
	return out
}

// measureNatural back-transforms the summary of a measure's analysis,
// with the sizes of the datasets it combined.
func measureNatural(r *meta.Result, ms measureSummary) error {
	var ni []float64
	for _, row := range r.Rows {
		if row.Included {
			ni = append(ni, ms.ni[row.Dataset])
		}
	}
	for _, n := range ms.notes {
		r.Warnf("%s", n)
	}
	return r.SetNatural(ni)
}

// metaColumnValues are the values of the named columns per dataset: a
// column of the summary file of that name, else the dataset's attribute
// ([[datasets]]); the summary is read a second time for its columns.
func metaColumnValues(job *Job, o *meta.Options, studies []meta.Study, names []string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	for _, s := range studies {
		out[s.Dataset] = map[string]string{}
	}
	fromFile := map[string]bool{}
	if o.Summary.Path != "" {
		if err := metaSummaryColumnValues(job, o, names, out, fromFile); err != nil {
			return nil, err
		}
	}
	for _, m := range names {
		if fromFile[m] {
			continue
		}
		for d := range out {
			if v, ok := job.Dataset(d).Attrs[m]; ok {
				out[d][m] = v
			}
		}
	}
	return out, nil
}

// metaSummaryColumnValues reads the summary file's columns of the names
// that it has into out (dataset → name → text), marking them in fromFile.
func metaSummaryColumnValues(job *Job, o *meta.Options, names []string, out map[string]map[string]string, fromFile map[string]bool) error {
	path := job.Path(o.Summary.Path)
	t, err := job.Inputs.OpenMapped(path, o.Summary.Columns)
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	defer job.Inputs.CloseCounted(path, t)
	dcol := t.Col("dataset")
	cols := map[string]int{}
	for _, m := range names {
		if c := t.Col(m); c >= 0 && dcol >= 0 {
			cols[m], fromFile[m] = c, true
		}
	}
	for len(cols) > 0 {
		rec, err := t.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		d := strings.TrimSpace(rec[dcol])
		if out[d] == nil {
			continue
		}
		for m, c := range cols {
			out[d][m] = rec[c]
			if m == o.Cumulative {
				if _, ok, err := t.Float(c); err != nil || !ok {
					return cumulativeCellError(t, c, d, m, err)
				}
			}
		}
	}
	return nil
}

// cumulativeCellError is the error of a summary cell of the cumulative
// order that is empty or not a number, at its file, line and column.
func cumulativeCellError(t *input.TableReader, col int, dataset, name string, err error) error {
	if err != nil {
		return fmt.Errorf("%w (cumulative: the %s of %s must be a number: a year, or a date written as 20190301)", err, name, dataset)
	}
	return t.Errorf(col, "cumulative: %s of %s is empty (every dataset needs its place in the order)", name, dataset)
}
