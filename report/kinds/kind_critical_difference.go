package kinds

// Registration of critical_difference: the results matrix of
// one metric, paired by dataset name (Results.Matrix looks every cell up
// by name, never by row order), handed to significance.CriticalDifference
// with this analysis's own Monte Carlo seed.

import (
	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/significance"
	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report/manifest"
)

func init() { register(criticalDifferenceKind) }

func criticalDifferenceKind() Kind {
	k := NewKind("critical_difference",
		"Friedman, Iman–Davenport and Nemenyi tests, pairwise Wilcoxon–Holm and Bayesian signed-rank tests, and the CD diagram (Shevchenko et al. 2024, Fig. 4; Demšar 2006)",
		runCriticalDifference)
	return metricTitle(k, "Critical differences", func(o *significance.CriticalDifferenceOptions) string { return o.Metric })
}

func runCriticalDifference(job *Job, o *significance.CriticalDifferenceOptions) (*Output, error) {
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
	if err := analyses.CheckMatrixSize(len(in.Datasets), len(in.Methods), true); err != nil {
		return nil, err
	}
	job.Progress().Step("critical_difference: "+job.ID, 0, 1)
	r, err := significance.CriticalDifference(significance.CriticalDifferenceInput{AggregateInput: in, Seed: job.Seed, Jobs: job.Workers}, *o)
	if err != nil {
		return nil, err
	}
	r.Naming = job.Study.NamingWith(res)
	job.Progress().Step("critical_difference: "+job.ID, 1, 1)
	figs, err := figures.CriticalDifference(job.ID, job.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: CriticalDifferenceMethod(r)}, nil
}

// CriticalDifferenceMethod is the method note (notes/critical_difference.md).
func CriticalDifferenceMethod(r *significance.CriticalDifferenceResult) string {
	d := struct {
		NemenyiQ, Alpha, Rope, Confidence float64
		K, Pairs, Samples                 int
		ZeroMethod                        string
		Bayesian                          bool
		Significant                       []string // "a vs b" of each significant pair
		Auto                              []string // the automatic choice's report (test = "auto")
	}{NemenyiQ: r.NemenyiQ, Alpha: r.Alpha, Rope: r.Rope, Confidence: 1 - r.Alpha,
		K: len(r.Methods), Pairs: len(r.Pairs), Samples: r.Samples, ZeroMethod: r.ZeroMethod, Bayesian: r.Bayesian}
	d.Auto = r.Report()
	for _, p := range r.Pairs {
		if p.Significant {
			d.Significant = append(d.Significant, markdownText(r.Naming.Method(p.A))+" vs "+markdownText(r.Naming.Method(p.B)))
		}
	}
	return methodNote("critical_difference", d)
}
