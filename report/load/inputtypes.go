package load

// The input layer's types: what the per-build input state hands the
// analyses (rows of results and per-unit values, dataset features), kept
// apart from the kinds that read them.

import (
	"fmt"
	"runtime"

	"github.com/evalbook/evalbook/analyses/datasets"
)

// ResultRow is one value of the study's results.
type ResultRow struct {
	Dataset, Method, Metric string
	Value                   float64
}

// UnitRow is one per-unit value. A sink gets it for the length of one
// call: the row is reused and its Unit string may alias a buffer that is
// overwritten next, so copy what you keep (names are stable).
type UnitRow struct {
	Dataset, Method string
	// Unit is the unit id; "" when the file has none (units are then
	// paired by Row).
	Unit   string
	Row    int64 // 0-based data row within its file
	Metric string
	Value  float64 // NaN for an empty cell (after the entry's missing = "zero" rule)
	File   string  // for error messages
	Line   int64
}

// Characteristics holds dataset features: Value[dataset][feature].
type Characteristics struct {
	Datasets []string
	Features []string
	Value    map[string]map[string]float64
}

// CharFeatureKey compares feature names ignoring case and underscores.
func CharFeatureKey(s string) string { return datasets.FeatureKey(s) }

// InternalError reports a panic with its stack.
func InternalError(p any) error {
	buf := make([]byte, 4096)
	buf = buf[:runtime.Stack(buf, false)]
	return fmt.Errorf("internal error (please report): %v\n%s", p, buf)
}
