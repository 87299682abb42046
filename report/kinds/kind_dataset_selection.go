package kinds

import (
	"fmt"
	"github.com/evalbook/evalbook/analyses"

	dsets "github.com/evalbook/evalbook/analyses/datasets"
	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report/manifest"
)

func init() { register(datasetSelectionKind) }

func datasetSelectionKind() Kind {
	k := NewKind("dataset_selection", "which few datasets rank methods like all of them: random, k-means, D- and A-optimal choices over seeded simulations (Shevchenko et al. 2024, §4.4, Table 4)", runDatasetSelection)
	return Titled(k, func(s *manifest.Study, o *dsets.SelectionOptions) string {
		return titleOf("Dataset selection", metricLabels(s, o.Metrics))
	})
}

func runDatasetSelection(job *Job, o *dsets.SelectionOptions) (*Output, error) {
	res, err := job.Results()
	if err != nil {
		return nil, err
	}
	if err := manifest.CheckNames("metric", o.Metrics, res.Metrics); err != nil {
		return nil, err
	}
	datasets := o.Datasets
	if len(datasets) == 0 {
		// Datasets with both characteristics and results.
		ch, err := job.Characteristics()
		if err != nil {
			return nil, err
		}
		if ch != nil {
			inRes := map[string]bool{}
			for _, d := range res.Datasets {
				inRes[d] = true
			}
			for _, d := range ch.Datasets {
				if inRes[d] {
					datasets = append(datasets, d)
				}
			}
			if len(datasets) == 0 {
				return nil, fmt.Errorf("no dataset has both characteristics and results (characteristics name e.g. %q, results e.g. %q)", ch.Datasets[0], res.Datasets[0])
			}
		}
	} else if err := manifest.CheckNames("dataset", datasets, res.Datasets); err != nil {
		return nil, err
	}
	datasets, features, x, err := clustersFeatures(job, datasets, o.Features)
	if err != nil {
		return nil, err
	}
	methods := o.Methods
	if len(methods) == 0 {
		methods = res.Methods
	} else if err := manifest.CheckNames("method", methods, res.Methods); err != nil {
		return nil, err
	}
	if err := analyses.CheckMatrixSize(len(datasets), len(methods), false); err != nil {
		return nil, err
	}
	in := dsets.SelectionInput{Datasets: datasets, Features: features, X: x, Methods: methods, Seed: job.Seed, Jobs: job.Workers}
	for _, m := range o.Metrics {
		in.Metrics = append(in.Metrics, job.Metric(m))
		in.Q = append(in.Q, res.Matrix(m, datasets, methods))
	}
	progress := job.Progress()
	label := "dataset_selection: " + job.ID
	in.Progress = func(done, total int) {
		if done == total || done%10 == 0 {
			progress.Step(label, done, total)
		}
	}
	r, err := dsets.Selection(in, *o)
	if err != nil {
		return nil, err
	}
	r.Naming = job.Study.NamingWith(res)
	figs, err := figures.Selection(job.ID, job.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: SelectionMethod(r, o)}, nil
}

// SelectionMethod is the method note (notes/dataset_selection.md).
func SelectionMethod(r *dsets.SelectionResult, o *dsets.SelectionOptions) string {
	return methodNote("dataset_selection", struct {
		Size, Datasets, Simulations, Components, Start int
		Epsilon                                        float64
		Rule                                           string
	}{r.Size, len(r.Datasets), r.Simulations, o.Components, o.Start, o.Epsilon, r.Naming.Rule(r.Rule)})
}
