package kinds

// Registration of characteristics (Shevchenko et al. 2024, §4.3): reads
// each dataset's interaction log streaming (one worker per log, at most
// job.Workers at once, so memory is bounded by the distinct pairs of
// job.Workers logs), or takes the characteristics input, then relates the
// features to the results.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/datasets"
	"github.com/evalbook/evalbook/figures"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/load/engines"
	"github.com/evalbook/evalbook/report/manifest"
)

func init() { register(characteristicsKind) }

func characteristicsKind() Kind {
	k := NewKind("characteristics", "dataset characteristics from interaction logs and their association with performance (Shevchenko et al. 2024, §4.3, Fig. 7)", runCharacteristics)
	return metricTitle(k, "Dataset characteristics", func(o *datasets.CharacteristicsOptions) string { return o.Metric })
}

func runCharacteristics(job *Job, o *datasets.CharacteristicsOptions) (*Output, error) {
	logs, from := characteristicsSource(job, o)
	var in datasets.CharacteristicsInput
	var notes []string
	var err error
	switch from {
	case datasets.CharFromLogs:
		in, notes, err = characteristicsInputFromLogs(job, logs, o)
	default:
		in, err = characteristicsInputFromFile(job)
	}
	if err != nil {
		return nil, err
	}
	if len(o.Features) > 0 {
		if err := selectCharacteristicsFeatures(&in, o.Features); err != nil {
			return nil, err
		}
	}
	var missing []string
	if o.Metric != "" {
		if missing, err = characteristicsPerformance(job, o, &in); err != nil {
			return nil, err
		}
	}
	r, err := datasets.Characteristics(in, *o)
	if err != nil {
		return nil, err
	}
	r.Naming = job.Study.Naming()
	for _, n := range notes {
		r.Warnf("%s", n)
	}
	if len(missing) > 0 {
		r.Warnf("%d datasets of the results have no characteristics and are left out: %s", len(missing), strings.Join(missing, ", "))
	}
	figs, err := figures.Characteristics(job.ID, job.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: CharacteristicsMethod(from, o, r.Naming)}, nil
}

// characteristicsSource lists the [[datasets]] entries with an
// interaction log and resolves from = "auto": the logs when there are
// any, else the characteristics input.
func characteristicsSource(job *Job, o *datasets.CharacteristicsOptions) ([]manifest.DatasetSpec, string) {
	var logs []manifest.DatasetSpec
	for _, d := range job.Study.Datasets {
		if d.Interactions != "" || d.EngineLog != nil {
			logs = append(logs, d)
		}
	}
	from := o.From
	if from == datasets.CharFromAuto {
		from = datasets.CharFromInput
		if len(logs) > 0 {
			from = datasets.CharFromLogs
		}
	}
	return logs, from
}

// characteristicsInputFromLogs computes the eighteen log features of
// each dataset's interaction log: one row of features (and counts) per
// log, in the order of the [[datasets]] entries.
//
// A (user, item) pair given again with another rating keeps its last
// row's rating (as pandas' drop_duplicates(keep="last")); with a rating
// threshold that rating decides whether the pair is kept, so the notes
// say, per dataset, how many rows changed a pair's rating.
func characteristicsInputFromLogs(job *Job, logs []manifest.DatasetSpec, o *datasets.CharacteristicsOptions) (datasets.CharacteristicsInput, []string, error) {
	var in datasets.CharacteristicsInput
	if len(logs) == 0 {
		return in, nil, fmt.Errorf("from = \"logs\": no [[datasets]] entry has interactions = \"…\"")
	}
	p := o.Preprocessing()
	sums, err := characteristicsFromLogs(job, logs, p)
	if err != nil {
		return in, nil, err
	}
	var notes []string
	in.Features = datasets.LogFeatureNames
	for i, d := range logs {
		in.Datasets = append(in.Datasets, d.Name)
		in.Values = append(in.Values, sums[i].Features)
		in.Counts = append(in.Counts, sums[i].Counts)
		dp := p
		if datasetThreshold(d, &dp) == nil && dp.HasThreshold && sums[i].RatingChanges > 0 {
			notes = append(notes, fmt.Sprintf("dataset %s: %d rows give a (user, item) pair another rating than the pair's row before; each pair keeps its last row's rating, which decides the rating threshold (%g)",
				d.Name, sums[i].RatingChanges, dp.Threshold))
		}
	}
	return in, notes, nil
}

// characteristicsInputFromFile takes the features from the study's
// characteristics input: a row per dataset, NaN where a value is not
// given, with the log features' names spelled as the README does.
func characteristicsInputFromFile(job *Job) (datasets.CharacteristicsInput, error) {
	var in datasets.CharacteristicsInput
	c, err := job.Characteristics()
	if err != nil {
		return in, err
	}
	if c == nil {
		return in, fmt.Errorf("no characteristics: give [inputs] characteristics = \"…\" or interactions = \"…\" in [[datasets]]")
	}
	in.Datasets, in.Features = c.Datasets, CharCanonicalNames(c.Features)
	for _, d := range c.Datasets {
		row := make([]float64, len(c.Features))
		for f, name := range c.Features {
			v, ok := c.Value[d][name]
			if !ok {
				v = math.NaN()
			}
			row[f] = v
		}
		in.Values = append(in.Values, row)
	}
	return in, nil
}

// selectCharacteristicsFeatures keeps only the features the options name
// (features = […]), in their order, in every dataset's row.
func selectCharacteristicsFeatures(in *datasets.CharacteristicsInput, features []string) error {
	names, err := selectFeatures(features, in.Features)
	if err != nil {
		return err
	}
	idx := make([]int, len(names))
	for k, name := range names {
		idx[k] = slices.Index(in.Features, name)
	}
	for d, row := range in.Values {
		sel := make([]float64, len(idx))
		for k, f := range idx {
			sel[k] = row[f]
		}
		in.Values[d] = sel
	}
	sel := make([]string, len(idx))
	for k, f := range idx {
		sel[k] = in.Features[f]
	}
	in.Features = sel
	return nil
}

// characteristicsPerformance adds the results of o.Metric (the methods
// and their values per dataset) to in, and returns the datasets of the
// results that have no characteristics, which are left out.
func characteristicsPerformance(job *Job, o *datasets.CharacteristicsOptions, in *datasets.CharacteristicsInput) ([]string, error) {
	methods, q, err := resultsMatrix(job, o.Metric, in.Datasets, o.Methods)
	if err != nil {
		return nil, err
	}
	in.Metric, in.Methods, in.Perf = o.Metric, methods, q
	have := map[string]bool{}
	for _, d := range in.Datasets {
		have[d] = true
	}
	var missing []string
	res, _ := job.Results() // loaded once, already checked by resultsMatrix
	for _, d := range res.Datasets {
		if !have[d] {
			missing = append(missing, d)
		}
	}
	return missing, nil
}

// CharCanonicalNames spells input features that are log features under
// another case or underscoring (the data of Shevchenko et al. 2024 has
// "Ginii" and "Giniu") as the README does, so the -features columns keep
// the contract.
// A name that would collide with another column is left as it is.
func CharCanonicalNames(names []string) []string {
	key := load.CharFeatureKey
	canon := map[string]string{}
	for _, f := range datasets.LogFeatureNames {
		canon[key(f)] = f
	}
	taken := map[string]bool{}
	for _, n := range names {
		taken[n] = true
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if c, ok := canon[key(n)]; ok && c != n && !taken[c] {
			out[i] = c
			taken[c] = true
		}
	}
	return out
}

// characteristicsFromLogs reads the logs on up to job.Workers workers. Each
// result has its own slot and the error reported is the one of the first
// failing dataset in manifest order, so output never depends on timing.
func characteristicsFromLogs(job *Job, logs []manifest.DatasetSpec, p datasets.Preprocessing) ([]*datasets.LogSummary, error) {
	n := len(logs)
	out := make([]*datasets.LogSummary, n)
	errs := make([]error, n)
	var next, done atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	prog := job.Progress()
	if prog == nil {
		prog = NoProgress{}
	}
	for range min(max(1, job.Workers), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				out[i], errs[i] = ReadCharacteristicsLog(job, logs[i], p)
				if errs[i] != nil {
					failed.Store(true)
				}
				prog.Step("characteristics: interaction logs", int(done.Add(1)), n)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ReadCharacteristicsLog streams one log into an InteractionLog. Errors
// name the file (with line and column where there is one) and the dataset.
func ReadCharacteristicsLog(job *Job, d manifest.DatasetSpec, p datasets.Preprocessing) (*datasets.LogSummary, error) {
	if err := datasetThreshold(d, &p); err != nil {
		return nil, err
	}
	if d.EngineLog != nil {
		return engineLogSummary(job, job.Inputs.Engines.Logs[d.Name], p)
	}
	t, err := job.OpenTable(d.Interactions)
	if err != nil {
		return nil, fmt.Errorf("dataset %q: interactions: %w", d.Name, err)
	}
	defer job.Inputs.CloseCounted(job.Path(d.Interactions), t)
	return input.ReadInteractionLog(t, d.Name, p)
}

// datasetThreshold sets p's rating threshold from the dataset attribute
// rating_threshold, when it has one.
func datasetThreshold(d manifest.DatasetSpec, p *datasets.Preprocessing) error {
	if s, ok := d.Attrs["rating_threshold"]; ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !analyses.Finite(v) {
			return fmt.Errorf("dataset %q: rating_threshold = %q is not a number", d.Name, s)
		}
		p.Threshold, p.HasThreshold = v, true
	}
	return nil
}

// CharacteristicsMethod is the method note (notes/characteristics.md).
func CharacteristicsMethod(from string, o *datasets.CharacteristicsOptions, n analyses.Naming) string {
	d := struct {
		FromLogs, HasThreshold bool
		Threshold              float64
		MinItem, MinUser, Core int
		Metric, Pooled         string
		Neighbors              int
	}{FromLogs: from == datasets.CharFromLogs, MinItem: o.MinItem, MinUser: o.MinUser, Core: o.Core,
		Metric: n.Metric(o.Metric), Pooled: datasets.CharPooled, Neighbors: o.Neighbors}
	if o.RatingThreshold != nil {
		d.HasThreshold, d.Threshold = true, *o.RatingThreshold
	}
	return methodNote("characteristics", d)
}

// engineLogSummary is readCharacteristicsLog for an engine log: the
// queries stop when the build is cancelled.
func engineLogSummary(job *Job, e *engines.EngineLogSource, p datasets.Preprocessing) (*datasets.LogSummary, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-job.Done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return e.Summary(ctx, job.ID, p)
}
