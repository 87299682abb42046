package figures

import (
	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
)

// One style per method for the whole study: a method's colour, dash and
// symbol come from its place in the study's naming order
// (analyses.Naming.MethodOrder: the declared [[methods]], then the
// results' methods as first seen), so EASE is the same blue on every
// page, in light and dark, in the SVG, PDF, PNG and ECharts option.
// Aggregation rules take theirs from the rules' fixed order
// (leaderboard.AllRules).

// symbolCycle are the symbols in the order styles take them: with 8
// colours and 7 symbols, the first 56 styles differ in colour or symbol
// (and from the 9th on in dash too).
var symbolCycle = []Symbol{Circle, Square, Triangle, Diamond, Cross, Plus, Ring}

// StyleAt is the i-th style: the i-th palette colour (cycling), the i-th
// symbol (cycling), solid for the first round of the palette, then
// dashed, then dotted.
func StyleAt(i int) Style {
	if i < 0 {
		i = 0
	}
	dash := []Dash{Solid, Dashed, Dotted}[(i/len(Palette))%3]
	return Style{Colour: Colour(i), Dash: dash, Symbol: symbolCycle[i%len(symbolCycle)]}
}

// Styles maps identities (methods, rules) to their styles for one study.
type Styles struct {
	methods map[string]int
	rules   map[string]int
}

// StylesOf is the study's styles from its naming.
func StylesOf(n analyses.Naming) Styles {
	s := Styles{methods: map[string]int{}, rules: map[string]int{}}
	for _, m := range n.MethodOrder {
		if _, ok := s.methods[m]; !ok {
			s.methods[m] = len(s.methods)
		}
	}
	for i, r := range leaderboard.AllRules {
		s.rules[r] = i
	}
	return s
}

// Method is a method's style. A method outside the naming order (a
// result built without one, in tests) takes the style after every
// named method's, in the order asked.
func (s *Styles) Method(id string) Style {
	if s.methods == nil {
		s.methods = map[string]int{}
	}
	i, ok := s.methods[id]
	if !ok {
		i = len(s.methods)
		s.methods[id] = i
	}
	return StyleAt(i)
}

// Rule is an aggregation rule's style.
func (s *Styles) Rule(id string) Style {
	if i, ok := s.rules[id]; ok {
		return StyleAt(i)
	}
	if s.rules == nil {
		s.rules = map[string]int{}
	}
	i := len(s.rules)
	s.rules[id] = i
	return StyleAt(i)
}
