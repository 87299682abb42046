package report

import (
	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures"
)

func aggregateKind() Kind {
	return NewKind("aggregate", "one leaderboard over many datasets under eleven aggregation rules (seed 001 §3.4, Table 2)", runAggregate)
}

func runAggregate(ctx *Context, o *analyses.AggregateOptions) (*Output, error) {
	res, err := ctx.Results()
	if err != nil {
		return nil, err
	}
	in, err := matrixInput(res, ctx.Metric(o.Metric), o.Datasets, o.Methods)
	if err != nil {
		return nil, err
	}
	r, err := analyses.Aggregate(in, *o)
	if err != nil {
		return nil, err
	}
	figs, err := figures.Aggregate(ctx.ID, ctx.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: aggregateMethod}, nil
}

const aggregateMethod = `Each rule turns the matrix q[d][m] of the metric (one value per dataset and method, averaged over runs) into one score per method, after seed 001 §3.4 and Table 2.
**mean_rank** averages the per-dataset ranks (1 = best, ties share the average rank). **mean**, **geometric_mean** and **harmonic_mean** average the raw values (scipy's gmean and hmean; a 0 gives 0).
**dm_auc** is the area under the Dolan–Moré performance profile ρ(β), the share of datasets on which a method is within a factor β of the best, on the grid β = 1, 1.1, …, β̂ by the trapezoid rule, normalised so the areas sum to 1. **dm_lbo** ranks by repeatedly taking the best DM-AUC method out and recomputing on the rest.
**copeland** counts majority wins minus losses over pairs of methods; **minimax** scores a method by minus the largest number of datasets on which a method that beats it by majority is better (0 when none does). **borda** sums M − rank, **plurality** counts datasets won (a tie for first is shared), **dowdall** sums 1/rank.
Each rule's ranks (` + "`<rule>_rank`" + `) are 1 = best with average ranks for ties.`

// matrixInput builds q[d][m] for a metric, over the named subsets (all
// when empty), checking that the names exist.
func matrixInput(res *analyses.Results, metric analyses.Metric, datasets, methods []string) (analyses.AggregateInput, error) {
	if err := checkNames("metric", []string{metric.Name}, res.Metrics); err != nil {
		return analyses.AggregateInput{}, err
	}
	if len(datasets) == 0 {
		datasets = res.Datasets
	} else if err := checkNames("dataset", datasets, res.Datasets); err != nil {
		return analyses.AggregateInput{}, err
	}
	if len(methods) == 0 {
		methods = res.Methods
	} else if err := checkNames("method", methods, res.Methods); err != nil {
		return analyses.AggregateInput{}, err
	}
	return analyses.AggregateInput{Metric: metric, Datasets: datasets, Methods: methods,
		Q: res.Matrix(metric.Name, datasets, methods)}, nil
}
