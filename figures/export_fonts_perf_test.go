package figures

import (
	"reflect"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// faceRecorder is a canvas that records the faces of the strings drawn
// on it, as vgpdf's canvas receives them under boldSafe.
type faceRecorder struct {
	fontCollector
	got []font.Face
}

func (c *faceRecorder) FillString(f font.Face, _ vg.Point, _ string) {
	if f.Font.Size != 0 {
		c.got = append(c.got, f)
	}
}

// TestPrepareFontsFindsThePDFFaces: the faces prepareFonts converts ahead
// are exactly those the PDF's drawing hands to vgpdf (bold ones renamed
// by boldSafe), for a plot and for a forest plot with bold rows; a
// mismatch would convert fonts no PDF uses, or leave the PDF to convert
// its own one after the other.
func TestPrepareFontsFindsThePDFFaces(t *testing.T) {
	t.Parallel()
	_, plain := samplePlot(t)
	forests, err := Meta("bpr-vs-mf", "BPR vs MF", metaResult(t, false, true))
	if err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]Drawing{"plot": plain, "forest": *forests[0].Drawing} {
		d = d.AtWidth(ColumnWidth)
		rec := &faceRecorder{fontCollector: fontCollector{w: d.Width, h: d.Height}}
		d.Draw(draw.New(boldSafeRecorder{rec}))
		want := map[font.Face]bool{}
		for _, f := range rec.got {
			want[f] = true
		}
		fc := &fontCollector{w: d.Width, h: d.Height, seen: map[font.Face]bool{}}
		d.Draw(draw.New(fc))
		got := map[font.Face]bool{}
		for _, f := range fc.faces {
			got[f] = true
		}
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: prepareFonts would convert %v, the PDF uses %v", name, got, want)
		}
		bold := false
		for f := range want {
			bold = bold || f.Font.Variant != "Sans"
		}
		if name == "forest" && !bold {
			t.Errorf("forest: no bold face among %v: the test no longer covers boldSafe's renaming", want)
		}
	}
}

// boldSafeRecorder is boldSafe's renaming without its conversion
// bookkeeping: what vgpdf's FillString would receive.
type boldSafeRecorder struct{ *faceRecorder }

func (c boldSafeRecorder) FillString(f font.Face, pt vg.Point, s string) {
	c.faceRecorder.FillString(pdfFace(f), pt, s)
}
