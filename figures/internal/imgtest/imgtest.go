// Package imgtest holds what the tests of the figures and its PDF
// canvas compare pages with: poppler's rendering and text of a PDF,
// gonum/plot's vgpdf as the oracle of a page's pixels, and pixel
// differences. Only tests import it.
package imgtest

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"codeberg.org/go-pdf/fpdf"
	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgpdf"
)

// NeedPoppler skips when poppler's tools are missing (saying what to
// install); under CI it fails, since `make deps` installs them.
func NeedPoppler(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"pdfinfo", "pdftotext", "pdffonts", "pdftoppm"} {
		if _, err := exec.LookPath(tool); err != nil {
			msg := tool + " not found: run `make deps` (Debian poppler-utils)"
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

// Rasterise is the PDF's page as pdftoppm renders it at dpi. It reads
// pdftoppm's own format (binary PPM), not PNG: the page's pixels are the
// same, and compressing them was three quarters of pdftoppm's CPU
// (twenty of the demo's figures at 300 dpi: 4.1 s with -png, 0.9 s).
func Rasterise(t testing.TB, pdf []byte, dpi int) image.Image {
	t.Helper()
	img, err := decodePPM(pdftoppm(t, pdf, dpi, "ppm"))
	if err != nil {
		t.Fatalf("pdftoppm's page: %v", err)
	}
	return img
}

// pdftoppm renders the PDF's page at dpi in format ("ppm", pdftoppm's
// own, or "png") and returns the file's bytes.
func pdftoppm(t testing.TB, pdf []byte, dpi int, format string) []byte {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "f.pdf")
	if err := os.WriteFile(in, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-r", strconv.Itoa(dpi), "-singlefile", in, filepath.Join(dir, "f")}
	if format != "ppm" {
		args = append([]string{"-" + format}, args...)
	}
	if out, err := exec.Command("pdftoppm", args...).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "f."+format))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// decodePPM decodes a binary PPM of 8-bit samples ("P6", width, height,
// 255, each after white space, then one white space and the RGB
// triples; at most 65,536 pixels a side) into an opaque RGBA image, as
// image/png decodes the same pixels from a PNG.
func decodePPM(b []byte) (*image.RGBA, error) {
	var f [4]int
	rest := b
	for i := range f {
		j := 0
		for j < len(rest) && (rest[j] == ' ' || rest[j] == '\n' || rest[j] == '\r' || rest[j] == '\t') {
			j++
		}
		k := j
		for k < len(rest) && rest[k] > ' ' {
			k++
		}
		word := string(rest[j:k])
		if i == 0 {
			if word != "P6" {
				return nil, fmt.Errorf("not a binary PPM (starts %q)", word)
			}
		} else if n, err := strconv.Atoi(word); err != nil || n <= 0 {
			return nil, fmt.Errorf("PPM header field %d is %q", i, word)
		} else {
			f[i] = n
		}
		rest = rest[k:]
	}
	w, h := f[1], f[2]
	if w > 1<<16 || h > 1<<16 || f[3] != 255 || len(rest) < 1 || rest[0] > ' ' || len(rest)-1 != 3*w*h {
		return nil, fmt.Errorf("PPM of %d×%d, maximum %d, with %d bytes of pixels", w, h, f[3], len(rest)-1)
	}
	px := rest[1:]
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i, o := 0, 0; i < len(px); i, o = i+3, o+4 {
		img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = px[i], px[i+1], px[i+2], 255
	}
	return img, nil
}

// Text is the PDF's text as pdftotext reads it, without white space.
func Text(t testing.TB, pdf []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	text, err := exec.Command("pdftotext", "-raw", path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(text)), "")
}

// Fonts is what pdffonts lists of the PDF's fonts, one line a font.
func Fonts(t testing.TB, pdf []byte) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdffonts", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 {
		return nil
	}
	return lines[2:]
}

// Vgpdf is the drawing's PDF as gonum/plot's vgpdf draws it (what the
// figures' PDF was before their own canvas): the oracle of the pixels.
func Vgpdf(t testing.TB, w, h vg.Length, drawing func(draw.Canvas)) []byte {
	t.Helper()
	fpdf.SetDefaultCatalogSort(true)
	c := vgpdf.New(w, h)
	c.EmbedFonts(true)
	drawing(draw.New(vgpdfBold{c}))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// vgpdfBold works around vgpdf registering every face with style "" but
// selecting bold ones with "B": a bold face goes to vgpdf as a normal
// weight of a variant of its own.
type vgpdfBold struct{ vg.CanvasSizer }

func (c vgpdfBold) FillString(f font.Face, pt vg.Point, s string) {
	if f.Font.Weight != xfont.WeightNormal || f.Font.Style != xfont.StyleNormal {
		f.Font.Variant += font.Variant("W" + strconv.Itoa(int(f.Font.Weight)) + "S" + strconv.Itoa(int(f.Font.Style)))
		f.Font.Weight, f.Font.Style = xfont.WeightNormal, xfont.StyleNormal
	}
	c.CanvasSizer.FillString(f, pt, s)
}

// SetColor hands vgpdf the colour's straight (not premultiplied) values,
// which it takes a colour's RGBA for: its translucent colours were too
// dark (the SVG's and PNG's were not).
func (c vgpdfBold) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	c.CanvasSizer.SetColor(straight(color.NRGBAModel.Convert(clr).(color.NRGBA)))
}

type straight color.NRGBA

func (s straight) RGBA() (r, g, b, a uint32) {
	return uint32(s.R) * 257, uint32(s.G) * 257, uint32(s.B) * 257, uint32(s.A) * 257
}

// NoText is a drawing without its text.
func NoText(drawing func(draw.Canvas)) func(draw.Canvas) {
	return func(c draw.Canvas) {
		c.Canvas = textless{c.Canvas}
		drawing(c)
	}
}

type textless struct{ vg.Canvas }

func (textless) FillString(font.Face, vg.Point, string) {}

// PixelDiff compares two images of one size: the share of pixels whose
// channels differ by more than 64 of 255, and the mean difference.
func PixelDiff(a, b image.Image) (far, mean float64) {
	bd := a.Bounds()
	n, sum := 0, 0.0
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			d := channelDiff(a.At(x, y), b.At(x, y))
			if d > 64 {
				n++
			}
			sum += d
		}
	}
	px := float64(bd.Dx() * bd.Dy())
	return float64(n) / px, sum / px
}

// channelDiff is the largest difference of two colours' channels, of 255.
func channelDiff(a, b color.Color) float64 {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	return max(abs(float64(r1)-float64(r2)), abs(float64(g1)-float64(g2)), abs(float64(b1)-float64(b2))) / 257
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// InkMissing is the share of a's dark pixels (any channel below 96 of
// 255) with no inked pixel (any channel below 192) in b within one pixel:
// text drawn in other places, missing or added, not its anti-aliasing.
func InkMissing(a, b image.Image) float64 {
	bd := a.Bounds().Intersect(b.Bounds())
	ma, mb := darkest(a), darkest(b)
	ab, bb := a.Bounds(), b.Bounds()
	inkB := func(x, y int) bool {
		return (image.Point{x, y}).In(bb) && mb[(y-bb.Min.Y)*bb.Dx()+x-bb.Min.X] < 192
	}
	dark, missing := 0, 0
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			if ma[(y-ab.Min.Y)*ab.Dx()+x-ab.Min.X] >= 96 {
				continue
			}
			dark++
			near := false
			for dy := -1; dy <= 1 && !near; dy++ {
				for dx := -1; dx <= 1 && !near; dx++ {
					near = inkB(x+dx, y+dy)
				}
			}
			if !near {
				missing++
			}
		}
	}
	return float64(missing) / float64(max(dark, 1))
}

// darkest is each pixel's smallest colour channel, of 255 (as
// min(r, g, b)>>8 of its RGBA), row by row: read from an *image.RGBA's
// bytes, from any other image through At.
func darkest(img image.Image) []uint8 {
	bd := img.Bounds()
	out := make([]uint8, 0, bd.Dx()*bd.Dy())
	if rgba, ok := img.(*image.RGBA); ok {
		for y := bd.Min.Y; y < bd.Max.Y; y++ {
			row := rgba.Pix[rgba.PixOffset(bd.Min.X, y):]
			for i := 0; i < 4*bd.Dx(); i += 4 {
				out = append(out, min(row[i], row[i+1], row[i+2]))
			}
		}
		return out
	}
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			out = append(out, uint8(min(r, g, b)>>8))
		}
	}
	return out
}

// WriteCmp writes a, b and their far-off pixels (black) one above the
// other, to look at (tests do when EVALBOOK_PDFCMP names a directory).
func WriteCmp(path string, a, b image.Image) {
	bd := a.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, bd.Dx(), 3*bd.Dy()))
	for y := 0; y < bd.Dy(); y++ {
		for x := 0; x < bd.Dx(); x++ {
			ca, cb := a.At(bd.Min.X+x, bd.Min.Y+y), b.At(bd.Min.X+x, bd.Min.Y+y)
			out.Set(x, y, ca)
			out.Set(x, y+bd.Dy(), cb)
			if channelDiff(ca, cb) > 64 {
				out.Set(x, y+2*bd.Dy(), image.Black.C)
			} else {
				out.Set(x, y+2*bd.Dy(), image.White.C)
			}
		}
	}
	var buf bytes.Buffer
	png.Encode(&buf, out)
	os.WriteFile(path, buf.Bytes(), 0o644)
}
