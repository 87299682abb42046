package manifest

import (
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
)

// LabelKind says what an id names: a label is looked up per kind, since
// a metric and a method may share an id.
type LabelKind int

// The kinds of ids that have labels.
const (
	LabelMetric LabelKind = iota
	LabelMethod
	LabelDataset
	LabelRule
	LabelFeature      // a dataset characteristic ("LTku")
	LabelStrategy     // a dataset-selection strategy ("d_optimal")
	LabelPerturbation // a stability perturbation ("drop_datasets")
	LabelColumn       // a table column or a statistic's id ("friedman_statistic")
)

// Label is the display label of an id on pages and figures: the study's
// Naming (analyses.Naming), the one place names come from — declared
// `[[metrics]]`, `[[methods]]` and `[[datasets]]` labels, the built-in
// rule labels ("DM-AUC", "Mean rank") and the built-in labels of derived
// metrics, features, strategies, perturbations and statistics. Ids stay
// in CSV and JSON; pages show labels. An id without a label is its own
// label; metrics are looked up case-insensitively, as the manifest's
// [[metrics]] are.
func (s *Study) Label(kind LabelKind, id string) string {
	n := s.Naming()
	switch kind {
	case LabelMetric:
		return n.Metric(id)
	case LabelMethod:
		return n.Method(id)
	case LabelDataset:
		return n.Dataset(id)
	case LabelRule:
		return n.Rule(id)
	case LabelFeature:
		return n.Feature(id)
	case LabelStrategy:
		return n.Strategy(id)
	case LabelPerturbation:
		return n.Perturbation(id)
	case LabelColumn:
		return n.Column(id)
	}
	return id
}

// IsBaseline reports whether a method is declared with baseline = true.
func (s *Study) IsBaseline(method string) bool {
	if s == nil {
		return false
	}
	i, ok := s.methodIndex[method]
	return ok && s.Methods[i].Baseline
}

// SetLabel records a display label for an id (the manifest parser calls
// it); an empty label is ignored.
func (s *Study) SetLabel(kind LabelKind, id, label string) {
	if label == "" {
		return
	}
	if s.labels == nil {
		s.labels = map[LabelKind]map[string]string{}
	}
	if s.labels[kind] == nil {
		s.labels[kind] = map[string]string{}
	}
	s.labels[kind][id] = label
}

// Naming is the study's naming (analyses.Naming): every declared label,
// the built-in rule labels and the baselines. Metric labels are keyed by
// the lower-cased [[metrics]] name (Naming.Metric looks a metric up as
// given, then lower-cased).
func (s *Study) Naming() analyses.Naming {
	n := analyses.Naming{Metrics: map[string]string{}, Methods: map[string]string{}, Datasets: map[string]string{}, Rules: map[string]string{}}
	for id, l := range leaderboard.RuleLabels {
		n.Rules[id] = l
	}
	if s == nil {
		return n
	}
	for kind, m := range map[LabelKind]map[string]string{LabelMetric: n.Metrics, LabelMethod: n.Methods, LabelDataset: n.Datasets, LabelRule: n.Rules} {
		for id, l := range s.labels[kind] {
			if kind == LabelMetric {
				id = strings.ToLower(id)
			}
			m[id] = l
		}
	}
	for _, m := range s.Metrics {
		if m.Label != "" {
			n.Metrics[strings.ToLower(m.Name)] = m.Label
		}
	}
	for _, d := range s.Datasets {
		if d.Label != "" {
			n.Datasets[d.Name] = d.Label
		}
	}
	for _, m := range s.Methods {
		if m.Label != "" {
			n.Methods[m.Name] = m.Label
		}
		n.MethodOrder = append(n.MethodOrder, m.Name)
	}
	n.Baselines = s.Baselines()
	return n
}

// NamingWith is Naming with the results' methods, as first seen, after
// the declared ones in MethodOrder: the one order every figure's method
// colours come from.
func (s *Study) NamingWith(res *analyses.Results) analyses.Naming {
	n := s.Naming()
	if res != nil {
		n.MethodOrder = append(n.MethodOrder, res.Methods...)
	}
	return n
}
