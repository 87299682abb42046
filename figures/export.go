package figures

import (
	"bytes"
	"fmt"
	"image/png"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/evalbook/evalbook/figures/pdf"
)

// ColumnWidth is the default width of a figure for a manuscript: one
// column of a two-column paper (ACM and IEEE templates: about 3.3 in).
const ColumnWidth = 3.33 * vg.Inch

// PNGDPI is the resolution of PNG figures.
const PNGDPI = 300

// Drawing is one figure's drawing at its natural size: the same
// function draws the SVG of the site and the PDF and PNG of a paper.
type Drawing struct {
	Width, Height vg.Length
	Draw          func(draw.Canvas)
	// dataAreas returns the data areas (where a plot draws its data) of
	// the drawing on a canvas, for LayoutProblems; nil for none.
	dataAreas func(draw.Canvas) []vg.Rectangle
	// minSize is the least size at which the drawing's text fits at its
	// point size when it is laid out about w wide (layout.go): the least
	// width, and the least height at that width or w, whichever is
	// larger; nil for no least size.
	minSize func(w vg.Length) (vg.Length, vg.Length)
}

// PlotDrawing is the drawing of a gonum/plot plot at w×h, as SVG(p, w, h)
// draws it.
func PlotDrawing(p *plot.Plot, w, h vg.Length) Drawing {
	return Drawing{Width: w, Height: h, Draw: func(c draw.Canvas) { p.Draw(c) }, dataAreas: plotAreas(p),
		minSize: func(vg.Length) (vg.Length, vg.Length) { return plotMinSize(p) }}
}

// plotAreas returns the data area of each plot drawn on the whole canvas.
func plotAreas(ps ...*plot.Plot) func(draw.Canvas) []vg.Rectangle {
	return func(c draw.Canvas) []vg.Rectangle {
		out := make([]vg.Rectangle, len(ps))
		for i, p := range ps {
			out[i] = p.DataCanvas(c).Rectangle
		}
		return out
	}
}

// minExportHeight is the least height of a relaid drawing (docs/PAPER.md:
// "never flatter than 1.5 in"). It was set for vgpdf, which broke the
// page when text came within 2 cm of a page's bottom edge (a
// critical-difference diagram at column width, 0.8 in tall, had 18
// pages); the PDF canvas has no page breaks, but the figures' layout at
// export width is kept as it was.
const minExportHeight = 1.5 * vg.Inch

// SVG renders the drawing as the site's SVG figures are (see SVG).
func (d Drawing) SVG() ([]byte, error) {
	c := vgsvg.NewWith(vgsvg.UseWH(d.Width, d.Height))
	d.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("svg: %w", err)
	}
	return normaliseSVG(buf.Bytes()), nil
}

// PDF renders the drawing as a one-page PDF of the drawing's size with
// its fonts (Liberation Sans) embedded.
func (d Drawing) PDF() ([]byte, error) {
	c := pdf.New(d.Width, d.Height)
	d.Draw(draw.New(c))
	return c.Bytes()
}

// PNG renders the drawing as a PNG at dpi dots per inch on a white
// background: gonum/plot's vgimg canvas, encoded by image/png at its
// fastest level (the files are about 5% larger than at the default
// level, for two thirds of the time).
func (d Drawing) PNG(dpi int) ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(d.Width, d.Height), vgimg.UseDPI(dpi))
	d.Draw(draw.New(c))
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, c.Image()); err != nil {
		return nil, fmt.Errorf("png: %w", err)
	}
	return buf.Bytes(), nil
}

// Render renders the PDF and PNG of every figure of figs that has a
// drawing, laid out at width w (see AtWidth), into the figures.
func Render(figs []Figure, w vg.Length) (err error) {
	for i := range figs {
		f := &figs[i]
		if f.Drawing == nil {
			continue
		}
		if err := f.render(w); err != nil {
			return fmt.Errorf("figure %s: %w", f.ID, err)
		}
	}
	return nil
}

func (f *Figure) render(w vg.Length) (err error) {
	defer func() { // vgimg and gonum/plot's text layout panic on some fonts and images
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering: %v", r)
		}
	}()
	d := f.Drawing.AtWidth(w)
	if f.PNG, err = d.PNG(PNGDPI); err != nil {
		return err
	}
	if f.PDF, err = d.PDF(); err != nil {
		return err
	}
	f.PDFWidth = float64(d.Width)
	return nil
}
