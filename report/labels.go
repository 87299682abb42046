package report

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
// without a label is its own label.
func (s *Study) Label(kind LabelKind, id string) string {
	if s == nil {
		return id
	}
	if l, ok := s.labels[kind][id]; ok && l != "" {
		return l
	}
	return id
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
