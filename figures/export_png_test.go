package figures

import (
	"bytes"
	"image/png"
	"sync"
	"testing"

	"gonum.org/v1/plot/vg"
)

// samplePNGs holds each sample drawing's PNG at PNGDPI, rendered once
// for the tests that read it (TestPNGDecodes, TestPDFMatchesVgpdf);
// TestPNGDeterministic renders each again and compares.
var samplePNGs sync.Map // name → *samplePNG

type samplePNG struct {
	once sync.Once
	raw  []byte
	err  error
}

// renderedPNG is the PNG of sample drawing d (named name in
// exportSamples) at PNGDPI, rendered on first use.
func renderedPNG(name string, d Drawing) ([]byte, error) {
	v, _ := samplePNGs.LoadOrStore(name, &samplePNG{})
	p := v.(*samplePNG)
	p.once.Do(func() { p.raw, p.err = d.PNG(PNGDPI) })
	return p.raw, p.err
}

// TestPNGDecodes: every sample drawing's PNG decodes, at the size its
// drawing and the resolution give, with ink on it.
func TestPNGDecodes(t *testing.T) {
	for name, d := range exportSamples(t) {
		raw, err := renderedPNG(name, d)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wantW, wantH := int(float64(d.Width/vg.Inch)*PNGDPI+0.5), int(float64(d.Height/vg.Inch)*PNGDPI+0.5)
		if b := img.Bounds(); b.Dx() != wantW || b.Dy() != wantH {
			t.Errorf("%s: %v, want %d×%d", name, b, wantW, wantH)
		}
		inked := false
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y && !inked; y += 3 {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 3 {
				if r, g, b, _ := img.At(x, y).RGBA(); r+g+b < 3*0x8000 {
					inked = true
					break
				}
			}
		}
		if !inked {
			t.Errorf("%s: a blank image", name)
		}
	}
}

// TestPNGDeterministic: a drawing's PNG is the same bytes every time
// (rendered again, against the render the other tests read, which may
// have been made on another goroutine from another call of
// exportSamples).
func TestPNGDeterministic(t *testing.T) {
	for name, d := range exportSamples(t) {
		first, err := renderedPNG(name, d)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := d.PNG(PNGDPI)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, raw) {
			t.Errorf("%s: %d bytes, then %d different ones", name, len(first), len(raw))
		}
	}
}
