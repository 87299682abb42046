package analyses

import "strings"

// Naming says how a finding names things: the display label of an id
// (`[[metrics]] label = "nDCG@10"`, built-in rule labels, optional method
// and dataset labels) and which methods are baselines (declared with
// `baseline = true`), which a finding never makes its headline. Ids stay
// in tables and JSON; only the words of Highlight use labels. The zero
// value names every id by itself and knows no baseline.
type Naming struct {
	Metrics, Methods, Datasets, Rules map[string]string
	Baselines                         []string
	// MethodOrder is the study's methods in its naming order (declared
	// [[methods]] first, then the results' methods as first seen): each
	// method's colour, dash and symbol in every figure derive from it.
	MethodOrder []string
}

func label(m map[string]string, id string) string {
	if l, ok := m[id]; ok && l != "" {
		return l
	}
	return id
}

// Metric is a metric's label.
func (n Naming) Metric(id string) string { return label(n.Metrics, id) }

// Method is a method's label.
func (n Naming) Method(id string) string { return label(n.Methods, id) }

// Dataset is a dataset's label.
func (n Naming) Dataset(id string) string { return label(n.Datasets, id) }

// Rule is an aggregation rule's label.
func (n Naming) Rule(id string) string { return label(n.Rules, id) }

// IsBaseline reports whether a method is a declared baseline.
func (n Naming) IsBaseline(method string) bool {
	for _, b := range n.Baselines {
		if b == method {
			return true
		}
	}
	return false
}

// MethodList names methods by their labels: "A", "A and B", "A, B and C".
func (n Naming) MethodList(ids []string) string {
	l := make([]string, len(ids))
	for i, id := range ids {
		l[i] = n.Method(id)
	}
	return JoinAnd(l)
}

// JoinAnd joins words as prose: "a", "a and b", "a, b and c".
func JoinAnd(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
