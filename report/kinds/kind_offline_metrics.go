package kinds

// offline_metrics gathers its own inputs (run files, truth, predictions)
// rather than the study's results and units: it is the step that makes
// them. offlineDerived is the whole computation behind one hook, so the
// build can run it before the other analyses and hand its per-run values
// on as `results` and its per-user values as `units`.

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/offline"
	"github.com/evalbook/evalbook/figures"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/input/runs"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

func init() { register(offlineMetricsKind) }

func offlineMetricsKind() Kind {
	k := NewKind("offline_metrics", "per-user Precision, Recall, F1, nDCG, MAP, MRR, HitRate, RankScore, LiftIndex, per-run Coverage and Novelty, MAE and RMSE from ranked runs and truth (Jannach et al. 2010)", RunOfflineMetrics)
	// Its per-run values join the study's results and its per-user values
	// its units, so every other analysis can name them (ndcg@10, …).
	k.Feeds = true
	return Titled(k, func(s *manifest.Study, o *offline.Options) string { return "Offline metrics" })
}

// offlineUnitsPageLimit is the largest number of per-user rows kept for the
// analysis's CSV data file; beyond it the per-user values only stream.
const offlineUnitsPageLimit = 200000

// RunOfflineMetrics runs an offline_metrics analysis.
func RunOfflineMetrics(job *Job, o *offline.Options) (*Output, error) {
	// Each run keeps its own per-user rows, so the runs are read in
	// parallel; past offlineUnitsPageLimit rows in all, every run drops
	// them and the per-user values only stream.
	keep := &offlineKeep{runs: map[[2]string]*keptRows{}}
	d, err := offlineDerive(job, o, nil, keep.run)
	if err != nil {
		return nil, err
	}
	unitRows, overflow := keep.rows(d.Runs)
	res := offline.Metrics(*o, d.Runs, d.Predictions)
	if o.Compare != nil {
		metrics := o.CompareMetrics()
		cs, warn := offline.Compare(*o.Compare, metrics, d.PerQuery, job.Seed, job.Workers)
		res.Comparisons, res.CompareMetrics = cs, metrics
		if res.Comparisons == nil {
			res.Comparisons = []offline.Comparison{}
		}
		for _, pq := range d.PerQuery {
			res.CompareRuns = append(res.CompareRuns, offline.PerQuery{Dataset: pq.Dataset, Method: pq.Method})
		}
		res.List = append(res.List, warn.List...)
	}
	if overflow {
		res.Warnf("the per-user values (more than %d rows) are not written as a data file; the analyses of the study read them as units", offlineUnitsPageLimit)
	} else {
		res.UnitRows = unitRows
	}
	res.Naming = job.Study.Naming()
	figs, err := figures.OfflineMetrics(job.ID, job.Title, res, res.Naming)
	if err != nil {
		return nil, err
	}
	out := &Output{Result: res, Figures: figs, Method: OfflineMethod(o)}
	for _, row := range res.Tables()[0].Rows {
		if v, ok := row[3].(float64); ok {
			out.Results = append(out.Results, load.ResultRow{Dataset: row[0].(string), Method: row[1].(string), Metric: row[2].(string), Value: v})
		}
	}
	if kept := res.UnitRows; kept != nil {
		out.Units = func(fn func(*load.UnitRow) error) error {
			u := &load.UnitRow{File: job.ID}
			for i, row := range kept {
				u.Dataset, u.Method, u.Unit, u.Metric = row[0].(string), row[1].(string), row[2].(string), row[3].(string)
				u.Value, u.Row = row[4].(float64), int64(i)
				if err := fn(u); err != nil {
					return err
				}
			}
			return nil
		}
	} else {
		// Too many to keep: computed again from the runs, streaming.
		out.Units = func(fn func(*load.UnitRow) error) error {
			_, err := OfflineMetricsDerived(job, o, fn)
			return err
		}
	}
	return out, nil
}

// offlineKeep gathers the per-user rows of the runs of an analysis read in
// parallel, each run in its own buffer, at most offlineUnitsPageLimit
// rows in all (counted in steps, so the runs rarely meet at the lock).
type offlineKeep struct {
	mu    sync.Mutex
	total int
	over  bool
	runs  map[[2]string]*keptRows
}

type keptRows struct {
	k       *offlineKeep
	rows    [][]any
	counted int
	dropped bool
}

// run returns the row sink of one run.
func (k *offlineKeep) run(dataset, method string) func(*load.UnitRow) error {
	kr := &keptRows{k: k}
	k.mu.Lock()
	k.runs[[2]string{dataset, method}] = kr
	k.mu.Unlock()
	return kr.add
}

func (kr *keptRows) add(u *load.UnitRow) error {
	if kr.dropped {
		return nil
	}
	kr.rows = append(kr.rows, []any{u.Dataset, u.Method, u.Unit, u.Metric, u.Value})
	if len(kr.rows)-kr.counted >= 1024 {
		kr.count()
	}
	return nil
}

// count adds the rows not counted yet to the total, and drops the rows
// once the total is past the limit.
func (kr *keptRows) count() {
	k := kr.k
	k.mu.Lock()
	k.total += len(kr.rows) - kr.counted
	kr.counted = len(kr.rows)
	k.over = k.over || k.total > offlineUnitsPageLimit
	over := k.over
	k.mu.Unlock()
	if over {
		kr.rows, kr.dropped = nil, true
	}
}

// rows returns every run's rows in the order of runs (datasets in
// manifest order, methods sorted), or overflow.
func (k *offlineKeep) rows(runs []offline.RunValues) (rows [][]any, overflow bool) {
	for _, kr := range k.runs {
		kr.count()
	}
	if k.over {
		return nil, true
	}
	for _, r := range runs {
		if kr := k.runs[[2]string{r.Dataset, r.Method}]; kr != nil {
			rows = append(rows, kr.rows...)
		}
	}
	return rows, false
}

// OfflineDerived is what an offline_metrics analysis contributes to the
// study's inputs: one value per (dataset, method, metric), and the names
// of the per-user metrics it streamed.
type OfflineDerived struct {
	Runs        []offline.RunValues
	Predictions bool
	// PerQuery holds each run's per-user values of the compared metrics
	// (compare set), in the order of Runs.
	PerQuery []offline.PerQuery
}

// offlineFile is one file matched by a pattern.
type offlineFile struct {
	path, display   string
	dataset, method string
	columns         map[string]string // the entry's column mapping
}

// OfflineMetricsDerived reads the runs, truth and predictions of an
// offline_metrics analysis and computes every value. Each per-user value
// is passed to unit (nil: not wanted) as a UnitRow — Unit is the user,
// Metric "<metric>@<k>", "mae" or "rmse" — in a deterministic order:
// datasets in manifest order, methods sorted, users in file order (then
// the truth users the run has no list for, in truth order). Memory is
// bounded by the truth and the catalog of one dataset, never by the runs.
func OfflineMetricsDerived(job *Job, o *offline.Options, unit func(*load.UnitRow) error) (*OfflineDerived, error) {
	return offlineDerive(job, o, unit, nil)
}

// offlineDerive is OfflineMetricsDerived, where perRun (when unit is nil)
// gives each run its own sink of per-user values: each sink gets its
// run's rows in order, and the runs are read in parallel.
func offlineDerive(job *Job, o *offline.Options, unit func(*load.UnitRow) error, perRun func(dataset, method string) func(*load.UnitRow) error) (*OfflineDerived, error) {
	in, err := offlineGather(job, o)
	if err != nil {
		return nil, err
	}
	datasets := job.Study.OrderDatasets(analyses.SortedKeys(in.runs))
	d := &OfflineDerived{Predictions: len(in.preds) > 0}
	prog := &offlineProgress{job: job, total: in.nRuns}
	for _, ds := range datasets {
		files := in.runs[ds]
		sort.SliceStable(files, func(i, j int) bool { return files[i].method < files[j].method })
		for i := 1; i < len(files); i++ {
			if files[i].method == files[i-1].method {
				return nil, fmt.Errorf("runs: dataset %q, method %q: two run files (%s and %s)", ds, files[i].method, files[i-1].display, files[i].display)
			}
		}
		tf := in.truth[ds]
		if len(tf) == 0 {
			return nil, fmt.Errorf("truth: no truth file for dataset %q (truth %v; runs %s)", ds, o.Truth, files[0].display)
		}
		truth, err := offlineReadTruth(job, o, tf)
		if err != nil {
			return nil, err
		}
		runs, err := offlineReadRuns(job, o, truth, files, in.predBy, unit, perRun, prog)
		if err != nil {
			return nil, err
		}
		d.Runs = append(d.Runs, offline.FinishDataset(runs)...)
		if o.Compare != nil {
			for _, r := range runs {
				d.PerQuery = append(d.PerQuery, r.PerQuery())
			}
		}
	}
	return d, in.checkPredictions()
}

// offlineInputs are an offline_metrics analysis's files: runs and truth
// by dataset, predictions by dataset and method.
type offlineInputs struct {
	runs, truth map[string][]offlineFile
	preds       []offlineFile
	predBy      map[[2]string]offlineFile
	nRuns       int
}

// offlineGather expands the runs, truth and predictions entries.
func offlineGather(job *Job, o *offline.Options) (*offlineInputs, error) {
	runFiles, err := offlineExpandEntries(job, "runs", o.Runs)
	if err != nil {
		return nil, err
	}
	if len(runFiles) == 0 {
		return nil, fmt.Errorf("runs: no file matches %v", o.Runs)
	}
	truthFiles, err := offlineExpandEntries(job, "truth", o.Truth)
	if err != nil {
		return nil, err
	}
	predFiles, err := offlineExpandEntries(job, "predictions", o.Predictions)
	if err != nil {
		return nil, err
	}
	in := &offlineInputs{runs: map[string][]offlineFile{}, truth: map[string][]offlineFile{},
		preds: predFiles, predBy: map[[2]string]offlineFile{}, nRuns: len(runFiles)}
	for _, f := range runFiles {
		in.runs[f.dataset] = append(in.runs[f.dataset], f)
	}
	for _, f := range truthFiles {
		in.truth[f.dataset] = append(in.truth[f.dataset], f)
	}
	for _, f := range predFiles {
		in.predBy[[2]string{f.dataset, f.method}] = f
	}
	return in, nil
}

// checkPredictions refuses a predictions file of a dataset or method
// without a run file.
func (in *offlineInputs) checkPredictions() error {
	for _, f := range in.preds {
		if _, ok := in.runs[f.dataset]; !ok {
			return fmt.Errorf("%s: predictions for dataset %q, which has no run file", f.display, f.dataset)
		}
		found := false
		for _, rf := range in.runs[f.dataset] {
			found = found || rf.method == f.method
		}
		if !found {
			return fmt.Errorf("%s: predictions of method %q on dataset %q, which has no run file", f.display, f.method, f.dataset)
		}
	}
	return nil
}

// offlineProgress counts the run files read, for the progress line.
type offlineProgress struct {
	job         *Job
	mu          sync.Mutex
	done, total int
}

func (p *offlineProgress) step() {
	p.mu.Lock()
	p.done++
	p.job.Progress().Step("offline_metrics: runs", p.done, p.total)
	p.mu.Unlock()
}

// offlineReadRuns reads and evaluates the run files of one dataset.
// Per-user values must come out in a fixed order: with a unit callback
// the runs are read one after the other; without one, in parallel (each
// run has its own state, and its own sink from perRun when it is set).
// The error is the first file's, in file order.
func offlineReadRuns(job *Job, o *offline.Options, truth *offline.Truth, files []offlineFile, predBy map[[2]string]offlineFile, unit func(*load.UnitRow) error, perRun func(dataset, method string) func(*load.UnitRow) error, prog *offlineProgress) ([]*offline.Run, error) {
	runs := make([]*offline.Run, len(files))
	errs := make([]error, len(files))
	if unit != nil || job.Workers <= 1 {
		for i := range files {
			sink := unit
			if sink == nil && perRun != nil {
				sink = perRun(files[i].dataset, files[i].method)
			}
			if runs[i], errs[i] = offlineReadRun(job, o, truth, files[i], predBy, sink); errs[i] != nil {
				return nil, errs[i]
			}
			prog.step()
		}
		return runs, nil
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, job.Workers)
	for i := range files {
		wg.Add(1)
		sem <- struct{}{}
		var sink func(*load.UnitRow) error
		if perRun != nil {
			sink = perRun(files[i].dataset, files[i].method)
		}
		go func() {
			defer wg.Done()
			runs[i], errs[i] = offlineReadRun(job, o, truth, files[i], predBy, sink)
			<-sem
			prog.step()
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	return runs, nil
}

func offlineReadTruth(job *Job, o *offline.Options, files []offlineFile) (*offline.Truth, error) {
	truth := offline.NewTruth()
	for _, f := range files {
		var rows int64
		var err error
		if offlineTabular(f) {
			rows, err = offlineScanTruth(job, formatOption(o.Format), f, func(user, item []byte, rel float64, _ int) error {
				return truth.Add(user, item, rel)
			})
		} else {
			rows, err = job.Inputs.ReadTruth(f.path, f.display, runs.FormatOf(f.path, o.Format), truth)
		}
		job.Inputs.RecordFile(f.path, rows)
		if err != nil {
			return nil, err
		}
	}
	if err := truth.Finish(o.RelevanceThreshold); err != nil {
		var de *offline.DuplicateError
		if errors.As(err, &de) {
			return nil, offlineDuplicateAt(job, o, files, de)
		}
		return nil, err
	}
	if truth.Users() == 0 {
		return nil, fmt.Errorf("%s: the truth has no rows", files[0].display)
	}
	return truth, nil
}

// offlineDuplicateAt finds the lines of a duplicate truth entry by reading
// the files again (the truth keeps no line numbers).
func offlineDuplicateAt(job *Job, o *offline.Options, files []offlineFile, de *offline.DuplicateError) error {
	first := ""
	stop := errors.New("found")
	for _, f := range files {
		var at error
		_, err := offlineScanTruth(job, formatOption(o.Format), f, func(user, item []byte, _ float64, line int) error {
			if string(user) != de.User || string(item) != de.Item {
				return nil
			}
			if first == "" {
				first = fmt.Sprintf("%s:%d", f.display, line)
				return nil
			}
			at = &input.InputError{File: f.display, Line: line, Msg: fmt.Sprintf("user %q: item %q is listed twice (first at %s)", de.User, de.Item, first)}
			return stop
		})
		if at != nil {
			return at
		}
		if err != nil {
			return err
		}
	}
	return fmt.Errorf("%s: %v", files[0].display, de) // not found again: the files changed
}

func offlineReadRun(job *Job, o *offline.Options, truth *offline.Truth, f offlineFile,
	predBy map[[2]string]offlineFile, unit func(*load.UnitRow) error) (*offline.Run, error) {
	run := offline.NewRun(f.dataset, f.method, truth, *o)
	// trec_eval evaluates the queries of the qrels: a TREC run's other
	// queries are ignored (with a warning), a table's are an error.
	run.SkipUnknown = runs.FormatOf(f.path, o.Format) == runs.FormatTREC && !offlineTabular(f)
	if o.Compare != nil {
		run.KeepPerQuery(o.CompareMetrics())
	}
	if unit != nil {
		row := &load.UnitRow{Dataset: f.dataset, Method: f.method, File: f.display}
		run.OnUser = func(user string, names []string, values []float64) error {
			row.Unit = user
			for i, n := range names {
				row.Metric, row.Value = n, values[i]
				if err := unit(row); err != nil {
					return err
				}
			}
			row.Row++
			return nil
		}
	}
	rr, err := offlineOpenRun(job, formatOption(o.Format), f, false)
	if err != nil {
		return nil, err
	}
	err = rr.Stream(func(b *runs.Block) error {
		if err := run.AddUser(b.User(), b.Items()); err != nil {
			return rr.BlockError(b, err)
		}
		return nil
	})
	rr.Close()
	if err != nil {
		return nil, err
	}
	if !rr.Unchanged() {
		return nil, fmt.Errorf("%s: the file changed while it was read; build again", f.display)
	}
	job.Inputs.RecordFile(f.path, rr.Rows)
	if rr.Rows == 0 {
		return nil, fmt.Errorf("%s: the run has no rows", f.display)
	}
	if err := run.Finish(); err != nil {
		return nil, err
	}
	if pf, ok := predBy[[2]string{f.dataset, f.method}]; ok {
		pr, err := offlineOpenRun(job, formatOption(o.Format), pf, true)
		if err != nil {
			return nil, err
		}
		defer pr.Close()
		for {
			user, items, err := pr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			if err := run.AddPredictions(user, items, pr.Preds()); err != nil {
				return nil, pr.ListError(err)
			}
		}
		job.Inputs.RecordFile(pf.path, pr.Rows)
	}
	return run, nil
}

// OfflineMethod is the method note (notes/offline_metrics.md), which
// reads the options only.
func OfflineMethod(o *offline.Options) string { return methodNote("offline_metrics", o) }
