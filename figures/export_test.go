package figures

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// needPoppler skips when poppler's tools are missing (saying what to
// install); under CI it fails, since `make deps` installs them.
func needPoppler(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"pdfinfo", "pdftotext", "pdffonts"} {
		if _, err := exec.LookPath(tool); err != nil {
			msg := tool + " not found: run `make deps` (Debian poppler-utils)"
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

func samplePlot(t *testing.T) (*plot.Plot, Drawing) {
	t.Helper()
	p := NewPlot("Mean nDCG@10 by rule", "datasets dropped", "Spearman rho")
	pts := plotter.XYs{{X: 1, Y: 0.99}, {X: 5, Y: 0.93}, {X: 10, Y: 0.84}, {X: 20, Y: 0.71}}
	l, err := plotter.NewLine(pts)
	if err != nil {
		t.Fatal(err)
	}
	l.Color = Colour(0)
	l.Width = vg.Points(2)
	p.Add(l)
	p.Legend.Add("borda", l)
	return p, PlotDrawing(p, 7*vg.Inch, 4.5*vg.Inch)
}

// TestExportOneDrawing: the SVG, PDF and PNG of a figure come from one
// drawing: Drawing.SVG gives exactly the bytes of SVG (the site's
// figures), every text of the SVG is in the PDF (pdftotext), the PDF is
// one page of the drawing's size (pdfinfo) with every font embedded
// (pdffonts), two renderings give the same bytes, and the 300 dpi PNG
// has the drawing's pixel size and shows the line's colour.
func TestExportOneDrawing(t *testing.T) {
	needPoppler(t)
	p, d := samplePlot(t)
	site, err := SVG(p, 7*vg.Inch, 4.5*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := d.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(site, svg) {
		t.Fatal("Drawing.SVG differs from SVG of the same plot")
	}
	col := d.AtWidth(ColumnWidth)
	pdf, err := col.PDF()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := col.PDF()
	if !bytes.Equal(pdf, again) {
		t.Error("two PDFs of one drawing differ (a date or map order in the file)")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f.pdf")
	os.WriteFile(path, pdf, 0o644)
	info, err := exec.Command("pdfinfo", path).Output()
	if err != nil {
		t.Fatalf("pdfinfo cannot open the PDF: %v", err)
	}
	m := regexp.MustCompile(`Page size:\s+([\d.]+) x ([\d.]+) pts`).FindStringSubmatch(string(info))
	if m == nil || !strings.Contains(string(info), "Pages:           1") {
		t.Fatalf("pdfinfo:\n%s", info)
	}
	w, _ := strconv.ParseFloat(m[1], 64)
	h, _ := strconv.ParseFloat(m[2], 64)
	if wantW, wantH := 3.33*72, 3.33*72*4.5/7; abs(w-wantW) > 0.5 || abs(h-wantH) > 0.5 {
		t.Errorf("page %v x %v pts, want %.2f x %.2f (one column, the SVG's aspect)", w, h, wantW, wantH)
	}
	fonts, err := exec.Command("pdffonts", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(fonts)), "\n")
	if len(lines) < 3 {
		t.Fatalf("pdffonts lists no font:\n%s", fonts)
	}
	for _, l := range lines[2:] {
		f := strings.Fields(l)
		if len(f) < 5 || f[len(f)-5] != "yes" {
			t.Errorf("font not embedded: %s", l)
		}
	}
	text, err := exec.Command("pdftotext", path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	texts := regexp.MustCompile(`<text[^>]*>([^<]+)</text>`).FindAllStringSubmatch(string(svg), -1)
	if len(texts) < 5 {
		t.Fatalf("%d texts in the SVG", len(texts))
	}
	for _, tm := range texts {
		if s := strings.TrimSpace(tm[1]); !strings.Contains(string(text), s) {
			t.Errorf("the SVG's text %q is not in the PDF", s)
		}
	}
	raw, err := col.PNG(PNGDPI)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if abs(float64(b.Dx())-3.33*300) > 1 || abs(float64(b.Dy())-3.33*300*4.5/7) > 1 {
		t.Errorf("PNG %dx%d px, want 3.33 in x 300 dpi wide", b.Dx(), b.Dy())
	}
	inked, line := 0, 0
	want := Colour(0)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 < 250 || g>>8 < 250 || bl>>8 < 250 {
				inked++
			}
			if abs(float64(r>>8)-float64(want.R)) < 8 && abs(float64(g>>8)-float64(want.G)) < 8 && abs(float64(bl>>8)-float64(want.B)) < 8 {
				line++
			}
		}
	}
	if inked < b.Dx()*b.Dy()/100 || line < 500 {
		t.Errorf("PNG nearly blank: %d inked pixels, %d of the line's colour", inked, line)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
