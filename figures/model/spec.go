package model

// A figure spec says once what a figure shows: its panels, their marks
// (points, lines, bars, intervals, bands, text, reference lines with
// their dash), their axes with titles, the legend and where it goes, and
// each series' style from the study-wide Styles. The static drawing
// (package figures, gonum/plot: SVG, PDF, PNG) and the ECharts option
// (spec_echarts.go) are both derived from it, and the caption is checked
// against it (CaptionProblems), so the outputs cannot disagree on what
// is drawn. A figure spec needs no gonum, so the Explore page's WebAssembly
// module draws the same figures from it.

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"unicode"
)

// MarkKind is what a mark draws.
type MarkKind string

// The kinds of marks.
const (
	MarkPoints   MarkKind = "points"         // a symbol at each (X, Y)
	MarkLine     MarkKind = "line"           // a polyline through (X, Y); NaN breaks it
	MarkBars     MarkKind = "bars"           // a bar from 0 to Y at each X
	MarkInterval MarkKind = "interval"       // a vertical segment from Y to Y2 at each X
	MarkArea     MarkKind = "band"           // the area between Y (lower) and Y2 (upper)
	MarkText     MarkKind = "text"           // Labels[i] at (X, Y)
	MarkRefLine  MarkKind = "reference line" // a straight line through the panel: X and Y hold its two ends
	MarkCells    MarkKind = "cells"          // a heatmap: Cells[row][col] coloured by the spec's Scale
)

// Dash is a line's dash pattern.
type Dash string

// The dash patterns.
const (
	Solid  Dash = "solid"
	Dashed Dash = "dashed"
	Dotted Dash = "dotted"
)

// Symbol is a point's shape.
type Symbol string

// The point symbols, each drawn alike by both backends.
const (
	Circle   Symbol = "circle"
	Square   Symbol = "square"
	Triangle Symbol = "triangle"
	Diamond  Symbol = "diamond"
	Cross    Symbol = "cross"
	Plus     Symbol = "plus"
	Ring     Symbol = "ring"
)

// Style is how one series is drawn: its colour, its lines' dash and its
// points' symbol.
type Style struct {
	Colour color.NRGBA
	Dash   Dash
	Symbol Symbol
}

// Hex is the style's colour as #rrggbb.
func (s Style) Hex() string { return HexOf(s.Colour) }

// Mark is one thing drawn in a panel.
type Mark struct {
	Kind MarkKind
	// Series is the legend entry the mark belongs to ("" for none); marks
	// with the same Series (a rule's line and its band) share the entry.
	Series string
	// NoLegend keeps a named series (for tooltips) out of the legend.
	NoLegend bool
	Style    Style
	X, Y, Y2 []float64
	// Names name the points (tooltips); Labels are a text mark's strings,
	// right of their points, or left of them (ending there) with LeftOf.
	Names, Labels []string
	LeftOf        bool
	// Size is a symbol's radius or a line's width in points (0: default);
	// Sizes, when set, is each point's radius (a forest plot's squares
	// growing with their weight).
	Size  float64
	Sizes []float64
	// WithPoints draws a line's points too.
	WithPoints bool
	// Opacity of a band or a line (0: the default, opaque for lines).
	Opacity float64
	// Cells and Format: a heatmap's values, row 0 at the top, and how a
	// cell prints its value ("%.2f").
	Cells  [][]float64
	Format string
	// CellText, when set, is each cell's printed text in place of its
	// value (a mean rank with its geometric mean in brackets).
	CellText [][]string
}

// Axis is one axis of a panel.
type Axis struct {
	Title string
	// Min and Max fix the range where set (not NaN); the backends never
	// label a bound that is not a round number.
	Min, Max float64
	// Categories make the axis nominal: category i is at i.
	Categories []string
	// Ticks, when set, are the only ticks (labelled by their value).
	Ticks []float64
	// Hidden draws no axis (a critical-difference diagram's rows); Top
	// puts a horizontal axis above its panel.
	Hidden, Top bool
	// Inverse puts the first category at the top (a heatmap's rows), or
	// a value axis's least value at the top (a funnel plot's standard
	// error, growing downwards).
	Inverse bool
}

// Auto is an axis bound left to the data.
var Auto = math.NaN()

// NewAxis is an axis titled title with its range left to the data.
func NewAxis(title string) Axis { return Axis{Title: title, Min: Auto, Max: Auto} }

// Fixed returns the axis with its range set to [lo, hi].
func (a Axis) Fixed(lo, hi float64) Axis { a.Min, a.Max = lo, hi; return a }

// Panel is one plot of a figure.
type Panel struct {
	Title string
	X, Y  Axis
	Marks []Mark
}

// LegendPlace is where a figure's legend goes: never over the data.
type LegendPlace string

// The legend places.
const (
	LegendNone  LegendPlace = ""
	LegendRight LegendPlace = "right" // beside the panels when the width allows, else below
	LegendBelow LegendPlace = "below"
)

// Scale is a heatmap's colour scale: Low at Min, Mid (when set) at the
// middle and High at Max.
type Scale struct {
	Min, Max        float64
	Low, Mid, High  color.NRGBA
	HasMid          bool
	LowName, HiName string // the ends' colour names, for the caption check
	// Reverse puts High at Min and Low at Max (ranks: 1 = best = dark).
	Reverse bool
}

// Spec is a figure's presentation, from which every output is derived.
type Spec struct {
	Panels []Panel
	Legend LegendPlace
	Scale  *Scale
	// Width and Height are the static drawing's natural size in inches.
	Width, Height float64
	// Caption is the figure's caption; Subject what the alt text calls
	// the figure ("performance profiles of 12 methods").
	Caption, Subject string
}

// LegendEntry is one entry of a figure's legend.
type LegendEntry struct {
	Name  string
	Kinds []MarkKind // the kinds of marks its thumbnail shows
	Style Style
	// Opacity is the fill's opacity of the entry's area, as the plot
	// draws it (a band 0.19, an opaque region 1).
	Opacity float64
}

// LegendEntries lists the legend's entries in order, one per series
// name, with the kinds of marks they stand for.
func (s *Spec) LegendEntries() []LegendEntry {
	if s.Legend == LegendNone {
		return nil
	}
	var out []LegendEntry
	at := map[string]int{}
	for _, p := range s.Panels {
		for _, m := range p.Marks {
			if m.Series == "" || m.NoLegend {
				continue
			}
			i, ok := at[m.Series]
			if !ok {
				i = len(out)
				at[m.Series] = i
				out = append(out, LegendEntry{Name: m.Series, Style: m.Style})
			}
			e := &out[i]
			if !containsKind(e.Kinds, m.Kind) {
				e.Kinds = append(e.Kinds, m.Kind)
			}
			if m.Kind == MarkPoints || m.Kind == MarkLine && m.WithPoints {
				e.Style.Symbol = m.Style.Symbol
			}
			if m.Kind == MarkLine || m.Kind == MarkRefLine {
				e.Style.Dash = m.Style.Dash
			}
			if m.Kind == MarkArea && e.Opacity == 0 {
				e.Opacity = m.AreaOpacity()
			}
		}
	}
	return out
}

func containsKind(ks []MarkKind, k MarkKind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// Alt is the figure's alt text, made from the figure spec: the kind of chart,
// its axes, its panels and its legend.
func (s *Spec) Alt() string {
	var b strings.Builder
	subject := s.Subject
	if subject == "" {
		subject = "figure"
	}
	b.WriteString(UpperFirst(subject))
	if len(s.Panels) > 1 {
		var titles []string
		for _, p := range s.Panels {
			titles = append(titles, p.Title)
		}
		fmt.Fprintf(&b, " in %d panels (%s)", len(s.Panels), strings.Join(titles, "; "))
	}
	if len(s.Panels) > 0 {
		p := s.Panels[0]
		if p.X.Title != "" && p.Y.Title != "" {
			fmt.Fprintf(&b, ": %s against %s", p.Y.Title, p.X.Title)
		}
		var kinds []string
		for _, pp := range s.Panels {
			for _, m := range pp.Marks {
				if !containsString(kinds, string(m.Kind)) {
					kinds = append(kinds, string(m.Kind))
				}
			}
		}
		fmt.Fprintf(&b, ", drawn as %s", strings.Join(kinds, ", "))
	}
	if es := s.LegendEntries(); len(es) > 0 {
		names := make([]string, len(es))
		for i, e := range es {
			names[i] = e.Name
		}
		fmt.Fprintf(&b, "; legend: %s", strings.Join(names, ", "))
	}
	b.WriteString(".")
	return b.String()
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// UpperFirst is s with its first letter in upper case.
func UpperFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return strings.ToUpper(string(r[:1])) + string(r[1:])
}

// captionWords are the words a caption may use for marks, each with
// what the figure spec must hold for the caption to be true.
var captionWords = []struct {
	words []string
	has   func(*Spec) bool
}{
	{[]string{"dashed"}, func(s *Spec) bool { return s.hasDash(Dashed) }},
	{[]string{"dotted"}, func(s *Spec) bool { return s.hasDash(Dotted) }},
	{[]string{"cross", "crosses"}, func(s *Spec) bool { return s.hasSymbol(Cross) }},
	{[]string{"triangle", "triangles"}, func(s *Spec) bool { return s.hasSymbol(Triangle) }},
	{[]string{"ring", "rings"}, func(s *Spec) bool { return s.hasSymbol(Ring) }},
	{[]string{"square", "squares"}, func(s *Spec) bool { return s.hasSymbol(Square) }},
	{[]string{"diamond", "diamonds"}, func(s *Spec) bool { return s.hasSymbol(Diamond) }},
	{[]string{"band", "bands"}, func(s *Spec) bool { return s.hasKind(MarkArea) }},
	{[]string{"bar", "bars"}, func(s *Spec) bool { return s.hasKind(MarkBars) }},
	{[]string{"diagonal"}, func(s *Spec) bool { return s.hasKind(MarkRefLine) }},
	{[]string{"legend"}, func(s *Spec) bool { return len(s.LegendEntries()) > 0 }},
	{[]string{"min-max", "min–max"}, func(s *Spec) bool { return s.hasScaledAxis() }},
}

// colourNames are the palette's colours by name (Palette's comments).
var colourNames = map[string]color.NRGBA{
	"blue": Palette[0], "vermillion": Palette[1], "green": Palette[2], "bluish green": Palette[2],
	"reddish purple": Palette[3], "purple": Palette[4], "ochre": Palette[5], "slate": Palette[7],
}

// CaptionProblems reports, one line each, the marks, colours and scales
// a caption names that the figure spec does not draw: a caption saying "dashed
// diagonal" over a solid one, "crosses" over triangles, "blue" over a
// purple scale.
func (s *Spec) CaptionProblems() []string {
	words := captionTokens(s.Caption)
	var out []string
	for _, w := range captionWords {
		for _, word := range w.words {
			if words[word] && !w.has(s) {
				out = append(out, fmt.Sprintf("the caption names %q, which the figure does not draw", word))
				break
			}
		}
	}
	for name, c := range colourNames {
		if strings.Contains(name, " ") {
			continue
		}
		if words[name] && !s.hasColour(c) {
			out = append(out, fmt.Sprintf("the caption names the colour %q, which the figure does not use", name))
		}
	}
	return out
}

// captionTokens are a caption's words, lower-case, split at anything but
// letters, hyphens and en dashes.
func captionTokens(c string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(c), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '-' && r != '–'
	}) {
		out[strings.Trim(w, "-–")] = true
	}
	return out
}

// Marks are the spec's marks, panel by panel.
func (s *Spec) Marks() []Mark {
	var out []Mark
	for _, p := range s.Panels {
		out = append(out, p.Marks...)
	}
	return out
}

func (s *Spec) hasKind(k MarkKind) bool {
	for _, m := range s.Marks() {
		if m.Kind == k {
			return true
		}
	}
	return false
}

func (s *Spec) hasDash(d Dash) bool {
	for _, m := range s.Marks() {
		if (m.Kind == MarkLine || m.Kind == MarkRefLine || m.Kind == MarkInterval) && m.Style.Dash == d {
			return true
		}
	}
	return false
}

func (s *Spec) hasSymbol(y Symbol) bool {
	for _, m := range s.Marks() {
		if (m.Kind == MarkPoints || m.Kind == MarkLine && m.WithPoints) && m.Style.Symbol == y {
			return true
		}
	}
	return false
}

func (s *Spec) hasColour(c color.NRGBA) bool {
	if s.Scale != nil && (s.Scale.Low == c || s.Scale.High == c || s.Scale.HasMid && s.Scale.Mid == c) {
		return true
	}
	for _, m := range s.Marks() {
		if m.Style.Colour == c {
			return true
		}
	}
	return false
}

func (s *Spec) hasScaledAxis() bool {
	for _, p := range s.Panels {
		for _, a := range []Axis{p.X, p.Y} {
			if strings.Contains(a.Title, "scaled") || strings.Contains(a.Title, "normalised") {
				return true
			}
		}
	}
	return false
}

// Check reports what is wrong with a spec before it is drawn: a caption
// naming what is not drawn, a mark whose data lengths disagree.
func (s *Spec) Check() error {
	if p := s.CaptionProblems(); len(p) > 0 {
		return fmt.Errorf("figure spec: %s", strings.Join(p, "; "))
	}
	for _, p := range s.Panels {
		for _, m := range p.Marks {
			if m.Kind == MarkCells {
				continue
			}
			if len(m.X) != len(m.Y) || m.Y2 != nil && len(m.Y2) != len(m.Y) || m.Sizes != nil && len(m.Sizes) != len(m.X) {
				return fmt.Errorf("figure spec: %s %q: %d x, %d y, %d y2", m.Kind, m.Series, len(m.X), len(m.Y), len(m.Y2))
			}
		}
	}
	return nil
}

// NiceStep is a round step (1, 2, 2.5 or 5 × 10^k), the smallest at least
// span/n: an axis's ticks lie at its multiples, in the interactive chart
// and the static figure alike.
func NiceStep(span float64, n int) float64 {
	if !(span > 0) || n <= 0 {
		return 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*p*1.0000001 {
			return m * p
		}
	}
	return 10 * p
}

// RoundRange widens [lo, hi] to round numbers (multiples of a nice step
// of about a fifth of the span), so an axis's end labels read 0.05, not
// 0.0560505.
func RoundRange(lo, hi float64) (float64, float64) {
	if !(hi > lo) {
		return lo, hi
	}
	st := NiceStep(hi-lo, 5)
	return roundTo(math.Floor(lo/st+1e-9)*st, st), roundTo(math.Ceil(hi/st-1e-9)*st, st)
}

// roundTo removes the float noise of a multiple of step (0.30000000000000004).
func roundTo(v, step float64) float64 {
	d := math.Max(0, -math.Floor(math.Log10(step))+2)
	p := math.Pow(10, d)
	return math.Round(v*p) / p
}

// IsRound reports whether v is a round axis label: at most two
// significant digits after its leading one (0.05, 0.25, 1.5, 120, 0.125
// is not).
func IsRound(v float64) bool {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return true
	}
	e := math.Floor(math.Log10(math.Abs(v)))
	m := v / math.Pow(10, e-1) // two leading digits before the point
	return math.Abs(m-math.Round(m)) < 1e-6
}

// KeepsColours reports whether the figure's colours are what it means
// (a heatmap's cells, the opaque p-value regions of a contour funnel),
// as its caption names them: the dark theme shows such a figure as
// drawn, where it turns the lightness of the others around.
func (s *Spec) KeepsColours() bool {
	for _, p := range s.Panels {
		for _, m := range p.Marks {
			if m.Kind == MarkCells || m.Region() {
				return true
			}
		}
	}
	return false
}

// Region reports whether the mark is an opaque region (a contour
// funnel's p-value regions): a band whose colour is what it means.
func (m Mark) Region() bool { return m.Kind == MarkArea && m.AreaOpacity() >= 1 }

// AreaOpacity is the fill's opacity of a band (0.19 unless set).
func (m Mark) AreaOpacity() float64 {
	if m.Opacity > 0 {
		return m.Opacity
	}
	return 0.19
}

// Radius is a symbol's radius in points (2.5 unless set).
func (m Mark) Radius() float64 {
	if m.Size > 0 {
		return m.Size
	}
	return 2.5
}

// LineWidth is a line's width in points (1.5 unless set).
func (m Mark) LineWidth() float64 {
	if m.Size > 0 {
		return m.Size
	}
	return 1.5
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
