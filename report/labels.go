package report

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
)

// Label is the display label of an id on pages and figures (issue 20:
// `[[metrics]] label = "nDCG@10"`, built-in rule labels, optional method
// and dataset labels). Ids stay in CSV and JSON; pages show labels. An id
// without a label is its own label. Rules have built-in labels
// ("DM-AUC", "Mean rank"); metrics are looked up case-insensitively, as
// the manifest's [[metrics]] are.
func (s *Study) Label(kind LabelKind, id string) string {
	if s != nil {
		if l, ok := s.labels[kind][id]; ok && l != "" {
			return l
		}
		if kind == LabelMetric {
			if i, ok := s.metricIndex[strings.ToLower(id)]; ok && s.Metrics[i].Label != "" {
				return s.Metrics[i].Label
			}
		}
	}
	if kind == LabelRule {
		if l, ok := leaderboard.RuleLabels[id]; ok {
			return l
		}
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

// setLabel records a display label for an id (the manifest parser calls
// it); an empty label is ignored.
func (s *Study) setLabel(kind LabelKind, id, label string) {
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

// Naming is what findings need to name things: every declared label, the
// built-in rule labels and the baselines (analyses.Naming).
func (s *Study) Naming() analyses.Naming {
	n := analyses.Naming{Metrics: map[string]string{}, Methods: map[string]string{}, Datasets: map[string]string{}, Rules: map[string]string{}}
	for id, l := range leaderboard.RuleLabels {
		n.Rules[id] = l
	}
	if s == nil {
		return n
	}
	for _, m := range s.Metrics {
		if m.Label != "" {
			n.Metrics[m.Name] = m.Label
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
