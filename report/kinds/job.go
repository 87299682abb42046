package kinds

import (
	"context"
	"hash/fnv"
	"slices"
	"sync"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/stats"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// Job is what a Kind's Run sees: its own id and title, the study, a
// seed of its own, and the study's inputs, each loaded at most once per
// build and shared between analyses.
type Job struct {
	ID      string
	Title   string
	Caption string
	Study   *manifest.Study
	// Seed is this analysis's own stream: derived from the study's seed
	// and the analysis id, so adding an analysis never changes another's
	// numbers.
	Seed uint64
	// Workers is the number of workers the analysis may use. Results must
	// not depend on it.
	Workers    int
	Inputs     *load.Inputs // this analysis's view: records what it reads
	ProgressTo Progress     // told how far long work has come (Progress returns it)
	Fed        *FedUnits    // the shared units pass's sink for this analysis
	Done       <-chan struct{}

	mu      sync.Mutex
	assumed []string // metrics read as higher-is-better by default that read as errors (Metric)
}

// Canceled reports whether the build was cancelled (a superseded rebuild
// in serve): a long analysis may check it between steps and return
// early with any error; the build reports the cancellation instead.
func (c *Job) Canceled() bool {
	select {
	case <-c.Done:
		return true
	default:
		return false
	}
}

// FedUnits is a sink the shared units pass fed, and its error.
type FedUnits struct {
	Sink load.UnitsSink
	Err  error
}

// Metric returns a metric with its direction and bound from the manifest
// (higher is better and no bound when the manifest does not name it). A
// metric whose direction is that default while its name reads as an
// error or a loss ("RMSE") is noted: the analysis's page says so
// (directionNotes), since every "better" it writes may be backwards.
func (c *Job) Metric(name string) analyses.Metric {
	if c.Study.DirectionAssumed(name) && manifest.LooksLowerIsBetter(name) {
		c.mu.Lock()
		if !slices.Contains(c.assumed, name) {
			c.assumed = append(c.assumed, name)
		}
		c.mu.Unlock()
	}
	return c.Study.Metric(name)
}

// directionNotes adds to out's result a note for each metric Metric
// noted.
func (c *Job) directionNotes(out *Output) {
	w, ok := out.Result.(interface{ Warnf(string, ...any) })
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.assumed {
		w.Warnf("%s is taken as higher is better, the default: no [[metrics]] entry gives its direction, though its name reads as an error or a loss, where lower is better; declare it ([[metrics]] name = %q, better = \"lower\", or \"higher\"), or every \"better\" on this page may be backwards",
			c.Study.Label(manifest.LabelMetric, m), m)
	}
}

// Dataset returns a dataset's manifest attributes (domain, …).
func (c *Job) Dataset(name string) analyses.Dataset {
	return c.Study.Dataset(name)
}

// Results returns the study's results (the `results` input), loaded once.
func (c *Job) Results() (*analyses.Results, error) {
	r, err := c.Inputs.Results()
	c.Inputs.Reads.Merge(c.Inputs.ResReads)
	c.Inputs.MergeDerived()
	return r, err
}

// ReadUnits feeds sink the study's per-unit values (the units files,
// then the units derived by feeding analyses) and returns it with the
// error met. In a build, an analysis whose kind declares Kind.Units was
// fed by the build's shared pass before Run: ReadUnits returns that sink
// (sink is not used). Otherwise sink is fed by a pass of its own.
func (c *Job) ReadUnits(sink load.UnitsSink) (load.UnitsSink, error) {
	if c.Fed != nil {
		return c.Fed.Sink, c.Fed.Err
	}
	return sink, c.Inputs.UnitsPass(context.Background(), []load.UnitsSink{sink})[0]
}

// Characteristics returns the `characteristics` input, loaded once; nil
// when the study has none.
func (c *Job) Characteristics() (*load.Characteristics, error) {
	ch, err := c.Inputs.Characteristics()
	c.Inputs.Reads.Merge(c.Inputs.CharReads)
	return ch, err
}

// Path resolves a path of the manifest (relative to the manifest's
// directory). It reads nothing: open files through input.OpenTable or the
// input layer, which check and record them.
func (c *Job) Path(rel string) string {
	return input.AbsPath(c.Study.Dir, rel)
}

// OpenTable opens a table file (CSV, TSV, Parquet, optionally .gz) for
// streaming, checking it may be read and recording it for the cache and
// the provenance. path is relative to the manifest.
func (c *Job) OpenTable(path string) (*input.TableReader, error) {
	return c.Inputs.Open(c.Path(path))
}

// Progress reports progress of long work on a terminal; it prints nothing
// when output is not a TTY or with --quiet. Safe for concurrent use.
func (c *Job) Progress() Progress { return c.ProgressTo }

// Progress is told how far long work has come.
type Progress interface {
	// Step reports done out of total for a label ("stability: drop_datasets").
	Step(label string, done, total int)
}

// NoProgress is a Progress that is told nothing.
type NoProgress struct{}

// Step does nothing.
func (NoProgress) Step(string, int, int) {}

// DeriveSeed mixes the study seed with an analysis id (FNV-1a of the id,
// then a splitmix64 step), so every analysis has an independent stream.
func DeriveSeed(seed int64, id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return stats.SplitMix64(uint64(seed)^h.Sum64(), 0)
}

// resultsMatrix returns the results of a metric as q[d][m] over the given
// datasets (rows, taken as they are: a dataset without results gives a row
// of NaN) and methods (all of the results when empty, else checked).
func resultsMatrix(job *Job, metric string, datasets, methods []string) ([]string, analyses.Matrix, error) {
	res, err := job.Results()
	if err != nil {
		return nil, nil, err
	}
	if err := manifest.CheckNames("metric", []string{metric}, res.Metrics); err != nil {
		return nil, nil, err
	}
	if err := manifest.CheckDeclared(job.Study, res); err != nil {
		return nil, nil, err
	}
	if len(methods) == 0 {
		methods = res.Methods
	} else if err := manifest.CheckNames("method", methods, res.Methods); err != nil {
		return nil, nil, err
	}
	if err := analyses.CheckMatrixSize(len(datasets), len(methods), false); err != nil {
		return nil, nil, err
	}
	return methods, res.Matrix(metric, datasets, methods), nil
}
