package report

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
	"github.com/evalbook/evalbook/figures"
)

func offlineMetricsKind() Kind {
	k := NewKind("offline_metrics", "per-user Precision, Recall, F1, nDCG, MAP, MRR, HitRate, RankScore, LiftIndex, per-run Coverage and Novelty, MAE and RMSE from ranked runs and truth (seed 002)", runOfflineMetrics)
	// Its per-run values join the study's results and its per-user values
	// its units, so every other analysis can name them (ndcg@10, …).
	k.Feeds = true
	return k
}

// offlineUnitsPageLimit is the largest number of per-user rows kept for the
// analysis's CSV data file; beyond it the per-user values only stream.
const offlineUnitsPageLimit = 200000

func runOfflineMetrics(ctx *Context, o *analyses.OfflineMetricsOptions) (*Output, error) {
	var unitRows [][]any
	overflow := false
	keep := func(u *UnitRow) error {
		if overflow {
			return nil
		}
		if len(unitRows) >= offlineUnitsPageLimit {
			overflow, unitRows = true, nil
			return nil
		}
		unitRows = append(unitRows, []any{u.Dataset, u.Method, u.Unit, u.Metric, u.Value})
		return nil
	}
	d, err := OfflineMetricsDerived(ctx, o, keep)
	if err != nil {
		return nil, err
	}
	res := analyses.OfflineMetrics(*o, d.Runs, d.Predictions)
	if overflow {
		res.Warnf("the per-user values (more than %d rows) are not written as a data file; the analyses of the study read them as units", offlineUnitsPageLimit)
	} else {
		res.UnitRows = unitRows
	}
	figs, err := figures.OfflineMetrics(ctx.ID, ctx.Title, res)
	if err != nil {
		return nil, err
	}
	out := &Output{Result: res, Figures: figs, Method: offlineMethod(o)}
	for _, row := range res.Tables()[0].Rows {
		if v, ok := row[3].(float64); ok {
			out.Results = append(out.Results, ResultRow{Dataset: row[0].(string), Method: row[1].(string), Metric: row[2].(string), Value: v})
		}
	}
	if kept := res.UnitRows; kept != nil {
		out.Units = func(fn func(*UnitRow) error) error {
			u := &UnitRow{File: ctx.ID}
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
		out.Units = func(fn func(*UnitRow) error) error {
			_, err := OfflineMetricsDerived(ctx, o, fn)
			return err
		}
	}
	return out, nil
}

// OfflineDerived is what an offline_metrics analysis contributes to the
// study's inputs: one value per (dataset, method, metric), and the names
// of the per-user metrics it streamed.
type OfflineDerived struct {
	Runs        []analyses.OfflineRunValues
	Predictions bool
}

// offlineFile is one file matched by a pattern.
type offlineFile struct {
	path, display   string
	dataset, method string
}

// offlineExpand resolves a pattern with {dataset}/{method} placeholders
// and globs, relative to the manifest. Without {dataset} the dataset is
// the study's title (SPEC §3).
func offlineExpand(ctx *Context, key, pattern string) ([]offlineFile, error) {
	files, err := ctx.inputs.match(pattern)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", key, err)
	}
	out := make([]offlineFile, len(files))
	for i, f := range files {
		out[i] = offlineFile{path: f.Path, display: ctx.inputs.display(f.Path), dataset: f.Dataset, method: f.Method}
		if out[i].dataset == "" {
			out[i].dataset = ctx.Study.Title
		}
	}
	return out, nil
}

// OfflineMetricsDerived reads the runs, truth and predictions of an
// offline_metrics analysis and computes every value. Each per-user value
// is passed to unit (nil: not wanted) as a UnitRow — Unit is the user,
// Metric "<metric>@<k>", "mae" or "rmse" — in a deterministic order:
// datasets in manifest order, methods sorted, users in file order (then
// the truth users the run has no list for, in truth order). Memory is
// bounded by the truth and the catalog of one dataset, never by the runs.
func OfflineMetricsDerived(ctx *Context, o *analyses.OfflineMetricsOptions, unit func(*UnitRow) error) (*OfflineDerived, error) {
	runFiles, err := offlineExpand(ctx, "runs", o.Runs)
	if err != nil {
		return nil, err
	}
	truthFiles, err := offlineExpand(ctx, "truth", o.Truth)
	if err != nil {
		return nil, err
	}
	var predFiles []offlineFile
	if o.Predictions != "" {
		if predFiles, err = offlineExpand(ctx, "predictions", o.Predictions); err != nil {
			return nil, err
		}
	}
	byDataset := map[string][]offlineFile{}
	for _, f := range runFiles {
		byDataset[f.dataset] = append(byDataset[f.dataset], f)
	}
	truthBy := map[string][]offlineFile{}
	for _, f := range truthFiles {
		truthBy[f.dataset] = append(truthBy[f.dataset], f)
	}
	predBy := map[[2]string]offlineFile{}
	for _, f := range predFiles {
		predBy[[2]string{f.dataset, f.method}] = f
	}
	datasets := ctx.Study.orderDatasets(analyses.SortedKeys(byDataset))
	d := &OfflineDerived{Predictions: len(predFiles) > 0}
	total := len(runFiles)
	done := 0
	for _, ds := range datasets {
		files := byDataset[ds]
		sort.SliceStable(files, func(i, j int) bool { return files[i].method < files[j].method })
		for i := 1; i < len(files); i++ {
			if files[i].method == files[i-1].method {
				return nil, fmt.Errorf("runs: dataset %q, method %q: two run files (%s and %s)", ds, files[i].method, files[i-1].display, files[i].display)
			}
		}
		tf := truthBy[ds]
		if len(tf) == 0 {
			return nil, fmt.Errorf("truth: no truth file for dataset %q (pattern %q; runs %s)", ds, o.Truth, files[0].display)
		}
		truth, err := offlineReadTruth(ctx, o, tf)
		if err != nil {
			return nil, err
		}
		runs := make([]*analyses.OfflineRun, len(files))
		errs := make([]error, len(files))
		work := func(i int, emit func(*UnitRow) error) {
			runs[i], errs[i] = offlineReadRun(ctx, o, truth, files[i], predBy, emit)
		}
		// Per-user values must come out in a fixed order: with a unit
		// callback the runs are read one after the other; without one,
		// in parallel (each run has its own state).
		if unit != nil || ctx.Jobs <= 1 {
			for i := range files {
				work(i, unit)
				if errs[i] != nil {
					return nil, errs[i]
				}
				done++
				ctx.Progress().Step("offline_metrics: runs", done, total)
			}
		} else {
			var wg sync.WaitGroup
			sem := make(chan struct{}, ctx.Jobs)
			var mu sync.Mutex
			for i := range files {
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer wg.Done()
					work(i, nil)
					<-sem
					mu.Lock()
					done++
					ctx.Progress().Step("offline_metrics: runs", done, total)
					mu.Unlock()
				}()
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				for _, e := range errs {
					if e != nil {
						return nil, e // the first file's error, in file order
					}
				}
			}
		}
		d.Runs = append(d.Runs, analyses.OfflineFinishDataset(runs)...)
	}
	for _, f := range predFiles {
		if _, ok := byDataset[f.dataset]; !ok {
			return nil, fmt.Errorf("%s: predictions for dataset %q, which has no run file", f.display, f.dataset)
		}
		found := false
		for _, rf := range byDataset[f.dataset] {
			found = found || rf.method == f.method
		}
		if !found {
			return nil, fmt.Errorf("%s: predictions of method %q on dataset %q, which has no run file", f.display, f.method, f.dataset)
		}
	}
	return d, nil
}

func offlineReadTruth(ctx *Context, o *analyses.OfflineMetricsOptions, files []offlineFile) (*analyses.OfflineTruth, error) {
	truth := analyses.NewOfflineTruth()
	for _, f := range files {
		rows, err := ctx.inputs.readTruth(f.path, f.display, runFormatOf(f.path, o.Format), truth)
		ctx.inputs.recordFile(f.path, rows)
		if err != nil {
			return nil, err
		}
	}
	if err := truth.Finish(o.RelevanceThreshold); err != nil {
		var de *analyses.OfflineDuplicateError
		if errors.As(err, &de) {
			return nil, offlineDuplicateAt(ctx, o, files, de)
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
func offlineDuplicateAt(ctx *Context, o *analyses.OfflineMetricsOptions, files []offlineFile, de *analyses.OfflineDuplicateError) error {
	first := ""
	stop := errors.New("found")
	for _, f := range files {
		var at error
		_, err := ctx.inputs.scanTruth(f.path, f.display, runFormatOf(f.path, o.Format), func(user, item []byte, _ float64, line int) error {
			if string(user) != de.User || string(item) != de.Item {
				return nil
			}
			if first == "" {
				first = fmt.Sprintf("%s:%d", f.display, line)
				return nil
			}
			at = &InputError{File: f.display, Line: line, Msg: fmt.Sprintf("user %q: item %q is listed twice (first at %s)", de.User, de.Item, first)}
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

func offlineReadRun(ctx *Context, o *analyses.OfflineMetricsOptions, truth *analyses.OfflineTruth, f offlineFile,
	predBy map[[2]string]offlineFile, unit func(*UnitRow) error) (*analyses.OfflineRun, error) {
	run := analyses.NewOfflineRun(f.dataset, f.method, truth, *o)
	if unit != nil {
		row := &UnitRow{Dataset: f.dataset, Method: f.method, File: f.display}
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
	rr, err := ctx.inputs.openRun(f.path, f.display, runFormatOf(f.path, o.Format), false)
	if err != nil {
		return nil, err
	}
	err = rr.stream(func(b *runBlock) error {
		if err := run.AddUser(b.user, b.items); err != nil {
			return rr.blockError(b, err)
		}
		return nil
	})
	rr.Close()
	if err != nil {
		return nil, err
	}
	ctx.inputs.recordFile(f.path, rr.Rows)
	if rr.Rows == 0 {
		return nil, fmt.Errorf("%s: the run has no rows", f.display)
	}
	if err := run.Finish(); err != nil {
		return nil, err
	}
	if pf, ok := predBy[[2]string{f.dataset, f.method}]; ok {
		pr, err := ctx.inputs.openRun(pf.path, pf.display, formatTable, true)
		if err != nil {
			return nil, err
		}
		defer pr.Close()
		for {
			user, items, err := pr.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			if err := run.AddPredictions(user, items, pr.preds); err != nil {
				return nil, pr.listError(err)
			}
		}
		ctx.inputs.recordFile(pf.path, pr.Rows)
	}
	return run, nil
}

func offlineMethod(o *analyses.OfflineMetricsOptions) string {
	disc := "1/log₂(r + 1) at rank r (trec_eval 9's `ndcg_cut`; Burges et al. 2005)"
	if o.NDCGDiscount == analyses.NDCGJarvelin {
		disc = "rel₁ + Σ_{r≥2} rel_r/log₂ r (seed 002; Järvelin & Kekäläinen 2002, and trec_eval 8's `ndcg_cut`)"
	}
	gain := "the truth's relevance value for a relevant item and 0 below the threshold (graded, as trec_eval's gain = relevance level, which counts every positive level: the same at the default threshold 1 with integer levels)"
	if o.NDCGGain == analyses.GainBinary {
		gain = "1 for every relevant item (binary)"
	}
	return fmt.Sprintf(`Per user, from the ranked list and the held-out truth (seed 002, SPEC §5.11), at every cutoff k of %v. A truth item is **relevant** when its relevance is at least %g (trec_eval's relevance_level); a truth file without a relevance column makes every listed item relevant with relevance 1. |T| is the user's number of relevant items, hits the relevant items among the first k ranks.

- **precision@k** = hits/k (k even when the list is shorter, as trec_eval's P_k); **recall@k** = hits/|T|; **f1@k** = 2PR/(P+R), 0 when both are 0.
- **ndcg@k** = DCG@k/IDCG@k, discount %s, gain %s; the ideal list sorts all the user's gains in decreasing order; 0 when the ideal DCG is 0.
- **map@k** = Σ over hits at rank r ≤ k of (hits up to r)/r, divided by |T| (seed 002's AP@N with m = |T|; trec_eval's map_cut_k).
- **mrr@k** = 1/rank of the first hit within k, else 0; **hitrate@k** = 1 when there is a hit within k.
- **rankscore@k** = Σ_hits 2^{-(r-1)/α} / Σ_{i=1}^{min(|T|,k)} 2^{-(i-1)/α}, half-life α = %g (seed 002; the best list puts min(|T|, k) hits first).
- **liftindex@k** = Σ_hits (1 − (r − 1)/k) / hits, 0 without hits (seed 002's decile weights made continuous, SPEC §5.11).

Per run, the values above are averaged over the users. **coverage@k** is the share of the catalog (the truth's items and every item any run of the dataset lists) that reaches rank ≤ k in some list; **novelty@k** is the mean self-information −log₂(n_i/n) over every listed slot of rank ≤ k, n_i the number of truth users holding item i and n the number of truth users (an item no truth user holds counts as held by one). **mae** and **rmse** pool every prediction of the run (seed 002's formulas over all n ratings); per user they are taken over the user's own predictions; the truth's relevance is the true rating.

Users: a truth user without a relevant item is %s (no_relevant = %q); a truth user with relevant items but no list in the run is %s (missing_users = %q; "zero" is trec_eval -c); a run user who is not in the truth is an error. Lists are read in rank order: a table's rank column must run 1, 2, 3, … without a gap or a repeat; TREC runs (and tables with a score but no rank column) are ordered as trec_eval orders them, by score descending with ties broken by item id descending (byte order), and their rank column is ignored, as trec_eval ignores it. Ranks beyond the largest k are read only to check the list.`,
		o.K, o.RelevanceThreshold, disc, gain, o.HalfLife,
		map[bool]string{true: "scored 0 on every metric", false: "left out"}[o.NoRelevant == analyses.RuleZero], o.NoRelevant,
		map[bool]string{true: "scored 0", false: "left out"}[o.MissingUsers == analyses.RuleZero], o.MissingUsers)
}
