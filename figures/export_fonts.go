package figures

import (
	"image"
	"image/color"
	"strconv"
	"sync"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgpdf"
)

// boldSafe works around vgpdf registering every font with style "" but
// selecting bold ones with "B": a bold face is handed over as a normal
// weight of its own variant (same glyph data, its own name).
type boldSafe struct{ vg.CanvasSizer }

func (c boldSafe) FillString(f font.Face, pt vg.Point, s string) {
	f = pdfFace(f)
	once, _ := pdfFontsMade.LoadOrStore(f, new(sync.Once))
	drawn := false
	once.(*sync.Once).Do(func() {
		drawn = true
		c.CanvasSizer.FillString(f, pt, s)
	})
	if !drawn {
		c.CanvasSizer.FillString(f, pt, s)
	}
}

// pdfFace is the face boldSafe hands to vgpdf for f.
func pdfFace(f font.Face) font.Face {
	if f.Font.Weight != xfont.WeightNormal || f.Font.Style != xfont.StyleNormal {
		f.Font.Variant += font.Variant("W" + strconv.Itoa(int(f.Font.Weight)) + "S" + strconv.Itoa(int(f.Font.Style)))
		f.Font.Weight, f.Font.Style = xfont.WeightNormal, xfont.StyleNormal
	}
	return f
}

// pdfFontsMade holds, per font face and size, whether this process has
// had vgpdf convert it. vgpdf converts a face for embedding (fpdf's
// MakeFont: temporary files, a parser reading two bytes per system call,
// zlib; about 30 ms of CPU each) and caches the result for the process,
// but two canvases drawing at once (the analyses of a build run in
// parallel) both miss the cache and both convert. The first string drawn
// in a face runs alone; the others wait for it, then find vgpdf's cache
// filled. It is process-wide because vgpdf's cache is.
var pdfFontsMade sync.Map // font.Face → *sync.Once

// prepareFonts starts converting, each in its own goroutine, the faces
// the PDF of d will embed that no one has started converting yet, so that
// the conversions run beside the drawing of the PNG (and of the other
// analyses' figures) instead of one after the other inside the PDF's
// drawing, with every other PDF waiting for them. It only warms vgpdf's
// cache: a conversion that fails leaves the PDF's drawing to fail as it
// would have.
func prepareFonts(d Drawing) {
	fc := &fontCollector{w: d.Width, h: d.Height, seen: map[font.Face]bool{}}
	d.Draw(draw.New(fc))
	for _, f := range fc.faces {
		once, loaded := pdfFontsMade.LoadOrStore(f, new(sync.Once))
		if loaded {
			continue
		}
		go once.(*sync.Once).Do(func() {
			defer func() { _ = recover() }() // vgpdf panics on a font it cannot convert
			c := vgpdf.New(d.Width, d.Height)
			c.EmbedFonts(true)
			c.FillString(f, vg.Point{}, "x")
		})
	}
}

// fontCollector is a canvas that draws nothing and lists, in the order
// they are first used, the faces (as pdfFace hands them to vgpdf) of the
// strings drawn on it.
type fontCollector struct {
	w, h  vg.Length
	seen  map[font.Face]bool
	faces []font.Face
}

func (c *fontCollector) FillString(f font.Face, _ vg.Point, _ string) {
	if f.Font.Size == 0 { // vgpdf draws nothing and converts nothing
		return
	}
	f = pdfFace(f)
	if !c.seen[f] {
		c.seen[f] = true
		c.faces = append(c.faces, f)
	}
}

func (c *fontCollector) Size() (vg.Length, vg.Length)        { return c.w, c.h }
func (c *fontCollector) SetLineWidth(vg.Length)              {}
func (c *fontCollector) SetLineDash([]vg.Length, vg.Length)  {}
func (c *fontCollector) SetColor(color.Color)                {}
func (c *fontCollector) Rotate(float64)                      {}
func (c *fontCollector) Translate(vg.Point)                  {}
func (c *fontCollector) Scale(float64, float64)              {}
func (c *fontCollector) Push()                               {}
func (c *fontCollector) Pop()                                {}
func (c *fontCollector) Stroke(vg.Path)                      {}
func (c *fontCollector) Fill(vg.Path)                        {}
func (c *fontCollector) DrawImage(vg.Rectangle, image.Image) {}
