package kinds

import (
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses"
	dsets "github.com/evalbook/evalbook/analyses/datasets"
	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

func init() { register(clustersKind) }

func clustersKind() Kind {
	k := NewKind("clusters", "groups of similar datasets by their characteristics: PCA, Isolation Forest, k-means, per-cluster leaderboards (Shevchenko et al. 2024, §4.4, Table 5, Fig. 8)", runClusters)
	k.Check = func(s *manifest.Study, opts any) error { return checkCompare(s, opts.(*dsets.ClustersOptions).Compare) }
	return metricTitle(k, "Dataset clusters", func(o *dsets.ClustersOptions) string { return o.Metric })
}

// checkCompare requires the compare attribute to be declared by at least
// one [[datasets]] entry: a misspelt one ("papercluster") would otherwise
// leave every dataset unlabelled and the adjusted Rand index null.
func checkCompare(s *manifest.Study, attr string) error {
	if attr == "" {
		return nil
	}
	seen := map[string]bool{}
	for _, d := range s.Datasets {
		if _, ok := d.Attrs[attr]; ok {
			return nil
		}
		for a := range d.Attrs {
			seen[a] = true
		}
	}
	if len(seen) == 0 {
		return analyses.OptionErrorf("compare", "no [[datasets]] entry has an attribute %q (declare it, e.g. [[datasets]] name = \"…\", %s = \"…\")", attr, attr)
	}
	return analyses.OptionErrorf("compare", "no [[datasets]] entry has an attribute %q%s", attr, analyses.NameHint(attr, analyses.SortedKeys(seen)))
}

func runClusters(job *Job, o *dsets.ClustersOptions) (*Output, error) {
	datasets, features, x, err := clustersFeatures(job, o.Datasets, o.Features)
	if err != nil {
		return nil, err
	}
	in := dsets.ClustersInput{Datasets: datasets, Features: features, X: x, Seed: job.Seed, Jobs: job.Workers}
	if o.Metric != "" {
		methods, q, err := resultsMatrix(job, o.Metric, datasets, o.Methods)
		if err != nil {
			return nil, err
		}
		m := job.Metric(o.Metric)
		in.Metric, in.Methods, in.Q = &m, methods, q
	}
	if o.Compare != "" {
		in.Reference = make([]string, len(datasets))
		for i, d := range datasets {
			in.Reference[i] = job.Dataset(d).Attrs[o.Compare]
		}
	}
	r, err := dsets.Clusters(in, *o)
	if err != nil {
		return nil, err
	}
	r.Naming = job.Study.Naming()
	figs, err := figures.Clusters(job.ID, job.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: ClustersMethod(r, o)}, nil
}

// clustersFeatures gathers the dataset features X[d][f] that clusters and
// dataset_selection work on, from the study's `characteristics` input,
// over the named subsets (all when empty). A missing value is NaN; the
// analyses report it. This is the one place to change when the
// features should come from elsewhere (for instance a `characteristics`
// analysis computed from interaction logs).
func clustersFeatures(job *Job, datasets, features []string) ([]string, []string, [][]float64, error) {
	ch, err := job.Characteristics()
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
	} else if features, err = selectFeatures(features, ch.Features); err != nil {
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

// selectFeatures resolves the features an analysis names against the
// known ones. Feature names compare ignoring case and underscores, as the
// characteristics are read (Ginii is Gini_i), and the known spelling is
// returned; naming one feature twice is an error, since it would give a
// table two columns of one name and count the feature twice in PCA.
func selectFeatures(names, known []string) ([]string, error) {
	byKey := map[string]string{}
	for _, k := range known {
		byKey[load.CharFeatureKey(k)] = k
	}
	out := make([]string, len(names))
	first := map[string]string{}
	for i, n := range names {
		k, ok := byKey[load.CharFeatureKey(n)]
		if !ok {
			return nil, analyses.OptionErrorf("features", "no feature %q in the characteristics%s", n, analyses.NameHint(n, known))
		}
		if prev, dup := first[k]; dup {
			if prev == n {
				return nil, analyses.OptionErrorf("features", "feature %q is named twice", n)
			}
			return nil, analyses.OptionErrorf("features", "%q and %q are one feature, %q (feature names ignore case and underscores); name it once", prev, n, k)
		}
		first[k] = n
		out[i] = k
	}
	return out, nil
}

// ClustersMethod is the method note (notes/clusters.md).
func ClustersMethod(r *dsets.ClustersResult, o *dsets.ClustersOptions) string {
	d := struct {
		Features, Components, Trees, Inits, MaxIter, K, KMin, KMax int
		IsolationForest, KFixed, HasARI                            bool
		Threshold, Contamination, QuantilePct, ARI                 float64
		Metric, Compare                                            string
	}{Features: len(r.Features), Components: len(r.ExplainedVariance), Trees: o.Trees, Inits: o.Inits,
		MaxIter: o.MaxIter, K: r.K, KMin: o.KRange[0], KMax: o.KRange[1],
		IsolationForest: o.Outliers == "isolation_forest", KFixed: r.KFixed,
		Threshold: r.Threshold, Contamination: o.Contamination, QuantilePct: 100 * (1 - o.Contamination),
		Metric: markdownText(r.Naming.Metric(r.Metric)), Compare: r.Compare}
	if r.AdjustedRandIndex != nil {
		d.HasARI, d.ARI = true, *r.AdjustedRandIndex
	}
	return methodNote("clusters", d)
}
