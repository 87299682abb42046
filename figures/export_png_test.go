package figures

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"gonum.org/v1/plot/vg"
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

// TestPNGDrawsInPlace: a PNG's drawing allocates its image once (vgimg
// with UseWH makes one image and gg copies it into a second: twice the
// megabytes of a 300 dpi figure, per figure, in a build's peak memory).
func TestPNGDrawsInPlace(t *testing.T) {
	for name, d := range exportSamples(t) {
		img := float64(4 * int(d.Width/vg.Inch*PNGDPI+0.5) * int(d.Height/vg.Inch*PNGDPI+0.5))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := d.PNG(PNGDPI); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if got := float64(after.TotalAlloc - before.TotalAlloc); got > 2.5*img {
			t.Errorf("%s: drawing its PNG allocated %.1f MB, %.2f times its %.1f MB image (want under 2.5: the image, its rasterizer and the encoder)", name, got/1e6, got/img, img/1e6)
		}
	}
}

// TestByteBudget: take waits while the bytes out plus its own would pass
// the total, never when nothing is out, and each give is counted once.
func TestByteBudget(t *testing.T) {
	b := newByteBudget(10)
	used := func() (int, int) { b.mu.Lock(); defer b.mu.Unlock(); return b.used, b.waiting }
	blocked := func() { // polls until a take waits
		t.Helper()
		for i := 0; ; i++ {
			if _, w := used(); w == 1 {
				return
			}
			if i == 1e7 {
				t.Fatal("a take that does not fit never waited")
			}
			runtime.Gosched()
		}
	}
	g1 := b.take(6)
	g2 := b.take(4) // 10 of 10: fits
	got := make(chan func())
	go func() { got <- b.take(3) }() // 13: must wait
	blocked()
	g2()
	g2() // counted once
	g3 := <-got
	if u, _ := used(); u != 9 {
		t.Fatalf("%d bytes out after 6 + 4 - 4 + 3, want 9", u)
	}
	go func() { got <- b.take(2) }() // 11: must wait
	blocked()
	g1()
	g4 := <-got
	if u, _ := used(); u != 5 {
		t.Fatalf("%d bytes out after 9 - 6 + 2, want 5", u)
	}
	g3()
	g4()
	b.take(50)() // larger than the total: runs alone
	if u, w := used(); u != 0 || w != 0 {
		t.Errorf("%d bytes out and %d waiting after every give", u, w)
	}
}
