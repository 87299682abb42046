package report

import (
	"fmt"

	"github.com/evalbook/evalbook/analyses"
)

// checkNames reports the first name not among known, with a hint.
func checkNames(what string, names, known []string) error {
	set := make(map[string]bool, len(known))
	for _, k := range known {
		set[k] = true
	}
	for _, n := range names {
		if !set[n] {
			return fmt.Errorf("no %s %q in the results%s", what, n, analyses.NameHint(n, known))
		}
	}
	return nil
}

// resultsMatrix returns the results of a metric as q[d][m] over the given
// datasets (rows, taken as they are: a dataset without results gives a row
// of NaN) and methods (all of the results when empty, else checked).
func resultsMatrix(ctx *Context, metric string, datasets, methods []string) ([]string, analyses.Matrix, error) {
	res, err := ctx.Results()
	if err != nil {
		return nil, nil, err
	}
	if err := checkNames("metric", []string{metric}, res.Metrics); err != nil {
		return nil, nil, err
	}
	if len(methods) == 0 {
		methods = res.Methods
	} else if err := checkNames("method", methods, res.Methods); err != nil {
		return nil, nil, err
	}
	return methods, res.Matrix(metric, datasets, methods), nil
}
