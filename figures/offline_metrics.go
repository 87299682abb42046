package figures

// The figures of offline_metrics show how a metric grows with the cutoff
// k, one line per method, averaged over datasets: the picture Jannach et al. (2010)
// draw in words ("with increasing k, position matters less"), and the
// quickest check that a run file was read the right way round.

import (
	"fmt"
	"math"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/offline"
)

// OfflineMetrics draws nDCG@k (figure id) and Coverage@k (id-coverage)
// against k, one line per method, each point the mean over the datasets
// the method has a value on. An offline result has no Naming of its own:
// the caller's (at most one) names the methods by their labels.
func OfflineMetrics(id, title string, r *offline.Result, naming ...analyses.Naming) ([]Figure, error) {
	var n analyses.Naming
	if len(naming) > 0 {
		n = naming[0]
	}
	var out []Figure
	styles := StylesOf(n)
	ks := make([]float64, len(r.K))
	for i, k := range r.K {
		ks[i] = float64(k)
	}
	for _, spec := range []struct{ metric, suffix, label string }{
		{"ndcg", "", "nDCG@k"},
		{"coverage", "-coverage", "Coverage@k"},
	} {
		metric := spec.metric
		f, err := offlineCurve(id+spec.suffix, spec.label, curveAxis{label: "cutoff k", echarts: "k", xs: ks, ticks: true,
			name:    func(i int) string { return fmt.Sprintf("%s@%d", metric, r.K[i]) },
			title:   spec.label + " against the cutoff",
			caption: spec.label + " of each method at every cutoff k", method: n.Method, styles: &styles}, r)
		if err != nil {
			return nil, err
		}
		if f != nil {
			out = append(out, *f)
		}
	}
	// The precision–recall curve: trec_eval's 11-point interpolated
	// precision, one line per run.
	f, err := offlineCurve(id+"-pr", "interpolated precision", curveAxis{label: "recall", echarts: "recall", xs: offline.RecallLevels,
		name:    offline.IprecName,
		title:   "Precision–recall curve (11-point interpolated precision)",
		caption: "Interpolated precision of each method at the recall levels 0, 0.1, …, 1 (trec_eval's iprec_at_recall)", unit: true, method: n.Method, styles: &styles}, r)
	if err != nil {
		return nil, err
	}
	if f != nil {
		out = append(out, *f)
	}
	return out, nil
}

// curveAxis is the x axis of an offline_metrics curve: the points, the
// metric name of each, the labels.
type curveAxis struct {
	label, echarts string
	xs             []float64
	name           func(i int) string
	title, caption string
	// unit fixes the y axis to [0, 1] and puts the legend top right,
	// where a falling curve leaves room (the precision–recall curve).
	unit bool
	// ticks marks the points of the axis alone (the cutoffs 5 and 20,
	// not 3, 6, …, 21).
	ticks bool
	// method names a method in the legends (its label); styles gives
	// its study-wide style.
	method func(string) string
	styles *Styles
}

// offlineCurve is one curve figure of offline_metrics (a line per method
// over the axis ax), nil when no method has a value on it.
func offlineCurve(id, label string, ax curveAxis, r *offline.Result) (*Figure, error) {
	methods, datasets := offlineMethods(r)
	mean, hasValue := offlineMeans(r, methods, ax)
	if !hasValue {
		return nil, nil
	}
	over := "on the dataset"
	if datasets > 1 {
		over = fmt.Sprintf("averaged over the %d datasets on which the method has a value", datasets)
	}
	pn := Panel{X: NewAxis(ax.label), Y: NewAxis(label)}
	if ax.ticks {
		pn.X.Ticks = append([]float64(nil), ax.xs...)
	}
	if ax.unit {
		pn.Y = pn.Y.Fixed(0, 1)
	}
	for mi, m := range methods {
		pn.Marks = append(pn.Marks, Mark{Kind: MarkLine, Series: ax.method(m), Style: ax.styles.Method(m), WithPoints: true,
			X: append([]float64(nil), ax.xs...), Y: mean[mi]})
	}
	s := &Spec{Panels: []Panel{pn}, Legend: LegendRight, Width: 7, Height: 4,
		Subject: fmt.Sprintf("%s of %d methods", strings.ToLower(ax.title), len(methods)),
		Caption: fmt.Sprintf("%s, %s.", ax.caption, over)}
	f, err := FigureOf(s, id, ax.title, 420)
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// offlineMethods returns the methods of the runs in their first order and
// the number of datasets.
func offlineMethods(r *offline.Result) ([]string, int) {
	var methods []string
	seen := map[string]bool{}
	datasets := map[string]bool{}
	for _, run := range r.Runs {
		if !seen[run.Method] {
			seen[run.Method] = true
			methods = append(methods, run.Method)
		}
		datasets[run.Dataset] = true
	}
	return methods, len(datasets)
}

// offlineMeans returns mean[m][ki], each method's value at each point of
// the axis averaged over the datasets with a value (NaN without one), and
// whether any has a value.
func offlineMeans(r *offline.Result, methods []string, ax curveAxis) ([][]float64, bool) {
	mean := make([][]float64, len(methods))
	hasValue := false
	byMethod := make(map[string][]int, len(methods)) // the runs of each method
	for i, run := range r.Runs {
		byMethod[run.Method] = append(byMethod[run.Method], i)
	}
	for mi, m := range methods {
		mean[mi] = make([]float64, len(ax.xs))
		for ki := range ax.xs {
			var s float64
			n := 0
			for _, i := range byMethod[m] {
				if v := r.Runs[i].Values[ax.name(ki)]; v != nil {
					s += *v
					n++
				}
			}
			mean[mi][ki] = math.NaN()
			if n > 0 {
				mean[mi][ki] = s / float64(n)
				hasValue = true
			}
		}
	}
	return mean, hasValue
}
