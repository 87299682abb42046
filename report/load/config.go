package load

// The input stage's view of a study: what the loaders read of the
// manifest, as plain values. report builds it from the manifest in one
// place (inputConfig); this package never sees the manifest itself.

import (
	"strings"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/load/engines"
)

// Config is what the input stage reads of a study: where the manifest is,
// its input entries, and the declarations the loaders check values
// against. Errors about an entry name the manifest (the base of File) and
// the entry's Line.
type Config struct {
	File  string // path of the manifest
	Dir   string // its directory; input paths are relative to it
	Title string // the dataset of a file that names none
	// AllowOutside lets inputs, pages and the bibliography lie outside
	// the study directory (allow_outside, or --allow-outside).
	AllowOutside bool
	// MaxDecompressed caps a .gz input's inflated size (0: the default
	// cap, negative: none).
	MaxDecompressed int64
	Inputs          Entries
	// Datasets are the names of the [[datasets]] entries, in manifest
	// order: loaded datasets are ordered by them (OrderDatasets).
	Datasets []string
	// Bounds are the declared maxima of metrics, by lower-cased metric
	// name: a value above one is an error wherever it is read.
	Bounds map[string]Bound
	// DerivesUnits: an analysis of the study feeds per-unit values
	// (offline_metrics), which the units pass then carries.
	DerivesUnits bool
	// Engine is the study's units engine table (nil: none); EngineLogs
	// are the datasets' interaction logs in engine tables.
	Engine     *engines.Table
	EngineLogs []*engines.LogTable
}

// Entries are the [inputs] entries the loaders read, in manifest order.
type Entries struct {
	Results, Units, Characteristics []Entry
}

// Entry is one input entry as the loaders read it: a path (glob,
// {dataset}/{method} patterns) with its column mapping, constants,
// columns left out, missing-value rule and markers, and (results) the
// rule for a cell given twice, the run rule and the layout.
type Entry struct {
	Path          string
	Columns       map[string]string
	Dataset       string
	Method        string
	Metric        string
	Ignore        []string
	Missing       string // "" (keep NaN), "zero", "drop"
	MissingValues []string
	Duplicates    string // "" (an error when values differ), "mean", "first", "last"
	UnequalRuns   bool
	Layout        string // "matrix", or "" for the long or wide form
	Line          int    // the entry's line in the manifest
}

// Bound is a metric's declared maximum and where it is declared
// ("[[metrics]] at study.toml:12").
type Bound struct {
	Max float64
	At  string
}

// MetricMax is the maximum the study declares for a metric and where it
// is declared; ok is false when none is.
func (c *Config) MetricMax(metric string) (max float64, at string, ok bool) {
	if c == nil {
		return 0, "", false
	}
	b, ok := c.Bounds[strings.ToLower(metric)]
	return b.Max, b.At, ok
}

// OrderDatasets puts datasets named in the manifest first, in manifest
// order, then the others in the order seen.
func (c *Config) OrderDatasets(seen []string) []string { return input.OrderNames(c.Datasets, seen) }
