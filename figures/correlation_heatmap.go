package figures

// An annotated heatmap, shared by metric_correlation (Shevchenko et al. 2024, Fig. 2) and
// characteristics (Fig. 7). gonum's plotter.HeatMap needs a GridXYZ and
// draws no values; a correlation matrix is read by its numbers as much as
// by its colours, so this plotter writes each value in its cell, picks the
// text colour for contrast, and shows an undefined cell as a grey dash.

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/evalbook/evalbook/figures/model"
)

// The heatmap's colours (model.CellColour's ends).
var (
	corrPositive = model.CellPositive
	corrNegative = model.CellNegative
	corrMissing  = model.CellMissing
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
	// Reverse puts the scale's dark end at Min (ranks: 1 = best = dark).
	Reverse bool
	// Text, when set, is each cell's printed text in place of its value.
	Text [][]string
}

// NewCorrHeatmap returns a heatmap with evalbook's defaults.
func NewCorrHeatmap(values [][]float64, lo, hi float64) *CorrHeatmap {
	sty := plot.New().Title.TextStyle // a fully initialised style (handler, font)
	sty.Font = Font(8)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	return &CorrHeatmap{Values: values, Min: lo, Max: hi, Format: "%.2f", TextStyle: sty}
}

// Colour returns the cell colour of v.
func (h *CorrHeatmap) Colour(v float64) color.NRGBA {
	return model.CellColour(h.Min, h.Max, h.Reverse, v)
}

// corrBlend mixes white with c by t in [0, 1].
func corrBlend(c color.NRGBA, t float64) color.NRGBA { return model.Blend(c, t) }

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
			label := h.label(r, col, v)
			sty.Color = cellText(fill)
			c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, label)
		}
	}
}

// label is cell (r, col)'s printed text: its Text, else its value, "–"
// when undefined.
func (h *CorrHeatmap) label(r, col int, v float64) string {
	if !corrFinite(v) {
		return "–"
	}
	if h.Text != nil {
		return h.Text[r][col]
	}
	return model.HeatmapText(h.Format, v)
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

// HeatmapSpec is an annotated heatmap's spec: Values[row][col] with
// rows and columns named, coloured on [lo, hi] (diverging around 0 from
// vermillion to blue when lo < 0, else white to blue), each cell's value
// printed in it, sized to its cells.
func HeatmapSpec(values [][]float64, rowNames, colNames []string, lo, hi float64, series string) *Spec {
	longest := 0
	for _, n := range colNames {
		longest = max(longest, len([]rune(n)))
	}
	w := vg.Points(34)*vg.Length(len(colNames)) + 1.8*vg.Inch
	h := vg.Points(22)*vg.Length(len(rowNames)) + vg.Points(float64(5*min(longest, 30))) + 0.8*vg.Inch
	sc := &Scale{Min: lo, Max: hi, Low: color.NRGBA{0xFF, 0xFF, 0xFF, 0xFF}, High: corrPositive, LowName: "white", HiName: "blue"}
	if lo < 0 {
		sc.Low, sc.Mid, sc.HasMid, sc.LowName = corrNegative, color.NRGBA{0xFF, 0xFF, 0xFF, 0xFF}, true, "vermillion"
	}
	pn := Panel{X: Axis{Min: Auto, Max: Auto, Categories: colNames}, Y: Axis{Min: Auto, Max: Auto, Categories: rowNames, Inverse: true},
		Marks: []Mark{{Kind: MarkCells, Series: series, NoLegend: true, Cells: values, Format: "%.2f"}}}
	return &Spec{Panels: []Panel{pn}, Scale: sc, Width: float64(w / vg.Inch), Height: float64(h / vg.Inch)}
}

// cellText is the text colour of a cell (model.CellText).
func cellText(fill color.NRGBA) color.Color { return model.CellText(fill) }

// corrCellsMin is the least data area of a heatmap: every cell as wide
// as its number and a gap, and a line of text and a gap high.
func corrCellsMin(hm *CorrHeatmap) vg.Point {
	if len(hm.Values) == 0 {
		return vg.Point{}
	}
	var cw vg.Length
	for r, row := range hm.Values {
		for c, v := range row {
			cw = max(cw, hm.TextStyle.Width(hm.label(r, c, v)))
		}
	}
	gap := vg.Points(4)
	return vg.Point{X: vg.Length(len(hm.Values[0])) * (cw + gap), Y: vg.Length(len(hm.Values)) * (hm.TextStyle.Height("0") + gap)}
}
