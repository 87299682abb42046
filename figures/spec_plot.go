package figures

// The gonum/plot backend of a figure spec: one plot per panel, the
// legend drawn by the figure spec beside the panels (right) or under them,
// never inside a data area, at every width the figure is laid out at.

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// dashPattern is a dash's pattern in the static figures.
func dashPattern(d Dash) []vg.Length {
	switch d {
	case Dashed:
		return []vg.Length{vg.Points(4), vg.Points(2.5)}
	case Dotted:
		return []vg.Length{vg.Points(1), vg.Points(2)}
	}
	return nil
}

// glyphOf is a symbol's gonum glyph: filled shapes where ECharts fills.
func glyphOf(s Symbol) draw.GlyphDrawer {
	switch s {
	case Square:
		return draw.BoxGlyph{}
	case Triangle:
		return draw.PyramidGlyph{}
	case Diamond:
		return diamondGlyph{}
	case Cross:
		return draw.CrossGlyph{}
	case Plus:
		return draw.PlusGlyph{}
	case Ring:
		return draw.RingGlyph{}
	}
	return draw.CircleGlyph{}
}

// diamondGlyph is a filled square turned 45°.
type diamondGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetColor(sty.Color)
	r := sty.Radius * 1.2
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	c.Fill(p)
}

// withAlpha is c at opacity a (0 < a ≤ 1).
func withAlpha(c color.NRGBA, a float64) color.NRGBA {
	c.A = uint8(math.Round(255 * a))
	return c
}

func markRadius(m Mark) vg.Length { return vg.Points(m.Radius()) }

func markWidth(m Mark) vg.Length { return vg.Points(m.LineWidth()) }

func markLineColour(m Mark) color.NRGBA {
	if m.Opacity > 0 && m.Opacity < 1 {
		return withAlpha(m.Style.Colour, m.Opacity)
	}
	return m.Style.Colour
}

// runs splits the mark's points into runs of finite (x, y) (and y2).
func markRuns(m Mark) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i := range m.X {
		ok := finite(m.X[i]) && finite(m.Y[i]) && (m.Y2 == nil || finite(m.Y2[i]))
		if !ok {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, plotter.XY{X: m.X[i], Y: m.Y[i]})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// addMark adds m's plotters to p.
func addMark(p *plot.Plot, m Mark) error {
	glyph := draw.GlyphStyle{Color: m.Style.Colour, Radius: markRadius(m), Shape: glyphOf(m.Style.Symbol)}
	switch m.Kind {
	case MarkPoints:
		return addPoints(p, m, glyph)
	case MarkLine, MarkRefLine:
		return addLines(p, m, glyph)
	case MarkArea:
		return addArea(p, m)
	case MarkInterval, MarkBars:
		return addSegments(p, m)
	case MarkText:
		return addText(p, m)
	case MarkCells:
		h := NewCorrHeatmap(m.Cells, 0, 1)
		if m.Format != "" {
			h.Format = m.Format
		}
		p.Add(h)
		return nil
	}
	return fmt.Errorf("mark kind %q has no static drawing", m.Kind)
}

// addPoints draws a points mark, one scatter per run.
func addPoints(p *plot.Plot, m Mark, glyph draw.GlyphStyle) error {
	if m.Sizes != nil {
		for j := range m.X {
			if !finite(m.X[j]) || !finite(m.Y[j]) {
				continue
			}
			s, err := plotter.NewScatter(plotter.XYs{{X: m.X[j], Y: m.Y[j]}})
			if err != nil {
				return err
			}
			s.GlyphStyle = glyph
			s.GlyphStyle.Radius = vg.Points(m.Sizes[j])
			p.Add(s)
		}
		return nil
	}
	for _, run := range markRuns(m) {
		s, err := plotter.NewScatter(run)
		if err != nil {
			return err
		}
		s.GlyphStyle = glyph
		p.Add(s)
	}
	return nil
}

// addLines draws a line or reference line, one line per run of defined points (with its points where asked or alone).
func addLines(p *plot.Plot, m Mark, glyph draw.GlyphStyle) error {
	for _, run := range markRuns(m) {
		l, err := plotter.NewLine(run)
		if err != nil {
			return err
		}
		l.Color = markLineColour(m)
		l.Width = markWidth(m)
		l.Dashes = dashPattern(m.Style.Dash)
		p.Add(l)
		if m.WithPoints || len(run) == 1 {
			s, err := plotter.NewScatter(run)
			if err != nil {
				return err
			}
			s.GlyphStyle = glyph
			s.GlyphStyle.Radius = vg.Points(2.5)
			p.Add(s)
		}
	}
	return nil
}

// addArea draws a band, one polygon per run where both bounds are defined.
func addArea(p *plot.Plot, m Mark) error {
	var upper, lower plotter.XYs
	flush := func() {
		if len(upper) >= 2 {
			poly := append(append(plotter.XYs{}, upper...), reverseXYs(lower)...)
			if pg, err := plotter.NewPolygon(poly); err == nil {
				pg.Color = withAlpha(m.Style.Colour, m.AreaOpacity())
				pg.LineStyle.Width = 0
				p.Add(pg)
			}
		}
		upper, lower = nil, nil
	}
	for i := range m.X {
		if !finite(m.Y[i]) || !finite(m.Y2[i]) {
			flush()
			continue
		}
		lower = append(lower, plotter.XY{X: m.X[i], Y: m.Y[i]})
		upper = append(upper, plotter.XY{X: m.X[i], Y: m.Y2[i]})
	}
	flush()
	return nil
}

// addSegments draws intervals (Y to Y2) or bars (0 to Y) as vertical segments.
func addSegments(p *plot.Plot, m Mark) error {
	for i := range m.X {
		lo, hi := 0.0, m.Y[i]
		if m.Kind == MarkInterval {
			lo, hi = m.Y[i], m.Y2[i]
		}
		if !finite(lo) || !finite(hi) {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: m.X[i], Y: lo}, {X: m.X[i], Y: hi}})
		if err != nil {
			return err
		}
		l.Color = m.Style.Colour
		l.Width = markWidth(m)
		if m.Kind == MarkBars {
			l.Width = vg.Points(8)
		}
		p.Add(l)
	}
	return nil
}

// addText writes a text mark's labels beside their points.
func addText(p *plot.Plot, m Mark) error {
	var xy plotter.XYLabels
	for i := range m.X {
		xy.XYs = append(xy.XYs, plotter.XY{X: m.X[i], Y: m.Y[i]})
		xy.Labels = append(xy.Labels, m.Labels[i])
	}
	if len(xy.XYs) == 0 {
		return nil
	}
	l, err := plotter.NewLabels(xy)
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font = Font(7)
		l.TextStyle[i].XAlign = draw.XLeft
		if m.LeftOf {
			l.TextStyle[i].XAlign = draw.XRight
		}
	}
	l.Offset = vg.Point{X: vg.Points(8), Y: vg.Points(-3)}
	p.Add(l)
	return nil
}

// panelPlot is a panel's gonum plot, without a legend.
func panelPlot(s *Spec, pn Panel) (*plot.Plot, error) {
	p := NewPlot(pn.Title, pn.X.Title, pn.Y.Title)
	p.Title.TextStyle.Font.Size = vg.Points(10)
	// a vertical title longer than the panel is tall would run off the
	// canvas (a long effect label on a bubble plot): two lines instead
	p.Y.Label.Text = wrapAxisTitle(p.Y.Label.Text, p.Y.Label.TextStyle, vg.Length(s.Height)*vg.Inch*0.75)
	cells := false
	for _, m := range pn.Marks {
		cells = cells || m.Kind == MarkCells
	}
	if !cells {
		p.Add(plotter.NewGrid())
	}
	for _, m := range pn.Marks {
		if m.Kind == MarkCells && s.Scale != nil {
			h := specHeatmap(s, m)
			p.Add(h)
			continue
		}
		if err := addMark(p, m); err != nil {
			return nil, fmt.Errorf("%s %q: %w", m.Kind, m.Series, err)
		}
	}
	setAxis(&p.X, pn.X, false)
	setAxis(&p.Y, pn.Y, true)
	if cells {
		p.X.LineStyle.Width, p.Y.LineStyle.Width = 0, 0
		p.X.Tick.LineStyle.Width, p.Y.Tick.LineStyle.Width = 0, 0
		p.X.Padding, p.Y.Padding = 0, 0
		p.X.Tick.Label.Font = Font(8)
		p.Y.Tick.Label.Font = Font(8)
	}
	return p, nil
}

// setAxis applies an axis spec to a gonum axis.
func setAxis(a *plot.Axis, s Axis, vertical bool) {
	if n := len(s.Categories); n > 0 {
		ticks := make([]plot.Tick, n)
		longest := 0
		for i, c := range s.Categories {
			v := float64(i)
			if s.Inverse {
				v = float64(n - 1 - i)
			}
			ticks[i] = plot.Tick{Value: v, Label: c}
			longest = max(longest, len([]rune(c)))
		}
		a.Tick.Marker = plot.ConstantTicks(ticks)
		a.Min, a.Max = -0.5, float64(n)-0.5
		if !vertical && longest > 4 && n > 2 {
			a.Tick.Label.Rotation = math.Pi / 4
			a.Tick.Label.XAlign = draw.XRight
			a.Tick.Label.YAlign = draw.YTop
		}
		return
	}
	if len(s.Ticks) > 0 {
		ticks := make([]plot.Tick, len(s.Ticks))
		for i, v := range s.Ticks {
			ticks[i] = plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)}
		}
		a.Tick.Marker = plot.ConstantTicks(ticks)
		a.Padding = vg.Points(12)
	}
	if !math.IsNaN(s.Min) {
		a.Min = s.Min
	}
	if !math.IsNaN(s.Max) {
		a.Max = s.Max
	}
	if s.Inverse {
		a.Scale = plot.InvertedScale{Normalizer: a.Scale}
	}
	if s.Hidden {
		a.Width, a.Tick.Length = 0, 0
		a.Tick.Marker = plot.ConstantTicks{}
		a.Label.Text = ""
	}
}

// specLegend is a spec's legend as the static figure draws it.
type specLegend struct {
	entries []LegendEntry
	font    text.Style
	thumb   vg.Length // thumbnail width
	gap     vg.Length // between a thumbnail and its text, and columns
}

func newSpecLegend(es []LegendEntry) specLegend {
	sty := plot.New().Legend.TextStyle
	sty.Font = Font(8)
	return specLegend{entries: es, font: sty, thumb: vg.Points(18), gap: vg.Points(5)}
}

func (l specLegend) rowHeight() vg.Length { return l.font.Font.Size * 1.35 }

// entryWidth is the widest entry's width.
func (l specLegend) entryWidth() vg.Length {
	var w vg.Length
	for _, e := range l.entries {
		w = max(w, l.thumb+l.gap+l.font.Width(e.Name))
	}
	return w
}

// size is the legend's size in cols columns.
func (l specLegend) size(cols int) (vg.Length, vg.Length) {
	if len(l.entries) == 0 {
		return 0, 0
	}
	cols = min(max(cols, 1), len(l.entries))
	rows := (len(l.entries) + cols - 1) / cols
	return vg.Length(cols)*l.entryWidth() + vg.Length(cols-1)*2*l.gap, vg.Length(rows) * l.rowHeight()
}

// draw draws the legend with its top-left corner at tl, in cols columns
// (row by row), and records its box on a layout recorder.
func (l specLegend) draw(c draw.Canvas, tl vg.Point, cols int) {
	cols = min(max(cols, 1), len(l.entries))
	w, h := l.size(cols)
	if r, ok := c.Canvas.(*layoutRecorder); ok {
		r.legends = append(r.legends, r.box(vg.Rectangle{Min: vg.Point{X: tl.X, Y: tl.Y - h}, Max: vg.Point{X: tl.X + w, Y: tl.Y}}))
	}
	rh, ew := l.rowHeight(), l.entryWidth() // measured once: every entry's text
	for i, e := range l.entries {
		col, row := i%cols, i/cols
		x := tl.X + vg.Length(col)*(ew+2*l.gap)
		mid := tl.Y - vg.Length(row)*rh - rh/2
		l.thumbnail(c, e, x, mid)
		sty := l.font
		sty.YAlign = draw.YCenter
		c.FillText(sty, vg.Point{X: x + l.thumb + l.gap, Y: mid}, e.Name)
	}
}

// thumbnail draws an entry's sample: its band, its line with its dash,
// its symbol.
func (l specLegend) thumbnail(c draw.Canvas, e LegendEntry, x, mid vg.Length) {
	h := l.font.Font.Size * 0.8
	if slices.Contains(e.Kinds, MarkArea) {
		// the fill as the plot draws it; an opaque region gets an outline,
		// so that a white one still shows
		box := []vg.Point{{X: x, Y: mid - h/2}, {X: x + l.thumb, Y: mid - h/2}, {X: x + l.thumb, Y: mid + h/2}, {X: x, Y: mid + h/2}}
		c.FillPolygon(corrBlend(e.Style.Colour, e.Opacity), box)
		if e.Opacity >= 1 {
			c.StrokeLines(draw.LineStyle{Color: color.NRGBA{0x99, 0x99, 0x99, 0xFF}, Width: vg.Points(0.5)}, append(box, box[0]))
		}
	}
	if slices.Contains(e.Kinds, MarkLine) || slices.Contains(e.Kinds, MarkRefLine) || slices.Contains(e.Kinds, MarkInterval) {
		c.StrokeLine2(draw.LineStyle{Color: e.Style.Colour, Width: vg.Points(1.5), Dashes: dashPattern(e.Style.Dash)}, x, mid, x+l.thumb, mid)
	}
	if slices.Contains(e.Kinds, MarkBars) {
		c.FillPolygon(e.Style.Colour, []vg.Point{{X: x + l.thumb/4, Y: mid - h/2}, {X: x + 3*l.thumb/4, Y: mid - h/2}, {X: x + 3*l.thumb/4, Y: mid + h/2}, {X: x + l.thumb/4, Y: mid + h/2}})
	}
	if e.Style.Symbol != "" && (slices.Contains(e.Kinds, MarkPoints) || e.Style.Symbol != "" && slices.Contains(e.Kinds, MarkLine) && legendPointsShown(e)) {
		c.DrawGlyphNoClip(draw.GlyphStyle{Color: e.Style.Colour, Radius: vg.Points(2.5), Shape: glyphOf(e.Style.Symbol)}, vg.Point{X: x + l.thumb/2, Y: mid})
	}
}

// legendPointsShown: a line entry's thumbnail shows its symbol when the
// entry's lines carry points (LegendEntries sets the symbol then).
func legendPointsShown(e LegendEntry) bool { return e.Style.Symbol != "" }

// specLayout is where the panels and the legend go on a canvas.
type specLayout struct {
	panels   vg.Rectangle
	legendTL vg.Point
	cols     int
	right    bool
}

// layout places the legend beside the panels when it takes at most a
// third of the width (and LegendRight asks for it), else under them in
// as many columns as fit.
func legendLayout(place LegendPlace, leg specLegend, r vg.Rectangle) specLayout {
	w, h := r.Size().X, r.Size().Y
	out := specLayout{panels: r}
	if len(leg.entries) == 0 {
		return out
	}
	pad := vg.Points(6)
	if lw, lh := leg.size(1); place == LegendRight && lw+pad <= w/3 && lh <= h {
		out.right, out.cols = true, 1
		out.panels.Max.X -= lw + 2*pad
		out.legendTL = vg.Point{X: r.Max.X - lw - pad, Y: r.Max.Y - pad}
		return out
	}
	cols := max(1, int((w-2*pad+2*leg.gap)/(leg.entryWidth()+2*leg.gap)))
	lw, lh := leg.size(cols)
	out.cols = cols
	out.panels.Min.Y += lh + 2*pad
	out.legendTL = vg.Point{X: r.Min.X + max(pad, (w-lw)/2), Y: r.Min.Y + lh + pad}
	return out
}

// SpecDrawing is the spec's static drawing at its natural size.
func SpecDrawing(s *Spec) (Drawing, error) {
	plots := make([]*plot.Plot, len(s.Panels))
	for i, pn := range s.Panels {
		p, err := panelPlot(s, pn)
		if err != nil {
			return Drawing{}, err
		}
		plots[i] = p
	}
	if len(plots) == 0 {
		return Drawing{}, fmt.Errorf("a figure spec without panels")
	}
	w, h := vg.Length(s.Width)*vg.Inch, vg.Length(s.Height)*vg.Inch
	if w == 0 {
		w, h = 7*vg.Inch, 4.5*vg.Inch
	}
	return plotsDrawing(plots, cellsMin(s), s.LegendEntries(), s.Legend, w, h), nil
}

// plotsDrawing draws plots (one, or several side by side in rows) at
// w×h with their legend beside them (place LegendRight, when it fits)
// or under them, never over a data area; cellsMin is a heatmap's least
// data area.
func plotsDrawing(plots []*plot.Plot, cellsMin vg.Point, entries []LegendEntry, place LegendPlace, w, h vg.Length) Drawing {
	grid := newPanelGrid(plots)
	leg := newSpecLegend(entries)
	panelsMin := func(w vg.Length) (vg.Length, vg.Length) {
		if len(plots) == 1 {
			return plotMinSizeData(plots[0], cellsMin)
		}
		return grid.minSize(w)
	}
	drawPanels := func(c draw.Canvas) {
		if len(plots) == 1 {
			plots[0].Draw(c)
			return
		}
		grid.draw(c)
	}
	areas := func(c draw.Canvas) []vg.Rectangle {
		if len(plots) == 1 {
			return []vg.Rectangle{plots[0].DataCanvas(c).Rectangle}
		}
		return grid.dataAreas(c)
	}
	sub := func(c draw.Canvas) (draw.Canvas, specLayout) {
		lay := legendLayout(place, leg, c.Rectangle)
		return draw.Canvas{Canvas: c.Canvas, Rectangle: lay.panels}, lay
	}
	specMinSize := func(w vg.Length) (vg.Length, vg.Length) {
		lay := legendLayout(place, leg, vg.Rectangle{Max: vg.Point{X: w, Y: 100 * vg.Inch}})
		pw, ph := panelsMin(lay.panels.Size().X)
		if len(leg.entries) == 0 {
			return pw, ph
		}
		lw, lh := leg.size(lay.cols)
		if lay.right {
			return pw + lw + vg.Points(12), max(ph, lh+vg.Points(12))
		}
		return max(pw, lw+vg.Points(12)), ph + lh + vg.Points(12)
	}
	return Drawing{Width: w, Height: h,
		Draw: func(c draw.Canvas) {
			pc, lay := sub(c)
			drawPanels(pc)
			if len(leg.entries) > 0 {
				leg.draw(c, lay.legendTL, lay.cols)
			}
		},
		dataAreas: func(c draw.Canvas) []vg.Rectangle {
			pc, _ := sub(c)
			return areas(pc)
		},
		minSize: func(w vg.Length) (vg.Length, vg.Length) {
			mw, mh := specMinSize(w)
			return mw, wholeDots(mh)
		}}
}

// wholeDots rounds a height up to a whole number of dots at 150, 300
// and 600 dpi (1.44 pt), so a PNG's canvas is the drawing's size.
func wholeDots(h vg.Length) vg.Length {
	const q = 1.44
	return vg.Length(math.Ceil(float64(h)/q-1e-9) * q)
}

// cellsMin is a heatmap panel's least data area (every cell as wide as
// its number).
func cellsMin(s *Spec) vg.Point {
	for _, pn := range s.Panels {
		for _, m := range pn.Marks {
			if m.Kind == MarkCells {
				return corrCellsMin(specHeatmap(s, m))
			}
		}
	}
	return vg.Point{}
}

// specHeatmap is a cells mark's plotter, on the spec's scale.
func specHeatmap(s *Spec, m Mark) *CorrHeatmap {
	h := NewCorrHeatmap(m.Cells, 0, 1)
	if s.Scale != nil {
		h.Min, h.Max, h.Reverse = s.Scale.Min, s.Scale.Max, s.Scale.Reverse
	}
	if m.Format != "" {
		h.Format = m.Format
	}
	h.Text = m.CellText
	return h
}

// wrapAxisTitle breaks title into two lines, at the space nearest its
// middle, when it is wider than room in sty; otherwise it returns it as
// it is.
func wrapAxisTitle(title string, sty text.Style, room vg.Length) string {
	if room <= 0 || sty.Width(title) <= room || strings.Contains(title, "\n") {
		return title
	}
	best := -1
	for i, r := range title {
		if r == ' ' && (best < 0 || distance(i, len(title)/2) < distance(best, len(title)/2)) {
			best = i
		}
	}
	if best < 0 {
		return title
	}
	return title[:best] + "\n" + title[best+1:]
}

// distance is |a − b|.
func distance(a, b int) int { return max(a-b, b-a) }
