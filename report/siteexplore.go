package report

// The Explore page's data (site.Model.Explore): the study's values of
// every dataset, method and metric, and the first published aggregate,
// critical_difference and stability analyses with their options, which
// the page recomputes on a reader's view (report/site/explore).

import (
	"fmt"
	"io"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/analyses/significance"
	"github.com/evalbook/evalbook/report/manifest"
	"github.com/evalbook/evalbook/report/site/explore"
)

// exploreRuns are the analyses the Explore page recomputes: the first
// aggregate that ran, and the first critical_difference that ran on its
// metric (the page shows one metric at a time), or the first one when
// the study has no aggregate.
func exploreRuns(runs []analysisRun) (agg, cd *analysisRun) {
	metric := ""
	for i := range runs {
		if o, ok := runs[i].Spec.Options.(*leaderboard.AggregateOptions); ok && runs[i].Output != nil {
			agg, metric = &runs[i], o.Metric
			break
		}
	}
	for i := range runs {
		if o, ok := runs[i].Spec.Options.(*significance.CriticalDifferenceOptions); ok && runs[i].Output != nil && (agg == nil || o.Metric == metric) {
			return agg, &runs[i]
		}
	}
	return agg, nil
}

// exploreStability is the first stability analysis that ran on the
// page's metric.
func exploreStability(runs []analysisRun, metric string) *explore.Stability {
	for i := range runs {
		if o, ok := runs[i].Spec.Options.(*leaderboard.StabilityOptions); ok && runs[i].Output != nil && o.Metric == metric {
			return &explore.Stability{ID: runs[i].Spec.ID, Seed: runs[i].Seed, Options: *o}
		}
	}
	return nil
}

// exploreData is the Explore page's data, or nil when the study has no
// analysis it recomputes or the binary lacks its module (warned on w).
func exploreData(study *manifest.Study, runs []analysisRun, results func() (*analyses.Results, error), wasm bool, w io.Writer) *explore.Data {
	agg, cd := exploreRuns(runs)
	if agg == nil && cd == nil {
		return nil
	}
	if !wasm {
		if w != nil {
			fmt.Fprintln(w, "evalbook: warning: the Explore page's WebAssembly module was not built into this binary (run `make assets` with a Go toolchain that has GOOS=js GOARCH=wasm, then rebuild); the site has no Explore page")
		}
		return nil
	}
	res, err := results()
	if err != nil || res == nil {
		if w != nil {
			fmt.Fprintf(w, "evalbook: warning: no Explore page: the results could not be read again (%v)\n", err)
		}
		return nil
	}
	d := &explore.Data{Naming: study.NamingWith(res), Datasets: res.Datasets, Methods: res.Methods, Values: map[string][][]*float64{}}
	var sub struct {
		metric            string
		datasets, methods []string
	}
	if agg != nil {
		o := agg.Spec.Options.(*leaderboard.AggregateOptions)
		d.Aggregate = &explore.Aggregate{ID: agg.Spec.ID, Options: *o}
		d.Published.Rules = o.Rules
		sub.metric, sub.datasets, sub.methods = o.Metric, o.Datasets, o.Methods
	}
	if cd != nil {
		o := cd.Spec.Options.(*significance.CriticalDifferenceOptions)
		d.CriticalDifference = &explore.CriticalDifference{ID: cd.Spec.ID, Seed: cd.Seed, Options: *o}
		if agg == nil {
			sub.metric, sub.datasets, sub.methods = o.Metric, o.Datasets, o.Methods
		}
	}
	for _, m := range res.Metrics {
		q, n := values(res.Matrix(m, res.Datasets, res.Methods))
		if m != sub.metric && 2*n < len(res.Datasets)*len(res.Methods) {
			continue // mostly missing (a metric derived for a few datasets): no leaderboard to explore
		}
		sm := study.Metric(m)
		em := explore.Metric{Name: m, HigherIsBetter: sm.Better == analyses.HigherIsBetter}
		if analyses.Finite(sm.Max) {
			em.Max = &sm.Max
		}
		d.Metrics = append(d.Metrics, em)
		d.Values[m] = q
	}
	d.Published.Metric = sub.metric
	d.Stability = exploreStability(runs, sub.metric)
	d.Published.Datasets, d.Published.Methods = orAll(sub.datasets, res.Datasets), orAll(sub.methods, res.Methods)
	return d
}

// values is a matrix with its missing cells (NaN) as nil, for JSON, and
// how many cells it has.
func values(q analyses.Matrix) ([][]*float64, int) {
	out, n := make([][]*float64, len(q)), 0
	for i, row := range q {
		out[i] = make([]*float64, len(row))
		for j := range row {
			if v := row[j]; analyses.Finite(v) {
				out[i][j] = &v
				n++
			}
		}
	}
	return out, n
}

func orAll(subset, all []string) []string {
	if len(subset) > 0 {
		return subset
	}
	return all
}
