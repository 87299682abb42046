package model

import (
	"fmt"
	"image/color"

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

// Palette is the site's series palette, for the static figures and (by
// way of the site's colour map) the interactive charts: eight colours
// that stay apart for the common colour-vision deficiencies, each with at
// least 3:1 contrast against the light theme's background (#fdfdfc) and
// against white, as graphics need (WCAG 1.4.11). Okabe and Ito's palette
// (2008) is the base; its orange, sky blue and yellow (2.3:1, 2.2:1 and
// 1.3:1 against white) are replaced by darker colours of their own, and
// the grey by slate.
var Palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xC8, 0x52, 0x00, 0xFF}, // vermillion
	{0x00, 0x84, 0x5A, 0xFF}, // bluish green
	{0xB8, 0x40, 0x7D, 0xFF}, // reddish purple
	{0x6B, 0x3E, 0x9A, 0xFF}, // purple
	{0x8C, 0x6D, 0x00, 0xFF}, // ochre
	{0x1D, 0x1F, 0x21, 0xFF}, // near-black
	{0x5F, 0x7A, 0x8C, 0xFF}, // slate
}

// Colour returns the i-th palette colour, cycling.
func Colour(i int) color.NRGBA { return Palette[i%len(Palette)] }

// Hex returns the i-th palette colour as #rrggbb for ECharts.
func Hex(i int) string {
	c := Colour(i)
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// Labelled returns the labels of ids under name (a Naming method such as
// n.Method): a new slice, ids untouched. Figures name methods, metrics,
// datasets and rules by their display labels; ids stay in the CSV and
// JSON.
func Labelled(ids []string, name func(string) string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = name(id)
	}
	return out
}
