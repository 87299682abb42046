package imgtest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TestRasteriseAsPNG: the page Rasterise reads from pdftoppm's PPM is,
// pixel for pixel, the page pdftoppm writes as PNG (what Rasterise read
// before), on a drawing of a filled box and a slanted outline (its
// edges antialiased).
func TestRasteriseAsPNG(t *testing.T) {
	NeedPoppler(t)
	pdf := Vgpdf(t, 3*vg.Inch, 2*vg.Inch, func(c draw.Canvas) {
		var box, tri vg.Path
		box.Move(vg.Point{X: 10, Y: 10})
		box.Line(vg.Point{X: 90, Y: 10})
		box.Line(vg.Point{X: 90, Y: 60})
		box.Line(vg.Point{X: 10, Y: 60})
		box.Close()
		c.SetColor(color.RGBA{R: 200, G: 40, B: 90, A: 255})
		c.Fill(box)
		tri.Move(vg.Point{X: 100, Y: 20})
		tri.Line(vg.Point{X: 180, Y: 120})
		tri.Line(vg.Point{X: 200, Y: 30})
		tri.Close()
		c.SetLineWidth(2)
		c.SetColor(color.RGBA{G: 120, B: 200, A: 255})
		c.Stroke(tri)
	})
	got := Rasterise(t, pdf, 100)
	raw := pdftoppm(t, pdf, 100, "png")
	want, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if got.Bounds() != want.Bounds() {
		t.Fatalf("page %v, as PNG %v", got.Bounds(), want.Bounds())
	}
	inked := 0
	for y := want.Bounds().Min.Y; y < want.Bounds().Max.Y; y++ {
		for x := want.Bounds().Min.X; x < want.Bounds().Max.X; x++ {
			gr, gg, gb, ga := got.At(x, y).RGBA()
			wr, wg, wb, wa := want.At(x, y).RGBA()
			if gr != wr || gg != wg || gb != wb || ga != wa {
				t.Fatalf("pixel (%d, %d): %v, as PNG %v", x, y, got.At(x, y), want.At(x, y))
			}
			if wr != wg || wg != wb {
				inked++
			}
		}
	}
	if inked < 1000 {
		t.Fatalf("only %d coloured pixels: the drawing is not on the page", inked)
	}
}

// TestDecodePPM: a PPM with another magic number, maximum, size or
// pixel count is an error, not a page.
func TestDecodePPM(t *testing.T) {
	img, err := decodePPM([]byte("P6\n2 1\n255\n\x01\x02\x03\xff\xfe\xfd"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (color.RGBA{R: 0xff, G: 0xfe, B: 0xfd, A: 0xff}); img.Bounds() != image.Rect(0, 0, 2, 1) || img.RGBAAt(1, 0) != want {
		t.Fatalf("%v, pixel (1, 0) %v, want %v", img.Bounds(), img.RGBAAt(1, 0), want)
	}
	for _, bad := range []string{
		"P3\n1 1\n255\n\x01\x02\x03", // text PPM
		"P6\n1 1\n65535\n\x01\x02\x03\x04\x05\x06",
		"P6\n2 1\n255\n\x01\x02\x03",
		"P6\n1 1\n255\n\x01\x02\x03\x04",
		"P6\n0 1\n255\n",
		"P6\nx 1\n255\n\x01\x02\x03",
		"P6\n1 1\n255",
		"P6\n100000 1\n255\n",
		"",
	} {
		if _, err := decodePPM([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
