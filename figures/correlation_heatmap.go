package figures

// An annotated heatmap, shared by metric_correlation (seed 001 Fig. 2) and
// characteristics (Fig. 7). gonum's plotter.HeatMap needs a GridXYZ and
// draws no values; a correlation matrix is read by its numbers as much as
// by its colours, so this plotter writes each value in its cell, picks the
// text colour for contrast, and shows an undefined cell as a grey dash.

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Heatmap ends of the colour scales: Okabe–Ito blue for strong positive
// association (the seed's "darker blue indicates stronger correlations"),
// vermillion for negative, white at zero; grey for undefined cells.
var (
	corrPositive = Palette[4] // blue
	corrNegative = Palette[5] // vermillion
	corrMissing  = color.NRGBA{0xE0, 0xE0, 0xE0, 0xFF}
)

// CorrHeatmap draws Values[row][col] as coloured cells with their values;
// row 0 is at the top. Cell (r, c) is centred on x = c, y = rows−1−r.
type CorrHeatmap struct {
	Values [][]float64
	// Min and Max bound the colour scale. With Min < 0 the scale diverges
	// around 0 (negative → vermillion); otherwise it runs white → blue
	// from Min to Max.
	Min, Max  float64
	Format    string // value format, default "%.2f"
	TextStyle text.Style
}

// NewCorrHeatmap returns a heatmap with evalbook's defaults.
func NewCorrHeatmap(values [][]float64, lo, hi float64) *CorrHeatmap {
	sty := plot.New().Title.TextStyle // a fully initialised style (handler, font)
	sty.Font = Font(7)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	return &CorrHeatmap{Values: values, Min: lo, Max: hi, Format: "%.2f", TextStyle: sty}
}

// Colour returns the cell colour of v.
func (h *CorrHeatmap) Colour(v float64) color.NRGBA {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return corrMissing
	}
	if h.Min < 0 {
		t := v / math.Max(math.Abs(h.Min), math.Abs(h.Max))
		if t < 0 {
			return corrBlend(corrNegative, math.Min(1, -t))
		}
		return corrBlend(corrPositive, math.Min(1, t))
	}
	t := 0.0
	if h.Max > h.Min {
		t = (v - h.Min) / (h.Max - h.Min)
	}
	return corrBlend(corrPositive, math.Max(0, math.Min(1, t)))
}

// corrBlend mixes white with c by t in [0, 1].
func corrBlend(c color.NRGBA, t float64) color.NRGBA {
	mix := func(a uint8) uint8 { return uint8(math.Round(255 + t*(float64(a)-255))) }
	return color.NRGBA{mix(c.R), mix(c.G), mix(c.B), 0xFF}
}

// Plot implements plot.Plotter.
func (h *CorrHeatmap) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	rows := len(h.Values)
	for r, row := range h.Values {
		y := float64(rows - 1 - r)
		for col, v := range row {
			x0, x1 := trX(float64(col)-0.5), trX(float64(col)+0.5)
			y0, y1 := trY(y-0.5), trY(y+0.5)
			fill := h.Colour(v)
			c.FillPolygon(fill, c.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}))
			sty := h.TextStyle
			label := "–"
			if corrFinite(v) {
				label = fmt.Sprintf(h.Format, v)
			}
			// Luminance decides the text colour: white on dark cells.
			lum := 0.2126*float64(fill.R) + 0.7152*float64(fill.G) + 0.0722*float64(fill.B)
			sty.Color = color.Black
			if lum < 128 {
				sty.Color = color.White
			}
			c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, label)
		}
	}
}

// DataRange implements plot.DataRanger.
func (h *CorrHeatmap) DataRange() (xmin, xmax, ymin, ymax float64) {
	cols := 0
	if len(h.Values) > 0 {
		cols = len(h.Values[0])
	}
	return -0.5, float64(cols) - 0.5, -0.5, float64(len(h.Values)) - 0.5
}

func corrFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// corrHeatmapDrawing lays out an annotated heatmap with column labels
// below (rotated when long) and row labels on the left, sized to its
// cells.
func corrHeatmapDrawing(values [][]float64, rowNames, colNames []string, lo, hi float64, xlabel, ylabel string) Drawing {
	p, w, h := corrHeatmapPlot(values, rowNames, colNames, lo, hi, xlabel, ylabel)
	d := PlotDrawing(p, w, h)
	cells := corrCellsMin(NewCorrHeatmap(values, lo, hi))
	d.minSize = func(vg.Length) (vg.Length, vg.Length) { return plotMinSizeData(p, cells) }
	return d
}

// corrCellsMin is the least data area of a heatmap: every cell as wide
// as its number and a gap, and a line of text and a gap high.
func corrCellsMin(hm *CorrHeatmap) vg.Point {
	if len(hm.Values) == 0 {
		return vg.Point{}
	}
	var cw vg.Length
	for _, row := range hm.Values {
		for _, v := range row {
			label := "–"
			if corrFinite(v) {
				label = fmt.Sprintf(hm.Format, v)
			}
			cw = max(cw, hm.TextStyle.Width(label))
		}
	}
	gap := vg.Points(4)
	return vg.Point{X: vg.Length(len(hm.Values[0])) * (cw + gap), Y: vg.Length(len(hm.Values)) * (hm.TextStyle.Height("0") + gap)}
}

func corrHeatmapPlot(values [][]float64, rowNames, colNames []string, lo, hi float64, xlabel, ylabel string) (*plot.Plot, vg.Length, vg.Length) {
	p := NewPlot("", xlabel, ylabel)
	h := NewCorrHeatmap(values, lo, hi)
	p.Add(h)
	xt := make([]plot.Tick, len(colNames))
	longest := 0
	for i, n := range colNames {
		xt[i] = plot.Tick{Value: float64(i), Label: n}
		longest = max(longest, len([]rune(n)))
	}
	yt := make([]plot.Tick, len(rowNames))
	for i, n := range rowNames {
		yt[i] = plot.Tick{Value: float64(len(rowNames) - 1 - i), Label: n}
	}
	p.X.Tick.Marker = plot.ConstantTicks(xt)
	p.Y.Tick.Marker = plot.ConstantTicks(yt)
	p.X.Tick.Label.Font = Font(8)
	p.Y.Tick.Label.Font = Font(8)
	if longest > 4 {
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YTop
	}
	p.X.LineStyle.Width, p.Y.LineStyle.Width = 0, 0
	p.X.Tick.LineStyle.Width, p.Y.Tick.LineStyle.Width = 0, 0
	p.X.Padding, p.Y.Padding = 0, 0
	cell := vg.Points(34)
	w := cell*vg.Length(len(colNames)) + 1.8*vg.Inch
	hgt := vg.Points(22)*vg.Length(len(rowNames)) + vg.Points(float64(5*min(longest, 30))) + 0.8*vg.Inch
	return p, w, hgt
}

// corrHeatmapChart is the interactive version: an ECharts heatmap with a
// visual map over [lo, hi] (its ends labelled beside the handle);
// undefined cells are left empty. Values are rounded to 2 decimals, as the
// static figure prints them (the tables keep full precision).
func corrHeatmapChart(values [][]float64, rowNames, colNames []string, lo, hi float64, series string) ([]byte, error) {
	hm := charts.NewHeatMap()
	colours := []string{"#ffffff", hexOf(corrPositive)}
	if lo < 0 {
		colours = []string{hexOf(corrNegative), "#ffffff", hexOf(corrPositive)}
	}
	hm.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		// go-echarts's SetXAxis does not carry the names into a heatmap's
		// x axis: they are set here, or the columns read 0, 1, 2, …
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Data: colNames, AxisLabel: &opts.AxisLabel{Rotate: 45, Interval: "0"}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: rowNames, Inverse: opts.Bool(true), AxisLabel: &opts.AxisLabel{Interval: "0"}}),
		charts.WithVisualMapOpts(opts.VisualMap{Calculable: opts.Bool(true), Min: float32(lo), Max: float32(hi),
			Orient: "horizontal", Left: "center", Bottom: "0", Text: []string{strconv.FormatFloat(hi, 'g', 3, 64), strconv.FormatFloat(lo, 'g', 3, 64)},
			InRange: &opts.VisualMapInRange{Color: colours}}),
		charts.WithGridOpts(opts.Grid{Left: "150", Bottom: "120", ContainLabel: opts.Bool(true)}),
	)
	hm.SetXAxis(colNames)
	var data []opts.HeatMapData
	for r, row := range values {
		for c, v := range row {
			var cell any = "-"
			if corrFinite(v) {
				cell = math.Round(v*1e2) / 1e2 // two decimals on the cell; the tooltip and tables keep more
			}
			data = append(data, opts.HeatMapData{Value: []any{c, r, cell}})
		}
	}
	hm.AddSeries(series, data, charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), FontSize: 11}))
	return EChartsJSON(hm)
}

func hexOf(c color.NRGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
