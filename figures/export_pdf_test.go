package figures

import (
	"bytes"
	"html"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/figures/internal/imgtest"
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

// TestPDFMatchesVgpdf: the PDF canvas draws what vgpdf drew: without
// the text, pixel for pixel at 150 dpi (pdftoppm; vgpdf given straight
// colours, see vgpdfBold.SetColor). Its text is placed as the PNG's
// (vgimg) is, kerned and on the baseline (vgpdf did neither, and its
// cp1252 fonts dropped −, → and ρ): at 300 dpi every dark pixel of the
// page has ink within a pixel in the PNG and the other way round (vgpdf's
// pages miss 0.2–15% of them). Every text of the SVG is in the PDF
// (pdftotext) and every font is embedded as a subset (pdffonts).
func TestPDFMatchesVgpdf(t *testing.T) {
	imgtest.NeedPoppler(t)
	for name, d := range exportSamples(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bare, err := Drawing{Width: d.Width, Height: d.Height, Draw: imgtest.NoText(d.Draw)}.PDF()
			if err != nil {
				t.Fatal(err)
			}
			got, want := imgtest.Rasterise(t, bare, 150), imgtest.Rasterise(t, imgtest.Vgpdf(t, d.Width, d.Height, imgtest.NoText(d.Draw)), 150)
			if got.Bounds() != want.Bounds() {
				t.Fatalf("page %v, vgpdf's %v", got.Bounds(), want.Bounds())
			}
			far, mean := imgtest.PixelDiff(got, want)
			if dir := os.Getenv("EVALBOOK_PDFCMP"); dir != "" { // to look at
				imgtest.WriteCmp(filepath.Join(dir, name+".bare.png"), got, want)
			}
			if far > 0.002 || mean > 0.5 {
				t.Errorf("without text: %.4f%% of pixels far off vgpdf's, mean difference %.3f", 100*far, mean)
			}
			pdf, err := d.PDF()
			if err != nil {
				t.Fatal(err)
			}
			raw, err := renderedPNG(name, d)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := png.Decode(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			page := imgtest.Rasterise(t, pdf, PNGDPI)
			if dir := os.Getenv("EVALBOOK_PDFCMP"); dir != "" {
				imgtest.WriteCmp(filepath.Join(dir, name+".png-vs-pdf.png"), page, ref)
			}
			miss := max(imgtest.InkMissing(page, ref), imgtest.InkMissing(ref, page))
			if miss > 0.002 {
				t.Errorf("%.4f%% of the inked pixels of the page or the PNG have no ink near them in the other", 100*miss)
			}
			t.Logf("%s: ink missing %.4f%%", name, 100*miss)
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
	got, old := imgtest.Text(t, pdf), imgtest.Text(t, imgtest.Vgpdf(t, d.Width, d.Height, d.Draw))
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
	fonts := imgtest.Fonts(t, pdf)
	if len(fonts) == 0 && strings.Contains(string(svg), "<text") {
		t.Errorf("no fonts")
	}
	for _, l := range fonts {
		if f := strings.Fields(l); len(f) < 5 || f[len(f)-5] != "yes" || f[len(f)-4] != "yes" || f[len(f)-3] != "yes" {
			t.Errorf("font not embedded as a subset with a ToUnicode map: %s", l)
		}
	}
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
