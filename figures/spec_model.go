package figures

// The figure spec is package model's (figures/model/spec.go): gonum-free,
// so the Explore page's WebAssembly module derives the same ECharts
// options from it. These names let the plotters here say Spec and Mark as
// before; the gonum backend (spec_plot.go) and FigureOf draw a spec.

import (
	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures/model"
)

// The spec's types (model's).
type (
	// MarkKind is model.MarkKind.
	MarkKind = model.MarkKind
	// Dash is model.Dash.
	Dash = model.Dash
	// Symbol is model.Symbol.
	Symbol = model.Symbol
	// Style is model.Style.
	Style = model.Style
	// Mark is model.Mark.
	Mark = model.Mark
	// Axis is model.Axis.
	Axis = model.Axis
	// Panel is model.Panel.
	Panel = model.Panel
	// LegendPlace is model.LegendPlace.
	LegendPlace = model.LegendPlace
	// Scale is model.Scale.
	Scale = model.Scale
	// Spec is model.Spec.
	Spec = model.Spec
	// LegendEntry is model.LegendEntry.
	LegendEntry = model.LegendEntry
	// Styles is model.Styles.
	Styles = model.Styles
)

// The kinds of marks (model's).
const (
	MarkPoints   = model.MarkPoints
	MarkLine     = model.MarkLine
	MarkBars     = model.MarkBars
	MarkInterval = model.MarkInterval
	MarkArea     = model.MarkArea
	MarkText     = model.MarkText
	MarkRefLine  = model.MarkRefLine
	MarkCells    = model.MarkCells
)

// The dash patterns (model's).
const (
	Solid  = model.Solid
	Dashed = model.Dashed
	Dotted = model.Dotted
)

// The point symbols (model's).
const (
	Circle   = model.Circle
	Square   = model.Square
	Triangle = model.Triangle
	Diamond  = model.Diamond
	Cross    = model.Cross
	Plus     = model.Plus
	Ring     = model.Ring
)

// The legend places (model's).
const (
	LegendNone  = model.LegendNone
	LegendRight = model.LegendRight
	LegendBelow = model.LegendBelow
)

// Auto is an axis bound left to the data (model.Auto).
var Auto = model.Auto

// NewAxis is an axis titled title with its range left to the data.
func NewAxis(title string) Axis { return model.NewAxis(title) }

// StyleAt is the i-th style (model.StyleAt).
func StyleAt(i int) Style { return model.StyleAt(i) }

// StylesOf is the study's styles from its naming (model.StylesOf).
func StylesOf(n analyses.Naming) Styles { return model.StylesOf(n) }

// IsRound reports whether v is a round axis label (model.IsRound).
func IsRound(v float64) bool { return model.IsRound(v) }

// SymbolOfECharts is the figure spec symbol an ECharts symbol name draws
// (model.SymbolOfECharts).
func SymbolOfECharts(name string) Symbol { return model.SymbolOfECharts(name) }
