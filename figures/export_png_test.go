package figures

import (
	"bytes"
	"image/png"
	"testing"

	"gonum.org/v1/plot/vg"
)

// TestPNGDecodes: every sample drawing's PNG decodes, at the size its
// drawing and the resolution give, with ink on it.
func TestPNGDecodes(t *testing.T) {
	for name, d := range exportSamples(t) {
		raw, err := d.PNG(PNGDPI)
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

// TestPNGDeterministic: a drawing's PNG is the same bytes every time.
func TestPNGDeterministic(t *testing.T) {
	samples := exportSamples(t)
	first := map[string][]byte{}
	for range 2 {
		for name, d := range samples {
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
