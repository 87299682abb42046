package figures

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// vgimgPNG is the drawing drawn by vgimg alone and encoded at level:
// what Drawing.PNG wrote before pngCanvas.
func vgimgPNG(t testing.TB, d Drawing, level png.CompressionLevel) []byte {
	c := vgimg.NewWith(vgimg.UseWH(d.Width, d.Height), vgimg.UseDPI(PNGDPI))
	d.Draw(draw.New(c))
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: level}).Encode(&buf, c.Image()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkPNGEncode: the PNGs of the sample drawings, drawn by vgimg or
// pngCanvas, encoded by image/png at the default level or the fastest,
// or by encodePNG; prints the CPU time and bytes per figure.
func BenchmarkPNGEncode(b *testing.B) {
	t := &testing.T{}
	samples := exportSamples(t)
	for _, c := range []struct {
		name string
		png  func(Drawing) []byte
	}{
		{"vgimg-default", func(d Drawing) []byte { return vgimgPNG(b, d, png.DefaultCompression) }},
		{"vgimg-bestspeed", func(d Drawing) []byte { return vgimgPNG(b, d, png.BestSpeed) }},
		{"pngcanvas-stdlib-bestspeed", func(d Drawing) []byte {
			c := newPNGCanvas(d.Width, d.Height, PNGDPI)
			d.Draw(draw.New(c))
			var buf bytes.Buffer
			if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, c.Image()); err != nil {
				b.Fatal(err)
			}
			return buf.Bytes()
		}},
		{"pngcanvas-encodePNG", func(d Drawing) []byte {
			raw, err := d.PNG(PNGDPI)
			if err != nil {
				b.Fatal(err)
			}
			return raw
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			size, cpu0 := 0, processCPUSeconds()
			for range b.N {
				size = 0
				for _, d := range samples {
					size += len(c.png(d))
				}
			}
			b.ReportMetric(float64(size)/float64(len(samples)), "bytes/figure")
			b.ReportMetric(1000*(processCPUSeconds()-cpu0)/float64(b.N*len(samples)), "cpu-ms/figure")
		})
	}
}

// TestPNGMatchesVgimg: the PNG's pixels are vgimg's but for the
// anti-aliasing of text (pngCanvas places glyphs at their fraction of a
// pixel): few pixels far off, and every dark pixel of either image has
// ink within a pixel in the other.
func TestPNGMatchesVgimg(t *testing.T) {
	for name, d := range exportSamples(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			raw, err := d.PNG(PNGDPI)
			if err != nil {
				t.Fatal(err)
			}
			got, err := png.Decode(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			want, err := png.Decode(bytes.NewReader(vgimgPNG(t, d, png.DefaultCompression)))
			if err != nil {
				t.Fatal(err)
			}
			if got.Bounds() != want.Bounds() {
				t.Fatalf("%v, vgimg's %v", got.Bounds(), want.Bounds())
			}
			if dir := os.Getenv("EVALBOOK_PDFCMP"); dir != "" { // to look at
				writeCmp(filepath.Join(dir, name+".png-vs-vgimg.png"), got, want)
			}
			far, mean := pixelDiff(got, want)
			miss := max(inkMissing(got, want), inkMissing(want, got))
			t.Logf("%s: %.4f%% far off, mean %.3f, ink missing %.4f%%", name, 100*far, mean, 100*miss)
			if far > 0.01 || mean > 2 || miss > 0.001 {
				t.Errorf("%.4f%% of pixels far off vgimg's, mean difference %.3f, %.4f%% of inked pixels without ink near them in the other", 100*far, mean, 100*miss)
			}
		})
	}
}

// TestEncodePNG: encodePNG's files decode (image/png) to exactly the
// image encoded, opaque (its own encoder) or not (image/png's).
func TestEncodePNG(t *testing.T) {
	t.Parallel()
	_, d := samplePlot(t)
	c := newPNGCanvas(d.Width, d.Height, 100)
	d.Draw(draw.New(c))
	clear := image.NewRGBA(image.Rect(0, 0, 7, 3))
	clear.Set(2, 1, color.NRGBA{R: 200, A: 100})
	for name, img := range map[string]*image.RGBA{"plot": c.img, "translucent": clear} {
		raw, err := encodePNG(img)
		if err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Bounds() != img.Bounds() {
			t.Fatalf("%s: %v, want %v", name, got.Bounds(), img.Bounds())
		}
		for y := range img.Rect.Dy() {
			for x := range img.Rect.Dx() {
				if color.NRGBAModel.Convert(got.At(x, y)) != color.NRGBAModel.Convert(img.At(x, y)) {
					t.Fatalf("%s: pixel (%d, %d) decodes as %v, was %v", name, x, y, got.At(x, y), img.At(x, y))
				}
			}
		}
	}
}

// TestPNGDrawsInPlace: a PNG is drawn in strips of one image that the
// next figure draws in again, so drawing a figure's PNG allocates far
// less than its image (vgimg with UseWH made one image and gg copied it
// into a second: twice the megabytes of a 300 dpi figure, per figure,
// in a build's peak memory; drawn on one image, once).
func TestPNGDrawsInPlace(t *testing.T) {
	for name, d := range exportSamples(t) {
		img := float64(4 * dots(d.Width, PNGDPI) * dots(d.Height, PNGDPI))
		if _, err := d.PNG(PNGDPI); err != nil { // the strip, made once
			t.Fatal(err)
		}
		got := math.Inf(1)
		for range 3 { // the least of three: a collection may empty the pool between two
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, err := d.PNG(PNGDPI); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			got = min(got, float64(after.TotalAlloc-before.TotalAlloc))
		}
		t.Logf("%s: %.2f MB allocated, %.2f times its %.1f MB image", name, got/1e6, got/img, img/1e6)
		if got > 0.8*img {
			t.Errorf("%s: drawing its PNG allocated %.1f MB, %.2f times its %.1f MB image (want under 0.8: the drawing, recorded once, and the file; not a whole image)", name, got/1e6, got/img, img/1e6)
		}
	}
}

// TestPNGDeterministic: a drawing's PNG is the same bytes every time,
// whatever was drawn before with the same strip, faces and encoder.
func TestPNGDeterministic(t *testing.T) {
	samples := exportSamples(t)
	first := map[string][]byte{}
	for range 2 {
		for name, d := range samples { // another order each time
			raw, err := d.PNG(PNGDPI)
			if err != nil {
				t.Fatal(err)
			}
			if prev, ok := first[name]; ok && !bytes.Equal(prev, raw) {
				t.Errorf("%s: %d bytes, then %d different ones", name, len(prev), len(raw))
			}
			first[name] = raw
		}
	}
}

// TestPNGStripsMatchWhole: a PNG drawn in strips (drawPNGStrips: 37
// rows, so every figure has many strip edges, through text, rotated
// text, lines and images, and the build's size) decodes to the pixels of
// the drawing drawn on one image (drawPNGWhole) but for the
// anti-aliasing of a few pixels, a few levels off.
func TestPNGStripsMatchWhole(t *testing.T) {
	for name, d := range exportSamples(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			whole, err := drawPNGWhole(d, PNGDPI)
			if err != nil {
				t.Fatal(err)
			}
			want, err := png.Decode(bytes.NewReader(whole))
			if err != nil {
				t.Fatal(err)
			}
			for _, rows := range []int{37, pngStripBytes / (4 * dots(d.Width, PNGDPI))} {
				raw, err := drawPNGStrips(d, PNGDPI, rows)
				if err != nil {
					t.Fatal(err)
				}
				got, err := png.Decode(bytes.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				if got.Bounds() != want.Bounds() {
					t.Fatalf("strips of %d rows: %v, on one image %v", rows, got.Bounds(), want.Bounds())
				}
				n, most, at := pixelsOff(got, want)
				t.Logf("strips of %d rows: %d pixels off, at most %d levels (%v)", rows, n, most, at)
				if most > 4 || float64(n) > 1e-4*float64(want.Bounds().Dx()*want.Bounds().Dy()) {
					t.Errorf("strips of %d rows: %d pixels differ from the drawing on one image, by up to %d levels (at %v)", rows, n, most, at)
				}
			}
		})
	}
}

// pixelsOff is how many pixels of a and b (of one size) differ, by how
// many levels of 255 at most, and where first by that much.
func pixelsOff(a, b image.Image) (n, most int, at image.Point) {
	bd := a.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			d := int(max(abs(float64(r1>>8)-float64(r2>>8)), abs(float64(g1>>8)-float64(g2>>8)), abs(float64(b1>>8)-float64(b2>>8))))
			if d > 0 {
				n++
			}
			if d > most {
				most, at = d, image.Pt(x, y)
			}
		}
	}
	return n, most, at
}

// TestPNGEncoderRows: opaque images of odd and even widths (one pixel
// to more than 256 words a row), random or with runs of equal rows,
// given in uneven strips, decode (image/png) to exactly the image, and
// each row is filtered by the filter a byte at a time would choose.
func TestPNGEncoderRows(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 2))
	var e pngEncoder
	for _, w := range []int{1, 2, 3, 257, 1100} {
		h := 23
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				v := uint8(rnd.IntN(256))
				if y%5 == 2 || rnd.IntN(3) == 0 {
					v = 255 - uint8(x%7) // smooth, and rows 2, 7... repeated below
				}
				img.SetRGBA(x, y, color.RGBA{v, v ^ uint8(y), uint8(rnd.IntN(256)) | 0x80, 255})
			}
			if y%5 == 3 {
				copy(img.Pix[y*img.Stride:(y+1)*img.Stride], img.Pix[(y-1)*img.Stride:])
			}
		}
		if w == 2 { // Sub's 1+1 beats Up's 1+2 by one
			img.SetRGBA(0, 0, color.RGBA{1, 0, 0, 255})
			img.SetRGBA(1, 0, color.RGBA{2, 0, 0, 255})
		}
		e.start(w, h)
		for y0 := 0; y0 < h; {
			n := min(h-y0, 1+rnd.IntN(9))
			strip := &image.RGBA{Pix: img.Pix[y0*img.Stride:], Stride: img.Stride, Rect: image.Rect(0, 0, w, n)}
			if err := e.rows(strip, n); err != nil {
				t.Fatal(err)
			}
			y0 += n
		}
		raw, err := e.finish()
		if err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("width %d: %v", w, err)
		}
		if n, most, at := pixelsOff(got, img); n > 0 {
			t.Errorf("width %d: %d pixels decode otherwise, up to %d levels (at %v)", w, n, most, at)
		}
		for y := range h { // the filter chosen, against a byte at a time
			row := img.Pix[y*img.Stride : (y+1)*img.Stride]
			prev := bytes.Repeat([]byte{0, 0, 0, 255}, w) // opaque black, as pngEncoder.start
			if y > 0 {
				prev = img.Pix[(y-1)*img.Stride : y*img.Stride]
			}
			if got, want := e.filter(row, prev)[0], slowFilter(row, prev); got != want {
				t.Errorf("width %d, row %d: filter %d, a byte at a time %d", w, y, got, want)
			}
		}
	}
}

// slowFilter is the filter type (Up 2, Sub 1) whose RGB bytes, as
// signed, sum to less in absolute value, Up on a tie; prev is black.
func slowFilter(row, prev []byte) byte {
	var up, sub int
	for i := range row {
		if i%4 == 3 {
			continue
		}
		left := byte(0)
		if i >= 4 {
			left = row[i-4]
		}
		up += absByte(row[i] - prev[i])
		sub += absByte(row[i] - left)
	}
	if sub < up {
		return 1
	}
	return 2
}
