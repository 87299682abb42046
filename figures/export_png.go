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
	faces map[pngFaceKey]xfont.Face
}

// pngState is the part of the drawing state pngCanvas follows: the
// colour and, while the transform is a translation only, its offset in
// dots (y up).
type pngState struct {
	col    color.Color
	dx, dy float64
	moved  bool // rotated or scaled: the offset is not the transform
}

type pngFaceKey struct {
	f    *opentype.Font
	size vg.Length
}

func newPNGCanvas(w, h vg.Length, dpi int) *pngCanvas {
	return newPNGCanvasOn(image.NewRGBA(image.Rect(0, 0, dots(w, dpi), dots(h, dpi))), dpi)
}

// dots is l in whole dots at dpi, rounded as vgimg rounds an image's size.
func dots(l vg.Length, dpi int) int { return int(l/vg.Inch*vg.Length(dpi) + 0.5) }

// newPNGCanvasOn is a pngCanvas drawing in place on img, which it paints
// white first. The image is made by the caller, at the size vgimg would
// give it (newPNGCanvas): vgimg.UseWH makes one and gg then copies it
// into another, twice the memory and a dead image per figure.
func newPNGCanvasOn(img *image.RGBA, dpi int) *pngCanvas {
	ctx := gg.NewContextForRGBA(img)
	ctx.SetLineCapButt()
	ctx.InvertY()
	return &pngCanvas{Canvas: vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(dpi)), img: img,
		dpi: float64(dpi), st: pngState{col: color.Black}, faces: map[pngFaceKey]xfont.Face{}}
}

// SetColor sets the colour of what is drawn next.
func (c *pngCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	c.st.col = clr
	c.Canvas.SetColor(clr)
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
	key := pngFaceKey{f.Face, f.Font.Size}
	face := c.faces[key]
	if face == nil {
		var err error
		face, err = opentype.NewFace(f.Face, &opentype.FaceOptions{Size: f.Font.Size.Points(), DPI: c.dpi})
		if err != nil {
			panic(err) // as vgimg does; Figure.render recovers
		}
		c.faces[key] = face
	}
	h := float64(c.img.Bounds().Dy())
	d := xfont.Drawer{Dst: c.img, Src: image.NewUniform(c.st.col), Face: face, Dot: fixed.Point26_6{
		X: fixed.Int26_6(math.Round((pt.X.Dots(c.dpi) + c.st.dx) * 64)),
		Y: fixed.Int26_6(math.Round((h - pt.Y.Dots(c.dpi) - c.st.dy) * 64)),
	}}
	d.DrawString(s)
}
