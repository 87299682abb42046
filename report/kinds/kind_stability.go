package kinds

// Why this file exists: it registers the `stability` analysis
// and gathers its matrix from the study's results, exactly as `aggregate`
// does, so that a stability page studies the same leaderboard.

import (
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report/manifest"
)

func init() { register(stabilityKind) }

func stabilityKind() Kind {
	k := NewKind("stability", "how each aggregation rule's ranking reacts to removing datasets or methods, adding a near-copy or a new best method, and changing β̂ (Shevchenko et al. 2024, §4.2.3, Figs 5, 6, 9, Table 3)", runStability)
	return metricTitle(k, "Stability of the rankings", func(o *leaderboard.StabilityOptions) string { return o.Metric })
}

func runStability(job *Job, o *leaderboard.StabilityOptions) (*Output, error) {
	res, err := job.Results()
	if err != nil {
		return nil, err
	}
	m, err := matrixInput(res, job.Metric(o.Metric), o.Datasets, o.Methods)
	if err != nil {
		return nil, err
	}
	if err := manifest.CheckDeclared(job.Study, res); err != nil {
		return nil, err
	}
	if err := manifest.CheckStabilityWork(o, len(m.Datasets), len(m.Methods)); err != nil {
		return nil, err
	}
	in := leaderboard.StabilityInput{Metric: m.Metric, Datasets: m.Datasets, Methods: m.Methods, Q: m.Q,
		Seed: job.Seed, Jobs: job.Workers}
	if p := job.Progress(); p != nil {
		in.Progress = p.Step
	}
	r, err := leaderboard.Stability(in, *o)
	if err != nil {
		return nil, err
	}
	r.Naming = job.Study.NamingWith(res)
	figs, err := figures.Stability(job.ID, job.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: StabilityMethod()}, nil
}

// StabilityMethod is the method note (notes/stability.md).
func StabilityMethod() string { return methodNote("stability", nil) }
