package figures

// An annotated heatmap, shared by metric_correlation (Shevchenko et al. 2024, Fig. 2) and
// characteristics (Fig. 7). gonum's plotter.HeatMap needs a GridXYZ and
// draws no values; a correlation matrix is read by its numbers as much as
// by its colours, so this plotter writes each value in its cell, picks the
// text colour for contrast, and shows an undefined cell as a grey dash.

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Heatmap ends of the colour scales: Okabe–Ito blue for strong positive
// association (Shevchenko et al. 2024: "darker blue indicates stronger correlations"),
// vermillion for negative, white at zero; grey for undefined cells.
var (
	corrPositive = Palette[0] // blue
	corrNegative = Palette[1] // vermillion
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
	if h.Reverse {
		t = 1 - t
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
	return fmt.Sprintf(h.Format, v)
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

// cellText is the text colour of a cell: black or white, whichever
// contrasts more with the fill (WCAG relative luminance), so every cell
// label reads at 4.5:1 or better.
func cellText(fill color.NRGBA) color.Color {
	l := relLuminance(fill)
	if (1.05)/(l+0.05) > (l+0.05)/0.05 {
		return color.White
	}
	return color.Black
}

// relLuminance is WCAG 2's relative luminance of c.
func relLuminance(c color.NRGBA) float64 {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.03928 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

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

func hexOf(c color.NRGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
