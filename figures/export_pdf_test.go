package figures

import (
	"bytes"
	"html"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"codeberg.org/go-pdf/fpdf"
	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgpdf"

	"github.com/evalbook/evalbook/analyses/meta"
)

// exportSamples are real drawings of several kinds, laid out at column
// width as the build exports them: a line plot (rotated axis label), a
// forest plot (bold rows, τ², en dashes), a funnel plot, a
// critical-difference diagram (α), a correlation heatmap with its
// legend, and the clusters and stability figures.
func exportSamples(t *testing.T) map[string]Drawing {
	t.Helper()
	out := map[string]Drawing{}
	add := func(name string, figs []Figure, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range figs {
			if f.Drawing != nil {
				out[name+"-"+itoa(i)] = f.Drawing.AtWidth(ColumnWidth)
			}
		}
	}
	_, plain := samplePlot(t)
	out["plot"] = plain.AtWidth(ColumnWidth)
	figs, err := Meta("forest", "BPR vs MF", metaResult(t, false, true))
	add("forest", figs, err)
	var studies []meta.Study
	for i, y := range []float64{0.1, 0.15, 0.12, 0.3, 0.05, 0.11, 2.5, 0.2, 0.14, 0.09} {
		studies = append(studies, meta.Study{Dataset: "paper-" + string(rune('a'+i)), Form: meta.Generic, Yi: y, Vi: 0.002 * float64(1+i%4)})
	}
	var o meta.Options
	o.Defaults()
	o.Sensitivity = true
	o.Summary.Path = "papers.csv"
	r, err := meta.Analyze(meta.Input{Studies: studies}, o)
	if err != nil {
		t.Fatal(err)
	}
	figs, err = Meta("funnel", "Published", r)
	add("funnel", figs, err)
	figs, err = CriticalDifference("cd", "CD", cdResult(t, true))
	add("cd", figs, err)
	figs, err = MetricCorrelation("corr", "Agreement", corrTestResult())
	add("corr", figs, err)
	figs, err = Clusters("clusters", "Clusters", clustersFixture(t))
	add("clusters", figs, err)
	figs, err = Stability("stab", "Stability", stabilityResult(t))
	add("stab", figs, err)
	accents := NewPlot("Café, Ångström, naïve ñ", "τ² – ρ", "α ≥ β")
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 3}})
	if err != nil {
		t.Fatal(err)
	}
	accents.Add(l)
	out["accents"] = PlotDrawing(accents, ColumnWidth, 2*vg.Inch)
	return out
}

// TestPDFImage: images are drawn upright (their first row at the top, as
// vgimg draws them; vgpdf turned them upside down), in their colours,
// translucent ones blended.
func TestPDFImage(t *testing.T) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Skip("no pdftoppm: install poppler-utils")
	}
	t.Parallel()
	pdf, err := imageDrawing().PDF()
	if err != nil {
		t.Fatal(err)
	}
	page := rasterise(t, pdf, "72") // one pixel a point; the page is 216×144
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
		if d := max(abs(float64(got.R)-float64(c.want.R)), abs(float64(got.G)-float64(c.want.G)), abs(float64(got.B)-float64(c.want.B))); d > 3 {
			t.Errorf("pixel (%d, %d) is %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

// imageDrawing draws an opaque and a translucent image, scaled up.
func imageDrawing() Drawing {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 3))
	for y := range 3 {
		for x := range 4 {
			img.Set(x, y, color.NRGBA{R: uint8(60 * x), G: uint8(100 * y), B: 200, A: 255})
		}
	}
	see := image.NewNRGBA(img.Rect)
	for i := range img.Pix {
		see.Pix[i] = img.Pix[i]
		if i%4 == 3 {
			see.Pix[i] = 128
		}
	}
	return Drawing{Width: 3 * vg.Inch, Height: 2 * vg.Inch, Draw: func(c draw.Canvas) {
		c.DrawImage(vg.Rectangle{Min: vg.Point{X: 10, Y: 10}, Max: vg.Point{X: 100, Y: 80}}, img)
		c.DrawImage(vg.Rectangle{Min: vg.Point{X: 60, Y: 40}, Max: vg.Point{X: 200, Y: 130}}, see)
	}}
}

// vgpdfPDF is the drawing's PDF as gonum/plot's vgpdf draws it (what
// Drawing.PDF wrote before its own canvas): the oracle of the pixels.
func vgpdfPDF(t *testing.T, d Drawing) []byte {
	t.Helper()
	fpdf.SetDefaultCatalogSort(true)
	c := vgpdf.New(d.Width, d.Height)
	c.EmbedFonts(true)
	d.Draw(draw.New(vgpdfBold{c}))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rasterise is the PDF's page as pdftoppm renders it at dpi.
func rasterise(t *testing.T, pdf []byte, dpi string) image.Image {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "f.pdf")
	if err := os.WriteFile(in, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("pdftoppm", "-png", "-r", dpi, "-singlefile", in, filepath.Join(dir, "f")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "f.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// pixelDiff compares two images of one size: the share of pixels whose
// channels differ by more than 64 of 255, and the mean difference.
func pixelDiff(a, b image.Image) (far, mean float64) {
	bd := a.Bounds()
	n, sum := 0, 0.0
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			d := max(abs(float64(r1)-float64(r2)), abs(float64(g1)-float64(g2)), abs(float64(b1)-float64(b2))) / 257
			if d > 64 {
				n++
			}
			sum += d
		}
	}
	px := float64(bd.Dx() * bd.Dy())
	return float64(n) / px, sum / px
}

// TestPDFMatchesVgpdf: the PDF canvas draws what vgpdf drew: without
// the text, pixel for pixel at 150 dpi (pdftoppm; vgpdf given straight
// colours, see vgpdfBold.SetColor). Its text is placed as the PNG's
// (vgimg) is, kerned and on the baseline (vgpdf did neither, and its
// cp1252 fonts dropped −, → and ρ): at 300 dpi every dark pixel of the
// page has ink within a pixel in the PNG and the other way round (vgpdf's
// pages miss 0.2–15% of them). Every text of the SVG is in the PDF
// (pdftotext) and every font is embedded as a subset (pdffonts).
func TestPDFMatchesVgpdf(t *testing.T) {
	needPoppler(t)
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Skip("no pdftoppm: install poppler-utils")
	}
	for name, d := range exportSamples(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bare, err := noText(d).PDF()
			if err != nil {
				t.Fatal(err)
			}
			got, want := rasterise(t, bare, "150"), rasterise(t, vgpdfPDF(t, noText(d)), "150")
			if got.Bounds() != want.Bounds() {
				t.Fatalf("page %v, vgpdf's %v", got.Bounds(), want.Bounds())
			}
			far, mean := pixelDiff(got, want)
			if dir := os.Getenv("EVALBOOK_PDFCMP"); dir != "" { // to look at
				writeCmp(filepath.Join(dir, name+".bare.png"), got, want)
			}
			if far > 0.002 || mean > 0.5 {
				t.Errorf("without text: %.4f%% of pixels far off vgpdf's, mean difference %.3f", 100*far, mean)
			}
			pdf, err := d.PDF()
			if err != nil {
				t.Fatal(err)
			}
			raw, err := d.PNG(PNGDPI)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := png.Decode(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			page := rasterise(t, pdf, strconv.Itoa(PNGDPI))
			if dir := os.Getenv("EVALBOOK_PDFCMP"); dir != "" {
				writeCmp(filepath.Join(dir, name+".png-vs-pdf.png"), page, ref)
			}
			if miss := max(inkMissing(page, ref), inkMissing(ref, page)); miss > 0.002 {
				t.Errorf("%.4f%% of the inked pixels of the page or the PNG have no ink near them in the other", 100*miss)
			}
			t.Logf("%s: ink missing %.4f%%", name, 100*max(inkMissing(page, ref), inkMissing(ref, page)))
			checkPDFText(t, d, pdf)
		})
	}
}

// checkPDFText checks that every text of the drawing's SVG that
// pdftotext finds in vgpdf's PDF (text off the page or rotated it may
// not find; vgpdf's text lacks its characters beyond ASCII) it finds in
// the PDF too, and that every font of the PDF is an
// embedded subset with a ToUnicode map.
func checkPDFText(t *testing.T, d Drawing, pdf []byte) {
	t.Helper()
	svg, err := d.SVG()
	if err != nil {
		t.Fatal(err)
	}
	got, old := pdfText(t, pdf), pdfText(t, vgpdfPDF(t, d))
	for _, m := range regexp.MustCompile(`<text[^>]*>([^<]+)</text>`).FindAllStringSubmatch(string(svg), -1) {
		s := strings.Join(strings.Fields(html.UnescapeString(m[1])), "")
		onPage := true // vgpdf's text has s but for its characters beyond ASCII
		for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r > 0x7f }) {
			onPage = onPage && strings.Contains(old, part)
		}
		if onPage && !strings.Contains(got, s) {
			t.Errorf("the SVG's text %q is not in the PDF's", s)
		}
	}
	path := filepath.Join(t.TempDir(), "f.pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	fonts, err := exec.Command("pdffonts", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(fonts)), "\n")
	if len(lines) < 3 && strings.Contains(string(svg), "<text") {
		t.Errorf("no fonts:\n%s", fonts)
	}
	for _, l := range lines[2:] {
		if f := strings.Fields(l); len(f) < 5 || f[len(f)-5] != "yes" || f[len(f)-4] != "yes" || f[len(f)-3] != "yes" {
			t.Errorf("font not embedded as a subset with a ToUnicode map: %s", l)
		}
	}
}

// pdfText is the PDF's text as pdftotext reads it, without white space.
func pdfText(t *testing.T, pdf []byte) string {
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

// inkMissing is the share of a's dark pixels (any channel below 96 of
// 255) with no inked pixel (any channel below 192) in b within one pixel:
// text drawn in other places, missing or added, not its anti-aliasing.
func inkMissing(a, b image.Image) float64 {
	ink := func(img image.Image, x, y int, lim uint32) bool {
		if !(image.Point{x, y}.In(img.Bounds())) {
			return false
		}
		r, g, bl, _ := img.At(x, y).RGBA()
		return min(r, g, bl)>>8 < lim
	}
	bd := a.Bounds().Intersect(b.Bounds())
	dark, missing := 0, 0
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			if !ink(a, x, y, 96) {
				continue
			}
			dark++
			near := false
			for dy := -1; dy <= 1 && !near; dy++ {
				for dx := -1; dx <= 1 && !near; dx++ {
					near = ink(b, x+dx, y+dy, 192)
				}
			}
			if !near {
				missing++
			}
		}
	}
	return float64(missing) / float64(max(dark, 1))
}

// writeCmp writes a, b and their far-off pixels (black) one above the
// other, to look at.
func writeCmp(path string, a, b image.Image) {
	bd := a.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, bd.Dx(), 3*bd.Dy()))
	for y := 0; y < bd.Dy(); y++ {
		for x := 0; x < bd.Dx(); x++ {
			ca, cb := a.At(bd.Min.X+x, bd.Min.Y+y), b.At(bd.Min.X+x, bd.Min.Y+y)
			out.Set(x, y, ca)
			out.Set(x, y+bd.Dy(), cb)
			r1, g1, b1, _ := ca.RGBA()
			r2, g2, b2, _ := cb.RGBA()
			if max(abs(float64(r1)-float64(r2)), abs(float64(g1)-float64(g2)), abs(float64(b1)-float64(b2)))/257 > 64 {
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

// noText is a drawing without its text.
func noText(d Drawing) Drawing {
	return Drawing{Width: d.Width, Height: d.Height, Draw: func(c draw.Canvas) {
		c.Canvas = textless{c.Canvas}
		d.Draw(c)
	}}
}

type textless struct{ vg.Canvas }

func (textless) FillString(font.Face, vg.Point, string) {}

// vgpdfBold works around vgpdf registering every face with style "" but
// selecting bold ones with "B": a bold face goes to vgpdf as a normal
// weight of a variant of its own.
type vgpdfBold struct{ vg.CanvasSizer }

func (c vgpdfBold) FillString(f font.Face, pt vg.Point, s string) {
	if f.Font.Weight != xfont.WeightNormal || f.Font.Style != xfont.StyleNormal {
		f.Font.Variant += font.Variant("W" + itoa(int(f.Font.Weight)) + "S" + itoa(int(f.Font.Style)))
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

// TestPDFDeterministic: a drawing's PDF has the same bytes whether it is
// drawn alone, after others or beside them.
func TestPDFDeterministic(t *testing.T) {
	samples := exportSamples(t)
	names := make([]string, 0, len(samples))
	for n := range samples {
		names = append(names, n)
	}
	slices.Sort(names)
	first := map[string][]byte{}
	for _, n := range names {
		b, err := samples[n].PDF()
		if err != nil {
			t.Fatal(err)
		}
		first[n] = b
	}
	var wg sync.WaitGroup
	again := make([][]byte, len(names))
	for i := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			again[i], _ = samples[names[len(names)-1-i]].PDF()
		}()
	}
	wg.Wait()
	for i, b := range again {
		if n := names[len(names)-1-i]; !bytes.Equal(b, first[n]) {
			t.Errorf("%s: the PDF drawn beside others differs from the one drawn alone", n)
		}
	}
}

// BenchmarkPDF: the PDFs of the sample drawings; prints the CPU time and
// bytes per figure.
func BenchmarkPDF(b *testing.B) {
	samples := exportSamples(&testing.T{})
	size, cpu0 := 0, processCPUSeconds()
	for range b.N {
		size = 0
		for _, d := range samples {
			pdf, err := d.PDF()
			if err != nil {
				b.Fatal(err)
			}
			size += len(pdf)
		}
	}
	b.ReportMetric(float64(size)/float64(len(samples)), "bytes/figure")
	b.ReportMetric(1000*(processCPUSeconds()-cpu0)/float64(b.N*len(samples)), "cpu-ms/figure")
}

// TestPDFNotFinite: a drawing with a NaN coordinate is an error, not a
// PDF with the point drawn somewhere else.
func TestPDFNotFinite(t *testing.T) {
	t.Parallel()
	d := Drawing{Width: 100, Height: 100, Draw: func(c draw.Canvas) {
		var p vg.Path
		p.Move(vg.Point{X: 1, Y: 1})
		p.Line(vg.Point{X: vg.Length(math.NaN()), Y: 5})
		c.Stroke(p)
	}}
	if _, err := d.PDF(); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("err = %v, want one naming NaN", err)
	}
}
