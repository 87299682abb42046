package figures

import (
	"image"
	"image/color"
	"math"

	"git.sr.ht/~sbinet/gg"
	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// pngCanvas is vgimg's canvas drawing unrotated, unscaled text itself:
// vgimg makes a new face for every string and draws every glyph through
// a bilinear transform of its mask, which for text that is only moved is
// a copy. pngCanvas keeps one face per font and size and draws the glyphs'
// masks straight into the image at the same place (the anti-aliasing of
// an edge may differ: vgimg rounds the glyph to whole pixels and then
// interpolates, pngCanvas places it at its fraction of a pixel). Text
// under a rotation or scaling goes to vgimg.
type pngCanvas struct {
	*vgimg.Canvas
	img   *image.RGBA
	dpi   float64
	st    pngState
	stack []pngState
	faces map[pngFaceKey]pngFace
}

// pngState is the part of the drawing state pngCanvas follows: the
// colour and, while the transform is a translation only, its offset in
// dots (y up).
type pngState struct {
	col    color.Color
	dx, dy float64
	moved  bool    // rotated or scaled: the offset is not the transform
	lw     float64 // the line width, in dots
}

type pngFaceKey struct {
	f    *opentype.Font
	size vg.Length
	dpi  float64
}

// pngFace is a face at a size and how far its glyphs may reach above and
// below the baseline, in dots: its ascent or descent and, for marks
// outside them, its line height more.
type pngFace struct {
	xfont.Face
	above, below float64
}

func newPNGCanvas(w, h vg.Length, dpi int) *pngCanvas {
	return newPNGCanvasOn(image.NewRGBA(image.Rect(0, 0, dots(w, dpi), dots(h, dpi))), dpi, nil)
}

// dots is l in whole dots at dpi, rounded as vgimg rounds an image's size.
func dots(l vg.Length, dpi int) int { return int(l/vg.Inch*vg.Length(dpi) + 0.5) }

// newPNGCanvasOn is a pngCanvas drawing in place on img, which it paints
// white first, with the faces of faces (made as needed; nil for new
// ones). The image is made by the caller, at the size vgimg would give
// it (newPNGCanvas) or a strip of it (drawPNG): vgimg.UseWH makes one
// and gg then copies it into another, twice the memory and a dead image
// per figure.
func newPNGCanvasOn(img *image.RGBA, dpi int, faces map[pngFaceKey]pngFace) *pngCanvas {
	if faces == nil {
		faces = map[pngFaceKey]pngFace{}
	}
	ctx := gg.NewContextForRGBA(img)
	ctx.SetLineCapButt()
	ctx.InvertY()
	return &pngCanvas{Canvas: vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(dpi)), img: img,
		dpi: float64(dpi), st: pngState{col: color.Black}, faces: faces}
}

// SetColor sets the colour of what is drawn next.
func (c *pngCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	c.st.col = clr
	c.Canvas.SetColor(clr)
}

// SetLineWidth sets the width of the lines stroked next.
func (c *pngCanvas) SetLineWidth(w vg.Length) {
	c.st.lw = w.Dots(c.dpi)
	c.Canvas.SetLineWidth(w)
}

// Stroke strokes p, unless it lies wholly outside the image.
func (c *pngCanvas) Stroke(p vg.Path) {
	if !c.outside(p, c.st.lw+2) {
		c.Canvas.Stroke(p)
	}
}

// Fill fills p, unless it lies wholly outside the image.
func (c *pngCanvas) Fill(p vg.Path) {
	if !c.outside(p, 2) {
		c.Canvas.Fill(p)
	}
}

// outside reports whether p, moved by a translation only, lies wholly
// above or below the image, even pad dots wider on each side (a line's
// width, anti-aliasing): a strip of the figure (drawPNGStrips) need not
// rasterize it. A curve lies within its control points, an arc within
// its radius of its centre.
func (c *pngCanvas) outside(p vg.Path, pad float64) bool {
	if c.st.moved || c.img == nil {
		return false
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, comp := range p {
		if comp.Type == vg.CloseComp {
			continue
		}
		r := 0.0
		if comp.Type == vg.ArcComp {
			r = comp.Radius.Dots(c.dpi)
		}
		y := comp.Pos.Y.Dots(c.dpi)
		lo, hi = min(lo, y-r), max(hi, y+r)
		for _, q := range comp.Control {
			y := q.Y.Dots(c.dpi)
			lo, hi = min(lo, y), max(hi, y)
		}
	}
	// y up, the image is from −dy to its height−dy before the offset.
	return hi+pad < -c.st.dy || lo-pad > float64(c.img.Bounds().Dy())-c.st.dy
}

// Translate moves the origin to pt.
func (c *pngCanvas) Translate(pt vg.Point) {
	c.st.dx += pt.X.Dots(c.dpi)
	c.st.dy += pt.Y.Dots(c.dpi)
	c.Canvas.Translate(pt)
}

// Rotate rotates the user space.
func (c *pngCanvas) Rotate(rad float64) {
	c.st.moved = c.st.moved || rad != 0
	c.Canvas.Rotate(rad)
}

// Scale scales the user space.
func (c *pngCanvas) Scale(x, y float64) {
	c.st.moved = c.st.moved || x != 1 || y != 1
	c.Canvas.Scale(x, y)
}

// Push saves the drawing state.
func (c *pngCanvas) Push() {
	c.stack = append(c.stack, c.st)
	c.Canvas.Push()
}

// Pop restores the drawing state Push saved last.
func (c *pngCanvas) Pop() {
	c.st = c.stack[len(c.stack)-1]
	c.stack = c.stack[:len(c.stack)-1]
	c.Canvas.Pop()
}

// FillString draws s with its baseline's left end at pt, as vgimg does.
func (c *pngCanvas) FillString(f font.Face, pt vg.Point, s string) {
	if f.Font.Size == 0 {
		return
	}
	if c.st.moved || c.img == nil {
		c.Canvas.FillString(f, pt, s)
		return
	}
	face, err := c.face(f)
	if err != nil {
		panic(err) // as vgimg does; Figure.render recovers
	}
	h := float64(c.img.Bounds().Dy())
	y := h - pt.Y.Dots(c.dpi) - c.st.dy // the baseline, in dots down from the image's top
	if y+face.below < 0 || y-face.above > h {
		return // wholly outside the image (a strip of the figure: drawPNG)
	}
	d := xfont.Drawer{Dst: c.img, Src: image.NewUniform(c.st.col), Face: face.Face, Dot: fixed.Point26_6{
		X: fixed.Int26_6(math.Round((pt.X.Dots(c.dpi) + c.st.dx) * 64)),
		Y: fixed.Int26_6(math.Round(y * 64)),
	}}
	d.DrawString(s)
}

// face is f's face at c's resolution, made once per canvas's faces.
func (c *pngCanvas) face(f font.Face) (pngFace, error) {
	key := pngFaceKey{f.Face, f.Font.Size, c.dpi}
	if face, ok := c.faces[key]; ok {
		return face, nil
	}
	xf, err := opentype.NewFace(f.Face, &opentype.FaceOptions{Size: f.Font.Size.Points(), DPI: c.dpi})
	if err != nil {
		return pngFace{}, err
	}
	m := xf.Metrics()
	face := pngFace{Face: xf, above: fixedFloat(m.Ascent + m.Height), below: fixedFloat(m.Descent + m.Height)}
	c.faces[key] = face
	return face, nil
}

// fixedFloat is x as a float64.
func fixedFloat(x fixed.Int26_6) float64 { return float64(x) / 64 }
