package paper_test

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var onePage = regexp.MustCompile(`Pages:\s+1\n`)

// baseFontRe is a font a PDF embeds (as a subset: its tag, then the
// face's name).
var baseFontRe = regexp.MustCompile(`/BaseFont /[A-Z]{6}\+([A-Za-z-]+)`)

// TestDemoFigureExports: every figure of the demo that has an SVG has a
// drawing, so the build wrote figures/<id>.pdf (one page, opened by
// pdfinfo) and figures/<id>.png (not blank: some pixel is not the white
// background) beside it, and with --format latex paper/figures/<id>.pdf,
// which paper/example.tex includes.
func TestDemoFigureExports(t *testing.T) {
	needTeX(t)
	_, site := builtDemo(t)
	svgs, err := filepath.Glob(filepath.Join(site, "figures", "*.svg"))
	if err != nil || len(svgs) < 10 {
		t.Fatalf("%d SVG figures in the demo site (%v)", len(svgs), err)
	}
	example, err := os.ReadFile(filepath.Join(site, "paper", "example.tex"))
	if err != nil {
		t.Fatal(err)
	}
	for _, svg := range svgs {
		id := strings.TrimSuffix(filepath.Base(svg), ".svg")
		pdf := filepath.Join(site, "figures", id+".pdf")
		if _, err := os.Stat(pdf); err != nil {
			t.Errorf("%s: no PDF (the figure has no Drawing?)", id)
			continue
		}
		if out, err := exec.Command("pdfinfo", pdf).CombinedOutput(); err != nil || !onePage.Match(out) {
			t.Errorf("%s.pdf: pdfinfo: %v\n%s", id, err, out)
		}
		// one face in every format: the SVG names Liberation Sans, so
		// the PDF embeds it alone (gonum/plot's default is a serif)
		if b, err := os.ReadFile(pdf); err == nil {
			for _, m := range baseFontRe.FindAllSubmatch(b, -1) {
				if string(m[1]) != "LiberationSans" && string(m[1]) != "LiberationSans-Bold" {
					t.Errorf("%s.pdf embeds %s; every text of a figure is in Liberation Sans, as its SVG", id, m[1])
				}
			}
		}
		if _, err := os.Stat(filepath.Join(site, "paper", "figures", id+".pdf")); err != nil {
			t.Errorf("%s: not in paper/figures/", id)
		}
		if !bytes.Contains(example, []byte("{figures/"+id+".pdf}")) {
			t.Errorf("%s: paper/example.tex does not include it", id)
		}
		if blank, err := blankPNG(filepath.Join(site, "figures", id+".png")); err != nil || blank {
			t.Errorf("%s.png: blank %v, %v", id, blank, err)
		}
	}
}

// blankPNG reports whether every pixel of a PNG is the first pixel's
// colour.
func blankPNG(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return false, err
	}
	return uniform(img), nil
}

func uniform(img image.Image) bool {
	r := img.Bounds()
	bg := img.At(r.Min.X, r.Min.Y)
	br, bgG, bb, ba := bg.RGBA()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			pr, pg, pb, pa := img.At(x, y).RGBA()
			if pr != br || pg != bgG || pb != bb || pa != ba {
				return false
			}
		}
	}
	return true
}
