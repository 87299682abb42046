package report

import (
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses"
	dsets "github.com/evalbook/evalbook/analyses/datasets"
	"github.com/evalbook/evalbook/figures"
)

func clustersKind() Kind {
	return NewKind("clusters", "groups of similar datasets by their characteristics: PCA, Isolation Forest, k-means, per-cluster leaderboards (seed 001 §4.4, Table 5, Fig. 8)", runClusters)
}

func runClusters(ctx *Context, o *dsets.ClustersOptions) (*Output, error) {
	datasets, features, x, err := clustersFeatures(ctx, o.Datasets, o.Features)
	if err != nil {
		return nil, err
	}
	in := dsets.ClustersInput{Datasets: datasets, Features: features, X: x, Seed: ctx.Seed, Jobs: ctx.Jobs}
	if o.Metric != "" {
		methods, q, err := resultsMatrix(ctx, o.Metric, datasets, o.Methods)
		if err != nil {
			return nil, err
		}
		m := ctx.Metric(o.Metric)
		in.Metric, in.Methods, in.Q = &m, methods, q
	}
	if o.Compare != "" {
		in.Reference = make([]string, len(datasets))
		for i, d := range datasets {
			in.Reference[i] = ctx.Dataset(d).Attrs[o.Compare]
		}
	}
	r, err := dsets.Clusters(in, *o)
	if err != nil {
		return nil, err
	}
	figs, err := figures.Clusters(ctx.ID, ctx.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: clustersMethod(r, o)}, nil
}

// clustersFeatures gathers the dataset features X[d][f] that clusters and
// dataset_selection work on, from the study's `characteristics` input
// (SPEC §3), over the named subsets (all when empty). A missing value is
// NaN; the analyses report it. This is the one place to change when the
// features should come from elsewhere (for instance a `characteristics`
// analysis computed from interaction logs).
func clustersFeatures(ctx *Context, datasets, features []string) ([]string, []string, [][]float64, error) {
	ch, err := ctx.Characteristics()
	if err != nil {
		return nil, nil, nil, err
	}
	if ch == nil || len(ch.Datasets) == 0 {
		return nil, nil, nil, fmt.Errorf("no dataset characteristics: add `characteristics = \"…\"` to [inputs] (columns dataset,feature,value or dataset,<feature…>)")
	}
	if len(datasets) == 0 {
		datasets = ch.Datasets
	} else if err := clustersCheckNames("dataset", datasets, ch.Datasets); err != nil {
		return nil, nil, nil, err
	}
	if len(features) == 0 {
		features = ch.Features
	} else if err := clustersCheckNames("feature", features, ch.Features); err != nil {
		return nil, nil, nil, err
	}
	x := make([][]float64, len(datasets))
	for i, d := range datasets {
		x[i] = make([]float64, len(features))
		for j, f := range features {
			v, ok := ch.Value[d][f]
			if !ok {
				v = math.NaN()
			}
			x[i][j] = v
		}
	}
	return datasets, features, x, nil
}

func clustersCheckNames(what string, names, known []string) error {
	set := make(map[string]bool, len(known))
	for _, k := range known {
		set[k] = true
	}
	for _, n := range names {
		if !set[n] {
			return fmt.Errorf("no %s %q in the characteristics%s", what, n, analyses.NameHint(n, known))
		}
	}
	return nil
}

// clustersMethod is the method note (notes/clusters.md).
func clustersMethod(r *dsets.ClustersResult, o *dsets.ClustersOptions) string {
	d := struct {
		Features, Components, Trees, Inits, MaxIter, K, KMin, KMax int
		IsolationForest, KFixed, HasARI                            bool
		Threshold, Contamination, QuantilePct, ARI                 float64
		Metric, Compare                                            string
	}{Features: len(r.Features), Components: len(r.ExplainedVariance), Trees: o.Trees, Inits: o.Inits,
		MaxIter: o.MaxIter, K: r.K, KMin: o.KRange[0], KMax: o.KRange[1],
		IsolationForest: o.Outliers == "isolation_forest", KFixed: r.KFixed,
		Threshold: r.Threshold, Contamination: o.Contamination, QuantilePct: 100 * (1 - o.Contamination),
		Metric: r.Metric, Compare: r.Compare}
	if r.AdjustedRandIndex != nil {
		d.HasARI, d.ARI = true, *r.AdjustedRandIndex
	}
	return methodNote("clusters", d)
}
