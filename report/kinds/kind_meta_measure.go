package kinds

// A meta_analysis summary of counts, proportions, correlations or rates
// (measure = "OR", …): each row's escalc columns become a generic effect
// (yi, vi) as metafor's escalc computes it (meta.Escalc); a row that gets
// no effect (drop00, a zero it cannot fix) is left out with a note.

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/evalbook/evalbook/analyses/meta"

	"github.com/evalbook/evalbook/report/input"
)

// metaReadMeasure opens the analysis's summary and reads it by measure.
func metaReadMeasure(job *Job, o *meta.Options) (input.MeasureSummary, error) {
	path := job.Path(o.Summary.Path)
	t, err := job.Inputs.OpenMapped(path, o.Summary.Columns)
	if err != nil {
		return input.MeasureSummary{}, fmt.Errorf("summary: %w", err)
	}
	defer job.Inputs.CloseCounted(path, t)
	return input.ReadMeasureSummary(t, o.Measure, o.ZeroCells())
}

// measureNatural back-transforms the summary of a measure's analysis,
// with the sizes of the datasets it combined.
func measureNatural(r *meta.Result, ms input.MeasureSummary) error {
	var ni []float64
	for _, row := range r.Rows {
		if row.Included {
			ni = append(ni, ms.NI[row.Dataset])
		}
	}
	for _, n := range ms.Notes {
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
