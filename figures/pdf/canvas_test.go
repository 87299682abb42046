package pdf

import (
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/evalbook/evalbook/figures/internal/imgtest"
)

// render draws on a new canvas of w×h and returns its PDF.
func render(t *testing.T, w, h vg.Length, drawing func(draw.Canvas)) []byte {
	t.Helper()
	c := New(w, h)
	drawing(draw.New(c))
	b, err := c.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sample is a drawing that uses every operation of the canvas a figure
// uses: a plot with a title, a rotated axis label, ticks and a grid,
// dashed and translucent lines, a translucent filled polygon, text
// beyond cp1252 (−, →, ρ, τ², accents) and a bold face.
func sample(t *testing.T) (vg.Length, vg.Length, func(draw.Canvas)) {
	t.Helper()
	p := plot.New()
	p.Title.Text = "Café, Ångström: τ² → ρ"
	p.X.Label.Text = "β − 1 (ratio)"
	p.Y.Label.Text = "share of datasets ρ(β)"
	p.Add(plotter.NewGrid())
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0.1}, {X: 1, Y: 0.7}, {X: 2, Y: 0.9}, {X: 3, Y: 1}})
	if err != nil {
		t.Fatal(err)
	}
	l.Color = color.NRGBA{0x00, 0x72, 0xB2, 0xFF}
	l.Width = vg.Points(1.5)
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	p.Add(l)
	poly, err := plotter.NewPolygon(plotter.XYs{{X: 0.5, Y: 0.2}, {X: 2.5, Y: 0.3}, {X: 1.5, Y: 0.8}})
	if err != nil {
		t.Fatal(err)
	}
	poly.Color = color.NRGBA{0xC8, 0x52, 0x00, 0x80}
	p.Add(poly)
	p.Legend.Add("dashed", l)
	w, h := 3.33*vg.Inch, 2.5*vg.Inch
	bold := font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(9), Weight: xfont.WeightBold}
	return w, h, func(c draw.Canvas) {
		p.Draw(c)
		c.FillText(draw.TextStyle{Color: color.Black, Font: bold, Handler: plot.DefaultTextHandler}, vg.Point{X: 20, Y: 12}, "Bold: Σ weight 100%")
	}
}

// TestMatchesVgpdf: the canvas draws what gonum/plot's vgpdf drew (the
// oracle): without the text, pixel for pixel at 150 dpi (pdftoppm);
// with it, every inked pixel of the page at 300 dpi has ink within a
// pixel in vgimg's PNG of the same drawing and the other way round (vgpdf
// set text off its baseline, so the PNG is the text's oracle); the text
// is in the PDF (pdftotext) and every font is an embedded subset with a
// ToUnicode map (pdffonts).
func TestMatchesVgpdf(t *testing.T) {
	imgtest.NeedPoppler(t)
	w, h, d := sample(t)
	got := imgtest.Rasterise(t, render(t, w, h, imgtest.NoText(d)), 150)
	want := imgtest.Rasterise(t, imgtest.Vgpdf(t, w, h, imgtest.NoText(d)), 150)
	if got.Bounds() != want.Bounds() {
		t.Fatalf("page %v, vgpdf's %v", got.Bounds(), want.Bounds())
	}
	if far, mean := imgtest.PixelDiff(got, want); far > 0.002 || mean > 0.5 {
		t.Errorf("without text: %.4f%% of pixels far off vgpdf's, mean difference %.3f", 100*far, mean)
	}
	pdf := render(t, w, h, d)
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(300))
	d(draw.New(c))
	page := imgtest.Rasterise(t, pdf, 300)
	if dir := os.Getenv("EVALBOOK_PDFCMP"); dir != "" { // to look at
		imgtest.WriteCmp(filepath.Join(dir, "pdf-sample.png"), page, c.Image())
	}
	if miss := max(imgtest.InkMissing(page, c.Image()), imgtest.InkMissing(c.Image(), page)); miss > 0.002 {
		t.Errorf("%.4f%% of the inked pixels of the page or the PNG have no ink near them in the other", 100*miss)
	}
	text := imgtest.Text(t, pdf)
	for _, s := range []string{"Café,Ångström:τ²→ρ", "β−1(ratio)", "shareofdatasetsρ(β)", "Bold:Σweight100%", "dashed"} {
		if !strings.Contains(text, s) {
			t.Errorf("text %q not in the PDF's %q", s, text)
		}
	}
	fonts := imgtest.Fonts(t, pdf)
	if len(fonts) < 2 {
		t.Errorf("want a regular and a bold face, pdffonts lists %q", fonts)
	}
	for _, l := range fonts {
		if f := strings.Fields(l); len(f) < 5 || f[len(f)-5] != "yes" || f[len(f)-4] != "yes" || f[len(f)-3] != "yes" {
			t.Errorf("font not embedded as a subset with a ToUnicode map: %s", l)
		}
	}
}

// TestImage: images are drawn upright (their first row at the top, as
// vgimg draws them; vgpdf turned them upside down), in their colours,
// translucent ones blended.
func TestImage(t *testing.T) {
	imgtest.NeedPoppler(t)
	img := image.NewNRGBA(image.Rect(0, 0, 4, 3))
	for y := range 3 {
		for x := range 4 {
			img.Set(x, y, color.NRGBA{R: uint8(60 * x), G: uint8(100 * y), B: 200, A: 255})
		}
	}
	see := image.NewNRGBA(img.Rect)
	copy(see.Pix, img.Pix)
	for i := 3; i < len(see.Pix); i += 4 {
		see.Pix[i] = 128
	}
	pdf := render(t, 3*vg.Inch, 2*vg.Inch, func(c draw.Canvas) {
		c.DrawImage(vg.Rectangle{Min: vg.Point{X: 10, Y: 10}, Max: vg.Point{X: 100, Y: 80}}, img)
		c.DrawImage(vg.Rectangle{Min: vg.Point{X: 60, Y: 40}, Max: vg.Point{X: 200, Y: 130}}, see)
	})
	page := imgtest.Rasterise(t, pdf, 72) // one pixel a point; the page is 216×144
	// The opaque image is 4×3 cells of 22.5×23.3 pt from (10, 10) to
	// (100, 80), y up; the translucent one covers it from (60, 40) on.
	for _, c := range []struct {
		x, y int // pixel, y down
		want color.NRGBA
	}{
		{21, 144 - 70, color.NRGBA{0, 0, 200, 255}},      // first row, first column: top left
		{21, 144 - 20, color.NRGBA{0, 200, 200, 255}},    // last row, first column: bottom left
		{43, 144 - 20, color.NRGBA{60, 200, 200, 255}},   // last row, second column
		{190, 144 - 50, color.NRGBA{218, 227, 227, 255}}, // translucent last row, last column over white
	} {
		r, g, b, _ := page.At(c.x, c.y).RGBA()
		got := color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}
		if d := max(diff(got.R, c.want.R), diff(got.G, c.want.G), diff(got.B, c.want.B)); d > 3 {
			t.Errorf("pixel (%d, %d) is %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

func diff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// TestNotFinite: a drawing with a NaN coordinate is an error, not a PDF
// with the point drawn somewhere else.
func TestNotFinite(t *testing.T) {
	c := New(100, 100)
	var p vg.Path
	p.Move(vg.Point{X: 1, Y: 1})
	p.Line(vg.Point{X: vg.Length(math.NaN()), Y: 5})
	draw.New(c).Stroke(p)
	if _, err := c.Bytes(); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("err = %v, want one naming NaN", err)
	}
}
