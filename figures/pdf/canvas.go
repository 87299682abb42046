// Package pdf is a gonum/plot canvas (vg.Canvas) that writes a one-page
// PDF: the figures' PDF exports. It replaces vgpdf, which drew bold
// faces in the regular one, dropped characters beyond cp1252 (−, →, ρ),
// set text off its baseline and turned images upside down; its oracle
// test checks its pages against vgpdf's pixel for pixel without text,
// and its text against vgimg's PNG.
package pdf

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"strconv"

	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// Canvas is a vg.Canvas writing a one-page PDF. Its user space is the
// drawing's: origin at the bottom left, lengths in points, so paths and
// transforms go into the page's content as they come. Text is shown in
// the face's own glyphs, each face embedded as a subset (a CIDFontType2
// font with a ToUnicode map, so text can be searched and copied). The
// bytes depend on the drawing only: resources are named and numbered in
// the order the drawing first uses them.
type Canvas struct {
	w, h   vg.Length
	page   []byte // the page's content stream
	st     pdfState
	stack  []pdfState
	fonts  []*pdfFont
	fontOf map[*opentype.Font]*pdfFont
	alphas []float64 // /GS1… in order of first use
	images []pdfImg  // /Im1… in order of use
	sbuf   sfnt.Buffer
	err    error
}

// pdfState is what Push saves of the drawing state beside the PDF's own
// graphics state (q/Q saves that).
type pdfState struct {
	width vg.Length
	alpha float64
}

// pdfFont is one face as the page uses it: the glyphs drawn and a
// character each glyph stands for.
type pdfFont struct {
	name string // resource name, /F1…
	tt   *ttFont
	src  *opentype.Font
	runs map[uint16]rune
}

// New returns a canvas for one page of w×h; Bytes is the PDF file.
func New(w, h vg.Length) *Canvas {
	c := &Canvas{w: w, h: h, fontOf: map[*opentype.Font]*pdfFont{}, st: pdfState{alpha: 1}}
	vg.Initialize(c)
	return c
}

// num appends x with at most prec decimals, no trailing zeros. x must be
// finite (see Canvas.num).
func num(b []byte, x float64, prec int) []byte {
	n := len(b)
	b = strconv.AppendFloat(b, x, 'f', prec, 64)
	if bytes.IndexByte(b[n:], '.') >= 0 {
		for b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
		b = bytes.TrimSuffix(b, []byte("."))
	}
	if string(b[n:]) == "-0" {
		b = append(b[:n], '0')
	}
	return b
}

// num is num for a number of the drawing: one that is not finite (PDF
// has no NaN) is an error, not a figure drawn somewhere else.
func (c *Canvas) num(b []byte, x float64, prec int) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		c.setErr(fmt.Errorf("the drawing has a coordinate, size or colour of %v", x))
		return append(b, '0')
	}
	return num(b, x, prec)
}

func (c *Canvas) op(nums []float64, prec int, op string) {
	for _, x := range nums {
		c.page = c.num(c.page, x, prec)
		c.page = append(c.page, ' ')
	}
	c.page = append(c.page, op...)
	c.page = append(c.page, '\n')
}

// Size returns the page's size.
func (c *Canvas) Size() (vg.Length, vg.Length) { return c.w, c.h }

// SetLineWidth sets the width of stroked lines.
func (c *Canvas) SetLineWidth(w vg.Length) {
	c.st.width = w
	c.op([]float64{max(float64(w), 0)}, 3, "w")
}

// SetLineDash sets the dash pattern of stroked lines.
func (c *Canvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	c.page = append(c.page, '[')
	for i, d := range dashes {
		if i > 0 {
			c.page = append(c.page, ' ')
		}
		c.page = c.num(c.page, float64(d), 3)
	}
	c.page = append(c.page, "] "...)
	c.op([]float64{float64(offs)}, 3, "d")
}

// SetColor sets the colour (and opacity) of strokes, fills and text.
func (c *Canvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	n := color.NRGBAModel.Convert(clr).(color.NRGBA)
	r, g, b := float64(n.R)/255, float64(n.G)/255, float64(n.B)/255
	c.op([]float64{r, g, b}, 4, "RG")
	c.op([]float64{r, g, b}, 4, "rg")
	if a := float64(n.A) / 255; a != c.st.alpha {
		c.st.alpha = a
		i := slices.Index(c.alphas, a)
		if i < 0 {
			i = len(c.alphas)
			c.alphas = append(c.alphas, a)
		}
		c.page = append(c.page, "/GS"...)
		c.page = strconv.AppendInt(c.page, int64(i+1), 10)
		c.page = append(c.page, " gs\n"...)
	}
}

// Rotate rotates the user space by rad radians counterclockwise.
func (c *Canvas) Rotate(rad float64) {
	s, co := math.Sincos(rad)
	c.op([]float64{co, s, -s, co, 0, 0}, 6, "cm")
}

// Translate moves the user space's origin to pt.
func (c *Canvas) Translate(pt vg.Point) {
	c.op([]float64{1, 0, 0, 1, float64(pt.X), float64(pt.Y)}, 3, "cm")
}

// Scale scales the user space.
func (c *Canvas) Scale(x, y float64) {
	c.op([]float64{x, 0, 0, y, 0, 0}, 6, "cm")
}

// Push saves the drawing state.
func (c *Canvas) Push() {
	c.stack = append(c.stack, c.st)
	c.page = append(c.page, "q\n"...)
}

// Pop restores the drawing state Push saved last.
func (c *Canvas) Pop() {
	if len(c.stack) == 0 {
		c.setErr(fmt.Errorf("Pop without Push"))
		return
	}
	c.st = c.stack[len(c.stack)-1]
	c.stack = c.stack[:len(c.stack)-1]
	c.page = append(c.page, "Q\n"...)
}

// Stroke strokes p, if the line width is positive.
func (c *Canvas) Stroke(p vg.Path) {
	if c.st.width > 0 && c.path(p) {
		c.page = append(c.page, "S\n"...)
	}
}

// Fill fills p (nonzero winding rule).
func (c *Canvas) Fill(p vg.Path) {
	if c.path(p) {
		c.page = append(c.page, "f\n"...)
	}
}

// path appends p's construction, reporting whether it drew anything.
func (c *Canvas) path(p vg.Path) bool {
	var cur vg.Point
	have, drawn := false, false
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp:
			c.op([]float64{float64(comp.Pos.X), float64(comp.Pos.Y)}, 3, "m")
			cur, have = comp.Pos, true
		case vg.LineComp:
			c.op([]float64{float64(comp.Pos.X), float64(comp.Pos.Y)}, 3, pdfLineOrMove(have))
			cur, have, drawn = comp.Pos, true, true
		case vg.ArcComp:
			cur = c.arc(comp, have)
			have, drawn = true, true
		case vg.CurveComp:
			if !have {
				c.setErr(fmt.Errorf("curve without a current point"))
				return false
			}
			c.curve(cur, comp)
			cur, drawn = comp.Pos, true
		case vg.CloseComp:
			if have {
				c.page = append(c.page, "h\n"...)
			}
		default:
			c.setErr(fmt.Errorf("unknown path component %d", comp.Type))
			return false
		}
	}
	if have && !drawn { // moves only: end the path, painting nothing
		c.page = append(c.page, "n\n"...)
	}
	return drawn
}

func pdfLineOrMove(have bool) string {
	if have {
		return "l"
	}
	return "m"
}

// curve appends a quadratic (as the equal cubic) or cubic Bézier curve
// from cur.
func (c *Canvas) curve(cur vg.Point, comp vg.PathComp) {
	p := comp.Pos
	switch len(comp.Control) {
	case 1:
		q := comp.Control[0]
		c1 := cur.Add(q.Sub(cur).Scale(2.0 / 3))
		c2 := p.Add(q.Sub(p).Scale(2.0 / 3))
		c.op([]float64{float64(c1.X), float64(c1.Y), float64(c2.X), float64(c2.Y), float64(p.X), float64(p.Y)}, 3, "c")
	case 2:
		c1, c2 := comp.Control[0], comp.Control[1]
		c.op([]float64{float64(c1.X), float64(c1.Y), float64(c2.X), float64(c2.Y), float64(p.X), float64(p.Y)}, 3, "c")
	default:
		c.setErr(fmt.Errorf("curve with %d control points", len(comp.Control)))
	}
}

// arc appends an arc as cubic Bézier curves of at most a quarter turn
// each, joined to the current point by a line (or starting the path),
// and returns its end.
func (c *Canvas) arc(comp vg.PathComp, have bool) vg.Point {
	r := float64(comp.Radius)
	cx, cy := float64(comp.Pos.X), float64(comp.Pos.Y)
	at := func(t float64) (float64, float64) {
		s, co := math.Sincos(t)
		return cx + r*co, cy + r*s
	}
	x, y := at(comp.Start)
	c.op([]float64{x, y}, 3, pdfLineOrMove(have))
	n := max(1, int(math.Ceil(math.Abs(comp.Angle)/(math.Pi/2)-1e-9)))
	step := comp.Angle / float64(n)
	k := 4.0 / 3 * math.Tan(step/4) // control arm per unit radius
	t := comp.Start
	for range n {
		s0, c0 := math.Sincos(t)
		s1, c1 := math.Sincos(t + step)
		x1, y1 := cx+r*(c0-k*s0), cy+r*(s0+k*c0)
		x2, y2 := cx+r*(c1+k*s1), cy+r*(s1-k*c1)
		x, y = cx+r*c1, cy+r*s1
		c.op([]float64{x1, y1, x2, y2, x, y}, 3, "c")
		t += step
	}
	return vg.Point{X: vg.Length(x), Y: vg.Length(y)}
}

// FillString draws s with its baseline's left end at pt, kerned as
// font.Face.Width measures it.
func (c *Canvas) FillString(f font.Face, pt vg.Point, s string) {
	if f.Font.Size == 0 || s == "" {
		return
	}
	pf, err := c.font(f.Face)
	if err != nil {
		c.setErr(err)
		return
	}
	b := append(c.page, "BT /"...)
	b = append(b, pf.name...)
	b = append(b, ' ')
	b = c.num(b, float64(f.Font.Size), 3)
	b = append(b, " Tf "...)
	b = c.num(b, float64(pt.X), 3)
	b = append(b, ' ')
	b = c.num(b, float64(pt.Y), 3)
	b = append(b, " Td [<"...)
	ppem := fixed.Int26_6(pf.tt.unitsPerEm)
	var prev sfnt.GlyphIndex
	for i, r := range s {
		g, err := pf.src.GlyphIndex(&c.sbuf, r)
		if err != nil {
			c.setErr(err)
			return
		}
		if i > 0 {
			if k, err := pf.src.Kern(&c.sbuf, prev, g, ppem, xfont.HintingNone); err == nil && k != 0 {
				b = append(b, "> "...)
				b = num(b, -float64(k)*1000/float64(pf.tt.unitsPerEm), 3)
				b = append(b, " <"...)
			}
		}
		b = append(b, hexDigits[g>>12], hexDigits[g>>8&15], hexDigits[g>>4&15], hexDigits[g&15])
		if old, ok := pf.runs[uint16(g)]; !ok || r < old {
			pf.runs[uint16(g)] = r
		}
		prev = g
	}
	c.page = append(b, ">] TJ ET\n"...)
}

const hexDigits = "0123456789ABCDEF"

// font is the page's font of face f, added at its first use.
func (c *Canvas) font(f *opentype.Font) (*pdfFont, error) {
	if pf := c.fontOf[f]; pf != nil {
		return pf, nil
	}
	tt, err := ttFontOf(f)
	if err != nil {
		return nil, err
	}
	pf := &pdfFont{name: "F" + strconv.Itoa(len(c.fonts)+1), tt: tt, src: f, runs: map[uint16]rune{}}
	c.fonts = append(c.fonts, pf)
	c.fontOf[f] = pf
	return pf, nil
}

// DrawImage draws img into rect.
func (c *Canvas) DrawImage(rect vg.Rectangle, img image.Image) {
	c.images = append(c.images, pdfImage(img))
	sz := rect.Size()
	c.page = append(c.page, "q "...)
	c.op([]float64{float64(sz.X), 0, 0, float64(sz.Y), float64(rect.Min.X), float64(rect.Min.Y)}, 3, "cm")
	c.page = append(c.page, "/Im"...)
	c.page = strconv.AppendInt(c.page, int64(len(c.images)), 10)
	c.page = append(c.page, " Do Q\n"...)
}

func (c *Canvas) setErr(err error) {
	if c.err == nil {
		c.err = fmt.Errorf("pdf: %w", err)
	}
}

// pdfImg is an image's samples as an image XObject holds them: 8-bit
// RGB, and 8-bit alpha (a soft mask) if the image is not opaque.
type pdfImg struct {
	w, h       int
	rgb, alpha []byte
}

func pdfImage(img image.Image) pdfImg {
	b := img.Bounds()
	im := pdfImg{w: b.Dx(), h: b.Dy(), rgb: make([]byte, 0, 3*b.Dx()*b.Dy()), alpha: make([]byte, 0, b.Dx()*b.Dy())}
	opaque := true
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			n := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			im.rgb = append(im.rgb, n.R, n.G, n.B)
			im.alpha = append(im.alpha, n.A)
			opaque = opaque && n.A == 0xff
		}
	}
	if opaque {
		im.alpha = nil
	}
	return im
}
