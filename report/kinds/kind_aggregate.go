package kinds

import (
	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report/manifest"
)

func init() { register(aggregateKind) }

func aggregateKind() Kind {
	k := NewKind("aggregate", "one leaderboard over many datasets under eleven aggregation rules (Shevchenko et al. 2024, §3.4, Table 2)", runAggregate)
	return metricTitle(k, "Leaderboard", func(o *leaderboard.AggregateOptions) string { return o.Metric })
}

func runAggregate(job *Job, o *leaderboard.AggregateOptions) (*Output, error) {
	res, err := job.Results()
	if err != nil {
		return nil, err
	}
	in, err := matrixInput(res, job.Metric(o.Metric), o.Datasets, o.Methods)
	if err != nil {
		return nil, err
	}
	if err := manifest.CheckDeclared(job.Study, res); err != nil {
		return nil, err
	}
	r, err := leaderboard.Aggregate(in, *o)
	if err != nil {
		return nil, err
	}
	r.Naming = job.Study.NamingWith(res)
	figs, err := figures.Aggregate(job.ID, job.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: AggregateMethod()}, nil
}

// AggregateMethod is the method note (notes/aggregate.md).
func AggregateMethod() string { return methodNote("aggregate", nil) }

// matrixInput builds q[d][m] for a metric, over the named subsets (all
// when empty), checking that the names exist.
func matrixInput(res *analyses.Results, metric analyses.Metric, datasets, methods []string) (leaderboard.AggregateInput, error) {
	if err := manifest.CheckNames("metric", []string{metric.Name}, res.Metrics); err != nil {
		return leaderboard.AggregateInput{}, err
	}
	if len(datasets) == 0 {
		datasets = res.Datasets
	} else if err := manifest.CheckNames("dataset", datasets, res.Datasets); err != nil {
		return leaderboard.AggregateInput{}, err
	}
	if len(methods) == 0 {
		methods = res.Methods
	} else if err := manifest.CheckNames("method", methods, res.Methods); err != nil {
		return leaderboard.AggregateInput{}, err
	}
	if err := analyses.CheckMatrixSize(len(datasets), len(methods), false); err != nil {
		return leaderboard.AggregateInput{}, err
	}
	return leaderboard.AggregateInput{Metric: metric, Datasets: datasets, Methods: methods,
		Q: res.Matrix(metric.Name, datasets, methods)}, nil
}
