package load

import (
	"errors"
	"fmt"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/input/parquet"
)

// resultsRule is the duplicate rule of a results file: its rows are runs
// when it has a run column, else the entry's duplicates key decides.
func resultsRule(e Entry, hasRun bool) analyses.DuplicateRule {
	switch {
	case hasRun:
		return analyses.DupRuns
	case e.Duplicates == "mean":
		return analyses.DupMean
	case e.Duplicates == "first":
		return analyses.DupFirst
	case e.Duplicates == "last":
		return analyses.DupLast
	}
	return analyses.DupError
}

// resultsRowError places an error of ResultsBuilder.AddRow at field col
// of t's current record.
func resultsRowError(t *input.TableReader, col int, err error) error {
	var de *analyses.DuplicateError
	var oe *analyses.OverflowError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &de):
		k := de.Key
		what := fmt.Sprintf("%s of %s on %s", input.Clip(k.Metric), input.Clip(k.Method), input.Clip(k.Dataset))
		other := fmt.Sprintf("%v vs %v", de.Value, de.Other)
		if de.OtherN > 1 {
			other = fmt.Sprintf("%v vs a mean of %v over %d rows", de.Value, de.Other, de.OtherN)
		}
		switch {
		case de.BothRuns:
			return t.Errorf(col, "run %s of %s is also given at %s with another value (%s); give each run its own id", input.Quote(de.Run), what, sourceString(de.OtherAt), other)
		case de.MixedWithRun:
			return t.Errorf(col, "%s is also given at %s with another value (%s), in a file with a run column and in one without; give every file of the cell a run column", what, sourceString(de.OtherAt), other)
		}
		return t.Errorf(col, "%s is also given at %s with another value (%s); add a run column or declare duplicates = \"mean\" | \"first\" | \"last\"", what, sourceString(de.OtherAt), other)
	case errors.As(err, &oe):
		k := oe.Key
		return t.Errorf(col, "the mean or spread over the %d values of %s of %s on %s overflows float64 (beyond ±1.8e308)", oe.N, input.Clip(k.Metric), input.Clip(k.Method), input.Clip(k.Dataset))
	}
	return t.Errorf(col, "%v", err)
}

// sourceString names a place of an input file: "file:line" (Parquet:
// "file row N").
func sourceString(s analyses.Source) string {
	if parquet.Is(s.File) {
		return fmt.Sprintf("%s row %d", s.File, s.Line)
	}
	return fmt.Sprintf("%s:%d", s.File, s.Line)
}

// noRowsError is the error of a results file with a header and no row:
// an export that stopped early, or the wrong file. It would add nothing,
// and a study whose values silently miss a file reports the wrong
// comparison, so it is an error at the header's line.
func noRowsError(t *input.TableReader) error {
	if parquet.Is(t.File) {
		return fmt.Errorf("%s: no rows: a results file must hold at least one row of values", t.File)
	}
	return input.Errorf(t.File, 1, "no rows after the header: a results file must hold at least one row of values (an export that stopped early?)")
}
