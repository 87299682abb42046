package kinds

// Registration of metric_correlation: gathers one matrix per
// metric from the results and hands them to the pure analysis.

import (
	"fmt"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/correlation"
	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report/manifest"
)

func init() { register(metricCorrelationKind) }

func metricCorrelationKind() Kind {
	k := NewKind("metric_correlation", "how metrics agree: per-dataset correlation across methods, averaged over datasets (Shevchenko et al. 2024, §4.1, Fig. 2)", runMetricCorrelation)
	return Titled(k, func(s *manifest.Study, o *correlation.Options) string { return "Metric correlation" })
}

func runMetricCorrelation(job *Job, o *correlation.Options) (*Output, error) {
	res, err := job.Results()
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("metric_correlation needs results ([inputs] results)")
	}
	names := o.Metrics
	if len(names) == 0 {
		names = res.Metrics
	} else if err := manifest.CheckNames("metric", names, res.Metrics); err != nil {
		return nil, err
	}
	if len(names) < 2 {
		return nil, fmt.Errorf("metric_correlation needs at least two metrics; the results have %d", len(names))
	}
	if len(names) > analyses.MaxCorrelationMetrics {
		// Checked before the per-metric matrices are formed: 100 000
		// metrics would make a 10¹⁰-cell matrix and table.
		return nil, fmt.Errorf("metric_correlation over %d metrics is above the limit of %d metrics in one correlation matrix; list the metrics to correlate in `metrics = [...]`", len(names), analyses.MaxCorrelationMetrics)
	}
	if err := analyses.CheckMatrixSize(len(res.Datasets), len(res.Methods), false); err != nil {
		return nil, err
	}
	in := correlation.Input{Datasets: res.Datasets, Methods: res.Methods}
	for _, n := range names {
		in.Metrics = append(in.Metrics, job.Metric(n))
		in.Values = append(in.Values, res.Matrix(n, res.Datasets, res.Methods))
	}
	r, err := correlation.Analyze(in, *o)
	if err != nil {
		return nil, err
	}
	r.Naming = job.Study.Naming()
	figs, err := figures.MetricCorrelation(job.ID, job.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: MetricCorrelationMethod(r)}, nil
}

// MetricCorrelationMethod is the method note (notes/metric_correlation.md).
func MetricCorrelationMethod(r *correlation.Result) string {
	return methodNote("metric_correlation", struct {
		Method string // spearman, pearson or kendall
		Raw    bool
	}{r.Method, r.Raw})
}
