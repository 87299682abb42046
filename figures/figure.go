package figures

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/evalbook/evalbook/figures/model"
)

// Figure is one numbered figure of a page.
type Figure struct {
	ID      string // "<analysis-id>" or "<analysis-id>-<name>"
	Title   string
	Caption string
	// Alt is the figure's alt text (from its spec; "" for a figure
	// without one, whose title stands in).
	Alt string
	SVG []byte // static version, always present
	// Chart is the ECharts option as JSON (from go-echarts), or nil when
	// the figure has no interactive version.
	Chart []byte
	// Height of the interactive chart in CSS pixels (0: the theme's default).
	Height int
	// PreferStatic shows the static SVG first, the chart on request: for
	// figures whose SVG carries what a chart cannot (the forest plot's
	// text columns and its summary diamonds).
	PreferStatic bool
	// KeepColours: the figure's colours are what it means
	// (Spec.KeepsColours), so a dark page shows its SVG as drawn.
	KeepColours bool
	// Drawing is the drawing the SVG was rendered from, so a manuscript's
	// PDF and PNG (export.go) come from the same drawing; nil for a
	// figure without one. A function cannot be stored: a figure read back
	// from the disk cache (JSON) has none.
	Drawing *Drawing `json:"-"`
	// PDF and PNG are the figure for a manuscript, rendered from Drawing
	// at the study's figure width (Render) when the analysis runs, so a
	// figure taken from the cache has them without its drawing; PDFWidth
	// is that width in points.
	PDF, PNG []byte
	PDFWidth float64
	// Spec is the presentation the SVG and the chart were derived from
	// (spec.go); nil for a figure read back from the disk cache.
	Spec *Spec `json:"-"`
}

// Palette is the site's series palette (model.Palette).
var Palette = model.Palette

// Colour returns the i-th palette colour, cycling.
func Colour(i int) color.NRGBA { return model.Colour(i) }

// Hex returns the i-th palette colour as #rrggbb for ECharts.
func Hex(i int) string { return model.Hex(i) }

// Dashes returns the i-th dash pattern, so series stay apart in grey print.
func Dashes(i int) []vg.Length {
	switch (i / len(Palette)) % 3 {
	case 1:
		return []vg.Length{vg.Points(4), vg.Points(2)}
	case 2:
		return []vg.Length{vg.Points(1), vg.Points(2)}
	}
	return nil
}

// LineType is the ECharts counterpart of Dashes: "solid", then "dashed"
// and "dotted" once the palette has been used.
func LineType(i int) string {
	switch (i / len(Palette)) % 3 {
	case 1:
		return "dashed"
	case 2:
		return "dotted"
	}
	return "solid"
}

// NewPlot returns a plot with evalbook's defaults and the given title
// and axis labels: every text in the sans-serif face the SVG names
// (gonum/plot's default is a serif face, which the SVG's font stack
// would hide and the PDF and PNG would show, laid out with the serif's
// widths), axis titles at 9 pt and tick labels at 8 pt, as the forest
// plot's and the heatmap's, and ticks at round steps (RoundTicks).
func NewPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Title.TextStyle.Font = Font(12)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = Font(9)
		a.Tick.Label.Font = Font(8)
		a.Tick.Marker = RoundTicks{}
	}
	p.Legend.TextStyle.Font = Font(8)
	return p
}

// RoundTicks marks a value axis at the multiples of a round step
// (model.NiceStep of a fifth of its range: 1, 2, 2.5 or 5 × 10^k), every
// one labelled with the decimals the step needs: the ticks the
// interactive chart draws, and 0 whenever the axis crosses it (the line
// of no effect of a forest plot is labelled). gonum/plot's default
// ticks may step over 0 (−1.2, −0.4, 0.4).
type RoundTicks struct{}

// Ticks returns the axis's ticks from min to max: none where the range
// is not finite, one where it is a point.
func (RoundTicks) Ticks(min, max float64) []plot.Tick {
	switch {
	case math.IsNaN(max-min) || math.IsInf(max-min, 0) || max < min:
		return nil
	case max == min:
		return []plot.Tick{{Value: min, Label: strconv.FormatFloat(min, 'g', 6, 64)}}
	}
	step := model.NiceStep(max-min, 5)
	far := math.Max(math.Abs(min), math.Abs(max))
	if far/step > 1<<50 {
		// a span within the values' float precision: its ends
		return []plot.Tick{{Value: min, Label: strconv.FormatFloat(min, 'g', -1, 64)}, {Value: max, Label: strconv.FormatFloat(max, 'g', -1, 64)}}
	}
	// fixed-point with the decimals the step needs, or e-notation with
	// the significant digits it needs for very large and small steps
	format, prec := byte('f'), 0
	if step >= 1e6 || step < 1e-5 {
		format, prec = 'g', int(math.Ceil(math.Log10(far/step)))+2
	} else {
		for prec < 15 && math.Abs(step*math.Pow10(prec)-math.Round(step*math.Pow10(prec))) > 1e-9*step*math.Pow10(prec) {
			prec++
		}
	}
	var ticks []plot.Tick
	for k := math.Ceil(min/step - 1e-9); k*step <= max+1e-9*step; k++ {
		v := k * step
		if k == 0 {
			v = 0 // not -0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, format, prec, 64)})
	}
	return ticks
}

var svgFontFamily = regexp.MustCompile(`font-family:[^;"]*`)

// SVG renders p at w×h into SVG bytes. Fonts are not embedded: text uses
// the web-safe family "Helvetica, Arial, sans-serif" (gonum/plot lays it
// out with Liberation Sans, which has the same metrics), so files stay
// small and readable at 100% and in print.
func SVG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	c := vgsvg.NewWith(vgsvg.UseWH(w, h))
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("svg: %w", err)
	}
	return normaliseSVG(buf.Bytes()), nil
}

// normaliseSVG replaces the font family with a web-safe stack, so a reader
// without Liberation fonts sees the same layout.
func normaliseSVG(b []byte) []byte {
	return svgFontFamily.ReplaceAll(b, []byte("font-family:Liberation Sans, Helvetica, Arial, sans-serif"))
}

// Font returns the default font at a size in points.
func Font(size float64) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(size)}
}

// boxedText is gonum/plot's plain text handler with the boxes of the
// texts it measured kept: a figure measures its labels again and again
// as it lays them out (ticks, legends, the forest plot's columns), and
// each measure walks the font's glyphs and allocates their buffer (in a
// demo build, 28% of drawing the figures and 21 MB of its 387 MB of
// allocations). A box depends on the text and the font alone. Every
// plot of the process takes it (plot.New copies the default handler).
type boxedText struct{ text.Plain }

// textBoxes maps a boxKey to its [3]vg.Length; it is emptied when it
// holds maxTextBoxes (a long serve meets new labels with every edit).
var (
	textBoxes    sync.Map
	textBoxCount atomic.Int64
)

const maxTextBoxes = 1 << 15

type boxKey struct {
	txt string
	fnt font.Font
}

// Box is text.Plain's Box, measured once per text and font.
func (h boxedText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	k := boxKey{txt, fnt}
	if b, ok := textBoxes.Load(k); ok {
		box := b.(*[3]vg.Length)
		return box[0], box[1], box[2]
	}
	width, height, depth = h.Plain.Box(txt, fnt)
	if textBoxCount.Add(1) > maxTextBoxes {
		textBoxes.Clear()
		textBoxCount.Store(0)
	}
	textBoxes.Store(k, &[3]vg.Length{width, height, depth})
	return width, height, depth
}

func init() {
	if p, ok := plot.DefaultTextHandler.(text.Plain); ok {
		plot.DefaultTextHandler = boxedText{p}
	}
}

// ChartJSON marshals an ECharts option (for example go-echarts's
// chart.JSON() map) into deterministic JSON: encoding/json sorts map keys.
// Non-finite floats must have been replaced with nil by the caller.
func ChartJSON(option any) ([]byte, error) {
	b, err := json.Marshal(option)
	if err != nil {
		return nil, fmt.Errorf("chart option: %w", err)
	}
	return b, nil
}

// JSONFloat returns v, or nil when it is not finite, for chart data.
func JSONFloat(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}
