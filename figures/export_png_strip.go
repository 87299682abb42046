package figures

import (
	"fmt"
	"image"
	"sync"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// pngStripBytes is about how many bytes of image a PNG is drawn in at a
// time (drawPNG). Every strip plays the whole recorded drawing again
// (only paths and text wholly outside the strip are skipped), so fewer
// strips cost less playing; smaller strips fault fewer fresh pages and
// stay in the cache. Seed 000's build (five forest plots of
// 1785–1900×1021 dots) took about the same CPU time with 256 KB to 2 MB
// (median of 7, within 20 ms: 30 to 4 strips a figure), and its peak
// RSS grew with the strip (39 MB at 256 KB, 45 MB at 2 MB). But what
// each strip allocates (a rasterizer, a face for each rotated text) adds
// up: at 512 KB the stability figures allocate about twice what they do
// at 1 MB (TestPNGDrawsInPlace).
const pngStripBytes = 1 << 20

// pngScratch is what drawing PNGs reuses from one figure to the next:
// the strip image's pixels, the faces and the encoder's buffers.
type pngScratch struct {
	pix   []byte
	faces map[pngFaceKey]pngFace
	enc   pngEncoder
	rec   pngRecording
}

// pngScratches holds the scratch of PNGs not being drawn now, about one
// per goroutine drawing PNGs at once: a cache, not state (a drawing
// takes one, or a new one, and gives it back as it found it but for
// the contents of its buffers, which every drawing overwrites first).
// Without it every figure would take its strip fresh from the kernel
// (about 2 MB, 500 page faults, several ms in a VM).
var pngScratches = sync.Pool{New: func() any { return &pngScratch{faces: map[pngFaceKey]pngFace{}} }}

// drawPNG draws d at dpi in horizontal strips of one image, top down,
// each strip painted white, the whole drawing (recorded once) played on
// it translated so that the strip's rows land in the image, and its rows encoded
// (pngEncoder) before the next strip is drawn: the figure's image is
// never whole in memory. A drawing that leaves a pixel translucent is
// drawn again on one image and encoded by image/png.
func drawPNG(d Drawing, dpi int) ([]byte, error) {
	w := dots(d.Width, dpi)
	return drawPNGStrips(d, dpi, max(16, pngStripBytes/(4*max(w, 1))))
}

// drawPNGStrips is drawPNG in strips of rows rows.
func drawPNGStrips(d Drawing, dpi, rows int) ([]byte, error) {
	w, h := dots(d.Width, dpi), dots(d.Height, dpi)
	if w == 0 || h == 0 {
		return drawPNGWhole(d, dpi)
	}
	s := pngScratches.Get().(*pngScratch)
	defer pngScratches.Put(s)
	rows = min(h, rows)
	// The strip is drawn with one row more above it, not encoded: the
	// rasterizer (freetype's) truncates a coordinate toward 0, so what
	// ends less than a row above an image's top edge is drawn in its
	// first row.
	s.pix = grow(s.pix, 4*w*(1+rows))
	strip := &image.RGBA{Pix: s.pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, 1+rows)}
	rowsOf := &image.RGBA{Pix: s.pix[4*w:], Stride: 4 * w, Rect: image.Rect(0, 0, w, rows)}
	// The figure's rectangle as vgimg gives it on an image of w×h dots.
	full := vg.Rectangle{Max: vg.Point{X: vg.Length(float64(w)/float64(dpi)) * vg.Inch, Y: vg.Length(float64(h)/float64(dpi)) * vg.Inch}}
	defer s.rec.reset()
	d.Draw(draw.Canvas{Canvas: &s.rec, Rectangle: full})
	s.enc.start(w, h)
	for y0 := 0; y0 < h; y0 += rows {
		c := newPNGCanvasOn(strip, dpi, s.faces)
		// Rows y0−1 to y0+rows down are, y up, h−y0−rows to h−y0+1:
		// moved down by h−y0−rows they are the strip's.
		c.Translate(vg.Point{Y: -vg.Length(float64(h-y0-rows)/float64(dpi)) * vg.Inch})
		s.rec.playOn(c)
		n := min(rows, h-y0)
		if !opaqueRows(rowsOf, n) {
			return drawPNGWhole(d, dpi)
		}
		if err := s.enc.rows(rowsOf, n); err != nil {
			return nil, fmt.Errorf("rows %d to %d: %w", y0, y0+n, err)
		}
	}
	return s.enc.finish()
}

// drawPNGWhole draws d at dpi on one image and encodes it (encodePNG).
func drawPNGWhole(d Drawing, dpi int) ([]byte, error) {
	c := newPNGCanvas(d.Width, d.Height, dpi)
	d.Draw(draw.New(c))
	return encodePNG(c.img)
}

// opaqueRows reports whether the first n rows of img are opaque.
func opaqueRows(img *image.RGBA, n int) bool {
	for y := range n {
		row := img.Pix[y*img.Stride : y*img.Stride+4*img.Rect.Dx()]
		for i := 3; i < len(row); i += 4 {
			if row[i] != 0xff {
				return false
			}
		}
	}
	return true
}
