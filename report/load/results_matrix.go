package load

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/input/parquet"
)

// The matrix form of a results file (layout = "matrix" on its input
// entry): one row per dataset, one column per method, every cell a value
// of the entry's metric, as papers print their results (Demšar 2006,
// Table 6) and as autorank takes them (Herbold 2020). The dataset column
// is the one mapped with columns = { dataset = "…" }, else a column named
// dataset, else the first; every other column not in ignore is a method,
// named by its header cell.

// readMatrixRows reads the rows of a matrix file opened as t, after its
// header (matrixLayout), into b: each dataset once, each cell a value.
func (in *Inputs) readMatrixRows(t *input.TableReader, e Entry, mf input.Match, b *analyses.ResultsBuilder) error {
	f, methods, err := in.matrixLayout(t, e, mf)
	if err != nil {
		return err
	}
	first := map[string]int{} // dataset → the line of its row
	for {
		rec, err := t.Next()
		if err == io.EOF {
			if t.Rows() == 0 {
				return noRowsError(t)
			}
			return nil
		}
		if err != nil {
			return err
		}
		dataset := TrimSpace(rec[f.dcol])
		if dataset == "" {
			return t.Errorf(f.dcol, "empty dataset name (in a matrix the %s column names each row's dataset)", input.Quote(strings.TrimSpace(t.Header[f.dcol])))
		}
		if err := t.NameError(f.dcol, "dataset name", dataset); err != nil {
			return err
		}
		line, _ := t.Pos(f.dcol)
		if at, dup := first[dataset]; dup {
			where := fmt.Sprintf("%s:%d", t.File, at)
			if parquet.Is(t.File) {
				where = fmt.Sprintf("row %d", at)
			}
			return t.Errorf(f.dcol, "dataset %s has a second row (the first at %s): a matrix gives each dataset one row", input.Quote(dataset), where)
		}
		first[dataset] = line
		for _, c := range methods {
			if err := f.add(b, rec, resultsRow{dataset: dataset, method: strings.TrimSpace(t.Header[c])}, e.Metric, c); err != nil {
				return err
			}
		}
	}
}

// matrixLayout finds the dataset column and the method columns of a
// matrix file. A column evalbook reads by name (method, metric, value,
// run, k, unit) says the file is not a matrix, and a method column
// without a name has no method to give its values to: both are errors
// at the header, as is a matrix without a method column.
func (in *Inputs) matrixLayout(t *input.TableReader, e Entry, mf input.Match) (*resultsFile, []int, error) {
	if mf.Dataset != "" || mf.Method != "" {
		return nil, nil, input.Errorf(t.File, 1, "a matrix (layout = \"matrix\") takes its datasets from its rows and its methods from its header, not from the path")
	}
	f := &resultsFile{t: t, e: e, mf: mf, dcol: t.Col("dataset"), mcol: -1, kcol: -1, rcol: -1, metricCol: -1, valueCol: -1, matrix: true, rule: analyses.DupError, study: in.Study}
	if f.dcol < 0 {
		f.dcol = 0
	}
	t.UseUnnamed(f.dcol) // pandas writes its index column without a name
	var methods []int
	for i, h := range t.Header {
		name := strings.TrimSpace(h)
		if i == f.dcol || ignored(e, h) {
			continue
		}
		switch {
		case name == "":
			return nil, nil, t.Errorf(i, "column %d has no name in the header: in a matrix (layout = \"matrix\") every column after the dataset is a method, named by its header cell", i+1)
		case reservedColumns[strings.ToLower(name)]:
			return nil, nil, t.Errorf(i, "column %s is one evalbook reads by name, but in a matrix (layout = \"matrix\") every column after the dataset is a method: leave it out with ignore = [%s], or drop layout = \"matrix\" from the input entry (%s:%d) to read the long or wide form", input.Quote(name), strconv.Quote(name), filepath.Base(in.Study.File), e.Line)
		case input.FormulaStart(name) != "":
			return nil, nil, t.Errorf(i, "method name %s (a column of the header) holds %s", input.Quote(name), input.FormulaStart(name))
		}
		methods = append(methods, i)
	}
	if len(methods) == 0 {
		return nil, nil, input.Errorf(t.File, 1, "no method columns: a matrix (layout = \"matrix\") is the dataset column, then one column per method (header: %s)", input.Clip(strings.Join(t.Header, ",")))
	}
	return f, methods, nil
}

// matrixCellError explains a cell of a matrix that is not a number: its
// column is read as a method's values.
func matrixCellError(t *input.TableReader, col int, err error) error {
	var ie *input.InputError
	if !errors.As(err, &ie) || !strings.HasPrefix(ie.Msg, "not a number") {
		return err
	}
	h := strings.TrimSpace(t.Header[col])
	return t.Errorf(col, "%s; column %s is read as a method's values (in a matrix every column after the dataset is one); to leave it out, add ignore = [%s] to the input entry", ie.Msg, input.Quote(h), strconv.Quote(h))
}

// matrixHint is the end of the error of a results file without a method
// column when its header could be a matrix's (no metric and no value
// column either): how to read it as one, at its entry's line.
func (in *Inputs) matrixHint(t *input.TableReader, e Entry) string {
	if t.Col("metric") >= 0 || t.Col("value") >= 0 {
		return ""
	}
	metric := "…"
	if e.Metric != "" {
		metric = e.Metric
	}
	return fmt.Sprintf("; if each column after the first is a method (a datasets × methods matrix), add layout = \"matrix\" and metric = %q to this entry (%s:%d)", metric, filepath.Base(in.Study.File), e.Line)
}
