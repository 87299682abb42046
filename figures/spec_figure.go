package figures

import "fmt"

// FigureOf renders a figure spec (model.Spec): its gonum drawing, SVG and
// ECharts option, with the caption and alt text from the figure spec.
func FigureOf(s *Spec, id, title string, height int) (Figure, error) {
	return FigureDrawn(s, nil, id, title, height)
}

// FigureDrawn is FigureOf with static, when not nil, drawing the figure
// in place of the panels' generic drawing, for a layout panels cannot
// hold (the forest plot's text columns, the critical-difference
// diagram's rank axis). It must draw the spec's marks in the spec's
// styles: OutputProblems holds it to the figure spec as it holds the
// generic drawing.
func FigureDrawn(s *Spec, static func() (Drawing, error), id, title string, height int) (Figure, error) {
	if err := s.Check(); err != nil {
		return Figure{}, fmt.Errorf("figure %s: %w", id, err)
	}
	draw := func() (Drawing, error) { return SpecDrawing(s) }
	if static != nil {
		draw = static
	}
	drw, err := draw()
	if err != nil {
		return Figure{}, fmt.Errorf("figure %s: %w", id, err)
	}
	svg, err := drw.SVG()
	if err != nil {
		return Figure{}, err
	}
	chart, err := ChartJSON(s.EChartsOption())
	if err != nil {
		return Figure{}, err
	}
	return Figure{ID: id, Title: title, Caption: s.Caption, Alt: s.Alt(), SVG: svg, Drawing: &drw, Chart: chart, Height: height, Spec: s,
		KeepColours: s.KeepsColours()}, nil
}
